"""Colour told by light on the reference board: a phototransistor beside each square's LED,
through a CD74HC4067 into an ADS1115 on the sensors' I2C (adafruit-circuitpython-ads1x15,
imported only when the board tells colour by light), read only when a square's presence
changes and after the rings move: never while the board waits.

**A reading** (``LightReader.read``) selects the square's input on the multiplexer, turns
its LED dark (the rest of the display as it is), converts ``dark`` times, lights the LED red
at full for ``flash_ms``, converts while it is lit, turns it dark again for ``dark`` more,
and puts the display back: about 45 ms at 860 conversions a second, the LED lit 7 ms of it
(to the eye a square that blinks, docs/gestures.md). ``hw/light_front.reading`` takes the
room's light off. The conversions are single-shot, each at the range the room's light
leaves room in (one conversion at the widest range first); each one's time is taken as it
ends, so the fit of the room's flicker holds whatever the bus's pace.

**The part** (``LightColours``, ``ColourSensors``) sits on the board's presence sensors
(the TMAG5273, ``hw/tmag.py``): a put is told to the listeners only once its square's colour
is read, so ``colours()`` is current when the put arrives; ``reread`` reads every held
square again (the referee asks once the rings have settled: a ring move brings other
marbles over the squares without any presence changing). A square too bright to read (a
conversion at the ADC's range or the phototransistor's ceiling: sun straight into the
cup, a mirror) is never given a colour: ``on_fault`` hears a line naming it, the board's
health shows it to the players, no turn is decided meanwhile, and the square is read again
every ``RETRY_S`` until it reads (then ""), as a sensor that stopped answering is.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable
from typing import Any, Final, Protocol

from orbito_hw.hw.analog import AdcError, MuxSelect, open_adc
from orbito_hw.hw.interfaces import Clock, Lights, SquareListener, SquareSensors, TimerHandle
from orbito_hw.hw.light_front import (
    GAINS,
    Conversion,
    LightCalibration,
    LightConfig,
    Optics,
    Reading,
    full_scale_for,
    optics,
    reading,
)
from orbito_hw.lang import _, reworded
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

log = logging.getLogger(__name__)

RED: Final = (255, 0, 0)
"""The reading's light: the LED's red channel at full (the model's)."""
RETRY_S: Final = 2.0
"""How often a square too bright to read is read again, until it reads."""


class LightError(AdcError):
    """The phototransistors' ADC cannot be reached (a HardwareError naming it)."""


class SquareReader(Protocol):
    """What reads one square's light: the ADC behind the multiplexer on a real board."""

    def read(self, square: int) -> Reading | None:
        """The square's reading; None when the ADC does not answer."""
        ...

    def close(self) -> None: ...


class LightReader:
    """The phototransistors' multiplexer and ADC, and the LEDs they flash. ``bus``: the
    sensors' I2C bus (the TMAG5273's, shared); ``factory``: the gpio parts' pin factory for
    the select lines; ``sleep`` and ``now`` are time's (the simulated board's own)."""

    def __init__(
        self,
        config: LightConfig,
        lights: Lights,
        bus: Any,
        factory: Any = None,
        sleep: Callable[[float], None] = time.sleep,
        now: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.config = config
        self.lights = lights
        self.sleep = sleep
        self.now = now
        self.readings = 0
        self.fault = ""
        self._optics: Optics = optics()
        self._mux = MuxSelect(config.select_pins, factory)
        try:
            self._ads, self._adc = open_adc(config, bus)
        except AdcError as exc:
            self._mux.close()
            raise LightError(str(exc)) from None

    def read(self, square: int) -> Reading | None:
        got = self._read(square, None)
        if got is not None and _at_range(got) and got[0].full_scale < GAINS["1"]:
            # The range came from one conversion, in a lamp's trough: read again at the
            # widest range (the phototransistor's ceiling is under it), once.
            got = self._read(square, GAINS["1"])
        if got is None:
            return None
        self.readings += 1
        if self.fault:
            log.info("%s", _("{sensor} answers again").format(sensor=reworded(self.config.where)))
            self.fault = ""
        return reading(got, self.config.mains_hz, self._optics)

    def _read(self, square: int, full_scale: float | None) -> list[Conversion] | None:
        """The conversions of one reading (dark, lit, dark), at ``full_scale`` or at the
        range the room's light leaves room in; None when the ADC does not answer."""
        o, c = self._optics, self.config
        frame, status = self.lights.shown()
        dark = list(frame)
        dark[square] = None
        lit = list(frame)
        lit[square] = RED
        wait = o.frame_s + o.settle_s  # the chain's frame, then the phototransistor settles
        self._mux.select(square)
        try:
            self.lights.show(dark, status)
            self.sleep(wait)
            if full_scale is None:
                self._range(GAINS["1"])
                first = self._convert(False)
                full_scale = GAINS[full_scale_for(first.volts * math.pi / 2)]  # a crest
            self._range(full_scale)
            got = [self._convert(False) for _conversion in range(o.dark)]
            show_full = getattr(self.lights, "show_full", None)  # past a strip's cap
            if show_full is not None:
                show_full(lit, status, square)
            else:
                self.lights.show(lit, status)
            self.sleep(wait)
            got += [self._convert(True) for _conversion in range(c.lit)]
            self.lights.show(dark, status)
            self.sleep(wait)
            got += [self._convert(False) for _conversion in range(o.dark)]
        except (OSError, ValueError, RuntimeError) as exc:
            self._failed(exc)
            return None
        finally:
            self.lights.show(frame, status)  # the display as it was, whatever happened
        return got

    def _range(self, full_scale: float) -> None:
        gain = next(float(g) for g, fs in GAINS.items() if fs == full_scale)
        if self._ads.gain != gain:
            self._ads.gain = gain
        self._full_scale = full_scale

    def _convert(self, lit: bool) -> Conversion:
        volts = float(self._adc.voltage)
        at = self.now() - self._optics.conversion_s / 2  # its middle: it has just ended
        return Conversion(at, volts, lit, self._full_scale)

    def _failed(self, exc: BaseException) -> None:
        fault = f"{self.config.where} does not answer ({type(exc).__name__}: {exc})"
        if fault != self.fault:
            log.warning("%s", fault)
        self.fault = fault

    def close(self) -> None:
        self._mux.close()


def _at_range(conversions: list[Conversion]) -> bool:
    """Whether a conversion reached the ADC's range (not the phototransistor's ceiling)."""
    return any(c.volts >= c.full_scale * (1 - 1 / 1024) for c in conversions)


class LightColours:
    """``ColourSensors`` on ``presence`` (the board's square sensors) and ``reader``: each
    held square's colour by light against its ``calibration``. ``on_fault`` hears, through
    the clock, the line naming the squares too bright to read or the ADC's fault ("" once
    every square reads)."""

    def __init__(
        self,
        presence: SquareSensors,
        reader: SquareReader,
        calibration: LightCalibration,
        clock: Clock,
        on_fault: Callable[[str], None] | None = None,
    ) -> None:
        self.presence = presence
        self.reader = reader
        self.calibration = calibration
        self.clock = clock
        self.on_fault = on_fault
        self.last: list[Reading | None] = [None] * len(SQUARES)
        self._black = 0
        self._bright = 0  # squares too bright to read
        self._unread = 0  # squares whose ADC did not answer
        self._listeners: list[SquareListener] = []
        self._told = ""
        self._timer: TimerHandle | None = None
        self._closed = False
        # No reading here: the part may be opened off the clock's thread (the service's
        # worker), where a flash would race the display. The referee reads every held
        # square once the rings have homed (``reread``, through its resync).
        presence.subscribe(self._changed)

    # -- ColourSensors ------------------------------------------------------------------
    def read(self) -> int:
        return self.presence.read()

    def colours(self) -> tuple[int, int]:
        held = self.presence.read()
        return held & self._black, held & ~self._black

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def measure(self, square: int) -> Reading | None:
        """``square`` read now, as it is (the doctor's calibration): its colour is not
        changed by it."""
        return self.reader.read(square)

    def too_bright(self) -> int:
        """The squares too bright to read now, as a mask."""
        return self._bright

    def reread(self) -> None:
        """Every held square's colour read again (the rings have moved marbles under the
        squares): a colour that changed is told as a lift then a put."""
        held = self.presence.read()
        when = self.clock.now()
        for square in SQUARES:
            if held >> square & 1:
                was = self._black >> square & 1
                self._read(square)
                if self._black >> square & 1 != was:
                    self._tell(square, False, when)
                    self._tell(square, True, when)
        self._fault_changed()

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._listeners.clear()
        self.reader.close()
        self.presence.close()

    # -- what the presence sensors say ------------------------------------------------------
    def _changed(self, square: int, present: bool, when: float) -> None:
        if self._closed:
            return
        bit = 1 << square
        if present:
            self._read(square)  # before the put is told: colours() is the put's
        else:
            self._bright &= ~bit
            self._unread &= ~bit
        self._fault_changed()
        self._tell(square, present, when)

    def _read(self, square: int) -> None:
        bit = 1 << square
        got = self.reader.read(square)
        self.last[square] = got
        self._unread = self._unread | bit if got is None else self._unread & ~bit
        if got is None:
            return
        if got.too_bright:
            self._bright |= bit  # no colour from it: the square keeps what it had
            return
        self._bright &= ~bit
        white = self.calibration.squares[square].is_white(got.mv)
        self._black = self._black & ~bit if white else self._black | bit

    def _tell(self, square: int, present: bool, when: float) -> None:
        for listener in list(self._listeners):
            listener(square, present, when)

    # -- faults ------------------------------------------------------------------------
    def _fault_changed(self) -> None:
        line = ""
        if self._unread:
            line = getattr(self.reader, "fault", "") or "the phototransistors' ADC does not answer"
        elif self._bright:
            names = ", ".join(SQUARE_NAMES[sq] for sq in SQUARES if self._bright >> sq & 1)
            line = (
                f"square {names} too bright to read its colour: shade the board from the "
                "sun or a lamp straight over it"
            )
        if (self._bright or self._unread) and self._timer is None and not self._closed:
            self._timer = self.clock.call_later(RETRY_S, self._retry)
        if line == self._told:
            return
        self._told = line
        if line:
            log.warning("%s", line)
        if self.on_fault is not None:
            self.clock.post(functools.partial(self.on_fault, line))

    def _retry(self) -> None:
        """The squares that could not be read, read again (only while there are any)."""
        self._timer = None
        if self._closed:
            return
        held = self.presence.read()
        for square in SQUARES:
            if (self._bright | self._unread) >> square & 1 and held >> square & 1:
                self._read(square)
        self._bright &= held
        self._unread &= held
        self._fault_changed()
