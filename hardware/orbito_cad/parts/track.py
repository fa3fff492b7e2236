"""What the marbles ride on: the cups, the inner disc, the face and its centre plate, cut
round each square's sensor and LED (where they sit: ``board/face.py``).

The outer ring's cups slide in a square channel of the face; the bars' fingers come up through
two slots along each side, ``finger_offset`` either side of the ring's centre line. The inner
slots of neighbouring sides cross at the corners (a cup turning a corner is pushed in and out by
both), so they cut the face in two: the **face** (the frame, the channel's floor under the
squares, the outer slots leaving a bridge at each corner) and the **centre plate** inside the
inner slots (the disc's recess, the inner squares' sensors), which stands on four posts of the
case.
"""

from __future__ import annotations

import math

from build123d import (
    Align,
    Box,
    Cone,
    Cylinder,
    Location,
    Part,
    Pos,
    SlotCenterToCenter,
    extrude,
)

from orbito_cad.board import layout as geo
from orbito_cad.board.face import (
    inward,
    led_centre,
    plate_half,
    sensor_pocket_depth,
    slot_half,
    slots,
)
from orbito_cad.board.frame import centre_posts, face_screw_points
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.parts.drive import clamp_screw, d_shaft
from orbito_hw.rules.squares import INNER_RING, OUTER_RING

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


def cup(p: Params = PARAMS) -> Part:
    """An outer cup: the marble's seat (a through hole: the LED's light comes up it) and
    four finger holes on its bottom, two across each way it travels, each with a lead-in
    so a finger finds it from up to ``lead_in`` off."""
    part = Cylinder(p.cup_d / 2, p.cup_h, align=BOTTOM)
    part -= Cylinder(p.seat_d / 2, 3 * p.cup_h)
    for dx, dy in geo.cup_holes(p):
        part -= Pos(dx, dy, 0) * finger_hole(p.finger_hole_d, p)
    return part


def finger_hole(d: float, p: Params = PARAMS) -> Part:
    """What a finger hole of diameter ``d`` cuts, its mouth on z = 0 and going up: the cups'
    holes (``finger_hole_d``) and the tolerance test's, with the 45 deg ``lead_in``."""
    r = d / 2
    return Cylinder(r, p.finger_hole_depth, align=BOTTOM) + Cone(
        r + p.lead_in, r, p.lead_in, align=BOTTOM
    )


def disc(p: Params = PARAMS) -> Part:
    """The inner 2x2 as a disc on the motor shaft: four seats, and a hub clamped on the
    shaft's flat below the centre plate. It floats a running gap over its recess's floor
    (the clamp holds it), its top level with the cups'."""
    t = p.cup_h - p.running_gap
    part = Cylinder(p.disc_r, t, align=BOTTOM)
    part += Pos(0, 0, -p.hub_len) * Cylinder(p.hub_d / 2, p.hub_len, align=BOTTOM)
    for s in INNER_RING:
        x, y = geo.square_centre(s, p)
        part -= Pos(x, y, 0) * Cylinder(p.seat_d / 2, 3 * t)
    part -= Pos(0, 0, -p.hub_len - 1) * d_shaft(p.shaft_d + p.fit, p.hub_len + 2, p)
    part -= clamp_screw(p, -p.hub_len + 5, p.hub_d, opening=-1)
    return part


def _slot_cutter(a: tuple[float, float], b: tuple[float, float], p: Params) -> Part:
    (x0, y0), (x1, y1) = a, b
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    length = math.hypot(x1 - x0, y1 - y0)
    slot = extrude(SlotCenterToCenter(length, 2 * slot_half(p)), 3 * p.face_t)
    return Location(((x0 + x1) / 2, (y0 + y1) / 2, -p.face_t), (0, 0, angle)) * slot


def _pockets(squares: list[int], p: Params, part: Part) -> Part:
    """Each square's sensor pocket (under its centre, from below) and LED window."""
    depth = sensor_pocket_depth(p)
    for s in squares:
        x, y = geo.square_centre(s, p)
        ix, iy = inward(s, p)
        angle = math.degrees(math.atan2(iy, ix))
        pocket = Box(p.hall_d + 2 * p.fit, p.hall_w + 2 * p.fit, depth, align=BOTTOM)
        part -= Location((x, y, 0), (0, 0, angle)) * pocket
        lx, ly = led_centre(s, p)
        part -= Pos(lx, ly, 0) * Cylinder(p.light_window_d / 2, 3 * p.face_t)
    return part


def face(p: Params = PARAMS) -> Part:
    """The board's face: the frame, the outer ring's channel, the slots, and under each
    outer square a sensor's pocket and the LED's window."""
    w = p.face_w
    floor = p.face_t - p.face_pocket
    part = Box(w, w, p.face_t, align=BOTTOM)
    ring = 1.5 * p.pitch
    outer = Box(2 * ring + p.channel_w, 2 * ring + p.channel_w, p.face_pocket, align=BOTTOM)
    part -= Pos(0, 0, floor) * outer
    inside = 2 * (plate_half(p) + 2 * slot_half(p))
    part -= Box(inside, inside, 3 * p.face_t)
    for a, b in slots(p):
        part -= _slot_cutter(a, b, p)
    part = _pockets(list(OUTER_RING), p, part)
    for x, y in face_screw_points(p):
        part -= Pos(x, y, 0) * Cylinder(p.screw_clear_d / 2, 3 * p.face_t)
        part -= Pos(x, y, p.face_t - 2) * Cylinder(p.screw_head_d / 2 + 0.3, 3, align=BOTTOM)
    return part


def centre_plate(p: Params = PARAMS) -> Part:
    """Inside the inner slots: the channel's inner wall and edge of floor, the disc's
    recess, the inner squares' sensors and LEDs; it stands on four posts of the case."""
    h = 2 * plate_half(p)
    floor = p.face_t - p.face_pocket
    part = Box(h, h, p.face_t, align=BOTTOM)
    wall = 2 * (1.5 * p.pitch) - p.channel_w
    part -= Pos(0, 0, floor) * (Box(h + 1, h + 1, p.face_pocket, align=BOTTOM) - Box(
        wall, wall, p.face_pocket, align=BOTTOM))  # fmt: skip
    part -= Pos(0, 0, floor) * Cylinder(p.disc_r + p.running_gap, p.face_pocket, align=BOTTOM)
    part -= Cylinder(p.hub_d / 2 + p.running_gap, 3 * p.face_t)
    part = _pockets(list(INNER_RING), p, part)
    for x, y, _ in centre_posts(p):
        part -= Pos(x, y, 0) * Cylinder(p.standoff_hole_d / 2 + 0.3, 3 * p.face_t)
        part -= Pos(x, y, floor - 2) * Cylinder(
            p.centre_screw_head_d / 2 + 0.3, 3 * p.face_t, align=BOTTOM
        )
    return part


def light_path(square: int, p: Params = PARAMS) -> Part:
    """The column of light from a square's LED up to the face: what must stay clear."""
    lx, ly = led_centre(square, p)
    return Pos(lx, ly, p.z_face) * Cylinder(p.light_window_d / 2 - 0.05, p.face_t + 10,
                                            align=BOTTOM)  # fmt: skip
