"""The solids, built with build123d from ``params`` and placed from ``layout``.

Every printed part is built once in its own frame and placed in the assembly as it stands
at rest (crank angle 0, the bars' fingers up in the cups). Bought parts (motor, bearings,
axles, sensors, LEDs, marbles) are simple stand-ins of their datasheet sizes, there to be
checked for room and drawn.

A side's frame: x along the way its bar pushes, y towards the board's centre, z up, the
origin on its crank's axis (a proper rotation of the board's frame, so nothing is mirrored).
"""

from __future__ import annotations

import math

from build123d import (
    Align,
    Box,
    Cylinder,
    Location,
    Part,
    Polygon,
    Pos,
    SlotCenterToCenter,
    Sphere,
    extrude,
)

from orbito_cad import layout as geo
from orbito_cad.case import case, electronics, motor_mount
from orbito_cad.params import PARAMS, Params
from orbito_cad.placed import Placed as Placed
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, SQUARES

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


# --- printed parts, each in its own frame ----------------------------------------------
def gear(teeth: int, p: Params = PARAMS, phase: float = 0.0) -> Part:
    """A spur gear of ``p.gear_module`` with 20 degree stub teeth (straight flanks), each
    thinned by the backlash. ``phase`` (degrees) turns the first tooth from the +x axis."""
    m = p.gear_module
    rp, ra, rf = m * teeth / 2, m * teeth / 2 + 0.8 * m, m * teeth / 2 - m
    half_p = (math.pi * m / 2 - p.backlash) / 2  # half a tooth's width on the pitch circle
    tan20 = math.tan(math.radians(20))
    points: list[tuple[float, float]] = []
    step = 2 * math.pi / teeth
    for i in range(teeth):
        centre = math.radians(phase) + i * step
        for r, sign in ((rf, -1), (ra, -1), (ra, 1), (rf, 1)):
            half = max(half_p - (r - rp) * tan20, 0.2)
            a = centre + sign * half / r
            points.append((r * math.cos(a), r * math.sin(a)))
        # the root between this tooth and the next
        a = centre + step / 2
        points.append((rf * math.cos(a), rf * math.sin(a)))
    return extrude(Polygon(*points, align=None), p.gear_t)


def d_shaft(d: float, length: float, p: Params = PARAMS) -> Part:
    """A round shaft of diameter ``d`` with the motor shaft's flat (on +x), from z = 0 up;
    as a bore it grips the motor's shaft without a grub screw."""
    return Cylinder(d / 2, length, align=BOTTOM) - Pos(d / 2 - p.shaft_flat, -d, -1) * Box(
        d, 2 * d, length + 2, align=(Align.MIN, Align.MIN, Align.MIN)
    )


def central_gear(p: Params = PARAMS) -> Part:
    # A gap faces each crank (they sit at 0, 90, 180, 270 degrees, a quarter of the teeth
    # apart).
    body = gear(p.central_teeth, p, phase=180 / p.central_teeth)
    boss = Pos(0, 0, p.gear_t) * Cylinder(p.gear_boss_d / 2, p.gear_boss_h, align=BOTTOM)
    part = body + boss
    part -= Pos(0, 0, -1) * d_shaft(p.shaft_d + p.fit, 3 * p.gear_t, p)
    return part


def crank_gear(p: Params = PARAMS) -> Part:
    """Gear, crank arm and crank pin in one print. The pin starts at -x (crank angle 0),
    a tooth points at +y (the motor), and the arm holds the index magnet under the pin."""
    teeth = p.crank_teeth
    body = gear(teeth, p, phase=90.0)
    arm_r = p.crank_r + p.crank_pin_d / 2 + p.crank_arm_margin
    arm = Pos(0, 0, p.gear_t) * Cylinder(arm_r, p.crank_arm_t, align=BOTTOM)
    pin_h = p.lift + p.yoke_h + 1.0
    pin = Pos(-p.crank_r, 0, p.gear_t + p.crank_arm_t) * Cylinder(
        p.crank_pin_d / 2, pin_h, align=BOTTOM
    )
    part = body + arm + pin
    part -= Cylinder((p.bearing_od + p.fit) / 2, p.bearing_w * 2)  # 625ZZ pressed in
    part -= Cylinder((p.axle_d + 1) / 2, 40)
    part -= Pos(-index_radius(p), 0, p.gear_t - 1) * Cylinder(
        (p.index_magnet_d + p.fit) / 2, p.index_magnet_h + 1.1, align=BOTTOM
    )
    return part


def index_radius(p: Params = PARAMS) -> float:
    """The index magnet's radius on the crank arm: outside the gear's teeth."""
    return p.gear_module * (p.crank_teeth / 2 + 0.8) + p.index_margin


def transfer_bar(p: Params = PARAMS) -> Part:
    """A side's bar: the yoke round the crank pin, the bar along the side, three fingers."""
    slot_len = 2 * p.crank_r + p.crank_pin_d + 2 * p.slide
    slot_w = p.crank_pin_d + 2 * p.slide
    yoke = Pos(-p.crank_r, 0, 0) * Box(
        slot_w + 2 * p.yoke_wall, slot_len + 2 * p.yoke_wall, p.yoke_h, align=BOTTOM
    )
    yoke -= Pos(-p.crank_r, 0, 0) * Box(slot_w, slot_len, 3 * p.yoke_h)
    y = -finger_y(p)
    fingers_x = [-p.crank_r - p.pitch, -p.crank_r, -p.crank_r + p.pitch]
    length = fingers_x[-1] - fingers_x[0] + p.finger_d + 2 * p.bar_w
    bar = Pos((fingers_x[0] + fingers_x[-1]) / 2, y, p.yoke_h) * Box(
        length, p.bar_w, p.bar_h, align=BOTTOM
    )
    tip = p.z_floor_top + p.finger_hole_depth - 0.5 - p.z_bar
    fingers = [
        Pos(x, y, p.yoke_h + p.bar_h) * Cylinder(p.finger_d / 2, tip - p.bar_h, align=BOTTOM)
        for x in fingers_x
    ]
    part = yoke + bar
    for f in fingers:
        part += f
    return part


def finger_y(p: Params = PARAMS) -> float:
    """How far outside the crank axis the fingers run (the side's frame has y inwards)."""
    return 1.5 * p.pitch + p.finger_offset - p.crank_distance


def cup(p: Params = PARAMS) -> Part:
    """An outer cup: the marble's seat (a through hole: the LED shines up it) and a finger
    hole on each of its four sides, since a cup goes round all four sides."""
    part = Cylinder(p.cup_d / 2, p.cup_h, align=BOTTOM)
    part -= Cylinder(p.seat_d / 2, 3 * p.cup_h)
    for dx, dy in ((1, 0), (0, 1), (-1, 0), (0, -1)):
        part -= Pos(dx * p.finger_offset, dy * p.finger_offset, 0) * Cylinder(
            p.finger_hole_d / 2, p.finger_hole_depth, align=BOTTOM
        )
    return part


def disc(p: Params = PARAMS) -> Part:
    """The inner 2x2 as a disc on the motor shaft: four seats, and a hub clamped on the
    shaft below the face."""
    t = p.face_pocket - p.slide
    part = Cylinder(p.disc_r, t, align=BOTTOM)
    part += Pos(0, 0, -p.hub_len) * Cylinder(p.hub_d / 2, p.hub_len, align=BOTTOM)
    for s in INNER_RING:
        x, y = geo.square_centre(s, p)
        part -= Pos(x, y, 0) * Cylinder(p.seat_d / 2, 3 * t)
    part -= Pos(0, 0, -p.hub_len - 1) * d_shaft(p.shaft_d + p.fit, p.hub_len + 2, p)
    return part


def _inward(square: int, p: Params) -> tuple[float, float]:
    x, y = geo.square_centre(square, p)
    n = math.hypot(x, y)
    return (-x / n, -y / n)


def led_centre(square: int, p: Params = PARAMS) -> tuple[float, float]:
    """Each LED sits beside its square's hall switch, towards the board's centre."""
    x, y = geo.square_centre(square, p)
    ix, iy = _inward(square, p)
    return (x + ix * p.led_offset, y + iy * p.led_offset)


def sensor_pocket_depth(p: Params = PARAMS) -> float:
    return p.face_t - p.face_pocket - p.min_wall - 0.05


def face(p: Params = PARAMS) -> Part:
    """The board's face: the outer ring's channel, the disc's recess, the bars' finger
    slots, and under each square a hall switch's pocket and the LED's light window."""
    w, floor = p.face_w, p.face_t - p.face_pocket
    part = Box(w, w, p.face_t, align=BOTTOM)
    ring = 1.5 * p.pitch
    outer = Box(2 * ring + p.channel_w, 2 * ring + p.channel_w, p.face_pocket, align=BOTTOM)
    inner = Box(2 * ring - p.channel_w, 2 * ring - p.channel_w, p.face_pocket, align=BOTTOM)
    part -= Pos(0, 0, floor) * (outer - inner)
    part -= Pos(0, 0, floor) * Cylinder(p.disc_r + 2 * p.slide, p.face_pocket, align=BOTTOM)
    part -= Cylinder(p.hub_d / 2 + p.slide, 3 * p.face_t)
    slot_w = p.finger_d + 2 * p.slide
    for side in geo.sides():
        ox, oy = side.outward
        # from the first cup's finger at rest to the last one's at the end of its stroke
        ends = []
        for s in side.starts:
            x, y = geo.square_centre(s, p)
            x, y = x + ox * p.finger_offset, y + oy * p.finger_offset
            ends += [(x, y), (x + side.along[0] * p.pitch, y + side.along[1] * p.pitch)]
        ends.sort(key=lambda e: e[0] * side.along[0] + e[1] * side.along[1])
        (x0, y0), (x1, y1) = ends[0], ends[-1]
        angle = math.degrees(math.atan2(y1 - y0, x1 - x0))
        length = math.hypot(x1 - x0, y1 - y0)
        slot = extrude(SlotCenterToCenter(length, slot_w), 3 * p.face_t)
        part -= Location(((x0 + x1) / 2, (y0 + y1) / 2, -p.face_t), (0, 0, angle)) * slot
    depth = sensor_pocket_depth(p)
    for s in SQUARES:
        x, y = geo.square_centre(s, p)
        ix, iy = _inward(s, p)
        angle = math.degrees(math.atan2(iy, ix))
        # the narrow side of the switch faces the light window
        pocket = Box(p.hall_d + 2 * p.fit, p.hall_w + 2 * p.fit, depth, align=BOTTOM)
        part -= Location((x, y, 0), (0, 0, angle)) * pocket
        lx, ly = led_centre(s, p)
        part -= Pos(lx, ly, 0) * Cylinder(p.light_window_d / 2, 3 * p.face_t)
    return part


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
    "motor_mount": motor_mount,
    "central_gear": central_gear,
    "crank_gear": crank_gear,
    "transfer_bar": transfer_bar,
    "cup": cup,
    "disc": disc,
}
"""Every printed part, one STL each, by name."""


# --- the assembly -------------------------------------------------------------------------
def side_location(side: geo.Side, z: float, p: Params = PARAMS) -> Location:
    ax, ay = side.crank_axis(p)
    return Location((ax, ay, z), (0, 0, math.degrees(math.atan2(side.along[1], side.along[0]))))


def assembly(p: Params = PARAMS) -> list[Placed]:
    """Every part of the board at rest, printed and bought."""
    built = {name: make(p) for name, make in PRINTED.items()}
    out = [
        Placed("case", "case", built["case"], True, False, -120),
        Placed("motor_mount", "motor_mount", Pos(0, 0, p.case_floor) * built["motor_mount"], True,
               False, -40),
        Placed("face", "face", Pos(0, 0, p.z_face) * built["face"], True, False, 140),
        Placed("central_gear", "central_gear", Pos(0, 0, p.z_gear) * built["central_gear"], True,
               True, 50),
        Placed("disc", "disc", Pos(0, 0, p.z_floor_top) * built["disc"], True, True, 190),
    ]  # fmt: skip
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        out.append(
            Placed(f"crank_gear_{tag}", "crank_gear",
                   side_location(side, p.z_gear, p) * built["crank_gear"], True, True, 70)
        )  # fmt: skip
        out.append(
            Placed(f"transfer_bar_{tag}", "transfer_bar",
                   side_location(side, p.z_yoke, p) * built["transfer_bar"], True, True, 100)
        )  # fmt: skip
        ax, ay = side.crank_axis(p)
        axle_z = p.z_gear - 0.5 - 15 + 0.5
        out.append(Placed(f"axle_{tag}", "axle",
                          Pos(ax, ay, axle_z) * Cylinder(p.axle_d / 2, p.axle_len, align=BOTTOM),
                          False, False, 35))  # fmt: skip
        bearing = Cylinder(p.bearing_od / 2, p.bearing_w, align=BOTTOM) - Cylinder(
            p.axle_d / 2, 3 * p.bearing_w
        )
        out.append(Placed(f"bearing_{tag}", "bearing", Pos(ax, ay, p.z_gear) * bearing, False,
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
            Pos(ix, iy, p.z_arm - 0.5 - p.hall_t) * Box(p.hall_w, p.hall_d, p.hall_t, align=BOTTOM),
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


def light_path(square: int, p: Params = PARAMS) -> Part:
    """The column of light from a square's LED up to the face: what must stay clear."""
    lx, ly = led_centre(square, p)
    return Pos(lx, ly, p.z_face) * Cylinder(p.light_window_d / 2 - 0.05, p.face_t + 10,
                                            align=BOTTOM)  # fmt: skip
