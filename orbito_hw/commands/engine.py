"""``replay`` and ``perft``: the rules engine on the command line."""

from __future__ import annotations

import argparse
from typing import Any

from orbito_hw.commands import UsageError, game_command


def register(sub: Any) -> None:
    p = sub.add_parser("replay", help="replay a game record and print the final position as JSON")
    p.add_argument("--first", help="who moved first: black or white")
    p.add_argument("--batch", action="store_true", help="JSON lines on stdin, one result per line")
    p.add_argument("moves", nargs="*", help="turn tokens, e.g. b1 c1-c2:a2")
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser("perft", help="count the turn sequences of length N from the empty board")
    p.add_argument("depth", type=int, metavar="N")
    p.set_defaults(func=cmd_perft)


def replay_one(first: str, moves: str) -> dict[str, object]:
    from orbito_hw.rules.game import Colour, replay

    return replay(Colour.parse(first), moves).summary()


def cmd_replay(args: argparse.Namespace) -> int:
    return game_command(args, "replay", replay_one)


def cmd_perft(args: argparse.Namespace) -> int:
    from orbito_hw.rules.perft import perft

    if args.depth < 0:
        raise UsageError(f"perft depth {args.depth} is negative")
    print(perft(args.depth))
    return 0
