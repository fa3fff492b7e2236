"""``games``: the game archive on the command line (SPEC.md's "Game archive").

``list``, ``show ID``, ``review ID``, ``export`` and ``stats``, each reading the archive in
``--state-dir`` (by default the config's state directory). With ``--json`` they print
SPEC.md's JSON lines (``export`` always does); without, tables a person reads, and ``show``
draws the game's last position as the demo draws the board.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orbito_hw.commands import Parser, UsageError, emit
from orbito_hw.errors import echo
from orbito_hw.rules.words import counted

if TYPE_CHECKING:
    from orbito_hw.archive.store import Archive, GameRow
    from orbito_hw.hw.interfaces import RGB
    from orbito_hw.solver.review import Review


def register(sub: Any) -> None:
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help="JSON lines (SPEC.md)")
    common.add_argument(
        "--state-dir", metavar="DIR", help="where the archive lives (default: the config's)"
    )
    common.add_argument(
        "--config", metavar="PATH", help="the board's config, for its state directory"
    )
    p = sub.add_parser("games", help="the game archive: list, show, review, export, stats")
    games = p.add_subparsers(
        dest="games_command",
        metavar="list|show|review|resume|export|stats",
        required=True,
        parser_class=Parser,
    )
    games.add_parser("list", parents=[common], help="every game, oldest first").set_defaults(
        func=cmd_list
    )
    for name, func, what in (
        ("show", cmd_show, "a game's turns, refusals and last position"),
        (
            "review",
            cmd_review,
            "each turn against perfect play: the mistakes, where it was decided",
        ),
    ):
        q = games.add_parser(name, parents=[common], help=what)
        q.add_argument("id", metavar="ID", help="the game's id (games list)")
        q.set_defaults(func=func)
    q = games.add_parser(
        "resume", parents=[common], help="set an archived game up on the board to play on"
    )
    q.add_argument("id", metavar="ID", help="the game's id (games list), or current: set "
                   "the game on the board up again")  # fmt: skip
    q.add_argument("--at", metavar="N", help="after its turn N (default: all its turns)")
    q.set_defaults(func=_resume)
    games.add_parser(
        "export", parents=[common], help="one JSON line per game, which replay --batch reads"
    ).set_defaults(func=cmd_export)
    games.add_parser(
        "stats", parents=[common], help="results per player, games per day, the longest game"
    ).set_defaults(func=cmd_stats)


# --- finding the archive and the game -----------------------------------------------------
def state_dir(args: argparse.Namespace) -> Path:
    """``--state-dir``, else the config's (``--config``, the board's config if there is
    one, else the config's default)."""
    from orbito_hw.app.config import DEFAULT_PATH, BoardConfig, load_config

    if args.state_dir:
        return Path(args.state_dir)
    if args.config or DEFAULT_PATH.exists():
        return load_config(args.config or DEFAULT_PATH).board.state_dir
    return BoardConfig().state_dir


@contextlib.contextmanager
def _archive(args: argparse.Namespace) -> Iterator[Archive]:
    """The archive, read only; whatever a damaged file makes its reads raise is one line
    naming the file (exit 2), and the file is left as it is."""
    from orbito_hw.archive.store import Archive, damage_told

    with Archive.read(state_dir(args)) as archive, damage_told(archive.path):
        yield archive


def _game(archive: Archive, text: str) -> GameRow:
    from orbito_hw.archive.store import GAME_ID_DIGITS, NoSuchGameError

    if not text.isascii() or not text.isdigit():
        raise UsageError(f"game id {echo(text)} is not a number (see `orbito-hw games list`)")
    if len(text.lstrip("0")) > GAME_ID_DIGITS:
        raise NoSuchGameError(f"no game {echo(text)} in the archive {archive.path}")
    game = archive.game(int(text))
    if game is None:
        raise NoSuchGameError(f"no game {int(text)} in the archive {archive.path}")
    return game


def _moves(archive: Archive, game: GameRow) -> list[str]:
    return [t.turn for t in archive.turns(game.id)]


def _resume(args: argparse.Namespace) -> int:
    from orbito_hw.commands.resume import cmd_resume

    return cmd_resume(args, state_dir(args))


# --- list ---------------------------------------------------------------------------------
def cmd_list(args: argparse.Namespace) -> int:
    with _archive(args) as archive:
        games = archive.games()
    if args.json:
        _lines(_json_line(game.as_json()) for game in games)
        return 0
    rows = [
        [
            str(g.id),
            _when(g.started),
            _when(g.ended) if g.ended else "-",
            g.first,
            g.black,
            g.white,
            _outcome(g),
            str(g.turns),
        ]
        for g in games
    ]
    header = ["id", "started", "ended", "first", "black", "white", "result", "turns"]
    _lines(_table(header, rows) if rows else ["no games in the archive yet"])
    return 0


def _outcome(game: GameRow) -> str:
    if game.result is not None:
        return "draw" if game.result == "draw" else f"{game.result} won"
    return "unfinished" if game.ended else "in progress"


def _when(stamp: str) -> str:
    return stamp.replace("T", " ")


# --- show ---------------------------------------------------------------------------------
def cmd_show(args: argparse.Namespace) -> int:
    with _archive(args) as archive:
        game = _game(archive, args.id)
        turns, gone = archive.turns(game.id), archive.turns(game.id, standing=False)
        refusals = archive.refusals(game.id)
    moves = " ".join(t.turn for t in turns)
    if args.json:
        emit(
            {
                "id": game.id,
                "first": game.first,
                "moves": moves,
                "result": game.result,
                "lines": game.lines,
                "turns": [t.as_json() for t in turns],
                # beyond SPEC.md's keys (readers ignore those they do not know):
                "started": game.started,
                "ended": game.ended,
                "black": game.black,
                "white": game.white,
                "taken_back": [t.as_json() for t in gone],
                "refusals": refusals,
            }
        )
        return 0
    out = [
        f"game {game.id}: {game.black} (black) against {game.white} (white), {game.first} first",
        f"started {_when(game.started)}, "
        + (f"ended {_when(game.ended)}" if game.ended else "not ended")
        + f": {_outcome(game)}",
        "",
    ]
    rows = [[str(t.number), t.colour, t.turn, _when(t.at)] for t in turns]
    out += _table(["turn", "colour", "played", "at"], rows) if rows else ["no turns"]
    if gone:
        out += ["", "taken back:"]
        out += [f"  turn {t.number} {t.colour} {t.turn} at {_when(t.at)}" for t in gone]
    if refusals:
        out += ["", "refused:"]
        out += [f"  {_when(str(r['at']))}: {r['reason']}" for r in refusals]
    out += ["", _drawn(game, [t.turn for t in turns])]
    _lines(out)
    return 0


def _drawn(game: GameRow, moves: list[str]) -> str:
    """The last position as the demo draws the board, the result lit as the LEDs show it."""
    from orbito_hw.control.lights import Palette, result_frame
    from orbito_hw.rules.game import Colour, ReplayError, replay
    from orbito_hw.sim.demo import draw

    try:
        position = replay(Colour(game.first), moves)
    except ReplayError as exc:
        return f"(the position cannot be drawn: {exc})"
    frame: list[RGB | None] = [None] * 16
    if position.result is not None:
        for square, rgb in result_frame(
            position.result, tuple(position.lines()), Palette()
        ).items():
            frame[square] = rgb
    return draw(position.colour_at, frame, None, sys.stdout.isatty())


# --- review -------------------------------------------------------------------------------
def cmd_review(args: argparse.Namespace) -> int:
    from orbito_hw.rules.game import Colour, ReplayError
    from orbito_hw.solver.review import review

    with _archive(args) as archive:
        game = _game(archive, args.id)
        moves = _moves(archive, game)
    try:
        result = review(Colour(game.first), moves)
    except (ReplayError, ValueError) as exc:  # an archive edited by hand
        raise UsageError(f"game {game.id} cannot be reviewed: {exc}") from None
    if args.json:
        emit({"id": game.id, "turns": [t.as_json() for t in result.turns], **result.summary()})
        return 0
    _lines(_review_text(game, result))
    return 0


def _review_text(game: GameRow, result: Review) -> list[str]:
    from orbito_hw.rules.game import Colour

    rows = [
        [
            str(t.number),
            t.colour.value,
            t.turn,
            f"{t.before} in {t.before_plies}",
            f"{t.after} in {t.after_plies}" if t.after_plies else f"{t.after} (over)",
            "MISTAKE" if t.mistake else "",
            _best(t.best) if t.mistake else "",
        ]
        for t in result.turns
    ]
    header = ["turn", "colour", "played", "before", "after", "", "would have kept it"]
    out = [f"game {game.id}: {_outcome(game)}; values for the player to move, perfect play", ""]
    out += _table(header, rows) if rows else ["no turns"]
    out.append("")
    for colour in Colour:
        numbers = result.mistakes(colour)
        listed = ", ".join(str(n) for n in numbers) if numbers else "none"
        who = f"{colour} ({getattr(game, colour.value)})"
        out.append(f"{who}: {counted(len(numbers), 'mistake')}: {listed}")
    decided = result.decided
    out.append(
        f"decided at turn {decided}" if decided else "no mistake: it went as perfect play says"
    )
    return out


def _best(best: tuple[str, ...], shown: int = 4) -> str:
    more = f" (+{len(best) - shown})" if len(best) > shown else ""
    return " ".join(best[:shown]) + more


# --- export -------------------------------------------------------------------------------
def cmd_export(args: argparse.Namespace) -> int:
    with _archive(args) as archive:
        games, moves = archive.games(), archive.moves()
    _lines(
        _json_line({"id": g.id, "first": g.first, "moves": moves.get(g.id, ""), "result": g.result})
        for g in games
    )
    return 0


# --- stats --------------------------------------------------------------------------------
def cmd_stats(args: argparse.Namespace) -> int:
    with _archive(args) as archive:
        games = archive.games()
    stats = statistics(games)
    if args.json:
        emit(stats)
        return 0
    _lines(_stats_text(stats))
    return 0


def statistics(games: list[GameRow]) -> dict[str, Any]:
    """Results per player (a person, or the board at a level: each seat counted from its
    side, so a game between two people counts a win and a loss for ``person``), games per
    day (by the day each started, in the board's time), the longest game."""
    players: dict[str, Counter[str]] = {}
    for game in games:
        for colour in ("black", "white"):
            player = game.black if colour == "black" else game.white
            tally = players.setdefault(player, Counter())
            tally["games"] += 1
            tally[_seat_outcome(game.result, colour)] += 1
    longest = max(games, key=lambda g: (g.turns, -g.id), default=None)
    return {
        "games": len(games),
        "finished": sum(g.result is not None for g in games),
        "players": {
            player: {key: tally[key] for key in ("games", "won", "drawn", "lost", "unfinished")}
            for player, tally in sorted(players.items())
        },
        "per_day": dict(sorted(Counter(g.started[:10] for g in games).items())),
        "longest": None if longest is None else {"id": longest.id, "turns": longest.turns},
    }


def _seat_outcome(result: str | None, colour: str) -> str:
    if result is None:
        return "unfinished"
    return "drawn" if result == "draw" else "won" if result == colour else "lost"


def _stats_text(stats: dict[str, Any]) -> list[str]:
    out = [f"{counted(stats['games'], 'game')}, {stats['finished']} finished", ""]
    header = ["player", "games", "won", "drawn", "lost", "unfinished"]
    rows = [[name, *(str(t[k]) for k in header[1:])] for name, t in stats["players"].items()]
    out += _table(header, rows) if rows else ["no games in the archive yet"]
    if stats["per_day"]:
        out += ["", *_table(["day", "games"], [[d, str(n)] for d, n in stats["per_day"].items()])]
    longest = stats["longest"]
    if longest is not None:
        out += ["", f"longest game: {longest['id']} ({counted(longest['turns'], 'turn')})"]
    return out


# --- output -------------------------------------------------------------------------------
def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]
    return [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in [header, *rows]
    ]


def _json_line(obj: object) -> str:
    import json

    return json.dumps(obj)


def _lines(lines: Iterable[str]) -> None:
    """Many lines at once: 10,000 games are one write, not 10,000 flushes."""
    text = "\n".join(lines)
    if text:
        sys.stdout.write(text + "\n")
    sys.stdout.flush()
