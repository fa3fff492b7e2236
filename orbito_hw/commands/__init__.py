"""Subcommands of ``orbito-hw``, one module per area, and what they share.

A command module defines ``register(sub)`` and keeps its imports light: NumPy, the solution
table and hardware libraries are imported inside the handlers.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from typing import NoReturn, TextIO

from orbito_hw.errors import OrbitoError

PROG = "orbito-hw"


class UsageError(Exception):
    """Bad command-line input: reported as one line and exit 2."""


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2, not a usage dump."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def fail(message: str, status: int = 2) -> NoReturn:
    print(f"{PROG}: {message}", file=sys.stderr)
    raise SystemExit(status)


def emit(obj: object, out: TextIO | None = None) -> None:
    print(json.dumps(obj), file=out or sys.stdout, flush=True)


def batch(lines: Iterable[str], run_one: Callable[[str, str], dict[str, object]]) -> None:
    """SPEC.md's --batch: a JSON object per line in, a JSON object per line out; bad lines
    answer ``{"error": ...}`` and the batch goes on."""
    from orbito_hw.rules.game import ReplayError

    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            game = json.loads(line)
            if not isinstance(game, dict):
                raise ValueError("expected a JSON object")
            first, moves = game.get("first"), game.get("moves", "")
            if not isinstance(first, str) or not isinstance(moves, str):
                raise ValueError('expected {"first": "black"|"white", "moves": "TOKENS"}')
            emit(run_one(first, moves))
        except (ReplayError, OrbitoError) as exc:
            emit({"error": str(exc)})
        except ValueError as exc:
            emit({"error": f"line {number}: {exc}"})


def game_command(
    args: argparse.Namespace, name: str, run_one: Callable[[str, str], dict[str, object]]
) -> int:
    """A command on a game record (replay, analyse): ``--batch`` from stdin, or the one game
    of ``--first`` and the moves, whose bad turn is one line and exit 2."""
    from orbito_hw.rules.game import ReplayError

    if args.batch:
        batch(sys.stdin, run_one)
        return 0
    if args.first is None:
        raise UsageError(f"{name} needs --first black|white (or --batch)")
    try:
        emit(run_one(args.first, " ".join(args.moves)))
    except ReplayError as exc:
        fail(str(exc))
    return 0
