"""The opponent menu: who plays, chosen at the empty board with the button alone.

Holding the button on the empty board starts a new game after the hold time; held on to
``Settings.menu_hold`` it opens this menu. Each short press then shows the next choice on
the LEDs; a hold takes the one shown; a menu left alone closes unchanged. The README's
table of gestures describes it for players.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from orbito_hw.hw.interfaces import Clock, TimerHandle
from orbito_hw.rules.game import Colour

MENU_LEVELS: Final = ("perfect", "5", "4", "3", "2", "1", "random")
"""The levels the menu offers, strongest first (solver/opponents.py's LEVELS by name)."""

MENU_TIMEOUT: Final = 30.0
"""Seconds a menu left alone stays open; then it closes and nothing changes."""


@dataclass(frozen=True)
class Choice:
    """Two people (``level`` None), or the board playing ``colour`` at ``level``."""

    level: str | None = None
    colour: Colour | None = None

    @property
    def player(self) -> str:
        """The board's player name (SPEC.md's PLAYER), or "person" for two people."""
        return "person" if self.level is None else f"board:{self.level}"

    @property
    def strength(self) -> int:
        """How many squares light up for it: 16 for perfect, one more per level above
        random's 1, none for two people."""
        if self.level is None:
            return 0
        rank = MENU_LEVELS.index(self.level)
        return 16 if rank == 0 else len(MENU_LEVELS) - rank


CHOICES: Final[tuple[Choice, ...]] = (
    Choice(),
    *(Choice(level, colour) for level in MENU_LEVELS for colour in (Colour.WHITE, Colour.BLACK)),
)


def choice_of(player: str | None, colour: Colour | None) -> int:
    """Where the menu opens: on the opponent playing now (``player`` "board:LEVEL"), or on
    two people."""
    level = player.removeprefix("board:") if player else None
    for number, choice in enumerate(CHOICES):
        if choice.level == level and choice.colour is colour:
            return number
    return 0


class OpponentMenu:
    """The menu as the referee runs it: the choice shown (``choice``; None: closed) and the
    one timer that opens it during a hold, or closes it when left alone."""

    def __init__(self, clock: Clock, draw: Callable[[], None]) -> None:
        self.clock = clock
        self.draw = draw  # the LEDs show the choice
        self.choice: int | None = None
        self._timer: TimerHandle | None = None

    def set_timer(self, delay: float | None, then: Callable[[], None] | None = None) -> None:
        """The menu's timer, ``then`` after ``delay``; None: none (the old one cancelled)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if delay is not None and then is not None:
            self._timer = self.clock.call_later(delay, then)

    def open(self, player: str | None, colour: Colour | None) -> None:
        """Open on who plays now (``player`` "board:LEVEL" playing ``colour``, or None)."""
        self.choice = choice_of(player, colour)
        self.set_timer(MENU_TIMEOUT, self.close)
        self.draw()

    def next(self) -> None:
        assert self.choice is not None
        self.choice = (self.choice + 1) % len(CHOICES)
        self.set_timer(MENU_TIMEOUT, self.close)
        self.draw()

    def take(self) -> Choice:
        """The choice shown, taken: the menu closes."""
        assert self.choice is not None
        choice = CHOICES[self.choice]
        self.close()
        return choice

    def close(self) -> None:
        self.choice = None
        self.set_timer(None)
        self.draw()
