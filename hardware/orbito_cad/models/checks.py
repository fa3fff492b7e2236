"""The model's checks, shared by ``orbito-hw cad build`` and the tests.

- ``interferences``: pairs of solids of the assembly that share volume (exactly, with a
  broad phase on rough meshes);
- ``stl_problems``: what is wrong with an STL file as a printer sees it (closed, manifold,
  one piece, fits the bed);
- ``thinnest_wall``: a printed part's thinnest wall, measured from each facet of its surface
  straight inwards to the surface on the other side.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from orbito_cad.assembly.placed import Placed
from orbito_cad.parts.mesh import manifold

TOUCH = 1e-3  # mm^3: parts that only touch (a cup on the floor) share no more than this
# The interference check's broad phase: meshes within ROUGH of the true surfaces (OpenCascade's
# linear deflection) that keep NEAR apart (five times the two meshes' errors together) are
# solids that share no volume.
ROUGH = 0.1  # mm
NEAR = 1.0  # mm
GRAZING = 0.3  # cosine: a facet the inward ray meets at over 72 deg is grazed, not crossed


def _boxes_overlap(a: object, b: object) -> bool:
    return _overlap(a.bounding_box(), b.bounding_box())  # type: ignore[attr-defined]


def _overlap(ba: Any, bb: Any) -> bool:
    return bool(
        ba.min.X < bb.max.X
        and bb.min.X < ba.max.X
        and ba.min.Y < bb.max.Y
        and bb.min.Y < ba.max.Y
        and ba.min.Z < bb.max.Z
        and bb.min.Z < ba.max.Z
    )


def shared_volume(a: object, b: object) -> float:
    if not _boxes_overlap(a, b):
        return 0.0
    common = a & b  # type: ignore[operator]
    return float(sum(s.volume for s in common.solids())) if common is not None else 0.0


class Rough:
    """Each solid's rough mesh (manifold3d, within ``ROUGH`` of its surface), made once
    however many checks ask; None for a solid that does not mesh into a closed solid. And
    each pair's shared volume once measured exactly, kept with the pair: a check of the
    assembly with one solid more (a cup misplaced on purpose) intersects only the new pairs."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[object, Any]] = {}
        self._shared: dict[tuple[int, int], tuple[object, object, float]] = {}

    def shared(self, a: object, b: object) -> float:
        """``shared_volume(a, b)``, measured once for the pair."""
        kept = self._shared.get((id(a), id(b)))
        if kept is None or kept[0] is not a or kept[1] is not b:
            kept = self._shared[(id(a), id(b))] = (a, b, shared_volume(a, b))
        return kept[2]

    def of(self, solid: object) -> Any:
        made = self._made.get(id(solid))
        if made is None or made[0] is not solid:  # kept with its solid: an id is not reused
            import manifold3d

            got = manifold(solid, ROUGH)
            ok = got.status() == manifold3d.Error.NoError and not got.is_empty()
            made = self._made[id(solid)] = (solid, got if ok else None)
        return made[1]


def apart(a: object, b: object, rough: Rough) -> bool:
    """Whether the solids ``a`` and ``b`` are certainly apart: their rough meshes neither
    meet nor come within ``NEAR`` (a mesh within ``ROUGH`` of each surface, far less)."""
    ma, mb = rough.of(a), rough.of(b)
    return ma is not None and mb is not None and bool(ma.min_gap(mb, NEAR) >= NEAR)


def interferences(
    placed: Sequence[Placed], rough: Rough | None = None
) -> list[tuple[str, str, float]]:
    """Every pair of the assembly's solids sharing more than ``TOUCH`` of volume.

    The exact common part (OpenCascade's boolean) is most of the check's time, and most of
    the pairs whose boxes overlap (everything inside the case) are far apart: a pair is only
    intersected exactly when its rough meshes come within ``NEAR`` of each other (or one holds
    the other whole: meshes that do not touch are measured as meeting then)."""
    rough = rough if rough is not None else Rough()
    # each box once (a solid's box is an exact computation, not a field: 89 solids, 3916 pairs)
    boxes = [x.solid.bounding_box() for x in placed]
    out = []
    for i, a in enumerate(placed):
        for j, b in enumerate(placed[i + 1 :], i + 1):
            if not _overlap(boxes[i], boxes[j]) or apart(a.solid, b.solid, rough):
                continue
            v = rough.shared(a.solid, b.solid)
            if v > TOUCH:
                out.append((a.name, b.name, round(v, 3)))
    return out


def read_stl(path: Path) -> np.ndarray:
    """The triangles of a binary or ASCII STL file, (n, 3, 3)."""
    data = path.read_bytes()
    if data[:5] == b"solid" and b"facet" in data[:300]:
        nums = [
            [float(v) for v in line.split()[1:4]]
            for line in data.decode().splitlines()
            if line.strip().startswith("vertex")
        ]
        return np.array(nums).reshape(-1, 3, 3)
    (n,) = struct.unpack_from("<I", data, 80)
    if len(data) != 84 + 50 * n:
        raise ValueError(f"{path}: {len(data)} bytes for {n} triangles")
    rows = np.frombuffer(
        data[84:], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)), ("a", "<u2")])
    )
    return rows["v"].astype(float)


def stl_problems(path: Path, bed: Sequence[float]) -> list[str]:
    """What keeps ``path`` from being one closed, manifold, printable solid on ``bed``."""
    tris = read_stl(path)
    if len(tris) == 0:
        return ["no triangles"]
    problems = []
    verts, index = np.unique(tris.reshape(-1, 3).round(5), axis=0, return_inverse=True)
    faces = index.reshape(-1, 3)
    # a sphere's pole comes out of the tessellation as facets with two corners in one
    # place: no area, no edge of the surface (a slicer drops them too)
    faces = faces[(faces[:, 0] != faces[:, 1]) & (faces[:, 1] != faces[:, 2])
                  & (faces[:, 0] != faces[:, 2])]  # fmt: skip
    # every edge of a closed manifold is used twice, once each way round
    directed = np.concatenate([faces[:, [0, 1]], faces[:, [1, 2]], faces[:, [2, 0]]])
    keys = directed[:, 0] * len(verts) + directed[:, 1]
    rev = directed[:, 1] * len(verts) + directed[:, 0]
    uniq, counts = np.unique(keys, return_counts=True)
    if (counts > 1).any():
        problems.append(f"{int((counts > 1).sum())} edges used twice the same way (not manifold)")
    if not np.isin(rev, uniq).all():
        problems.append(f"{int((~np.isin(rev, uniq)).sum())} edges with one face (not closed)")
    # one piece: the faces joined through their shared vertices
    parent = np.arange(len(verts))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = int(parent[i])
        return i

    for a, b, c in faces:
        ra, rb, rc = root(a), root(b), root(c)
        parent[rb] = ra
        parent[root(rc)] = ra
    pieces = len({root(i) for i in np.unique(faces)})
    if pieces != 1:
        problems.append(f"{pieces} separate pieces")
    # as the file lies: each part is exported the way it is printed
    size = verts.max(axis=0) - verts.min(axis=0)
    if (size > np.array(bed, dtype=float) + 1e-6).any():
        problems.append(f"{size.round(1).tolist()} mm does not fit the bed {list(bed)}")
    # a closed surface wound outwards encloses a positive volume
    volume = np.einsum("ij,ij->i", tris[:, 0], np.cross(tris[:, 1], tris[:, 2])).sum() / 6
    if volume <= 0:
        problems.append(f"encloses {volume:.1f} mm^3: the facets face inwards")
    return problems


def thinnest_wall(tris: np.ndarray, samples: int = 4000, seed: int = 0) -> float:
    """The thinnest wall of a closed mesh: from the centre of (a sample of) its facets,
    straight inwards along the facet's normal, the distance to the surface beyond."""
    rng = np.random.default_rng(seed)
    normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    area = np.linalg.norm(normals, axis=1)
    keep = area > 1e-9
    tris, normals, area = tris[keep], normals[keep], area[keep]
    normals /= area[:, None]
    pick = rng.choice(len(tris), size=min(samples, len(tris)), replace=False, p=area / area.sum())
    # random points inside the picked facets (not their centres alone: long thin facets)
    u, v = rng.random(len(pick)), rng.random(len(pick))
    flip = u + v > 1
    u[flip], v[flip] = 1 - u[flip], 1 - v[flip]
    t0 = tris[pick]
    origins = t0[:, 0] + u[:, None] * (t0[:, 1] - t0[:, 0]) + v[:, None] * (t0[:, 2] - t0[:, 0])
    dirs = -normals[pick]
    best = np.inf
    e1, e2 = tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0]
    for o, d, own in zip(origins, dirs, pick, strict=True):
        # Moeller-Trumbore against every facet at once
        h = np.cross(d, e2)
        a = np.einsum("ij,ij->i", e1, h)
        ok = np.abs(a) > 1e-12
        f = np.where(ok, 1 / np.where(ok, a, 1), 0)
        s = o - tris[:, 0]
        uu = f * np.einsum("ij,ij->i", s, h)
        q = np.cross(s, e1)
        vv = f * (q @ d)
        t = f * np.einsum("ij,ij->i", e2, q)
        # a wall is measured to the surface facing back across it: a ray that only grazes
        # a facet (the chords of a hole's wall, at the hole's rim) is not a wall
        facing = np.abs(normals @ d) > GRAZING
        hit = ok & (uu >= 0) & (vv >= 0) & (uu + vv <= 1) & (t > 1e-4) & facing
        hit[own] = False
        if hit.any():
            best = min(best, float(t[hit].min()))
    return best
