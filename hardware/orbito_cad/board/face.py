"""The face's plan in numbers: the fingers' slots, and under each square its sensor's pocket
and its LED.

The outer ring's cups slide in a square channel of the face; the bars' fingers come up through
two slots along each side, ``finger_offset`` either side of the ring's centre line
(``slots``). Under each square a hall sensor sits in a pocket from below, right under the
marble, turned towards the board's centre (``inward``); its LED sits as close beside it as the
sensor's keep-out and the slots leave room for (``led_centre``). The face and the centre plate
are cut from these (``parts/track.py``), the BOM counts the LED chain's wire along them and the
magnetic model puts its sensors there: pure Python, no solid.
"""

from __future__ import annotations

import functools
import math

from orbito_cad.board import layout as geo
from orbito_cad.board.params import PARAMS, Params


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


def plate_half(p: Params = PARAMS) -> float:
    """Half the centre plate's width: up to the inner slots."""
    return 1.5 * p.pitch - p.finger_offset - slot_half(p)


# --- sensors and LEDs -----------------------------------------------------------------------
def inward(square: int, p: Params) -> tuple[float, float]:
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


def window_tops(p: Params = PARAMS) -> tuple[tuple[float, float], tuple[float, float]]:
    """(the detector's, the LED's) windows' centres on the floor's top, in a square's own
    frame: x along its outward axis (away from the board's centre), y a quarter turn
    counter-clockwise from it. The optical model renders these (``models/optics_scene``)."""
    a = math.radians(p.window_angle)
    x, y = p.window_r * math.cos(a), p.window_r * math.sin(a)
    return ((x, -y), (x, y))


def windows(square: int, p: Params = PARAMS) -> tuple[tuple[float, float], tuple[float, float]]:
    """(the detector's, the LED's) windows' centres on the floor's top under ``square``, in
    the board's frame."""
    sx, sy = geo.square_centre(square, p)
    ox, oy = inward(square, p)
    ox, oy = -ox, -oy  # outward
    out = []
    for x, y in window_tops(p):
        out.append((sx + x * ox - y * oy, sy + x * oy + y * ox))
    return (out[0], out[1])


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
