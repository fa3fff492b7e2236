"""``replay`` and ``perft``: the rules engine on the command line."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from orbito_hw.commands import UsageError, game_command
from orbito_hw.errors import ECHO_LIMIT, NotationError, echo
from orbito_hw.lang import _

if TYPE_CHECKING:
    from orbito_hw.rules.game import Position


def register(sub: Any) -> None:
    p = sub.add_parser(
        "replay", help=_("replay a game record and print the final position as JSON")
    )
    p.add_argument("--first", help=_("who moved first: black or white"))
    p.add_argument(
        "--batch", action="store_true", help=_("JSON lines on stdin, one result per line")
    )
    p.add_argument("moves", nargs="*", help=_("turn tokens, e.g. b1 c1-c2:a2"))
    p.set_defaults(func=cmd_replay)

    p = sub.add_parser(
        "perft",
        help=_(
            "count the turn sequences of length N from the empty board "
            "(N up to 9; 0 beyond 21, as no game is longer)"
        ),
    )
    p.add_argument("depth", type=int, metavar="N")
    p.set_defaults(func=cmd_perft)


def replay_record(first: str, moves: str) -> Position:
    """The position after a game record typed or read by a command (replay, analyse).

    The error names a bad colour or token cut to ECHO_LIMIT characters: the rules quote it
    whole, and a batch line may hold megabytes of it."""
    from orbito_hw.rules.game import Colour, ReplayError, replay

    try:
        return replay(Colour.parse(first), moves)
    except NotationError as exc:  # the colour
        if len(exc.text) <= ECHO_LIMIT:
            raise
        reason = exc.reason.replace(repr(exc.text), echo(exc.text))
        raise NotationError(exc.text, reason) from None
    except ReplayError as exc:  # the reason is the turn's own message, which cuts it already
        if len(exc.token) <= ECHO_LIMIT:
            raise
        raise ReplayError(exc.number, echo(exc.token), exc.reason) from None


def replay_one(first: str, moves: str) -> dict[str, object]:
    return replay_record(first, moves).summary()


def cmd_replay(args: argparse.Namespace) -> int:
    return game_command(args, "replay", replay_one)


def cmd_perft(args: argparse.Namespace) -> int:
    from orbito_hw.rules.perft import COUNTED_DEPTH, LONGEST_GAME, perft

    depth: int = args.depth
    if depth < 0:
        raise UsageError(_("perft depth {depth} is negative").format(depth=depth))
    if COUNTED_DEPTH < depth <= LONGEST_GAME:
        # Counted in seconds up to COUNTED_DEPTH; beyond, minutes to hours and gigabytes.
        text = _(
            "perft depth {depth} would take too long: this counts up to {counted} turns "
            "(beyond {longest} the count is 0: no game is longer)"
        )
        raise UsageError(text.format(depth=depth, counted=COUNTED_DEPTH, longest=LONGEST_GAME))
    print(perft(depth))  # 0 at once beyond LONGEST_GAME, however large the depth
    return 0
