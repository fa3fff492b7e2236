"""The swept-solid checks: the assembly moved through one place, pose by pose (manifold3d).

At every pose, forwards and back, no two solids share volume unless they touch by design
(``motion.contacts``), and every other pair with a moving part in it keeps ``GAP`` (issue 32:
a cup from every other cup, a moving part from every fixed one; issue 45: a moving part from
every other moving part too, the index magnet from the central gear). The pairs that touch
by design are measured too (``Sweep.contact_gaps``): each must come within ``TOUCH`` at some
pose, or it is no contact. Each solid is meshed once from its B-rep at the STL's tolerance
and moved by its transform; a pair is only measured where the two solids' boxes come within
reach of each other.

Checking the rule alone (``measure`` 0), a pair found well apart is not measured again while it
cannot have closed the gap: no point of a rigid solid moves further between two poses than the
corners of its box at rest do (the move is affine in the point, so its largest is at a corner
of any box round the solid), so two solids ``g`` apart at one pose are at least ``g`` less both
solids' largest moves apart at the next ones, and ``GAP`` apart as long as that stays above it.
What the sweep finds is the same, at every pose; only the far pairs' measuring is saved.
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
# Checking the rule alone, each pair is measured up to GAP + FAR: far enough to be certified
# clear for a stretch of poses (a cup moves 0.11 mm a pose).
FAR = 2.0
NEAR = 0.25  # a pair measured nearer than GAP + NEAR is measured up to GAP + 0.05 next time


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
    measured: int = 0  # the pairs measured, over all the poses
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
    certify = measure <= 0
    reach = GAP + max(measure, 0.05)
    tight: set[tuple[str, str]] = set()  # checking the rule alone: pairs measured near it
    names = [x.name for x in placed]
    index = {n: i for i, n in enumerate(names)}
    boxes = np.array([_box(meshes[n]) for n in names])  # (n, 2, 3)
    moves_any = np.array([n in moving for n in names])
    corners = _corners(names, boxes, moves, len(places))  # (n, poses, 8, 3)
    clear_to: dict[tuple[str, str], tuple[int, int]] = {}  # pair: certified from, through
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
            if certify and (span := clear_to.get(pair)) and span[0] <= k <= span[1]:
                continue
            # min_gap is 0 for solids that meet: only then is the shared volume wanted; a pair
            # near the rule is measured no further than it needs (it cannot be certified for
            # long), any other far enough to be
            far = certify and pair not in tight
            limit = GAP + FAR if far else reach
            gap = ma.min_gap(mb, limit)
            found.measured += 1
            if certify:
                if gap < min(GAP + NEAR, limit):
                    tight.add(pair)
                else:
                    tight.discard(pair)
                if far and gap > GAP:
                    clear_to[pair] = (k, k + _poses_clear(corners[i], corners[j], k, gap - GAP))
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


def _corners(
    names: list[str], boxes: np.ndarray, moves: dict[str, list[np.ndarray]], poses: int
) -> np.ndarray:
    """The corners of each solid's box at rest, moved to each pose: (solids, poses, 8, 3)."""
    out = np.empty((len(names), poses, 8, 3))
    for i, n in enumerate(names):
        lo, hi = boxes[i]
        c = np.array([[x, y, z, 1.0] for x in (lo[0], hi[0]) for y in (lo[1], hi[1])
                      for z in (lo[2], hi[2])])  # fmt: skip
        out[i] = np.einsum("pij,cj->pci", np.array(moves[n])[:, :3, :], c)
    return out


def _poses_clear(a: np.ndarray, b: np.ndarray, k: int, slack: float) -> int:
    """How many poses after ``k`` two solids ``slack`` more than GAP apart at ``k`` stay GAP
    apart: while the largest moves of their boxes' corners since ``k`` add up to less."""
    moved = (np.linalg.norm(a[k + 1 :] - a[k], axis=-1).max(-1)
             + np.linalg.norm(b[k + 1 :] - b[k], axis=-1).max(-1))  # fmt: skip
    over = np.flatnonzero(np.maximum.accumulate(moved) >= slack)
    return int(over[0]) if len(over) else len(moved)


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
