"""What a square's linear hall sensor says it holds: empty, a black marble or a white one.

Each marble's magnet faces its sensor with the pole its colour gives it: a black marble
reads a strong field of one polarity (positive, in gauss), a white one the other, an empty
square about zero (the neighbours' stray field and the sensor's own offset). A reading is
classified against the square's own calibration (its levels empty, black and white, as
measured by ``doctor``) with a threshold half-way across each gap and a hysteresis band
around it, so noise near a threshold never flips the reading back and forth.

Pure and standard library only: the analog backends, the simulated board and the doctor
share it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from enum import Enum
from typing import Final

from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

CALIBRATION_VERSION: Final = 1
"""The calibration file's format (``version`` in its JSON)."""

HYSTERESIS: Final = 0.25
"""The hysteresis band's width as a share of its gap: a reading crosses a threshold only
once it is an eighth of the gap past it (a quarter of the gap between turning on and off)."""


class Seen(Enum):
    """What a square's sensor reads."""

    EMPTY = "empty"
    BLACK = "black"
    WHITE = "white"


@dataclass(frozen=True, slots=True)
class Design:
    """The design's nominal figures, in gauss at the sensor (after its own conversion).

    The marbles' fields are at rest in every orientation the seat allows, before the
    sensor's offset; an empty square's is the strongest stray field its neighbours give.
    """

    black_weakest_g: float
    black_strongest_g: float
    white_weakest_g: float
    """Negative: white marbles read the other polarity."""
    white_strongest_g: float
    empty_strongest_g: float
    """The strongest field an empty square reads (either polarity) whatever its neighbours."""
    offset_spread_g: float
    """A sensor's offset from zero before calibration, either way."""
    noise_rms_g: float
    """The noise of one reading (sensor and ADC), RMS."""


# The magnetic model (hardware/) owns these numbers; placeholders until it computes them.
DESIGN: Final = Design(
    black_weakest_g=120.0,
    black_strongest_g=260.0,
    white_weakest_g=-120.0,
    white_strongest_g=-260.0,
    empty_strongest_g=8.0,
    offset_spread_g=30.0,
    noise_rms_g=1.5,
)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """Where a square's reading turns black or white and where it turns back to empty.

    A reading at or over ``black_on`` reads black; once black it stays black until it
    falls under ``black_off``. Likewise white, downwards (``white_on`` < ``white_off``).
    """

    black_on: float
    black_off: float
    white_on: float
    white_off: float


@dataclass(frozen=True, slots=True)
class SquareLevels:
    """One square's calibration: the field its sensor reads empty, with a black marble and
    with a white one (gauss, offset included). Black must read above empty and white below
    it; ValueError naming the levels otherwise."""

    empty: float
    black: float
    white: float

    def __post_init__(self) -> None:
        if not all(math.isfinite(v) for v in (self.empty, self.black, self.white)):
            raise ValueError(f"levels must be numbers of gauss, not {self._shown()}")
        if not self.white < self.empty < self.black:
            raise ValueError(f"black must read above empty and white below it, not {self._shown()}")

    def _shown(self) -> str:
        return f"empty {self.empty:g} G, black {self.black:g} G, white {self.white:g} G"

    @property
    def separation(self) -> float:
        """The smaller of the two gaps (empty to black, empty to white), in gauss: what the
        doctor weighs against the noise."""
        return min(self.black - self.empty, self.empty - self.white)

    def thresholds(self) -> Thresholds:
        black_mid = (self.empty + self.black) / 2
        white_mid = (self.empty + self.white) / 2
        black_band = HYSTERESIS * (self.black - self.empty) / 2
        white_band = HYSTERESIS * (self.empty - self.white) / 2
        return Thresholds(
            black_on=black_mid + black_band,
            black_off=black_mid - black_band,
            white_on=white_mid - white_band,
            white_off=white_mid + white_band,
        )


def classify(value_g: float, levels: SquareLevels, previous: Seen) -> Seen:
    """What a reading of ``value_g`` gauss says the square holds, given what it read last:
    a reading inside a hysteresis band keeps the previous side of its threshold."""
    t = levels.thresholds()
    if value_g >= t.black_on or (previous is Seen.BLACK and value_g > t.black_off):
        return Seen.BLACK
    if value_g <= t.white_on or (previous is Seen.WHITE and value_g < t.white_off):
        return Seen.WHITE
    return Seen.EMPTY


@dataclass(frozen=True, slots=True)
class Calibration:
    """The 16 squares' levels, in square order (a1 = 0 .. d4 = 15)."""

    squares: tuple[SquareLevels, ...]

    def __post_init__(self) -> None:
        if len(self.squares) != len(SQUARES):
            raise ValueError(f"a calibration holds {len(SQUARES)} squares, not {len(self.squares)}")

    def to_json(self) -> str:
        squares = {
            name: {"empty": lv.empty, "black": lv.black, "white": lv.white}
            for name, lv in zip(SQUARE_NAMES, self.squares, strict=True)
        }
        return json.dumps({"version": CALIBRATION_VERSION, "squares": squares}, indent=1) + "\n"

    @classmethod
    def from_json(cls, text: str) -> Calibration:
        """The calibration ``to_json`` wrote; one ValueError naming what is wrong otherwise."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"the calibration is not JSON ({exc})") from None
        if not isinstance(data, dict):
            raise ValueError("the calibration is not a JSON object")
        if data.get("version") != CALIBRATION_VERSION:
            raise ValueError(
                f"the calibration's version is {data.get('version')!r}, "
                f"not {CALIBRATION_VERSION} (calibrate again: orbito-hw doctor)"
            )
        squares = data.get("squares")
        if not isinstance(squares, dict):
            raise ValueError('the calibration has no "squares" object')
        unknown = sorted(set(squares) - set(SQUARE_NAMES))
        if unknown:
            raise ValueError(f"the calibration names {unknown[0]!r}, not a square")
        return cls(tuple(_levels_of(name, squares.get(name)) for name in SQUARE_NAMES))


def _levels_of(name: str, entry: object) -> SquareLevels:
    if not isinstance(entry, dict):
        raise ValueError(f"the calibration has no levels for {name}")
    values = []
    for key in ("empty", "black", "white"):
        value = entry.get(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ValueError(f"the calibration's {name}.{key} is {value!r}, not gauss")
        values.append(float(value))
    try:
        return SquareLevels(*values)
    except ValueError as exc:
        raise ValueError(f"the calibration's {name}: {exc}") from None


def default_calibration(design: Design = DESIGN) -> Calibration:
    """The levels a board not yet calibrated uses: empty at zero, each colour at its weakest
    field, so the thresholds sit where the weakest marble read through the worst offset
    still crosses them and the strongest stray field never does."""
    levels = SquareLevels(empty=0.0, black=design.black_weakest_g, white=design.white_weakest_g)
    return Calibration((levels,) * len(SQUARES))
