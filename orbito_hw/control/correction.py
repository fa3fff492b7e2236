"""Correction mode: the board stopped matching what the referee expects (a marble knocked,
a ring move that went wrong, or, with sensors that tell colours, a marble of the other colour:
a swapped pair). The LEDs show what to put back and what to take off; once the sensors agree
again, colour for colour where they tell colours, play goes on where it stood. A board
knocked over for good is set up again from the journal instead (``control/setup.py``).
"""

from __future__ import annotations

from orbito_hw.control import guide
from orbito_hw.control.core import Core
from orbito_hw.control.events import Corrected, Correction
from orbito_hw.control.lights import View
from orbito_hw.control.machine import Trigger
from orbito_hw.control.players import Players
from orbito_hw.control.seen import board_off, seen_at, wrong_colours
from orbito_hw.control.takeback import TakeBacks
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import squares_of


class Corrections:
    def __init__(self, referee: Core, players: Players, take_backs: TakeBacks) -> None:
        self.referee = referee
        self.players = players  # offered the next turn once the board is right
        self.take_backs = take_backs  # an agreed take-back cut between its turns goes on

    def off(self) -> int:
        """The squares where the board differs from what the referee expects."""
        return board_off(self.referee.sensors, *self.referee.reader.masks())

    def enter(self, trigger: Trigger) -> None:
        referee = self.referee
        referee.go(trigger)
        wrong = tuple(squares_of(self.off()))
        referee.emit(Correction(referee.saved.game, wrong, self._swapped()[1]))

    def check(self) -> None:
        """A square changed: play goes on once the board matches again."""
        referee = self.referee
        if self.off():
            referee.draw()
            return
        referee.emit(Corrected(referee.saved.game))
        if self.take_backs.carry_on(Trigger.TAKE_BACK):
            return
        if referee.position.is_over:
            referee.go(Trigger.FIXED_OVER)
            referee.announce()
        else:
            referee.go(Trigger.FIXED_TURN if referee.reader.touched else Trigger.FIXED)
            self.players.offer()

    def _swapped(self) -> tuple[tuple[tuple[int, Colour], ...], tuple[tuple[int, Colour], ...]]:
        """The squares holding a marble of the other colour: with the colour that belongs
        there, and with the colour seen."""
        referee = self.referee
        swapped = wrong_colours(referee.sensors, *referee.reader.masks())
        return swapped, seen_at(referee.sensors, (sq for sq, _ in swapped))

    def view(self) -> View:
        """The marbles to put back (in their colours), the squares to clear, and the
        marbles of the other colour (the colour that belongs there shown on them)."""
        referee = self.referee
        reading, expected = referee.sensors.read(), referee.reader.occupied
        missing = referee.reader.colours(squares_of(expected & ~reading))
        swapped, seen = self._swapped()
        extra = tuple(squares_of(reading & ~expected))
        missing = tuple(sorted(missing + swapped))
        to_move = referee.position.to_move
        steps = guide.correction(missing, extra, dict(seen))
        return View("correction", to_move, missing=missing, extra=extra, seen=seen, guide=steps)
