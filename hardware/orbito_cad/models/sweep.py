"""The swept-solid checks: the assembly moved through one place, pose by pose (manifold3d).

At every pose, forwards and back, no two solids share volume unless they touch by design
(``motion.contacts``), and every other pair with a moving part in it keeps ``GAP`` (issue 32:
a cup from every other cup, a moving part from every fixed one; issue 45: a moving part from
every other moving part too, the index magnet from the central gear). The pairs that touch
by design are measured too (``Sweep.contact_gaps``): each must come within ``TOUCH`` at some
pose, or it is no contact. Each solid is meshed once from its B-rep at the STL's tolerance
and moved by its transform; a pair is only measured where the two solids' boxes come within
reach of each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import manifold3d
import numpy as np

from orbito_cad.assembly.placed import Placed
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models.motion import contacts, transforms
from orbito_cad.parts.mesh import manifold

GAP = 0.5  # mm: cup to cup, moving to fixed, moving to moving
TOUCH = 0.05  # mm: a pair that touches by design comes this close at some pose
OVERLAP = 1e-3  # mm^3 of shared volume that is only a meshing error (two faces that touch)
# Gaps are measured up to GAP + MEASURED: beyond that a pair is only known to be clear, and
# the least gaps reported are "at least" that much.
MEASURED = 2.0


def mesh(solid: object, tolerance: float = 0.02) -> manifold3d.Manifold:
    """A build123d solid as a manifold3d solid (its tessellation)."""
    vertices, triangles = solid.tessellate(tolerance, 0.2)  # type: ignore[attr-defined]
    verts = np.array([(v.X, v.Y, v.Z) for v in vertices], dtype=np.float32)
    tris = np.array(triangles, dtype=np.uint32)
    got = manifold3d.Manifold(manifold3d.Mesh(vert_properties=verts, tri_verts=tris))
    if got.status() != manifold3d.Error.NoError:
        merged = manifold3d.Mesh(vert_properties=verts, tri_verts=tris)
        merged.merge()
        got = manifold3d.Manifold(merged)
    return got


@dataclass
class Sweep:
    """What the sweep found: overlaps and gaps below ``GAP``, and the least gaps seen."""

    overlaps: list[tuple[str, str, float, float]] = field(default_factory=list)  # a, b, t, mm^3
    close: list[tuple[str, str, float, float]] = field(default_factory=list)  # a, b, t, mm
    least_cup_gap: float = float("inf")
    least_moving_gap: float = float("inf")
    least_cup_pair: tuple[str, str, float] = ("", "", 0.0)  # a, b, t
    least_moving_pair: tuple[str, str, float] = ("", "", 0.0)
    poses: int = 0
    # each pair that touches by design (one of them moving) and came within reach: its least
    # gap over the poses checked (0 where they meet), measured up to ``TOUCH`` and beyond
    contact_gaps: dict[tuple[str, str], float] = field(default_factory=dict)


def _box(m: manifold3d.Manifold) -> np.ndarray:
    return np.array(m.bounding_box(), dtype=float).reshape(2, 3)


def sweep(
    placed: Sequence[Placed],
    places: Sequence[float],
    p: Params = PARAMS,
    meshes: dict[str, manifold3d.Manifold] | None = None,
    measure: float = MEASURED,
    at: Sequence[int] | None = None,
) -> Sweep:
    """Move the assembly through ``places`` and check every pose. Gaps are measured up to
    ``GAP + measure`` (0 checks the rule alone, fastest; the benchmark measures more).

    ``at``: the indices of the poses to check, every one when None. A sweep checked in parts
    (the tests spread one over several processes) still moves through all of ``places``: a
    cup's place within its fingers' play depends on the way it came."""
    meshes = meshes if meshes is not None else {x.name: manifold(x.solid) for x in placed}
    touching = set(contacts(placed, p))
    moving = {x.name for x in placed if x.moves}
    kind = {x.name: x.part for x in placed}
    moves = transforms(placed, places, p)
    found = Sweep()
    reach = GAP + max(measure, 0.05)
    names = [x.name for x in placed]
    index = {n: i for i, n in enumerate(names)}
    boxes = np.array([_box(meshes[n]) for n in names])  # (n, 2, 3)
    moves_any = np.array([n in moving for n in names])
    for k in range(len(places)) if at is None else at:
        t = places[k]
        posed: dict[str, manifold3d.Manifold] = {}
        for n in moving:
            m = moves[n][k]
            posed[n] = meshes[n].transform(m[:3, :].tolist())
            boxes[index[n]] = _box(posed[n])
        # the broad phase for every pair at once: boxes within reach, one of them moving
        lo, hi = boxes[:, 0, :], boxes[:, 1, :]
        near = ~((lo[:, None, :] > hi[None, :, :] + reach).any(-1)
                 | (lo[None, :, :] > hi[:, None, :] + reach).any(-1))  # fmt: skip
        near &= moves_any[:, None] | moves_any[None, :]
        for i, j in zip(*np.nonzero(np.triu(near, 1)), strict=True):
            a, b = names[i], names[j]
            ma, mb = posed.get(a, meshes[a]), posed.get(b, meshes[b])
            pair = (min(a, b), max(a, b))
            if pair in touching:
                if found.contact_gaps.get(pair, reach) > TOUCH:
                    seen = found.contact_gaps.get(pair, reach)
                    found.contact_gaps[pair] = min(seen, ma.min_gap(mb, reach))
                continue
            both_cups = kind[a] == "cup" and kind[b] == "cup"
            # min_gap is 0 for solids that meet: only then is the shared volume wanted
            gap = ma.min_gap(mb, reach)
            if gap <= 0:
                shared = (ma ^ mb).volume()
                if shared > OVERLAP:
                    found.overlaps.append((pair[0], pair[1], t, shared))
                    continue
            if both_cups and gap < found.least_cup_gap:
                found.least_cup_gap, found.least_cup_pair = gap, (*pair, t)
            elif not both_cups and gap < found.least_moving_gap:
                found.least_moving_gap, found.least_moving_pair = gap, (*pair, t)
            if gap < GAP:
                found.close.append((pair[0], pair[1], t, gap))
        found.poses += 1
    return found


def fixed_contact_gaps(
    placed: Sequence[Placed],
    p: Params = PARAMS,
    meshes: dict[str, manifold3d.Manifold] | None = None,
) -> dict[tuple[str, str], float]:
    """The pairs that touch by design with no moving part in them (a plate on the case, a
    sensor in its pocket): each one's gap at rest, measured up to ``GAP``."""
    meshes = meshes if meshes is not None else {x.name: manifold(x.solid) for x in placed}
    fixed = {x.name for x in placed if not x.moves}
    return {
        (a, b): float(meshes[a].min_gap(meshes[b], GAP))
        for a, b in contacts(placed, p)
        if a in fixed and b in fixed
    }
