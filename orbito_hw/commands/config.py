"""``config check|show|example``: the board's config file."""

from __future__ import annotations

import argparse
import sys
from typing import Any, Final

from orbito_hw.lang import N_, _, ngettext

ACTIONS: Final = (
    ("check", N_("check a config file: a summary, or every problem")),
    ("show", N_("print a config file with every default filled in")),
    ("example", N_("print the documented example config")),
)
"""The config command's actions and what each does: its help, and its overview."""


def register(sub: Any) -> None:
    from orbito_hw.app.config import DEFAULT_PATH

    what = dict(ACTIONS)
    p = sub.add_parser("config", help=_("check, show or print an example of the config file"))
    # No action: the command's overview (cmd_overview), not argparse's "the following
    # arguments are required" (issue 36, as ``orbito-hw`` alone).
    p.set_defaults(func=cmd_overview)
    actions = p.add_subparsers(dest="action", parser_class=type(p))
    for name, func in (("check", cmd_check), ("show", cmd_show)):
        q = actions.add_parser(name, help=_(what[name]))
        q.add_argument(
            "--config",
            default=str(DEFAULT_PATH),
            metavar="PATH",
            help=_("default {path}").format(path=DEFAULT_PATH),
        )
        q.set_defaults(func=func)
    q = actions.add_parser("example", help=_(what["example"]))
    q.set_defaults(func=cmd_example)


def cmd_overview(args: argparse.Namespace) -> int:
    """``orbito-hw config`` alone: its actions, one a line, and where their options are."""
    from orbito_hw.commands import PROG

    width = max(len(name) for name, _what in ACTIONS)
    lines = [_("{prog} config: the board's config file.").format(prog=PROG)]
    lines += [f"  {PROG} config {name.ljust(width)}  {_(what)}" for name, what in ACTIONS]
    lines.append(_("One action's options: {prog} config ACTION --help.").format(prog=PROG))
    print("\n".join(lines))
    return 0


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
        n = len(exc.problems)
        problems = ngettext("{n} problem", "{n} problems", n).format(n=n)
        lines = [
            f"{PROG}: " + _("{source}: {problems}:").format(source=exc.source, problems=problems)
        ]
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
