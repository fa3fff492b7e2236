"""The analog front end of a colour board, free of any library: what a scan of the squares'
linear hall sensors costs, how a voltage becomes gauss, and the squares' state as the
readings come in.

Each square's sensor (ratiometric, SS49E or DRV5055 class) puts out its supply's half at
no field and moves by its sensitivity per gauss: a black marble's magnet one way, a white
one's the other. A CD74HC4067 multiplexer hands one square's output at a time to the ADC
(an ADS1115 on the Pi's I2C, ``hw/analog.py``; or the Pico's own ADC, ``orbito_fw``).

``SquareColours`` is shared by every backend that reads levels: it classifies each reading
against the board's calibration (``hw/hall.py``) and tells the listeners, through the
clock, of every change a square's presence makes (a colour turning straight into the other
is a lift then a put, as ``ColourSensors`` says).
"""

from __future__ import annotations

import functools
import threading
from dataclasses import dataclass
from typing import Final

from orbito_hw.hw.hall import Calibration, Seen, classify
from orbito_hw.hw.interfaces import Clock, SquareListener
from orbito_hw.rules.squares import SQUARES

MUX_LINES: Final = 4
"""The CD74HC4067's select lines S0..S3: 16 inputs, square n on input Cn."""
FULL_SCALE_V: Final[dict[str, float]] = {
    "2/3": 6.144, "1": 4.096, "2": 2.048, "4": 1.024, "8": 0.512, "16": 0.256,
}  # fmt: skip
"""The ADS1115's programmable gains, as the config spells them, and each one's full scale
(datasheet table 3; the library takes the gain as the number, 2/3 for the first)."""
DATA_RATES: Final = (8, 16, 32, 64, 128, 250, 475, 860)
"""The ADS1115's samples per second."""
RATE_SPREAD: Final = 0.1
"""The ADS1115's own oscillator is within 10 % of its data rate (datasheet 7.5)."""
SETTLE_CONVERSIONS: Final = 2
"""Conversions to wait after the multiplexer switched, in continuous mode: the one under
way when it switched mixes two squares, the next is the new square's alone (the mux
settles in under a microsecond; the sensor's output is a low-impedance driver)."""


PICO_ADC_REF_V: Final = 3.3
"""The Pico's ADC reads 0..65535 (``read_u16``) over its 3V3 rail, the sensors' supply."""
PICO_FULL_COUNT: Final = 65535


def pico_volts(level: int) -> float:
    """A level the Pico reports (its ADC's counts) in volts."""
    return level * PICO_ADC_REF_V / PICO_FULL_COUNT


def library_gain(gain: str) -> float:
    """The config's gain ("2/3", "1" .. "16") as adafruit_ads1x15 takes it."""
    return 2 / 3 if gain == "2/3" else float(int(gain))


@dataclass(frozen=True, slots=True)
class FrontEnd:
    """The multiplexer, the ADC and the sensors, as the config's ``[analog]`` describes them.

    ``select_pins`` are the BCM pins on the mux's S0..S3 (the Pi's; the Pico's are its
    firmware's); ``zero_v`` is a sensor's output with no field and ``mv_per_gauss`` its
    sensitivity (negative when the marbles' magnets face the other way); ``scan_ms`` how
    often the 16 squares are read."""

    select_pins: tuple[int, ...] = ()
    bus: int = 1
    address: int = 0x48
    channel: int = 0
    gain: str = "1"
    data_rate: int = 860
    zero_v: float = 1.65
    mv_per_gauss: float = 1.4
    scan_ms: int = 100

    @property
    def settle_s(self) -> float:
        """Seconds from selecting a square to a conversion of its sensor alone."""
        return SETTLE_CONVERSIONS * (1 + RATE_SPREAD) / self.data_rate

    @property
    def scan_s(self) -> float:
        """Seconds between the starts of two scans: the period asked for, or the 16
        squares' settling if that is longer."""
        return max(self.scan_ms / 1000, len(SQUARES) * self.settle_s)

    @property
    def read_again_s(self) -> float:
        """Seconds within which every square has been read afresh, from any moment (the
        rings stopping): a whole scan and one square's settling. The referee waits as long
        before it trusts what the squares read."""
        return self.scan_s + self.settle_s

    @property
    def full_scale_v(self) -> float:
        return FULL_SCALE_V[self.gain]

    def gauss(self, volts: float) -> float:
        return (volts - self.zero_v) * 1000 / self.mv_per_gauss

    def volts(self, gauss: float) -> float:
        return self.zero_v + gauss * self.mv_per_gauss / 1000

    @property
    def where(self) -> str:
        """The ADC, as a fault names it."""
        return f"the ADS1115 at I2C address 0x{self.address:02x} on bus {self.bus}"


class SquareColours:
    """The 16 squares as their readings say, told to listeners on the clock's thread.

    ``take`` may be called from any thread (a scan thread, a serial link's worker);
    ``read``, ``colours`` and ``gauss`` answer from the last readings."""

    def __init__(self, clock: Clock, calibration: Calibration) -> None:
        self.clock = clock
        self.calibration = calibration
        self._seen = [Seen.EMPTY] * len(SQUARES)
        self._gauss = [0.0] * len(SQUARES)
        self._listeners: list[SquareListener] = []
        self._lock = threading.Lock()
        self.readings = 0  # readings taken, for whoever waits for fresh ones

    def take(self, square: int, gauss: float) -> None:
        """One reading of ``square``'s sensor, in gauss."""
        with self._lock:
            self._gauss[square] = gauss
            self.readings += 1
            old = self._seen[square]
            new = classify(gauss, self.calibration.squares[square], old)
            if new is old:
                return
            self._seen[square] = new
        when = self.clock.now()
        if old is not Seen.EMPTY:
            self._post(square, False, when)
        if new is not Seen.EMPTY:
            self._post(square, True, when)

    def _post(self, square: int, present: bool, when: float) -> None:
        self.clock.post(functools.partial(self._tell, square, present, when))

    def _tell(self, square: int, present: bool, when: float) -> None:
        for listener in list(self._listeners):
            listener(square, present, when)

    def read(self) -> int:
        black, white = self.colours()
        return black | white

    def colours(self) -> tuple[int, int]:
        black = white = 0
        for square, seen in enumerate(self._seen):
            if seen is Seen.BLACK:
                black |= 1 << square
            elif seen is Seen.WHITE:
                white |= 1 << square
        return black, white

    def gauss(self) -> tuple[float, ...]:
        """The last reading of each square, in gauss (what the doctor calibrates with)."""
        with self._lock:
            return tuple(self._gauss)

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def forget_listeners(self) -> None:
        self._listeners.clear()
