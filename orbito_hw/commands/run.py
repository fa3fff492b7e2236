"""``run``: the board controller (``--mock`` for the simulated board)."""

from __future__ import annotations

import argparse
from typing import Any

from . import UsageError


def register(sub: Any) -> None:
    p = sub.add_parser("run", help="run the board controller")
    p.add_argument("--mock", action="store_true", help="use the simulated board")
    p.add_argument("--seed", type=int, default=None, help="random seed for the demo game")
    p.set_defaults(func=cmd_run)


def cmd_run(args: argparse.Namespace) -> int:
    from ..demo import run_demo

    if not args.mock:
        raise UsageError("run without --mock needs a board; use run --mock for the simulated board")
    return run_demo(seed=args.seed)
