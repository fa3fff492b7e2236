"""The squares' magnetic model: what each sensor reads, from the CAD's parameters.

Every magnet is a magpylib cylinder of the parameters' remanence; lengths are in mm (a
magnet's field does not depend on the scale) and fields in gauss. A marble rests centred in
its seat (a through hole: the hole's edge decides its height) up to ``marble_offset`` off
its square, turned any way at all (the seat cannot turn it: mechanics.md), so every figure
here is taken over a sampling of all rotations (a Fibonacci sphere of axes times turns about
the vertical). Three readouts:

- ``switch``: an omnipolar switch lying flat (SS451A): the vertical field's size;
- ``linear``: a single-axis linear sensor lying flat (DRV5055): the vertical field, signed;
- ``vector``: a three-axis linear sensor (TMAG5273): the whole field.

Why the single-axis readouts cannot see a free marble in every pose: averaged over every
rotation about its centre, any magnet's field at a point outside the marble is zero (the
average magnetisation is radial, and a radial magnetisation has no field outside), so the
vertical field takes both signs and passes through zero. ``orientation_mean`` shows it.

Imported only by the CAD build, its tests and ``benchmarks/sensing.py`` (magpylib, scipy).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import magpylib as magpy
import numpy as np
from numpy.typing import NDArray
from scipy.spatial import cKDTree  # type: ignore[import-untyped]
from scipy.spatial.transform import Rotation  # type: ignore[import-untyped]

from orbito_cad.board import layout as geo
from orbito_cad.board.face import sensor_pocket_depth
from orbito_cad.board.gearing import index_magnet_z, index_radius, index_side
from orbito_cad.board.marble import DISC_AXES
from orbito_cad.board.marble import magnet_radius as magnet_radius
from orbito_cad.board.params import PARAMS, Params
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARES, Square

Array = NDArray[np.float64]
Readout = Literal["switch", "linear", "vector"]
Colour = Literal["black", "white"]
COLOURS: tuple[Colour, ...] = ("black", "white")
GAUSS = 1e4  # per tesla
PEAK = 3.3  # peak noise as a multiple of its RMS
AXES6 = np.array([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], float)
AXES4 = np.array(DISC_AXES, float)  # the printed marble's discs (board/marble.py)


def _get_b(source: object, at: object) -> Array:
    """magpylib's field (gauss) of ``source`` at ``at``, as floats (magpylib is untyped)."""
    b = magpy.getB(source, at)  # type: ignore[no-untyped-call]
    return np.asarray(b, dtype=np.float64) * GAUSS


# --- the marbles --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Marble:
    """A marble's magnets in its own frame: each disc's centre, its axis (north out) and size."""

    name: str
    centres: tuple[tuple[float, float, float], ...]
    axes: tuple[tuple[float, float, float], ...]
    d: float
    h: float

    def collection(self, colour: Colour, p: Params = PARAMS) -> magpy.Collection:
        """The magnets, north along their axes for black, south for white."""
        sign = 1.0 if colour == "black" else -1.0
        out = magpy.Collection()  # type: ignore[no-untyped-call]
        for centre, axis in zip(self.centres, self.axes, strict=True):
            turn, _ = Rotation.align_vectors([axis], [[0.0, 0.0, 1.0]])
            out.add(
                magpy.magnet.Cylinder(  # type: ignore[no-untyped-call]
                    polarization=(0.0, 0.0, sign * p.remanence),
                    dimension=(self.d, self.h),
                    position=centre,
                    orientation=turn,
                )
            )
        return out


def today(p: Params = PARAMS) -> Marble:
    """The design before issue 33: one disc glued into a hole drilled in a glass marble,
    flush with the hole's rim, its pole out."""
    rim = math.sqrt((p.marble_d / 2) ** 2 - (p.magnet_d / 2) ** 2)
    return Marble("glass, one 5x3 disc", ((0.0, 0.0, rim - p.magnet_h / 2),), ((0, 0, 1.0),),
                  p.magnet_d, p.magnet_h)  # fmt: skip


def _radial(name: str, axes: Array, p: Params) -> Marble:
    r = magnet_radius(p)
    unit = tuple((float(a[0]), float(a[1]), float(a[2])) for a in axes)
    centres = tuple((a[0] * r, a[1] * r, a[2] * r) for a in unit)
    return Marble(name, centres, unit, p.marble_magnet_d, p.marble_magnet_h)


def six(p: Params = PARAMS) -> Marble:
    """Issue 33's proposal: six discs on the axes of a cube, north out (black)."""
    return _radial("printed, six discs", AXES6, p)


def printed(p: Params = PARAMS) -> Marble:
    """The printed marble: four discs at a tetrahedron's corners, north out (black)."""
    return _radial("printed, four discs", AXES4, p)


# --- where things are ---------------------------------------------------------------------
def floor_over_sensor(p: Params = PARAMS) -> float:
    return p.face_t - p.face_pocket - sensor_pocket_depth(p)


def element_z(readout: Readout, p: Params = PARAMS) -> float:
    """The sensor's sensitive point under each square, from the floor's top (negative)."""
    depth = p.switch_element_depth if readout == "switch" else p.vector_element_depth
    if readout == "linear":
        depth = p.switch_element_depth  # the DRV5055's flat TO-92 like the SS451A's
    return -(floor_over_sensor(p) + depth)


def marble_heights(p: Params = PARAMS) -> tuple[float, float]:
    """The marble's centre above the floor's top: (lowest, highest) over the seat's
    tolerance. It rests on the through hole's edge, ``cup_h`` over the floor."""
    r = p.marble_d / 2

    def at(seat: float) -> float:
        return p.cup_h + math.sqrt(r**2 - (seat / 2) ** 2)

    return (at(p.seat_d + p.seat_tolerance), at(p.seat_d - p.seat_tolerance))


def rotations(n_axes: int, n_turns: int) -> Rotation:
    """Rotations spread over all of SO(3): each of ``n_axes`` marble directions (a Fibonacci
    sphere) turned to point down, then turned ``n_turns`` ways about the vertical."""
    i = np.arange(n_axes) + 0.5
    polar = np.arccos(1 - 2 * i / n_axes)
    azimuth = math.pi * (1 + 5**0.5) * i
    dirs = np.stack([np.cos(azimuth) * np.sin(polar), np.sin(azimuth) * np.sin(polar),
                     np.cos(polar)], 1)  # fmt: skip
    down = np.array([0.0, 0.0, -1.0])
    # the rotation carrying each direction onto ``down``: about (dir x down) by the angle
    cross = np.cross(dirs, down)
    sin = np.linalg.norm(cross, axis=1)
    angle = np.arctan2(sin, dirs @ down)
    safe = np.where(sin[:, None] > 1e-9, cross / np.maximum(sin, 1e-12)[:, None], [1.0, 0, 0])
    first = Rotation.from_rotvec(safe * angle[:, None])
    turns = Rotation.from_rotvec(np.outer(2 * np.pi * np.arange(n_turns) / n_turns, [0, 0, 1]))
    return Rotation.concatenate([t * first for t in turns])


def offsets(p: Params = PARAMS, n: int = 8) -> list[tuple[float, float]]:
    """The marble's centre off its square: centred, and ``marble_offset`` off in n ways."""
    r = p.marble_offset
    return [(0.0, 0.0)] + [(r * math.cos(2 * math.pi * k / n), r * math.sin(2 * math.pi * k / n))
                           for k in range(n)]  # fmt: skip


def field(
    marble: Marble,
    colour: Colour,
    rots: Rotation,
    centre: Sequence[float],
    at: Sequence[float],
    p: Params = PARAMS,
) -> Array:
    """The field (gauss, x y z) at ``at`` of the marble centred at ``centre`` in each of
    ``rots``: shape (len(rots), 3)."""
    col = marble.collection(colour, p)
    col.position = np.tile(np.asarray(centre, float), (len(rots), 1))
    col.orientation = rots
    return _get_b(col, np.asarray(at, dtype=np.float64)).reshape(-1, 3)


def reading(b: Array, readout: Readout) -> Array:
    """What a sensor makes of fields ``b`` (n, 3): |Bz|, Bz or |B|."""
    if readout == "switch":
        return np.abs(b[:, 2])
    if readout == "linear":
        return b[:, 2]
    return np.asarray(np.linalg.norm(b, axis=1), dtype=np.float64)


# --- a square and its own marble ------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Own:
    """A square's sensor with its own marble, over every pose: the fields (n, 3) per colour."""

    black: Array
    white: Array


def own(marble: Marble, readout: Readout, rots: Rotation, p: Params = PARAMS,
        chip_off: float = 0.0) -> Own:  # fmt: skip
    """Every pose of a black and of a white marble on its square: every rotation, centred
    and ``marble_offset`` off, at the seat's lowest and highest; the sensor ``chip_off``
    from the square's centre (where its breakout leaves it: ``board/breakout.py``)."""
    z = element_z(readout, p)
    out: dict[str, list[Array]] = {"black": [], "white": []}
    for colour in COLOURS:
        for h in marble_heights(p):
            for dx, dy in offsets(p):
                centre = (dx - chip_off, dy, h)
                out[colour].append(field(marble, colour, rots, centre, (0, 0, z), p))
    return Own(np.concatenate(out["black"]), np.concatenate(out["white"]))


def orientation_mean(marble: Marble, readout: Readout, p: Params = PARAMS,
                     n_axes: int = 400, n_turns: int = 8) -> Array:  # fmt: skip
    """The field under a centred marble averaged over rotations: zero, whatever the magnets
    (module docstring); the tests hold the model to it."""
    z = element_z(readout, p)
    b = field(marble, "black", rotations(n_axes, n_turns), (0, 0, marble_heights(p)[0]),
              (0, 0, z), p)  # fmt: skip
    return np.asarray(b.mean(axis=0), float)


# --- the neighbours -------------------------------------------------------------------------
def neighbours(square: Square, p: Params = PARAMS) -> list[tuple[float, float]]:
    """The squares around ``square`` (up to 8, and the next ring out), as offsets in mm."""
    x0, y0 = geo.square_centre(square, p)
    out = []
    for s in SQUARES:
        x, y = geo.square_centre(s, p)
        if s != square and math.hypot(x - x0, y - y0) <= 2.9 * p.pitch:
            out.append((x - x0, y - y0))
    return out


def stray(marble: Marble, readout: Readout, rots: Rotation, square: Square,
          p: Params = PARAMS, chip_off: float = 0.0) -> tuple[Array, float]:  # fmt: skip
    """What the neighbours' marbles give at ``square``'s sensor in the worst combination:
    (per axis, the largest field either way they can add (3,), the largest size). Each
    neighbour of either colour takes whichever of its poses is worst, independently."""
    z = element_z(readout, p)
    most = np.zeros(3)
    size = 0.0
    h = marble_heights(p)[0]
    for dx, dy in neighbours(square, p):
        at = (dx - chip_off, dy, h)
        b = np.concatenate([field(marble, c, rots, at, (0, 0, z), p) for c in COLOURS])
        most += np.abs(b).max(axis=0)
        size += float(np.linalg.norm(b, axis=1).max())
    return most, size


def worst_stray(marble: Marble, readout: Readout, rots: Rotation,
                p: Params = PARAMS, chip_off: float = 0.0) -> tuple[float, float]:  # fmt: skip
    """(vertical, size) of the strongest stray field the neighbours give any square: a corner,
    an edge and an inner square stand for the rest (the sensor ``chip_off`` off its square's
    centre, towards either neighbour along x)."""
    squares = {OUTER_RING[0], OUTER_RING[1], INNER_RING[0]}
    found = [stray(marble, readout, rots, s, p, sign * chip_off)
             for s in squares for sign in ((1, -1) if chip_off else (1,))]  # fmt: skip
    return max(float(f[0][2]) for f in found), max(f[1] for f in found)


# --- the index magnet and the motor ----------------------------------------------------------
def sensor_points(readout: Readout, p: Params = PARAMS) -> Array:
    z = p.z_floor_top + element_z(readout, p)
    return np.array([[*geo.square_centre(s, p), z] for s in SQUARES])


def index_field(readout: Readout, p: Params = PARAMS, steps: int = 72) -> float:
    """The strongest field (gauss, the readout's way) the index magnet gives any square's
    sensor as its crank turns: it rides the crank arm at ``index_radius``."""
    side = index_side(p)
    ax, ay = side.crank_axis(p)
    r = index_radius(p)
    angles = 2 * np.pi * np.arange(steps) / steps
    path = np.stack([ax + r * np.cos(angles), ay + r * np.sin(angles),
                     np.full(steps, index_magnet_z(p) + p.index_magnet_h / 2)], 1)  # fmt: skip
    magnet = magpy.magnet.Cylinder(  # type: ignore[no-untyped-call]
        polarization=(0, 0, p.remanence),
        dimension=(p.index_magnet_d, p.index_magnet_h),
        position=path,
    )
    b = _get_b(magnet, sensor_points(readout, p))
    return float(reading(b.reshape(-1, 3), readout if readout != "linear" else "switch").max())


def motor_field(readout: Readout, p: Params = PARAMS) -> float:
    """An upper bound on the stepper's stray field at any square's sensor: its rotor's ring
    magnet (axial, NdFeB) with nothing round it, at the middle of the motor's body. The
    stator's iron closes most of its flux, so the real motor gives less."""
    z = p.case_floor + 0.5 + p.motor_len / 2
    ring = magpy.magnet.CylinderSegment(  # type: ignore[no-untyped-call]
        polarization=(0, 0, p.remanence),
        dimension=(p.motor_magnet_id / 2, p.motor_magnet_od / 2, p.motor_magnet_h, 0, 360),
        position=(0, 0, z),
    )
    b = _get_b(ring, sensor_points(readout, p))
    return float(reading(b.reshape(-1, 3), readout if readout != "linear" else "switch").max())


# --- the margins ----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Margins:
    """One design's figures (gauss) and margins (the issue asks 2 of each)."""

    marble: str
    readout: Readout
    weakest: float  # the weakest reading a marble gives (its size; linear: toward its pole)
    strongest: float  # the strongest (size)
    empty: float  # the strongest reading an empty square gives (neighbours, index, motor)
    operate: float  # the worst point at which a marble must count (switch: its datasheet)
    release: float  # the worst point under which an empty square must stay
    seen: float  # weakest / operate
    unseen: float  # release / empty
    gap: float  # the least distance between a black reading and a white one
    colour_noise: float  # the noise and offsets the gap must clear, uncalibrated
    told: float  # gap / colour_noise (0 where the readout cannot tell colours)
    decided: float  # the share of poses whose colour the reading tells with that margin

    def sees(self) -> bool:
        """Every marble seen and every empty square unseen, each with twice the margin."""
        return min(self.seen, self.unseen) >= 2

    def tells(self) -> bool:
        """Black told from white in every pose, the gap twice the offsets and noise."""
        return self.readout != "switch" and self.told >= 2


def _noise(readout: Readout, p: Params) -> tuple[float, float, float]:
    """(offset before calibration, drift after it, peak noise) of a readout, in gauss."""
    if readout == "linear":
        return p.linear_offset_g, p.linear_drift_g, PEAK * p.linear_noise_g
    if readout == "vector":
        # the three axes' errors add in the field's size at most as their root sum of squares
        k = math.sqrt(3)
        return k * p.vector_offset_g, k * p.vector_drift_g, k * PEAK * p.vector_noise_g
    return 0.0, 0.0, 0.0


def margins(marble: Marble, readout: Readout, n_axes: int = 300, n_turns: int = 8,
            p: Params = PARAMS, chip_off: float = 0.0) -> Margins:  # fmt: skip
    """The issue's margins for ``marble`` read by ``readout``, its sensor ``chip_off`` from
    its square's centre. A linear sensor's threshold is the calibration's: where the margins
    to the weakest marble and to the strongest empty square come out equal, each after the
    drift and noise."""
    rots = rotations(n_axes, n_turns)
    mine = own(marble, readout, rots, p, chip_off)
    black, white = reading(mine.black, readout), reading(mine.white, readout)
    if readout == "linear":  # a marble counts by the size of its field, either pole
        sizes = np.abs(np.concatenate([black, white]))
    else:
        sizes = np.concatenate([black, white])
    weakest, strongest = float(sizes.min()), float(sizes.max())
    vertical, size = worst_stray(marble, readout, rots, p, chip_off)
    # The motor's field is still (its rotor's axial magnet turns about its own axis): a
    # calibrated sensor takes it with its empty reading; a switch has no calibration.
    extra = index_field(readout, p) + (motor_field(readout, p) if readout == "switch" else 0.0)
    empty = (size if readout == "vector" else vertical) + extra
    offset, drift, noise = _noise(readout, p)
    if readout == "switch":
        operate, release = p.switch_operate_g, p.switch_release_g
    else:
        # where the two margins come out equal: weakest / (t + e) = (t - e) / empty
        e = drift + noise
        threshold = math.sqrt(max(weakest, 0.0) * empty + e**2)
        operate, release = threshold + e, threshold - e
    gap, decided = colour_gap(mine, readout, 2 * (offset + noise))
    colour_noise = offset + noise
    return Margins(
        marble.name, readout, weakest, strongest, empty, operate, release,
        weakest / operate, release / max(empty, 1e-9) if release > 0 else 0.0,
        gap, colour_noise, gap / colour_noise if readout != "switch" else 0.0, decided,
    )  # fmt: skip


def colour_gap(mine: Own, readout: Readout, clearance: float) -> tuple[float, float]:
    """(the least distance between a black reading and a white one, the share of poses
    whose reading lies ``clearance`` or more from every reading of the other colour)."""
    if readout == "switch":
        return 0.0, 0.0
    if readout == "linear":
        black, white = mine.black[:, 2:], mine.white[:, 2:]
    else:
        black, white = mine.black, mine.white
    to_white, _ = cKDTree(white).query(black)
    to_black, _ = cKDTree(black).query(white)
    gap = float(min(to_white.min(), to_black.min()))
    decided = float(np.mean(np.concatenate([to_white, to_black]) >= clearance))
    return gap, decided


# --- a cup arriving ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Arrival:
    """A marble carried across a square's neighbour in a ring move. Leaving its square: how
    far off it no longer reads present in any pose (mm) and when (s after the move starts).
    Arriving on the next: how far off it reads present in every pose, how far off its reading
    is within the noise of its rest (mm), and when those come (s before the rings stop)."""

    ring: str
    gone_at: float
    gone_after_start: float
    seen_at: float
    final_at: float
    seen_before_stop: float
    final_before_stop: float


def profile_time(step: float, steps: float, speed: float, accel: float) -> float:
    """When (s) a trapezoidal move of ``steps`` reaches ``step``."""
    ramp = min(speed**2 / (2 * accel), steps / 2)
    top = math.sqrt(2 * accel * ramp)
    cruise = steps - 2 * ramp
    if step <= ramp:
        return math.sqrt(2 * step / accel)
    if step <= ramp + cruise:
        return top / accel + (step - ramp) / top
    left = steps - step
    total = 2 * top / accel + cruise / top
    return total - math.sqrt(2 * left / accel)


def arrival(marble: Marble, readout: Readout, operate: float, release: float, noise: float,
            steps: float, speed: float, accel: float, p: Params = PARAMS,
            n_axes: int = 60, n_turns: int = 4) -> list[Arrival]:  # fmt: skip
    """For each ring: a marble slid from one square to the next along the ring's way, in
    every pose, against the drive's profile: when its old square's reading falls under
    ``release`` for good, when the new one's stays over ``operate`` and when it comes within
    ``noise`` of its rest. An outer cup moves with its bar's fingers up, the first half of
    the place (the yoke: r (1 - cos phi)), and stays; the disc turns through the whole."""
    rots = rotations(n_axes, n_turns)
    z = element_z(readout, p)
    h = marble_heights(p)[1]
    span = np.linspace(p.pitch, 0.0, 161)  # the marble's distance from the square
    fields = np.stack([reading(field(marble, "black", rots, (-s, 0.0, h), (0, 0, z), p), readout)
                       for s in span])  # fmt: skip
    size = np.abs(fields)

    def settled(ok: NDArray[np.bool_]) -> float:
        """The farthest distance from which every nearer one is ``ok`` too."""
        tail = np.flip(np.logical_and.accumulate(np.flip(ok)))
        return float(span[int(np.argmax(tail))]) if tail.any() else 0.0

    reads = size.max(axis=1) >= release
    gone = float(span[int(np.argmax(reads))]) if reads.any() else 0.0
    seen = settled(size.min(axis=1) >= operate)
    final = settled(np.all(np.abs(fields - fields[-1]) <= noise, axis=1))
    total = profile_time(steps, steps, speed, accel)
    radius = math.hypot(*geo.square_centre(INNER_RING[0], p))
    disc_per_step = 2 * math.pi * radius / 4 / steps  # the disc turns a quarter a place

    def step(ring: str, moved: float) -> float:
        """The step at which a marble has moved ``moved`` mm from its square (the disc's arc
        is as good as straight over the few mm that matter)."""
        if ring == "inner":
            return moved / disc_per_step
        phi = math.acos(max(-1.0, min(1.0, 1 - moved / p.crank_r)))
        return phi / (2 * math.pi) * steps

    def before_stop(ring: str, off: float) -> float:
        if ring == "inner":
            return total - profile_time(steps - off / disc_per_step, steps, speed, accel)
        return total - profile_time(step(ring, p.pitch - off), steps, speed, accel)

    return [
        Arrival(ring, gone, profile_time(step(ring, gone), steps, speed, accel), seen, final,
                before_stop(ring, seen), before_stop(ring, final))
        for ring in ("outer", "inner")
    ]  # fmt: skip


@functools.cache
def before_and_after(n_axes: int, n_turns: int) -> list[Margins]:
    """Today's marble read by today's switch, issue 33's six-disc marble and the printed
    four-disc one, each read every way."""
    readouts: tuple[Readout, ...] = ("switch", "linear", "vector")
    return [margins(today(), "switch", n_axes, n_turns)] + [
        margins(marble, r, n_axes, n_turns) for marble in (six(), printed()) for r in readouts
    ]


def poses(marble: Marble, readout: Readout, which: Iterable[str]) -> dict[str, float]:
    """Today's named poses (magnet down, sideways, up) of a centred marble: the reading."""
    z = element_z(readout)
    h = marble_heights()[0]
    turn = {"down": Rotation.from_rotvec([[math.pi, 0, 0]]),
            "sideways": Rotation.from_rotvec([[math.pi / 2, 0, 0]]),
            "up": Rotation.from_rotvec([[0.0, 0, 0]])}  # fmt: skip
    return {w: float(reading(field(marble, "black", turn[w], (0, 0, h), (0, 0, z)), readout)[0])
            for w in which}  # fmt: skip
