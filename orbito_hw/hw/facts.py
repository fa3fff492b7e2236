"""The board's physical facts that its config chooses and its mechanics' model draws.

The CAD (``hardware/orbito_cad``) takes the board's facts from the lowest layer that holds
them: the squares from ``rules``, and from here the drive's figures and what the LED strip
is (its pixels, the squares in the order the strip runs under them, the status pixel, the
brightness cap). The config (``app/config.py``) reads and checks them; the model only reads
them, so it never imports the app, which sits above it in the house. ``Config`` is a
``BoardFacts`` as it is (its ``lights`` and ``drive`` have these fields).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Protocol


@dataclass(frozen=True, slots=True)
class DriveConfig:
    """The config's ``[drive]``: the stepper's pins and figures (the planner's trapezoid
    and the gear's steps per place, which the CAD's drive model runs on too)."""

    step_pin: int | None = None
    dir_pin: int | None = None
    enable_pin: int | None = None
    enable_active: str = "low"
    invert_direction: bool = False
    steps_per_place: int = 800
    max_speed: float = 1600.0  # steps/s
    acceleration: float = 4000.0  # steps/s^2
    index_pin: int | None = None
    index_active: str = "low"
    index_pull: str = "up"


class StripFacts(Protocol):
    """The LED strip as the model wires it (the config's ``[lights]``)."""

    @property
    def pixels(self) -> int: ...

    @property
    def order(self) -> tuple[int, ...]:
        """The square under each pixel, along the strip."""
        ...

    @property
    def status_pixel(self) -> int | None: ...

    @property
    def brightness(self) -> float: ...


class BoardFacts(Protocol):
    """What the model needs of a board's config: its strip and its drive."""

    @property
    def lights(self) -> StripFacts: ...

    @property
    def drive(self) -> DriveConfig: ...


def read_drive(path: Path) -> DriveConfig:
    """The ``[drive]`` figures of the config file at ``path`` (the shipped example, which
    the config's own tests check): each key the table has, the defaults for the others."""
    with path.open("rb") as file:
        table: dict[str, Any] = tomllib.load(file).get("drive", {})
    names = {f.name for f in fields(DriveConfig)}
    return DriveConfig(**{k: v for k, v in table.items() if k in names})
