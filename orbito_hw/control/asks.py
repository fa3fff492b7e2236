"""Asks across the board: a take-back asked by a player away, a draw offered by either side.

A player away (a seat on a phone, control/seat.py; the other board of a remote game,
remote/game.py) can neither hold the button to take a turn back nor agree a draw beside the
person at the board. So they *ask*, and the other side answers:

- a **take-back**, asked by the player away, agreed or refused by the person at the board
  (the page's control, behind the access code; or a hold of the button, the board's own
  take-back gesture, which agrees). Agreed, the board takes back the turns since the player
  away's last turn (that turn alone when it was the last, the person's turn and it when the
  person has played since), one turn at a time, the LEDs guiding the undoing as for any
  take-back (takeback.py);
- a **draw**, offered by either side, accepted or declined by the other; accepted, the game
  ends drawn as an agreed draw at one board does (ending.py), and the next game begins. A
  draw offered while the other side's draw offer waits accepts it.

One ask at a time, and each side asks each thing at most once a position: a refusal stands
until a turn is played or taken back, so a flood of asks is a flood of refusals, each with
its reason, and the board's person is asked once. An ask lapses (refused, saying why) when
the game goes on before an answer: a turn played, a take-back, a new game, the player away
gone.

The ask waiting is shown on the LEDs over the position (``shown``, lights.py's
``AskShown``): the marbles a take-back would take back, or the four corners for a draw,
pulse in the asking side's colour, the status pixel in the colour of what is asked.

The ask waiting and an agreed take-back's end are journaled with the game (journal.py's
``ask`` and ``undo_to``), not in a file of their own nor in remote-asks.json: an ask belongs
to one position of one game, which the journal is the one durable record of, written
atomically with each turn; a seat at home has no other file, and the broker's
remote-asks.json keeps only what was said over the broker (its ids). After a power cut the
ask is shown again (page and LEDs) and waits for its player away to come back; one the game
went past lapses at once, as it would have. An agreed take-back of two turns cut between
them goes on to the second (takeback.py).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final, Literal, get_args

from orbito_hw.control.core import Core
from orbito_hw.control.ending import can_end, end_by_agreement
from orbito_hw.control.events import (
    Answered,
    Asked,
    Event,
    NewGame,
    SetupDone,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.journal import SavedAsk
from orbito_hw.control.led_words import colour_word
from orbito_hw.control.lights import AskShown
from orbito_hw.control.machine import Trigger
from orbito_hw.control.menu import CORNERS
from orbito_hw.control.players import Players
from orbito_hw.control.takeback import TakeBacks
from orbito_hw.errors import OrbitoError, echo
from orbito_hw.lang import R_, _, reworded
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import PRESS_TO, Square
from orbito_hw.rules.turn import Turn

log = logging.getLogger(__name__)

What = Literal["take-back", "draw"]
WHATS: Final[tuple[What, ...]] = get_args(What)
REFUSED: Final = R_("refused at the board")
"""An answer's reason when the person at the board refuses and says no more."""


# Why an ask is refused or lapsed: English (the events' and answers' data), marked R_ so that
# each reader sees it in their language (lang.reworded).
GAME_OVER = R_("the game is over")
_WAITING = {
    "take-back": R_("{colour}'s take-back waits for an answer: one ask at a time"),
    "draw": R_("{colour}'s draw waits for an answer: one ask at a time"),
}
_ASKED_ALREADY = {
    "take-back": R_("{colour} asked for a take-back at this turn already: ask after the next turn"),
    "draw": R_("{colour} asked for a draw at this turn already: ask after the next turn"),
}
_ASKED_BY = {
    "take-back": R_("the take-back was asked by {colour}: {other} answers it"),
    "draw": R_("the draw was asked by {colour}: {other} answers it"),
}


class AskRefusedError(OrbitoError, ValueError):
    """An ask, or an answer, that the game does not take now: the reason says why."""


@dataclass(frozen=True)
class Ask:
    """``colour`` asks the other side for ``what`` in game ``game``, after ``number`` turns."""

    game: int
    number: int
    what: What
    colour: Colour

    def to_json(self) -> dict[str, object]:
        return {"what": self.what, "colour": self.colour.value, "number": self.number}


@dataclass(frozen=True)
class Answer:
    """How ``ask`` was answered: ``agreed``, or refused for ``reason``."""

    ask: Ask
    agreed: bool
    reason: str = ""

    def to_json(self) -> dict[str, object]:
        return {**self.ask.to_json(), "agreed": self.agreed, "reason": self.reason}


def what_of(text: str) -> What:
    """``text`` as an ask's ``what``; AskRefusedError naming it otherwise."""
    for what in WHATS:
        if text == what:
            return what
    raise AskRefusedError(f"{echo(text)} is not one of {', '.join(WHATS)}")


def marbles_now(tokens: list[str]) -> tuple[Square, ...]:
    """Where the marbles that the turns ``tokens`` (the last turns of a game) placed or moved
    stand after them: each followed through the moves and presses since, lowest first."""
    followed: list[Square] = []
    for token in tokens:
        turn = Turn.from_notation(token)
        src, dst = turn.move_from, turn.move_to
        followed = [dst if sq == src and dst is not None else sq for sq in followed]
        followed += [sq for sq in (dst, turn.place) if sq is not None]
        followed = [PRESS_TO[sq] for sq in followed]  # every square is on a ring
    return tuple(sorted(set(followed)))


class Asks:
    """The referee's part that keeps the ask waiting for an answer (``pending``) and the
    last answer of the game (``last``), and carries an agreed one out."""

    def __init__(
        self,
        referee: Core,
        players: Players,
        take_backs: TakeBacks,
        new_game: Callable[[Colour], None],
    ) -> None:
        self.referee = referee
        self.players = players  # who plays away, and their turn shown on the LEDs
        self.take_backs = take_backs  # an agreed take-back, carried out
        self.new_game = new_game  # after an agreed draw (the referee's)
        self._pending: Ask | None = None
        self.last: Answer | None = None
        self._asked: set[tuple[int, int, What, Colour]] = set()  # once a position each
        self._looking = False  # a look at the pending ask is due (after the event told)
        # An ask read back from the journal after a restart waits for its player away, of
        # this colour, to come back (a seat at home sits again at its page's next request).
        self._waiting_for: Colour | None = None
        referee.subscribe(self._heard)

    def restore(self) -> None:
        """After a start of the controller (the journal read): the ask that waited before
        the cut waits again, for the same player away; one the game has gone past since
        lapses, told once the board has started."""
        kept = self.referee.saved.ask
        if kept is None:
            return
        what = what_of(kept.what)
        self._pending = Ask(self.referee.saved.game, kept.number, what, kept.colour)
        self._asked.add((self.referee.saved.game, kept.number, what, kept.colour))
        self._waiting_for = kept.away
        self._looking = True
        self.referee.clock.post(self._look)

    def _keep(self, ask: Ask | None, away: Colour | None = None) -> None:
        """``ask`` is the one waiting (None: none): in the journal at the next save."""
        self._pending = ask
        saved = self.referee.saved
        saved.ask = None
        if ask is not None and away is not None and ask.game == saved.game:
            saved.ask = SavedAsk(ask.what, ask.colour, ask.number, away)

    # --- what stands ------------------------------------------------------------------------
    def away(self) -> Colour | None:
        """The colour of the player away (a seat, the other board); None: none plays. After
        a restart, while the ask it left waits, that ask's player away's, come back or not."""
        opponent = self.players.opponent
        if opponent is not None and opponent.by == "remote":
            self._waiting_for = None  # back
            return opponent.colour
        return self._waiting_for if self._pending is not None else None

    @property
    def pending(self) -> Ask | None:
        """The ask waiting for an answer, if it still stands (the game has not gone on)."""
        ask = self._pending
        return ask if ask is not None and not self._lapsed(ask) else None

    def _lapsed(self, ask: Ask) -> str:
        """Why ``ask`` no longer stands; "" while it does."""
        saved, position = self.referee.saved, self.referee.position
        if saved.game != ask.game:
            return R_("a new game began")
        if self.away() not in (ask.colour, ask.colour.other):
            return R_("the player away left the game")
        if len(saved.turns) > ask.number:
            return R_("the game went on: turn {number} was played").format(number=len(saved.turns))
        if len(saved.turns) < ask.number:
            return R_("turn {number} was taken back").format(number=ask.number)
        if position.result is not None:
            return GAME_OVER
        return ""

    def last_turn_of(self, colour: Colour) -> int | None:
        """How many turns stand before ``colour``'s last turn of this game (a take-back
        to it leaves that many); None when ``colour`` has none that may be taken back (a
        set-up's turns may not)."""
        saved = self.referee.saved
        base = len(saved.turns) - saved.own_turns
        for index in range(len(saved.turns) - 1, base - 1, -1):
            mover = saved.first if index % 2 == 0 else saved.first.other
            if mover is colour:
                return index
        return None

    # --- asking -------------------------------------------------------------------------------
    def refusal(self, what: What, colour: Colour) -> str:
        """Why ``colour`` may not ask for ``what`` now; "" when it may."""
        away, referee = self.away(), self.referee
        if away is None:
            return R_("no player away plays this game: nothing to ask across the board")
        if what == "take-back" and colour is not away:
            return R_("the person at the board takes back with a hold of the button")
        if referee.position.result is not None:
            return GAME_OVER
        if not referee.playing:
            return R_("the board is busy (the rings turn, a turn is taken back, or it is set up)")
        pending = self.pending
        if pending is not None:
            if what == "draw" and pending.what == "draw" and pending.colour is not colour:
                return ""  # a draw offered against a draw offered: agreed
            return _WAITING[pending.what].format(colour=pending.colour)
        saved = referee.saved
        if (saved.game, len(saved.turns), what, colour) in self._asked:
            return _ASKED_ALREADY[what].format(colour=colour)
        if what == "take-back":
            shown = self.players.board_turn
            if shown is not None:
                number = len(saved.turns) + 1
                return R_(
                    "turn {number} ({turn}) is on the board's lights: ask once it is made"
                ).format(number=number, turn=shown)
            if self.last_turn_of(colour) is None:
                return R_("{colour} has no turn to take back").format(colour=colour)
        return ""

    def ask(self, what: What, colour: Colour) -> None:
        """``colour`` asks for ``what`` (the referee's ``ask``, under its guard): told (the
        ``ask`` event) and kept for the answer. A draw offered against the other side's
        draw offer accepts it."""
        why = self.refusal(what, colour)
        if why:
            if what == "take-back":
                text = _("{colour}'s ask to take back not taken: {reason}")
            else:
                text = _("{colour}'s draw offer not taken: {reason}")
            log.warning("%s", text.format(colour=colour_word(colour), reason=reworded(why)))
            return
        pending, saved = self.pending, self.referee.saved
        if pending is not None:  # the other side's draw offer: this one accepts it
            self.answer(colour, True, "")
            return
        self._asked.add((saved.game, len(saved.turns), what, colour))
        self._keep(Ask(saved.game, len(saved.turns), what, colour), self.away())
        self.referee.save()
        self.referee.emit(Asked(saved.game, what, colour, len(saved.turns)))
        if what == "take-back":
            text = _("{colour} asks to take back turn {number}")
        else:
            text = _("{colour} offers a draw after turn {number}")
        log.info("%s", text.format(colour=colour_word(colour), number=len(saved.turns)))
        self.referee.draw()  # the LEDs show it

    # --- answering ----------------------------------------------------------------------------
    def answer_refusal(self, colour: Colour, agreed: bool) -> str:
        """Why ``colour`` may not answer the ask waiting (``agreed`` or not) now; "" when it
        may. Only the other side answers an ask."""
        ask = self.pending
        if ask is None:
            return R_("nothing is asked: nothing to answer")
        if colour is ask.colour:
            return _ASKED_BY[ask.what].format(colour=colour, other=colour.other)
        if not agreed:
            return ""
        referee = self.referee
        if ask.what == "draw":
            return can_end(referee)
        if not (referee.can_take_back and self.take_backs.board_as_it_stands):
            return R_("put the board back as the last turn left it, then agree")
        return ""

    def answer(self, colour: Colour, agreed: bool, reason: str = "") -> None:
        """``colour`` answers the ask waiting (the referee's ``answer``, under its guard):
        told (the ``answer`` event); agreed, carried out."""
        why = self.answer_refusal(colour, agreed)
        if why:
            text = _("{colour}'s answer not taken: {reason}")
            log.warning("%s", text.format(colour=colour_word(colour), reason=reworded(why)))
            return
        ask = self.pending
        assert ask is not None
        if agreed and ask.what == "take-back":
            # Back to before the asker's last turn, one turn at a time (takeback.py): the
            # journal has the agreement (and no ask) in one write, so a power cut from here
            # on carries the take-back on to its end.
            self.take_backs.down_to = self.last_turn_of(ask.colour)
        self._tell(ask, agreed, "" if agreed else reason or REFUSED)
        if not agreed:
            return
        if ask.what == "draw":
            end_by_agreement(self.referee, Result.DRAW, self.new_game)
            return
        self.take_backs.start(Trigger.TAKE_BACK, single=True)

    def agree_by_hold(self) -> bool:
        """A hold of the button while a take-back is asked of the person at the board: it
        agrees (the board's own take-back gesture). False when nothing of the kind waits,
        or the board is not as the last turn left it (the hold's take-back then says so)."""
        ask, away = self.pending, self.away()
        if ask is None or ask.what != "take-back" or away is None or ask.colour is not away:
            return False
        if self.answer_refusal(away.other, True):
            return False
        self.answer(away.other, True)
        return True

    def _tell(self, ask: Ask, agreed: bool, reason: str) -> None:
        self._keep(None)
        self._waiting_for = None
        self.last = Answer(ask, agreed, reason)
        self.referee.save()
        self.referee.emit(Answered(ask.game, ask.what, ask.colour, agreed, reason))
        if ask.what == "take-back":
            text = (
                _("{colour}'s take-back agreed")
                if agreed
                else _("{colour}'s take-back not agreed: {reason}")
            )
        else:
            text = (
                _("{colour}'s draw offer accepted")
                if agreed
                else _("{colour}'s draw offer declined: {reason}")
            )
        log.info("%s", text.format(colour=colour_word(ask.colour), reason=reworded(reason)))
        self.referee.draw()  # the LEDs show it no more

    # --- the LEDs ---------------------------------------------------------------------------
    def shown(self) -> AskShown | None:
        """The ask waiting as the LEDs show it over the position (lights.py); None: none,
        or the board is not waiting for a turn."""
        ask = self.pending
        if ask is None or not self.referee.playing:
            return None
        away = self.away()
        if ask.what == "draw":
            squares: tuple[Square, ...] = CORNERS
        else:
            start = self.last_turn_of(ask.colour)
            squares = () if start is None else marbles_now(self.referee.saved.turns[start:])
        return AskShown(ask.what, ask.colour, squares, ask.colour is away)

    # --- lapses -------------------------------------------------------------------------------
    def _heard(self, event: Event) -> None:
        """The game moved: the ask waiting may have lapsed. Looked at once the event is
        told (posted), so that its answer follows the event that ended it."""
        if isinstance(event, TurnPlayed | TakenBack | NewGame | SetupDone):
            self._asked.clear()  # a new position: each side may ask again
        last = self.last
        if isinstance(event, NewGame) and last is not None and last.ask.game != event.game:
            self.last = None  # the last game's
        if self._pending is not None and not self._looking:
            self._looking = True
            self.referee.clock.post(self._look)

    def _look(self) -> None:
        self._looking = False
        ask = self._pending
        if ask is None:
            return
        why = self._lapsed(ask)
        if why:
            self._tell(ask, False, why)
