"""Setting a position up by the LEDs: a game that starts from the position a record reaches.

The board asks for the position (the ``setup`` event) and the person puts marbles on and
lifts them off in any order; the sensors say what is on the board, so nothing of the
set-up but its target is journaled: after a power cut it goes on from the same target,
the sensors telling what is still to do. Once they read exactly the squares asked for, the
game goes on from there (``setup-done``), its next turn numbered after the record's.

Presence sensors cannot tell colours: a square to fill is satisfied by any marble (the
colours are trusted to the person), and a marble on a square that must stay empty is
flagged. Sensors that tell colours are held to them: a marble of the wrong colour leaves its
square still to do, lit in the colour that belongs there, and a press names it. To be
easy to follow, the LEDs guide one colour at a time: the squares for the colour that
placed first show that colour, the other colour's squares show dimly until those are done
(a marble may go on them at any time all the same); squares to clear blink red; the status
pixel alternates between the set-up colour and the colour to put on now. A press while
the set-up is not done changes nothing: it tells what is still to do (a ``rejected`` event
listing the squares) and lights every square still to fill at full brightness.

A puzzle is a set-up from a record plus a goal watched until the game ends: ``begin``
takes the record and where it came from (``origin``), and ``on_done`` is called once the
position stands, for whoever set it up to watch the game from there.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from orbito_hw.control import guide
from orbito_hw.control.core import Core
from orbito_hw.control.events import Rejected, SetupAsked, SetupDone
from orbito_hw.control.guard import cut
from orbito_hw.control.hints import Hints
from orbito_hw.control.journal import Saved
from orbito_hw.control.led_words import colour_word
from orbito_hw.control.lights import View
from orbito_hw.control.machine import Trigger
from orbito_hw.control.players import Players
from orbito_hw.control.reading import TurnReader
from orbito_hw.control.seen import board_off, seen_at, wrong_colours
from orbito_hw.errors import OrbitoError, echo
from orbito_hw.lang import R_, _
from orbito_hw.rules.game import BAD_RECORD_TURN, Colour, Position, ReplayError, replay
from orbito_hw.rules.squares import square_name, squares_of

log = logging.getLogger(__name__)


# What a press during a set-up is told: English (the refusal's data), marked R_ so that each
# reader sees it in their language (lang.reworded).
SETTING_UP = R_("setting up: {todo}")
SETTING_UP_WRONG = {
    Colour.BLACK: R_("setting up: {todo}; {square} holds a white marble, black belongs there"),
    Colour.WHITE: R_("setting up: {todo}; {square} holds a black marble, white belongs there"),
}
STILL_TO_DO = (R_("1 square still to do (lit)"), R_("{n} squares still to do (lit)"))
"""The count said in a sentence of its own, one and many: a language agrees its words."""


class SetupError(OrbitoError, ValueError):
    """A record that cannot be set up (a turn the rules refuse, a finished game): one line."""


def check_record(first: Colour, tokens: Sequence[str]) -> Position:
    """The position ``tokens`` reaches, ``first`` to move first; SetupError saying why a
    record cannot be set up (a bad turn, or the game it reaches is over)."""
    try:
        position = replay(first, list(tokens))
    except ReplayError as exc:  # a record from a file or a request: shown short, on one line,
        # the token quoted as every message quotes its input (a terminal's escape is shown)
        raise SetupError(
            BAD_RECORD_TURN.format(
                number=exc.number, token=echo(exc.token, 20), reason=cut(exc.reason)
            )
        ) from None
    if position.is_over:
        raise SetupError(
            R_("the game is over after turn {number}: nothing to play from").format(
                number=len(tokens)
            )
        )
    return position


def squares_asked(position: Position) -> tuple[tuple[int, Colour], ...]:
    """Every square the position holds a marble on, with its colour, lowest square first."""
    return tuple(
        (sq, colour)
        for sq in squares_of(position.occupied)
        if (colour := position.colour_at(sq)) is not None
    )


class SetUps:
    """The set-up of a position, from the board's request to the position on the board."""

    def __init__(self, referee: Core, players: Players, hints: Hints) -> None:
        self.referee = referee
        self.players = players  # the board chooses once the position stands
        self.hints = hints  # a hint shown goes
        self.show_all = False  # a press asked what is still to do: every square at full
        # Called once a set-up is done, with the game's number: the hook a puzzle watches
        # its game from (None: nothing to call).
        self.on_done: Callable[[int], None] | None = None

    def begin(
        self,
        first: Colour,
        tokens: Sequence[str],
        next_game: bool | None = None,
        origin: str | None = None,
    ) -> None:
        """A new game from the position ``tokens`` reaches (``check_record`` first: a
        record it refuses is a bug here). It counts as the next game as ``new_game`` does:
        if ``next_game`` says so, by default if the current one had begun."""
        referee = self.referee
        check_record(first, tokens)
        saved = referee.saved
        if saved.turns and not saved.setting_up and referee.position.result is None:
            referee.journal.add_to_history(saved, None)  # the game left goes to the history
        counts = bool(saved.turns) if next_game is None else next_game
        fresh = Saved(game=saved.game + 1 if counts else saved.game, first=first)
        fresh.turns, fresh.base, fresh.origin = list(tokens), len(tokens), origin
        fresh.opponent = saved.opponent  # who plays is kept from game to game
        referee.saved = fresh
        self._ask()

    def again(self) -> bool:
        """Set the journal's game up again where it stands (a board knocked over, stuck in
        correction): the turn in progress is dropped, the committed turns stay. False (and
        nothing done) for a finished game, which has nothing to play from."""
        referee = self.referee
        saved = referee.saved
        if saved.position().is_over:
            return False
        saved.pending, saved.touches, saved.placed_first = None, [], False
        saved.undo, saved.undo_one = None, False
        self._ask()
        return True

    def _ask(self) -> None:
        referee = self.referee
        saved = referee.saved
        saved.setting_up = True
        position = saved.position()
        referee.reader = TurnReader(position)
        referee.pending = None
        referee.refusal = None
        self.show_all = False
        self.hints.forget()
        self.players.forget_choice()  # the board chooses once the position stands
        referee.sensors.resync()
        referee.save()
        referee.emit(SetupAsked(saved.game, squares_asked(position), position.to_move))
        referee.go(Trigger.SET_UP)
        if referee.board_away():  # no sensor to trust: the set-up goes on once it is back
            return
        self.check()

    def resume(self) -> None:
        """After a restart (or a fault) mid set-up: the same target, the sensors say the rest."""
        self.referee.go(Trigger.RESUME_SETUP)
        self.check()

    def touched(self) -> None:
        """A marble put on or lifted off: done, or show what is still to do."""
        self.show_all = False
        self.check()

    def check(self) -> None:
        referee = self.referee
        position = referee.position
        if board_off(referee.sensors, position.black, position.white):
            referee.draw()
            return
        saved, position = referee.saved, referee.position
        saved.setting_up = False
        referee.reader = TurnReader(position)
        self.players.rechoose()  # journaled with the end of the set-up
        referee.save()
        referee.go(Trigger.SET_UP_DONE)
        number, board, to_move = len(saved.turns) + 1, position.board(), position.to_move
        referee.emit(SetupDone(saved.game, board, to_move, number))
        text = _("game {game} set up: {board}, {colour} to play turn {number}")
        log.info(
            "%s",
            text.format(game=saved.game, board=board, colour=colour_word(to_move), number=number),
        )
        if self.on_done is not None:
            self.on_done(saved.game)
        self.players.offer()

    def press(self) -> None:
        """A press before the set-up is done: nothing changes; it says what is still to do."""
        referee = self.referee
        position = referee.position
        squares = tuple(squares_of(board_off(referee.sensors, position.black, position.white)))
        todo = STILL_TO_DO[len(squares) != 1].format(n=len(squares))
        reason = SETTING_UP.format(todo=todo)
        wrong = wrong_colours(referee.sensors, position.black, position.white)
        if wrong:
            sq, colour = wrong[0]
            reason = SETTING_UP_WRONG[colour].format(todo=todo, square=square_name(sq))
        seen = seen_at(referee.sensors, (sq for sq, _colour in wrong))
        referee.emit(Rejected(referee.saved.game, reason, squares, seen))
        self.show_all = True
        referee.draw()

    def view(self) -> View:
        """The squares still to fill, the colour that placed first guided first (the other
        dimly), and the squares to clear."""
        referee = self.referee
        target, reading = referee.position, referee.sensors.read()
        wrong = wrong_colours(referee.sensors, target.black, target.white)
        to_fill = [(sq, c) for sq, c in squares_asked(target) if not reading >> sq & 1]
        to_fill = sorted(to_fill + list(wrong))
        first = referee.saved.first
        now = first if any(c is first for _square, c in to_fill) else first.other
        missing = tuple((sq, c) for sq, c in to_fill if self.show_all or c is now)
        later = tuple((sq, c) for sq, c in to_fill if (sq, c) not in missing)
        extra = tuple(squares_of(reading & ~target.occupied))
        shown = now if missing else target.to_move
        steps = guide.setup(missing, later, extra, shown)
        return View("setup", shown, missing=missing, extra=extra, later=later, guide=steps)
