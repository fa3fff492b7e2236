"""What the LEDs show: the referee describes a ``View``, the ``LightShow`` draws it.

Kept apart from the referee so the state machine is tested without any strip, and the
drawing (blinks, pulses) is tested without any game.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from orbito_hw.control.menu import Choice
from orbito_hw.hw.interfaces import RGB, Clock, Lights, TimerHandle, rgb_hex
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import SQUARES, Mask, Square, square_name, squares_of
from orbito_hw.rules.turn import Turn

ViewMode = Literal[
    "starting",
    "play",
    "refused",
    "rotating",
    "correction",
    "result",
    "fault",
    "hint",
    "warning",
    "undo",
    "menu",
    "setup",
]
"""What the board is showing: each mode is drawn its own way (``LightShow._compose``)."""


@dataclass(frozen=True)
class Palette:
    """The colours of the LEDs, before the brightness cap. These defaults are the only ones:
    the config file's ``[lights.colours]`` table has these keys and falls back to these."""

    black: RGB = (0, 90, 255)  # #005aff: an LED cannot shine black, black marbles show blue
    white: RGB = (255, 255, 255)  # #ffffff
    error: RGB = (255, 0, 0)  # #ff0000: a square at fault, and the status pixel then
    draw: RGB = (255, 150, 0)  # #ff9600: the whole board, pulsing, after a draw
    moving: RGB = (40, 40, 40)  # #282828: status pixel while the rings turn or home: hands off
    fault: RGB = (255, 0, 255)  # #ff00ff: status pixel, blinking: a hardware fault
    # The board's own turn, for a person to make for it (the placed marble blinks in the
    # board's marble colour): lift here, put it there, and the status pixel says whose turn.
    board_from: RGB = (255, 200, 0)  # #ffc800, blinking: the opponent marble to move
    board_to: RGB = (0, 255, 0)  # #00ff00, steady: where that marble goes
    board: RGB = (160, 0, 255)  # #a000ff: status pixel: the board's turn, make it for me
    # A hint (hints on): the best turn shown like the board's own, the status pixel says
    # what it is worth to the side to move.
    hint_win: RGB = (0, 255, 120)  # #00ff78: status pixel: the best turn wins
    hint_draw: RGB = (255, 220, 0)  # #ffdc00: status pixel: the best turn draws
    hint_loss: RGB = (255, 60, 0)  # #ff3c00: status pixel: every turn loses
    # A blunder warning (hints on): the squares of the turn held back and the status pixel
    # blink in this colour; a second press plays the turn.
    warning: RGB = (255, 0, 120)  # #ff0078, blinking
    # A take-back: the squares to clear blink in this colour, the squares a marble goes back
    # to show that marble's colour, and the status pixel blinks in it until the board shows
    # the position before the turn taken back.
    undo: RGB = (0, 200, 255)  # #00c8ff, blinking
    # Setting a position up: the status pixel alternates between this colour and the colour
    # of the marbles to put on now; the squares for them show their colour, the other
    # colour's squares dimly, the squares to clear blink in ``error``.
    setup: RGB = (128, 255, 0)  # #80ff00, alternating

    def hint(self, value: str) -> RGB:
        """The status pixel for a hint worth ``value`` ("win", "draw" or "loss")."""
        return {"win": self.hint_win, "draw": self.hint_draw}.get(value, self.hint_loss)

    def marble(self, colour: Colour) -> RGB:
        return self.black if colour is Colour.BLACK else self.white


SETUP_LATER = 0.25
"""How bright a square to fill later in a set-up shows (the other colour's), of its colour."""


@dataclass(frozen=True)
class View:
    """What the board should show now.

    ``mode``: one of ``ViewMode``.
    ``squares``: squares at fault ("refused"), ``missing``/``extra``: squares that should
    hold a marble (with its colour) / should be empty ("correction", "undo", "setup");
    ``later``: "setup", squares to fill after the ``missing`` ones (shown dimly), and
    ``to_move`` there is the colour of the marbles to put on now.
    """

    mode: ViewMode
    to_move: Colour | None = None
    squares: tuple[Square, ...] = ()
    missing: tuple[tuple[Square, Colour], ...] = ()
    extra: tuple[Square, ...] = ()
    result: Result | None = None
    lines: tuple[Mask, ...] = ()
    board_turn: Turn | None = None  # the board's turn to make for it ("play", "refused")
    value: str | None = None  # "hint": what the best turn is worth; "warning": after the turn
    hint_turn: Turn | None = None  # "hint": the best turn, shown like the board's own
    menu: Choice | None = None  # "menu": the choice of opponent shown
    later: tuple[tuple[Square, Colour], ...] = ()  # "setup": the other colour's, dimly
    seen: tuple[tuple[Square, Colour], ...] = ()  # "refused", "correction": a colour read
    # on a square at fault, from sensors that tell colours (a marble of the wrong colour)


def result_frame(result: Result, lines: tuple[Mask, ...], palette: Palette) -> dict[Square, RGB]:
    """The lit squares for a result: the winning line(s), or the whole board amber for a draw."""
    if result is Result.DRAW:
        return dict.fromkeys(SQUARES, palette.draw)
    winner = result.winner
    assert winner is not None
    colour = palette.marble(winner)
    mask = 0
    for line in lines:
        mask |= line
    return dict.fromkeys(squares_of(mask), colour)


def frame_names(lit: dict[Square, RGB]) -> dict[str, str]:
    """A frame as SPEC.md's result event writes it: {square: "#rrggbb"}, lit squares only."""
    return {square_name(sq): rgb_hex(c) for sq, c in sorted(lit.items())}


@dataclass
class LightShow:
    """Draws views on the strip, animating blinks and pulses on the board's clock."""

    lights: Lights
    clock: Clock
    palette: Palette = field(default_factory=Palette)
    blink_period: float = 0.5
    pulse_period: float = 2.0
    _timer: TimerHandle | None = None
    _phase: int = 0
    view: View | None = None
    # Told after each frame drawn (a page that shows the lights): the blinks run for them
    # even on a board built without LEDs.
    watchers: list[Callable[[], None]] = field(default_factory=list)
    alert: RGB | None = None  # the status pixel taken over (a link down), steady
    _last: tuple[list[RGB | None], RGB | None] | None = None  # the frame drawn last

    def update(self, view: View) -> None:
        if view == self.view:
            return
        self.view = view
        self._stop()
        self._phase = 0
        self._draw()

    def _stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _draw(self) -> None:
        view = self.view
        assert view is not None
        lit, status, animated = self._compose(view)
        frame: list[RGB | None] = [lit.get(sq) for sq in SQUARES]
        self._show(frame, status)
        if animated and (self.watchers or watched(self.lights)):
            self._timer = self.clock.call_later(self._tick_period(view), self._tick)

    def subscribe(self, drawn: Callable[[], None]) -> None:
        """``drawn`` after each frame from now on, the view drawn again from its first phase
        so that its blinking starts (a page came to watch)."""
        self.watchers.append(drawn)
        self.refresh()

    def take_status(self, colour: RGB | None) -> None:
        """The status pixel shows ``colour`` steady over whatever the view shows (a game's
        link down); None: the view's own again."""
        if colour != self.alert:
            self.alert = colour
            if self._last is not None:
                self._show(*self._last)

    def _show(self, frame: list[RGB | None], status: RGB | None) -> None:
        self._last = (frame, status)
        self.lights.show(frame, self.alert or status)
        for watcher in list(self.watchers):
            watcher()

    def refresh(self) -> None:
        """Draw the view again from its first phase: after ``lights`` was replaced, so
        that its blinking starts."""
        if self.view is not None:
            self._stop()
            self._phase = 0
            self._draw()

    def _tick_period(self, view: View) -> float:
        if view.mode == "result" and view.result is Result.DRAW:
            return self.pulse_period / 20
        return self.blink_period

    def _tick(self) -> None:
        self._timer = None
        self._phase += 1
        self._draw()

    def _compose(self, view: View) -> tuple[dict[int, RGB], RGB | None, bool]:
        p = self.palette
        turn_colour = p.marble(view.to_move) if view.to_move else None
        if view.mode == "refused":
            on = self._phase % 2 == 0
            lit = self._board_turn(view) if view.board_turn else {}
            lit.update(dict.fromkeys(view.squares, p.error) if on else {})
            return lit, p.error, True
        if view.mode == "correction":
            lit = {sq: p.marble(c) for sq, c in view.missing}
            lit.update(dict.fromkeys(view.extra, p.error))
            return lit, p.error, False
        if view.mode == "menu" and view.menu is not None:
            return self._menu(view.menu), p.board if self._phase % 2 == 0 else None, True
        if view.mode == "undo":
            on = self._phase % 2 == 0
            lit = {sq: p.marble(c) for sq, c in view.missing}
            lit.update(dict.fromkeys(view.extra, p.undo) if on else {})
            return lit, p.undo if on else None, True
        if view.mode == "setup":
            on = self._phase % 2 == 0
            lit = {sq: _dim(p.marble(c), SETUP_LATER) for sq, c in view.later}
            lit.update({sq: p.marble(c) for sq, c in view.missing})
            lit.update(dict.fromkeys(view.extra, p.error) if on else {})
            return lit, p.setup if on else turn_colour, True
        if view.mode == "result" and view.result is not None:
            lit = result_frame(view.result, view.lines, p)
            if view.result is Result.DRAW:
                level = 0.55 + 0.45 * math.cos(2 * math.pi * self._phase / 20)
                lit = {sq: _dim(c, level) for sq, c in lit.items()}
                return lit, p.draw, True
            on = self._phase % 2 == 0
            return (lit if on else {}), next(iter(lit.values()), None), True
        if view.mode == "hint" and view.hint_turn is not None:
            return self._board_turn(view, view.hint_turn), p.hint(view.value or ""), True
        if view.mode == "warning":
            on = self._phase % 2 == 0
            lit = dict.fromkeys(view.squares, p.warning) if on else {}
            return lit, p.warning if on else None, True
        if view.mode in ("rotating", "starting"):
            return {}, p.moving, False
        if view.mode == "fault":
            return {}, p.fault if self._phase % 2 == 0 else None, True
        if view.board_turn is not None:
            return self._board_turn(view), p.board, True
        return {}, turn_colour, False

    def _menu(self, choice: Choice) -> dict[int, RGB]:
        """The opponent menu: two people light a1..d1 in both marble colours in turn; the
        board lights as many squares as its level is strong (a1, b1, ... all 16 for
        perfect) in the colour of the marbles it plays; the status pixel blinks the
        board's-turn colour."""
        p = self.palette
        if choice.colour is None:
            return {sq: p.marble(Colour.BLACK if sq % 2 == 0 else Colour.WHITE) for sq in range(4)}
        return dict.fromkeys(range(choice.strength), p.marble(choice.colour))

    def _board_turn(self, view: View, shown: Turn | None = None) -> dict[int, RGB]:
        """The board's turn: the marble to move blinks in ``board_from``, its target is
        steady ``board_to``, the square to place on blinks in the board's marble colour,
        out of step with the source (the place may be the square the marble left: it then
        alternates between the two colours, each step in turn)."""
        turn, p = shown or view.board_turn, self.palette
        assert turn is not None and view.to_move is not None
        first_half = self._phase % 2 == 0
        lit: dict[int, RGB] = {}
        if turn.move_from is not None and turn.move_to is not None:
            lit[turn.move_to] = p.board_to
            if first_half:
                lit[turn.move_from] = p.board_from
        if turn.place is not None and not first_half:
            lit[turn.place] = p.marble(view.to_move)
        return lit

    def close(self) -> None:
        self._stop()
        self.lights.close()


def watched(lights: Lights) -> bool:
    """Whether anyone sees what ``lights`` show: not a board built without LEDs
    (``watched = False``) with no page tapping its frames. Nobody watching, nothing blinks:
    an idle board wakes only for the watchdog. Lights without the attribute are seen."""
    return bool(getattr(lights, "watched", True))


def _dim(colour: RGB, level: float) -> RGB:
    r, g, b = colour
    return (round(r * level), round(g * level), round(b * level))
