"""The simulated board in real time: its virtual clock run alongside the event loop's.

The simulated board lives on a virtual clock (hw/clock.py's VirtualClock, sim/harness.py's
MockRun). Here the event loop lets it keep up with real time: ``RealTime`` sleeps until the
virtual clock's next timer falls due, then runs what is due, so the rings turn and the LEDs
blink at their real pace, and an idle board costs no CPU. A command run through the
harness lets virtual time run ahead by a person's gap: the clock then simply goes on from
there. Every real-time world (the page's, the broker's) runs on it.
"""

from __future__ import annotations

import asyncio
import logging

from orbito_hw.lang import _, reworded
from orbito_hw.sim.harness import HUMAN_GAP, MockRun

log = logging.getLogger(__name__)


class RealTime:
    """Runs the simulated board's virtual clock alongside the event loop's."""

    def __init__(self, run: MockRun, loop: asyncio.AbstractEventLoop) -> None:
        self.run = run
        self.loop = loop
        self.ahead = run.clock.now() - loop.time()  # virtual time minus the loop's
        self._timer: asyncio.TimerHandle | None = None
        self.stopped = False

    def wake(self) -> None:
        """Run every virtual timer due by now, then sleep until the next one."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.stopped:
            return
        clock = self.run.clock
        now = self.loop.time() + self.ahead
        if clock.now() > now:  # a command let a person's gap pass: go on from there
            self.ahead = clock.now() - self.loop.time()
            now = clock.now()
        try:
            self.run.advance(now - clock.now())
        except Exception as exc:  # the clock hands the referee's own errors to the referee
            text = _("the simulated board failed: {error}: {reason}")
            log.error("%s", text.format(error=type(exc).__name__, reason=reworded(str(exc))))
        due = clock.next_due()
        if due is not None:
            self._timer = self.loop.call_at(due - self.ahead, self.wake)

    @property
    def asleep(self) -> bool:
        """Whether nothing is due on the simulated board: the loop sleeps on I/O alone."""
        return self._timer is None

    def stop(self) -> None:
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()


def put_back(run: MockRun) -> None:
    """A simulated board starts empty in a new process; a real one keeps its marbles. After
    a restart on a state directory that holds a game, the marbles the referee expects are
    put back, as the players would find them (the referee sees its board corrected)."""
    if run.physics.occupancy() or not run.referee.model:
        return
    for square, marble in sorted(run.referee.model.items()):
        run.physics.put(square, marble.colour)
    run.advance(HUMAN_GAP)
    run.wait_for_rings()
