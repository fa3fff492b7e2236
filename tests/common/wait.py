"""The one way a test waits: for what happens, never for a fixed time.

``until`` polls a condition on the test's thread; ``until_async`` awaits it on the loop. Both
give up only after ``DEADLINE_S`` (far beyond any step on a loaded machine, so that only a
board that never gets there times out) and then fail naming what never happened. ``step`` is
what waiting means where time does not pass by itself: advancing a fake clock, running an
event loop a little."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable

DEADLINE_S = 30.0
"""How long a test waits for anything before it fails."""
POLL_S = 0.005
"""How often a condition is looked at while nothing else is to be done."""


def until(
    condition: Callable[[], bool],
    seconds: float = DEADLINE_S,
    what: str = "",
    step: Callable[[], object] | None = None,
    poll: float = POLL_S,
) -> None:
    """Wait (on this thread) for ``condition``; TimeoutError naming ``what`` if it never holds.
    Between two looks the thread sleeps ``poll`` s, then ``step`` is called."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened{': ' + what if what else ''}")
        threading.Event().wait(poll)
        if step is not None:
            step()


async def until_async(
    condition: Callable[[], bool],
    seconds: float = DEADLINE_S,
    what: str = "",
    step: Callable[[], object] | None = None,
    poll: float = POLL_S,
) -> None:
    """``until`` on an event loop: the loop runs between two looks (and ``step`` with it)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened{': ' + what if what else ''}")
        await asyncio.sleep(poll)
        if step is not None:
            step()
