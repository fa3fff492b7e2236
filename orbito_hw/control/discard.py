"""The question before a game in progress is thrown away: a new game by a hold, agreed on the board.

Holding the button on an empty board starts a new game (docs/gestures.md). An empty board is
also what a person tidying up sees after lifting the marbles of a game still on: the one
marble of a first turn in the hand, every marble in the box. So a hold that would end a game
in progress (``at_stake``: a turn made, or a marble of the game off the board or in the hand,
and no result yet) does not start the new game: the LEDs *ask* first. Every square and the
status pixel pulse in the palette's ``discard`` colour (pulsing is the board's way of asking,
never a hand's step), and then:

- a **second hold** agrees: the game goes to the history unfinished, as any game left, and the
  new game starts (held on, the opponent menu opens after it, as on any empty board);
- a **short press** says no, and so does a **marble put down** (or any square that changes),
  the board's state moving on (a fault, a new game from the page), or ``QUESTION_S`` seconds
  left alone: the question goes and the game goes on exactly as it was.

Why a hold agrees and a press refuses: a hold is the board's deliberate gesture (it takes the
menu's choice and agrees a take-back asked from across the board), where a press is what
a hand does in passing; what cannot be undone takes the deliberate gesture, and the easy one
keeps the game.

The question is not journaled, on purpose: it changes nothing of the game, so a power cut
while it waits leaves the journal as the game left it, and the restarted board plays the game
on (a hold asks again). A question that outlived a cut could be agreed by a hold meant for
something else.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final, Literal

from orbito_hw.control.core import Core
from orbito_hw.control.events import Discard
from orbito_hw.control.machine import State
from orbito_hw.hw.interfaces import TimerHandle

QUESTION_S: Final = 10.0
"""Seconds the question waits for its answer; then it lapses and the game goes on."""

Kept = Literal["press", "marble", "timeout", "moved-on", "new-game"]
"""Why a question ended with the game kept (the ``discard`` event's ``reason``): a short
press, a square changed, nothing for ``QUESTION_S``, the referee's state changed under it;
or a new game started from elsewhere (the page), which the page itself asks about."""


class NewGameQuestion:
    """The question as the referee runs it: ``asked`` while the LEDs ask, and its one timer."""

    def __init__(self, core: Core, start: Callable[[], None]) -> None:
        self.core = core
        self.start = start  # the new game, once agreed
        self.asked = False
        self._timer: TimerHandle | None = None

    def at_stake(self) -> bool:
        """Whether a new game now would end a game in progress: a turn made on this board, or
        (once set up) a marble of the position off the board or in the hand, and no result.
        A finished game is in the history already; a set-up not yet done has nothing of its
        own on the board, and a hold there gives it up as before."""
        core = self.core
        if core.position.result is not None or core.saved.announced:
            return False
        if core.saved.own_turns > 0:
            return True
        if core.state is State.SETTING_UP:
            return False
        return bool(core.position.black | core.position.white) or bool(core.reader.hand)

    def ask(self) -> None:
        """The LEDs ask; the answer is the next hold, press or touch (or the timeout)."""
        self.asked = True
        self._set_timer(QUESTION_S)
        self._tell("asked")
        self.core.draw()

    def agree(self) -> None:
        """The second hold: the question goes, the new game starts."""
        self._end()
        self._tell("agreed")
        self.start()

    def keep(self, why: Kept) -> None:
        """No: the question goes and the game goes on as it was (``why`` in its event)."""
        if self.asked:
            self._end()
            self._tell("cancelled", why)
            self.core.draw()

    def drop(self, why: Kept) -> None:
        """The referee moved on (a new state, a new game from elsewhere): the question goes
        without a frame of its own (the caller draws)."""
        if self.asked:
            self._end()
            self._tell("cancelled", why)

    def _tell(self, state: str, why: str = "") -> None:
        saved = self.core.saved
        self.core.emit(Discard(saved.game, state, saved.own_turns, why))

    def _end(self) -> None:
        self.asked = False
        self._set_timer(None)

    def _set_timer(self, delay: float | None) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if delay is not None:
            self._timer = self.core.clock.call_later(delay, lambda: self.keep("timeout"))
