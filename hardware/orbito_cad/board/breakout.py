"""Where a square's sensor breakout may sit under the face, and whether it fits at all.

A bought breakout (``params.Breakout``) lies flat under its square, its chip in a pocket of
the floor right under the marble (the magnetic model's margins hold only within a few
tenths of a millimetre of the floor: ``models/magnetics.py``). Under the face run the bars'
rails, each under its finger slot and as wide (``bar_w``), from the first finger at rest to
the last at the end of its stroke (``face.slots``), up and down through the ``lift``: a board
there would be struck. So a breakout's outline must keep a running gap from every rail's
track (and, on the centre plate, from the disc's hub and the plate's posts).

``placement`` looks for the breakout's place under a square with its chip nearest the
square's centre: every turn of the board (15 deg steps) and every chip offset (0.25 mm
steps) out to ``reach``, nearest first. ``None``: the board cannot sit under that square
with its chip within reach (the magnetic model says how far the chip may be off:
``benchmarks/sensing.py``). Pure Python, no solid.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from orbito_cad.board import layout as geo
from orbito_cad.board.face import slots, window_tops
from orbito_cad.board.frame import centre_posts
from orbito_cad.board.params import PARAMS, Breakout, Params
from orbito_hw.rules.squares import INNER_RING, SQUARE_NAMES, Square

Point = tuple[float, float]
TURN_STEP = 15.0  # degrees
OFFSET_STEP = 0.25  # mm


@dataclass(frozen=True, slots=True)
class Placement:
    """A breakout under a square: its outline's centre, its turn (degrees, its long side
    from the x axis) and where its chip falls (its offset from the square's centre, mm)."""

    square: Square
    centre: Point
    turn: float
    chip: Point

    @property
    def offset(self) -> float:
        x, y = geo.square_centre(self.square)
        return math.hypot(self.chip[0] - x, self.chip[1] - y)


@dataclass(frozen=True, slots=True)
class Capsule:
    """A keep-out: the segment ``a``-``b`` grown by ``r``."""

    a: Point
    b: Point
    r: float


def keepouts(square: Square, p: Params = PARAMS) -> list[Capsule]:
    """What a breakout under ``square`` must stay clear of, in plan: the rails' tracks under
    every slot (the rail's half width and a running gap), and under an inner square the
    disc's hub and the centre plate's posts."""
    r = p.bar_w / 2 + p.running_gap
    out = [Capsule(a, b, r) for a, b in slots(p)]
    if square in INNER_RING:
        out.append(Capsule((0.0, 0.0), (0.0, 0.0), p.hub_d / 2 + 2 * p.running_gap))
        out += [Capsule((x, y), (x, y), pr + p.running_gap) for x, y, pr in centre_posts(p)]
    return out


def room_across(square: Square, p: Params = PARAMS) -> float:
    """The widest board (mm) that may lie centred under ``square`` whatever its turn: twice
    the distance from the square's centre to the nearest keep-out."""
    x, y = geo.square_centre(square, p)
    return 2 * min(_point_segment((x, y), k.a, k.b) - k.r for k in keepouts(square, p))


@functools.cache
def placement(square: Square, board: Breakout | None = None, reach: float = 4.0,
              p: Params = PARAMS) -> Placement | None:  # fmt: skip
    """The breakout's place under ``square`` with its chip nearest the square's centre, or
    None if none has its chip within ``reach``."""
    b = board if board is not None else p.breakout
    sx, sy = geo.square_centre(square, p)
    half = (b.length / 2 + p.fit, b.width / 2 + p.fit)
    far = math.hypot(*half) + reach + 1
    near = [k for k in keepouts(square, p) if _point_segment((sx, sy), k.a, k.b) < k.r + far]
    steps = int(reach / OFFSET_STEP)
    for ring in range(steps + 1):
        for ox, oy in _ring(ring):
            cx, cy = sx + ox * OFFSET_STEP, sy + oy * OFFSET_STEP
            for k in range(int(180 / TURN_STEP) * 2):
                turn = k * TURN_STEP
                c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
                # the board's centre: the chip's place less the chip's turned offset
                bx = cx - (b.chip[0] * c - b.chip[1] * s)
                by = cy - (b.chip[0] * s + b.chip[1] * c)
                if all(_box_segment((bx, by), c, s, half, k2.a, k2.b) >= k2.r for k2 in near):
                    return Placement(square, (bx, by), turn, (cx, cy))
    return None


def clearance(square: Square, centre: Point, turn: float, half: tuple[float, float],
              p: Params = PARAMS) -> float:  # fmt: skip
    """The least room (mm) a box under ``square`` leaves to its keep-outs: its centre, its
    turn (degrees) and its half sides; negative where it is struck."""
    c, s = math.cos(math.radians(turn)), math.sin(math.radians(turn))
    return min(_box_segment(centre, c, s, half, k.a, k.b) - k.r for k in keepouts(square, p))


def _ring(n: int) -> list[tuple[int, int]]:
    """The grid points at Chebyshev distance ``n``, nearest the centre first."""
    if n == 0:
        return [(0, 0)]
    pts = [(i, j) for i in range(-n, n + 1) for j in range(-n, n + 1) if max(abs(i), abs(j)) == n]
    return sorted(pts, key=lambda q: q[0] ** 2 + q[1] ** 2)


def _point_segment(q: Point, a: Point, b: Point) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    n = dx * dx + dy * dy
    t = 0.0 if n == 0 else max(0.0, min(1.0, ((q[0] - a[0]) * dx + (q[1] - a[1]) * dy) / n))
    return math.hypot(q[0] - a[0] - t * dx, q[1] - a[1] - t * dy)


def _box_segment(centre: Point, c: float, s: float, half: tuple[float, float],
                 a: Point, b: Point) -> float:  # fmt: skip
    """The distance from a box (its centre, turned by cos ``c`` sin ``s``, its half sides)
    to the segment a-b: 0 if they cross."""

    def local(q: Point) -> Point:
        dx, dy = q[0] - centre[0], q[1] - centre[1]
        return (dx * c + dy * s, -dx * s + dy * c)

    la, lb = local(a), local(b)
    hx, hy = half
    if _clips(la, lb, hx, hy):
        return 0.0

    def to_box(q: Point) -> float:
        return math.hypot(max(abs(q[0]) - hx, 0.0), max(abs(q[1]) - hy, 0.0))

    corners = [(sx * hx, sy * hy) for sx in (-1, 1) for sy in (-1, 1)]
    return min(to_box(la), to_box(lb), *(_point_segment(q, la, lb) for q in corners))


def _clips(a: Point, b: Point, hx: float, hy: float) -> bool:
    """Whether the segment a-b meets the box |x| <= hx, |y| <= hy (Liang-Barsky)."""
    t0, t1 = 0.0, 1.0
    dx, dy = b[0] - a[0], b[1] - a[1]
    for pk, qk in ((-dx, a[0] + hx), (dx, hx - a[0]), (-dy, a[1] + hy), (dy, hy - a[1])):
        if pk == 0:
            if qk < 0:
                return False
            continue
        t = qk / pk
        if pk < 0:
            t0 = max(t0, t)
        else:
            t1 = min(t1, t)
        if t0 > t1:
            return False
    return True


def exit_corridor(p: Params = PARAMS) -> float:
    """How wide a strip a cable from under an outer square has to leave its side's channel
    (between the two rails) sideways, under the face, towards its edge: the rails close the
    channel on both of its long sides, so it leaves at a corner, past the end of the crossing
    side's inner rail and inside the side's own outer rail (mm; the rails' keep-outs of
    ``keepouts``). Downwards the channel is open between the rails but over the yoke."""
    keep = p.bar_w / 2 + p.running_gap
    return p.finger_offset - keep - keep


def window_bottoms(square: Square, p: Params = PARAMS) -> tuple[Point, Point]:
    """Where the optics' windows (the detector's, the LED's) leave the floor's underside
    under ``square``: the detector's straight under its top, the LED's along its slant
    towards the spot of the marble the detector sees (``models/optics_scene.windows``,
    redone here in plain numbers: the floor's thickness times the slant)."""
    (dx, dy), (lx, ly) = window_tops(p)
    r = p.marble_d / 2
    h = p.cup_h + math.sqrt(r * r - ((p.seat_d + p.seat_tolerance) / 2) ** 2)  # lowest seat
    spot = (dx, dy, h - math.sqrt(max(r * r - dx * dx - dy * dy, 0.0)))
    run = (spot[0] - lx, spot[1] - ly)
    t = (p.face_t - p.face_pocket) / spot[2]  # the floor's thickness along the slant, per z
    local = ((dx, dy), (lx - run[0] * t, ly - run[1] * t))
    sx, sy = geo.square_centre(square, p)
    n = math.hypot(sx, sy)
    ox, oy = sx / n, sy / n
    out = [(sx + x * ox - y * oy, sy + x * oy + y * ox) for x, y in local]
    return (out[0], out[1])


def covered_windows(at: Placement, board: Breakout | None = None,
                    p: Params = PARAMS) -> list[str]:  # fmt: skip
    """The optics' windows whose opening under the floor the breakout's board covers (the
    detector and the LED must sit there, under the floor: a board between them and the
    window blinds the square's colour reading)."""
    b = board if board is not None else p.breakout
    c, s = math.cos(math.radians(at.turn)), math.sin(math.radians(at.turn))
    half = (b.length / 2 + p.fit, b.width / 2 + p.fit)
    r = p.window_d / 2
    names = ("detector", "LED")
    return [name for name, q in zip(names, window_bottoms(at.square, p), strict=True)
            if _box_segment(at.centre, c, s, half, q, q) < r]  # fmt: skip


def verdicts(board: Breakout | None = None, reach: float = 4.0,
             p: Params = PARAMS) -> dict[str, Placement | None]:  # fmt: skip
    """Each square's placement of ``board`` (None where it cannot sit), by square name."""
    from orbito_hw.rules.squares import SQUARES

    return {SQUARE_NAMES[s]: placement(s, board, reach, p) for s in SQUARES}
