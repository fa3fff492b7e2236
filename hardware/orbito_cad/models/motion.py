"""The mechanism's motion as data: every solid's pose through one place, and what touches what.

``poses(K)`` moves the assembly at rest through one place with the model's own kinematics
(``layout``: the cranks, the bars' yokes and ramps, each cup pushed by its fingers with their
play, the disc and the central gear on the motor's shaft): one rigid 4x4 transform per part
and pose, applied to the part as it stands at rest. ``write`` saves it as ``motion/``:
``NAME.stl`` for every solid posed at rest (millimetres, the assembly's frame) and
``motion.json`` (SPEC.md's "The mechanism's motion", docs in hardware/mechanics.md).

``contacts`` names the pairs that touch by design (teeth in mesh, a driver in its cup, a cup
on its floor, a marble in its seat, a bearing in its bore, a part glued or screwed to
another), and only those: each comes within ``sweep.TOUCH`` at some pose (a part pressed
into a printed pocket within that and half the pocket's ``fit``: ``pressed``), and every
other pair with a moving part keeps ``sweep.GAP`` at every pose (``sweep.py`` checks both).
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from orbito_cad.assembly.placed import Placed
from orbito_cad.board import bay
from orbito_cad.board import layout as geo
from orbito_cad.board.gearing import bar_z, index_side
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.parts.mesh import STL_ANGULAR, STL_TOLERANCE
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, parse_square

Matrix = np.ndarray  # 4x4, float


def _rotation_about(x: float, y: float, degrees: float) -> Matrix:
    a = math.radians(degrees)
    c, s = math.cos(a), math.sin(a)
    m = np.eye(4)
    m[:2, :2] = [[c, -s], [s, c]]
    m[:2, 3] = [x - c * x + s * y, y - s * x - c * y]
    return m


def _translation(dx: float, dy: float, dz: float) -> Matrix:
    m = np.eye(4)
    m[:3, 3] = [dx, dy, dz]
    return m


def _tag(name: str) -> str:
    return name.rsplit("_", 1)[-1]


def transforms(
    placed: Sequence[Placed], places: Sequence[float], p: Params = PARAMS
) -> dict[str, list[Matrix]]:
    """Each part's transform from its rest pose at each of ``places`` (fractions of a place
    from rest, in the order the motor goes through them: backwards too)."""
    sides = {SQUARE_NAMES[side.starts[0]]: side for side in geo.sides()}
    index_tag = SQUARE_NAMES[index_side(p).starts[0]]
    rest_z = bar_z(0.0, p)
    cups = {SQUARE_NAMES[s]: geo.cup_path(s, list(places), p) for s in OUTER_RING}
    out: dict[str, list[Matrix]] = {}
    for part in placed:
        name, kind = part.name, part.part
        if not part.moves:
            out[name] = [np.eye(4) for _ in places]
        elif kind in ("central_gear", "disc") or (
            kind == "marble" and parse_square(_tag(name)) in INNER_RING
        ):
            out[name] = [_rotation_about(0, 0, geo.disc_angle(t, p)) for t in places]
        elif kind in ("crank_gear", "bearing") or kind == "index_magnet":
            side = sides[index_tag if kind == "index_magnet" else _tag(name)]
            ax, ay = side.crank_axis(p)
            out[name] = [_rotation_about(ax, ay, -360.0 * t) for t in places]
        elif kind == "transfer_bar":
            side = sides[_tag(name)]
            out[name] = []
            for t in places:
                phi = geo.crank_angle(t)
                u = geo.bar_displacement(phi, p)
                out[name].append(
                    _translation(side.along[0] * u, side.along[1] * u, bar_z(phi, p) - rest_z)
                )
        elif kind in ("cup", "marble"):
            start = _tag(name)
            x0, y0 = geo.square_centre(parse_square(start), p)
            out[name] = [_translation(x - x0, y - y0, 0.0) for x, y in cups[start]]
        else:
            raise ValueError(f"{name}: a moving part the motion does not know")
    return out


def contacts(placed: Sequence[Placed], p: Params = PARAMS) -> list[tuple[str, str]]:
    """The pairs of solids that touch by design."""
    names = {x.name for x in placed}
    by_kind: dict[str, list[str]] = {}
    for x in placed:
        by_kind.setdefault(x.part, []).append(x.name)
    pairs: set[tuple[str, str]] = set()

    def touch(a: str, b: str) -> None:
        if a in names and b in names:
            pairs.add((min(a, b), max(a, b)))

    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        touch(f"crank_gear_{tag}", "central_gear")  # teeth in mesh
        touch(f"crank_gear_{tag}", f"transfer_bar_{tag}")  # the collar in the yoke
        touch(f"crank_gear_{tag}", f"bearing_{tag}")  # the bearing pressed in
        touch(f"bearing_{tag}", f"axle_{tag}")
        touch(f"bearing_{tag}", "case")  # its inner race on the post's top
        touch(f"axle_{tag}", "case")  # the dowel pressed into its post
        # the bar's fingers in the cups it pushes, and in those it rises into at the end
        for s in side.starts:
            touch(f"transfer_bar_{tag}", f"cup_{SQUARE_NAMES[s]}")
            before = next(q for q in OUTER_RING if geo.after(q, 1) == s)
            touch(f"transfer_bar_{tag}", f"cup_{SQUARE_NAMES[before]}")
    touch("index_magnet", f"crank_gear_{SQUARE_NAMES[index_side(p).starts[0]]}")
    for s in OUTER_RING:
        name = SQUARE_NAMES[s]
        touch(f"cup_{name}", "face")  # on its floor, and the centre plate's edge
        touch(f"cup_{name}", "centre_plate")
        touch(f"marble_{name}", f"cup_{name}")  # in its seat
    for s in INNER_RING:
        touch(f"marble_{SQUARE_NAMES[s]}", "disc")
    for s in (*OUTER_RING, *INNER_RING):
        # in its pocket, glued under the floor it reads through: the outer ring's under the
        # face's channel, the inner ring's under the centre plate
        plate = "face" if s in OUTER_RING else "centre_plate"
        touch(f"hall_{SQUARE_NAMES[s]}", plate)
        touch(f"led_{SQUARE_NAMES[s]}", plate)
    for a, b in (
        ("motor", "central_gear"),  # clamped on the shaft
        ("motor", "disc"),
        ("motor", "motor_mount"),  # screwed under it
        ("motor_mount", "case"),
        ("face", "case"),  # on the ledge, screwed
        ("centre_plate", "case"),  # on its posts
        ("hall_index", "case"),
        ("raspberry_pi", "case"),
        ("perfboard", "case"),
        ("button", "case"),
        *((b.key, "case") for b in bay.small_boards(p)),  # on their standoffs
    ):
        touch(a, b)
    return sorted(pairs)


def pressed(placed: Sequence[Placed], p: Params = PARAMS) -> list[tuple[str, str]]:
    """The pairs of ``contacts`` that are a bought part pressed into a printed pocket (a
    bearing in its gear, a dowel in its post, the index magnet in its arm): the pocket is
    drawn ``fit`` over the part, the clearance a printed hole loses, so as drawn the two
    stand ``fit / 2`` apart, and touch once printed."""
    names = {x.name for x in placed}
    out = []
    for side in geo.sides():
        tag = SQUARE_NAMES[side.starts[0]]
        out += [(f"bearing_{tag}", f"crank_gear_{tag}"), (f"axle_{tag}", "case")]
    out.append(("crank_gear_" + SQUARE_NAMES[index_side(p).starts[0]], "index_magnet"))
    return sorted((min(a, b), max(a, b)) for a, b in out if a in names and b in names)


def meshing(placed: Sequence[Placed]) -> list[tuple[str, str]]:
    """The pairs of ``contacts`` that are gears in mesh: the kinematics turn them centred in
    their backlash, each tooth ``backlash / 2`` off the flanks it drives, which the load takes
    up (the crank arm's underside no longer stands flush on the central gear's teeth to make
    the pair touch: issue 45)."""
    names = {x.name for x in placed}
    out = [(f"crank_gear_{SQUARE_NAMES[side.starts[0]]}", "central_gear") for side in geo.sides()]
    return sorted((min(a, b), max(a, b)) for a, b in out if a in names and b in names)


def forward(k: int) -> list[float]:
    """``k`` poses evenly spaced over one place forward, the first at rest, the last at the
    end of the place."""
    return [i / (k - 1) for i in range(k)]


def write(out: Path, placed: Sequence[Placed], p: Params = PARAMS, k: int = 361) -> list[Path]:
    """``out/NAME.stl`` for every solid at rest and ``out/motion.json``."""
    from build123d import export_stl

    out.mkdir(parents=True, exist_ok=True)
    written = []
    for x in placed:
        path = out / f"{x.name}.stl"
        export_stl(x.solid, str(path), tolerance=STL_TOLERANCE, angular_tolerance=STL_ANGULAR)
        written.append(path)
    moves = transforms(placed, forward(k), p)
    data = {
        "steps": k,
        "parts": {
            name: [[round(float(v), 6) for v in m.reshape(-1)] for m in mats]
            for name, mats in moves.items()
        },
        "contacts": [list(pair) for pair in contacts(placed, p)],
    }
    path = out / "motion.json"
    path.write_text(json.dumps(data, separators=(",", ":")) + "\n")
    written.append(path)
    return written
