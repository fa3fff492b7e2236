"""The ``orbito-hw`` command line.

Every command reports bad input as one line on stderr and exit status 2, never a
traceback. Heavy modules (NumPy, the solution table, hardware libraries) are imported
inside the command that needs them, so ``orbito-hw --help`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable, Sequence
from typing import NoReturn, TextIO

from .errors import OrbitoError

PROG = "orbito-hw"


class UsageError(Exception):
    """Bad command-line input: reported as one line and exit 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message)


def fail(message: str, status: int = 2) -> NoReturn:
    print(f"{PROG}: {message}", file=sys.stderr)
    raise SystemExit(status)


def emit(obj: object, out: TextIO | None = None) -> None:
    print(json.dumps(obj), file=out or sys.stdout, flush=True)


# --- replay ------------------------------------------------------------------
def _replay_one(first: str, moves: str) -> dict[str, object]:
    from .game import Colour, replay

    return replay(Colour.parse(first), moves).summary()


def _batch(lines: Iterable[str], run_one: Callable[[str, str], dict[str, object]]) -> None:
    """SPEC.md's --batch: a JSON object per line in, a JSON object per line out."""
    from .game import ReplayError

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
        except ReplayError as exc:
            emit({"error": str(exc)})
        except OrbitoError as exc:
            emit({"error": str(exc)})
        except ValueError as exc:
            emit({"error": f"line {number}: {exc}"})


def cmd_replay(args: argparse.Namespace) -> int:
    from .game import ReplayError

    if args.batch:
        _batch(sys.stdin, _replay_one)
        return 0
    if args.first is None:
        raise UsageError("replay needs --first black|white (or --batch)")
    try:
        emit(_replay_one(args.first, " ".join(args.moves)))
    except ReplayError as exc:
        fail(str(exc))
    return 0


# --- perft -------------------------------------------------------------------
def cmd_perft(args: argparse.Namespace) -> int:
    from .perft import perft

    if args.depth < 0:
        raise UsageError(f"perft depth {args.depth} is negative")
    print(perft(args.depth))
    return 0


# --- run -----------------------------------------------------------------------
def cmd_run(args: argparse.Namespace) -> int:
    from .demo import run_demo

    if not args.mock:
        raise UsageError(
            "run without --mock needs a board; use run --mock to play on the simulated board"
        )
    return run_demo(seed=args.seed)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog=PROG, description="A self-refereeing Orbito board.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    p = sub.add_parser("replay", help="replay a game record and print the final position as JSON")
    p.add_argument("--first", help="who moved first: black or white")
    p.add_argument("--batch", action="store_true", help="JSON lines on stdin, one result per line")
    p.add_argument("moves", nargs="*", help="turn tokens, e.g. b1 c1-c2:a2")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("perft", help="count the turn sequences of length N from the empty board")
    p.add_argument("depth", type=int, metavar="N")
    p.set_defaults(func=cmd_perft)

    p = sub.add_parser("run", help="run the board controller")
    p.add_argument("--mock", action="store_true", help="use the simulated board")
    p.add_argument("--seed", type=int, default=None, help="random seed for the demo game")
    p.set_defaults(func=cmd_run)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        status: int = args.func(args)
    except UsageError as exc:
        fail(str(exc))
    except OrbitoError as exc:
        fail(str(exc))
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0
    return status


if __name__ == "__main__":
    raise SystemExit(main())
