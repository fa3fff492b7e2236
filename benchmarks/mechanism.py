"""The mechanism proven in motion (issue 32): the physics engine's figures, then the swept
solids' and the gears'.

    python benchmarks/mechanism.py [PLACES] [--skip-sweep]

Physics (MuJoCo, hardware/orbito_cad/models/physics.py), on the drive's own step profile, cups and
marbles started up to 0.3 mm and 2 deg off:
- 12 places forwards then 12 back with 16 marbles, friction 0.2, 0.35 and 0.5: the worst cup
  offset and turn after a place, the marbles' worst offset, the cup-to-cup force, the peak
  torque at the motor against what it gives at that speed;
- PLACES (1,000) random places (friction 0.2-0.5, forwards or back) on two processes: how
  many cups were driven to their square every time, and the same worst figures;
- a power cut at 10 points of a place: where the cups stood, and the homing that finished it;
- BEFORE: the first design's one finger per cup.
Then benchmarks/mechanism_sweep.py's figures: the least gaps over one place forwards and back,
the gears' backlash and transmission error, and their BEFORE.
"""

from __future__ import annotations

import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hardware"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from orbito_cad.board.params import PARAMS  # noqa: E402
from orbito_cad.models import physics  # noqa: E402


def worst(reports: list[physics.PlaceReport]) -> str:
    missed = sum(len(r.missed) for r in reports)
    marbles = max(r.marble_offset for r in reports)
    return (
        f"cup offset {max(r.cup_offset for r in reports):.3f} mm, turn "
        f"{max(r.cup_turn for r in reports):.2f} deg, marbles {marbles:.2f} "
        f"mm off their seats, cup-to-cup {max(r.cup_force for r in reports):.3f} N, torque "
        f"{max(r.peak_torque for r in reports) * 1000:.0f} mN m = "
        f"{max(r.torque_share for r in reports) * 100:.0f}% of the motor's, cups lifted "
        f"{max(r.lifted for r in reports):.2f} mm, missed {missed}"
    )


def _chunk(args: tuple[int, int]) -> list[physics.PlaceReport]:
    count, seed = args
    return physics.random_places(count, seed)


def main() -> None:
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    places = int(args[0]) if args else 1000
    t0 = time.monotonic()
    usable = physics.usable_torque(PARAMS, physics.Drive().max_speed, physics.Drive())
    print(f"motor: 17HS4401 at {PARAMS.driver_current} A RMS gives {usable * 1000:.0f} mN m at "
          f"{physics.Drive().max_speed:g} steps/s; a place takes "
          f"{physics.profile(physics.Drive(), 1)[-1]:.2f} s")  # fmt: skip
    for mu in (0.2, 0.35, 0.5):
        t = time.monotonic()
        board = physics.Board(mu=mu, seed=11, jitter=physics.JITTER)
        reports = physics.places_and_back(board, 12)
        print(f"AFTER 12 places and back, mu {mu}: {worst(reports)} ({time.monotonic() - t:.0f} s)")
    t = time.monotonic()
    chunks = [(places // 20 // 2 * 20 + (places % 40 if k == 0 else 0), 100 + k) for k in range(2)]
    with ProcessPoolExecutor(2) as pool:
        reports = [r for part in pool.map(_chunk, chunks) for r in part]
    driven = sum(12 - len(r.missed) for r in reports)
    print(f"AFTER {len(reports)} random places (mu 0.2-0.5): cups driven to their square "
          f"{driven} of {12 * len(reports)} ({driven / (12 * len(reports)) * 100:.2f}%); "
          f"{worst(reports)} ({time.monotonic() - t:.0f} s)")  # fmt: skip
    for at in (0.05, 0.15, 0.25, 0.35, 0.45, 0.55, 0.65, 0.75, 0.85, 0.95):
        board = physics.Board(mu=0.35, seed=5, jitter=physics.JITTER)
        cut = physics.power_cut(board, at)
        print(f"AFTER power cut at {at:.2f} of a place: the rotor coasts {cut.coast * 800:.1f} "
              f"steps, cups up to {cut.between:.1f} mm from a square; homing finishes the "
              f"place: {worst([cut.after_home])}")  # fmt: skip
    board = physics.Board(mu=0.3, seed=3, jitter=physics.JITTER, one_finger=True)
    first = board.move(1)
    print(f"BEFORE one finger per cup, mu 0.3, one place: {worst([first])}")
    if "--skip-sweep" not in sys.argv:
        import mechanism_sweep

        sys.argv = [sys.argv[0]]
        mechanism_sweep.main()
    print(f"benchmark total {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
