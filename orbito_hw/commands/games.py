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
from orbito_hw.lang import N_, _, ngettext

if TYPE_CHECKING:
    from orbito_hw.archive.store import Archive, GameRow
    from orbito_hw.hw.interfaces import RGB
    from orbito_hw.solver.review import Review


def register(sub: Any) -> None:
    common = Parser(add_help=False)
    common.add_argument("--json", action="store_true", help=_("JSON lines (SPEC.md)"))
    common.add_argument(
        "--state-dir", metavar="DIR", help=_("where the archive lives (default: the config's)")
    )
    common.add_argument(
        "--config", metavar="PATH", help=_("the board's config, for its state directory")
    )
    p = sub.add_parser("games", help=_("the game archive: list, show, review, export, stats"))
    games = p.add_subparsers(
        dest="games_command",
        metavar="list|show|review|resume|export|stats",
        required=True,
        parser_class=Parser,
    )
    games.add_parser("list", parents=[common], help=_("every game, oldest first")).set_defaults(
        func=cmd_list
    )
    for name, func, what in (
        ("show", cmd_show, N_("a game's turns, refusals and last position")),
        (
            "review",
            cmd_review,
            N_("each turn against perfect play: the mistakes, where it was decided"),
        ),
    ):
        q = games.add_parser(name, parents=[common], help=_(what))
        q.add_argument("id", metavar="ID", help=_("the game's id (games list)"))
        q.set_defaults(func=func)
    q = games.add_parser(
        "resume", parents=[common], help=_("set an archived game up on the board to play on")
    )
    q.add_argument("id", metavar="ID", help=_("the game's id (games list), or current: set "
                   "the game on the board up again"))  # fmt: skip
    q.add_argument("--at", metavar="N", help=_("after its turn N (default: all its turns)"))
    q.set_defaults(func=_resume)
    games.add_parser(
        "export", parents=[common], help=_("one JSON line per game, which replay --batch reads")
    ).set_defaults(func=cmd_export)
    games.add_parser(
        "stats", parents=[common], help=_("results per player, games per day, the longest game")
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
        text = _("game id {id} is not a number (see `orbito-hw games list`)").format(id=echo(text))
        raise UsageError(text)
    none = _("no game {id} in the archive {path}")
    if len(text.lstrip("0")) > GAME_ID_DIGITS:
        raise NoSuchGameError(none.format(id=echo(text), path=archive.path))
    game = archive.game(int(text))
    if game is None:
        raise NoSuchGameError(none.format(id=int(text), path=archive.path))
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
    _lines(_table(header, rows) if rows else [_("no games in the archive yet")])
    return 0


def _outcome(game: GameRow) -> str:
    if game.result is not None:
        return _(OUTCOMES.get(game.result, game.result))
    return _("unfinished") if game.ended else _("in progress")


OUTCOMES = {"draw": N_("draw"), "black": N_("black won"), "white": N_("white won")}


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
    first = _("black first") if game.first == "black" else _("white first")
    text = _("game {id}: {black} (black) against {white} (white), {first}")
    ended = _("ended {when}").format(when=_when(game.ended)) if game.ended else _("not ended")
    out = [
        text.format(id=game.id, black=game.black, white=game.white, first=first),
        _("started {when}, {ended}: {outcome}").format(
            when=_when(game.started), ended=ended, outcome=_outcome(game)
        ),
        "",
    ]
    rows = [[str(t.number), t.colour, t.turn, _when(t.at)] for t in turns]
    header = [_("turn"), _("colour"), _("played"), _("at")]
    out += _table(header, rows) if rows else [_("no turns")]
    if gone:
        out += ["", _("taken back:")]
        back = _("turn {number} {colour} {turn} at {when}")
        out += [
            "  " + back.format(number=t.number, colour=t.colour, turn=t.turn, when=_when(t.at))
            for t in gone
        ]
    if refusals:
        out += ["", _("refused:")]
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
        return _("(the position cannot be drawn: {reason})").format(reason=exc)
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
        text = _("game {id} cannot be reviewed: {reason}")
        raise UsageError(text.format(id=game.id, reason=exc)) from None
    if args.json:
        emit({"id": game.id, "turns": [t.as_json() for t in result.turns], **result.summary()})
        return 0
    _lines(_review_text(game, result))
    return 0


def _review_text(game: GameRow, result: Review) -> list[str]:
    from orbito_hw.rules.game import Colour

    within, over = _("{value} in {plies}"), _("{value} (over)")
    rows = [
        [
            str(t.number),
            t.colour.value,
            t.turn,
            within.format(value=t.before, plies=t.before_plies),
            within.format(value=t.after, plies=t.after_plies)
            if t.after_plies
            else over.format(value=t.after),
            _("MISTAKE") if t.mistake else "",
            _best(t.best) if t.mistake else "",
        ]
        for t in result.turns
    ]
    header = [
        _("turn"),
        _("colour"),
        _("played"),
        _("before"),
        _("after"),
        "",
        _("would have kept it"),
    ]
    text = _("game {id}: {outcome}; values for the player to move, perfect play")
    out = [text.format(id=game.id, outcome=_outcome(game)), ""]
    out += _table(header, rows) if rows else [_("no turns")]
    out.append("")
    for colour in Colour:
        numbers = result.mistakes(colour)
        listed = ", ".join(str(n) for n in numbers) if numbers else _("none")
        who = f"{colour} ({getattr(game, colour.value)})"
        mistakes = ngettext("{n} mistake", "{n} mistakes", len(numbers)).format(n=len(numbers))
        out.append(f"{who}: {mistakes}: {listed}")
    decided = result.decided
    out.append(
        _("decided at turn {number}").format(number=decided)
        if decided
        else _("no mistake: it went as perfect play says")
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
    games = ngettext("{n} game", "{n} games", stats["games"]).format(n=stats["games"])
    out = [_("{games}, {n} finished").format(games=games, n=stats["finished"]), ""]
    keys = ["games", "won", "drawn", "lost", "unfinished"]
    header = [_("player"), _("games"), _("won"), _("drawn"), _("lost"), _("unfinished")]
    rows = [[name, *(str(t[k]) for k in keys)] for name, t in stats["players"].items()]
    out += _table(header, rows) if rows else [_("no games in the archive yet")]
    if stats["per_day"]:
        days = [[d, str(n)] for d, n in stats["per_day"].items()]
        out += ["", *_table([_("day"), _("games")], days)]
    longest = stats["longest"]
    if longest is not None:
        n = longest["turns"]
        turns = ngettext("{n} turn", "{n} turns", n).format(n=n)
        out += ["", _("longest game: {id} ({turns})").format(id=longest["id"], turns=turns)]
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
