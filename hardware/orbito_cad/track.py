"""What the marbles ride on: the cups, the inner disc, the face and its centre plate, and where
each square's sensor and LED sit under them.

The outer ring's cups slide in a square channel of the face; the bars' fingers come up through
two slots along each side, ``finger_offset`` either side of the ring's centre line. The inner
slots of neighbouring sides cross at the corners (a cup turning a corner is pushed in and out by
both), so they cut the face in two: the **face** (the frame, the channel's floor under the
squares, the outer slots leaving a bridge at each corner) and the **centre plate** inside the
inner slots (the disc's recess, the inner squares' sensors), which stands on four posts of the
case.
"""

from __future__ import annotations

import functools
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

from orbito_cad import layout as geo
from orbito_cad.drive import clamp_screw, d_shaft
from orbito_cad.params import PARAMS, Params
from orbito_hw.rules.squares import INNER_RING, OUTER_RING

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


def cup(p: Params = PARAMS) -> Part:
    """An outer cup: the marble's seat (a through hole: the LED's light comes up it) and
    four finger holes on its bottom, two across each way it travels, each with a lead-in
    so a finger finds it from up to ``lead_in`` off."""
    part = Cylinder(p.cup_d / 2, p.cup_h, align=BOTTOM)
    part -= Cylinder(p.seat_d / 2, 3 * p.cup_h)
    r = p.finger_hole_d / 2
    for dx, dy in geo.cup_holes(p):
        part -= Pos(dx, dy, 0) * Cylinder(r, p.finger_hole_depth, align=BOTTOM)
        part -= Pos(dx, dy, 0) * Cone(r + p.lead_in, r, p.lead_in, align=BOTTOM)
    return part


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


# --- the slots and the two plates -------------------------------------------------------------
def slot_half(p: Params = PARAMS) -> float:
    """Half a finger slot's width: the finger and a running gap either side."""
    return p.finger_d / 2 + p.running_gap


@functools.cache
def slots(p: Params = PARAMS) -> tuple[tuple[tuple[float, float], tuple[float, float]], ...]:
    """Every finger slot as its two end points (the centres of its round ends): per side, one
    inside and one outside the ring's centre line, from the first finger at rest to the last
    at the end of its stroke."""
    out = []
    for side in geo.sides():
        ox, oy = side.outward
        for sign in (-1, 1):
            ends = []
            for s in side.starts:
                x, y = geo.square_centre(s, p)
                x, y = x + sign * ox * p.finger_offset, y + sign * oy * p.finger_offset
                ends += [(x, y), (x + side.along[0] * p.pitch, y + side.along[1] * p.pitch)]
            ends.sort(key=lambda e: e[0] * side.along[0] + e[1] * side.along[1])
            out.append((ends[0], ends[-1]))
    return tuple(out)


def _slot_cutter(a: tuple[float, float], b: tuple[float, float], p: Params) -> Part:
    (x0, y0), (x1, y1) = a, b
    angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
    length = math.hypot(x1 - x0, y1 - y0)
    slot = extrude(SlotCenterToCenter(length, 2 * slot_half(p)), 3 * p.face_t)
    return Location(((x0 + x1) / 2, (y0 + y1) / 2, -p.face_t), (0, 0, angle)) * slot


def plate_half(p: Params = PARAMS) -> float:
    """Half the centre plate's width: up to the inner slots."""
    return 1.5 * p.pitch - p.finger_offset - slot_half(p)


def _pockets(squares: list[int], p: Params, part: Part) -> Part:
    """Each square's sensor pocket (under its centre, from below) and LED window."""
    depth = sensor_pocket_depth(p)
    for s in squares:
        x, y = geo.square_centre(s, p)
        ix, iy = _inward(s, p)
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
    from orbito_cad.case import face_screw_points

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
    from orbito_cad.case import centre_posts

    for x, y, _ in centre_posts(p):
        part -= Pos(x, y, 0) * Cylinder(p.standoff_hole_d / 2 + 0.3, 3 * p.face_t)
        part -= Pos(x, y, floor - 2) * Cylinder(
            p.centre_screw_head_d / 2 + 0.3, 3 * p.face_t, align=BOTTOM
        )
    return part


# --- sensors and LEDs -----------------------------------------------------------------------
def _inward(square: int, p: Params) -> tuple[float, float]:
    x, y = geo.square_centre(square, p)
    n = math.hypot(x, y)
    return (-x / n, -y / n)


def sensor_pocket_depth(p: Params = PARAMS) -> float:
    return p.face_t - p.face_pocket - p.min_wall - 0.05


@functools.cache
def led_centre(square: int, p: Params = PARAMS) -> tuple[float, float]:
    """Each LED's board under the floor, as close to its square's centre as it may be:
    clear of the sensor's pocket (``sensor_keepout``) and of every finger slot by a wall,
    its light window under the cup's or the disc's body (the marble's seat would show it
    only through the marble)."""
    x, y = geo.square_centre(square, p)
    board = p.led_d / 2
    best: tuple[float, float, float] | None = None
    for k in range(72):
        a = 2 * math.pi * k / 72
        for i in range(40):
            r = sensor_keepout(p) + board + 0.25 * i
            cx, cy = x + r * math.cos(a), y + r * math.sin(a)
            if _clear_of_slots(cx, cy, board + p.min_wall, p) and (best is None or r < best[0]):
                best = (r, cx, cy)
                break
    assert best is not None, f"no room for the LED of square {square}"
    return (best[1], best[2])


def sensor_keepout(p: Params = PARAMS) -> float:
    """How far from a square's centre the sensor's pocket, leads and capacitor reach, a wall
    beyond (the magnetic model's keep-out: ``Params.sensor_keepout_r``)."""
    return p.sensor_keepout_r


def _clear_of_slots(x: float, y: float, margin: float, p: Params) -> bool:
    for (x0, y0), (x1, y1) in slots(p):
        dx, dy = x1 - x0, y1 - y0
        t = max(0.0, min(1.0, ((x - x0) * dx + (y - y0) * dy) / (dx * dx + dy * dy)))
        if math.hypot(x - x0 - t * dx, y - y0 - t * dy) < slot_half(p) + margin:
            return False
    return True


def light_path(square: int, p: Params = PARAMS) -> Part:
    """The column of light from a square's LED up to the face: what must stay clear."""
    lx, ly = led_centre(square, p)
    return Pos(lx, ly, p.z_face) * Cylinder(p.light_window_d / 2 - 0.05, p.face_t + 10,
                                            align=BOTTOM)  # fmt: skip
