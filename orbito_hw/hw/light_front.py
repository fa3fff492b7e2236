"""Colour told by light, free of any library: the optical model's figures the controller
ships, the reading's arithmetic, and each square's threshold.

Each square's LED lights its marble from below and a phototransistor beside it (an Everlight
ALS-PT19 into a 4.7 kOhm load) reads what comes back, through a CD74HC4067 multiplexer into
the ADS1115 (``hw/light.py``). White sends back five to eight times what black does in every
pose (the optical model: ``hardware/optics.md``), so a square's colour is its reading against
a threshold between its white and its black (``LightCalibration``, per square, from
``doctor``'s calibration; the model's before it).

**The reading** (``reading``): dark conversions, the square's LED red at full for a few
(``flash_ms``), dark conversions again. The room's light is fitted on the dark conversions,
at the times they were taken (a quadratic for a shadow passing, and the mains flicker's
harmonics at 100 or 120 Hz, whichever fits better) and taken off the lit ones: what is left
is the LED's light off the marble, in millivolts at the load. A conversion at the ADC's
range or at the phototransistor's ceiling is *too bright*: no colour is read from it.

The figures come from ``orbito_hw/data/optics_table.json``, written from the model by
``scripts/optics_table.py`` (orbito_hw never imports the CAD); a test fails on drift.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from itertools import pairwise
from typing import Final

from orbito_hw.rules.squares import SQUARES

NEED: Final = 3.0
"""The least white/black ratio a square must show (the issue's margin, the model's too):
a square under it is named by the calibration with what to check."""

MUX_LINES: Final = 4
"""The CD74HC4067's select lines S0..S3: square n's phototransistor on input Cn."""

GAINS: Final[dict[str, float]] = {"1": 4.096, "2": 2.048, "4": 1.024, "8": 0.512, "16": 0.256}
"""The ADS1115's ranges the reading chooses from (the library's gain and its full scale,
datasheet table 3); the smallest that holds the room's light with room to spare."""

ROOMS: Final[dict[str, str]] = {
    "dark": "dark",
    "lamps": "500 lux, lamps",
    "bright": "10,000 lux, lamps",
    "window": "10,000 lux, daylight",
    "sun": "direct sun",
}
"""The room lights the simulated board can be put in (``run --mock --room``), by the short
name the command line takes, each the model's."""


# --- the model's figures ------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Row:
    """One room light, one marble (or empty): the model's reading at a typical square, low
    to high over the seat's poses (mV; None: too bright), and the room's light at the load
    (mV, its mean under the marble)."""

    low_mv: float | None
    high_mv: float | None
    room_mv: float
    noise_mv: float


@dataclass(frozen=True, slots=True)
class Optics:
    """The optical model's figures, as ``scripts/optics_table.py`` ships them."""

    data_rate: int  # the ADS1115's conversions a second
    dark: int  # dark conversions either side of the flash
    lit_s: float  # the LED red at full (the model's flash)
    reading_s: float  # the whole reading, first conversion to last
    frame_s: float  # one update of the LED chain
    settle_s: float  # the phototransistor's settling at its load (five time constants)
    harmonics: int  # the mains flicker's harmonics fitted
    ceiling_v: float  # the phototransistor's output never passes this: too bright from it
    adc_noise_codes: float  # RMS
    scale_low: float  # a square's parts scale its LED light between these
    scale_high: float
    led_spread: float  # of which the LED's (the rest the detector's)
    threshold_mv: float  # the uncalibrated board's threshold between white and black
    rows: dict[tuple[str, str], Row] = field(default_factory=dict)

    @property
    def conversion_s(self) -> float:
        return 1.0 / self.data_rate

    def row(self, room: str, marble: str) -> Row:
        """The model's row for a room light (``ROOMS``' short name) and ``marble``
        (``white PETG``, ``black glass``, ``empty``...)."""
        return self.rows[(ROOMS[room], marble)]


@cache
def optics() -> Optics:
    text = (resources.files("orbito_hw") / "data" / "optics_table.json").read_text("utf-8")
    data = json.loads(text)
    rows = {
        (r["room"], r["marble"]): Row(r["low_mv"], r["high_mv"], r["room_mv"], r["noise_mv"])
        for r in data["rows"]
    }
    names = [
        "data_rate", "dark", "lit_s", "reading_s", "frame_s", "settle_s", "harmonics",
        "ceiling_v", "adc_noise_codes", "scale_low", "scale_high", "led_spread", "threshold_mv",
    ]  # fmt: skip
    return Optics(**{n: data[n] for n in names}, rows=rows)


# --- the config's [light] -----------------------------------------------------------------
SELECT_PINS: Final = (22, 27, 26, 16)
"""BCM pins on the CD74HC4067's S0..S3: plain GPIOs pulled down at boot (the mux then
selects a1, harmless), on no bus (I2C 2/3, SPI 7-11, UART 14/15, PCM 18-21) and clear of
the sensors' INT (5), the button (17) and the drive (4, 23, 24, 25): hardware/pinmap.md."""
ADC_ADDRESS: Final = 0x48
"""The ADS1115's ADDR to GND: apart from the multiplexers (0x70, 0x71) on the same bus."""
FLASH_MS: Final = 7.0
"""The LED red at full for a reading: the optical model's flash (five conversions once the
phototransistor has settled), its figures' ``lit_s``."""


@dataclass(frozen=True, slots=True)
class LightConfig:
    """The config's ``[light]``: the phototransistors' multiplexer and ADC, and the flash.

    ``select_pins`` on the CD74HC4067's S0..S3 (square n on its Cn), its common pin on the
    ADS1115's input ``channel`` at ``address`` on I2C ``bus`` (the sensors' bus);
    ``flash_ms`` the LED's red flash; ``mains_hz`` 50 or 60, or 0: the reading tells which
    fits the room's flicker."""

    select_pins: tuple[int, ...] = SELECT_PINS
    bus: int = 1
    address: int = ADC_ADDRESS
    channel: int = 0
    flash_ms: float = FLASH_MS
    mains_hz: int = 0

    # what hw/analog.open_adc asks of an ADC's wiring besides: its first range (each reading
    # chooses its own) and its rate, the model's
    @property
    def gain(self) -> str:
        return "1"

    @property
    def data_rate(self) -> int:
        return optics().data_rate

    @property
    def lit(self) -> int:
        """Conversions with the LED lit: as many as the flash holds once settled."""
        o = optics()
        usable = self.flash_ms / 1000 - o.frame_s - o.settle_s
        return max(1, math.floor(usable / o.conversion_s + 1e-9))

    @property
    def where(self) -> str:
        """The ADC, as a fault names it."""
        return (
            f"the phototransistors' ADS1115 at I2C address 0x{self.address:02x} on bus {self.bus}"
        )


# --- one reading --------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Conversion:
    """One conversion: its middle (s, any origin), the volts read, whether the LED was lit
    (and settled) over it, and the full scale it was read at."""

    at: float
    volts: float
    lit: bool
    full_scale: float


@dataclass(frozen=True, slots=True)
class Reading:
    """A square's reading: the LED's light off its marble (mV at the load), or
    ``too_bright`` (no colour from it); ``room_mv`` the room's light the fit took off."""

    mv: float
    too_bright: bool = False
    room_mv: float = 0.0


def saturated(c: Conversion, ceiling_v: float) -> bool:
    """A conversion at the ADC's range or at the phototransistor's ceiling."""
    return c.volts >= min(ceiling_v, c.full_scale * (1 - 1 / 1024))


ALIAS_GAP_HZ: Final = 20.0
"""A harmonic of the flicker is fitted only where the conversions' pace shows it apart from
the slow light and from every harmonic kept before it (its alias this far from theirs)."""


def _basis(s: float, hz: float, harmonics: Sequence[int]) -> list[float]:
    cols = [1.0, s / 0.01, (s / 0.01) ** 2]
    for k in harmonics:
        w = 2 * math.pi * k * hz * s
        cols += [math.cos(w), math.sin(w)]
    return cols


def _harmonics(dark: Sequence[Conversion], hz: float, most: int) -> list[int]:
    """The flicker's harmonics (1..``most``) the dark conversions can tell apart: at the
    conversions' pace (the median step) each one's alias must stand ``ALIAS_GAP_HZ`` clear
    of 0 (the slow light) and of every one kept. The ADC's own 860 a second keeps all six;
    a slow bus keeps fewer rather than fit two of them as one and blow the reading up."""
    times = sorted(c.at for c in dark)
    steps = sorted(b - a for a, b in pairwise(times))
    step = steps[len(steps) // 2] if steps else 0.0
    if step <= 0:
        return []
    rate = 1 / step
    kept: list[int] = []
    aliases = [0.0]
    for k in range(1, most + 1):
        alias = abs(k * hz - round(k * hz / rate) * rate)
        if all(abs(alias - other) >= ALIAS_GAP_HZ for other in aliases):
            kept.append(k)
            aliases.append(alias)
    return kept


def _solve(a: list[list[float]], b: list[float]) -> list[float]:
    """``a x = b`` by Gaussian elimination with partial pivoting (a small square system)."""
    n = len(b)
    m = [[*row[:], b[i]] for i, row in enumerate(a)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(m[r][col]))
        m[col], m[pivot] = m[pivot], m[col]
        p = m[col][col]
        if p == 0:
            continue
        for r in range(col + 1, n):
            f = m[r][col] / p
            if f:
                for k in range(col, n + 1):
                    m[r][k] -= f * m[col][k]
    x = [0.0] * n
    for r in range(n - 1, -1, -1):
        p = m[r][r]
        x[r] = 0.0 if p == 0 else (m[r][n] - sum(m[r][k] * x[k] for k in range(r + 1, n))) / p
    return x


def _fit(dark: Sequence[Conversion], centre: float, hz: float,
         harmonics: Sequence[int]) -> tuple[list[float], float]:  # fmt: skip
    """The room's light over the dark conversions: its coefficients (least squares, a
    whisker of ridge so a basis the times cannot tell apart stays bounded) and the residual."""
    rows = [_basis(c.at - centre, hz, harmonics) for c in dark]
    n = len(rows[0])
    ata = [[sum(r[i] * r[j] for r in rows) for j in range(n)] for i in range(n)]
    for i in range(n):
        ata[i][i] += 1e-9 * len(rows)
    atb = [sum(r[i] * c.volts for r, c in zip(rows, dark, strict=True)) for i in range(n)]
    coef = _solve(ata, atb)
    residual = sum(
        (c.volts - sum(k * v for k, v in zip(coef, r, strict=True))) ** 2
        for r, c in zip(rows, dark, strict=True)
    )
    return coef, residual


def reading(conversions: Sequence[Conversion], mains_hz: int = 0,
            o: Optics | None = None) -> Reading:  # fmt: skip
    """The LED's light in ``conversions`` (dark, lit, dark): the lit ones' mean less the room's
    light fitted on the dark ones at the lit ones' times. ``mains_hz`` 50 or 60 fits that
    mains' flicker; 0 fits both and keeps the better. Too bright if any conversion saturates."""
    o = o or optics()
    if any(saturated(c, o.ceiling_v) for c in conversions):
        return Reading(0.0, too_bright=True)
    dark = [c for c in conversions if not c.lit]
    lit = [c for c in conversions if c.lit]
    if not lit or not dark:
        raise ValueError("a reading needs dark and lit conversions")
    centre = sum(c.at for c in conversions) / len(conversions)
    # as many harmonics as the dark conversions can fit (three terms for the slow light)
    most = max(0, min(o.harmonics, (len(dark) - 4) // 2))
    fits = []
    for flicker in [2.0 * m for m in ((mains_hz,) if mains_hz else (50, 60))]:
        kept = _harmonics(dark, flicker, most)
        fits.append((*_fit(dark, centre, flicker, kept), flicker, kept))
    coef, _, hz, harmonics = min(fits, key=lambda f: f[1])
    under = [sum(k * v for k, v in zip(coef, _basis(c.at - centre, hz, harmonics),
                                       strict=True)) for c in lit]  # fmt: skip
    room = sum(under) / len(under)
    led = sum(c.volts for c in lit) / len(lit) - room
    return Reading(led * 1000, room_mv=room * 1000)


def full_scale_for(volts: float) -> str:
    """The smallest ADS1115 range (its gain) holding ``volts`` with a tenth to spare and the
    LED's light on top (the model's brightest marble, 10 mV), else the widest."""
    fits = [g for g, fs in GAINS.items() if volts + 0.01 <= 0.9 * fs]
    return min(fits, key=lambda g: GAINS[g]) if fits else "1"


# --- the squares' thresholds --------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class SquareLight:
    """One square's calibration: what a white and a black marble read on it (mV, the least
    white and the most black over the calibration's readings) and the threshold between."""

    white_mv: float
    black_mv: float

    @property
    def threshold_mv(self) -> float:
        """Half-way between white and black as ratios go (their geometric mean): each side
        the same factor of margin."""
        return math.sqrt(max(self.white_mv, 1e-6) * max(self.black_mv, 1e-6))

    @property
    def ratio(self) -> float:
        return self.white_mv / max(self.black_mv, 1e-6)

    def is_white(self, mv: float) -> bool:
        return mv >= self.threshold_mv


@dataclass(frozen=True, slots=True)
class LightCalibration:
    """Every square's; ``calibrated`` False: the model's figures (before ``doctor``)."""

    squares: tuple[SquareLight, ...]
    calibrated: bool = False


def model_light_calibration() -> LightCalibration:
    """The board before its calibration: every square the model's threshold, with white and
    black the model's worst (a typical square's least white and most black, spread)."""
    t = optics().threshold_mv
    square = SquareLight(white_mv=t * 1.2, black_mv=t / 1.2)
    return LightCalibration(tuple(square for _ in SQUARES))
