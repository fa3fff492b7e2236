"""Where everything is, and how it moves: pure Python, no CAD library.

The board's centre is the origin, x to the right (files a to d), y up (ranks 1 to 4), seen
from above, so a1 is at (-1.5, -1.5) pitches. The squares, the rings' order and the press
come from ``orbito_hw.rules.squares`` alone.

The drive (hardware/mechanics.md): one motor turns the inner disc directly and, through a
central gear, four crank gears, one per side of the outer ring. Each crank drives a bar
along its side as a Scotch yoke (the bar moves ``r (1 - cos phi)``: out one square and
back per crank turn); the bar's fingers are up in the cups while the crank pin is on the
ring's side of the crank axis (the first half turn), and down on the way back. So every
outer cup moves one square in a straight line per place, and a turn backwards undoes it.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass

from orbito_cad.board.params import PARAMS, Params
from orbito_hw.rules.squares import (
    INNER_RING,
    OUTER_RING,
    PRESS_TO,
    SQUARE_NAMES,
    SQUARES,
    Square,
    square_file,
    square_rank,
)

Point = tuple[float, float]


def square_centre(square: Square, p: Params = PARAMS) -> Point:
    """The centre of ``square`` on the board's face."""
    return ((square_file(square) - 1.5) * p.pitch, (square_rank(square) - 1.5) * p.pitch)


def square_centres(p: Params = PARAMS) -> dict[str, Point]:
    return {SQUARE_NAMES[s]: square_centre(s, p) for s in SQUARES}


def after(square: Square, places: int) -> Square:
    """The square a marble on ``square`` is on after ``places`` presses (the rules')."""
    for _ in range(places):
        square = PRESS_TO[square]
    return square


@dataclass(frozen=True, slots=True)
class Side:
    """One side of the outer ring: its bar pushes the cups on ``starts`` one square along
    ``along`` (a unit vector); ``outward`` points away from the board's centre."""

    starts: tuple[Square, ...]
    along: Point
    outward: Point

    def crank_axis(self, p: Params = PARAMS) -> Point:
        """The crank's axis: under the bar, at the middle of its stroke."""
        mid = [square_centre(s, p) for s in self.starts]
        cx = sum(x for x, _ in mid) / len(mid) + self.along[0] * p.crank_r
        cy = sum(y for _, y in mid) / len(mid) + self.along[1] * p.crank_r
        # Across the side, the crank sits at the gears' centre distance from the motor.
        ax, ay = self.outward
        along_part = cx * self.along[0] + cy * self.along[1]
        return (
            self.along[0] * along_part + ax * p.crank_distance,
            self.along[1] * along_part + ay * p.crank_distance,
        )


@dataclass(frozen=True, slots=True)
class Pushing:
    """A bar's fingers in a cup: the way they push it and the square it started from (where
    the bar's fingers stood at crank angle 0)."""

    along: Point
    home: Point


def sides() -> tuple[Side, ...]:
    """The outer ring's four sides, from the rules: the squares whose press moves them the
    same way. Counter-clockwise rings: the outside is to the right of the way they go."""
    groups: dict[tuple[int, int], list[Square]] = {}
    for square in OUTER_RING:
        to = PRESS_TO[square]
        step = (square_file(to) - square_file(square), square_rank(to) - square_rank(square))
        groups.setdefault(step, []).append(square)
    out = []
    for (dx, dy), starts in groups.items():
        out.append(Side(tuple(sorted(starts)), (float(dx), float(dy)), (float(dy), float(-dx))))
    return tuple(sorted(out, key=lambda side: side.starts))


# --- the drive ---------------------------------------------------------------------------
def crank_turns_per_motor_turn(p: Params = PARAMS) -> float:
    return p.central_teeth / p.crank_teeth


def steps_per_place(p: Params = PARAMS) -> float:
    """Motor (micro)steps for one place: one crank turn moves the outer ring one square."""
    return p.motor_steps * p.microsteps / crank_turns_per_motor_turn(p)


def disc_degrees_per_place(p: Params = PARAMS) -> float:
    """The inner disc sits on the motor shaft: it turns as far as the motor does."""
    return 360.0 * steps_per_place(p) / (p.motor_steps * p.microsteps)


def bar_displacement(phi: float, p: Params = PARAMS) -> float:
    """How far along its side a bar is at crank angle ``phi`` (radians): a Scotch yoke
    whose pin starts at the far end of the slot, ``r (1 - cos phi)``."""
    return p.crank_r * (1 - math.cos(phi))


COLLAR_CHAMFER = 1.0  # mm: the crank pin's collar ends in a 45 deg chamfer (in collar_h)


def ramp_ceiling(across: float, p: Params = PARAMS) -> float:
    """The yoke's track over the collar, ``across`` the yoke from its middle (towards the
    ring positive): how far above the collar's top it stands with the bar fully up. A half
    cosine from ``lift`` (outer half: the bar rides low) to 0 (inner half: high)."""
    t = min(1.0, max(0.0, (across - ramp_centre(p) + p.ramp_half) / (2 * p.ramp_half)))
    return p.lift * (1 + math.cos(math.pi * t)) / 2


@functools.cache
def ramp_centre(p: Params = PARAMS) -> float:
    """Where the ramp's middle stands across the yoke: the collar meets the track off its
    axis, on the high side, which would lift the bar early and drop it late; moving the
    ramp that way by as much makes the bar half up exactly at the dead centres, so the
    fingers enter and leave the cups while the yoke is still (solved once by bisection)."""
    lo, hi = 0.0, p.collar_d / 2 + p.ramp_half
    for _ in range(40):
        mid = (lo + hi) / 2
        if _lift_at(0.0, p, mid) > p.lift / 2:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def collar_drop(d: float, p: Params = PARAMS) -> float:
    """How far the collar's top falls below its highest at ``d`` from its axis: flat, then
    the chamfer down to its rim at ``collar_d / 2``."""
    return max(0.0, abs(d) - (p.collar_d / 2 - COLLAR_CHAMFER))


@functools.lru_cache(maxsize=1 << 14)
def bar_lift(phi: float, p: Params = PARAMS) -> float:
    """How high a bar stands (mm above its lowest) at crank angle ``phi``. It rests on its
    crank pin's domed collar through the ramped track of its yoke; the pin crosses the yoke
    at ``r sin phi`` (towards the ring while ``sin phi > 0``), so the bar is up on the way
    out and down on the way back, and rises and falls only near the dead centres, where the
    yoke hardly moves. The bar settles on the highest point of the dome under the track.
    Remembered: every cup's path asks for the same crank angles, thousands of them."""
    return _lift_at(p.crank_r * math.sin(phi), p, ramp_centre(p))


def _lift_at(across: float, p: Params, centre: float) -> float:
    r = p.collar_d / 2
    gap = p.lift
    for i in range(33):
        d = r * (2 * i / 32 - 1)
        t = min(1.0, max(0.0, (across + d - centre + p.ramp_half) / (2 * p.ramp_half)))
        gap = min(gap, p.lift * (1 + math.cos(math.pi * t)) / 2 + collar_drop(d, p))
    return p.lift - gap


def finger_depth(phi: float, p: Params = PARAMS) -> float:
    """How far a finger's tip reaches above a cup's bottom (negative: below it, clear)."""
    return p.finger_up - (p.lift - bar_lift(phi, p))


def engaged(phi: float, p: Params = PARAMS) -> bool:
    """The fingers are in the cups' holes: the bar drives its cups."""
    return finger_depth(phi, p) > 0


def cup_holes(p: Params = PARAMS) -> tuple[Point, ...]:
    """The finger holes in a cup's bottom, in its own frame: two across each way it goes."""
    f = p.finger_offset
    return ((f, 0.0), (0.0, f), (-f, 0.0), (0.0, -f))


def finger_points(side: Side, p: Params = PARAMS) -> list[Point]:
    """A side's fingers at rest: two under each cup it pushes, across the way it goes (one
    inside the ring's centre line, one outside), so the push runs through the cup's
    centre."""
    ox, oy = side.outward
    out = []
    for s in side.starts:
        x, y = square_centre(s, p)
        for sign in (-1, 1):
            out.append((x + sign * ox * p.finger_offset, y + sign * oy * p.finger_offset))
    return out


def crank_angle(places: float) -> float:
    """The cranks' angle (radians) after ``places`` places: one crank turn a place."""
    return 2 * math.pi * places


def finger_play(p: Params = PARAMS) -> float:
    """How far a finger can move in its hole before it pushes the cup."""
    return (p.finger_hole_d - p.finger_d) / 2


def simulate_outer(start: Square, places: Sequence[float], p: Params = PARAMS) -> list[Point]:
    """The centre of the cup that rests on ``start`` at crank angle 0, sampled at each of
    ``places`` (crank turns from 0, any order, backwards too). The cup is free in its
    channel: it moves only while a bar's fingers are in it, and only when a finger has
    taken up its play in the hole and pushes (so a cup pushed forwards stops ``play``
    short of the square's centre, one pushed back ``play`` beyond it). Integrated in small
    steps from the previous sample, as the mechanism would."""
    side_of = {s: side for side in sides() for s in side.starts}
    play = finger_play(p)
    x, y = square_centre(start, p)
    at = 0.0
    out: list[Point] = []
    pusher: Pushing | None = None
    for target in places:
        steps = max(1, math.ceil(abs(target - at) * 720))
        for i in range(1, steps + 1):
            nxt = at + (target - at) * i / steps
            prev = at + (target - at) * (i - 1) / steps
            phi0, phi1 = 2 * math.pi * prev, 2 * math.pi * nxt
            if engaged((phi0 + phi1) / 2, p):
                if pusher is None:
                    pusher = _engaging_side(x, y, phi0, side_of, p)
                if pusher is not None:
                    bx, by = pusher.home
                    bar = bar_displacement(phi1, p)
                    along = (x - bx) * pusher.along[0] + (y - by) * pusher.along[1]
                    moved = min(max(along, bar - play), bar + play) - along
                    x += pusher.along[0] * moved
                    y += pusher.along[1] * moved
            else:
                pusher = None
        at = target
        out.append((x, y))
    return out


def _engaging_side(
    x: float, y: float, phi: float, side_of: dict[Square, Side], p: Params
) -> Pushing | None:
    """The side whose fingers are under the cup at (x, y) when they come up at crank angle
    ``phi`` (None if none is: the cup would not move). A side's two fingers straddle the
    cup's centre, so the cup is theirs when its centre is between them, within a hole."""
    offset = bar_displacement(phi, p)
    for square, side in side_of.items():
        sx, sy = square_centre(square, p)
        fx, fy = sx + side.along[0] * offset, sy + side.along[1] * offset
        if math.hypot(fx - x, fy - y) < p.finger_hole_d / 2:
            return Pushing(side.along, (sx, sy))
    return None


def disc_angle(places: float, p: Params = PARAMS) -> float:
    """The inner disc's angle (degrees, counter-clockwise) after ``places`` crank turns."""
    return disc_degrees_per_place(p) * places


def simulate_inner(start: Square, places: Sequence[float], p: Params = PARAMS) -> list[Point]:
    x0, y0 = square_centre(start, p)
    out = []
    for t in places:
        a = math.radians(disc_angle(t, p))
        out.append((x0 * math.cos(a) - y0 * math.sin(a), x0 * math.sin(a) + y0 * math.cos(a)))
    return out


def cup_path(start: Square, places: Sequence[float], p: Params = PARAMS) -> list[Point]:
    """The centre of the cup resting on ``start`` at place 0, at each of ``places``."""
    if start in INNER_RING:
        return simulate_inner(start, places, p)
    return simulate_outer(start, places, p)


def layout(p: Params = PARAMS) -> dict[str, object]:
    """``layout.json``: each square's centre, each cup's centre at rest after 0..12 places
    (the cup named by the square it starts on), and the printer's bed."""
    places = [float(n) for n in range(13)]
    return {
        "squares": {name: [round(x, 4), round(y, 4)] for name, (x, y) in square_centres(p).items()},
        "cups": {
            SQUARE_NAMES[s]: [[round(x, 4), round(y, 4)] for x, y in cup_path(s, places, p)]
            for s in SQUARES
        },
        "bed": list(p.bed),
    }
