"""The gears in mesh, checked in the plane over one tooth (manifold3d cross-sections).

The central gear and a crank gear are set at their centre distance as assembled, and the
central gear is stepped through one tooth's pitch. At each step: the two outlines share no
area at the nominal ratio; the crank gear is turned each way until its teeth touch (bisection
on the shared area), which gives the backlash (the free play, on the crank's pitch circle) and
the crank's angle when driven (its transmission error: how far that angle strays from the
ideal 1:4 over the tooth, at the crank, the output).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import manifold3d

from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import central_phase, crank_phase, pitch_radius, tooth_outline
from orbito_cad.board.params import PARAMS, Params

TOUCH = 1e-6  # mm^2 of shared area that counts as touching


@dataclass(frozen=True)
class Mesh:
    """What one tooth of mesh shows."""

    positions: int
    overlap: float  # the largest shared area at the nominal ratio, mm^2
    backlash: tuple[float, float]  # least and largest free play on the crank's pitch circle, mm
    transmission_error: float  # degrees at the crank, over the tooth, driven forwards


def _outline(teeth: int, p: Params) -> manifold3d.CrossSection:
    return manifold3d.CrossSection([list(tooth_outline(teeth, p))])


def mesh_over_one_tooth(p: Params = PARAMS, positions: int = 40) -> Mesh:
    side = geo.sides()[0]
    ax, ay = side.crank_axis(p)
    side_angle = math.degrees(math.atan2(side.along[1], side.along[0]))
    central = _outline(p.central_teeth, p)
    crank = _outline(p.crank_teeth, p)
    ratio = p.central_teeth / p.crank_teeth
    pitch = 360.0 / p.central_teeth

    def shared(motor: float, crank_extra: float) -> float:
        a = central.rotate(central_phase(p) + motor)
        b = crank.rotate(side_angle + crank_phase(p) - ratio * motor + crank_extra)
        return float((a ^ b.translate((ax, ay))).area())

    def contact(motor: float, sign: float) -> float:
        """How far (degrees) the crank turns by ``sign`` from nominal before touching."""
        lo, hi = 0.0, 360.0 / p.crank_teeth / 2
        for _ in range(40):
            mid = (lo + hi) / 2
            if shared(motor, sign * mid) > TOUCH:
                hi = mid
            else:
                lo = mid
        return lo

    overlaps, plays, driven = [], [], []
    r = pitch_radius(p.crank_teeth, p)
    for i in range(positions):
        motor = pitch * i / positions
        overlaps.append(shared(motor, 0.0))
        ahead, behind = contact(motor, 1.0), contact(motor, -1.0)
        plays.append(math.radians(ahead + behind) * r)
        # the motor turns counter-clockwise, the crank clockwise: driven, the crank's teeth
        # sit against the central gear's, `behind` short of nominal (lagging)
        driven.append(-behind)
    return Mesh(
        positions=positions,
        overlap=max(overlaps),
        backlash=(min(plays), max(plays)),
        transmission_error=max(driven) - min(driven),
    )
