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
    "orbito_hw.commands.cad",
    "orbito_hw.commands.update",
]


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=PROG, description="A self-refereeing Orbito board.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=Parser)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    _take_lang(parser, top=True)
    return parser


LANG_HELP: Final = "the language of the words shown: en or fr (default: the config's, else en)"


def _take_lang(parser: argparse.ArgumentParser, top: bool = False) -> None:
    """``--lang`` before the command or after it (``orbito-hw --lang fr run`` or ``orbito-hw
    run --lang fr``), on every command and subcommand. main() reads it before parsing, so
    even the parser's own refusals are in that language; here it is only accepted."""
    parser.add_argument(
        "--lang", metavar="CODE", help=LANG_HELP, default=None if top else argparse.SUPPRESS
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


def main(argv: Sequence[str] | None = None) -> int:
    try:
        choose_language(sys.argv[1:] if argv is None else argv)
        args = build_parser().parse_args(argv)
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
