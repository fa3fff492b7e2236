"""The board's health, held in one place: which parts are there, missing or failing.

Before this, whether a part was missing was held four times over (the supervisor's list,
the stand-in drive's text and what it last told, the referee's copy) and travelled on the
ring drive's fault channel, so that an LED strip gone looked like a fault of the drive's.
Now the supervisor (``app/devices.py``) notes here what it could not open, the stand-in
drive (``hw/standby.py``) notes what the real drive says between moves, and whoever must
know (the referee, the status line, the log) watches this one ``HealthChannel``.

Everything here runs on the clock's thread: the supervisor opens parts on a worker thread
but notes what it found once back on the loop, and a real drive's words arrive posted.
"""

from __future__ import annotations

import functools

from orbito_hw.hw.interfaces import Clock, Health, HealthListener


class BoardHealth:
    """The board's parts that are missing or failing, and the one line the players were
    told of them last. Listeners hear a new ``Health`` only when that line changes: a
    second part missing while the first still is changes it ("and 1 more"), a drive fault
    behind a missing part does not (the players could not tell the difference)."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._missing: dict[str, str] = {}  # insertion order: the order the parts are tried
        self._failing: dict[str, str] = {}
        self._listeners: list[HealthListener] = []
        self._told = ""  # the fault line the listeners heard last: nothing yet

    def now(self) -> Health:
        return Health(tuple(self._missing.items()), tuple(self._failing.items()))

    def watch(self, listener: HealthListener) -> None:
        self._listeners.append(listener)

    def missing(self, part: str, why: str) -> None:
        """``part`` is not open (``why``): noted, told at the next ``tell``."""
        self._missing[part] = why

    def opened(self, part: str) -> None:
        """``part`` is open now: noted, told at the next ``tell``."""
        self._missing.pop(part, None)

    def failing(self, part: str, fault: str) -> None:
        """``part`` is open and says it fails (``fault``) or works again (""): told at once,
        as the drive's own words always were."""
        if fault:
            self._failing[part] = fault
        else:
            self._failing.pop(part, None)
        self.tell()

    def heard(self, fault: str) -> None:
        """The listeners heard ``fault`` some other way (a ring move's report ended with
        it): so they hear "" once the board is well again, even if no word came between."""
        if fault:
            self._told = fault

    def tell(self) -> None:
        """Tell the listeners the board's health, if its fault line changed."""
        health = self.now()
        if health.fault == self._told:
            return
        self._told = health.fault
        for listener in list(self._listeners):
            self.clock.post(functools.partial(listener, health))
