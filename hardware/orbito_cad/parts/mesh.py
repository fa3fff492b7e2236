"""A solid as a mesh, one way for everything that meshes one: the STL files (``make/``),
the print table's overhangs (``make/printing.py``), the swept-solid checks and the
interference check's broad phase (``models/``).

``STL_TOLERANCE`` is how far the facets may stray from the true surface: the STLs are
exported at it and the sweep meshes each solid at it, so what is checked in motion is what
is printed.
"""

from __future__ import annotations

from typing import Any

import manifold3d
import numpy as np

STL_TOLERANCE = 0.02  # mm between the true surface and the STL's facets
STL_ANGULAR = 0.2  # radians


def triangles(solid: Any, tolerance: float = STL_TOLERANCE,
              angular: float = STL_ANGULAR) -> np.ndarray:  # fmt: skip
    """The solid's surface as (n, 3, 3) triangles, outward-facing (as STL exports it)."""
    vertices, faces = solid.tessellate(tolerance, angular)
    v = np.array([(q.X, q.Y, q.Z) for q in vertices], dtype=float)
    return v[np.array(faces, dtype=int)] if faces else np.zeros((0, 3, 3))


def manifold(solid: object, tolerance: float = STL_TOLERANCE) -> manifold3d.Manifold:
    """A build123d solid as a manifold3d solid (its tessellation)."""
    vertices, tris = solid.tessellate(tolerance, STL_ANGULAR)  # type: ignore[attr-defined]
    verts = np.array([(v.X, v.Y, v.Z) for v in vertices], dtype=np.float32)
    faces = np.array(tris, dtype=np.uint32)
    got = manifold3d.Manifold(manifold3d.Mesh(vert_properties=verts, tri_verts=faces))
    if got.status() != manifold3d.Error.NoError:
        merged = manifold3d.Mesh(vert_properties=verts, tri_verts=faces)
        merged.merge()
        got = manifold3d.Manifold(merged)
    return got
