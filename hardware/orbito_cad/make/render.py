"""Pictures of the parts with Matplotlib, off screen (no OpenGL, no display needed).

Each solid is tessellated and drawn as flat-shaded triangles; Matplotlib's painter's
algorithm sorts them by depth, which is good enough for pictures of separate parts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # off screen: must come before pyplot is imported

import matplotlib.pyplot as plt
import numpy as np
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from orbito_cad.assembly.placed import Placed

COLOURS = {
    "case": "#b0bec5",
    "face": "#eceff1",
    "motor_mount": "#90a4ae",
    "central_gear": "#ffb300",
    "crank_gear": "#fb8c00",
    "transfer_bar": "#43a047",
    "cup": "#e3f2fd",
    "disc": "#ce93d8",
    "motor": "#424242",
    "bearing": "#9e9e9e",
    "axle": "#757575",
    "marble": "#1e88e5",
    "hall": "#212121",
    "led": "#fdd835",
    "index_magnet": "#c62828",
    "raspberry_pi": "#2e7d32",
    "perfboard": "#8d6e63",
    "small_board": "#6a1b9a",
    "pico": "#388e3c",
    "earlier": "#e0e0e0",
    "button": "#d32f2f",
}
LIGHT = np.array([0.3, -0.5, 0.8]) / np.linalg.norm([0.3, -0.5, 0.8])


def triangles(solid: object, tolerance: float = 0.3) -> np.ndarray:
    """The solid's surface as an (n, 3, 3) array of triangles."""
    vertices, faces = solid.tessellate(tolerance, 0.5)  # type: ignore[attr-defined]
    v = np.array([(p.X, p.Y, p.Z) for p in vertices])
    return finer(v[np.array(faces, dtype=int)]) if faces else np.zeros((0, 3, 3))


def finer(tris: np.ndarray, longest: float = 12.0) -> np.ndarray:
    """Split big triangles in four until no edge is longer than ``longest``: depth sorting
    by centres goes wrong where a wall's two huge triangles meet small parts."""
    while True:
        edges = np.linalg.norm(tris - np.roll(tris, 1, axis=1), axis=2).max(axis=1)
        big = edges > longest
        if not big.any():
            return tris
        t = tris[big]
        a, b, c = t[:, 0], t[:, 1], t[:, 2]
        ab, bc, ca = (a + b) / 2, (b + c) / 2, (c + a) / 2
        split = np.concatenate([np.stack(x, axis=1) for x in
                                ((a, ab, ca), (ab, b, bc), (ca, bc, c), (ab, bc, ca))])  # fmt: skip
        tris = np.concatenate([tris[~big], split])


def shade(tris: np.ndarray, colour: str) -> np.ndarray:
    base = np.array(matplotlib.colors.to_rgb(colour))
    n = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
    n /= np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12)
    light = 0.45 + 0.55 * np.abs(n @ LIGHT)
    rgb = np.clip(base[None, :] * light[:, None], 0, 1)
    return np.concatenate([rgb, np.ones((len(rgb), 1))], axis=1)


class Meshes:
    """Each solid's triangles, made once however many pictures show it: tessellating is
    most of a picture's cost, and the assembly's solids appear in seven of them."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[object, np.ndarray]] = {}

    def of(self, solid: object) -> np.ndarray:
        made = self._made.get(id(solid))
        if made is None or made[0] is not solid:  # kept with its solid: an id is not reused
            made = self._made[id(solid)] = (solid, triangles(solid))
        return made[1]


def draw(
    items: Sequence[tuple[object, str]],
    out: Path,
    title: str,
    view: tuple[float, float] = (32, -60),
    size: tuple[float, float] = (6.4, 4.8),
    meshes: Meshes | None = None,
    raised: Sequence[float] = (),
) -> None:
    """Draw (solid, part kind) pairs into ``out`` (a PNG), each raised by its ``raised`` (mm;
    none when not given)."""
    meshes = meshes or Meshes()
    fig = plt.figure(figsize=size, dpi=100)
    ax = fig.add_subplot(projection="3d")
    every, colours = [], []
    for n, (solid, kind) in enumerate(items):
        tris = meshes.of(solid)
        if n < len(raised) and raised[n]:
            tris = tris + np.array([0.0, 0.0, raised[n]])
        if len(tris):
            every.append(tris)
            colours.append(shade(tris, COLOURS.get(kind, "#bdbdbd")))
    # One collection: Matplotlib sorts by depth within a collection, not across them.
    ax.add_collection3d(
        Poly3DCollection(np.concatenate(every), facecolors=np.concatenate(colours), linewidths=0)
    )
    points = np.concatenate(every).reshape(-1, 3)
    lo, hi = points.min(axis=0), points.max(axis=0)
    centre, span = (lo + hi) / 2, (hi - lo).max() / 2
    ax.set_xlim(centre[0] - span, centre[0] + span)
    ax.set_ylim(centre[1] - span, centre[1] + span)
    ax.set_zlim(centre[2] - span, centre[2] + span)
    ax.set_box_aspect((1, 1, 1))
    ax.view_init(*view)
    ax.set_axis_off()
    ax.set_title(title, fontsize=10)
    fig.tight_layout()
    # tight_layout leaves a do-nothing layout engine behind, for which savefig draws the whole
    # figure once more before drawing it to the file (projecting and sorting every triangle:
    # a third of a picture's time); without an engine the file is the same, drawn once
    fig.set_layout_engine(None)
    fig.savefig(out)
    plt.close(fig)


def assembled(placed: Sequence[Placed], out: Path, meshes: Meshes | None = None) -> None:
    title = "orbito-hw: the board assembled"
    draw([(p.solid, p.part) for p in placed], out, title, meshes=meshes)


def exploded(placed: Sequence[Placed], out: Path, meshes: Meshes | None = None) -> None:
    """The assembly with each part raised by its ``explode``: the triangles moved, not the
    solids (moving a solid copies it whole: minutes for the case)."""
    draw(
        [(p.solid, p.part) for p in placed],
        out,
        "orbito-hw: exploded view",
        view=(18, -60),
        size=(6.4, 7.2),
        meshes=meshes,
        raised=[p.explode for p in placed],
    )


# The assembly guide's steps (hardware/assembly.md): each adds these kinds of part.
STEPS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("the case, Pi, Pico, perfboard, sensors' boards, button, the motor on its mount",
     ("case", "raspberry_pi", "pico", "perfboard", "small_board", "motor", "motor_mount",
      "button")),
    ("axles, index switch, crank gears with bearings, central gear",
     ("axle", "hall_index", "bearing", "crank_gear", "index_magnet", "central_gear")),
    ("the four transfer bars on their crank pins", ("transfer_bar",)),
    ("hall switches and LEDs under the face, the face on its ledge", ("hall", "led", "face")),
    ("the disc on the shaft, the twelve cups, the marbles", ("disc", "cup", "marble")),
)  # fmt: skip


def steps(placed: Sequence[Placed], out: Path, meshes: Meshes | None = None) -> list[Path]:
    """``step-N.png``: the board after each step of the guide, the new parts in colour and
    the earlier ones grey."""
    meshes = meshes or Meshes()
    written = []
    done: set[str] = set()
    for n, (title, kinds) in enumerate(STEPS, 1):
        new = set(kinds) | ({"hall_index"} & set(kinds))
        items = []
        for p in placed:
            kind = "hall_index" if p.name == "hall_index" else p.part
            if kind in new:
                items.append((p.solid, p.part))
            elif kind in done:
                items.append((p.solid, "earlier"))
        path = out / f"step-{n}.png"
        draw(items, path, f"step {n}: {title}", size=(5.6, 4.4), meshes=meshes)
        written.append(path)
        done |= new
    return written
