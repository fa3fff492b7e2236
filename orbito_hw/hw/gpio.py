"""The ``gpio`` backend: square sensors, the button, the index sensor and the stepper
driver through gpiozero, on its default pin factory (lgpio on a Pi 5, RPi.GPIO or lgpio
on older Pis) or on any factory passed in (``MockFactory`` off a Pi).

gpiozero calls back on its own threads on a real Pi; every callback is handed to the
controller's clock with ``Clock.post``, so the referee only ever runs on one thread.
Holding the button is timed by the referee on the clock, so the button is a plain input:
gpiozero's ``Button`` starts a hold thread that wakes ten times a second for ever (the
system test's idle measurement found it), for a ``when_held`` nobody uses.

A pin that cannot be opened is a ``PinOpenError`` naming it, whatever the pin library raised
(lgpio raises its own ``lgpio.error``, e.g. 'GPIO busy' for a line another process holds or
the kernel claimed; the gpiod factory a ``PinLineBusyError``, 'GPIO8 is busy: ...'); the devices
a part had opened before are closed again.

With the gpiod factory (hw/gpiod_factory.py, the default where it can be had: ``pin_factory``)
an edge's time is the kernel's timestamp of it, on the clock of the controller's event loop,
not the moment the callback ran.
"""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, TypeVar

from gpiozero import BadPinFactory, Device, DigitalInputDevice, GPIOZeroError, OutputDevice

from orbito_hw.errors import HardwareError
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
    reverse: bool = False  # swap DIR's levels if a forward move turns the rings clockwise
    squares_pull: str = "auto"  # "up", "down", "off", or "auto": against the active level
    button_pull: str = "auto"
    index_pull: str = "auto"
    button_bounce: float | None = None  # seconds, gpiozero's own debounce of the button


class PinOpenError(HardwareError):
    """A pin the pin library would not open. ``busy``: another process holds the line, or
    the kernel claimed it for a bus (an SPI chip select, an I2C pin)."""

    def __init__(self, pin: int, reason: str) -> None:
        self.pin = pin
        self.reason = reason
        self.busy = "busy" in reason.lower()
        super().__init__(f"GPIO {pin}: {reason}")


def gpiod_usable() -> bool:
    """Whether the gpiod factory can run here: Linux, a GPIO chip, libgpiod v2's bindings."""
    if not sys.platform.startswith("linux") or not any(Path("/dev").glob("gpiochip*")):
        return False
    try:
        import gpiod  # only here: ``import orbito_hw`` never loads it
    except ImportError:
        return False
    return hasattr(gpiod, "LineSettings")  # v1's bindings (Debian bookworm's) have none


def pin_factory(library: str, loop: asyncio.AbstractEventLoop | None = None) -> Any:
    """gpiozero's pin factory for ``library`` (the config's ``backends.gpio``), by the name
    gpiozero's ``gpiozero_pin_factories`` entry points give it ("gpiod", "lgpio", "rpigpio",
    "mock"). None: gpiozero's own choice. "auto" is gpiod where it can run, unless a factory
    was chosen already (``Device.pin_factory``, as the tests do, or GPIOZERO_PIN_FACTORY).
    ``loop``: the controller's event loop, where gpiod's edges are read (``GpiodFactory``)."""
    if library == "auto":
        if Device.pin_factory is not None or os.environ.get("GPIOZERO_PIN_FACTORY"):
            return None
        if not gpiod_usable():
            return None  # gpiozero's order: lgpio, RPi.GPIO, ...
        library = "gpiod"
    for entry in entry_points(group="gpiozero_pin_factories"):
        if entry.name == library:
            if library == "gpiod" and loop is not None:
                return entry.load()(loop=loop)
            return entry.load()()
    raise BadPinFactory(f"no gpiozero pin factory named {library!r} is installed")


def factory_name(factory: Any) -> str:
    """The pin library a factory drives the pins with, as a log line says it."""
    chip = getattr(factory, "chip_path", None)
    return type(factory).__name__ + (f" on {chip}" if chip is not None else "")


def _library_error(exc: Exception) -> bool:
    """Whether ``exc`` is the pin library's refusal to open a pin (not a bug of ours).
    lgpio's own error class is looked up only once gpiozero has loaded it."""
    lgpio = sys.modules.get("lgpio")
    lgpio_error = getattr(lgpio, "error", None) if lgpio is not None else None
    if isinstance(lgpio_error, type) and isinstance(exc, lgpio_error):
        return True
    return isinstance(exc, GPIOZeroError | OSError | RuntimeError)


@contextmanager
def _opening(pin: int) -> Iterator[None]:
    try:
        yield
    except BadPinFactory:
        raise  # no pin library at all: not this pin's fault (assemble.py says what to do)
    except Exception as exc:
        if not _library_error(exc):
            raise
        reason = str(getattr(exc, "value", None) or exc)  # lgpio.error keeps its text in value
        raise PinOpenError(pin, reason) from exc


D = TypeVar("D", bound=Any)


def _open_all(makers: list[tuple[int, Callable[[], D]]]) -> list[D]:
    """A device per (pin, make), each opened on its pin; if one fails, the ones before it
    are closed again (a part is opened whole or not at all)."""
    devices: list[D] = []
    try:
        for pin, make in makers:
            with _opening(pin):
                devices.append(make())
    except BaseException:
        for device in reversed(devices):
            device.close()
        raise
    return devices


def _pull(active_high: bool, pull: str) -> dict[str, Any]:
    """gpiozero's pull_up/active_state for a level and a pull resistor.

    gpiozero infers the active level from the pull (pulled up means active low); an input
    pulled towards its own active level, or not pulled at all, gets an explicit level."""
    against_level = (pull == "up" and not active_high) or (pull == "down" and active_high)
    if pull == "auto" or against_level:
        return {"pull_up": not active_high}
    return {"pull_up": None, "active_state": active_high}  # "off", or a pull gpiozero can't pair


class _Input(DigitalInputDevice):  # type: ignore[misc]  # gpiozero is untyped
    """gpiozero's input, keeping the tick of the change it last fired for."""

    tick: float | None = None

    def _fire_events(self, ticks: Any, new_active: bool) -> None:
        self.tick = ticks
        super()._fire_events(ticks, new_active)


def _input(pin: int, active_high: bool, factory: Any, pull: str = "auto", **more: Any) -> _Input:
    return _Input(pin, pin_factory=factory, **_pull(active_high, pull), **more)


def _stamper(device: _Input, clock: Clock) -> Callable[[], float]:
    """When a change happened: the kernel's timestamp where the factory has one and it is
    on the clock's own time (CLOCK_MONOTONIC, the event loop's); else the clock's now."""
    kernel = getattr(device.pin_factory, "kernel_timestamps", False)
    if kernel and getattr(clock, "monotonic", False):
        return lambda: device.tick if device.tick is not None else clock.now()
    return clock.now


class GpioSensors:
    def __init__(self, pins: GpioPins, clock: Clock, factory: Any = None) -> None:
        self.clock = clock
        opened = _open_all(
            [
                (pin, partial(_input, pin, pins.squares_active_high, factory, pins.squares_pull))
                for pin in (pins.squares[sq] for sq in SQUARES)
            ]
        )
        self._devices = dict(zip(SQUARES, opened, strict=True))
        self._listeners: list[SquareListener] = []
        for sq, device in self._devices.items():
            stamp = _stamper(device, clock)
            device.when_activated = self._handler(sq, True, stamp)
            device.when_deactivated = self._handler(sq, False, stamp)

    def _handler(
        self, square: int, present: bool, stamp: Callable[[], float]
    ) -> Callable[[], None]:
        def changed() -> None:
            when = stamp()
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
        with _opening(pins.button):
            self._device = _input(
                pins.button,
                pins.button_active_high,
                factory,
                pins.button_pull,
                bounce_time=pins.button_bounce,
            )
        self._stamp = _stamper(self._device, clock)
        self._listeners: list[ButtonListener] = []
        self._device.when_activated = lambda: self._post(True)
        self._device.when_deactivated = lambda: self._post(False)

    def _post(self, pressed: bool) -> None:
        when = self._stamp()
        self.clock.post(lambda: self._tell(pressed, when))

    def _tell(self, pressed: bool, when: float) -> None:
        for listener in list(self._listeners):
            listener(pressed, when)

    def subscribe(self, listener: ButtonListener) -> None:
        self._listeners.append(listener)

    @property
    def is_pressed(self) -> bool:
        return bool(self._device.is_active)

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
        self._reverse = pins.reverse
        self._step, self._dir, self._enable, self._index = _open_all(
            [
                (
                    pins.step,
                    partial(OutputDevice, pins.step, initial_value=False, pin_factory=factory),
                ),
                (
                    pins.direction,
                    partial(
                        OutputDevice,
                        pins.direction,
                        initial_value=self._dir_level(True),
                        pin_factory=factory,
                    ),
                ),
                (
                    pins.enable,
                    partial(
                        OutputDevice,
                        pins.enable,
                        active_high=pins.enable_active_high,
                        initial_value=False,
                        pin_factory=factory,
                    ),
                ),
                (
                    pins.index,
                    partial(_input, pins.index, pins.index_active_high, factory, pins.index_pull),
                ),
            ]
        )

    def index_active(self) -> bool:
        return bool(self._index.is_active)

    def _dir_level(self, forward: bool) -> bool:
        """DIR's level for a move: high turns the rings counter-clockwise (a press), low
        back (clockwise), each swapped when the motor is wired the other way round."""
        return forward != self._reverse

    def _energise(self, on: bool) -> None:
        if on:  # DIR first: the driver reads it at each STEP edge, after a setup time
            self._dir.value = self._dir_level(self.forward)
        self._enable.value = on

    def _pulse(self) -> None:
        self._step.on()
        self._step.off()

    def close(self) -> None:
        super().close()
        for device in (self._enable, self._step, self._dir, self._index):
            device.close()
