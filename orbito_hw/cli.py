"""The ``orbito-hw`` command line.

Every command reports an OrbitoError (bad input, or a part of the board that fails) as
one line on stderr, ``orbito-hw: MESSAGE``, and exit status 2, never a traceback. Heavy
modules (NumPy, the solution table, hardware libraries) are imported inside the command
that needs them, so ``orbito-hw --help`` stays instant.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence
from typing import Final

from orbito_hw import __version__
from orbito_hw.commands import PROG, Parser, UsageError, fail
from orbito_hw.errors import OrbitoError, reader_gone
from orbito_hw.lang import N_, _

# Each module registers its subcommands with ``register(sub)``.
COMMAND_MODULES = [
    "orbito_hw.commands.engine",
    "orbito_hw.commands.run",
    "orbito_hw.commands.config",
    "orbito_hw.commands.solve",
    "orbito_hw.commands.doctor",
    "orbito_hw.commands.firmware",
    "orbito_hw.commands.games",
    "orbito_hw.commands.puzzles",
    "orbito_hw.commands.web",
    "orbito_hw.commands.seat",
    "orbito_hw.commands.cad",
    "orbito_hw.commands.update",
]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description=_("A self-refereeing Orbito board."))
    parser.add_argument(
        "--version",
        action="version",
        version=f"%(prog)s {__version__}",
        help=_("show the program's version and exit"),
    )
    # Not required: ``orbito-hw`` alone prints the overview (``overview``), not a refusal.
    sub = parser.add_subparsers(dest="command", parser_class=Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    _take_lang(parser, top=True)
    return parser


LANG_HELP: Final = N_("the language of the words shown: en or fr (default: the config's, else en)")


def _take_lang(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """``--lang`` before the command or after it (``orbito-hw --lang fr run`` or ``orbito-hw
    run --lang fr``), on every command and subcommand. main() reads it before parsing, so
    even the parser's own refusals are in that language; here it is only accepted."""
    parser.add_argument(
        "--lang", metavar="CODE", help=_(LANG_HELP), default=None if top else argparse.SUPPRESS
    )
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in set(action.choices.values()):
                _take_lang(child)


def choose_language(argv: Sequence[str]) -> None:
    """``--lang CODE`` (or ``--lang=CODE``) anywhere in ``argv``: spoken from now on, and a
    config read later does not change it. An unknown code: a UsageError naming --lang."""
    from orbito_hw.lang import use

    code = None
    for index, word in enumerate(argv):
        if word == "--":
            break
        if word == "--lang" and index + 1 < len(argv):
            code = argv[index + 1]
        elif word.startswith("--lang="):
            code = word.partition("=")[2]
    if code is not None:
        try:
            use(code, pin=True)
        except ValueError as exc:
            raise UsageError(f"--lang: {exc}") from None


# (what to type, what it does): where a newcomer starts; the overview's first lines.
START: Final = (
    ("orbito-hw run --mock", N_("watch a demo game on the simulated board")),
    ("orbito-hw run --mock --interactive", N_("play it at a prompt (type help there)")),
    ("orbito-hw run --mock --web", N_("play it on the board's page, in a browser")),
    ("orbito-hw puzzles", N_("puzzles from the solved game")),
    ("orbito-hw config check", N_("on a board: check its config (then doctor)")),
)


def overview(parser: argparse.ArgumentParser) -> str:
    """``orbito-hw`` alone: where to start, then every command by name (within 80 columns)."""
    import textwrap

    names: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            names = list(action.choices)
    lines = [_("{prog}: a self-refereeing Orbito board ({version}). To start:").format(
        prog=PROG, version=__version__)]  # fmt: skip
    width = max(len(command) for command, _what in START)
    lines += [f"  {command.ljust(width)}  {_(what)}" for command, what in START]
    lines += textwrap.wrap(
        _("Every command: {names}. One command's options: {prog} COMMAND --help.").format(
            names=", ".join(names), prog=PROG
        ),
        80,
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    try:
        choose_language(sys.argv[1:] if argv is None else argv)
        parser = build_parser()
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:  # no command: where to start, exit 0
            print(overview(parser))
            return 0
        status: int = args.func(args)
    except OrbitoError as exc:  # UsageError, the engine's, the config's, the hardware's...
        fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # stdout piped into a reader that has gone (head -1)
        reader_gone(sys.stdout)
        return 0
    return status


if __name__ == "__main__":
    raise SystemExit(main())
