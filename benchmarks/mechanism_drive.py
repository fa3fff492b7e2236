"""The ring drive's dynamics in MuJoCo (issue 32): the figures ``physics_drive.py`` measures.

    python benchmarks/mechanism_drive.py [--places 1000] [--seed 0] [--skip-before]
                                         [--only-random] [--back-speed 0.5]

Where ``benchmarks/mechanism.py`` drives the bars exactly as the kinematics say, here they
ride their ramps by their weight and the motor has its inertia (``physics_drive.py``). Prints,
for the design in ``params.py``: the worst cup offset and turn after a place over 12 places
forward and 12 back with 16 marbles (mu 0.2 and 0.5, cups and marbles started off by up to
0.3 mm and 2 deg), the marbles' worst offset, the cup-to-cup force, the peak torque against
the motor's usable torque at that speed, a cup lifted, forwards and back apart; a power cut at
points through a place, how far the drive coasted and what homing made of it; the first
design (30 mm cups, one finger 11 mm off each cup's centre line, 4.4 mm fingers in 5 mm holes
without a lead-in) for the before; take-backs at half speed (the fix); and randomised places
(mu 0.2-0.5, forwards or back, ``--back-speed`` for the take-backs), the time each took.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "hardware"))

from orbito_cad.board import layout as geo
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models import physics_drive as pd
from orbito_cad.models import physics_drive_model as pm

SHIFT, TURN = 0.3, 2.0  # mm and deg: how far off their squares the cups and marbles start
FRICTION = (0.2, 0.5)
CUT_AT = (0.02, 0.1, 0.3, 0.5, 0.7, 0.9, 0.98)


def before_params() -> Params:
    """The first design's cups and fingers (issue 32), the rest as today."""
    return dataclasses.replace(PARAMS, cup_d=30.0, seat_d=13.0, finger_hole_d=5.0,
                               finger_d=4.4, finger_offset=11.0, lead_in=0.0)  # fmt: skip


def line(name: str, r: pd.PlaceReport) -> str:
    return (f"{name}: cup off {r.cup_offset:.3f} mm, turned {r.cup_turn:.2f} deg; "
            f"marble off {r.marble_offset:.2f} mm; cup on cup {r.cup_force:.3f} N; "
            f"torque {r.torque * 1000:.0f} mN m ({r.torque_share:.0%} of usable); "
            f"cup up {r.lifted:.2f} mm; fastest cup at stop {r.cup_speed:.2f} mm/s; "
            f"missed {sorted(set(r.missed)) or 'none'}")  # fmt: skip


def round_trip(p: Params, fingers: pm.Fingers, places: int, mu: float, seed: int,
               back_speed: float = 1.0) -> None:  # fmt: skip
    """``places`` forward then as many back, the way back at ``back_speed`` of the top speed."""
    started = time.perf_counter()
    board = pd.Board(p, mu=mu, seed=seed, fingers=fingers)
    board.scatter(SHIFT, TURN)
    drives = {1: board.drive, -1: dataclasses.replace(
        board.drive, max_speed=board.drive.max_speed * back_speed)}  # fmt: skip
    ways = {1: pd.PlaceReport(), -1: pd.PlaceReport()}
    for n, step in enumerate([1] * places + [-1] * places):
        board.drive = drives[step]
        r = board.move(step)
        if r.missed and not ways[1].missed and not ways[-1].missed:
            print(f"  first miss at place {n + 1}: {sorted(r.missed)}")
        ways[step].merge(r)
    took = time.perf_counter() - started
    print(line(f"  {places} forward, mu {mu}", ways[1]))
    back = f"{places} back" + (f" at {back_speed:.0%} speed" if back_speed != 1 else "")
    print(line(f"  {back}, mu {mu}", ways[-1]) + f" [{took:.0f} s]")


def power_cuts(seed: int) -> None:
    for at in CUT_AT:
        started = time.perf_counter()
        board = pd.Board(PARAMS, mu=FRICTION[0], seed=seed)
        c = board.cut(at)
        took = time.perf_counter() - started
        print(f"  cut at {at:.0%} of a place: coasted {c.coasted:+.3f} place, index "
              f"{'read' if c.index else 'not read'}, homing {c.home_steps} steps -> "
              f"{c.outcome} (cups {c.cup_offset:.2f} mm off, marbles {c.marble_offset:.2f} mm)"
              f" [{took:.0f} s]")  # fmt: skip


def randomised(places: int, seed: int, back_speed: float) -> None:
    started = time.perf_counter()
    board = pd.Board(PARAMS, seed=seed)
    rng = board.rng
    drives = {1: board.drive, -1: dataclasses.replace(
        board.drive, max_speed=board.drive.max_speed * back_speed)}  # fmt: skip
    ways = {1: pd.PlaceReport(), -1: pd.PlaceReport()}
    failed = {1: 0, -1: 0}
    for n in range(1, places + 1):
        board.set_friction(float(rng.uniform(*FRICTION)))
        board.scatter(SHIFT, TURN)
        way = 1 if rng.random() < 0.5 else -1
        board.drive = drives[way]
        r = board.move(way)
        ways[way].merge(r)
        failed[way] += bool(r.missed) or r.lifted > pd.LIFTED
        if n % 50 == 0 or n == places:
            took = time.perf_counter() - started
            print(f"  {n} places, {n - sum(failed.values())} with every cup driven and none "
                  f"lifted (forward failed {failed[1]}, back {failed[-1]}) [{took:.0f} s]",
                  flush=True)  # fmt: skip
    print(line("  worst forward", ways[1]))
    print(line("  worst back", ways[-1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--places", type=int, default=1000, help="randomised places")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--skip-before", action="store_true")
    parser.add_argument("--only-random", action="store_true", help="the randomised places only")
    parser.add_argument(
        "--back-speed",
        type=float,
        default=1.0,
        help="the randomised take-backs' top speed, a fraction of the config's",
    )
    args = parser.parse_args()
    if not args.only_random:
        figures(args.seed, args.skip_before)
    print(f"randomised: {args.places} places, mu {FRICTION[0]}-{FRICTION[1]}, forwards or back"
          f" (back at {args.back_speed:.0%} speed)")  # fmt: skip
    randomised(args.places, args.seed, args.back_speed)


def figures(seed: int, skip_before: bool) -> None:
    print(f"after (params.py): two fingers per cup, the TMC2209 at {PARAMS.driver_current} A")
    for mu in FRICTION:
        round_trip(PARAMS, geo.finger_points, 12, mu, seed)
    print("the fix: take-backs at half the top speed (the bars rise into the cups mid-move)")
    for mu in FRICTION:
        round_trip(PARAMS, geo.finger_points, 4, mu, seed, back_speed=0.5)
    print(f"power cut mid-place (mu {FRICTION[0]}: the farthest coast), then RingDrive.home")
    power_cuts(seed)
    if not skip_before:
        # one place each way: after a jam the stiff servo drives on where a motor would stall
        print("before (issue 32's design): 30 mm cups, one finger 11 mm off the centre line")
        for mu in FRICTION:
            round_trip(before_params(), pm.one_finger, 1, mu, seed)


if __name__ == "__main__":
    main()
