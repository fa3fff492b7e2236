"""The referee as the outside sees it: one immutable snapshot at a time.

The page, the broker link, the archive's recorder, the logs and the service's status read
the referee through ``Referee.snapshot()`` (and hear it through ``Referee.subscribe``):
never its journal record, its reader, its light show or its sensors, which are the
referee's own and change under it. A snapshot is a copy: changing it changes nothing.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

from orbito_hw.control.asks import Answer, Ask
from orbito_hw.control.board_player import BoardPlayer
from orbito_hw.control.journal import Saved
from orbito_hw.control.lights import Palette, View
from orbito_hw.control.machine import State
from orbito_hw.control.reading import Marble
from orbito_hw.hw.interfaces import RGB
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn


@dataclass(frozen=True)
class Snapshot:
    """The referee at one moment."""

    state: State
    saved: Saved  # a copy of the game as journaled
    position: Position  # at the start of the turn being made
    marbles: Mapping[int, Marble]  # what is left on the board, as the lifts and puts left it
    hand: tuple[Marble, ...]  # lifted and not yet put down, the last lifted last
    touched: bool  # the board differs from the position at the start of the turn
    placed_first: bool  # the turn in progress placed before it moved
    pending: Turn | None  # the turn accepted, its ring move under way
    opponent: BoardPlayer | None  # who plays the board's colour; None: two people
    board_turn: Turn | None  # the turn the board chose and shows, on its move
    hints: bool
    menu: int | None  # the choice the opponent menu shows; None: closed
    can_take_back: bool
    busy: bool
    healthy: bool
    view: View | None  # what the lights show
    leds: tuple[RGB | None, ...]  # the light frame as the lights have it, square by square
    status: RGB | None  # the status pixel
    palette: Palette
    reading: int  # the squares the sensors read a marble on (debounced)
    blink_period: float  # seconds a blink of the lights takes
    ask: Ask | None = None  # asked across the board, waiting for an answer (asks.py)
    answered: Answer | None = None  # the game's last ask answered

    @property
    def game(self) -> int:
        return self.saved.game

    @property
    def first(self) -> Colour:
        return self.saved.first

    @property
    def turns(self) -> tuple[str, ...]:
        return tuple(self.saved.turns)


def frozen_marbles(marbles: Mapping[int, Marble]) -> Mapping[int, Marble]:
    return MappingProxyType(dict(marbles))


def saved_copy(saved: Saved) -> Saved:
    return copy.deepcopy(saved)
