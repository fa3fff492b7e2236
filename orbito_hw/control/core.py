"""What the referee's parts see of the referee: the game as journaled, the board through
the guard, and the few steps of the machine they take.

The referee (referee.py) holds the state machine; its parts (players.py, hints.py,
takeback.py) each carry one idea of it and work on the referee through this protocol, so
that none of them imports the referee (no import cycle, not even for type checking) and
each says exactly what it needs.
"""

from __future__ import annotations

from typing import Protocol

from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.events import Event
from orbito_hw.control.guard import GuardedBoard
from orbito_hw.control.journal import Saved
from orbito_hw.control.lights import View
from orbito_hw.control.reading import TurnReader
from orbito_hw.hw.interfaces import Clock
from orbito_hw.rules.game import Position
from orbito_hw.rules.turn import Turn


class Core(Protocol):
    """The referee as its parts use it."""

    board: GuardedBoard
    clock: Clock
    sensors: Debouncer
    saved: Saved
    reader: TurnReader
    _refusal: View | None  # the refusal shown, until a touch
    _finishing: int  # whole places a ring move was finished by so far
    _drive_fault: str  # what the drive last said between moves: a fault, or ""

    @property
    def position(self) -> Position: ...

    def _emit(self, event: Event) -> None: ...

    def _go(self, trigger: str) -> None: ...

    def _save(self) -> None: ...

    def _draw(self) -> None: ...

    def _fault(self, reason: str) -> None: ...

    def _touched(self) -> bool: ...

    def _off(self, wanted: Turn | None = None) -> int: ...
