"""Take-backs: the last turn undone, by the rings and by hand.

Holding the button during a game takes back its last turn: the take-back is journaled
("turning"), the rings turn back one place ("turned"), the LEDs show what to undo, and once
the sensors show the position before the turn it is gone from the game. Against the board,
taking back the board's turn takes back the person's before it too. A power cut at any
step resumes it from the journal and the sensors: what was undone by hand while the board
was off counts, and an agreed take-back of several turns (asks.py) goes on to its end.
"""

from __future__ import annotations

import logging
from typing import Final

from orbito_hw.control import guide
from orbito_hw.control.core import Core
from orbito_hw.control.events import Rejected, TakeBack, TakenBack
from orbito_hw.control.hints import Hints
from orbito_hw.control.lights import View
from orbito_hw.control.machine import Trigger
from orbito_hw.control.players import Players
from orbito_hw.control.reading import TurnReader
from orbito_hw.control.seen import board_off, put_colour
from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.lang import R_, _
from orbito_hw.rules.game import replay
from orbito_hw.rules.squares import parse_square, squares_of
from orbito_hw.rules.turn import Turn

log = logging.getLogger(__name__)

MAX_FINISHING_MOVES: Final = 2
"""Whole places a ring move may be finished by, before the players are asked to look."""


def distance(a: int, b: int) -> int:
    """How many squares two sensor readings differ on."""
    return (a ^ b).bit_count()


class TakeBacks:
    """The take-back of the last turn, from the hold to the position before it."""

    def __init__(self, referee: Core, players: Players, hints: Hints) -> None:
        self.referee = referee
        self.players = players  # the board's choice forgotten or made again, the turn offered
        self.hints = hints  # a hint shown goes

    @property
    def down_to(self) -> int | None:
        """An agreed take-back (asks.py) goes down to this many turns, one turn at a time;
        None: a take-back as the hold makes it. Journaled (``undo_to``): a power cut between
        its turns goes on to the next one after the restart (``carry_on``)."""
        return self.referee.saved.undo_to

    @down_to.setter
    def down_to(self, turns: int | None) -> None:
        self.referee.saved.undo_to = turns

    @property
    def board_as_it_stands(self) -> bool:
        """Whether the board shows the game as its turns left it: no turn in progress, no
        marble in the hand, none missing or extra. Only from there may the rings turn back."""
        referee = self.referee
        position = referee.saved.position()
        off = board_off(referee.sensors, position.black, position.white)
        return not (referee.reader.touched or referee.reader.hand or off)

    def ask(self, single: bool = False) -> None:
        """A take-back asked for: the rings turn back only from the board as the game
        stands (the turn in progress undone, nothing missing): else a refusal says what
        to put back, and the next hold asks again."""
        referee = self.referee
        self.down_to = None  # the hold's (or the page's) own take-back
        if not referee.can_take_back:
            return
        if not self.board_as_it_stands:
            position = referee.saved.position()
            off = board_off(referee.sensors, position.black, position.white)
            squares = tuple(squares_of(off | referee.off()))
            reason = R_("put the board back as the last turn left it, then hold to take it back")
            referee.emit(Rejected(referee.saved.game, reason, squares))
            # What to put back, and what to take off, to stand as the last turn left it.
            now = {sq: m.colour for sq, m in referee.reader.marbles.items()}
            steps = guide.undo(position, now, "refused")
            referee.refusal = View("refused", referee.position.to_move, squares, guide=steps)
            referee.draw()
            return
        self.start(Trigger.TAKE_BACK, single)

    def start(self, trigger: Trigger, single: bool = False) -> None:
        referee = self.referee
        saved = referee.saved
        number, token = len(saved.turns), saved.turns[-1]
        saved.undo = "turning"
        saved.undo_one = single
        saved.pending = None
        saved.touches = []
        saved.placed_first = False
        referee.refusal = None
        self.hints.forget()
        referee.save()
        referee.emit(TakeBack(saved.game, number, Turn.from_notation(token)))
        referee.go(trigger)
        referee.finishing = 0
        referee.board.drive.move(-1, self._turned_back)

    def _turned_back(self, report: MoveReport) -> None:
        """Off the index, the backward move lost steps: home (forward, to the place it left)
        and turn back again, a bounded number of times."""
        referee = self.referee
        if report.fault:
            return referee.fault(report.fault)
        if not report.at_index:
            if referee.finishing >= MAX_FINISHING_MOVES:
                return referee.fault("the rings did not turn back to the index")
            referee.finishing += 1
            log.warning("%s", _("the rings stopped off the index turning back: homing, then again"))
            referee.board.drive.home(self._home_then_back)
            return
        referee.clock.call_later(referee.settle, self._settled_back)

    def _home_then_back(self, report: MoveReport) -> None:
        if report.fault:
            return self.referee.fault(report.fault)
        self.referee.board.drive.move(-1, self._turned_back)

    def _settled_back(self) -> None:
        referee = self.referee
        if referee.board_away():
            return
        referee.sensors.resync()
        referee.saved.undo = "turned"
        referee.saved.touches = []
        referee.reader = self.undo_reader()
        referee.save()
        referee.go(Trigger.TURNED_BACK)
        self.check_undone()

    def undo_reader(self) -> TurnReader:
        """The marbles as the rings left them turning back (the last turn made, before its
        press), then the lifts and puts of its undoing so far: they end on the position
        before the last turn."""
        saved = self.referee.saved
        before = replay(saved.first, saved.turns[:-1])
        reader = TurnReader(before, before.before_press(Turn.from_notation(saved.turns[-1])))
        for kind, name in saved.touches:
            reader.sense(parse_square(name), kind == "put")
        return reader

    def resume(self, reading: int) -> None:
        """After a restart mid take-back: the journal says whether the rings had turned back;
        while it says "turning" the sensors tell (nearer the layout before the press than the
        position after it: they had), and a full board, which reads the same either way,
        trusts the journal and turns back. Once they had, what the hands undid while the
        board was off counts: a board already as the take-back leaves it finishes it."""
        referee = self.referee
        saved = referee.saved
        if saved.undo == "turning":
            back, ahead = saved.undo_start(), saved.position().occupied
            if back == ahead or distance(reading, back) >= distance(reading, ahead):
                referee.go(Trigger.RESUME_TURNING)
                referee.board.drive.move(-1, self._turned_back)
                return
            saved.undo = "turned"
            referee.reader = self.undo_reader()
            referee.save()
        self._caught_up(reading)
        referee.go(Trigger.RESUME_UNDO)
        self.check_undone()

    def _caught_up(self, reading: int) -> None:
        """The lifts and puts made while the board was off (the sensors read them, the
        journal has none): taken as touches of the undoing, the lifts first."""
        referee = self.referee
        reader, saved = referee.reader, referee.saved
        held = reader.occupied
        touches = [(sq, False) for sq in squares_of(held & ~reading)]
        touches += [(sq, True) for sq in squares_of(reading & ~held)]
        for square, present in touches:
            reader.sense(square, present, put_colour(referee.sensors, square, present))
            saved.add_touch(reader, square, present)
        if touches:
            referee.save()

    def carry_on(self, trigger: Trigger) -> bool:
        """After a restart (or the correction after it) between two turns of an agreed
        take-back: the next turn is taken back now, the rings first; True if so."""
        saved = self.referee.saved
        if self.down_to is None or saved.undo is not None:
            return False
        if len(saved.turns) <= self.down_to or saved.own_turns == 0:
            self.down_to = None  # nothing left of it
            self.referee.save()
            return False
        self.players.forget_choice()  # the turn before goes too: nothing to choose yet
        self.start(trigger, single=True)
        return True

    def check_undone(self) -> None:
        """Done once the marbles, as the lifts and puts moved them, are the position before
        the turn taken back, colours and all, and the sensors agree."""
        referee = self.referee
        saved, target = referee.saved, referee.reader.position
        shown = referee.reader.masks() == (target.black, target.white)
        if not shown or board_off(referee.sensors, target.black, target.white):
            referee.draw()  # what is left to undo
            return
        number, token = len(saved.turns), saved.turns.pop()
        one = saved.undo_one
        saved.undo = None
        saved.undo_one = False
        saved.touches = []
        saved.announced = False  # a finished game taken back is open again
        referee.reader = TurnReader(target)
        referee.refusal = None
        # Against the board, its own turn taken back: the person's before it goes too; an
        # agreed take-back goes on down to the turns it leaves.
        if self.down_to is not None:
            again = len(saved.turns) > self.down_to
            one = again  # each turn by itself
            if not again:
                self.down_to = None
        else:
            again = self.players.against(target.to_move) and bool(saved.turns) and not one
        if again:
            self.players.forget_choice()  # the turn before goes too: nothing to choose yet
        else:
            self.players.rechoose()  # journaled with the take-back: shown the same after a cut
        referee.save()
        referee.emit(TakenBack(saved.game, number, target.board(), target.to_move))
        log.info("%s", _("turn {number} ({turn}) taken back").format(number=number, turn=token))
        if again:
            return self.start(Trigger.TAKE_BACK_TOO, single=one)
        referee.go(Trigger.UNDONE)
        self.players.offer()

    def view(self) -> View:
        """What is left to undo: the marbles that must go (the placed one, the moved one, or
        any the wrong colour) blink; an empty square a marble goes back to shows its colour."""
        target, marbles = self.referee.reader.position, self.referee.reader.marbles
        extra = tuple(
            sq for sq, m in sorted(marbles.items()) if target.colour_at(sq) is not m.colour
        )
        missing = tuple(
            (sq, colour)
            for sq in squares_of(target.occupied)
            if sq not in marbles and (colour := target.colour_at(sq)) is not None
        )
        now = {sq: m.colour for sq, m in marbles.items()}
        steps = guide.undo(target, now)  # each marble off first, then the ones back
        return View("undo", target.to_move, missing=missing, extra=extra, guide=steps)
