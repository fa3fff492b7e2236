"""Hints and the blunder warning, from the solved game.

With hints on, a press before any marble is touched on a person's move shows the best turn
(the ``hint`` event and its squares on the LEDs); a turn that throws the value away is held
back once with a warning (``blunder-warning``), and pressed again with the board unchanged
it is meant, and played. A touch takes the hint or the warning off the LEDs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from orbito_hw.control.core import Core
from orbito_hw.control.events import BlunderWarning, Hint
from orbito_hw.control.lights import View
from orbito_hw.control.players import Players
from orbito_hw.rules.squares import squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.layout import Value, decode

if TYPE_CHECKING:
    from orbito_hw.solver.table import Solution

RANK: Final = {Value.LOSS: 0, Value.DRAW: 1, Value.WIN: 2}
"""Values in order, for telling a turn that throws the value away."""


class Hints:
    """Hints on or off (``on``), and the hint or warning shown until a touch (``shown``)."""

    def __init__(self, referee: Core, players: Players, on: bool) -> None:
        self.referee = referee
        self.players = players  # whether the board is to move
        self.on = on
        self.shown: View | None = None  # the hint or warning on the LEDs, until a touch
        self._warned: tuple[Turn, int] | None = None  # the turn held back, and the reading

    def asked(self) -> bool:
        """A press asks for a hint: hints on, a person's move, no marble touched (on a full
        board an untouched press is the extra press, a turn: it is played, not hinted)."""
        referee = self.referee
        return (
            self.on
            and not self.players.boards_move()
            and not referee.reader.touched
            and not referee.position.is_full
        )

    def show(self) -> None:
        referee = self.referee
        position = referee.position
        analysis = _solution().analyse(position)
        value = analysis.value.value
        referee.emit(Hint(referee.saved.game, position.to_move, analysis.move, value))
        self.shown = View("hint", position.to_move, value=value, hint_turn=analysis.move)
        referee.draw()

    def held_back(self, turn: Turn) -> bool:
        """Hints on, ``turn`` throws the value away for the person: warn and hold it back,
        unless it is the very turn warned of, the board unchanged since (then it is meant)."""
        if not self.on:
            return False
        referee = self.referee
        reading = referee.sensors.read()
        if self._warned == (turn, reading):
            self.forget()
            return False
        solution, position = _solution(), referee.position
        worths = dict(solution.turn_bytes(position))
        before = solution.score(position).value
        after = decode(worths[turn]).value
        if RANK[after] >= RANK[before]:
            return False
        self._warned = (turn, reading)
        referee.emit(BlunderWarning(referee.saved.game, turn, after.value))
        squares = tuple(squares_of(referee.off()))
        self.shown = View("warning", position.to_move, squares, value=after.value)
        referee.draw()
        return True

    def forget(self) -> None:
        self.shown = None
        self._warned = None

    def switch(self, on: bool) -> None:
        """Hints and the blunder warning on or off, at once."""
        self.on = on
        if not on and self.shown is not None:
            self.forget()
            self.referee.draw()


def _solution() -> Solution:
    # Loaded on the first hint only: importing the controller stays light.
    from orbito_hw.solver.table import shipped_solution

    return shipped_solution()
