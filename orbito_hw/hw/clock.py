"""Clocks: a virtual one for the simulated board, and one on an asyncio loop for real boards."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import logging
from collections.abc import Callable
from dataclasses import dataclass, field

from orbito_hw.lang import _

log = logging.getLogger(__name__)

ExceptionHandler = Callable[[Exception, Callable[[], None]], None]
"""What a clock does with an exception that escapes one of its callbacks: given the exception
and the callback (``loop.set_exception_handler`` is asyncio's counterpart)."""


@dataclass(order=True)
class _Timer:
    when: float
    seq: int
    callback: Callable[[], None] = field(compare=False)
    cancelled: bool = field(default=False, compare=False)

    def cancel(self) -> None:
        self.cancelled = True


class VirtualClock:
    """Time that passes only when told to: scripted games run as fast as the CPU allows,
    and the same script always gives the same run."""

    def __init__(self, start: float = 0.0) -> None:
        self._now = start
        self._timers: list[_Timer] = []
        self._seq = itertools.count()
        self._on_exception: ExceptionHandler | None = None

    def set_exception_handler(self, handler: ExceptionHandler | None) -> None:
        """Hand every exception that escapes a timer to ``handler``, as an asyncio loop
        hands it to its exception handler, and run the next timers on; with None (the
        default) the exception goes up through ``advance`` to whoever let time pass."""
        self._on_exception = handler

    def now(self) -> float:
        return self._now

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        timer = _Timer(self._now + max(0.0, delay), next(self._seq), callback)
        heapq.heappush(self._timers, timer)
        return timer

    def post(self, callback: Callable[[], None]) -> None:
        self.call_later(0.0, callback)

    def next_due(self) -> float | None:
        while self._timers and self._timers[0].cancelled:
            heapq.heappop(self._timers)
        return self._timers[0].when if self._timers else None

    def advance(self, seconds: float) -> None:
        """Let ``seconds`` pass, running every timer that falls due, in order."""
        self.run_until(self._now + seconds)

    def run_until(self, when: float) -> None:
        while True:
            due = self.next_due()
            if due is None or due > when:
                break
            timer = heapq.heappop(self._timers)
            self._now = max(self._now, timer.when)
            try:
                timer.callback()
            except Exception as exc:
                if self._on_exception is None:
                    raise
                self._on_exception(exc, timer.callback)
        self._now = max(self._now, when)


def on_loop(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether the calling thread is the one running ``loop`` now."""
    try:
        return asyncio.get_running_loop() is loop
    except RuntimeError:  # no loop runs on this thread
        return False


class LoopClock:
    """The clock of an asyncio event loop: the loop waits on I/O and timers, never polls."""

    monotonic = True
    """Its time is CLOCK_MONOTONIC's (asyncio's ``loop.time()`` is ``time.monotonic()``), the
    clock the kernel stamps GPIO edges with: hw/gpio.py takes those stamps as they are."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def now(self) -> float:
        return self.loop.time()

    def call_later(self, delay: float, callback: Callable[[], None]) -> asyncio.TimerHandle:
        return self.loop.call_later(delay, callback)

    def post(self, callback: Callable[[], None]) -> None:
        """``callback`` on the loop, from any thread (a pin library's, or the loop's own:
        gpiod's edges are read on it, and need no wake-up of the loop). Dropped once the
        loop is closed: the controller has stopped, and a pulse thread that finishes a move
        after it (a stop during a ring move) has no one left to tell."""
        if self.loop.is_closed():
            return
        try:
            if on_loop(self.loop):
                self.loop.call_soon(callback)
            else:
                self.loop.call_soon_threadsafe(callback)
        except RuntimeError:  # closed between the look and the call, by the loop's thread
            if not self.loop.is_closed():
                raise


class ScopedClock:
    """A view of another clock whose timers all die with ``kill()``.

    A power cut on the simulated board kills the controller's clock: its pending timers
    (debounce, hold, ring steps) never fire, while the board's own physics goes on.
    """

    def __init__(self, base: VirtualClock) -> None:
        self.base = base
        self._timers: list[_Timer] = []
        self.dead = False

    def now(self) -> float:
        return self.base.now()

    def call_later(self, delay: float, callback: Callable[[], None]) -> _Timer:
        if self.dead:
            return _Timer(0.0, 0, callback, cancelled=True)
        timer = self.base.call_later(delay, callback)
        self._timers = [t for t in self._timers if not t.cancelled and t.when >= self.now()]
        self._timers.append(timer)
        return timer

    def post(self, callback: Callable[[], None]) -> None:
        self.call_later(0.0, callback)

    def kill(self) -> None:
        self.dead = True
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Close ``loop`` as ``asyncio.run`` closes its own: every task still pending (a web
    page's stream, a spectator's broker client that did not leave in time) is cancelled and
    run to its end first, so that what it holds is let go while the loop can still do it,
    instead of failing later in a destructor ("Event loop is closed", "Task was destroyed
    but it is pending")."""
    if loop.is_closed():
        return
    try:
        pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
        for task in pending:
            task.cancel()
        if pending:
            gather = asyncio.gather(*pending, return_exceptions=True)
            loop.run_until_complete(asyncio.wait_for(gather, CLOSE_S))
        loop.run_until_complete(loop.shutdown_asyncgens())
        # A part being opened on a worker thread (app/devices.py) ends before the loop.
        loop.run_until_complete(asyncio.wait_for(loop.shutdown_default_executor(), CLOSE_S))
    except (TimeoutError, RuntimeError) as exc:  # what would not end: the loop closes anyway
        text = _("closing the event loop: {reason}")
        log.warning("%s", text.format(reason=exc or type(exc).__name__))
    finally:
        loop.close()


CLOSE_S = 5.0
"""Seconds the tasks still pending at the end may take to finish once cancelled."""
