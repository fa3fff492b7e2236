"""How each printed part lies on the bed, whether it needs supports, and how it is sliced.

**Orientation**: a part named in ``ORIENTATION`` is turned as the table says; any other lies
on one of its flat faces: of its largest flat faces (those within ``CANDIDATE_SHARE`` of the
largest), the one that leaves the least overhang, the largest on a tie. So a part added to
``parts.PRINTED`` tomorrow gets a sensible orientation with no entry here.

**Supports** are computed from the mesh as exported (``overhangs``): the facets facing down
more steeply than 45 deg from vertical that are not on the bed, grouped into connected
regions. A region narrower than ``BRIDGE`` (its hydraulic diameter, 4 x area / perimeter) is a
hole's roof or a pocket's ceiling, which any printer bridges; the wider ones need support,
and a part whose wide regions add up to more than ``SUPPORT_AREA`` is printed with supports.

The slicer's settings for each part are ``slicer.py``'s.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from orbito_cad.board.params import PARAMS
from orbito_cad.make import slicer
from orbito_cad.models import checks
from orbito_cad.parts.mesh import triangles

OVERHANG_DEG = 45.0  # steeper than this from vertical needs something under it
BRIDGE = 6.0  # mm: overhang regions narrower than this are bridged
SUPPORT_AREA = 20.0  # mm^2 of wider overhang, above which a part is printed with supports
CANDIDATE_SHARE = 0.5  # flat faces at least this share of the largest are tried as its base
BED_Z = 0.01  # mm: a facet this close to the bed lies on it

# name: (x, y, z) rotation in degrees onto the bed, applied in that order; wins over the rule
ORIENTATION: dict[str, tuple[float, float, float]] = {}


def rotation(rx: float, ry: float, rz: float) -> np.ndarray:
    """The rotation about x, then y, then z (degrees), as build123d's ``Rot`` applies it."""
    a, b, c = (math.radians(t) for t in (rx, ry, rz))
    x = np.array([[1, 0, 0], [0, math.cos(a), -math.sin(a)], [0, math.sin(a), math.cos(a)]])
    y = np.array([[math.cos(b), 0, math.sin(b)], [0, 1, 0], [-math.sin(b), 0, math.cos(b)]])
    z = np.array([[math.cos(c), -math.sin(c), 0], [math.sin(c), math.cos(c), 0], [0, 0, 1]])
    return np.asarray(z @ y @ x)


def down_to(normal: np.ndarray) -> tuple[float, float, float]:
    """(x, y, z) rotation angles turning the unit ``normal`` to straight down (-z)."""
    _, ny, nz = normal
    if nz < -1 + 1e-9:
        return (0.0, 0.0, 0.0)
    if nz > 1 - 1e-9:
        return (180.0, 0.0, 0.0)
    # about x to bring the normal into the xz plane, then about y onto -z
    a = math.degrees(math.atan2(ny, nz))
    r = rotation(a, 0, 0) @ normal
    b = math.degrees(math.atan2(r[0], r[2])) + 180.0
    return (a, b, 0.0)


# --- overhangs -----------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Overhang:
    """A mesh's overhangs as it lies: all of them, and those wider than a bridge."""

    area: float  # mm^2, every facet facing down steeper than 45 deg, off the bed
    wide: float  # mm^2 of it in regions wider than BRIDGE
    regions: int  # how many wide regions

    @property
    def supports(self) -> bool:
        return self.wide > SUPPORT_AREA


def overhangs(tris: np.ndarray) -> Overhang:
    """The overhangs of ``tris`` (already turned and lying with its lowest point at z = 0)."""
    if len(tris) == 0:
        return Overhang(0.0, 0.0, 0)
    cross = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    area = np.linalg.norm(cross, axis=1) / 2
    nz = cross[:, 2] / np.maximum(2 * area, 1e-12)
    floor = tris[:, :, 2].min()
    on_bed = tris[:, :, 2].max(axis=1) <= floor + BED_Z
    steep = -math.sin(math.radians(OVERHANG_DEG)) - 1e-6  # a 45 deg chamfer prints
    down = (nz < steep) & ~on_bed & (area > 1e-9)
    idx = np.flatnonzero(down)
    if len(idx) == 0:
        return Overhang(0.0, 0.0, 0)
    sub = tris[idx]
    # facets sharing an edge are one region; an edge used once is the region's boundary
    keys = np.round(sub.reshape(-1, 3), 4)
    _, vid = np.unique(keys, axis=0, return_inverse=True)
    vid = vid.reshape(-1, 3)
    edges = np.sort(np.stack([vid[:, [0, 1]], vid[:, [1, 2]], vid[:, [2, 0]]], axis=1), axis=2)
    flat = edges.reshape(-1, 2)
    owner = np.repeat(np.arange(len(sub)), 3)
    _, eid, counts = np.unique(flat, axis=0, return_inverse=True, return_counts=True)
    eid = eid.reshape(-1)
    order = np.argsort(eid, kind="stable")
    se, so = eid[order], owner[order]
    same = se[1:] == se[:-1]
    label = _components(len(sub), so[1:][same], so[:-1][same])
    n = int(label.max()) + 1
    lengths = _edge_lengths(sub).reshape(-1)  # in the order of ``edges``
    boundary = counts[eid] == 1
    sub_area = area[idx]
    wide, regions = 0.0, 0
    for k in range(n):
        mine = label == k
        a = float(sub_area[mine].sum())
        perimeter = float(lengths[np.repeat(mine, 3) & boundary].sum())
        if perimeter > 0 and 4 * a / perimeter > BRIDGE:
            wide += a
            regions += 1
    return Overhang(float(sub_area.sum()), wide, regions)


def _edge_lengths(tris: np.ndarray) -> np.ndarray:
    return np.asarray(np.linalg.norm(tris - np.roll(tris, -1, axis=1), axis=2))


def _components(n: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Connected components of n nodes joined by the pairs (a, b): labels 0 .. k - 1."""
    label = np.arange(n)
    while True:
        low = np.minimum(label[a], label[b])
        before = label.copy()
        np.minimum.at(label, a, low)
        np.minimum.at(label, b, low)
        label = label[label]  # follow each label to its own: halves the chains
        if np.array_equal(label, before):
            break
    return np.asarray(np.unique(label, return_inverse=True)[1]).reshape(-1)


# --- orientation ---------------------------------------------------------------------------
def lay(tris: np.ndarray, angles: tuple[float, float, float]) -> np.ndarray:
    """``tris`` turned by ``angles`` and set on the bed: lowest point at z = 0, centred."""
    turned = tris @ rotation(*angles).T
    pts = turned.reshape(-1, 3)
    lo, hi = pts.min(axis=0), pts.max(axis=0)
    return np.asarray(turned - np.array([(lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2, lo[2]]))


def flat_faces(solid: Any) -> list[tuple[float, np.ndarray]]:
    """(area, outward unit normal) of each plane of ``solid``'s flat faces, largest first:
    coplanar faces added up (a base may be in several pieces)."""
    from build123d import GeomType

    sums: dict[tuple[float, ...], float] = {}
    for face in solid.faces():
        if face.geom_type != GeomType.PLANE:
            continue
        n, c = face.normal_at(), face.center()
        key = tuple(round(v, 3) + 0.0 for v in (n.X, n.Y, n.Z, n.X * c.X + n.Y * c.Y + n.Z * c.Z))
        sums[key] = sums.get(key, 0.0) + face.area
    out = [(a, np.array(k[:3]) / np.linalg.norm(k[:3])) for k, a in sums.items()]
    return sorted(out, key=lambda t: -t[0])


def orientation(name: str, solid: Any, tris: np.ndarray | None = None) -> tuple[float, ...]:
    """The (x, y, z) rotation that lays ``solid`` (the part ``name``) on the bed."""
    if name in ORIENTATION:
        return ORIENTATION[name]
    tris = triangles(solid) if tris is None else tris
    faces = flat_faces(solid)
    if not faces:
        return (0.0, 0.0, 0.0)
    best: tuple[float, float, tuple[float, float, float]] | None = None
    for area, normal in faces:
        if area < CANDIDATE_SHARE * faces[0][0]:
            break
        angles = down_to(normal)
        laid = lay(tris, angles)
        # a face inside the part (a pocket's floor) cannot be its base
        if base_area(laid) < 0.25 * area:
            continue
        wide = overhangs(laid).wide
        key = (round(wide, 1), -area)
        if best is None or key < best[:2]:
            best = (key[0], key[1], angles)
    return best[2] if best is not None else (0.0, 0.0, 0.0)


def base_area(tris: np.ndarray) -> float:
    """The area of the facets lying on the bed (z = 0) of a laid mesh, in mm^2."""
    cross = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    on = tris[:, :, 2].max(axis=1) <= BED_Z
    return float(np.linalg.norm(cross[on], axis=1).sum() / 2)


def describe(angles: tuple[float, ...]) -> str:
    """An orientation in words for the print table."""
    rx, ry = (round(a) % 360 for a in angles[:2])
    if (rx, ry) == (0, 0):
        return "as modelled"
    if (rx, ry) in ((180, 0), (0, 180)):
        return "upside down"
    return f"turned {rx} deg about x, {ry} deg about y"


# --- the parts as exported ------------------------------------------------------------------
def laid(solid: Any, angles: tuple[float, ...]) -> Any:
    """``solid`` turned by ``angles`` (x, then y, then z) and set on the bed, centred."""
    from build123d import Pos, Rot

    rx, ry, rz = angles
    turned = Rot(0, 0, rz) * (Rot(0, ry, 0) * (Rot(rx, 0, 0) * solid))
    box = turned.bounding_box()
    return Pos(-box.center().X, -box.center().Y, -box.min.Z) * turned


@dataclass(frozen=True, slots=True)
class Print:
    """What the print table says of a part, from its STL as exported."""

    name: str
    angles: tuple[float, ...]
    overhang: Overhang
    base: float  # mm^2 on the bed
    size: tuple[float, float, float]  # as it lies
    fingerprint: str
    stl_sha256: str
    profile: str  # the slicer's config for it


def inspect(name: str, solid_on_bed: Any, stl: Any, angles: tuple[float, ...],
            p: Any = None) -> Print:  # fmt: skip
    """The print facts of part ``name`` from its exported ``stl`` (a path)."""
    tris = checks.read_stl(stl)
    tris = tris - np.array([0.0, 0.0, tris[:, :, 2].min()])
    over = overhangs(tris)
    box = solid_on_bed.bounding_box().size
    return Print(
        name,
        angles,
        over,
        base_area(tris),
        (box.X, box.Y, box.Z),
        slicer.fingerprint(solid_on_bed),
        slicer.sha256(stl.read_bytes()),
        slicer.profile(name, over.supports, p or PARAMS),
    )
