"""``orbito-hw cad build DIR``: every part's STL and STEP, the renders, layout.json, BOM.md.

The printed parts are exported in their own frames (each as it lies on the bed: flat face
down), one file per kind of part (the BOM says how many to print); the whole assembly is
``assembly.step``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from build123d import Compound, export_step, export_stl

from orbito_cad import bom, layout, motion, parts, render
from orbito_cad.params import PARAMS, Params
from orbito_hw.app.config import Config

STL_TOLERANCE = 0.02  # mm between the true surface and the STL's facets
STL_ANGULAR = 0.2  # radians


def build(out: Path, config: Config, p: Params = PARAMS,
          say: Callable[[str], None] = print) -> list[Path]:  # fmt: skip
    """Write everything into ``out``; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    built = {name: make(p) for name, make in parts.PRINTED.items()}
    for name, solid in built.items():
        stl, step = out / f"{name}.stl", out / f"{name}.step"
        export_stl(solid, str(stl), tolerance=STL_TOLERANCE, angular_tolerance=STL_ANGULAR)
        export_step(solid, str(step))
        written += [stl, step]
        say(f"{name}: {stl.name}, {step.name}")
    placed = parts.assembly(p)
    whole = out / "assembly.step"
    export_step(Compound(label="orbito-hw", children=[x.solid for x in placed]), str(whole))
    written.append(whole)
    for name, solid in built.items():
        png = out / f"part-{name}.png"
        render.draw([(solid, name)], png, name.replace("_", " "), size=(4.0, 3.2))
        written.append(png)
    render.assembled(placed, out / "assembled.png")
    render.exploded(placed, out / "exploded.png")
    written += [out / "assembled.png", out / "exploded.png"]
    written += render.steps(placed, out)
    say("renders: assembled.png, exploded.png, part-*.png, step-*.png")
    (out / "layout.json").write_text(json.dumps(layout.layout(p), indent=1) + "\n")
    (out / "BOM.md").write_text(bom.bom(config, built, p))
    written += [out / "layout.json", out / "BOM.md"]
    written += write_motion(out, placed, p, say)
    say(f"layout.json, BOM.md: {len(written)} files in {out}")
    return written


def write_motion(out: Path, placed: list[parts.Placed], p: Params,
                 say: Callable[[str], None]) -> list[Path]:  # fmt: skip
    """``motion/``: every solid posed at rest and its transforms through one place."""
    files = motion.write(out / "motion", placed, p)
    say(f"motion/: {len(files) - 1} solids at rest, motion.json")
    return files
