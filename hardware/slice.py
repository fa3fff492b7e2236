#!/usr/bin/env python3
"""Slice every printed part with PrusaSlicer and record its print time and filament.

    python hardware/slice.py [DIR]   # needs prusa-slicer (Debian: apt-get install prusa-slicer)

Exports every printed part's STL as ``orbito-hw cad build`` does (into DIR, or a temporary
folder), slices each and writes hardware/orbito_cad/make/print_figures.json
(hardware/orbito_cad/make/slicer.py says what it holds); then run ``orbito-hw cad build`` and
copy its BOM.md: the print table reads the figures. Parts whose figures are already fresh
(same geometry, same profile) are not sliced again unless --all is given.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hardware"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("dir", metavar="DIR", nargs="?", help="where to write the STLs")
    ap.add_argument("--all", action="store_true", help="slice every part, fresh or not")
    args = ap.parse_args(argv)
    from orbito_cad.assembly import whole
    from orbito_cad.board.params import PARAMS
    from orbito_cad.make import build, slicer
    from orbito_cad.parts import testprint

    if not slicer.installed():
        print(f"{slicer.SLICER} is not installed: apt-get install prusa-slicer", file=sys.stderr)
        return 2
    data = slicer.load()
    figures = data.setdefault("parts", {})
    data["slicer"] = slicer.version()
    pieces = {name: make(PARAMS) for name, make in whole.PRINTED.items()}
    pieces[build.TEST_PRINT] = testprint.tolerance_test(PARAMS)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(args.dir or tmp)
        out.mkdir(parents=True, exist_ok=True)
        prints = build.export_printed(out, pieces, PARAMS, say=lambda _: None)
        for name, pr in prints.items():
            if not args.all and slicer.fresh(figures.get(name), pr) is not None:
                print(f"{name}: fresh")
                continue
            got = slicer.slice_stl(out / f"{name}.stl", pr.profile, Path(tmp))
            figures[name] = {
                "seconds": got.seconds,
                "grams": got.grams,
                "supports": pr.overhang.supports,
                "stl_sha256": pr.stl_sha256,
                "fingerprint": pr.fingerprint,
                "profile": slicer.sha256(pr.profile),
            }
            print(f"{name}: {slicer.hms(got.seconds)}, {got.grams:.1f} g")
    for stale in set(figures) - set(pieces):
        del figures[stale]
    slicer.FIGURES.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    print(f"wrote {slicer.FIGURES.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
