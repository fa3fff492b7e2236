"""The squares' linear hall sensors on the Pi: a CD74HC4067 multiplexer's select lines on
four GPIOs (gpiozero, on the gpio parts' pin factory) and an ADS1115 on the Pi's I2C
(adafruit-circuitpython-ads1x15, imported only when a colour board is opened).

The ADS1115 converts continuously on its one input (``[analog] channel``), behind which
the multiplexer switches from square to square: after a switch the scan waits two of the
ADC's conversions (the one under way mixes two squares), then reads the last one, which
is a single I2C read. At 860 samples per second a square takes 2.6 ms, the 16 squares
41 ms; the scan repeats every ``scan_ms`` (100 ms), asleep in between, so a marble put
down is seen within a scan and the referee's debounce. ``benchmarks/analog_scan.py``
measures what a scan costs.

The scan runs on a thread of its own (``Scanner.THREAD``) or, on the simulated board, as
timers on the virtual clock (``Scanner.CLOCK``); either way each change reaches the
listeners through ``Clock.post``. An ADC that is not on the bus when opened is a
``HardwareError`` naming its address and bus; one that stops answering mid-game ends the
scan and ``on_lost`` hears why: the device supervisor (``app/devices.py``) shows the
fault and opens the sensors again until the ADC answers, as it does a Pico unplugged.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any, Protocol

from gpiozero import DigitalOutputDevice

from orbito_hw.errors import HardwareError
from orbito_hw.hw.analog_front import MUX_LINES, FrontEnd, SquareColours, library_gain
from orbito_hw.hw.gpio import _open_all
from orbito_hw.hw.hall import Calibration
from orbito_hw.hw.interfaces import Clock, SquareListener, TimerHandle
from orbito_hw.lang import _, reworded
from orbito_hw.rules.squares import SQUARES

log = logging.getLogger(__name__)


class AdcError(HardwareError):
    """The ADC cannot be reached on its bus (an OSError too, as a bus error is)."""


class Scanner(enum.Enum):
    THREAD = "thread"  # a real board: a thread that sleeps between readings
    CLOCK = "clock"  # the simulated board: timers on its virtual clock


class LinuxI2C:
    """An I2C bus of the Pi (``/dev/i2c-N``) as adafruit_bus_device uses one: Blinka's
    Linux bus, with the lock busio would add (Blinka's ``board`` module is never imported,
    so any bus number works, as adafruit_extended_bus does it)."""

    def __init__(self, bus: int) -> None:
        from adafruit_blinka.microcontroller.generic_linux.i2c import I2C

        self._bus = I2C(bus)  # RuntimeError "I2C Bus #N not found" when it is not enabled
        self._lock = threading.Lock()
        self.writeto = self._bus.writeto
        self.readfrom_into = self._bus.readfrom_into
        self.writeto_then_readfrom = self._bus.writeto_then_readfrom

    def try_lock(self) -> bool:
        return self._lock.acquire(blocking=False)

    def unlock(self) -> None:
        self._lock.release()

    def deinit(self) -> None:
        bus = getattr(self._bus, "_i2c_bus", None)
        if bus is not None:
            bus.close()


class AdcWiring(Protocol):
    """An ADS1115 as a config describes it: the hall sensors' (``FrontEnd``) or the
    phototransistors' (``hw/light_front.LightConfig``)."""

    @property
    def address(self) -> int: ...
    @property
    def channel(self) -> int: ...
    @property
    def gain(self) -> str: ...
    @property
    def data_rate(self) -> int: ...
    @property
    def where(self) -> str: ...


class MuxSelect:
    """A CD74HC4067's select lines S0..S3 on the Pi's pins (gpiozero, on the gpio parts'
    pin factory): ``select(n)`` hands input Cn to the common pin, writing only the lines
    that change."""

    def __init__(self, pins: tuple[int, ...], factory: Any = None) -> None:
        self._lines: list[Any] = _open_all(
            [
                (pin, partial(DigitalOutputDevice, pin, initial_value=False, pin_factory=factory))
                for pin in pins
            ]
        )
        self._levels = [False] * MUX_LINES

    def select(self, channel: int) -> None:
        for line, device in enumerate(self._lines):
            level = bool(channel >> line & 1)
            if level != self._levels[line]:  # only the lines that change: a write each
                device.value = level
                self._levels[line] = level

    def close(self) -> None:
        for device in self._lines:
            device.close()
        self._lines = []


def open_adc(front: AdcWiring, bus: Any) -> tuple[Any, Any]:
    """The ADS1115 on ``bus`` in single-shot mode, and the library's ``AnalogIn`` on
    ``front.channel``. AdcError naming the address and the bus when it does not answer."""
    from adafruit_ads1x15.ads1115 import ADS1115
    from adafruit_ads1x15.analog_in import AnalogIn

    with _asking(front, "does not answer"):
        ads = ADS1115(
            bus, gain=library_gain(front.gain), data_rate=front.data_rate, address=front.address
        )
        return ads, AnalogIn(ads, front.channel)


def go_continuous(ads: Any) -> None:
    """From single-shot to converting for good on the input last read. In continuous mode
    the library (3.0) keeps the input the chip's register holds, whatever channel is read:
    a single-shot conversion has set it; then each reading is one read of the conversion
    register."""
    from adafruit_ads1x15.ads1x15 import Mode

    ads.mode = Mode.CONTINUOUS
    ads.get_last_result()  # the register pointer on the conversions, for the fast reads


@contextmanager
def _asking(front: AdcWiring, what: str) -> Iterator[None]:
    try:
        yield
    except ValueError as exc:  # adafruit_bus_device's probe: "No I2C device at address"
        raise AdcError(f"{front.where} {what} ({exc}): check its wiring") from None
    except OSError as exc:
        raise AdcError(f"{front.where} {what}: {exc}") from None


class AnalogSquares:
    """``ColourSensors`` on linear hall sensors through the multiplexer and the ADS1115.

    ``bus``: the I2C bus (None: ``/dev/i2c-<front.bus>``); ``factory``: the gpio parts'
    pin factory (None: gpiozero's own); ``on_lost``: told, through the clock, why the ADC
    failed mid-game (the scan has stopped)."""

    def __init__(
        self,
        front: FrontEnd,
        clock: Clock,
        calibration: Calibration,
        factory: Any = None,
        bus: Any = None,
        on_lost: Callable[[str], None] | None = None,
        scanner: Scanner = Scanner.THREAD,
    ) -> None:
        self.front = front
        self.clock = clock
        self.on_lost = on_lost
        self.core = SquareColours(clock, calibration)
        self.scans = 0
        self.lost = ""
        self._closed = False
        self._stop = threading.Event()
        self._timer: TimerHandle | None = None
        self._mux = MuxSelect(front.select_pins, factory)
        self._own_bus = bus is None
        try:
            if bus is None:
                try:
                    bus = LinuxI2C(front.bus)
                except (OSError, RuntimeError) as exc:
                    raise AdcError(f"{front.where}: cannot open the bus: {exc}") from None
            self._bus = bus
            ads, self._adc = open_adc(front, bus)
            self._first_scan(ads)
        except BaseException:
            self._close_devices()
            raise
        if scanner is Scanner.THREAD:
            self._thread: threading.Thread | None = threading.Thread(
                target=self._run, name="analog-squares", daemon=True
            )
            self._thread.start()
        else:
            self._thread = None
            self._timer = clock.call_later(front.settle_s, self._on_timer)

    # -- ColourSensors ----------------------------------------------------------------
    def read(self) -> int:
        return self.core.read()

    def colours(self) -> tuple[int, int]:
        return self.core.colours()

    def gauss(self) -> tuple[float, ...]:
        return self.core.gauss()

    @property
    def scan_period(self) -> float:
        return self.front.scan_s

    def subscribe(self, listener: SquareListener) -> None:
        self.core.subscribe(listener)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._stop.set()
        if self._timer is not None:
            self._timer.cancel()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self.core.forget_listeners()
        self._close_devices()

    # -- the scan ---------------------------------------------------------------------
    def _first_scan(self, ads: Any) -> None:
        """Every square read once before the sensors are open, in single-shot conversions
        (each starts after the mux has switched: no settling to wait), so the first
        ``read()`` is the board as it is; then the ADC converts continuously."""
        with _asking(self.front, "failed the first scan"):
            for square in SQUARES:
                self._select(square)
                self.core.take(square, self.front.gauss(float(self._adc.voltage)))
            self._square = 0
            self._select(0)
            go_continuous(ads)
        self.scans = 1

    def _run(self) -> None:
        # time.sleep, not the stop event's wait: half the CPU a wake-up costs (a lock with a
        # timeout), 16 times a scan; close() waits out one pause at most (a scan period).
        delay = self.front.settle_s
        while True:
            time.sleep(delay)
            if self._stop.is_set():
                return
            delay = self._step()
            if delay < 0:
                return

    def _on_timer(self) -> None:
        self._timer = None
        if self._closed:
            return
        delay = self._step()
        if delay >= 0 and not self._closed:
            self._timer = self.clock.call_later(delay, self._on_timer)

    def _step(self) -> float:
        """Read the square selected, select the next; the wait before the next step (the
        settling, or the rest of the scan period after the last square), -1 once lost."""
        try:
            volts = float(self._adc.voltage)
        except (OSError, ValueError) as exc:
            self._lose(f"{self.front.where} stopped answering: {exc}")
            return -1.0
        self.core.take(self._square, self.front.gauss(volts))
        self._square = (self._square + 1) % len(SQUARES)
        self._select(self._square)
        if self._square:
            return self.front.settle_s
        self.scans += 1
        return self.front.scan_s - (len(SQUARES) - 1) * self.front.settle_s

    def _select(self, channel: int) -> None:
        self._mux.select(channel)

    def _lose(self, why: str) -> None:
        self.lost = why
        log.warning("%s", _("the square sensors: {reason}").format(reason=reworded(why)))
        if self.on_lost is not None:
            self.clock.post(partial(self.on_lost, why))

    def _close_devices(self) -> None:
        self._mux.close()
        if self._own_bus and getattr(self, "_bus", None) is not None:
            deinit = getattr(self._bus, "deinit", None)
            if deinit is not None:
                deinit()
