"""One part's way back: when a part of the board that went, or never came, is tried next.

Every part that comes and goes (the Pico, the LED strip, the sensors, the button) has one
``Reconnect``: the wait before its next try starts at ``first`` once it is gone, doubles
after each try that fails, up to ``cap``, and starts again at ``first`` once it is back.
The board's supervisor (``app/devices.py``) makes one per part and tries each missing part
when its own is due; the Pico's is handed on to its serial link (``hw/serial_link.py``),
which gets the Pico back by itself once it was open (the handshake, a Pico that restarted),
so the Pico's tries follow one schedule whether it was never plugged in or pulled later.
Before, the Pico had two (the supervisor's until it was first opened, the link's after) and
the link a second loop of its own inside a request, each starting again from the shortest
wait: a Pico that stayed away was tried on two interleaved schedules.

Which part is missing is the board's health's (``hw/health.py``); this only says when to
try. Time is the ``WaitClock``'s, so a test advances it instead of waiting.
"""

from __future__ import annotations

import threading
import time
from typing import Protocol


class WaitClock(Protocol):
    """What a reconnect needs of time: now, and a wait that a stop cuts short."""

    def now(self) -> float: ...

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        """Wait ``seconds``, or less if ``stop`` is set meanwhile: whether it was."""
        ...


class MonotonicClock:
    """The machine's own monotonic time (the event loop's is the same)."""

    def now(self) -> float:
        return time.monotonic()

    def wait(self, seconds: float, stop: threading.Event) -> bool:
        return stop.wait(max(0.0, seconds))


class Reconnect:
    """When a part is tried next: ``first`` after it went, twice the last wait after each
    failed try, at most ``cap``; a part back starts again at ``first``."""

    def __init__(self, first: float, cap: float, clock: WaitClock | None = None) -> None:
        self.first = first
        self.cap = cap
        self.clock: WaitClock = clock or MonotonicClock()
        self.gone = False
        self.wait = first  # before the next try
        self.next_try = self.clock.now()

    def lost(self) -> None:
        """The part is gone (or never came): its first try after ``first``. A part already
        gone goes on with its schedule: a request that gave up, a second word of the same
        loss, never start it again at the shortest wait."""
        if not self.gone:
            self.gone = True
            self.wait = self.first
            self.next_try = self.clock.now() + self.wait

    def failed(self) -> None:
        """A try failed: the next after twice the last wait, at most ``cap``."""
        self.gone = True
        self.wait = min(self.wait * 2, self.cap)
        self.next_try = self.clock.now() + self.wait

    def succeeded(self) -> None:
        """The part is back: the next loss starts again at ``first``."""
        self.gone = False
        self.wait = self.first

    def soon(self) -> None:
        """Try at once (a job waits for the part); a failed try doubles the wait as ever."""
        self.next_try = self.clock.now()

    def remaining(self) -> float:
        """Seconds until the next try is due (0: due now)."""
        return max(0.0, self.next_try - self.clock.now())

    def due(self) -> bool:
        return self.remaining() == 0.0

    def pause(self, stop: threading.Event) -> bool:
        """Wait until the next try is due, or ``stop`` is set: whether it was."""
        return self.clock.wait(self.remaining(), stop)
