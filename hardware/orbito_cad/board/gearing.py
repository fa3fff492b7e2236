"""The drive in numbers: the gears' teeth, the cranks, the bars and the index sensor.

One motor turns the central gear (and the inner disc above it); the central gear turns a crank
gear under each side of the outer ring, one crank turn a place. Each crank carries a pin with a
domed collar that drives its side's transfer bar through a yoke (a Scotch yoke: out one square
and back per turn, lifted on the way out by the yoke's ramp, ``layout.bar_lift``). Here are
the figures the solids (``parts/drive.py``), the checks of the teeth in mesh
(``models/teeth.py``), the physics and the case's plan all take: pure Python, no solid.

A side's frame: x along the way its bar pushes, y towards the board's centre, z up, the
origin on its crank's axis (a proper rotation of the board's frame, so nothing is mirrored).
"""

from __future__ import annotations

import functools
import math

from orbito_cad.board import layout as geo
from orbito_cad.board.params import PARAMS, Params
from orbito_hw.rules.squares import OUTER_RING

PRESSURE_ANGLE = math.radians(20.0)  # the standard involute: mates with any m 1.5 gear
# x module: stub teeth, their tips thicker than min_wall on both gears (full-depth teeth
# leave the 72-tooth gear's tips 1.1 mm thick); contact ratio still about 1.4
ADDENDUM = 0.8
DEDENDUM = 1.0


# --- involute gears -------------------------------------------------------------------------
def _involute(alpha: float) -> float:
    return math.tan(alpha) - alpha


@functools.cache
def tooth_outline(
    teeth: int, p: Params = PARAMS, flank_points: int = 12
) -> tuple[tuple[float, float], ...]:
    """A spur gear's outline (one closed polygon, counter-clockwise), its first tooth on +x:
    involute flanks from the base circle (a radial line below it) to the tip, each tooth
    thinned on the pitch circle by half the backlash (the pair shares ``p.backlash``)."""
    m = p.gear_module
    rp = m * teeth / 2
    rb = rp * math.cos(PRESSURE_ANGLE)
    ra, rf = rp + ADDENDUM * m, rp - DEDENDUM * m
    # half a tooth's angle on the pitch circle, then on the base circle
    half_pitch = (math.pi * m / 2 - p.backlash / 2) / (2 * rp)
    half_base = half_pitch + _involute(PRESSURE_ANGLE)
    flank: list[tuple[float, float]] = []  # (radius, half-angle) from the root up
    start = max(rb, rf)
    if rf < rb:
        flank.append((rf, half_base))
    for i in range(flank_points + 1):
        r = start + (ra - start) * i / flank_points
        alpha = math.acos(min(1.0, rb / r))
        flank.append((r, half_base - _involute(alpha)))
    step = 2 * math.pi / teeth
    out: list[tuple[float, float]] = []
    for k in range(teeth):
        c = k * step
        # the root arc from the previous tooth to this one, then up one flank, over the tip,
        # down the other
        for r, a in flank:
            out.append((r * math.cos(c - a), r * math.sin(c - a)))
        for r, a in reversed(flank):
            out.append((r * math.cos(c + a), r * math.sin(c + a)))
        for j in range(1, 4):
            a = c + flank[0][1] + (step - 2 * flank[0][1]) * j / 4
            out.append((rf * math.cos(a), rf * math.sin(a)))
    return tuple(out)


def pitch_radius(teeth: int, p: Params = PARAMS) -> float:
    return p.gear_module * teeth / 2


def tip_radius(teeth: int, p: Params = PARAMS) -> float:
    return pitch_radius(teeth, p) + ADDENDUM * p.gear_module


def central_phase(p: Params = PARAMS) -> float:
    """The central gear's first tooth, in degrees: a gap faces each crank at rest (the
    cranks sit at 0, 90, 180, 270 degrees, a quarter of the teeth apart)."""
    return 180 / p.central_teeth


def crank_phase(p: Params = PARAMS) -> float:
    """A crank gear's first tooth, in its side's frame: a tooth points at the motor (+y)."""
    return 90.0


# --- the cranks ----------------------------------------------------------------------------
def index_radius(p: Params = PARAMS) -> float:
    """The index magnet's radius on the crank arm: under the crank pin, whose solid roofs
    the magnet's pocket (the arm alone is too thin over a sunk magnet)."""
    return p.crank_r


def index_magnet_z(p: Params = PARAMS) -> float:
    """The index magnet's bottom: flush with the crank arm's underside where it passes over
    the central gear's teeth, a running gap over them (``arm_seat_radius``; issue 45 found the
    magnet at 0.00 mm, then the arm)."""
    return p.z_arm + p.running_gap


def arm_seat_radius(p: Params = PARAMS) -> float:
    """How far from its axis the crank arm stands on its gear: a running gap short of the
    central gear's tips; beyond it the arm's underside is a running gap higher."""
    return p.crank_distance - tip_radius(p.central_teeth, p) - p.running_gap


def arm_radius(p: Params = PARAMS) -> float:
    return p.crank_r + p.collar_d / 2 + p.crank_arm_margin


# --- transfer bars ------------------------------------------------------------------------
def rails_y(p: Params = PARAMS) -> tuple[float, float]:
    """The two rails (outer, inner) across the side's frame: under the two rows of fingers,
    ``finger_offset`` either side of the ring's centre line."""
    line = p.crank_distance - 1.5 * p.pitch
    return (line - p.finger_offset, line + p.finger_offset)


def fingers_x(p: Params = PARAMS) -> list[float]:
    """Where a side's three pairs of fingers stand along it at rest (the cups it pushes)."""
    return [-p.crank_r - p.pitch, -p.crank_r, -p.crank_r + p.pitch]


def yoke_half_width(p: Params = PARAMS) -> float:
    """The yoke's channel, half its width along the bar: the collar (printed) with the
    printed fit's clearance."""
    return (p.collar_d + p.print_clearance) / 2


def finger_tip_z(p: Params = PARAMS) -> float:
    """A finger's tip in the bar's frame (the bar fully up: ``finger_up`` into the cup)."""
    return p.z_floor_top + p.finger_up - bar_up_z(p)


def bar_up_z(p: Params = PARAMS) -> float:
    """Where a bar's frame stands (its z = 0) with the bar fully up: the track on the
    collar's top."""
    return p.z_collar


def bar_z(phi: float, p: Params = PARAMS) -> float:
    """Where a bar's frame stands at crank angle ``phi``."""
    return bar_up_z(p) - (p.lift - geo.bar_lift(phi, p))


# --- the index sensor -----------------------------------------------------------------------
def index_side(p: Params = PARAMS) -> geo.Side:
    """The side whose crank carries the index magnet: the one that starts from a1."""
    return next(side for side in geo.sides() if OUTER_RING[3] in side.starts)


def index_sensor_xy(p: Params = PARAMS) -> tuple[float, float]:
    """Under the index magnet at crank angle 0 (every place ends there)."""
    side = index_side(p)
    ax, ay = side.crank_axis(p)
    r = index_radius(p)
    return (ax - side.along[0] * r, ay - side.along[1] * r)
