"""Debouncing of square sensors, on the board's clock.

A change is passed on only once the sensor has kept its new reading for ``delay``
seconds; chatter that settles back to where it started passes nothing on. A ``delay`` of 0
passes every change straight on: for squares that come debounced already (the Pico scans
and debounces them itself when ``backends.sensors = "serial"``).
"""

from __future__ import annotations

from orbito_hw.hw.interfaces import Clock, SquareListener, SquareSensors, TimerHandle


class Debouncer:
    def __init__(self, sensors: SquareSensors, clock: Clock, delay: float) -> None:
        if not delay >= 0:
            raise ValueError(f"a debounce delay is 0 or more seconds, not {delay!r}")
        self.clock = clock
        self.delay = delay
        self._sensors = sensors
        self._stable = sensors.read()
        self._raw = self._stable
        self._timers: dict[int, TimerHandle] = {}
        self._since: dict[int, float] = {}
        self._listeners: list[SquareListener] = []
        sensors.subscribe(self._raw_change)

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def read(self) -> int:
        """The debounced reading."""
        return self._stable

    def resync(self) -> None:
        """Take the raw reading as settled (after the rings stop), dropping pending changes."""
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._raw = self._stable = self._sensors.read()

    def _raw_change(self, square: int, present: bool, when: float) -> None:
        old = self._timers.pop(square, None)
        if old is not None:
            old.cancel()
            # The change before this one stayed the delay by the stamps: the loop got to both
            # late (a busy loop, the kernel's queue), it happened all the same.
            if when - self._since[square] >= self.delay:
                self._settle(square)
        self._raw = self._raw | 1 << square if present else self._raw & ~(1 << square)
        self._since[square] = when
        if self.delay == 0:
            self._settle(square)
            return
        # Counted from the change itself: a GPIO edge comes stamped by the kernel, maybe a
        # little before the loop got to it (hw/gpio.py); elsewhere ``when`` is now.
        wait = max(0.0, self.delay - (self.clock.now() - when))
        self._timers[square] = self.clock.call_later(wait, lambda: self._settle(square))

    def _settle(self, square: int) -> None:
        self._timers.pop(square, None)
        bit = 1 << square
        if (self._raw ^ self._stable) & bit == 0:
            return
        self._stable ^= bit
        present = bool(self._stable & bit)
        for listener in list(self._listeners):
            listener(square, present, self._since[square])
