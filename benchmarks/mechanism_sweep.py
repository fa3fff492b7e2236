"""The mechanism's geometry in motion: swept solids and gears, before and after issue 32.

    python benchmarks/mechanism_sweep.py [POSES]

AFTER: the assembly as built, moved through one place forwards and back at POSES poses (361
by default) with its own kinematics (manifold3d): the least cup-to-cup and moving-to-fixed
gaps, and any overlap outside the contacts by design; the gears over one tooth: backlash
range and transmission error. BEFORE: the first design's 30 mm cups on the same paths
(their overlap at the corners) and its straight-flank teeth in mesh (their backlash).
Needs the cad extra.
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hardware"))

import manifold3d  # noqa: E402
from build123d import Pos  # noqa: E402
from orbito_cad.assembly import whole  # noqa: E402
from orbito_cad.assembly.placed import Placed  # noqa: E402
from orbito_cad.board import layout  # noqa: E402
from orbito_cad.board.gearing import pitch_radius  # noqa: E402
from orbito_cad.board.params import PARAMS, Params  # noqa: E402
from orbito_cad.models import motion, sweep, teeth  # noqa: E402
from orbito_cad.parts import mesh, track  # noqa: E402

from orbito_hw.rules.squares import OUTER_RING, SQUARE_NAMES  # noqa: E402


def straight_flank_outline(teeth: int, p: Params) -> list[tuple[float, float]]:
    """The first design's teeth (issue 25): 20 deg straight flanks, stub, each thinned by
    the whole backlash."""
    m = p.gear_module
    rp, ra, rf = m * teeth / 2, m * teeth / 2 + 0.8 * m, m * teeth / 2 - m
    half_p = (math.pi * m / 2 - p.backlash) / 2
    tan20 = math.tan(math.radians(20))
    points = []
    step = 2 * math.pi / teeth
    for i in range(teeth):
        centre = i * step
        for r, sign in ((rf, -1), (ra, -1), (ra, 1), (rf, 1)):
            half = max(half_p - (r - rp) * tan20, 0.2)
            a = centre + sign * half / r
            points.append((r * math.cos(a), r * math.sin(a)))
        a = centre + step / 2
        points.append((rf * math.cos(a), rf * math.sin(a)))
    return points


def before_gears(p: Params, positions: int = 40) -> tuple[float, float, float]:
    """The old teeth in nominal mesh over one tooth: (largest overlap mm^2, least and largest
    backlash mm on the crank's pitch circle)."""
    central = manifold3d.CrossSection([straight_flank_outline(p.central_teeth, p)])
    crank = manifold3d.CrossSection([straight_flank_outline(p.crank_teeth, p)])
    a = p.crank_distance
    ratio = p.central_teeth / p.crank_teeth
    # as the first model placed them: a gap of the central gear facing each crank, a tooth
    # of the bottom side's crank (at (0, -a)) pointing at the motor
    phase_c, phase_k = 180 / p.central_teeth, 90.0

    def shared(motor: float, extra: float) -> float:
        b = crank.rotate(phase_k - ratio * motor + extra).translate((0, -a))
        return float((central.rotate(phase_c + motor) ^ b).area())

    def contact(motor: float, sign: float) -> float:
        lo, hi = 0.0, 10.0
        if shared(motor, 0.0) > 1e-6:
            return 0.0
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (lo, mid) if shared(motor, sign * mid) > 1e-6 else (mid, hi)
        return lo

    overlap, plays = 0.0, []
    r = pitch_radius(p.crank_teeth, p)
    for i in range(positions):
        motor = 360 / p.central_teeth * i / positions
        overlap = max(overlap, shared(motor, 0.0))
        plays.append(math.radians(contact(motor, 1) + contact(motor, -1)) * r)
    return overlap, min(plays), max(plays)


def before_cups(poses: int) -> tuple[float, float]:
    """The first design's 30 mm cups on the same paths: the most volume two cups share, and
    at what fraction of the place."""
    wide = dataclasses.replace(PARAMS, cup_d=30.0)
    cups = [
        Placed(f"cup_{SQUARE_NAMES[s]}", "cup",
               Pos(*layout.square_centre(s, wide), wide.z_floor_top) * track.cup(wide),
               True, True, 0)
        for s in OUTER_RING
    ]  # fmt: skip
    found = sweep.sweep(cups, motion.forward(poses), wide, measure=0.0)
    worst = max(found.overlaps, key=lambda o: o[3], default=("", "", 0.0, 0.0))
    return worst[3], worst[2]


def main() -> None:
    poses = int(sys.argv[1]) if len(sys.argv) > 1 else 361
    t0 = time.monotonic()
    placed = whole.assembly()
    meshes = {x.name: mesh.manifold(x.solid) for x in placed}
    print(f"assembly: {len(placed)} solids, {sum(x.moves for x in placed)} moving "
          f"({time.monotonic() - t0:.0f} s to build and mesh)")  # fmt: skip
    for way, places in (
        ("forward", motion.forward(poses)),
        ("back", [1.0, *reversed(motion.forward(poses))]),
    ):
        t = time.monotonic()
        found = sweep.sweep(placed, places, meshes=meshes)
        a, b, at = found.least_cup_pair
        c, d, at2 = found.least_moving_pair
        print(f"AFTER {way:7} {found.poses} poses: least cup-to-cup gap "
              f"{found.least_cup_gap:.2f} mm ({a}, {b} at {at:.3f} place); least moving-to-fixed "
              f"{found.least_moving_gap:.2f} mm ({c}, {d} at {at2:.3f}); overlaps outside the "
              f"contacts {len(found.overlaps)}, gaps under {sweep.GAP} mm {len(found.close)} "
              f"({time.monotonic() - t:.0f} s)")  # fmt: skip
    # (not ``mesh``: that is the module, which main uses above)
    gears = teeth.mesh_over_one_tooth(PARAMS, positions=120)
    print(f"AFTER gears (involute, 120 positions over a tooth): overlap {gears.overlap:.3f} "
          f"mm^2, backlash {gears.backlash[0]:.3f}-{gears.backlash[1]:.3f} mm, transmission "
          f"error {gears.transmission_error:.4f} deg at the crank")  # fmt: skip
    overlap, at = before_cups(min(poses, 121))
    print(f"BEFORE cups 30 mm on the same paths: up to {overlap:.0f} mm^3 shared by two cups "
          f"(at {at:.2f} place)")  # fmt: skip
    shared, lo, hi = before_gears(PARAMS)
    print(f"BEFORE gears (straight flanks): overlap up to {shared:.3f} mm^2 in nominal mesh, "
          f"backlash {lo:.2f}-{hi:.2f} mm")  # fmt: skip
    print(f"total {time.monotonic() - t0:.0f} s")


if __name__ == "__main__":
    main()
