"""The drive's printed parts: the involute gears, the cranks and the transfer bars (their
figures: ``board/gearing.py``).

One motor turns the central gear (and the inner disc above it); the central gear turns a crank
gear under each side of the outer ring, one crank turn a place. Each crank carries a pin with a
domed collar; a side's transfer bar rides on that collar through its yoke, a channel across
the bar whose walls make the Scotch yoke (the bar goes out one square and back per turn) and
whose ramped ceiling lifts the bar on the way out and lowers it on the way back
(``layout.bar_lift``). The bar's two rails carry two fingers under each of its cups, across
the way the cup goes.

A side's frame: x along the way its bar pushes, y towards the board's centre, z up, the
origin on its crank's axis (a proper rotation of the board's frame, so nothing is mirrored).
"""

from __future__ import annotations

from build123d import (
    Align,
    Axis,
    Box,
    Cone,
    Cylinder,
    Part,
    Plane,
    Polygon,
    Pos,
    Rot,
    chamfer,
    extrude,
)

from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import (
    arm_radius,
    arm_seat_radius,
    central_phase,
    crank_phase,
    finger_tip_z,
    fingers_x,
    index_magnet_z,
    index_radius,
    rails_y,
    tooth_outline,
    yoke_half_width,
)
from orbito_cad.board.params import PARAMS, Params

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


# --- involute gears -------------------------------------------------------------------------
def gear(teeth: int, p: Params = PARAMS, phase: float = 0.0) -> Part:
    """An involute spur gear ``p.gear_t`` thick; ``phase`` (degrees) turns its first tooth
    from the +x axis."""
    outline = tooth_outline(teeth, p)
    return Rot(0, 0, phase) * extrude(Polygon(*outline, align=None), p.gear_t)


def d_shaft(d: float, length: float, p: Params = PARAMS) -> Part:
    """A round shaft of diameter ``d`` with the motor shaft's flat (on +x), from z = 0 up."""
    return Cylinder(d / 2, length, align=BOTTOM) - Pos(d / 2 - p.shaft_flat, -d, -1) * Box(
        d, 2 * d, length + 2, align=(Align.MIN, Align.MIN, Align.MIN)
    )


def clamp_screw(p: Params, z: float, reach: float, opening: int = 1) -> Part:
    """An M3 grub screw's hole and its nut's trap, square to a shaft's flat (+x), at height
    ``z``, the trap open upwards (``opening`` 1) or downwards (-1) for the nut to drop in:
    tightened on the flat, the hub cannot turn on the shaft (a D-bore alone leaves it the
    bore's clearance, +-12 deg at the cranks)."""
    hole = Pos(0, 0, z) * Rot(0, 90, 0) * Cylinder(p.screw_clear_d / 2, reach, align=BOTTOM)
    z_align = Align.MIN if opening > 0 else Align.MAX
    nut = Pos(p.shaft_d / 2 + 1.5, 0, z - opening * p.nut_w / 2) * Box(
        p.nut_t, p.nut_w, 2 * reach, align=(Align.MIN, Align.CENTER, z_align)
    )
    # a flat where the hole leaves the round hub: the screw's end bears square on it
    side = p.screw_clear_d + 2 * p.min_wall
    flat = Pos(reach / 2 - 0.6, 0, z) * Box(reach, 2 * reach, side, align=(
        Align.MIN, Align.CENTER, Align.CENTER))  # fmt: skip
    return hole + nut + flat


def central_gear(p: Params = PARAMS) -> Part:
    """The central gear on the motor's shaft, with a clamped hub under it."""
    body = gear(p.central_teeth, p, phase=central_phase(p))
    boss = Pos(0, 0, p.gear_t) * Cylinder(p.gear_boss_d / 2, p.gear_boss_h, align=BOTTOM)
    part = body + boss
    part -= Pos(0, 0, -1) * d_shaft(p.shaft_d + p.fit, 3 * p.gear_t, p)
    part -= clamp_screw(p, p.gear_t + p.gear_boss_h / 2, p.gear_boss_d)
    return part


def crank_gear(p: Params = PARAMS) -> Part:
    """Gear, crank arm, pin and its domed collar in one print, on a 625ZZ bearing. The pin
    starts at -x (crank angle 0); the arm holds the index magnet under the pin."""
    body = gear(p.crank_teeth, p, phase=crank_phase(p))
    arm = Pos(0, 0, p.gear_t) * Cylinder(arm_radius(p), p.crank_arm_t, align=BOTTOM)
    top = p.gear_t + p.crank_arm_t
    pin = Pos(-p.crank_r, 0, top) * Cylinder(p.crank_pin_d / 2, p.pin_h + 0.5, align=BOTTOM)
    collar = Pos(-p.crank_r, 0, top + p.pin_h) * Cylinder(p.collar_d / 2, p.collar_h, align=BOTTOM)
    collar = chamfer(collar.edges().sort_by(Axis.Z)[-1], geo.COLLAR_CHAMFER)
    part = body + arm + pin + collar
    # the arm stands on its gear only inside the central gear's tips: beyond, its underside
    # clears the central gear's teeth it turns over by a running gap (issue 45 found it flush)
    part -= Pos(0, 0, p.gear_t) * (
        Cylinder(arm_radius(p) + 1, p.running_gap, align=BOTTOM)
        - Cylinder(arm_seat_radius(p), p.running_gap, align=BOTTOM)
    )
    part -= Cylinder((p.bearing_od + p.fit) / 2, p.bearing_w * 2)  # 625ZZ pressed in
    # the axle turns nothing: the bearing carries the gear, the bore keeps a running gap
    part -= Cylinder(p.axle_d / 2 + p.running_gap + 0.1, 40)
    # the index magnet's pocket, from the arm's underside up to the magnet's top and a tenth
    sunk = index_magnet_z(p) - p.z_gear
    part -= Pos(-index_radius(p), 0, p.gear_t - 1) * Cylinder(
        (p.index_magnet_d + p.fit) / 2, sunk - p.gear_t + 1 + p.index_magnet_h + 0.1, align=BOTTOM
    )
    return part


# --- transfer bars ------------------------------------------------------------------------
def transfer_bar(p: Params = PARAMS) -> Part:
    """A side's bar in its own frame: z = 0 is the yoke's track where it carries the bar
    fully up (``layout.ramp_ceiling`` = 0), the yoke at the pin's place at crank angle 0."""
    up = geo.ramp_ceiling  # the track above the collar's top, across the yoke
    half = yoke_half_width(p)
    reach = p.crank_r + p.collar_d / 2 + p.running_gap  # the pin's travel across, and more
    wall_bottom = -p.collar_h - 0.5
    roof_top = p.lift + p.yoke_roof
    x0 = -p.crank_r
    yoke = Pos(x0, 0, wall_bottom) * Box(
        2 * (half + p.yoke_wall), 2 * (reach + p.yoke_wall), roof_top - wall_bottom,
        align=BOTTOM,
    )  # fmt: skip
    # the channel: its ceiling follows the ramp, sampled finely along y
    n = 48
    profile = [(-reach, wall_bottom - 1.0)]
    profile += [
        (-reach + 2 * reach * i / n, up(-reach + 2 * reach * i / n, p)) for i in range(n + 1)
    ]
    profile += [(reach, wall_bottom - 1.0)]
    channel = extrude(Plane.YZ.offset(x0) * Polygon(*profile, align=None), half, both=True)
    yoke -= channel
    part = yoke
    xs = fingers_x(p)
    length = xs[-1] - xs[0] + p.bar_w  # ends within the slots' round ends
    for y in rails_y(p):
        # on the yoke's roof, sunk into it by half a millimetre so the two print as one
        part += Pos((xs[0] + xs[-1]) / 2, y, roof_top - 0.5) * Box(
            length, p.bar_w, p.bar_h + 0.5, align=BOTTOM
        )
    # the fingers: up through the floor's slots into the cups, domed at the tip
    tip = finger_tip_z(p)
    base = roof_top + p.bar_h - 0.5
    for x in xs:
        for y in rails_y(p):
            part += Pos(x, y, base) * finger(tip - base, p)
    return part


def finger(length: float, p: Params = PARAMS) -> Part:
    """One finger standing on z = 0, ``length`` tall: ``finger_d`` round, its tip chamfered
    45 deg by ``finger_chamfer`` (its own lead-in, beside the hole's). The bars' fingers and
    the tolerance test's are this solid."""
    c = p.finger_chamfer
    stem = Cylinder(p.finger_d / 2, length - c, align=BOTTOM)
    cone = Pos(0, 0, length - c) * Cone(p.finger_d / 2, p.finger_d / 2 - c, c, align=BOTTOM)
    return stem + cone
