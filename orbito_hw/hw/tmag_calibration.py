"""Each square's calibration on the TMAG5273 board, and its file in the state directory.

A square's sensor reads a field with no marble on it (its own offset, the motor's and the
neighbours' stray fields): its empty vector, measured by ``doctor``. A marble is seen when
the size of the field less that vector passes the square's threshold plus its hysteresis,
and the square turns empty again only under the threshold less it. Uncalibrated, every
square takes the model's figures (``hw/tmag_chip.figures``) and an empty vector of zero.

The file is written atomically (``write_durably``); one that cannot be read is moved aside
(``set_aside``), never deleted, and the board runs on the model's figures with a warning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from orbito_hw.hw.calibration_file import Unread, read_saved, saved_squares, squares_json
from orbito_hw.hw.files import write_durably
from orbito_hw.hw.tmag_chip import TmagConfig
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

FILE_NAME: Final = "tmag-calibration.json"
VERSION: Final = 1

Vector = tuple[float, float, float]


@dataclass(frozen=True, slots=True)
class SquareCalibration:
    """One square: its empty vector (gauss, x y z), where a marble turns it present
    (``on_g``) and where it turns empty again (``off_g``), on the field less the vector."""

    empty: Vector
    on_g: float
    off_g: float

    def __post_init__(self) -> None:
        values = (*self.empty, self.on_g, self.off_g)
        if len(self.empty) != 3 or not all(math.isfinite(v) for v in values):
            raise ValueError(f"not numbers of gauss: {values!r}")
        if not 0 < self.off_g < self.on_g:
            raise ValueError(f"off must be under on and above 0, not off {self.off_g:g} G, "
                             f"on {self.on_g:g} G")  # fmt: skip

    def size(self, field: Vector) -> float:
        """The size of ``field`` less the empty vector: what a marble adds."""
        return math.dist(field, self.empty)

    def present(self, field: Vector, was: bool) -> bool:
        size = self.size(field)
        return size > self.off_g if was else size >= self.on_g


@dataclass(frozen=True, slots=True)
class TmagCalibration:
    squares: tuple[SquareCalibration, ...]
    calibrated: bool = False

    def __post_init__(self) -> None:
        if len(self.squares) != len(SQUARES):
            raise ValueError(f"a calibration holds {len(SQUARES)} squares, not {len(self.squares)}")

    def to_json(self) -> str:
        squares = {
            name: {"empty": list(sq.empty), "on": sq.on_g, "off": sq.off_g}
            for name, sq in zip(SQUARE_NAMES, self.squares, strict=True)
        }
        return squares_json(VERSION, squares)

    @classmethod
    def from_json(cls, text: str) -> TmagCalibration:
        """What ``to_json`` wrote; one ValueError naming what is wrong otherwise."""
        squares = saved_squares(text, VERSION)
        out = []
        for name in SQUARE_NAMES:
            entry = squares.get(name)
            try:
                assert isinstance(entry, dict)
                empty = tuple(float(v) for v in entry["empty"])
                assert len(empty) == 3 and not any(isinstance(v, bool) for v in entry["empty"])
                on, off = entry["on"], entry["off"]
                assert not isinstance(on, bool) and not isinstance(off, bool)
                out.append(SquareCalibration((empty[0], empty[1], empty[2]), float(on), float(off)))
            except (AssertionError, KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{name}: {exc or 'not an empty vector, on and off'}") from None
        return cls(tuple(out), calibrated=True)


def model_calibration(config: TmagConfig) -> TmagCalibration:
    """The board before ``doctor`` has calibrated it: the config's threshold and hysteresis
    (the model's figures by default), an empty vector of zero."""
    on = config.threshold_g + config.hysteresis_g
    off = config.threshold_g - config.hysteresis_g
    return TmagCalibration((SquareCalibration((0.0, 0.0, 0.0), on, off),) * len(SQUARES))


@dataclass(frozen=True, slots=True)
class LoadedTmag:
    calibration: TmagCalibration
    warning: str = ""


def load_tmag_calibration(state_dir: Path, config: TmagConfig) -> LoadedTmag:
    """The saved calibration; the model's with a warning when there is none or when the file
    is damaged (moved aside, the warning says where)."""
    model = model_calibration(config)
    again = "calibrate: orbito-hw doctor --only calibrate"
    got = read_saved(state_dir / FILE_NAME, TmagCalibration.from_json)
    if not isinstance(got, Unread):
        return LoadedTmag(got)
    if got.why == "missing":
        return LoadedTmag(model, f"the squares are not calibrated: the model's figures ({again})")
    if got.why == "unreadable":
        return LoadedTmag(model, f"{got.said}: the model's figures")
    return LoadedTmag(model, f"{got.said}: the model's figures; {again}")


def save_tmag_calibration(state_dir: Path, calibration: TmagCalibration) -> Path:
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / FILE_NAME
    write_durably(path, calibration.to_json())
    return path
