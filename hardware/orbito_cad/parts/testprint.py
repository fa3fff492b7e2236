"""The tolerance test print (``tolerance_test.stl``, hardware/tolerance-test.md): one plate
of small pieces, printed before the board, each testing one clearance of ``params``:

- the **finger fit**: the fit that decides the mechanism, printed as it is on the board: a
  bar with seven of the cups' finger holes (their depth and lead-in), ``print_clearance``
  plus ``FIT_STEPS`` x ``fit_step`` over the finger in diameter, hole k marked by k notches,
  and two of the bars' fingers (their chamfered tips) to try in them: the hole that fits names the
  ``print_clearance`` to set, and every printed fit follows it;
- the **clearance ladder**: a bar with five holes for the 5 mm crank axle, 0.1 to 0.5 mm
  over it in diameter (``LADDER``), hole k marked by k notches, and a printed 5 mm pin to
  try in them too;
- the **D-bore clamp**: the central gear's hub (D-bore, M3 grub screw and nut trap) for the
  motor's shaft;
- a **gear pair** at the board's module and the crank gear's teeth, with a plate holding two
  axles at their centre distance;
- a **cup in a short length of channel**, the channel as wide as the face's.

Every piece is built from the same functions as the board's parts, so the test follows
``params``: print it again after a change.
"""

from __future__ import annotations

from build123d import Align, Box, Compound, Cylinder, Part, Pos, Rot

from orbito_cad.board.params import PARAMS, Params
from orbito_cad.parts.drive import clamp_screw, d_shaft, finger, gear
from orbito_cad.parts.track import cup, finger_hole

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)
LADDER = (0.1, 0.2, 0.3, 0.4, 0.5)  # diametral clearance of each hole over the axle, mm
BAR_T = 5.0  # the ladder's and the gear plate's thickness
PITCH = 12.0  # the ladder's holes, centre to centre
# The finger fit's holes: ``print_clearance`` plus these many ``fit_step`` over the finger
# (diametral), so the middle hole is the board's as built and the others read a printer up to
# three steps (0.15 mm) either way; the fit is read to within half a step (the physics'
# tolerance sweep holds over that).
FIT_STEPS = (-3, -2, -1, 0, 1, 2, 3)
KEY_BASE = 2.0  # the test fingers' square foot, to hold them by


def fit_clearances(p: Params = PARAMS) -> list[float]:
    """The finger fit's clearances, hole 1 to 7: each the ``print_clearance`` to set when
    that hole is the one that fits."""
    return [round(p.print_clearance + step * p.fit_step, 3) for step in FIT_STEPS]


def notches(part: Part, x: float, k: int, y: float, depth: float) -> Part:
    """Hole k's mark: k notches across the bar's edge at ``y``."""
    for n in range(k):
        part -= Pos(x - (k - 1) * 0.9 + n * 1.8, y, -1) * Box(0.9, 3, depth + 2, align=BOTTOM)
    return part


def finger_fit(p: Params = PARAMS) -> Part:
    """A bar with the cups' finger holes at ``fit_clearances``, mouths up (as a cup prints,
    its bottom on top), hole k marked by k notches."""
    length = PITCH * (len(FIT_STEPS) + 1)
    part = Box(length, 16, BAR_T, align=BOTTOM)
    for k, c in enumerate(fit_clearances(p), 1):
        x = -length / 2 + PITCH * k
        part -= Pos(x, 0, BAR_T) * Rot(180, 0, 0) * finger_hole(p.finger_d + c, p)
        part = notches(part, x, k, 8, BAR_T)
    return part


def test_finger(p: Params = PARAMS) -> Part:
    """A bar's finger on a square foot: the finger's diameter and chamfered tip, a millimetre
    longer than a hole is deep (it should go in to the foot)."""
    foot = Box(8, 8, KEY_BASE, align=BOTTOM)
    return foot + Pos(0, 0, KEY_BASE) * finger(p.finger_hole_depth + 1, p)


def ladder(p: Params = PARAMS) -> Part:
    """A bar with a hole per clearance of ``LADDER``, hole k marked by k notches."""
    length = PITCH * (len(LADDER) + 1)
    part = Box(length, 16, BAR_T, align=BOTTOM)
    for k, c in enumerate(LADDER, 1):
        x = -length / 2 + PITCH * k
        part -= Pos(x, 0, -1) * Cylinder((p.axle_d + c) / 2, BAR_T + 2, align=BOTTOM)
        part = notches(part, x, k, 8, BAR_T)
    return part


def pin(p: Params = PARAMS) -> Part:
    """A printed pin of the axle's diameter, standing."""
    return Cylinder(p.axle_d / 2, 12, align=BOTTOM)


def clamp(p: Params = PARAMS) -> Part:
    """The central gear's hub on its own: the shaft's D-bore (``shaft_d`` + ``fit``) and
    the grub screw square to the flat."""
    h = p.gear_boss_h + 6
    part = Cylinder(p.gear_boss_d / 2, h, align=BOTTOM)
    part -= Pos(0, 0, -1) * d_shaft(p.shaft_d + p.fit, h + 2, p)
    part -= clamp_screw(p, h / 2, p.gear_boss_d)
    return part


def gear_plate(p: Params = PARAMS) -> Part:
    """Two axle holes (pressed fit) at the centre distance of two crank gears."""
    distance = p.gear_module * p.crank_teeth
    part = Box(distance + 16, 16, BAR_T, align=BOTTOM)
    for sx in (-1, 1):
        part -= Pos(sx * distance / 2, 0, -1) * Cylinder((p.axle_d + p.fit) / 2, BAR_T + 2,
                                                          align=BOTTOM)  # fmt: skip
    return part


def test_gear(p: Params = PARAMS) -> Part:
    """A crank gear's teeth on a bore that turns on the axle (``slide``)."""
    return gear(p.crank_teeth, p) - Pos(0, 0, -1) * Cylinder(
        (p.axle_d + 2 * p.slide) / 2, p.gear_t + 2, align=BOTTOM
    )


def channel(p: Params = PARAMS) -> Part:
    """A length of the face's channel: its floor and two walls, as deep as the face's."""
    floor = p.face_t - p.face_pocket
    length, wall = p.cup_d + 12, 4.0
    part = Box(length, p.channel_w + 2 * wall, p.face_t, align=BOTTOM)
    part -= Pos(0, 0, floor) * Box(length + 2, p.channel_w, p.face_t, align=BOTTOM)
    return part


def tolerance_test(p: Params = PARAMS) -> Compound:
    """Every piece, laid out flat on one plate as it prints, in four rows: the finger fit
    and its two fingers; the ladder, its pin and the clamp; the channel and the gears; the
    cup (upside down: turned over, it drops into the channel) and the gears' plate."""
    distance = p.gear_module * p.crank_teeth
    row = p.channel_w / 2 + p.cup_d / 2 + 14
    pieces = [
        Pos(0, -row, 0) * ladder(p),
        Pos(PITCH * 4, -row, 0) * pin(p),
        Pos(PITCH * 6, -row, 0) * clamp(p),
        Pos(-40, 0, 0) * channel(p),
        Pos(-40, row, 0) * Rot(180, 0, 0) * Pos(0, 0, -p.cup_h) * cup(p),
        Pos(15, row, 0) * gear_plate(p),
        Pos(0, -row - 20, 0) * finger_fit(p),
        Pos(PITCH * 5, -row - 20, 0) * test_finger(p),
        Pos(PITCH * 5 + 11, -row - 20, 0) * test_finger(p),
    ]
    for k in range(2):
        pieces.append(Pos(5 + k * (distance + 4), 0, 0) * test_gear(p))
    return Compound(label="tolerance_test", children=pieces)
