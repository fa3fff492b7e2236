"""Asks over the broker: a take-back or a draw asked of the other side of a remote game, and
its answer, carried between the two sides' referees (control/asks.py does the rest).

One more message kind, ``offer``, under ``orbito-hw/GAME/COLOUR/offer`` (QoS 1, retained):
each side's latest ask, and its latest answer to the other side's, in the round it plays::

    {"v": 1, "game": G, "round": R, "board": ID, "colour": COLOUR,
     "ask": {"id": K, "what": "take-back"|"draw", "number": N} | null,
     "answer": {"id": K, "what": "take-back"|"draw", "agreed": BOOL, "reason": TEXT} | null}

``ask``: this side asks for ``what`` after ``number`` turns (its ``id`` counts its asks: a
later one has a higher id); ``answer``: this side's answer to the other side's ask ``id``.
Whole and retained, like a record: a lost, doubled, late or replayed message changes
nothing (an id taken once is never taken again), and a side that was away reads the other's
latest. An older orbito-hw does not know the kind: it refuses it (a line in its log) and
plays on, and never answers (an ask lapses when the game goes on). A message from anyone but
the other side of the game (another id, this board's own colour) is refused like a record.

What this board has said and heard is kept in ``remote-asks.json`` beside ``remote.json``,
so that after a restart it neither asks with an id already used nor takes an old ask again.
"""

from __future__ import annotations

import json
import logging
import os
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.control.asks import What, what_of
from orbito_hw.control.events import Answered, Asked, Event, TakenBack
from orbito_hw.control.led_words import colour_word
from orbito_hw.control.referee import Referee
from orbito_hw.control.seat import DECLINED
from orbito_hw.errors import OrbitoError, echo, shown
from orbito_hw.lang import R_, _, reworded
from orbito_hw.remote.protocol import (
    NAME,
    PREFIX,
    VERSION,
    MessageError,
    check_name,
    message_object,
)
from orbito_hw.remote.seat_link import AwaySeats
from orbito_hw.rules.game import Colour

log = logging.getLogger(__name__)

KIND: Final = "offer"
ASKS_FILE: Final = "remote-asks.json"
MAX_REASON: Final = 200  # characters of an answer's reason taken from the other side
MAX_ID: Final = 1_000_000_000
ASKS_TAKEN: Final = 10
ASKS_WINDOW_S: Final = 10.0
"""The other side's asks taken (checked, answered, kept) in a window; past them, dropped."""


# --- the message -------------------------------------------------------------------------------
@dataclass(frozen=True)
class AskSaid:
    id: int
    what: What
    number: int


@dataclass(frozen=True)
class AnswerSaid:
    id: int
    what: What
    agreed: bool
    reason: str = ""


@dataclass(frozen=True)
class Offer:
    """One side's ``offer`` message: its latest ask and its latest answer, in ``round``."""

    game: str
    round: int
    board: str
    colour: Colour
    ask: AskSaid | None = None
    answer: AnswerSaid | None = None

    def to_bytes(self) -> bytes:
        obj = {
            "v": VERSION,
            "game": self.game,
            "round": self.round,
            "board": self.board,
            "colour": self.colour.value,
            "ask": asdict(self.ask) if self.ask is not None else None,
            "answer": asdict(self.answer) if self.answer is not None else None,
        }
        return json.dumps(obj, separators=(",", ":")).encode()


def offer_topic(game: str, colour: Colour) -> str:
    return f"{PREFIX}/{game}/{colour.value}/{KIND}"


def is_offer_topic(text: str) -> bool:
    parts = text.split("/")
    return len(parts) == 4 and parts[0] == PREFIX and parts[3] == KIND


def parse_offer(topic_text: str, payload: bytes) -> Offer:
    """The ``offer`` message ``payload`` on ``topic_text`` says; MessageError naming what is
    wrong (never another exception, whatever the bytes)."""
    parts = topic_text.split("/")
    if len(parts) != 4 or parts[0] != PREFIX or parts[3] != KIND:
        raise MessageError(f"topic {echo(topic_text)} is not {PREFIX}/GAME/COLOUR/{KIND}")
    game, colour = parts[1], parts[2]
    if not NAME.fullmatch(game) or colour not in ("black", "white"):
        raise MessageError(f"topic {echo(topic_text)} names no game and colour")
    where = f"offer of {colour} in {game}"
    obj = message_object(payload, where)
    if obj.get("v") != VERSION:
        raise MessageError(f"{where}: version {shown(obj.get('v'))}, not {VERSION}")
    board = _text(obj, "board", where)
    if not NAME.fullmatch(board):
        raise MessageError(f"{where}: board {echo(board)} is not a board id")
    if obj.get("game") != game or obj.get("colour") != colour:
        raise MessageError(f"{where}: says it is for {shown(obj.get('game'))} "
                           f"{shown(obj.get('colour'))}")  # fmt: skip
    ask, answer = obj.get("ask"), obj.get("answer")
    return Offer(
        game,
        _number(obj, "round", where, 1),
        board,
        Colour(colour),
        _ask(ask, where) if ask is not None else None,
        _answer(answer, where) if answer is not None else None,
    )


def _text(obj: dict[str, object], key: str, where: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str):
        raise MessageError(f"{where}: {key} {shown(value)} is not text")
    return value


def _number(obj: dict[str, object], key: str, where: str, lo: int) -> int:
    value = obj.get(key)
    if not isinstance(value, int) or isinstance(value, bool) or not lo <= value <= MAX_ID:
        raise MessageError(f"{where}: {key} {shown(value)} is not a whole number {lo}..{MAX_ID}")
    return value


def _what(obj: dict[str, object], where: str) -> What:
    try:
        return what_of(_text(obj, "what", where))
    except OrbitoError as exc:
        raise MessageError(f"{where}: {exc}") from None


def _ask(value: object, where: str) -> AskSaid:
    if not isinstance(value, dict):
        raise MessageError(f"{where}: ask is not an object")
    where = f"{where}, its ask"
    return AskSaid(_number(value, "id", where, 1), _what(value, where),
                   _number(value, "number", where, 0))  # fmt: skip


def _answer(value: object, where: str) -> AnswerSaid:
    if not isinstance(value, dict):
        raise MessageError(f"{where}: answer is not an object")
    where = f"{where}, its answer"
    agreed = value.get("agreed")
    if not isinstance(agreed, bool):
        raise MessageError(f"{where}: agreed {shown(agreed)} is not true or false")
    reason = value.get("reason", "")
    if not isinstance(reason, str):
        raise MessageError(f"{where}: reason {shown(reason)} is not text")
    return AnswerSaid(_number(value, "id", where, 1), _what(value, where), agreed,
                      _plain(reason))  # fmt: skip


def _plain(text: str) -> str:
    """An answer's reason from the other side as a page may show it: one line of
    MAX_REASON characters at most (what is cut short ends with an ellipsis)."""
    line = "".join(c if c.isprintable() else " " for c in text).strip()
    return line if len(line) <= MAX_REASON else line[: MAX_REASON - 1] + "…"


# --- what this board said and heard -------------------------------------------------------------
@dataclass
class AsksKept:
    """remote-asks.json: this board's asks counted, its latest ask and answer (in ``round``),
    and the other side's newest ask and answer taken."""

    game: str
    round: int = 1
    asked: int = 0
    ask: AskSaid | None = None
    answer: AnswerSaid | None = None
    heard_ask: int = 0
    heard_answer: int = 0
    # A take-back the other side asked and this board agreed to, under way: its steps are
    # this board's own take-backs (counted in the record), also after a restart.
    taking_back: bool = False

    @classmethod
    def load(cls, path: Path, game: str) -> AsksKept:
        try:
            obj = json.loads(path.read_bytes())
            ask, answer = obj.pop("ask", None), obj.pop("answer", None)
            kept = cls(**obj)
            kept.ask = AskSaid(**ask) if ask else None
            kept.answer = AnswerSaid(**answer) if answer else None
        except FileNotFoundError:
            return cls(game)
        except (OSError, ValueError, TypeError, AttributeError) as exc:
            text = _("{path} unusable ({reason}): the remote game's asks start afresh")
            log.warning("%s", text.format(path=path, reason=exc))
            return cls(game)
        return kept if kept.game == game else cls(game)

    def save(self, path: Path) -> None:
        temporary = path.with_name(f".{path.name}.tmp")
        with temporary.open("w", encoding="utf-8") as file:
            json.dump(asdict(self), file)
            file.flush()
            os.fsync(file.fileno())
        temporary.replace(path)


class Round(Protocol):
    """What a remote game keeps of the game (game.py's ``Kept``) that its asks need."""

    @property
    def round(self) -> int: ...

    @property
    def opponent(self) -> str | None: ...


class Side(Protocol):
    """This board's side of a remote game (game.py's ``RemoteGame``), as its asks see it."""

    @property
    def game(self) -> str: ...

    @property
    def plays(self) -> Colour: ...

    @property
    def board_id(self) -> str: ...

    @property
    def referee(self) -> Referee | None: ...

    @property
    def kept(self) -> Round: ...

    @property
    def path(self) -> Path:
        """remote.json, in the state directory."""
        ...

    @property
    def seats(self) -> AwaySeats | None: ...

    @property
    def publish(self) -> Callable[[str, bytes, bool], None]: ...

    @property
    def refused(self) -> Callable[[str], None]:
        """The log of refused messages (throttled): why, a sentence in the board's language."""
        ...


# --- the remote game's asks ---------------------------------------------------------------------
class Offers:
    """The asks of the remote game ``game`` over the broker: this board's person's (a draw
    offered here) and its answers go out; the other side's asks and answers come in, each
    checked (its sender, its round, its id, the referee's own checks) before the referee
    takes it."""

    def __init__(self, game: Side) -> None:
        check_name(game.game, "game")
        self.game = game
        self.kept = AsksKept(game.game)
        self._waiting: tuple[str, bytes] | None = None  # heard before the referee started
        self._window, self._taken = -ASKS_WINDOW_S, 0  # the other side's asks taken lately

    @property
    def path(self) -> Path:
        return self.game.path.with_name(ASKS_FILE)

    def load(self) -> None:
        """After each start of the controller: what was said and heard, read again."""
        self.kept = AsksKept.load(self.path, self.game.game)

    def attach(self) -> None:
        """Once the remote game is carried on: an offer heard before, taken now."""
        if self._waiting is not None:
            waiting, self._waiting = self._waiting, None
            self.on_message(*waiting)

    def _save(self) -> None:
        try:
            self.kept.save(self.path)
        except OSError as exc:  # an old ask may be taken again after a restart: no more
            log.error("%s", _("cannot save {path}: {reason}").format(path=self.path, reason=exc))

    def message(self) -> tuple[str, bytes] | None:
        """This board's offer message as it stands (None: it has said nothing); an ask or
        answer of an earlier round is said no more."""
        kept, game = self.kept, self.game
        if kept.round != game.kept.round and (kept.ask or kept.answer):
            kept.round, kept.ask, kept.answer = game.kept.round, None, None
            self._save()
        if kept.ask is None and kept.answer is None:
            return None
        offer = Offer(game.game, kept.round, game.board_id, game.plays, kept.ask, kept.answer)
        return offer_topic(game.game, game.plays), offer.to_bytes()

    def _publish(self) -> None:
        said = self.message()
        if said is not None:
            self.game.publish(*said, True)

    # --- this board's asks and answers ------------------------------------------------------
    def on_event(self, event: Event) -> None:
        """The referee's events: an ask made here, or an answer given here to the other
        side's ask, goes out."""
        plays = self.game.plays
        referee = self.game.referee
        if isinstance(event, TakenBack) and self.kept.taking_back:
            if referee is None or referee.take_backs.down_to is None:  # all taken back
                self.kept.taking_back = False
                self._save()
            return
        if isinstance(event, Asked) and event.colour is plays:
            self._fresh_round()
            self.kept.asked += 1
            self.kept.ask = AskSaid(self.kept.asked, what_of(event.what), event.number)
        elif isinstance(event, Answered) and event.colour is not plays and self.kept.heard_ask:
            self._fresh_round()
            self.kept.answer = AnswerSaid(self.kept.heard_ask, what_of(event.what),
                                          event.agreed, event.reason)  # fmt: skip
            self.kept.taking_back = event.agreed and event.what == "take-back"
        else:
            return
        self._save()
        self._publish()

    def _fresh_round(self) -> None:
        if self.kept.round != self.game.kept.round:
            self.kept.round, self.kept.ask, self.kept.answer = self.game.kept.round, None, None

    # --- the other side's --------------------------------------------------------------------
    def on_message(self, topic_text: str, payload: bytes) -> None:
        """An ``offer`` message from the broker: the other side's ask or answer, taken once
        each; refused and logged unless it is the other side's, of this round."""
        game = self.game
        referee = game.referee
        if referee is None:
            self._waiting = (topic_text, payload)  # taken once the controller has started
            return
        try:
            offer = parse_offer(topic_text, payload)
        except MessageError as exc:
            game.refused(reworded(str(exc)))
            return
        if offer.game != game.game:
            return
        if offer.colour is game.plays:
            if offer.board != game.board_id:
                text = _("board {board} offers as {colour}, this board's colour")
                game.refused(text.format(board=offer.board, colour=colour_word(game.plays)))
            return  # this board's own, kept by the broker
        if game.kept.opponent is None or offer.board != game.kept.opponent:
            text = _("board {board} asks in game {game}, which it does not play")
            game.refused(text.format(board=offer.board, game=game.game))
            return
        if game.seats is not None and game.seats.is_revoked(game.game, offer.board):
            text = _("seat {seat} was revoked at this board (seat revoke)")
            game.refused(text.format(seat=offer.board))
            return
        if offer.round != game.kept.round:
            log.debug("an offer of round %d ignored: this board plays %d", offer.round,
                      game.kept.round)  # fmt: skip
            return
        if offer.answer is not None:
            self._their_answer(offer.answer)
        if offer.ask is not None:
            self._their_ask(offer.ask)

    def _their_ask(self, ask: AskSaid) -> None:
        if ask.id <= self.kept.heard_ask:
            return  # taken already: a doubled, late or replayed message
        self.kept.heard_ask = ask.id
        if not self._within_rate():  # a flood of asks: neither written nor answered
            board, window = self.game.kept.opponent, ASKS_WINDOW_S
            text = _("board {board} asks more than {n} times in {seconds}s: ask {ask} dropped")
            said = text.format(board=board, n=ASKS_TAKEN, seconds=f"{window:g}", ask=ask.id)
            self.game.refused(said)
            return
        self._save()
        referee, away = self.game.referee, self.game.plays.other
        assert referee is not None
        turns = len(referee.snapshot().turns)
        why = referee.asks.refusal(ask.what, away)
        if not why and ask.number != turns:
            why = R_("asked after turn {number}; the game is at turn {turn}").format(
                number=ask.number, turn=turns
            )
        if why:
            if ask.what == "take-back":
                text = _("{colour}'s ask to take back not taken: {reason}")
            else:
                text = _("{colour}'s draw offer not taken: {reason}")
            self.game.refused(text.format(colour=colour_word(away), reason=reworded(why)))
            self._answer_said(AnswerSaid(ask.id, ask.what, False, why))
            return
        offered = referee.asks.pending  # this board's own draw offer, which this one accepts
        referee.ask(ask.what, away)
        if offered is not None and referee.asks.pending is None:
            self._answer_said(AnswerSaid(ask.id, ask.what, True))

    def _within_rate(self) -> bool:
        """Whether one more of the other side's asks is taken in this window (ASKS_TAKEN in
        ASKS_WINDOW_S): a flood of asks never floods the broker with answers, nor the disk."""
        now = time.monotonic()
        if now - self._window >= ASKS_WINDOW_S:
            self._window, self._taken = now, 0
        self._taken += 1
        return self._taken <= ASKS_TAKEN

    def _answer_said(self, answer: AnswerSaid) -> None:
        self._fresh_round()
        self.kept.answer = answer
        self._save()
        self._publish()

    def _their_answer(self, answer: AnswerSaid) -> None:
        mine = self.kept.ask
        if answer.id <= self.kept.heard_answer or (mine is not None and answer.id < mine.id):
            return  # taken already, or to an earlier ask: a late or replayed message
        if mine is None or answer.id != mine.id:
            text = _("board {board} answers ask {ask}, which this board never made")
            self.game.refused(text.format(board=self.game.kept.opponent, ask=answer.id))
            return
        self.kept.heard_answer = answer.id
        self._save()
        referee, away = self.game.referee, self.game.plays.other
        assert referee is not None
        why = referee.asks.answer_refusal(away, answer.agreed)
        if not why and answer.what != mine.what:
            why = R_("an answer to a {answered}, asked was a {asked}").format(
                answered=answer.what, asked=mine.what
            )
        if why:
            text = _("the answer of board {board}: {reason}")
            self.game.refused(text.format(board=self.game.kept.opponent, reason=reworded(why)))
            return
        referee.answer(away, answer.agreed, answer.reason or DECLINED)
