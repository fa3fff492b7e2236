"""The board as one assembly: every printed part by name, and every solid placed at rest.

The printed parts are built in their own frames by ``parts/``: ``drive`` (gears, cranks,
bars), ``track`` (cups, disc, face, centre plate) and ``case``; here they are placed as the
board stands at rest (crank angle 0: each bar half up, its fingers entering the cups it is
about to push), with the axles and bearings of the cranks and the bought parts of
``bought.py`` (simple stand-ins of their datasheet sizes, there to be checked for room and
drawn).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from build123d import Align, Cylinder, Location, Pos

from orbito_cad.assembly.bought import bought
from orbito_cad.assembly.placed import Placed
from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import bar_z
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.parts.case import case, motor_mount
from orbito_cad.parts.drive import central_gear, crank_gear, transfer_bar
from orbito_cad.parts.marble import PRINTED_SENSING
from orbito_cad.parts.track import centre_plate, cup, disc, face
from orbito_hw.rules.squares import OUTER_RING, SQUARE_NAMES

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)


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
