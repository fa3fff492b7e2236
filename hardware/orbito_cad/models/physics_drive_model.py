"""The mechanism as a MuJoCo model (MJCF), generated from ``params`` and ``layout``.

SI units (metres, kilograms, seconds); every size comes from ``Params`` in millimetres and is
scaled here, never copied. What is what (``physics_drive.py`` says what is idealised):

- the **motor**: a hinge about the board's axis that carries the inner disc (it sits on the
  motor's shaft) with its four seats; the rotor's and the gears' inertia are its armature,
  and its torque is the model's one control;
- the four **bars**: each slides along its side on its yoke, tied to the motor's angle by a
  joint equality (the Scotch yoke), and stands by its weight on a ramp (a weightless body
  tied to the motor's angle by the ramp's kinematics: ``layout.bar_lift``), through a foot
  whose contact is one-sided; two fingers per cup, with domed tips (capsules);
- the 12 **cups**: free bodies on the channel's floor between its walls, each with its four
  finger holes (a ring of small capsules, the lead-in chamfer a ring of tilted ones, a disc
  at the end), its seat's rim (a ring of capsules); the 16 **marbles**: free spheres.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import pitch_radius
from orbito_cad.board.params import Params
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, SQUARES

MM = 1e-3
G = 9.81
WALL_R = 0.3  # mm: the capsules that make a finger hole's wall and a seat's rim
HOLE_CAPSULES = 6  # round a finger hole: a finger cannot pass between two of them
SEAT_CAPSULES = 8  # round a seat's rim
FINGER_LEN = 8.0  # mm of finger below its tip (it reaches down through the floor's slot)
# contact groups: a geom of type T touches one whose affinity has T's bit (and vice versa)
SOLID, FINGER, SEAT, RAMP = 1, 2, 4, 8
FOOT_R = 1.0  # mm: the bar's foot on its ramp (it stands for the yoke's track on the collar)
BELOW = 0.03  # m: where the ramp and the foot meet, out of everything's way
TINY = 1e-6  # kg (and kg m^2): the yoke, whose mass is the bar's
# kg: the ramp stands for the track on the collar, which does not rise: weightless (gravcomp),
# but with enough inertia that its coupling to the motor holds the bar within 0.05 mm
RAMP_MASS = 0.002

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


def mjcf(p: Params, mu: float, timestep: float, fingers: Fingers = geo.finger_points) -> str:
    """The model's MJCF: the motor's torque is its one control."""
    m = MM
    tau = 4 * timestep  # contacts' and couplings' time constant: stiff, yet stable
    half_w = p.channel_w / 2
    ring = 1.5 * p.pitch
    wall_h = p.face_pocket / 2 * m
    out = [
        f'<mujoco model="orbito-rings"><compiler angle="radian"/>'
        f'<option timestep="{timestep}" gravity="0 0 -{G}" cone="elliptic" impratio="10" '
        f'integrator="implicitfast"/>',
        f'<default><geom friction="{mu} 0.0005 0.00001" solref="{tau} 1" '
        f'solimp="0.95 0.99 0.0001" condim="3" contype="{SOLID}" conaffinity="{SOLID}"/>'
        f'<equality solref="{2 * timestep} 1" solimp="0.95 0.99 0.0001"/></default><worldbody>',
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
    # the bars: each slides along its side on its yoke, and rests by its weight on the ramp,
    # which the crank's collar moves up and down; its fingers' tips finger_up over the floor
    # when it is up
    r = p.finger_d / 2
    foot = f'size="{FOOT_R * m}" contype="0" conaffinity="{RAMP}" friction="0 0 0"'
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        ax, ay = side.crank_axis(p)
        out.append(
            f'<body name="yoke_{tag}" pos="{ax * m} {ay * m} 0">'
            f'<joint name="along_{tag}" type="slide" axis="{side.along[0]} {side.along[1]} 0"/>'
            f'<inertial pos="0 0 0" mass="{TINY}" diaginertia="{TINY} {TINY} {TINY}"/>'
            f'<body name="ramp_{tag}" gravcomp="1">'
            f'<joint name="up_{tag}" type="slide" axis="0 0 1"/>'
            f'<inertial pos="0 0 0" mass="{RAMP_MASS}" diaginertia="{TINY} {TINY} {TINY}"/>'
            f'<geom type="box" size="{3 * m} {3 * m} {FOOT_R * m}" pos="0 0 {-BELOW - FOOT_R * m}"'
            f' contype="{RAMP}" conaffinity="0" friction="0 0 0"/></body>'
            f'<body name="bar_{tag}"><joint name="drop_{tag}" type="slide" axis="0 0 1"/>'
            f'<inertial pos="0 0 0" mass="{p.bar_mass}" diaginertia="1e-6 1e-6 1e-6"/>'
            f'<geom type="sphere" pos="0 0 {-BELOW + FOOT_R * m}" {foot}/>'
        )
        top, bottom = (p.finger_up - r) * m, (p.finger_up - r - FINGER_LEN) * m
        for fx, fy in fingers(side, p):
            cx, cy = (fx - ax) * m, (fy - ay) * m
            out.append(
                f'<geom type="capsule" fromto="{cx} {cy} {bottom} {cx} {cy} {top}" '
                f'size="{r * m}" mass="0" contype="{FINGER}" conaffinity="0"/>'
            )
        out.append("</body></body>")
    mass = cup_mass(p)
    for s in OUTER_RING:
        x, y = geo.square_centre(s, p)
        name = SQUARE_NAMES[s]
        out.append(
            f'<body name="cup_{name}" pos="{x * m} {y * m} 0"><freejoint/>'
            f'<geom name="cup_{name}" type="cylinder" size="{p.cup_d / 2 * m} {p.cup_h / 2 * m}" '
            f'pos="0 0 {p.cup_h / 2 * m}" mass="{mass}"/>'
        )
        for hx, hy in geo.cup_holes(p):
            out.append(_hole(p, hx, hy))
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


def _hole(p: Params, hx: float, hy: float) -> str:
    """A finger hole's wall in a cup: vertical capsules from the chamfer up to its end, and
    tilted ones along the 45 deg lead-in down to the mouth. Only fingers touch them."""
    m, w = MM, WALL_R
    r = p.finger_hole_d / 2
    lead = p.lead_in
    k = w / math.sqrt(2)
    out = []
    for j in range(HOLE_CAPSULES):
        a = 2 * math.pi * j / HOLE_CAPSULES
        c, s = math.cos(a), math.sin(a)

        def at(radial: float, z: float) -> str:
            return f"{(hx + radial * c) * m} {(hy + radial * s) * m} {z * m}"  # noqa: B023

        segments = [(at(r + w, max(lead, w)), at(r + w, p.finger_hole_depth - w))]
        if lead > 0:
            segments.append((at(r + lead + k, k), at(r + k, lead + k)))
        for a0, a1 in segments:
            out.append(f'<geom type="capsule" fromto="{a0} {a1}" size="{w * m}" mass="0" '
                       f'contype="0" conaffinity="{FINGER}"/>')  # fmt: skip
    # its end: a finger that rises too far lifts the cup
    out.append(
        f'<geom type="cylinder" size="{(r + w) * m} {w * m}" mass="0" contype="0" '
        f'conaffinity="{FINGER}" pos="{hx * m} {hy * m} {(p.finger_hole_depth + w) * m}"/>'
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
