"""The mechanism as a MuJoCo model (MJCF), generated from the CAD's own parameters.

SI units (metres, kilograms, seconds); every size comes from ``Params`` in millimetres, through
the same figures the solids take (``board/gearing.py``, ``board/layout.py``), and is scaled
here, never copied. What is what (``physics.py`` says what is idealised):

- the **motor**: a hinge about the board's axis that carries the inner disc (it sits on the
  motor's shaft) with its four seats; the rotor's and the gears' inertia are its armature,
  and its torque is the model's one control (``physics.py`` gives it the stepper's law);
- the four **bars**: each slides along its side on its yoke, tied to the motor's angle by a
  joint equality (the Scotch yoke), with the collar's play in the yoke's channel as a limited
  joint, and stands by its weight on a ramp (a weightless body tied to the motor's angle by
  the ramp's kinematics: ``layout.bar_lift``), through a foot whose contact is one-sided; two
  fingers per cup, each the solid's own shape (a round stem, its 45 deg chamfer a convex
  mesh, ``finger_chamfer``);
- the 12 **cups**: free bodies on the channel's floor between its walls, each with its four
  round finger holes (a ring of vertical capsules for the bore, a ring of tilted ones for the
  lead-in chamfer, a disc at the end), its seat's rim (a ring of capsules); the 16
  **marbles**: free spheres.

``Errors`` puts a printer's errors on the drawn sizes: holes and pins larger or smaller, the
cups, the channel's walls and the ramp moved, the gears' centre distance off; ``calibrated``
is the printer the maker has set ``print_clearance`` for from the tolerance test, the one the
board is built on (``physics_tolerance.py`` sweeps the corners round it).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import PRESSURE_ANGLE, pitch_radius, yoke_half_width
from orbito_cad.board.params import Params
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, SQUARES

MM = 1e-3
G = 9.81
WALL_R = 0.3  # mm: the capsules that make a finger hole's wall and a seat's rim
# round a finger hole: 12 capsules hold a 4 mm finger within 0.004 mm of the round bore
# whichever way it presses (between two of them it reaches that much further)
HOLE_CAPSULES = 12
FINGER_SIDES = 24  # the finger's mesh: within 0.005 mm of round (vertices out, faces in)
SEAT_CAPSULES = 8  # round a seat's rim
FINGER_LEN = 8.0  # mm of finger below its tip (it reaches down through the floor's slot)
# contact groups: a geom of type T touches one whose affinity has T's bit (and vice versa)
SOLID, FINGER, SEAT, RAMP = 1, 2, 4, 8
FOOT_R = 1.0  # mm: the bar's foot on its ramp (it stands for the yoke's track on the collar)
BELOW = 0.03  # m: where the ramp and the foot meet, out of everything's way
TINY = 1e-6  # kg (and kg m^2): the yoke, whose mass is the bar's
# the contacts' and the couplings' time constant in engine steps: stiff, yet stable
CONTACT_STEPS = 4
# kg: the ramp stands for the track on the collar, which does not rise: weightless (gravcomp),
# but with enough inertia that its coupling to the motor holds the bar within 0.05 mm
RAMP_MASS = 0.002


@dataclass(frozen=True)
class Errors:
    """How a print comes out against the sizes drawn, mm (positive: larger, or higher)."""

    hole: float = 0.0  # the finger holes' and the yokes' channels' widths
    pin: float = 0.0  # the fingers' and the collars' diameters
    cup: float = 0.0  # the cups' diameter
    wall: float = 0.0  # each of the channel's walls, into the channel
    ramp: float = 0.0  # the ramp's top: how much further a finger reaches up into its hole
    centre: float = 0.0  # the gears' centre distance


EXACT = Errors()  # a printer that prints every size as drawn (none does: see ``calibrated``)


def calibrated(p: Params, residual: float = 0.0) -> Errors:
    """A printer whose ``print_clearance`` the maker set from the tolerance test (as
    tolerance-test.md tells): it prints the finger fit, and the collar's in its yoke, with
    the play of the hole that fitted, ``fit_play`` and half a ``fit_step`` (the test reads
    the fit to within half a step: ``residual``, either way), its holes small and its pins
    fat by as much each, as FDM prints them. Every other size as drawn."""
    play = p.fit_play + p.fit_step / 2 + residual
    off = (p.print_clearance - play) / 2
    return Errors(hole=-off, pin=off)


def printed_play(p: Params, e: Errors) -> float:
    """mm, diametral: a finger's play in its hole as printed (the collar's in its yoke too)."""
    return p.print_clearance + e.hole - e.pin


def finger_profile(p: Params, e: Errors = EXACT) -> list[tuple[float, float]]:
    """A finger up from its stem to its tip: (radius, height over the channel's floor with the
    bar fully up), mm, as ``parts/drive.transfer_bar`` draws it."""
    r, ch, top = (p.finger_d + e.pin) / 2, p.finger_chamfer, p.finger_up + e.ramp
    return [(r, top - FINGER_LEN), (r, top - ch), (r - ch, top)]


def hole_profile(p: Params, e: Errors = EXACT) -> list[tuple[float, float]]:
    """A finger hole up from its mouth: (radius, height over the cup's bottom), mm, as
    ``parts/track.cup`` draws it (the lead-in chamfer, the bore to its end)."""
    r = (p.finger_hole_d + e.hole) / 2
    return [(r + p.lead_in, 0.0), (r, p.lead_in), (r, p.finger_hole_depth)]


def yoke_play(p: Params, e: Errors = EXACT) -> float:
    """mm the bar may move along its side about the collar (either way): the yoke's channel
    over the collar, a running fit; none if the print made it tight."""
    return max(0.0, yoke_half_width(p) - p.collar_d / 2 + (e.hole - e.pin) / 2)


def gear_lag(p: Params, e: Errors = EXACT) -> float:
    """Radians the cranks lag the motor's angle (on the crank): half the gears' backlash,
    which the centre distance widens or narrows by 2 tan(pressure angle) per mm."""
    backlash = p.backlash + 2 * e.centre * math.tan(PRESSURE_ANGLE)
    return max(0.0, backlash) / 2 / pitch_radius(p.crank_teeth, p)


Fingers = Callable[[geo.Side, Params], list[geo.Point]]


def one_finger(side: geo.Side, p: Params) -> list[geo.Point]:
    """The first design's fingers (issue 32's 'before'): one under each cup, ``finger_offset``
    outwards of its centre line."""
    ox, oy = side.outward
    out = []
    for s in side.starts:
        x, y = geo.square_centre(s, p)
        out.append((x + ox * p.finger_offset, y + oy * p.finger_offset))
    return out


def cup_mass(p: Params) -> float:
    """kg: a cup printed solid, less its seat and finger holes."""
    area = math.pi / 4 * (p.cup_d**2 - p.seat_d**2)
    holes = 4 * math.pi / 4 * p.finger_hole_d**2 * p.finger_hole_depth
    return (area * p.cup_h - holes) * 1e-9 * p.petg_density


def disc_thickness(p: Params) -> float:
    """The disc floats a running gap over its recess, its top level with the cups' (track.disc)."""
    return p.cup_h - p.running_gap


def disc_inertia(p: Params) -> tuple[float, float]:
    """The inner disc's mass (kg) and moment of inertia about its axis (kg m^2), solid."""
    r = p.disc_r * MM
    mass = math.pi * r**2 * disc_thickness(p) * MM * p.petg_density
    return mass, mass * r**2 / 2


def armature(p: Params) -> float:
    """kg m^2 at the motor's shaft: the rotor, the central gear and the four crank gears (the
    latter turn ``ratio`` times as fast), each gear a solid disc to its pitch circle."""

    def gear(teeth: int) -> float:
        r = pitch_radius(teeth, p) * MM
        return math.pi * r**2 * p.gear_t * MM * p.petg_density * r**2 / 2

    ratio = geo.crank_turns_per_motor_turn(p)
    return p.rotor_inertia + gear(p.central_teeth) + 4 * ratio**2 * gear(p.crank_teeth)


def seat_rest_z(p: Params) -> float:
    """mm: a marble's centre above the floor, resting on its seat's rim (the rim's capsules'
    axes a chord's midpoint away from the seat's edge)."""
    rim = p.seat_d / 2 + WALL_R
    return p.cup_h - WALL_R + math.sqrt((p.marble_d / 2 + WALL_R) ** 2 - rim**2)


def mjcf(p: Params, mu: float, timestep: float, fingers: Fingers = geo.finger_points,
         e: Errors = EXACT) -> str:  # fmt: skip
    """The model's MJCF: the motor's torque is its one control."""
    m = MM
    tau = CONTACT_STEPS * timestep  # contacts' and couplings' time constant
    half_w = p.channel_w / 2 - e.wall
    ring = 1.5 * p.pitch
    wall_h = p.face_pocket / 2 * m
    out = [
        f'<mujoco model="orbito-rings"><compiler angle="radian"/>'
        f'<option timestep="{timestep}" gravity="0 0 -{G}" cone="elliptic" impratio="10" '
        f'integrator="implicitfast"/>',
        f'<default><geom friction="{mu} 0.0005 0.00001" solref="{tau} 1" '
        f'solimp="0.95 0.99 0.0001" condim="3" contype="{SOLID}" conaffinity="{SOLID}"/>'
        f'<equality solref="{2 * timestep} 1" solimp="0.95 0.99 0.0001"/></default>',
        f'<asset><mesh name="finger" vertex="{_finger_vertices(p, e)}"/></asset><worldbody>'
        if p.finger_chamfer > 0
        else "<worldbody>",
        '<geom name="floor" type="plane" size="0.2 0.2 0.01"/>',
    ]
    # the channel's walls: an outer square and an inner one (the centre plate's edge)
    for k, (r_wall, sign) in enumerate(((ring + half_w, 1), (ring - half_w, -1))):
        for i, (dx, dy) in enumerate(((1, 0), (0, 1), (-1, 0), (0, -1))):
            cx, cy = dx * (r_wall + sign * 2) * m, dy * (r_wall + sign * 2) * m
            reach = (r_wall + 4 if sign > 0 else r_wall) * m
            sx, sy = (2 * m, reach) if dx else (reach, 2 * m)
            out.append(f'<geom name="wall{k}{i}" type="box" pos="{cx} {cy} {wall_h}" '
                       f'size="{sx} {sy} {wall_h}"/>')  # fmt: skip
    # the motor's shaft and the disc on it
    disc_mass, disc_i = disc_inertia(p)
    out.append(
        f'<body name="disc"><joint name="motor" type="hinge" axis="0 0 1" '
        f'armature="{armature(p)}"/><inertial pos="0 0 0" mass="{disc_mass}" '
        f'diaginertia="{disc_i / 2} {disc_i / 2} {disc_i}"/>'
    )
    for s in INNER_RING:
        out.append(_seat_ring(p, geo.square_centre(s, p)))
    out.append("</body>")
    # the bars: each slides along its side on its yoke (the collar's play in its channel a
    # limited joint, the bar's guides its friction), and rests by its weight on the ramp,
    # which the crank's collar moves up and down
    foot = f'size="{FOOT_R * m}" contype="0" conaffinity="{RAMP}" friction="0 0 0"'
    play = max(yoke_play(p, e), 1e-4) * m  # a tight collar: MuJoCo asks for a range
    guide = mu * p.bar_mass * G  # N: the bar's weight on its collar, dragged along
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        ax, ay = side.crank_axis(p)
        axis = f"{side.along[0]} {side.along[1]} 0"
        out.append(
            f'<body name="yoke_{tag}" pos="{ax * m} {ay * m} 0">'
            f'<joint name="along_{tag}" type="slide" axis="{axis}"/>'
            f'<inertial pos="0 0 0" mass="{TINY}" diaginertia="{TINY} {TINY} {TINY}"/>'
            f'<body name="ramp_{tag}" gravcomp="1">'
            f'<joint name="up_{tag}" type="slide" axis="0 0 1"/>'
            f'<inertial pos="0 0 0" mass="{RAMP_MASS}" diaginertia="{TINY} {TINY} {TINY}"/>'
            f'<geom type="box" size="{3 * m} {3 * m} {FOOT_R * m}" pos="0 0 {-BELOW - FOOT_R * m}"'
            f' contype="{RAMP}" conaffinity="0" friction="0 0 0"/></body>'
            f'<body name="bar_{tag}"><joint name="drop_{tag}" type="slide" axis="0 0 1"/>'
            f'<joint name="play_{tag}" type="slide" axis="{axis}" limited="true" '
            f'range="{-play} {play}" frictionloss="{guide}" solreflimit="{tau} 1"/>'
            f'<inertial pos="0 0 0" mass="{p.bar_mass}" diaginertia="1e-6 1e-6 1e-6"/>'
            f'<geom type="sphere" pos="0 0 {-BELOW + FOOT_R * m}" {foot}/>'
        )
        (r, bottom), (_, shoulder), _ = finger_profile(p, e)
        for fx, fy in fingers(side, p):
            cx, cy = (fx - ax) * m, (fy - ay) * m
            out.append(
                f'<geom type="cylinder" fromto="{cx} {cy} {bottom * m} {cx} {cy} {shoulder * m}" '
                f'size="{r * m}" mass="0" contype="{FINGER}" conaffinity="0"/>'
            )
            if p.finger_chamfer > 0:
                out.append(f'<geom type="mesh" mesh="finger" pos="{cx} {cy} 0" mass="0" '
                           f'contype="{FINGER}" conaffinity="0"/>')  # fmt: skip
        out.append("</body></body>")
    mass = cup_mass(p)
    cup_r = (p.cup_d + e.cup) / 2 * m
    for s in OUTER_RING:
        x, y = geo.square_centre(s, p)
        name = SQUARE_NAMES[s]
        out.append(
            f'<body name="cup_{name}" pos="{x * m} {y * m} 0"><freejoint/>'
            f'<geom name="cup_{name}" type="cylinder" size="{cup_r} {p.cup_h / 2 * m}" '
            f'pos="0 0 {p.cup_h / 2 * m}" mass="{mass}"/>'
        )
        for hx, hy in geo.cup_holes(p):
            out.append(_hole(p, e, hx, hy))
        out.append(_seat_ring(p, (0.0, 0.0)))
        out.append("</body>")
    z = seat_rest_z(p) * m
    for s in SQUARES:
        x, y = geo.square_centre(s, p)
        out.append(
            f'<body name="marble_{SQUARE_NAMES[s]}" pos="{x * m} {y * m} {z}"><freejoint/>'
            f'<geom type="sphere" size="{p.marble_d / 2 * m}" mass="{p.marble_mass}" '
            f'contype="{SEAT}" conaffinity="0"/></body>'
        )
    out.append("</worldbody><equality>")
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        for joint in ("along", "up"):
            out.append(f'<joint name="{joint}_{tag}" joint1="{joint}_{tag}" joint2="motor" '
                       'polycoef="0 0 0 0 0"/>')  # fmt: skip
    out.append('</equality><actuator><motor name="motor" joint="motor"/></actuator></mujoco>')
    return "".join(out)


def _round(r: float, sides: int) -> float:
    """The radius of a polygon's corners whose corners and faces' middles lie as far outside
    and inside a circle of radius ``r``."""
    return 2 * r / (1 + math.cos(math.pi / sides))


def _finger_vertices(p: Params, e: Errors) -> str:
    """The finger's chamfered tip, a convex mesh (in a bar's frame, about the finger's axis,
    metres); its stem is a round cylinder (a mesh's flat faces, pressed in a round hole, made
    contacts round half of it whose friction held the bar up)."""
    points = []
    for r, z in finger_profile(p, e)[1:]:
        rv = _round(r, FINGER_SIDES)
        for j in range(FINGER_SIDES):
            a = 2 * math.pi * j / FINGER_SIDES
            points.append(f"{rv * math.cos(a) * MM} {rv * math.sin(a) * MM} {z * MM}")
    return " ".join(points)


def _hole(p: Params, e: Errors, hx: float, hy: float) -> str:
    """A finger hole's wall in a cup, round ``hole_profile``: vertical capsules along the
    bore, tilted ones along the 45 deg lead-in down to the mouth, their surfaces on the
    profile. Only fingers touch them."""
    m, w = MM, WALL_R
    (mouth, _), (r, lead), (_, depth) = hole_profile(p, e)
    k = w / math.sqrt(2)  # the lead-in's capsules sit off its 45 deg face along its normal
    # where the two rings meet: a ball there touches the bore and the lead-in, neither of its
    # capsules' ends standing into the other's face (0.12 mm into the lead-in, they did)
    knee = max(lead + w * (math.sqrt(2) - 1), w) if lead > 0 else w
    out = []
    for j in range(HOLE_CAPSULES):
        a = 2 * math.pi * j / HOLE_CAPSULES
        c, s = math.cos(a), math.sin(a)

        def at(radial: float, z: float) -> str:
            return f"{(hx + radial * c) * m} {(hy + radial * s) * m} {z * m}"  # noqa: B023

        segments = [(at(r + w, knee), at(r + w, depth - w))]
        if lead > 0:
            segments.append((at(mouth + k, k), at(r + w, knee)))
        for a0, a1 in segments:
            out.append(f'<geom type="capsule" fromto="{a0} {a1}" size="{w * m}" mass="0" '
                       f'contype="0" conaffinity="{FINGER}"/>')  # fmt: skip
    # its end: a finger that rises too far lifts the cup
    out.append(
        f'<geom type="cylinder" size="{(r + w) * m} {w * m}" mass="0" contype="0" '
        f'conaffinity="{FINGER}" pos="{hx * m} {hy * m} {(depth + w) * m}"/>'
    )
    return "".join(out)


def _seat_ring(p: Params, at: tuple[float, float]) -> str:
    """A seat's rim: capsules on the chords of a circle, their midpoints a capsule's radius
    outside the seat's edge, at the top of the cup (or disc). Only marbles touch them."""
    m, w = MM, WALL_R
    ring = (p.seat_d / 2 + w) / math.cos(math.pi / SEAT_CAPSULES)
    z = (p.cup_h - w) * m
    out = []
    for j in range(SEAT_CAPSULES):
        a0, a1 = (2 * math.pi * (j + k) / SEAT_CAPSULES for k in (0, 1))
        x0, y0 = at[0] + ring * math.cos(a0), at[1] + ring * math.sin(a0)
        x1, y1 = at[0] + ring * math.cos(a1), at[1] + ring * math.sin(a1)
        out.append(
            f'<geom type="capsule" fromto="{x0 * m} {y0 * m} {z} {x1 * m} {y1 * m} {z}" '
            f'size="{w * m}" mass="0" contype="0" conaffinity="{SEAT}"/>'
        )
    return "".join(out)
