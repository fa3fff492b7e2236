"""The mechanism proven in motion (issues 32 and 45): the one physics model's figures, then the
swept solids' and the gears'.

    python benchmarks/mechanism.py [--places 3] [--jobs 2] [--skip-corners] [--skip-sweep]

Physics (MuJoCo, hardware/orbito_cad/models/physics*.py: the drive's own dynamics, the motor
joint on the stepper's law, the CAD's fingers and holes, the finger fit as the maker prints it
once print_clearance is set from the tolerance test), cups and marbles started up to 0.3 mm
and 2 deg off:
- the motor: its pull-out torque at the top speed and at a take-back's, and the time on which
  its rotor answers a load (physics_motor.response_time: the inertias on the field's spring);
- at friction 0.2, 0.35 and 0.5: PLACES places forward, then as many back (take-backs, at the
  drive's take-back speed), forward and back apart: the worst cup offset, turn and lift, the
  marbles off their seats, the peak torque the motor gave against its pull-out at that speed
  (and the load's unfiltered peak), and what breaks issue 45's bounds;
- the tolerance sweep: the 16 corners of a printer's errors (physics_tolerance: the finger
  fit to within half the tolerance test's step, the other fits a printer's full errors) at
  friction 0.2 and 0.5, one place forward and one back each; the worst corner for each
  figure named;
- a power cut at three points of a place, and homing after it;
- BEFORE: the first design's one finger per cup.
Then benchmarks/mechanism_sweep.py's figures: the least gaps over one place forwards and back,
the gears' backlash and transmission error, and their BEFORE.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hardware"))
sys.path.insert(0, str(ROOT / "benchmarks"))

from orbito_cad.board.params import PARAMS  # noqa: E402
from orbito_cad.models import physics as ph  # noqa: E402
from orbito_cad.models import physics_model as pm  # noqa: E402
from orbito_cad.models import physics_motor as motor  # noqa: E402
from orbito_cad.models import physics_tolerance as tol  # noqa: E402

FRICTIONS = (0.2, 0.35, 0.5)
SWEPT = (0.2, 0.5)  # the corners' frictions: the range's ends
SEED = 1


def line(r: ph.PlaceReport) -> str:
    broken = tol.broken(r)
    return (
        f"cup off {r.cup_offset:.3f} mm, turned {r.cup_turn:.2f} deg, lifted "
        f"{r.lifted:.2f} mm; marbles off their seats {r.marbles_off} (worst "
        f"{r.marble_offset:.2f} mm); torque {r.torque * 1000:.0f} mN m = "
        f"{r.torque_share:.0%} of the pull-out at that speed (load's unfiltered peak "
        f"{r.load * 1000:.0f}); {'holds' if not broken else 'BREAKS ' + '; '.join(broken)}"
    )


def _frictions(args: tuple[float, int]) -> tuple[float, ph.PlaceReport, ph.PlaceReport, float]:
    mu, places = args
    started = time.process_time()
    run = tol.run(tol.Corner("as built", pm.calibrated(PARAMS)), mu, places, SEED)
    return mu, run.forward, run.back, time.process_time() - started


def _corner(args: tuple[int, float]) -> tuple[int, float, ph.PlaceReport, ph.PlaceReport]:
    k, mu = args
    run = tol.run(tol.corners()[k], mu, 1, SEED)
    return k, mu, run.forward, run.back


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--places", type=int, default=3, help="places each way per friction")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-corners", action="store_true")
    parser.add_argument("--skip-sweep", action="store_true")
    args = parser.parse_args()
    t0 = time.monotonic()
    drive = ph.drive_config()
    top = drive.max_speed
    back = ph.step_times(-1)
    inertia = (pm.armature(PARAMS) + pm.disc_inertia(PARAMS)[1]) * 1e7
    print(
        f"motor: 17HS4401 at {PARAMS.driver_current} A: pull-out "
        f"{motor.pull_out(PARAMS, top) * 1000:.0f} mN m at {top:g} steps/s, "
        f"{motor.pull_out(PARAMS, len(back) / back[-1]) * 1000:.0f} at a take-back's; its rotor "
        f"with the gears and the disc ({inertia:.0f} g cm^2) answers a load in "
        f"{motor.response_time(PARAMS) * 1000:.1f} ms: shorter peaks are the inertias'; a place "
        f"{ph.step_times(1)[-1]:.2f} s, a take-back {back[-1]:.2f} s"
    )
    print(f"bounds (issue 45): {tol.BOUNDS}")
    play = pm.printed_play(PARAMS, pm.calibrated(PARAMS))
    print(
        f"the fit as built: print_clearance {PARAMS.print_clearance} mm set from the tolerance "
        f"test, printed with {play:.3f} mm of play (+-{PARAMS.fit_step / 2:g} in the sweep)"
    )
    with ProcessPoolExecutor(args.jobs) as pool:
        for mu, fwd, bwd, took in pool.map(_frictions, [(mu, args.places) for mu in FRICTIONS]):
            print(f"mu {mu}: {args.places} forward: {line(fwd)}")
            print(f"mu {mu}: {args.places} back:    {line(bwd)} [{took:.0f} s cpu]", flush=True)
        if not args.skip_corners:
            corners(pool)
    power_cuts()
    before = dataclasses.replace(PARAMS, cup_d=30.0, seat_d=13.0, print_clearance=0.6,
                                 finger_d=4.4, finger_offset=11.0, lead_in=0.0,
                                 finger_chamfer=0.0)  # fmt: skip
    board = ph.Board(before, mu=0.3, seed=SEED, fingers=pm.one_finger, errors=pm.EXACT)
    print(f"BEFORE one finger per 30 mm cup, mu 0.3, one place: {line(board.move(1))}")
    if not args.skip_sweep:
        import mechanism_sweep

        sys.argv = [sys.argv[0]]
        mechanism_sweep.main()
    print(f"benchmark total {time.monotonic() - t0:.0f} s")


def corners(pool: ProcessPoolExecutor) -> None:
    started = time.monotonic()
    names = [c.name for c in tol.corners()]
    jobs = [(k, mu) for k in range(len(names)) for mu in SWEPT]
    rows = []
    print(f"tolerance sweep: {len(names)} corners x mu {SWEPT}, one place forward and one back")
    for k, mu, fwd, bwd in pool.map(_corner, jobs):
        for way, r in (("forward", fwd), ("back", bwd)):
            rows.append((names[k], mu, way, r))
            print(f"  {names[k]}, mu {mu}, {way}: {line(r)}", flush=True)
    held = sum(not tol.broken(r) for *_, r in rows)
    took = time.monotonic() - started
    print(f"  {held} of {len(rows)} corner runs hold every bound ({took:.0f} s)")
    for figure, unit in (("cup_offset", "mm"), ("cup_turn", "deg"), ("lifted", "mm"),
                         ("marble_offset", "mm"), ("torque_share", "x pull-out")):  # fmt: skip
        name, mu, way, r = max(rows, key=lambda row: getattr(row[3], figure))
        print(f"  worst {figure}: {getattr(r, figure):.3f} {unit} at {name}, mu {mu}, {way}")


def power_cuts() -> None:
    for at in (0.1, 0.5, 0.9):
        board = ph.Board(PARAMS, mu=0.2, seed=SEED)
        c = board.cut(at)
        print(f"power cut at {at:.0%} of a place (mu 0.2): coasted {c.coasted:+.3f} place, index "
              f"{'read' if c.index else 'not read'}, homing {c.home_steps} steps -> {c.outcome} "
              f"(cups {c.cup_offset:.2f} mm off, marbles {c.marble_offset:.2f} mm)")  # fmt: skip


if __name__ == "__main__":
    main()
