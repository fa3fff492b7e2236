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
from typing import IO, BinaryIO, Final, NoReturn, TextIO

from orbito_hw.errors import OrbitoError

PROG = "orbito-hw"


class UsageError(OrbitoError, ValueError):
    """Bad command-line input: reported as one line and exit 2, as every OrbitoError is."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2, not a usage dump."""

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
