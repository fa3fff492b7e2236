"""What the LEDs show: the referee describes a ``View``, the ``LightShow`` draws it.

Kept apart from the referee so the state machine is tested without any strip, and the
drawing (blinks, pulses) is tested without any game.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Literal

from orbito_hw.control import guide as guides
from orbito_hw.control.guide import Flow, Guide, Step
from orbito_hw.control.menu import Choice
from orbito_hw.control.reading import Marble
from orbito_hw.hw.interfaces import RGB, Clock, Lights, TimerHandle, rgb_hex
from orbito_hw.rules.game import Colour, Position, Result
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
    "discard",
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
    # Throw this game away? A hold on the empty board during a game asks first: every square
    # and the status pixel pulse in this colour until a second hold agrees (discard.py).
    discard: RGB = (255, 32, 0)  # #ff2000, pulsing

    def hint(self, value: str) -> RGB:
        """The status pixel for a hint worth ``value`` ("win", "draw" or "loss")."""
        return {"win": self.hint_win, "draw": self.hint_draw}.get(value, self.hint_loss)

    def marble(self, colour: Colour) -> RGB:
        return self.black if colour is Colour.BLACK else self.white


@dataclass(frozen=True)
class AskShown:
    """An ask across the board waiting for its answer (asks.py), as the LEDs show it over the
    position: ``squares`` pulse in the colour of the side that asks (``colour``), the status
    pixel pulses in the colour of what is asked (the take-back's cyan, the draw's orange).
    A take-back lights the marbles of the turns it would take back, where they stand now; a
    draw the four corners. ``away``: the player away asks (else the person at the board, who
    waits for their answer)."""

    what: str  # "take-back" or "draw"
    colour: Colour
    squares: tuple[Square, ...]
    away: bool = True


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
    guide: Guide | None = None  # what is left to do, as far as the hands got (guide.py);
    # None: the one the fields above describe, nothing done (``guide_of``)
    ask: AskShown | None = None  # "play": an ask waiting for its answer, over the position


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
        draw = view.mode == "result" and view.result is Result.DRAW
        if draw or view.mode == "discard" or view.ask is not None:  # pulsing
            return self.pulse_period / 20
        return self.blink_period

    def _tick(self) -> None:
        self._timer = None
        self._phase += 1
        self._draw()

    def _compose(self, view: View) -> tuple[dict[int, RGB], RGB | None, bool]:
        p = self.palette
        on = self._phase % 2 == 0
        guide = guide_of(view)
        if guide is not None:  # a guided flow: what is left to do, square by square
            lit = guide_frame(guide, p, on)
            status, blinks = guide_status(view, guide, p)
            animated = blinks or any(light_of(guide.flow, s, p)[1] for s in guide.left())
            return lit, status if on or not blinks else status_off(view, p), animated
        if view.mode == "menu" and view.menu is not None:
            if view.menu.made and view.menu.colour is not None:  # an invitation, confirmed
                return (
                    (self._menu(view.menu) if on else {}),
                    p.marble(view.menu.colour) if on else None,
                    True,
                )
            return self._menu(view.menu), p.board if on else None, True
        if view.mode == "result" and view.result is not None:
            lit = result_frame(view.result, view.lines, p)
            if view.result is Result.DRAW:
                level = self._pulse()
                lit = {sq: _dim(c, level) for sq, c in lit.items()}
                return lit, p.draw, True
            return (lit if on else {}), next(iter(lit.values()), None), True
        if view.mode == "warning":
            lit = dict.fromkeys(view.squares, p.warning) if on else {}
            return lit, p.warning if on else None, True
        if view.mode == "discard":  # throw this game away? every square and the status pulse
            colour = _dim(p.discard, self._pulse())
            return dict.fromkeys(SQUARES, colour), colour, True
        if view.mode in ("rotating", "starting"):
            return {}, p.moving, False
        if view.mode == "fault":
            return {}, p.fault if on else None, True
        if view.ask is not None:  # an ask waits: its squares and the status pixel pulse
            level, ask = self._pulse(), view.ask
            lit = dict.fromkeys(ask.squares, _dim(p.marble(ask.colour), level))
            return lit, _dim(ask_status(ask, p), level), True
        return {}, p.marble(view.to_move) if view.to_move else None, False

    def _pulse(self) -> float:
        """How bright a pulse is at this phase: from a tenth to full, and back, each
        ``pulse_period`` (a draw's whole board, an ask waiting)."""
        return 0.55 + 0.45 * math.cos(2 * math.pi * self._phase / 20)

    def _menu(self, choice: Choice) -> dict[int, RGB]:
        """The opponent menu: two people light a1..d1 in both marble colours in turn; the
        board lights as many squares as its level is strong (a1, b1, ... all 16 for
        perfect) in the colour of the marbles it plays; an invitation the four corners in
        the colour the seat plays; the status pixel blinks the board's-turn colour (an
        invitation made: the corners and the status pixel blink in the seat's colour)."""
        p = self.palette
        if choice.colour is None:
            return {sq: p.marble(Colour.BLACK if sq % 2 == 0 else Colour.WHITE) for sq in range(4)}
        return dict.fromkeys(choice.squares, p.marble(choice.colour))

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


def guide_of(view: View | None) -> Guide | None:
    """The guide the view shows: its own, else the one its fields describe (a view built
    without the board's progress: a test's, a page's): nothing done yet."""
    if view is None:
        return None
    if view.guide is not None:
        return view.guide
    mode, seen = view.mode, dict(view.seen)
    fresh = None
    turn = view.hint_turn if view.mode == "hint" else view.board_turn
    if turn is not None and view.to_move is not None and mode in ("play", "hint", "refused"):
        fresh = guides.fresh(turn, view.to_move, "hint" if mode == "hint" else "board-turn")
    if mode == "refused":
        return guides.refused(view.squares, seen, fresh)
    if mode == "correction":
        return guides.correction(view.missing, view.extra, seen)
    if mode == "undo":
        steps = [Step("take-off", sq, seen=seen.get(sq)) for sq in view.extra]
        steps += [Step("put-back", sq, c) for sq, c in view.missing]
        return Guide("undo", tuple(steps), view.to_move)
    if mode == "setup":
        return guides.setup(view.missing, view.later, view.extra, view.to_move)
    return fresh


def follow(view: View, position: Position, marbles: Mapping[Square, Marble]) -> View:
    """``view`` with its guide as far as the hands got: the board's turn, and a press
    refused on its move, from the marbles as the lifts and puts left them."""
    turn = view.board_turn
    if turn is None or view.mode not in ("play", "refused") or view.to_move is None:
        return view
    made = guides.board_turn(position, turn, {sq: m.colour for sq, m in marbles.items()})
    if view.mode == "refused":
        made = guides.refused(view.squares, dict(view.seen), made)
    return replace(view, guide=made)


# --- a guided flow's lights (guide.py): one step per square, the status pixel -------------
def step_light(flow: Flow, step: Step, palette: Palette) -> tuple[RGB, bool]:
    """A step's colour at full and whether it blinks, as the step to do now. A step
    waiting shows the same colour dimly and steady (``light_of``); a step done is dark.

    The board's turn: ``lift`` blinks yellow (``board_from``), ``put`` blinks green
    (``board_to``), ``place`` blinks the board's marble colour. A marble to put back or
    swap shows its colour, steady. A marble to take off shows red (the take-back's: cyan,
    blinking; a correction's: steady), a square to undo after a refusal blinks red."""
    p, action = palette, step.action
    if action == "lift":
        return p.board_from, True
    if action == "put":
        return p.board_to, True
    if action in ("place", "put-back", "swap"):
        assert step.colour is not None
        return p.marble(step.colour), action == "place" and flow != "setup"
    if action == "take-off":
        if flow == "undo":
            return p.undo, True
        return p.error, flow != "correction"
    return p.error, True  # "undo": what was done on a square at fault


def light_of(flow: Flow, step: Step, palette: Palette) -> tuple[RGB, bool]:
    """What the step's square shows: the step's light now, dimmed and steady waiting."""
    colour, blinks = step_light(flow, step, palette)
    if step.progress == "waiting":
        return dimmed(colour), False
    return colour, blinks


def dimmed(colour: RGB) -> RGB:
    """A colour as a step waiting shows it (and a set-up's square to fill later)."""
    return _dim(colour, SETUP_LATER)


def guide_frame(guide: Guide, palette: Palette, on: bool = True) -> dict[Square, RGB]:
    """The squares a guide lights (``on``: the first half of a blink): exactly the
    squares with a step left, each in its first step's light."""
    lit = {}
    for sq, step in guide.shown().items():
        colour, blinks = light_of(guide.flow, step, palette)
        if on or not blinks:
            lit[sq] = colour
    return lit


def guide_status(view: View, guide: Guide, palette: Palette) -> tuple[RGB | None, bool]:
    """The status pixel of a guided flow and whether it blinks: red while something is to
    be put right (a refusal, a correction, a square wrong during the board's turn); the
    board's turn purple, blinking once only the press is left; a hint its value's colour;
    the take-back cyan, blinking; a set-up alternating with the colour to put on."""
    p, flow = palette, guide.flow
    if flow in ("refused", "correction"):
        return p.error, False
    if flow == "undo":
        return p.undo, True
    if flow == "setup":
        return p.setup, True
    if flow == "hint":
        return p.hint(view.value or ""), False
    if guide.fixes:
        return p.error, False
    return p.board, guide.press_now


def ask_status(ask: AskShown, palette: Palette) -> RGB:
    """The status pixel's colour while ``ask`` waits (pulsing): what is asked."""
    return palette.undo if ask.what == "take-back" else palette.draw


def status_off(view: View, palette: Palette) -> RGB | None:
    """The status pixel in a blink's second half: dark, or in a set-up the colour to put on."""
    if view.mode == "setup" and view.to_move is not None:
        return palette.marble(view.to_move)
    return None
