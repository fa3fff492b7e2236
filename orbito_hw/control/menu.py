"""The opponent menu: who plays, chosen at the empty board with the button alone.

Holding the button on the empty board starts a new game after the hold time; held on to
``Settings.menu_hold`` it opens this menu. Each short press then shows the next choice on
the LEDs; a hold takes the one shown; a menu left alone closes unchanged. The README's
table of gestures describes it for players.

Its last item, when the board's page is on (``Settings.invite_seat``), invites a player on a
phone (a seat, docs/seat.md) for the colour the page would choose: the menu only says so; the
app carries it out (the control layer knows no page), and the LEDs confirm it for a moment.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final

from orbito_hw.hw.interfaces import Clock, TimerHandle
from orbito_hw.rules.game import Colour

MENU_LEVELS: Final = ("perfect", "5", "4", "3", "2", "1", "random")
"""The levels the menu offers, strongest first (solver/opponents.py's LEVELS by name)."""

MENU_TIMEOUT: Final = 30.0
"""Seconds a menu left alone stays open; then it closes and nothing changes."""

INVITED_S: Final = 4.0
"""Seconds the LEDs confirm a seat's link made from the menu (or until a marble goes down)."""

CORNERS: Final = (0, 3, 12, 15)
"""a1, d1, a4, d4: the squares an invitation lights (no level lights these four alone)."""


@dataclass(frozen=True)
class Choice:
    """Two people (``level`` None), or the board playing ``colour`` at ``level``; or
    (``seat``) a player on a phone invited to play ``colour``, ``made`` once the link is."""

    level: str | None = None
    colour: Colour | None = None
    seat: bool = False
    made: bool = False

    @property
    def player(self) -> str:
        """The board's player name (SPEC.md's PLAYER), or "person" for two people."""
        return "person" if self.level is None else f"board:{self.level}"

    @property
    def squares(self) -> tuple[int, ...]:
        """The squares its picture lights: a1..d1 for two people (both colours), the
        corners for an invitation, as many as the board's level is strong (from a1)."""
        if self.seat:
            return CORNERS
        if self.level is None:
            return (0, 1, 2, 3)
        return tuple(range(self.strength))

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
    *(Choice(colour=colour, seat=True) for colour in (Colour.WHITE, Colour.BLACK)),
)
"""Every item; an open menu offers the opponents, and one invitation when it can (``offered``)."""


def seat_colour(player: str | None, colour: Colour | None) -> Colour:
    """The colour a player invited from the menu plays, by the page's rule (web/seat.py's
    ``default_colour``): the board's opponent's (``player`` "board:LEVEL"), else white."""
    if player is not None and player.startswith("board:") and colour is not None:
        return colour
    return Colour.WHITE


def offered(player: str | None, colour: Colour | None, invites: bool) -> tuple[int, ...]:
    """The items a menu opened on who plays now offers, in order: the opponents, then, when
    the board can invite (its page is on) and plays no one away (``player`` "remote": the
    other board of a remote game, or a seat already), the invitation for ``seat_colour``."""
    items = tuple(n for n, c in enumerate(CHOICES) if not c.seat)
    if not invites or player == "remote":
        return items
    return (*items, CHOICES.index(Choice(colour=seat_colour(player, colour), seat=True)))


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

    def __init__(self, clock: Clock, draw: Callable[[], None], invites: bool = False) -> None:
        self.clock = clock
        self.draw = draw  # the LEDs show the choice
        self.invites = invites  # the board can invite a player on a phone (its page is on)
        self.choice: int | None = None
        self.items: tuple[int, ...] = ()  # the items the open menu offers (``offered``)
        self.invited: Choice | None = None  # a seat's link just made: the LEDs confirm it
        self._timer: TimerHandle | None = None
        self._confirming: TimerHandle | None = None

    def set_timer(self, delay: float | None, then: Callable[[], None] | None = None) -> None:
        """The menu's timer, ``then`` after ``delay``; None: none (the old one cancelled)."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if delay is not None and then is not None:
            self._timer = self.clock.call_later(delay, then)

    def open(self, player: str | None, colour: Colour | None) -> None:
        """Open on who plays now (``player`` "board:LEVEL" playing ``colour``, or None)."""
        self.items = offered(player, colour, self.invites)
        self.choice = choice_of(player, colour)
        self.confirmed(None)
        self.set_timer(MENU_TIMEOUT, self.close)
        self.draw()

    def next(self) -> None:
        assert self.choice is not None
        items = self.items or tuple(range(len(CHOICES)))
        at = items.index(self.choice) if self.choice in items else -1
        self.choice = items[(at + 1) % len(items)]
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

    def confirmed(self, choice: Choice | None) -> None:
        """The invitation ``choice`` made: the LEDs confirm it for INVITED_S (None: no
        more)."""
        if self._confirming is not None:
            self._confirming.cancel()
            self._confirming = None
        self.invited = None if choice is None else replace(choice, made=True)
        if choice is not None:
            self._confirming = self.clock.call_later(INVITED_S, lambda: self.confirmed(None))
        self.draw()
