"""Debouncing of square sensors, on the board's clock.

A change is passed on only once the sensor has kept its new reading for ``delay``
seconds; chatter that settles back to where it started passes nothing on. A ``delay`` of 0
passes every change straight on: for squares that come debounced already (the Pico scans
and debounces them itself when ``backends.sensors = "serial"``).

Sensors that tell colours (``ColourSensors``) have their colours debounced alike: a
square's colour is read with each raw put and settles with it, so ``colours()`` is the
debounced state's. A colour that changes under a marble (a lift and a put at the same
moment, as such sensors report it) settles as one change, passed on as a lift then a put.
"""

from __future__ import annotations

from orbito_hw.hw.interfaces import (
    Clock,
    ColourSensors,
    SquareListener,
    SquareSensors,
    TimerHandle,
    reread_colours,
    tells_colour,
)


class Debouncer:
    def __init__(self, sensors: SquareSensors, clock: Clock, delay: float) -> None:
        if not delay >= 0:
            raise ValueError(f"a debounce delay is 0 or more seconds, not {delay!r}")
        self.clock = clock
        self.delay = delay
        self._sensors = sensors
        self._colours = sensors if isinstance(sensors, ColourSensors) else None
        self.colour = tells_colour(sensors)
        """Whether ``colours()`` tells black from white (else presence only)."""
        self._stable = sensors.read()
        self._raw = self._stable
        self._stable_black = self._raw_black = self._black_now()
        self._timers: dict[int, TimerHandle] = {}
        self._since: dict[int, float] = {}
        self._listeners: list[SquareListener] = []
        sensors.subscribe(self._raw_change)

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def read(self) -> int:
        """The debounced reading."""
        return self._stable

    def colours(self) -> tuple[int, int]:
        """The debounced (black, white) masks; every marble reads black from sensors that
        cannot tell colours (``colour`` False)."""
        return self._stable_black, self._stable & ~self._stable_black

    def _black_now(self) -> int:
        if self._colours is None:
            return self._raw
        return self._colours.colours()[0]

    def resync(self) -> None:
        """Take the raw reading as settled (after the rings stop), dropping pending changes;
        sensors that read colours only when asked (by light) read them first."""
        reread_colours(self._sensors)
        for timer in self._timers.values():
            timer.cancel()
        self._timers.clear()
        self._raw = self._stable = self._sensors.read()
        self._raw_black = self._stable_black = self._black_now() & self._raw

    def _raw_change(self, square: int, present: bool, when: float) -> None:
        old = self._timers.pop(square, None)
        if old is not None:
            old.cancel()
            # The change before this one stayed the delay by the stamps: the loop got to both
            # late (a busy loop, the kernel's queue), it happened all the same.
            if when - self._since[square] >= self.delay:
                self._settle(square)
        bit = 1 << square
        self._raw = self._raw | bit if present else self._raw & ~bit
        black = self._black_now() & bit if present else 0
        self._raw_black = self._raw_black & ~bit | black
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
        recoloured = (self._raw_black ^ self._stable_black) & self._raw & self._stable & bit
        if (self._raw ^ self._stable) & bit == 0 and not recoloured:
            return
        self._stable = self._stable & ~bit | self._raw & bit
        self._stable_black = self._stable_black & ~bit | self._raw_black & bit
        present = bool(self._stable & bit)
        for listener in list(self._listeners):
            if recoloured:
                listener(square, False, self._since[square])
            listener(square, present, self._since[square])
