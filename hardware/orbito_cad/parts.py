"""The board as one assembly: every printed part by name, and every solid placed at rest.

The printed parts are built in their own frames by ``drive`` (gears, cranks, bars) and
``track`` (cups, disc, face, centre plate) and ``case``; here they are placed as the board
stands at rest (crank angle 0: each bar half up, its fingers entering the cups it is about to
push). Bought parts (motor, bearings, axles, sensors, LEDs, marbles) are simple stand-ins of
their datasheet sizes, there to be checked for room and drawn.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from build123d import Align, Box, Cylinder, Location, Pos, Sphere

from orbito_cad import layout as geo
from orbito_cad.case import case, electronics, motor_mount
from orbito_cad.drive import (
    bar_z,
    central_gear,
    crank_gear,
    d_shaft,
    index_radius,
    transfer_bar,
)
from orbito_cad.marble import PRINTED_SENSING
from orbito_cad.params import PARAMS, Params
from orbito_cad.placed import Placed as Placed
from orbito_cad.track import (
    _inward,
    centre_plate,
    cup,
    disc,
    face,
    led_centre,
    sensor_pocket_depth,
)
from orbito_cad.track import (
    light_path as light_path,
)
from orbito_hw.rules.squares import OUTER_RING, SQUARE_NAMES, SQUARES

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


def index_side(p: Params = PARAMS) -> geo.Side:
    """The side whose crank carries the index magnet: the one that starts from a1."""
    return next(side for side in geo.sides() if OUTER_RING[3] in side.starts)


def index_sensor_xy(p: Params = PARAMS) -> tuple[float, float]:
    """Under the index magnet at crank angle 0 (every place ends there)."""
    side = index_side(p)
    ax, ay = side.crank_axis(p)
    r = index_radius(p)
    return (ax - side.along[0] * r, ay - side.along[1] * r)


PRINTED = {
    "case": case,
    "face": face,
    "centre_plate": centre_plate,
    "motor_mount": motor_mount,
    "central_gear": central_gear,
    "crank_gear": crank_gear,
    "transfer_bar": transfer_bar,
    "cup": cup,
    "disc": disc,
    # marble.py's marble half and polarity jig are not built yet: the half's channels leave
    # slivers 0.01 mm thick at its flat face (marbles.md says what to print meanwhile)
    "polarity_jig": PRINTED_SENSING["polarity_jig"],
}
"""Every printed part, one STL each, by name."""


# --- the assembly -------------------------------------------------------------------------
def side_location(side: geo.Side, z: float, p: Params = PARAMS) -> Location:
    ax, ay = side.crank_axis(p)
    return Location((ax, ay, z), (0, 0, math.degrees(math.atan2(side.along[1], side.along[0]))))


def assembly(p: Params = PARAMS, built: Mapping[str, Any] | None = None) -> list[Placed]:
    """Every part of the board at rest, printed and bought; the printed parts ``built``
    already (by name, from ``p``) are not built again (the case alone takes half a minute)."""
    built = built if built is not None else {name: make(p) for name, make in PRINTED.items()}
    out = [
        Placed("case", "case", built["case"], True, False, -120),
        Placed("motor_mount", "motor_mount", Pos(0, 0, p.case_floor) * built["motor_mount"], True,
               False, -40),
        Placed("face", "face", Pos(0, 0, p.z_face) * built["face"], True, False, 140),
        Placed("centre_plate", "centre_plate", Pos(0, 0, p.z_face) * built["centre_plate"], True,
               False, 140),
        Placed("central_gear", "central_gear", Pos(0, 0, p.z_gear) * built["central_gear"], True,
               True, 50),
        Placed("disc", "disc", Pos(0, 0, p.z_floor_top + p.running_gap) * built["disc"], True,
               True, 190),
    ]  # fmt: skip
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        out.append(
            Placed(f"crank_gear_{tag}", "crank_gear",
                   side_location(side, p.z_gear, p) * built["crank_gear"], True, True, 70)
        )  # fmt: skip
        out.append(
            Placed(f"transfer_bar_{tag}", "transfer_bar",
                   side_location(side, bar_z(0.0, p), p) * built["transfer_bar"], True, True, 100)
        )  # fmt: skip
        ax, ay = side.crank_axis(p)
        axle_z = p.z_gear - 0.5 - 15 + 0.5
        out.append(Placed(f"axle_{tag}", "axle",
                          Pos(ax, ay, axle_z) * Cylinder(p.axle_d / 2, p.axle_len, align=BOTTOM),
                          False, False, 35))  # fmt: skip
        bearing = Cylinder(p.bearing_od / 2, p.bearing_w, align=BOTTOM) - Cylinder(
            p.axle_d / 2, 3 * p.bearing_w
        )
        # pressed into the gear, standing a running gap out of it onto the post's top
        at = p.z_gear - p.running_gap
        out.append(Placed(f"bearing_{tag}", "bearing", Pos(ax, ay, at) * bearing, False,
                          True, 60))  # fmt: skip
    for s in OUTER_RING:
        x, y = geo.square_centre(s, p)
        name = SQUARE_NAMES[s]
        out.append(Placed(f"cup_{name}", "cup", Pos(x, y, p.z_floor_top) * built["cup"], True,
                          True, 190))  # fmt: skip
    out += bought(p)
    return out


def bought(p: Params = PARAMS) -> list[Placed]:
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
        ix, iy = _inward(s, p)
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
    out.append(Placed("index_magnet", "index_magnet",
                      Pos(mx, my, p.z_arm) * Cylinder(p.index_magnet_d / 2, p.index_magnet_h,
                                                       align=BOTTOM), False, True, 70))  # fmt: skip
    return out
