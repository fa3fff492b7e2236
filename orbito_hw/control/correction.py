"""Correction mode: the board stopped matching what the referee expects (a marble knocked,
a ring move that went wrong). The LEDs show what to put back and what to take off; once the
sensors agree again, play goes on where it stood. A board knocked over for good is set up
again from the journal instead (``control/setup.py``).
"""

from __future__ import annotations

from typing import Protocol

from orbito_hw.control.core import Core
from orbito_hw.control.events import Corrected, Correction
from orbito_hw.control.lights import View
from orbito_hw.rules.squares import squares_of


class Seat(Core, Protocol):
    """The referee as a correction sees it: the core, and the steps that follow one."""

    def _announce(self) -> None: ...

    def _offer(self) -> None: ...


class Corrections:
    def __init__(self, referee: Seat) -> None:
        self.referee = referee

    def enter(self, trigger: str) -> None:
        referee = self.referee
        referee._go(trigger)
        wrong = tuple(squares_of(referee.board.sensors.read() ^ referee.reader.occupied))
        referee._emit(Correction(referee.saved.game, wrong))

    def check(self) -> None:
        """A square changed: play goes on once the board matches again."""
        referee = self.referee
        if referee.sensors.read() != referee.reader.occupied:
            referee._draw()
            return
        referee._emit(Corrected(referee.saved.game))
        if referee.position.is_over:
            referee._go("fixed_over")
            referee._announce()
        else:
            referee._go("fixed_turn" if referee._touched() else "fixed")
            referee._offer()

    def view(self) -> View:
        """The marbles to put back (in their colours) and the squares to clear."""
        referee = self.referee
        reading, expected = referee.sensors.read(), referee.reader.occupied
        missing = referee.reader.colours(squares_of(expected & ~reading))
        extra = tuple(squares_of(reading & ~expected))
        return View("correction", referee.position.to_move, missing=missing, extra=extra)
