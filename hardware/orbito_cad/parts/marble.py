"""The printed marble and the jig that puts its magnets in with the right pole.

A marble is two identical halves (hardware/marbles.md), each printed flat side down. Four
discs sit at a tetrahedron's corners (board/marble.py), each under a shell of ``min_wall``,
two in each half; each lies at the end of a channel along its axis from the marble's centre,
closed outside and open to the flat face, so a disc goes in from the flat face and the discs,
all north out (or all south), push each other outwards onto the shell. The channels of one
half cross the flat face into the other, so each half is cut by all four: the discs standing
proud of one half key the other, and the halves go together one way round.

The polarity jig is a block with a dish the marble's half sits in and one reference magnet
under the dish, ``min_wall`` below it as a disc is under the marble's shell. A disc dropped
into the pocket over the dish is pulled home with the right pole out and pushed out with the
wrong one (it cannot turn over in its pocket). Print one jig in black with its reference's
south pole up, one in white with its north pole up.
"""

from __future__ import annotations

from build123d import Align, Box, Cylinder, Part, Pos, Rot, Sphere
from scipy.spatial.transform import Rotation  # type: ignore[import-untyped]

from orbito_cad.board.marble import DISC_AXES, magnet_radius
from orbito_cad.board.params import PARAMS, Params

BOTTOM = (Align.CENTER, Align.CENTER, Align.MIN)
JIG_DISH = 3.0  # how deep the marble's half sits in the jig: it stays put while a disc goes in
JIG_MARGIN = 6.0  # the jig's block beyond its dish


def _pocket_d(p: Params) -> float:
    return p.marble_magnet_d + 2 * p.fit


def marble_half(p: Params = PARAMS) -> Part:
    """One half of a marble, flat face on the bed (z = 0), cut by all four discs' channels:
    its own two rise from the flat face, the other half's nick it."""
    r = p.marble_d / 2
    half = Sphere(r) & Pos(0, 0, r) * Box(2 * r, 2 * r, 2 * r)
    reach = magnet_radius(p) + p.marble_magnet_h / 2 + p.fit  # a disc's outer face, and a fit
    for axis in DISC_AXES:
        turn, _ = Rotation.align_vectors([axis], [[0.0, 0.0, 1.0]])
        ax, ay, az = (float(v) for v in turn.as_euler("xyz", degrees=True))
        half -= Rot(ax, ay, az) * Cylinder(_pocket_d(p) / 2, reach, align=BOTTOM)
    return half


def jig_height(p: Params = PARAMS) -> float:
    return 2 * p.min_wall + p.marble_magnet_h + p.fit + JIG_DISH


def polarity_jig(p: Params = PARAMS) -> Part:
    """The block, its dish on top (the marble's half sits in it, the pocket to fill down), the
    reference disc under the dish's bottom in a slot from the side, glued."""
    r = p.marble_d / 2 + p.fit
    height = jig_height(p)
    block = Cylinder(r + JIG_MARGIN, height, align=BOTTOM)
    # the dish: the marble's sphere, sunk JIG_DISH into the top
    block -= Pos(0, 0, height - JIG_DISH + r) * Sphere(r)
    slot_z = p.min_wall
    slot_h = p.marble_magnet_h + p.fit
    slot = Pos(0, 0, slot_z) * Cylinder(_pocket_d(p) / 2, slot_h, align=BOTTOM)
    # out through the block's side, past it (ending on its surface left an edge of no area)
    slot += Pos((r + JIG_MARGIN + 2) / 2, 0, slot_z) * Box(r + JIG_MARGIN + 2, _pocket_d(p),
                                                         slot_h, align=BOTTOM)  # fmt: skip
    return block - slot


PRINTED_SENSING = {"marble_half": marble_half, "polarity_jig": polarity_jig}
"""The sensing's printed parts, by name, for the build to add to its own."""
