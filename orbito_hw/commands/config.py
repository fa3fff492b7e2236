"""``config check|show|example``: the board's config file."""

from __future__ import annotations

import argparse
import sys
from typing import Any


def register(sub: Any) -> None:
    from orbito_hw.app.config import DEFAULT_PATH

    p = sub.add_parser("config", help="check, show or print an example of the config file")
    actions = p.add_subparsers(dest="action", required=True, parser_class=type(p))
    for name, func, text in (
        ("check", cmd_check, "check a config file; print a summary, or every problem"),
        ("show", cmd_show, "print a config file with every default filled in"),
    ):
        q = actions.add_parser(name, help=text)
        q.add_argument(
            "--config", default=str(DEFAULT_PATH), metavar="PATH", help=f"default {DEFAULT_PATH}"
        )
        q.set_defaults(func=func)
    q = actions.add_parser("example", help="print the documented example config")
    q.set_defaults(func=cmd_example)


def cmd_check(args: argparse.Namespace) -> int:
    """A summary; or each problem on a line of its own (one alone: one line), exit 2."""
    from orbito_hw.app.config import load_config
    from orbito_hw.commands import PROG
    from orbito_hw.errors import ConfigError

    try:
        config = load_config(args.config)
    except ConfigError as exc:
        if len(exc.problems) < 2:
            raise
        lines = [f"{PROG}: {exc.source}: {len(exc.problems)} problems:"]
        lines += [f"  {' '.join(problem.splitlines())}" for problem in exc.problems]
        print("\n".join(lines), file=sys.stderr)
        return 2
    print(config.summary())
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from orbito_hw.app.config import load_config, to_toml

    sys.stdout.write(to_toml(load_config(args.config)))
    return 0


def cmd_example(args: argparse.Namespace) -> int:
    from orbito_hw.app.config import example_text

    sys.stdout.write(example_text())
    return 0
