"""The case, the motor's mount and the electronics in the case: the fixed frame of the board.

The case is a tray: floor, walls, the ledge the face rests on, the posts the crank axles stand
in and the index sensor's post; the motor hangs under its mount in the middle; the Pi and
the perfboard stand on standoffs in the corners the drive leaves free.
"""

from __future__ import annotations

from build123d import Align, Box, Cylinder, Part, Pos, Rot

from orbito_cad import layout as geo
from orbito_cad.params import PARAMS, Params
from orbito_cad.placed import Placed

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


def case(p: Params = PARAMS) -> Part:
    """The tray: floor, walls, the ledge the face rests on, the crank axles' posts and the
    index sensor's post."""
    w, h, wall = p.case_w, p.z_top, p.case_wall
    part = Box(w, w, h, align=BOTTOM)
    part -= Pos(0, 0, p.case_floor) * Box(w - 2 * wall, w - 2 * wall, h, align=BOTTOM)
    ring = Box(w - 2 * wall, w - 2 * wall, p.ledge_h, align=BOTTOM)
    ring -= Box(w - 2 * wall - 2 * p.ledge, w - 2 * wall - 2 * p.ledge, 3 * p.ledge_h)
    part += Pos(0, 0, p.z_face - p.ledge_h) * ring
    # the crank bearing's inner race sits on the post's top, the gear a running gap above it
    post_h = p.z_gear - p.running_gap - p.case_floor
    for side in geo.sides():
        ax, ay = side.crank_axis(p)
        post = Pos(ax, ay, p.case_floor) * Cylinder(p.post_d / 2, post_h, align=BOTTOM)
        part += post
        part -= Pos(ax, ay, p.z_gear - 0.5 - 15) * Cylinder(
            (p.axle_d + p.fit) / 2, 20, align=BOTTOM
        )
    from orbito_cad.parts import index_sensor_xy

    ix, iy = index_sensor_xy(p)
    top = p.z_arm - 0.5 - p.hall_t
    part += Pos(ix, iy, p.case_floor) * Box(5, 5, top - p.case_floor, align=BOTTOM)
    # standoffs for the Pi and the perfboard, in the two corners the drive leaves free
    for (cx, cy), (hx, hy) in (
        (pi_xy(p), p.pi_holes),
        (board_xy(p), (p.board_w - 8, p.board_d - 8)),
    ):
        for sx in (-1, 1):
            for sy in (-1, 1):
                at = Pos(cx + sx * hx / 2, cy + sy * hy / 2, p.case_floor)
                part += at * Cylinder(p.standoff_d / 2, p.standoff_h, align=BOTTOM)
                part -= at * Cylinder(p.standoff_hole_d / 2, 2 * p.standoff_h, align=BOTTOM)
    # the button (and the status LED beside it) at the front, the 12 V jack at the back
    button_z = p.case_floor + (p.z_face - p.case_floor) / 2
    part -= Pos(p.button_x, -w / 2, button_z) * Rot(90, 0, 0) * Cylinder(p.button_d / 2, 4 * wall)
    status = Cylinder(p.status_led_hole_d / 2, 4 * wall)
    part -= Pos(p.button_x + p.button_d + 6, -w / 2, button_z) * Rot(90, 0, 0) * status
    jack = Cylinder(p.jack_d / 2, 4 * wall)
    part -= Pos(0, w / 2, p.case_floor + p.jack_z) * Rot(90, 0, 0) * jack
    return part


def pi_xy(p: Params = PARAMS) -> tuple[float, float]:
    """The Pi in the back right corner, clear of the crank posts and the motor's mount."""
    inner = p.case_w / 2 - p.case_wall
    return (inner - p.pi_w / 2 - 2, inner - p.pi_d / 2 - 2)


def board_xy(p: Params = PARAMS) -> tuple[float, float]:
    inner = p.case_w / 2 - p.case_wall
    return (-inner + p.board_w / 2 + 2, inner - p.board_d / 2 - 2)


def motor_mount(p: Params = PARAMS) -> Part:
    """A plate on four legs: the motor hangs under it from its four M3 screws."""
    size, leg = p.motor_w + p.mount_margin, p.mount_leg
    plate = Box(size, size, p.mount_plate_t, align=BOTTOM)
    plate -= Cylinder(p.motor_boss_d / 2 + 0.5, 10)
    for sx in (-1, 1):
        for sy in (-1, 1):
            h = p.motor_hole_pitch / 2
            plate -= Pos(sx * h, sy * h, 0) * Cylinder(p.screw_clear_d / 2, 10)
    legs_h = p.z_motor_top - p.case_floor
    part = Pos(0, 0, legs_h) * plate
    c = size / 2 - leg / 2
    for sx in (-1, 1):
        for sy in (-1, 1):
            part += Pos(sx * c, sy * c, 0) * Box(leg, leg, legs_h, align=BOTTOM)
    return part


def electronics(p: Params = PARAMS) -> list[Placed]:
    """The bought parts in the case: the Pi, the perfboard, the Orbito button."""
    out: list[Placed] = []
    for name, (x, y), (w, d, h) in (
        ("raspberry_pi", pi_xy(p), (p.pi_w, p.pi_d, p.pi_h)),
        ("perfboard", board_xy(p), (p.board_w, p.board_d, p.board_h)),
    ):
        out.append(Placed(name, name, Pos(x, y, p.case_floor + p.standoff_h) * Box(w, d, h,
                          align=BOTTOM), False, False, -40))  # fmt: skip
    # the Orbito button through the front wall: its body must clear the drive
    inner = p.case_w / 2 - p.case_wall
    button = Rot(-90, 0, 0) * Cylinder(p.button_d / 2 - 0.5, p.button_depth, align=BOTTOM)
    z = p.case_floor + (p.z_face - p.case_floor) / 2
    out.append(Placed("button", "button", Pos(p.button_x, -inner, z) * button, False, False, -40))
    return out


def face_screw_points(p: Params = PARAMS) -> list[tuple[float, float]]:
    """Where the face is screwed down onto the case's ledge (M3 into bosses under it): near
    each corner and mid-side, on the ledge's centre line, clear of the channel."""
    c = (p.face_w / 2 + 1.5 * p.pitch + p.channel_w / 2) / 2
    return [(sx * c, sy * c) for sx in (-1, 1) for sy in (-1, 1)]


def centre_posts(p: Params = PARAMS) -> list[tuple[float, float, float]]:
    """The centre plate's four posts: (x, y, radius), on the diagonals inside the inner slots,
    clear of the central gear's teeth, the crank arms and the bars' rails."""
    # the screw's head sinks into the plate inside the channel's inner wall
    wall = 1.5 * p.pitch - p.channel_w / 2
    at = wall - p.centre_screw_head_d / 2 - 0.3 - p.min_wall
    r = p.centre_post_d / 2
    return [(sx * at, sy * at, r) for sx in (-1, 1) for sy in (-1, 1)]
