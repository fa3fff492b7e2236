"""Pictures of the board as a maker will hold it, path traced with Mitsuba 3 on the CPU.

``photo(placed, out)`` renders the assembly at rest, seen from where a player sits: the case,
the face and the centre plate in their printed colours, the cups and the disc in natural
PETG, black and white marbles on the squares of a game in play, and the LEDs of the squares
the referee lights glowing through their cups. ``python hardware/render.py`` writes the
pictures into ``hardware/renders/`` (``board.png``, ``board-top.png``).

The renderer is Mitsuba 3's ``scalar_rgb`` variant (pip's ``mitsuba``, in the ``render``
extra): it needs no GPU and no display. The scene is plain: every solid a triangle mesh from
its B-rep at ``TOLERANCE``, a rough plastic per material, an area light over the board and a
sky. A lit LED's light reaches its square through the cup (natural PETG scatters it: the cup
glows); the picture draws that glow as the cup's own emission in the LED's colour, not by
tracing the light through the translucent plastic, which would take a CPU hours.

Import only when rendering: Mitsuba loads in about a second.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from orbito_cad.assembly.placed import Placed

TOLERANCE = 0.05  # mm: the meshes' chordal tolerance (the marbles' and cups' edges show)
VARIANT = "scalar_rgb"

# Each kind of part: its colour (linear RGB) and roughness, as the BOM prints it.
Material = tuple[tuple[float, float, float], float]
MATERIALS: dict[str, Material] = {
    "case": ((0.05, 0.05, 0.055), 0.35),  # dark PETG
    "face": ((0.03, 0.03, 0.035), 0.25),  # dark PETG, its top smooth
    "centre_plate": ((0.03, 0.03, 0.035), 0.25),
    "cup": ((0.75, 0.72, 0.66), 0.3),  # natural PETG, milky
    "disc": ((0.75, 0.72, 0.66), 0.3),
    "button": ((0.6, 0.02, 0.02), 0.2),
    "black": ((0.012, 0.012, 0.014), 0.08),  # a glossy black marble
    "white": ((0.85, 0.85, 0.83), 0.08),
}
GLOW = 2.5  # a lit cup's radiance, in the LED's colour, against the key light's 9
# The pieces a player sees; the drive and the electronics are under the face.
SEEN = ("case", "face", "centre_plate", "cup", "disc", "button", "marble")


@dataclass(frozen=True, slots=True)
class View:
    """A camera: where it stands and what it looks at (mm, the board's frame), its field
    of view (degrees) and the picture's size (pixels)."""

    name: str
    origin: tuple[float, float, float]
    target: tuple[float, float, float] = (0.0, 0.0, 60.0)
    fov: float = 32.0
    size: tuple[int, int] = (1600, 1200)


VIEWS = (
    View("board", (0.0, -360.0, 330.0), target=(0.0, 0.0, 50.0)),
    View("board-top", (0.0, -1.0, 520.0), fov=30.0, size=(1600, 1600)),
)

# A game in play (square name: colour) and the LEDs lit (square name: linear RGB): the last
# turn's marble and the rings' move shown, as the referee lights them.
POSITION: dict[str, str] = {
    "a4": "black", "b3": "white", "b2": "black", "c3": "white", "c2": "black",
    "d1": "white", "a1": "white", "d4": "black", "c1": "black", "b4": "white",
}  # fmt: skip
LIT: dict[str, tuple[float, float, float]] = {
    "d3": (0.05, 0.8, 1.0),  # the marble just placed, cyan
    "b1": (1.0, 0.35, 0.02),  # a hint, orange
    "d2": (1.0, 0.35, 0.02),
}


def _ply(path: Path, tris: np.ndarray) -> None:
    """A binary PLY of the triangles ``tris`` (n, 3, 3), in metres."""
    verts = (tris.reshape(-1, 3) / 1000.0).astype("<f4")
    n = len(tris)
    header = (
        "ply\nformat binary_little_endian 1.0\n"
        f"element vertex {len(verts)}\nproperty float x\nproperty float y\nproperty float z\n"
        f"element face {n}\nproperty list uchar int vertex_indices\nend_header\n"
    )
    faces = np.empty(n, dtype=[("k", "u1"), ("i", "<i4", 3)])
    faces["k"] = 3
    faces["i"] = np.arange(3 * n, dtype="<i4").reshape(n, 3)
    path.write_bytes(header.encode() + verts.tobytes() + faces.tobytes())


def triangles(solid: Any, tolerance: float = TOLERANCE) -> np.ndarray:
    vertices, faces = solid.tessellate(tolerance, 0.2)
    v = np.array([(p.X, p.Y, p.Z) for p in vertices], dtype=float)
    return v[np.array(faces, dtype=int)] if faces else np.zeros((0, 3, 3))


def _bsdf(material: Material) -> dict[str, Any]:
    colour, roughness = material
    return {
        "type": "roughplastic",
        "distribution": "ggx",
        "alpha": roughness,
        "diffuse_reflectance": {"type": "rgb", "value": list(colour)},
    }


def _square(name: str) -> str:
    return name.rsplit("_", 1)[-1]


def scene(placed: Sequence[Placed], work: Path, view: View, spp: int,
          position: Mapping[str, str] = POSITION,
          lit: Mapping[str, tuple[float, float, float]] = LIT) -> dict[str, Any]:  # fmt: skip
    """The Mitsuba scene's dictionary: the meshes written into ``work``."""
    import mitsuba as mi

    mi.set_variant(VARIANT)
    shapes: dict[str, Any] = {}
    for x in placed:
        if x.part not in SEEN:
            continue
        if x.part == "marble":
            colour = position.get(_square(x.name))
            if colour is None:
                continue  # an empty square
            material = MATERIALS[colour]
        else:
            material = MATERIALS[x.part]
        path = work / f"{x.name}.ply"
        _ply(path, triangles(x.solid))
        shape: dict[str, Any] = {"type": "ply", "filename": str(path), "bsdf": _bsdf(material)}
        if x.part == "cup" and _square(x.name) in lit:
            r, g, b = lit[_square(x.name)]
            glow = [GLOW * c for c in (r, g, b)]
            shape["emitter"] = {"type": "area", "radiance": {"type": "rgb", "value": glow}}
        shapes[x.name] = shape
    width, height = view.size
    m = 1 / 1000.0
    return {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 6},
        "sensor": {
            "type": "perspective",
            "fov": view.fov,
            "fov_axis": "x",
            "to_world": _look_at(view, m),
            "sampler": {"type": "ldsampler", "sample_count": spp},
            "film": {
                "type": "hdrfilm",
                "width": width,
                "height": height,
                "rfilter": {"type": "gaussian"},
            },
        },
        "sky": {"type": "constant", "radiance": {"type": "rgb", "value": [0.35, 0.37, 0.4]}},
        "key": {
            "type": "rectangle",
            "to_world": _key_light(m),
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [9.0, 8.7, 8.2]}},
        },
        "table": {
            "type": "rectangle",
            "to_world": _table(m),
            "bsdf": _bsdf(((0.45, 0.42, 0.38), 0.6)),
        },
        **shapes,
    }


def _look_at(view: View, m: float) -> Any:
    import mitsuba as mi

    return mi.ScalarTransform4f().look_at(
        origin=[v * m for v in view.origin], target=[v * m for v in view.target], up=[0, 0, 1]
    )


def _key_light(m: float) -> Any:
    import mitsuba as mi

    return (
        mi.ScalarTransform4f()
        .look_at(origin=[-250 * m, -200 * m, 600 * m], target=[0, 0, 0], up=[0, 0, 1])
        .scale([180 * m, 180 * m, 1.0])
    )


def _table(m: float) -> Any:
    import mitsuba as mi

    return mi.ScalarTransform4f().scale([2.0, 2.0, 1.0]).translate([0, 0, -0.01 * m])


def render(placed: Sequence[Placed], work: Path, view: View, spp: int = 64) -> np.ndarray:
    """``view`` of ``placed`` as traced: an (height, width, 3) array of sRGB bytes."""
    import mitsuba as mi

    mi.set_variant(VARIANT)
    mi.set_log_level(mi.LogLevel.Error)  # a mesh's few degenerate facets are no news
    image = mi.render(mi.load_dict(scene(placed, work, view, spp)))
    bitmap = mi.Bitmap(image).convert(
        mi.Bitmap.PixelFormat.RGB, mi.Struct.Type.UInt8, srgb_gamma=True
    )
    rgb: np.ndarray = np.asarray(bitmap, dtype=np.uint8)
    return rgb


def photo(placed: Sequence[Placed], out: Path, work: Path, view: View, spp: int = 64) -> Path:
    """Render ``view`` of ``placed`` into ``out`` (a PNG, sRGB, filtered and its colours
    quantised to a palette: a few hundred kilobytes)."""
    from PIL import Image, ImageFilter

    rgb = render(placed, work, view, spp)
    # a 3 x 3 median takes the path tracer's grain off the flat plastic (and the file's
    # size down with it) and keeps the parts' edges
    picture = Image.fromarray(rgb, "RGB").filter(ImageFilter.MedianFilter(3))
    picture.quantize(colors=64, method=Image.Quantize.MEDIANCUT, dither=Image.Dither.NONE).save(
        out, optimize=True
    )
    return out
