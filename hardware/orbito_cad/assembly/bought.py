"""The bought parts placed in the assembly: simple stand-ins of their datasheet sizes (the
motor, the Pi, the Pico, the perfboard, the button, the marbles, the sensors, the LEDs and the
index magnet), there to be checked for room and drawn.
"""

from __future__ import annotations

import math

from build123d import Align, Box, Cylinder, Location, Pos, Rot, Sphere

from orbito_cad.assembly.placed import Placed
from orbito_cad.board import bay
from orbito_cad.board import layout as geo
from orbito_cad.board.face import inward, led_centre, sensor_pocket_depth
from orbito_cad.board.gearing import index_magnet_z, index_radius, index_sensor_xy, index_side
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.parts.drive import d_shaft
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


def bought(p: Params = PARAMS) -> list[Placed]:
    """Every bought part of the board at rest."""
    out = []
    motor = Box(p.motor_w, p.motor_w, p.motor_len, align=BOTTOM)
    motor += Pos(0, 0, p.motor_len) * Cylinder(p.motor_boss_d / 2, p.motor_boss_h, align=BOTTOM)
    motor += Pos(0, 0, p.motor_len) * d_shaft(p.shaft_d, p.shaft_len, p)
    out.append(Placed("motor", "motor", Pos(0, 0, p.case_floor + 0.5) * motor, False, False, -40))
    out += electronics(p)
    seat_drop = math.sqrt((p.marble_d / 2) ** 2 - (p.seat_d / 2) ** 2)
    marble_z = p.z_floor_top + p.cup_h + seat_drop + 0.05
    for s in SQUARES:
        x, y = geo.square_centre(s, p)
        name = SQUARE_NAMES[s]
        out.append(
            Placed(
                f"marble_{name}",
                "marble",
                Pos(x, y, marble_z) * Sphere(p.marble_d / 2),
                False,
                True,
                240,
            )
        )
        ix, iy = inward(s, p)
        angle = math.degrees(math.atan2(iy, ix))
        hall = Box(p.hall_d, p.hall_w, p.hall_t, align=BOTTOM)
        top = p.z_face + sensor_pocket_depth(p) - p.hall_t
        out.append(
            Placed(
                f"hall_{name}",
                "hall",
                Location((x, y, top), (0, 0, angle)) * hall,
                False,
                False,
                125,
            )
        )
        lx, ly = led_centre(s, p)
        led = Cylinder(p.led_d / 2, p.led_t, align=BOTTOM)
        out.append(Placed(f"led_{name}", "led", Pos(lx, ly, p.z_face - p.led_t) * led, False,
                          False, 115))  # fmt: skip
    ix, iy = index_sensor_xy(p)
    out.append(
        Placed(
            "hall_index",
            "hall",
            Pos(ix, iy, p.z_arm - p.running_gap - p.hall_t)
            * Box(p.hall_w, p.hall_d, p.hall_t, align=BOTTOM),
            False,
            False,
            30,
        )
    )
    side = index_side(p)
    ax, ay = side.crank_axis(p)
    r = index_radius(p)
    mx, my = ax - side.along[0] * r, ay - side.along[1] * r
    magnet = Cylinder(p.index_magnet_d / 2, p.index_magnet_h, align=BOTTOM)
    out.append(
        Placed(
            "index_magnet", "index_magnet", Pos(mx, my, index_magnet_z(p)) * magnet, False, True, 70
        )
    )
    return out


def electronics(p: Params = PARAMS) -> list[Placed]:
    """The bought parts in the case: the Pi, the Pico, the perfboard, the sensors' small
    boards (two I2C multiplexers, the CD74HC4067, the ADS1115), the Orbito button."""
    out: list[Placed] = []
    for name, (x, y), (w, d, h) in (
        ("raspberry_pi", bay.pi_xy(p), (p.pi_w, p.pi_d, p.pi_h)),
        ("pico", bay.pico_xy(p), (p.pico_l, p.pico_w, 4.0)),
        ("perfboard", bay.board_xy(p), (p.board_w, p.board_d, p.board_h)),
    ):
        out.append(Placed(name, name, Pos(x, y, p.case_floor + p.standoff_h) * Box(w, d, h,
                          align=BOTTOM), False, False, -40))  # fmt: skip
    for b in bay.small_boards(p):
        (x, y), (w, d) = b.centre, b.size
        box = Box(w, d, p.small_board_h, align=BOTTOM)
        at = Pos(x, y, p.case_floor + p.standoff_h)
        out.append(Placed(b.key, "small_board", at * box, False, False, -40))
    # the Orbito button through the front wall, its nut tight on the wall's inside: its body
    # must clear the drive
    button = Rot(-90, 0, 0) * (
        Cylinder(p.button_nut_d / 2, p.button_nut_t, align=BOTTOM)
        + Cylinder(p.button_d / 2 - 0.5, p.button_depth, align=BOTTOM)
    )
    z = p.case_floor + (p.z_face - p.case_floor) / 2
    out.append(
        Placed("button", "button", Pos(p.button_x, -bay.inner(p), z) * button, False, False, -40)
    )
    return out
