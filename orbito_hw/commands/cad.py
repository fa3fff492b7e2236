"""``cad build DIR``: the board's mechanics (hardware/orbito_cad) built into DIR.

The model needs the ``cad`` extra (build123d, Matplotlib); the board's own install has
neither, so without it the command says which install is needed, in one line, and exits 2.
"""

from __future__ import annotations

import argparse
import importlib.util
from importlib import resources
from pathlib import Path
from typing import Any

from orbito_hw.commands import fail
from orbito_hw.lang import _

NEEDS = ("build123d", "matplotlib", "numpy", "orbito_cad")
INSTALL = "pip install 'orbito-hw[cad]' (in a checkout: pip install -e '.[cad]')"


def register(sub: Any) -> None:
    p = sub.add_parser("cad", help=_("the board's mechanics: STL, STEP, renders, layout, BOM"))
    actions = p.add_subparsers(dest="action", required=True, parser_class=type(p))
    build = actions.add_parser(
        "build", help=_("build every part (STL, STEP), the renders, layout.json and BOM.md")
    )
    build.add_argument("dir", metavar="DIR", help=_("the folder to write into (made if missing)"))
    build.add_argument(
        "--config", metavar="PATH", help=_("the board's config for the BOM (default: the example)")
    )
    build.set_defaults(func=cmd_build)


def missing() -> list[str]:
    """The modules of the cad extra that cannot be imported here."""
    return [name for name in NEEDS if importlib.util.find_spec(name) is None]


def cmd_build(args: argparse.Namespace) -> int:
    absent = missing()
    if absent:
        fail(
            _("cad build needs {modules}: {install}").format(
                modules=", ".join(absent), install=INSTALL
            )
        )
    from orbito_hw.app.config import EXAMPLE_NAME, load_config

    if args.config is not None:
        config = load_config(args.config)
    else:
        with resources.as_file(resources.files("orbito_hw").joinpath(EXAMPLE_NAME)) as path:
            config = load_config(path)
    out = Path(args.dir)
    if out.exists() and not out.is_dir():
        fail(_("{path}: not a folder").format(path=out))
    from orbito_cad.make.build import build

    build(out, config)
    return 0
