"""The case and the motor's mount: the fixed frame of the board (its plan in numbers:
``board/frame.py``, ``board/bay.py``).

The case is a tray printed open side up with nothing under an overhang steeper than 45 deg:

- the **ledge** the face rests on is carried by a 45 deg chamfer down to the walls, except
  round the middle of each side, where the yoke of the side's transfer bar swings out under
  it (there the ledge stands back to the face's edge); at each corner it widens into the
  **boss** the face is screwed to (``face_screw_points``, M3 self-tapping);
- the floor is a grid of ribs with square windows (``floor_windows``) wherever nothing
  stands on it; it carries the crank axles' posts, the index sensor's post, the **centre plate's
  four posts** (``frame.centre_posts``, M2.5 self-tapping from above), four **bosses with
  sockets** the motor mount's legs stand in (the sockets locate it, so the motor's axis is
  the board's centre: the gears' centre distance depends on it; an M3 screw from under the
  floor into each leg holds it), and standoffs for the Pi, the Pico, the perfboard and the
  sensors' small boards
  (``bay``);
- the walls have the **openings** of ``bay.openings`` (the Pi's USB-C, micro-HDMI and
  micro-SD card, the DC jack, the button, the status LED), each with a 45 deg gabled or
  teardrop top so its roof prints without support; the ledge has **notches** where the face's
  wires drop into the bay (``bay.notches``).
"""

from __future__ import annotations

import math

from build123d import (
    Align,
    Box,
    Cone,
    Cylinder,
    Kind,
    Part,
    Polygon,
    Pos,
    Rot,
    extrude,
    loft,
    offset,
)

from orbito_cad.board import bay
from orbito_cad.board import layout as geo
from orbito_cad.board.frame import (
    centre_post_top,
    centre_posts,
    face_boss_r,
    face_screw_points,
    mount_leg_points,
    yoke_gap,
)
from orbito_cad.board.gearing import index_sensor_xy
from orbito_cad.board.params import PARAMS, Params

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)
TOP = (Align.CENTER, Align.CENTER, Align.MAX)
FACE_SCREW_DEPTH = 12.0  # the boss and its pilot hole: an M3 x 16 goes 8 mm into it
WINDOW, RIB = 14.0, 4.0  # the floor's windows and the ribs between them and round all else


# --- the case -----------------------------------------------------------------------------
def _ledge_outlines(p: Params) -> list[list[tuple[float, float]]]:
    """The ledge's inner edge as convex outlines (their union): the square inside the ledge
    with its corners cut off at the face screws' bosses, and at each side's middle the gap
    back to the face's edge."""
    edge = p.face_w / 2 + p.slide  # the face's edge, with its clearance
    e = edge - p.ledge
    x, y = face_screw_points(p)[-1]
    # the corner cut, |x| + |y| = k, a millimetre clear of the boss: a cut tangent to it
    # breaks the union, one through it leaves knife edges
    k = x + y - (face_boss_r(p) + 1) * math.sqrt(2)
    octagon = []
    for quarter in range(4):
        c, s = math.cos(quarter * math.pi / 2), math.sin(quarter * math.pi / 2)
        for px, py in ((e, -(k - e)), (e, k - e)):
            octagon.append((c * px - s * py, s * px + c * py))
    gaps = []
    for quarter in range(4):
        c, s = math.cos(quarter * math.pi / 2), math.sin(quarter * math.pi / 2)
        g = yoke_gap(p)
        corners = [(e - 1, -g), (edge, -g), (edge, g), (e - 1, g)]
        gaps.append([(c * px - s * py, s * px + c * py) for px, py in corners])
    return [octagon, *gaps]


def _chamfered_cut(outline: list[tuple[float, float]], z: float, depth: float) -> Part:
    """The room under a ledge whose edge is ``outline`` at height ``z``: it widens at 45 deg
    going down, ``depth`` deep, and goes up through the ledge."""
    top = Polygon(*outline, align=None)
    bottom = offset(top, depth, kind=Kind.INTERSECTION)
    frustum = loft([Pos(0, 0, z - depth) * bottom, Pos(0, 0, z) * top])
    return frustum + extrude(Pos(0, 0, z - 0.01) * top, depth)


def _wall_hole(w: float, h: float, round_: bool, depth: float) -> Part:
    """A hole through a wall (y through, x across, z up, centred): its top a 45 deg gable
    (a teardrop for a round hole), so the roof prints without support."""
    if round_:
        r = w / 2
        core = Rot(90, 0, 0) * Cylinder(r, depth)
        gable = Rot(0, 45, 0) * Box(2 * r, depth, 2 * r)  # its sides tangent to the hole
        return core + (gable & Box(2 * w, depth, 2 * w, align=BOTTOM))
    core = Box(w, depth, h)
    side = w / math.sqrt(2)
    gable = Pos(0, 0, h / 2) * Rot(0, 45, 0) * Box(side, depth, side)
    return core + (gable & Pos(0, 0, h / 2) * Box(2 * w, depth, 2 * w, align=BOTTOM))


def _opening(o: bay.Opening, p: Params) -> Part:
    i, depth = bay.inner(p), p.case_wall + 2  # through the wall, not into what stands by it
    hole = _wall_hole(o.w, o.h, o.w == o.h, depth)
    at = {
        "back": Pos(o.at, i + p.case_wall / 2, o.z),
        "front": Pos(o.at, -i - p.case_wall / 2, o.z),
        "right": Pos(i + p.case_wall / 2, o.at, o.z) * Rot(0, 0, 90),
        "left": Pos(-i - p.case_wall / 2, o.at, o.z) * Rot(0, 0, 90),
    }[o.wall]
    return at * hole


def _standoffs(points: list[tuple[float, float]], hole_d: float, p: Params) -> tuple[Part, Part]:
    """(standoffs, their pilot holes) on the floor at ``points``."""
    posts, holes = Part(), Part()
    for x, y in points:
        posts += Pos(x, y, p.case_floor) * Cylinder(p.standoff_d / 2, p.standoff_h, align=BOTTOM)
        holes += Pos(x, y, p.case_floor) * Cylinder(hole_d / 2, 2 * p.standoff_h, align=BOTTOM)
    return posts, holes


def case(p: Params = PARAMS) -> Part:
    """The tray: floor, walls, the chamfered ledge and its corner bosses, the posts, the motor
    mount's sockets, the standoffs, the openings and the cable notches."""
    w, wall, i = p.case_w, p.case_wall, bay.inner(p)
    edge = p.face_w / 2 + p.slide
    z_ledge = p.z_face - p.ledge_h  # the ledge's underside at its edge
    part = Box(w, w, p.z_face, align=BOTTOM)
    rim = Box(2 * (edge + wall), 2 * (edge + wall), p.z_top - p.z_face, align=BOTTOM)
    part += Pos(0, 0, p.z_face) * (rim - Box(2 * edge, 2 * edge, 3 * p.z_top))
    # under the ledge: the room widening at 45 deg down to the walls (deep enough to reach
    # them everywhere), kept inside the walls and over the floor
    depth = 2 * i
    room = Part()
    for outline in _ledge_outlines(p):
        room += _chamfered_cut(outline, z_ledge, depth)
    inside = Pos(0, 0, p.case_floor) * Box(2 * i, 2 * i, p.z_top, align=BOTTOM)
    # under each face screw a boss as deep as the screw, on a 45 deg cone: the corner's
    # chamfer alone would leave the screw's end in the air
    r = face_boss_r(p)
    for x, y in face_screw_points(p):
        boss = Pos(x, y, p.z_face) * Cylinder(r, FACE_SCREW_DEPTH, align=TOP)
        cone = Cone(p.min_wall, r, r - p.min_wall, align=TOP)
        boss += Pos(x, y, p.z_face - FACE_SCREW_DEPTH) * cone
        room -= boss
    part -= room & inside
    for x, y in face_screw_points(p):
        part -= Pos(x, y, p.z_face) * Cylinder(p.screw_tap_d / 2, FACE_SCREW_DEPTH, align=TOP)
    for _, (x, y) in bay.notches(p):
        # across the ledge under the face's edge, down past the chamfer into the bay
        along_x = abs(y) > abs(x)
        size = (p.cable_notch, p.ledge + 2 * p.slide + 2, 0.0)
        sx, sy = (size[0], size[1]) if along_x else (size[1], size[0])
        cx = x if along_x else math.copysign(edge - p.ledge / 2 + 1, x)
        cy = math.copysign(edge - p.ledge / 2 + 1, y) if along_x else y
        part -= Pos(cx, cy, p.z_face) * Box(sx, sy, p.ledge_h + 2 * (i - edge) + 10, align=TOP)
    part -= _floor_windows(p)
    part += _posts(p)
    part -= _post_holes(p)
    for o in bay.openings(p):
        part -= _opening(o, p)
    return part


def floor_windows(p: Params = PARAMS) -> list[tuple[float, float]]:
    """The floor's windows, each a ``WINDOW`` square by its centre: on a grid of ``WINDOW`` +
    ``RIB``, every one a rib clear of the walls and of everything standing on the floor (the
    posts, the mount's sockets, the standoffs). The floor is a grid of ribs there: a solid
    3 mm floor was a third of the case's filament and a fifth of its print (issue 45), and
    the bay breathes through it."""
    i = bay.inner(p)
    held: list[tuple[float, float, float]] = [(*s.crank_axis(p), p.post_d / 2) for s in geo.sides()]
    held.append((*index_sensor_xy(p), 2.5 * math.sqrt(2)))
    held += centre_posts(p)
    boss = p.mount_leg + 2 * p.fit + 4 * p.min_wall
    held += [(x, y, boss / math.sqrt(2)) for x, y in mount_leg_points(p)]
    for points in (bay.pi_holes(p), bay.pico_holes(p), bay.board_holes(p), bay.small_holes(p)):
        held += [(x, y, p.standoff_d / 2) for x, y in points]
    pitch, half = WINDOW + RIB, WINDOW / 2
    n = int(i // pitch) + 1
    out = []
    for gx in range(-n, n + 1):
        for gy in range(-n, n + 1):
            x, y = gx * pitch, gy * pitch
            if max(abs(x), abs(y)) + half > i - RIB:
                continue
            # the distance from a feature's centre to the window's square, less its radius
            if all(
                math.hypot(max(abs(fx - x) - half, 0), max(abs(fy - y) - half, 0)) - r >= RIB
                for fx, fy, r in held
            ):
                out.append((x, y))
    return out


def _floor_windows(p: Params) -> Part:
    out = Part()
    for x, y in floor_windows(p):
        out += Pos(x, y, -1) * Box(WINDOW, WINDOW, p.case_floor + 2, align=BOTTOM)
    return out


def _posts(p: Params) -> Part:
    out = Part()
    # the crank bearing's inner race sits on the post's top, the gear a running gap above it
    post_h = p.z_gear - p.running_gap - p.case_floor
    for side in geo.sides():
        ax, ay = side.crank_axis(p)
        out += Pos(ax, ay, p.case_floor) * Cylinder(p.post_d / 2, post_h, align=BOTTOM)
    ix, iy = index_sensor_xy(p)
    top = p.z_arm - p.running_gap - p.hall_t
    out += Pos(ix, iy, p.case_floor) * Box(5, 5, top - p.case_floor, align=BOTTOM)
    for x, y, r in centre_posts(p):
        out += Pos(x, y, p.case_floor) * Cylinder(r, centre_post_top(p) - p.case_floor,
                                                  align=BOTTOM)  # fmt: skip
    # each socket's outer walls: four legs at four corners locate the mount both ways, and
    # the inner walls would stand in the motor's body
    boss = p.mount_leg + 2 * p.fit + 4 * p.min_wall
    # (cut past the socket's inner edge: faces that coincide leave a seam in the mesh)
    c = mount_leg_points(p)[-1][0] - p.mount_leg / 2 - p.fit + 0.5
    for x, y in mount_leg_points(p):
        out += Pos(x, y, p.case_floor) * Box(boss, boss, p.socket_h, align=BOTTOM) - Box(
            2 * c, 2 * c, 3 * p.z_top
        )
    for points in (bay.pi_holes(p), bay.pico_holes(p), bay.board_holes(p), bay.small_holes(p)):
        out += _standoffs(points, 0, p)[0]
    return out


def _post_holes(p: Params) -> Part:
    out = Part()
    for side in geo.sides():
        ax, ay = side.crank_axis(p)
        out += Pos(ax, ay, p.z_gear - 0.5 - 15) * Cylinder((p.axle_d + p.fit) / 2, 20,
                                                           align=BOTTOM)  # fmt: skip
    for x, y, _ in centre_posts(p):
        out += Pos(x, y, centre_post_top(p)) * Cylinder(p.standoff_hole_d / 2, 12, align=TOP)
    socket = p.mount_leg + 2 * p.fit
    head = p.screw_head_d + 2 * p.slide
    for x, y in mount_leg_points(p):
        out += Pos(x, y, p.case_floor) * Box(socket, socket, 2 * p.socket_h, align=BOTTOM)
        out += Pos(x, y, -1) * Cylinder(p.screw_clear_d / 2, p.case_floor + 2, align=BOTTOM)
        # the button head sinks into the floor from below: the case stands flat
        out += Pos(x, y, -1) * Cylinder(head / 2, 1 + 1.6, align=BOTTOM)
    for points, hole in ((bay.pi_holes(p), p.standoff_hole_d), (bay.pico_holes(p), p.pico_hole_d),
                         (bay.board_holes(p), p.standoff_hole_d),
                         (bay.small_holes(p), p.standoff_hole_d)):  # fmt: skip
        out += _standoffs(points, hole, p)[1]
    return out


# --- the motor's mount ---------------------------------------------------------------------
def motor_mount(p: Params = PARAMS) -> Part:
    """A plate on four legs: the motor hangs under it from its four M3 screws, its 22 mm
    boss in the plate's hole with a pressed fit (that centres the shaft); each leg stands in
    a socket of the case's floor and takes an M3 screw from below."""
    size, leg = p.motor_w + p.mount_margin, p.mount_leg
    plate = Box(size, size, p.mount_plate_t, align=BOTTOM)
    plate -= Cylinder(p.motor_boss_d / 2 + p.fit, 10)
    for sx in (-1, 1):
        for sy in (-1, 1):
            h = p.motor_hole_pitch / 2
            plate -= Pos(sx * h, sy * h, 0) * Cylinder(p.screw_clear_d / 2, 10)
    legs_h = p.z_motor_top - p.case_floor
    part = Pos(0, 0, legs_h) * plate
    for x, y in mount_leg_points(p):
        part += Pos(x, y, 0) * Box(leg, leg, legs_h, align=BOTTOM)
        part -= Pos(x, y, -1) * Cylinder(p.screw_tap_d / 2, 10, align=BOTTOM)
    return part
