"""The printed marble's design in numbers: where its four magnets sit.

Four discs sit at a tetrahedron's corners, each on its axis from the marble's centre, north
out for black (south for white), under a shell of ``min_wall``: four radial discs cancel each
other's moment and their quadrupole too, so the neighbouring squares' sensors see next to
nothing (``models/magnetics.py`` shows it). The marble's halves and its polarity jig are cut
from these (``parts/marble.py``), the BOM counts the discs: pure Python, no solid.
"""

from __future__ import annotations

import math

from orbito_cad.board.params import PARAMS, Params

_S = 1 / math.sqrt(3)
DISC_AXES: tuple[tuple[float, float, float], ...] = (
    (_S, _S, _S),
    (_S, -_S, -_S),
    (-_S, _S, -_S),
    (-_S, -_S, _S),
)
"""Each disc's axis (a unit vector from the marble's centre): a tetrahedron's corners."""


def magnet_radius(p: Params = PARAMS) -> float:
    """How far each of the printed marble's discs sits from its centre: its pocket's outer
    rim ``min_wall`` inside the sphere, the disc a fit inside its pocket."""
    rim = p.marble_d / 2 - p.min_wall
    pocket = p.marble_magnet_d / 2 + p.fit
    return math.sqrt(rim**2 - pocket**2) - p.fit - p.marble_magnet_h / 2
