"""The ``gpio`` backend: square sensors, the button, the index sensor and the stepper
driver through gpiozero, on its default pin factory (lgpio on a Pi 5, RPi.GPIO or lgpio
on older Pis) or on any factory passed in (``MockFactory`` off a Pi).

gpiozero calls back on its own threads on a real Pi; every callback is handed to the
controller's clock with ``Clock.post``, so the referee only ever runs on one thread.
Holding the button is timed by the referee on the clock, not by gpiozero's hold thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gpiozero import Button as _Button
from gpiozero import DigitalInputDevice, OutputDevice

from orbito_hw.hw.interfaces import ButtonListener, Clock, SquareListener
from orbito_hw.hw.planner import SteppedDrive
from orbito_hw.rules.squares import SQUARES


@dataclass(frozen=True)
class GpioPins:
    """BCM pin numbers and levels of everything the gpio backend drives or reads."""

    squares: dict[int, int]  # square -> pin
    button: int
    step: int
    direction: int
    enable: int
    index: int
    squares_active_high: bool = False
    button_active_high: bool = False
    enable_active_high: bool = False
    index_active_high: bool = False
    reverse: bool = False  # swap DIR's level if the motor turns the rings clockwise
    squares_pull: str = "auto"  # "up", "down", "off", or "auto": against the active level
    button_pull: str = "auto"
    index_pull: str = "auto"
    button_bounce: float | None = None  # seconds, gpiozero's own debounce of the button


def _pull(active_high: bool, pull: str) -> dict[str, Any]:
    """gpiozero's pull_up/active_state for a level and a pull resistor.

    gpiozero infers the active level from the pull (pulled up means active low); an input
    pulled towards its own active level, or not pulled at all, gets an explicit level."""
    against_level = (pull == "up" and not active_high) or (pull == "down" and active_high)
    if pull == "auto" or against_level:
        return {"pull_up": not active_high}
    return {"pull_up": None, "active_state": active_high}  # "off", or a pull gpiozero can't pair


def _input(pin: int, active_high: bool, factory: Any, pull: str = "auto") -> DigitalInputDevice:
    return DigitalInputDevice(pin, pin_factory=factory, **_pull(active_high, pull))


class GpioSensors:
    def __init__(self, pins: GpioPins, clock: Clock, factory: Any = None) -> None:
        self.clock = clock
        self._devices = {
            sq: _input(pins.squares[sq], pins.squares_active_high, factory, pins.squares_pull)
            for sq in SQUARES
        }
        self._listeners: list[SquareListener] = []
        for sq, device in self._devices.items():
            device.when_activated = self._handler(sq, True)
            device.when_deactivated = self._handler(sq, False)

    def _handler(self, square: int, present: bool) -> Callable[[], None]:
        def changed() -> None:
            when = self.clock.now()
            self.clock.post(lambda: self._tell(square, present, when))

        return changed

    def _tell(self, square: int, present: bool, when: float) -> None:
        for listener in list(self._listeners):
            listener(square, present, when)

    def read(self) -> int:
        mask = 0
        for sq, device in self._devices.items():
            if device.is_active:
                mask |= 1 << sq
        return mask

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def close(self) -> None:
        for device in self._devices.values():
            device.close()


class GpioButton:
    def __init__(self, pins: GpioPins, clock: Clock, factory: Any = None) -> None:
        self.clock = clock
        self._device = _Button(
            pins.button,
            bounce_time=pins.button_bounce,
            pin_factory=factory,
            **_pull(pins.button_active_high, pins.button_pull),
        )
        self._listeners: list[ButtonListener] = []
        self._device.when_pressed = lambda: self._post(True)
        self._device.when_released = lambda: self._post(False)

    def _post(self, pressed: bool) -> None:
        when = self.clock.now()
        self.clock.post(lambda: self._tell(pressed, when))

    def _tell(self, pressed: bool, when: float) -> None:
        for listener in list(self._listeners):
            listener(pressed, when)

    def subscribe(self, listener: ButtonListener) -> None:
        self._listeners.append(listener)

    @property
    def is_pressed(self) -> bool:
        return bool(self._device.is_pressed)

    def close(self) -> None:
        self._device.close()


class GpioDrive(SteppedDrive):
    """A STEP/DIR/ENABLE stepper driver (A4988, DRV8825, TMC2209...) and the index sensor."""

    def __init__(
        self,
        pins: GpioPins,
        clock: Clock,
        steps_per_place: int,
        max_speed: float,
        acceleration: float,
        home_speed: float = 400.0,
        factory: Any = None,
        realtime: bool = False,
    ) -> None:
        super().__init__(clock, steps_per_place, max_speed, acceleration, home_speed, realtime)
        self._step = OutputDevice(pins.step, initial_value=False, pin_factory=factory)
        self._forward = not pins.reverse  # DIR's level that turns the rings counter-clockwise
        self._dir = OutputDevice(pins.direction, initial_value=self._forward, pin_factory=factory)
        self._enable = OutputDevice(
            pins.enable,
            active_high=pins.enable_active_high,
            initial_value=False,
            pin_factory=factory,
        )
        self._index = _input(pins.index, pins.index_active_high, factory, pins.index_pull)

    def index_active(self) -> bool:
        return bool(self._index.is_active)

    def _energise(self, on: bool) -> None:
        if on:
            self._dir.value = self._forward
        self._enable.value = on

    def _pulse(self) -> None:
        self._step.on()
        self._step.off()

    def close(self) -> None:
        super().close()
        for device in (self._enable, self._step, self._dir, self._index):
            device.close()
