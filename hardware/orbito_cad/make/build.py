"""``orbito-hw cad build DIR``: every part's STL and STEP, the renders, layout.json, BOM.md.

Each printed part's STL lies as it prints (``printing``: turned onto its base, supports
computed from the exported mesh), its STEP in the part's own frame; one file per kind of
part (the BOM says how many to print), ``tolerance_test.stl`` (``testprint``), the whole
assembly as ``assembly.step`` and the cable routing as ``cable-routing.svg``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from build123d import Compound, export_step, export_stl

from orbito_cad.assembly import whole
from orbito_cad.assembly.placed import Placed
from orbito_cad.board import layout
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.make import bom, printing, render, routing
from orbito_cad.models import motion
from orbito_cad.parts import testprint
from orbito_cad.parts.mesh import STL_ANGULAR, STL_TOLERANCE
from orbito_hw.hw.facts import BoardFacts

TEST_PRINT = "tolerance_test"  # hardware/tolerance-test.md: printed before the board


def build(out: Path, config: BoardFacts, p: Params = PARAMS,
          say: Callable[[str], None] = print) -> list[Path]:  # fmt: skip
    """Write everything into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    built = {name: make(p) for name, make in whole.PRINTED.items()}
    prints = export_printed(out, {**built, TEST_PRINT: testprint.tolerance_test(p)}, p, say)
    written += [out / f"{name}{suffix}" for name in prints for suffix in (".stl", ".step")]
    placed = whole.assembly(p, built)
    assembly_step = out / "assembly.step"
    export_step(Compound(label="orbito-hw", children=[x.solid for x in placed]), str(assembly_step))
    written.append(assembly_step)
    for name, solid in built.items():
        png = out / f"part-{name}.png"
        render.draw([(solid, name)], png, name.replace("_", " "), size=(4.0, 3.2))
        written.append(png)
    meshes = render.Meshes()  # the assembly tessellated once for its seven pictures
    render.assembled(placed, out / "assembled.png", meshes)
    render.exploded(placed, out / "exploded.png", meshes)
    written += [out / "assembled.png", out / "exploded.png"]
    written += render.steps(placed, out, meshes)
    say("renders: assembled.png, exploded.png, part-*.png, step-*.png")
    (out / "layout.json").write_text(json.dumps(layout.layout(p), indent=1) + "\n")
    (out / "BOM.md").write_text(bom.bom(config, built, p, prints))
    (out / "cable-routing.svg").write_text(routing.svg(config, p))
    written += [out / "layout.json", out / "BOM.md", out / "cable-routing.svg"]
    written += write_motion(out, placed, p, say)
    say(f"layout.json, BOM.md: {len(written)} files in {out}")
    return written


def export_printed(out: Path, pieces: dict[str, Any], p: Params,
                   say: Callable[[str], None] = print) -> dict[str, printing.Print]:  # fmt: skip
    """Each piece's STL as it lies on the bed and its STEP in its own frame, and what the
    print table says of it, by name."""
    prints: dict[str, printing.Print] = {}
    for name, solid in pieces.items():
        angles = (0.0, 0.0, 0.0) if name == TEST_PRINT else printing.orientation(name, solid)
        on_bed = printing.laid(solid, angles)
        stl, step = out / f"{name}.stl", out / f"{name}.step"
        export_stl(on_bed, str(stl), tolerance=STL_TOLERANCE, angular_tolerance=STL_ANGULAR)
        export_step(solid, str(step))
        prints[name] = printing.inspect(name, on_bed, stl, angles, p)
        say(f"{name}: {stl.name}, {step.name}")
    return prints


def write_motion(out: Path, placed: list[Placed], p: Params,
                 say: Callable[[str], None]) -> list[Path]:  # fmt: skip
    """``motion/``: every solid posed at rest and its transforms through one place."""
    files = motion.write(out / "motion", placed, p)
    say(f"motion/: {len(files) - 1} solids at rest, motion.json")
    return files
