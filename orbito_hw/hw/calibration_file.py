"""The board's calibration in its state directory: written by ``doctor``, read at start.

Written atomically (a power cut leaves the old file or the new one, never half of one). A
file that cannot be read is moved aside to the first free ``calibration.json.damaged-N``
and said so, never deleted: the board then runs on the design's levels, with a warning.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, TypeVar

from orbito_hw.aside import set_aside
from orbito_hw.hw.files import write_durably
from orbito_hw.hw.hall import Calibration, default_calibration

CALIBRATION_NAME: Final = "calibration.json"
MAX_BYTES: Final = 1 << 16  # 16 squares' levels are a few hundred bytes
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Unread:
    """Why a saved calibration was not read: there is none, the file system refused it, or it
    was damaged (then moved aside); ``said`` names the file, and for a damaged one where it is
    now. The caller words what the board runs on instead."""

    why: Literal["missing", "unreadable", "damaged"]
    said: str = ""


def read_saved(path: Path, parse: Callable[[str], T]) -> T | Unread:
    """The calibration in ``path`` as ``parse`` reads it (ValueError: damaged), or why not.
    The one reader of both boards' calibrations (hall levels, TMAG5273 thresholds): a file of
    more than MAX_BYTES, not UTF-8 or not parsed is moved aside, never deleted."""
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return Unread("missing")
    except OSError as exc:
        return Unread("unreadable", f"cannot read {path} ({exc.strerror or exc})")
    try:
        if len(data) > MAX_BYTES:
            raise ValueError(f"larger than {MAX_BYTES} bytes")
        return parse(data.decode("utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        reason = str(exc)
    try:
        kept = f"moved aside to {move_aside(path)}"
    except OSError as exc:
        kept = f"and cannot be moved aside ({exc.strerror or exc})"
    return Unread("damaged", f"the calibration {path} is damaged ({reason}), {kept}")


def squares_json(version: int, squares: dict[str, Any]) -> str:
    """A calibration file's text: its version and a ``squares`` object, by square name (the
    TMAG5273 thresholds' and the light's; the hall levels keep their own older shape)."""
    return json.dumps({"version": version, "squares": squares}, indent=1) + "\n"


def saved_squares(text: str, version: int) -> dict[str, Any]:
    """The ``squares`` object of what ``squares_json`` wrote at ``version``; one ValueError
    naming what is wrong otherwise (the caller reads each square's entry)."""
    try:
        data = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(data, dict) or data.get("version") != version:
        raise ValueError(f"not a version {version} calibration")
    squares = data.get("squares")
    if not isinstance(squares, dict):
        raise ValueError('no "squares" object')
    return squares


@dataclass(frozen=True, slots=True)
class Loaded:
    """The calibration the board runs on, and what a person should hear about it ("")."""

    calibration: Calibration
    warning: str = ""
    calibrated: bool = False


def calibration_path(state_dir: Path) -> Path:
    return state_dir / CALIBRATION_NAME


def load_calibration(state_dir: Path) -> Loaded:
    """The saved calibration; the design's levels with a warning when there is none, or
    when the file is damaged (moved aside, the warning says where)."""
    path = calibration_path(state_dir)
    got = read_saved(path, Calibration.from_json)
    if not isinstance(got, Unread):
        return Loaded(got, calibrated=True)
    if got.why == "missing":
        return Loaded(
            default_calibration(),
            "the board's squares are not calibrated (run orbito-hw doctor --only calibrate): "
            "using the design's levels",
        )
    if got.why == "unreadable":
        return Loaded(default_calibration(), f"{got.said}: using the design's levels")
    return Loaded(
        default_calibration(),
        f"{got.said}: using the design's levels; calibrate again (orbito-hw doctor --only "
        "calibrate)",
    )


def move_aside(path: Path) -> Path:
    """Rename ``path`` to the first free ``NAME.damaged-N``: nothing is deleted (the
    project's one way, orbito_hw/aside.py; the board's id sets its file aside here too)."""
    return set_aside(path)


def save_calibration(state_dir: Path, calibration: Calibration) -> Path:
    """Write ``calibration`` atomically and durably; OSError as the file system says."""
    state_dir.mkdir(parents=True, exist_ok=True)
    path = calibration_path(state_dir)
    write_durably(path, calibration.to_json())
    return path
