"""Each square's colour threshold on a board that tells colour by light, and its file in the
state directory.

``doctor``'s calibration reads each square with a white marble and then a black one, in a
few poses: the least white and the most black it read are the square's (``SquareLight``),
the threshold their geometric mean. Uncalibrated, every square takes the model's threshold
(``hw/light_front.model_light_calibration``).

The file is written atomically (``write_durably``); one that cannot be read is moved aside
(``calibration_file.read_saved``), never deleted, and the board runs on the model's
threshold with a warning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from orbito_hw.hw.calibration_file import Unread, read_saved, saved_squares, squares_json
from orbito_hw.hw.files import write_durably
from orbito_hw.hw.light_front import LightCalibration, SquareLight, model_light_calibration
from orbito_hw.rules.squares import SQUARE_NAMES

FILE_NAME: Final = "light-calibration.json"
VERSION: Final = 1


def to_json(calibration: LightCalibration) -> str:
    squares = {
        name: {"white_mv": sq.white_mv, "black_mv": sq.black_mv}
        for name, sq in zip(SQUARE_NAMES, calibration.squares, strict=True)
    }
    return squares_json(VERSION, squares)


def from_json(text: str) -> LightCalibration:
    """What ``to_json`` wrote; one ValueError naming what is wrong otherwise."""
    squares = saved_squares(text, VERSION)
    out = []
    for name in SQUARE_NAMES:
        entry = squares.get(name)
        if not isinstance(entry, dict):
            raise ValueError(f"{name}: not a white and a black reading")
        white, black = entry.get("white_mv"), entry.get("black_mv")
        if not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and v > 0
            for v in (white, black)
        ):
            raise ValueError(f"{name}: white_mv and black_mv must be millivolts over 0")
        assert isinstance(white, (int, float)) and isinstance(black, (int, float))
        if white <= black:
            raise ValueError(f"{name}: white ({white:g} mV) is not over black ({black:g} mV)")
        out.append(SquareLight(float(white), float(black)))
    return LightCalibration(tuple(out), calibrated=True)


@dataclass(frozen=True, slots=True)
class LoadedLight:
    calibration: LightCalibration
    warning: str = ""


def load_light_calibration(state_dir: Path) -> LoadedLight:
    """The saved thresholds; the model's with a warning when there are none or when the
    file is damaged (moved aside, the warning says where)."""
    model = model_light_calibration()
    again = "calibrate: orbito-hw doctor --only calibrate"
    got = read_saved(state_dir / FILE_NAME, from_json)
    if not isinstance(got, Unread):
        return LoadedLight(got)
    if got.why == "missing":
        return LoadedLight(
            model, f"the colours are not calibrated: the model's threshold ({again})"
        )
    if got.why == "unreadable":
        return LoadedLight(model, f"{got.said}: the model's threshold")
    return LoadedLight(model, f"{got.said}: the model's threshold; {again}")


def save_light_calibration(state_dir: Path, calibration: LightCalibration) -> Path:
    state_dir.mkdir(parents=True, exist_ok=True)
    path = state_dir / FILE_NAME
    write_durably(path, to_json(calibration))
    return path
