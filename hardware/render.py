#!/usr/bin/env python3
"""Render the board as built into hardware/renders/ with Mitsuba 3 (CPU, ``scalar_rgb``).

    python hardware/render.py [--spp N] [--out DIR] [--scale F]   # needs the [render] extra

Builds the assembly from params (as ``orbito-hw cad build`` does) and writes one PNG per view
of ``orbito_cad.make.photo.VIEWS``: the board seen from a player's seat and from above, black
and white marbles of a game in play, the LEDs of the squares the referee lights glowing.
"""

from __future__ import annotations

import argparse
import dataclasses
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "hardware"))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--spp", type=int, default=64, help="samples per pixel (64)")
    ap.add_argument("--out", type=Path, default=ROOT / "hardware" / "renders")
    ap.add_argument("--scale", type=float, default=1.0, help="the pictures' size, times (1)")
    args = ap.parse_args(argv)
    try:
        import mitsuba  # noqa: F401
    except ImportError:
        print("Mitsuba 3 is not installed: pip install -e '.[render]'", file=sys.stderr)
        return 2
    from orbito_cad.assembly import whole
    from orbito_cad.make import photo

    placed = whole.assembly()
    args.out.mkdir(parents=True, exist_ok=True)
    for view in photo.VIEWS:
        w, h = view.size
        view = dataclasses.replace(view, size=(round(w * args.scale), round(h * args.scale)))
        start = time.monotonic()
        with tempfile.TemporaryDirectory() as work:
            out = photo.photo(placed, args.out / f"{view.name}.png", Path(work), view, args.spp)
        size = out.stat().st_size // 1000
        print(f"{out}: {view.size[0]} x {view.size[1]}, {args.spp} spp, "
              f"{time.monotonic() - start:.0f} s, {size} kB")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
