"""Subcommands of ``orbito-hw``, one module per area, and what they share.

A command module defines ``register(sub)`` and keeps its imports light: NumPy, the solution
table and hardware libraries are imported inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import IO, Any, BinaryIO, Final, NoReturn, TextIO

from orbito_hw.errors import OrbitoError
from orbito_hw.lang import R_, _

PROG = "orbito-hw"


class UsageError(OrbitoError, ValueError):
    """Bad command-line input: reported as one line and exit 2, as every OrbitoError is."""


ARGPARSE_REASONS: Final = (
    R_("argument {argument}: {reason}"),
    R_("invalid choice: {value} (choose from {choices})"),
    R_("invalid {kind} value: {value}"),
    R_("expected one argument"),
    R_("expected at most one argument"),
    R_("expected at least one argument"),
    R_("the following arguments are required: {names}"),
    R_("unrecognized arguments: {words}"),
    R_("one of the arguments {names} is required"),
    R_("not allowed with argument {other}"),
    R_("ambiguous option: {option} could match {matches}"),
    R_("ignored explicit argument {value}"),
)
"""argparse's refusals, as its English words them (it asks the system's gettext, which follows
the locale, never ``--lang``): marked as reasons, so that fail() says them in the person's
words, their fields (an option, a value typed) as typed."""


class HelpFormatter(argparse.HelpFormatter):
    """argparse's help with its own words (``usage:``) in the language spoken now, and its
    sections' colon as the language writes it (French puts a space before)."""

    def start_section(self, heading: str | None) -> None:
        if heading:  # argparse adds the colon itself: the language's space goes before it
            heading = _("{title}:").format(title=heading)[:-1]
        super().start_section(heading)

    def add_usage(
        self,
        usage: str | None,
        actions: Iterable[argparse.Action],
        groups: Iterable[argparse._MutuallyExclusiveGroup],
        prefix: str | None = None,
    ) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2, not a usage dump, and whose
    help speaks the language chosen (``--lang``, read before the parser is built): the
    commands' help strings are marked where they are added, argparse's own words here."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", HelpFormatter)
        super().__init__(*args, **kwargs)
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        for action in self._actions:
            if isinstance(action, argparse._HelpAction):
                action.help = _("show this help and exit")

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def fail(message: str, status: int = 2) -> NoReturn:
    """``orbito-hw: MESSAGE`` on stderr, one line whatever the message holds, and exit."""
    from orbito_hw.lang import reworded

    said = reworded(message)  # an English reason (an error's, a rule's) in the person's words
    print(f"{PROG}: {' '.join(said.splitlines())}", file=sys.stderr)
    raise SystemExit(status)


def emit(obj: object, out: TextIO | None = None) -> None:
    print(json.dumps(obj), file=out or sys.stdout, flush=True)


# --- lines from stdin ---------------------------------------------------------------------
MAX_LINE_BYTES: Final = 1 << 20  # a game record is a few hundred bytes; a line is read no further


@dataclass(frozen=True, slots=True)
class InputLine:
    """A line read from stdin, numbered from 1: its text, or why it cannot be read."""

    number: int
    text: str = ""
    problem: str | None = None


def input_lines(stream: IO[str]) -> Iterator[InputLine]:
    """The lines of ``stream`` (stdin), one at a time as they come. They are decoded here,
    not by the locale: strict UTF-8 line by line, a byte-order mark at the very start
    skipped, and a line longer than MAX_LINE_BYTES skipped unheld; such a line comes with
    its problem and the lines after it still come."""
    from orbito_hw.sim.script import BOM, decode_line

    raw: BinaryIO | None = getattr(stream, "buffer", None)
    if raw is None:  # a text stream with no bytes under it (a StringIO): already decoded
        for number, text in enumerate(stream, 1):
            yield InputLine(number, text.removeprefix(BOM) if number == 1 else text)
        return
    for number, data in enumerate(_byte_lines(raw), 1):
        if data is None:
            yield InputLine(number, problem=f"longer than {MAX_LINE_BYTES} bytes")
            continue
        try:
            text = decode_line(data)
        except ValueError as exc:
            yield InputLine(number, problem=str(exc))
            continue
        yield InputLine(number, text.removeprefix(BOM) if number == 1 else text)


def _byte_lines(raw: BinaryIO) -> Iterator[bytes | None]:
    """Each line's bytes, or None for a line too long to hold (the rest of it is skipped)."""
    while line := raw.readline(MAX_LINE_BYTES + 1):
        if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
            yield line
            continue
        while line and not line.endswith(b"\n"):
            line = raw.readline(MAX_LINE_BYTES)
        yield None


# --- game records -------------------------------------------------------------------------
_GAME_LINE: Final = 'expected {"first": "black"|"white", "moves": "TOKENS"}'


def batch(lines: Iterable[InputLine], run_one: Callable[[str, str], dict[str, object]]) -> None:
    """SPEC.md's --batch: a JSON object per line in, a JSON object per line out, each written
    as soon as it is known; a bad line answers ``{"error": ...}`` and the batch goes on."""
    for line in lines:
        if line.problem is None and not line.text.strip():
            continue
        try:
            if line.problem is not None:
                raise ValueError(line.problem)
            answer = run_one(*_game_of(line.text))
        except OrbitoError as exc:  # names the bad turn or position itself
            answer = {"error": str(exc)}
        except ValueError as exc:
            answer = {"error": f"line {line.number}: {exc}"}
        emit(answer)


def _game_of(text: str) -> tuple[str, str]:
    """A batch line's first player and moves; ValueError when it has not both, as strings."""
    try:
        game = json.loads(text)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None
    if not isinstance(game, dict):
        raise ValueError(f"not a JSON object: {_GAME_LINE}")
    missing = [f'"{key}"' for key in ("first", "moves") if key not in game]
    if missing:
        raise ValueError(f"no {' and no '.join(missing)}: {_GAME_LINE}")
    first, moves = game["first"], game["moves"]
    if not isinstance(first, str) or not isinstance(moves, str):
        raise ValueError(f"not strings: {_GAME_LINE}")
    return first, moves


def game_command(
    args: argparse.Namespace, name: str, run_one: Callable[[str, str], dict[str, object]]
) -> int:
    """A command on a game record (replay, analyse): ``--batch`` from stdin, or the one game
    of ``--first`` and the moves, whose bad turn (a ReplayError) is one line and exit 2."""
    if args.batch:
        batch(input_lines(sys.stdin), run_one)
        return 0
    if args.first is None:
        raise UsageError(f"{name} needs --first black|white (or --batch)")
    emit(run_one(args.first, " ".join(args.moves)))
    return 0
