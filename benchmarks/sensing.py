"""The squares' sensing, from the magnetic model (orbito_cad/models/magnetics.py, issue 33).

python benchmarks/sensing.py [AXES] [TURNS]    (marble directions and turns about the vertical
                                                sampled; 400 x 12 by default, a few minutes)

Prints, BEFORE (today's glass marble with one 5 x 3 mm disc over an SS451A: magnet down,
sideways, up, then every pose) and AFTER (printed marbles: issue 33's six discs and the
design's four, each read by the SS451A, a single-axis DRV5055 and a three-axis TMAG5273):
the weakest field over every resting pose against the worst operate point, the strongest
empty-square field (neighbours in their worst poses and colours, the index magnet, the motor)
against the worst release point, black against white (the least distance between their
readings against the offsets and noise, and the share of poses whose colour the reading
decides), and when a marble's reading is final in a ring move against the referee's wait.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

from orbito_cad.board.params import PARAMS
from orbito_cad.models import magnetics as mag

from orbito_hw.app.config import load_config
from orbito_hw.control.settings import Settings


def main(n_axes: int = 400, n_turns: int = 12) -> None:
    start = time.perf_counter()
    print(f"poses: {n_axes} directions x {n_turns} turns x {len(mag.offsets())} offsets "
          f"x 2 seat heights; N42 at {PARAMS.remanence} T")  # fmt: skip
    print("\nBEFORE: glass marble, one 5x3 mm disc, SS451A (operate <= "
          f"{PARAMS.switch_operate_g:g} G, release >= {PARAMS.switch_release_g:g} G)")  # fmt: skip
    for pose, g in mag.poses(mag.today(), "switch", ("down", "sideways", "up")).items():
        verdict = "seen" if g >= 2 * PARAMS.switch_operate_g else "NOT seen with 2x margin"
        print(f"  magnet {pose:8s} {g:7.1f} G  {verdict}")
    rows = [mag.margins(mag.today(), "switch", n_axes, n_turns)]
    print("\nAFTER: printed marbles, 6x3 mm discs north out (black): issue 33's six on a cube's")
    print("axes, and the design's four at a tetrahedron's corners")
    readouts: tuple[mag.Readout, ...] = ("switch", "linear", "vector")
    for marble in (mag.six(), mag.printed()):
        rows += [mag.margins(marble, r, n_axes, n_turns) for r in readouts]
    print(f"\n{'marble':22s} {'readout':7s} {'weakest':>8s} {'operate':>8s} {'seen':>6s} "
          f"{'empty':>7s} {'release':>8s} {'unseen':>7s} {'b/w gap':>8s} {'noise':>6s} "
          f"{'decided':>8s}")  # fmt: skip
    for m in rows:
        print(
            f"{m.marble:22s} {m.readout:7s} {m.weakest:8.1f} {m.operate:8.1f} {m.seen:6.2f} "
            f"{m.empty:7.1f} {m.release:8.1f} {m.unseen:7.2f} {m.gap:8.2f} "
            f"{m.colour_noise:6.1f} {m.decided:8.1%}  "
            f"{'sees' if m.sees() else 'MISSES'} / {'tells' if m.tells() else 'cannot tell'}"
        )
    print("\nthe field under a centred marble averaged over every rotation (gauss, x y z):")
    for marble in (mag.today(), mag.six(), mag.printed()):
        print(f"  {marble.name:22s} {mag.orientation_mean(marble, 'vector')}")
    print(f"index magnet, strongest at a square: {mag.index_field('vector'):.1f} G; motor (bare "
          f"rotor magnet, an upper bound): {mag.motor_field('vector'):.1f} G")  # fmt: skip
    drive = load_config(Path(__file__).resolve().parent.parent / "config.example.toml").drive
    vector = rows[-1]
    _, _, noise = mag._noise("vector", PARAMS)
    print(f"\na ring move ({drive.steps_per_place} steps, {drive.max_speed:g} steps/s, "
          f"{drive.acceleration:g} steps/s2), TMAG5273 operate {vector.operate:.1f} G, release "
          f"{vector.release:.1f} G:")  # fmt: skip
    for a in mag.arrival(mag.printed(), "vector", vector.operate, vector.release, noise,
                         drive.steps_per_place, drive.max_speed, drive.acceleration):  # fmt: skip
        print(
            f"  {a.ring}: its square empty once {a.gone_at:.1f} mm off ({a.gone_after_start:.2f}"
            f" s into the move); the next square's reading present from {a.seen_at:.1f} mm "
            f"({a.seen_before_stop:.2f} s before the stop), final from {a.final_at:.1f} mm "
            f"({a.final_before_stop:.2f} s before)"
        )
    wait = Settings().settle
    print(
        f"  final one scan after the stop at most ({PARAMS.scan_period * 1000:.0f} ms); the "
        f"referee reads {wait * 1000:.0f} ms after the move's report: "
        f"{'covered' if PARAMS.scan_period <= wait else 'NOT covered'}"
    )
    breakouts(n_axes, n_turns)
    print(f"\n{time.perf_counter() - start:.1f} s")


def breakouts(n_axes: int, n_turns: int) -> None:
    """Where a bought TMAG5273 breakout fits under the squares (board/breakout.py), the
    margins with its chip off the square's centre or deeper, and the optics' windows."""
    from dataclasses import replace

    from orbito_cad.board import breakout
    from orbito_cad.board.params import SPARKFUN_23881

    from orbito_hw.rules.squares import OUTER_RING

    print("\nthe chip off its square's centre (mm) or deeper in the floor (mm): the margins")
    for off in (0.0, 1.5, 3.0, 4.0):
        m = mag.margins(mag.printed(), "vector", n_axes // 4, n_turns // 2, chip_off=off)
        print(f"  {off:3.1f} off: seen {m.seen:.2f}x, unseen {m.unseen:.2f}x")
    for deeper in (0.5, 1.0, 2.0):
        q = replace(PARAMS, vector_element_depth=PARAMS.vector_element_depth + deeper)
        m = mag.margins(mag.printed(q), "vector", n_axes // 4, n_turns // 2, q)
        print(f"  {deeper:3.1f} deeper: seen {m.seen:.2f}x, unseen {m.unseen:.2f}x")
    room = breakout.room_across(OUTER_RING[0])
    print(f"\nthe room under an outer square between the bars' rails: {room:.1f} mm")
    for board in (PARAMS.breakout, SPARKFUN_23881):
        got = breakout.verdicts(board, 3.0)
        fits = {name: at for name, at in got.items() if at is not None}
        print(
            f"  {board.name}, {board.length} x {board.width} mm: fits under "
            f"{len(fits)} of 16 with its chip within 3 mm: {' '.join(fits) or 'none'}"
        )
        for name, at in fits.items():
            covered = breakout.covered_windows(at, board)
            print(
                f"    {name}: chip {at.offset:.2f} mm off, turned {at.turn:g} deg; covers the "
                f"{' and '.join(covered) or 'no'} window{'s' if len(covered) > 1 else ''}"
            )


if __name__ == "__main__":
    main(*(int(a) for a in sys.argv[1:3]))
