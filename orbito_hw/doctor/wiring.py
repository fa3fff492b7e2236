"""How the doctor names a board's parts: the config keys and pins a fault points at."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Final, Literal, Protocol

from orbito_hw.lang import _
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

PinnedPart = Literal["sensors", "button", "drive"]
"""A part that the gpio backend wires to the Pi's own pins."""
PINNED_PARTS: Final[tuple[PinnedPart, ...]] = ("sensors", "button", "drive")


class Pins(Protocol):
    """The BCM pins of the parts on the Pi's GPIOs (the gpio backend's ``GpioPins``)."""

    @property
    def squares(self) -> Mapping[int, int]: ...  # square -> pin

    @property
    def button(self) -> int: ...

    @property
    def step(self) -> int: ...

    @property
    def direction(self) -> int: ...

    @property
    def enable(self) -> int: ...

    @property
    def index(self) -> int: ...


@dataclass(frozen=True)
class Wiring:
    """The config keys (and pins, when known) that a fault points at. Built by ``of``, for
    a real board from its config and for the simulated one from its mock pins alike."""

    square_pins: tuple[int, ...] = ()
    button_pin: int | None = None
    step_pin: int | None = None
    dir_pin: int | None = None
    enable_pin: int | None = None
    index_pin: int | None = None
    lights_pin: int | None = None
    pixel_of: tuple[int, ...] = ()  # the strip index of each square's pixel
    status_pixel: int | None = None
    steps_per_place: int | None = None
    max_speed: float | None = None

    @classmethod
    def of(
        cls,
        pins: Pins | None = None,
        *,
        pinned: Collection[PinnedPart] = PINNED_PARTS,
        lights_pin: int | None = None,
        pixel_of: Sequence[int] = (),
        status_pixel: int | None = None,
        steps_per_place: int | None = None,
        max_speed: float | None = None,
    ) -> Wiring:
        """The wiring of a board whose ``pinned`` parts are on ``pins`` (no pins: none is);
        ``pixel_of`` is the strip index of each square's pixel (empty: not a strip)."""

        def on_pins(part: PinnedPart) -> Pins | None:
            return pins if part in pinned else None

        sensors, button, drive = on_pins("sensors"), on_pins("button"), on_pins("drive")
        return cls(
            square_pins=() if sensors is None else tuple(sensors.squares[s] for s in SQUARES),
            button_pin=None if button is None else button.button,
            step_pin=None if drive is None else drive.step,
            dir_pin=None if drive is None else drive.direction,
            enable_pin=None if drive is None else drive.enable,
            index_pin=None if drive is None else drive.index,
            lights_pin=lights_pin,
            pixel_of=tuple(pixel_of),
            status_pixel=status_pixel,
            steps_per_place=steps_per_place,
            max_speed=max_speed,
        )

    def sensor(self, square: int) -> str:
        key = f"sensors.pins.{SQUARE_NAMES[square]}"
        return f"{key} = {self.square_pins[square]}" if self.square_pins else key

    def pin(self, key: str, pin: int | None) -> str:
        return key if pin is None else f"{key} = {pin}"

    def pixel(self, square: int) -> str:
        name = SQUARE_NAMES[square]
        if self.pixel_of:
            text = _("the pixel under {square} (strip pixel {n}, lights.order)")
            return text.format(square=name, n=self.pixel_of[square])
        return _("the pixel under {square} (lights.order)").format(square=name)
