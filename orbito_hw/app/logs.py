"""Logs a builder can read: ``journalctl -u orbito-hw`` shows one line per turn, result,
refusal and fault, at a level that ``journalctl -p warning`` can filter on.

Under systemd, stderr is a stream to journald (``$JOURNAL_STREAM`` names it); journald reads a
leading ``<N>`` on a line as its syslog priority and stamps the time itself, so the lines carry
the priority and no timestamp. Anywhere else the lines are plain and timestamped.
"""

from __future__ import annotations

import json
import logging
import os
import sys
from collections.abc import Callable, Mapping
from typing import TextIO

from orbito_hw.control.events import (
    Answered,
    Asked,
    BlunderWarning,
    BoardTurn,
    Corrected,
    Correction,
    Discard,
    Event,
    Fault,
    FirstChosen,
    GameOver,
    Hint,
    NewGame,
    OpponentChosen,
    PuzzleDone,
    Rejected,
    RemoteStatus,
    SetupAsked,
    SetupDone,
    TakeBack,
    TakenBack,
    TurnPlayed,
    from_json,
)
from orbito_hw.lang import N_, _, ngettext, reworded
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import line_names, square_name

log = logging.getLogger("orbito_hw")
events_log = logging.getLogger("orbito_hw.events")

# syslog(3) priorities, as journald reads them from a "<N>" prefix.
SYSLOG_PRIORITY = {
    logging.CRITICAL: 2,
    logging.ERROR: 3,
    logging.WARNING: 4,
    logging.INFO: 6,
    logging.DEBUG: 7,
}


def syslog_priority(levelno: int) -> int:
    """The syslog priority of a logging level (levels between two take the more urgent)."""
    for level in sorted(SYSLOG_PRIORITY, reverse=True):
        if levelno >= level:
            return SYSLOG_PRIORITY[level]
    return SYSLOG_PRIORITY[logging.DEBUG]


class JournalFormatter(logging.Formatter):
    """``<N>message``; every line of a multi-line record (a traceback) gets the prefix,
    because journald makes each line an entry of its own."""

    def __init__(self) -> None:
        super().__init__("%(message)s")

    def format(self, record: logging.LogRecord) -> str:
        prefix = f"<{syslog_priority(record.levelno)}>"
        return "\n".join(prefix + line for line in super().format(record).splitlines())


def stderr_is_journal(stream: TextIO, environ: Mapping[str, str]) -> bool:
    """True when ``stream`` is the journald stream systemd connected us to.

    ``$JOURNAL_STREAM`` is "DEVICE:INODE" of that stream; a child whose stderr was redirected
    elsewhere inherits the variable, so the stream itself is compared, as systemd.exec(5) asks.
    """
    expected = environ.get("JOURNAL_STREAM", "")
    if not expected:
        return False
    try:
        st = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return expected == f"{st.st_dev}:{st.st_ino}"


def parse_level(level: str | int) -> int:
    """A logging level from a number or a name ("info", "WARNING"); ValueError names it."""
    if isinstance(level, int):
        return level
    value = logging.getLevelName(level.strip().upper())
    if not isinstance(value, int):
        text = _("unknown log level {level} (debug, info, warning, error)")
        raise ValueError(text.format(level=repr(level)))
    return value


class LibraryLines(logging.Filter):
    """Every library's record one line, as the package's are: aiohttp's "Error handling
    request" (a malformed request, a client gone mid-body), asyncio's, aiomqtt's. The
    exception becomes its type and message on the same line; its traceback is kept only
    at the debug level. The package's own records pass as they are."""

    def __init__(self, tracebacks: bool) -> None:
        super().__init__()
        self.tracebacks = tracebacks

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name == log.name or record.name.startswith(log.name + "."):
            return True
        if record.exc_info and not self.tracebacks:
            exc = record.exc_info[1]
            text = (
                f"{record.getMessage()}: {type(exc).__name__}: {exc}"
                if exc
                else record.getMessage()
            )
            record.msg, record.args = text, None
            record.exc_info, record.exc_text, record.stack_info = None, None, None
        if not self.tracebacks:
            record.msg, record.args = " ".join(record.getMessage().split("\n")), None
        return True


def setup_logging(
    level: str | int = "info",
    stream: TextIO | None = None,
    environ: Mapping[str, str] | None = None,
) -> logging.Handler:
    """Send the logs to ``stream`` (stderr) in the journal's or a terminal's form: the
    package's at ``level``, every library's (aiohttp, asyncio, aiomqtt) at warning and up,
    through the same handler, one line each (``LibraryLines``).

    Calling it again replaces the handler it installed before, so tests and restarts do
    not double every line.
    """
    out = sys.stderr if stream is None else stream
    env = os.environ if environ is None else environ
    handler = logging.StreamHandler(out)
    if stderr_is_journal(out, env):
        handler.setFormatter(JournalFormatter())
    else:
        handler.setFormatter(
            logging.Formatter("%(asctime)s %(levelname)-7s %(message)s", "%Y-%m-%d %H:%M:%S")
        )
    chosen = parse_level(level)
    handler.addFilter(LibraryLines(tracebacks=chosen <= logging.DEBUG))
    root = logging.getLogger()
    for logger in (log, root):
        for old in [h for h in logger.handlers if getattr(h, "_orbito_hw", False)]:
            logger.removeHandler(old)
    handler._orbito_hw = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.DEBUG if chosen <= logging.DEBUG else logging.WARNING)
    log.setLevel(chosen)
    log.propagate = True  # to the root's handler, the one handler of every log
    sys.unraisablehook = _unraisable  # "Exception ignored in ...": one line too
    return handler


def _unraisable(unraisable: sys.UnraisableHookArgs) -> None:
    """An exception Python could not raise (a library object's ``__del__`` run after the
    event loop closed): one line in the log, its traceback at the debug level only."""
    exc = unraisable.exc_value
    owner = unraisable.object
    where = getattr(owner, "__qualname__", None) or type(owner).__name__
    text = _("ignored in {where}: {error}: {reason}")
    log.warning(
        "%s", text.format(where=where, error=type(exc).__name__, reason=" ".join(str(exc).split()))
    )
    if exc is not None:
        log.debug("traceback", exc_info=exc)


def _squares(squares: tuple[int, ...]) -> str:
    return " ".join(square_name(sq) for sq in squares)


def _lines(lines: tuple[int, ...]) -> str:
    return ", ".join(" ".join(line) for line in line_names(list(lines))) or _("no line")


_COLOURS = {Colour.BLACK: N_("black"), Colour.WHITE: N_("white")}


def _colour(colour: Colour) -> str:
    """A colour in the log's words."""
    return _(_COLOURS[colour])


def describe(event: Event | Mapping[str, object], seat: bool = False) -> tuple[int, str]:
    """One human line for a controller event, and the level it deserves; ``seat``: the
    remote player is a seat, a person on a phone (docs/seat.md), not a board.

    A JSON object is read with ``events.from_json``: KeyError for one that lacks a field
    its kind needs, ValueError for a field that does not parse.
    """
    if isinstance(event, Mapping):
        typed = from_json(event)
        if typed is None:  # a kind without a line of its own
            game = _("game {game}").format(game=event["game"]) if "game" in event else _("board")
            return logging.DEBUG, f"{game}: event {json.dumps(dict(event), sort_keys=True)}"
        event = typed
    game = _("game {game}").format(game=event.game) if event.game is not None else _("board")
    if isinstance(event, TurnPlayed):
        text = _("{game} turn {number}: {colour} {turn} -> {board}").format(
            game=game,
            number=event.number,
            colour=_colour(event.colour),
            turn=event.turn,
            board=event.board,
        )
        return logging.INFO, text
    if isinstance(event, Rejected):
        # Only squares where something is wrong: a press with nothing placed names none.
        if not event.squares:
            return logging.WARNING, _("{game}: refused ({reason})").format(
                game=game, reason=reworded(event.reason)
            )
        text = _("{game}: refused ({reason}) squares {squares}").format(
            game=game, reason=reworded(event.reason), squares=_squares(event.squares)
        )
        return logging.WARNING, text
    if isinstance(event, Correction):
        if not event.squares:
            return logging.WARNING, _("{game}: board does not match").format(game=game)
        text = _("{game}: board does not match, check squares {squares}").format(
            game=game, squares=_squares(event.squares)
        )
        return logging.WARNING, text
    if isinstance(event, Corrected):
        return logging.INFO, _("{game}: board matches again, play on").format(game=game)
    if isinstance(event, GameOver):
        outcome = {None: _("draw"), Colour.BLACK: _("black wins"), Colour.WHITE: _("white wins")}
        text = _("{game} over: {outcome} ({lines})")
        return logging.INFO, text.format(
            game=game, outcome=outcome[event.result.winner], lines=_lines(event.lines)
        )
    if isinstance(event, BoardTurn):
        number, colour, turn = event.number, _colour(event.colour), event.turn
        if event.by == "remote" and seat:  # a person on a phone: a seat (docs/seat.md)
            text = _(
                "{game} turn {number}: the player on the phone plays {colour} {turn}: "
                "make it on this board and press"
            )
        elif event.by == "remote":  # the other person's turn, from their board
            text = _(
                "{game} turn {number}: {colour}'s board plays {turn}: "
                "make it on this board and press"
            )
        else:
            text = _(
                "{game} turn {number}: the board plays {colour} {turn}: "
                "make it on the board and press"
            )
        return logging.INFO, text.format(game=game, number=number, colour=colour, turn=turn)
    if isinstance(event, Fault):
        text = _("{game}: fault: {reason}")
        return logging.ERROR, text.format(game=game, reason=reworded(event.reason))
    if isinstance(event, SetupAsked):
        marbles = ", ".join(f"{square_name(sq)} {_colour(c)}" for sq, c in event.squares)
        text = _("{game}: set this position up by the LEDs ({marbles}; the rest empty), "
                 "{colour} to move")  # fmt: skip
        return logging.INFO, text.format(
            game=game, marbles=marbles or _("none"), colour=_colour(event.to_move)
        )
    if isinstance(event, SetupDone):
        text = _("{game}: set up ({board}): {colour} plays turn {number}").format(
            game=game, board=event.board, colour=_colour(event.to_move), number=event.number
        )
        return logging.INFO, text
    if isinstance(event, PuzzleDone):
        turns = ngettext("{n} turn", "{n} turns", event.plies).format(n=event.plies)
        if event.solved:
            text = _("{game}: puzzle {puzzle} solved in {turns}")
            return logging.INFO, text.format(game=game, puzzle=event.puzzle, turns=turns)
        text = _(
            "{game}: puzzle {puzzle} not solved ({turns} played): "
            "hold the button to take back and try again"
        )
        return logging.INFO, text.format(game=game, puzzle=event.puzzle, turns=turns)
    if isinstance(event, Asked | Answered):
        return logging.INFO, _("{game}: {sentence}").format(game=game, sentence=_ask(event))
    if isinstance(event, Discard):
        return logging.INFO, _("{game}: {sentence}").format(game=game, sentence=_discard(event))
    sentence = _sentence(event)
    if sentence is not None:
        return logging.DEBUG, _("{game}: {sentence}").format(game=game, sentence=sentence)
    return logging.DEBUG, f"{game}: event {json.dumps(event.to_json(), sort_keys=True)}"


def _ask(event: Asked | Answered) -> str:
    """An ask (a take-back or a draw, control/asks.py) and its answer: the person at the
    board reads what they are asked and how to answer (docs/seat.md)."""
    colour = _colour(event.colour)
    if isinstance(event, Asked):
        if event.what == "take-back":
            return _(
                "{colour} asks to take back their last turn: hold the button or answer on the page"
            ).format(colour=colour)
        return _("{colour} offers a draw: answer on the page").format(colour=colour)
    if event.what == "take-back":
        if event.agreed:
            return _("{colour}'s take-back agreed").format(colour=colour)
        return _("{colour}'s take-back not agreed: {reason}").format(
            colour=colour, reason=reworded(event.reason)
        )
    if event.agreed:
        return _("{colour}'s draw offer accepted").format(colour=colour)
    text = _("{colour}'s draw offer declined: {reason}")
    return text.format(colour=colour, reason=reworded(event.reason))


_CANCELLED = {
    "press": N_("kept (a press): the game goes on"),
    "marble": N_("kept (a marble moved): the game goes on"),
    "timeout": N_("kept (no answer): the game goes on"),
    "moved-on": N_("kept (the board moved on): the game goes on"),
    "new-game": N_("the question ends: a new game was started elsewhere"),
}


def _discard(event: Discard) -> str:
    """The question before a game in progress is thrown away (control/discard.py)."""
    if event.state == "asked":
        return ngettext(
            "throw this game away ({n} turn)? The LEDs ask: hold the button again to agree, "
            "press to play on",
            "throw this game away ({n} turns)? The LEDs ask: hold the button again to agree, "
            "press to play on",
            event.number,
        ).format(n=event.number)
    if event.state == "agreed":
        return _("thrown away for a new game: a second hold agreed")
    return _(_CANCELLED.get(event.reason, _CANCELLED["moved-on"]))


# The blunder warning and a hint, by what the turn leaves: "throws the game away" is said
# of a loss and of a draw alike in English; each its own sentence, so no language says a
# loss where the result would be a draw.
_WARNING = {
    "loss": N_(
        "warning: {turn} loses the game (a loss after it); press again to play it, or change it"
    ),
    "draw": N_(
        "warning: {turn} throws the win away (a draw after it); press again to play it, "
        "or change it"
    ),
}
_HINT = {
    "win": N_("hint for {colour}: {turn}, a win (see the LEDs)"),
    "draw": N_("hint for {colour}: {turn}, a draw (see the LEDs)"),
    "loss": N_("hint for {colour}: {turn}, a loss whatever is played (see the LEDs)"),
}

_REMOTE = {
    "connected": N_("connected to the broker"),
    "disconnected": N_("lost the broker: the game goes on here and catches up when it is back"),
    "opponent-online": N_("the other board is online"),
    "opponent-offline": N_("the other board is offline"),
}


def _sentence(event: Event) -> str | None:
    """The events with no log line of their own (debug level), as a sentence for a person
    at the interactive prompt; None for a kind this does not know."""
    if isinstance(event, NewGame):
        return _("a new game, {colour} to move first").format(colour=_colour(event.first))
    if isinstance(event, FirstChosen):
        return _("{colour} starts").format(colour=_colour(event.colour))
    if isinstance(event, Hint):
        text = _HINT.get(event.value, _HINT["draw"])
        return _(text).format(colour=_colour(event.colour), turn=event.turn)
    if isinstance(event, BlunderWarning):
        text = _WARNING.get(event.value, _WARNING["draw"])
        return _(text).format(turn=event.turn)
    if isinstance(event, OpponentChosen):
        if event.colour is None:
            return _("two people play")
        from orbito_hw.web.instruction import level_words

        return _("the board plays {colour} ({level})").format(
            colour=_colour(event.colour), level=level_words(event.player.removeprefix("board:"))
        )
    if isinstance(event, TakeBack):
        return _("taking back turn {number} ({turn}): undo what the LEDs show").format(
            number=event.number, turn=event.turn
        )
    if isinstance(event, TakenBack):
        return _("turn {number} taken back: {colour} to move, {board}").format(
            number=event.number, colour=_colour(event.to_move), board=event.board
        )
    if isinstance(event, RemoteStatus):
        return _(_REMOTE[event.state]) if event.state in _REMOTE else event.state
    return None


class EventLogger:
    """A listener for the controller's events (or their JSON objects): one log line each.

    It never raises: a malformed event is logged as such and the game goes on. ``seated``
    says whether the remote player is a seat (app/run.py asks the referee's opponent).
    """

    def __init__(
        self, logger: logging.Logger | None = None, seated: Callable[[], bool] | None = None
    ) -> None:
        self.logger = logger or events_log
        self.seated = seated or (lambda: False)

    def __call__(self, event: Event | Mapping[str, object]) -> None:
        try:
            level, text = describe(event, self.seated())
        except KeyError as exc:
            text = _("malformed event (no {field}): {event}").format(field=exc, event=repr(event))
            level = logging.WARNING
        except ValueError as exc:
            text = _("malformed event ({reason}): {event}").format(reason=exc, event=repr(event))
            level = logging.WARNING
        self.logger.log(level, "%s", text)
