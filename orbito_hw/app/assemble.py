"""A board from the config: each part from the backend the config names for it.

A backend's library is imported here only when that backend is chosen, and a part that
cannot be opened is reported by the config key that chose it, never as a traceback.
"""

from __future__ import annotations

import warnings
from typing import Any

from orbito_hw.app.config import Config
from orbito_hw.errors import OrbitoError
from orbito_hw.hw.interfaces import RGB, Board, Clock, Frame


class HardwareError(OrbitoError):
    """A part of the board that cannot be opened, named by its config key."""


class NoLights:
    """``lights = "none"``: a board built without LEDs."""

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        pass

    def close(self) -> None:
        pass


def gpio_pins(config: Config) -> Any:
    from orbito_hw.hw.gpio import GpioPins  # gpiozero only when a gpio part is chosen

    s, b, d = config.sensors, config.button, config.drive
    return GpioPins(
        squares=dict(enumerate(s.pins)),
        button=b.pin if b.pin is not None else -1,
        step=d.step_pin if d.step_pin is not None else -1,
        direction=d.dir_pin if d.dir_pin is not None else -1,
        enable=d.enable_pin if d.enable_pin is not None else -1,
        index=d.index_pin if d.index_pin is not None else -1,
        squares_active_high=s.active == "high",
        button_active_high=b.active == "high",
        enable_active_high=d.enable_active == "high",
        index_active_high=d.index_active == "high",
        reverse=d.invert_direction,
        squares_pull=s.pull,
        button_pull=b.pull,
        index_pull=d.index_pull,
        button_bounce=b.debounce_ms / 1000 or None,
    )


def open_lights(config: Config) -> Any:
    lights = config.lights
    if config.backends.lights == "none":
        return NoLights()
    if config.backends.lights != "neopixel":
        raise HardwareError(
            f"{config.source}: backends.lights: {config.backends.lights!r} is not for a real board"
        )
    from orbito_hw.hw.strip import StripLights, open_neopixel

    assert lights.pin is not None
    try:
        strip = open_neopixel(lights.pin, lights.pixels, lights.brightness, lights.pixel_order)
    except NotImplementedError:
        raise HardwareError(
            f"{config.source}: backends.lights: no NeoPixel support on this machine "
            '(not a Raspberry Pi?); use lights = "none" or run --mock'
        ) from None
    except (OSError, RuntimeError, ValueError) as exc:
        raise HardwareError(
            f"{config.source}: lights.pin = {lights.pin}: cannot open the strip: {exc}"
        ) from None
    return StripLights(strip, lights.square_pixels(), lights.status_pixel)


def build_board(config: Config, clock: Clock, realtime: bool = True) -> Board:
    """The real board the config describes. Every part is opened, or none is."""
    b = config.backends
    for part in ("sensors", "button", "drive"):
        if getattr(b, part) == "sim":
            raise HardwareError(
                f'{config.source}: backends.{part}: "sim" is the simulated board: use run --mock'
            )
    opened: list[Any] = []
    try:
        from orbito_hw.hw.gpio import GpioButton, GpioDrive, GpioSensors

        pins = gpio_pins(config)
        d = config.drive
        if b.sensors == "serial" and b.drive != "serial":
            raise HardwareError(
                f'{config.source}: backends.sensors: "serial" reads the squares through '
                'the Pico, which needs backends.drive = "serial" too'
            )
        if b.sensors == "gpio":
            sensors = _open("sensors.pins", lambda: GpioSensors(pins, clock), opened, config)
        if b.drive == "serial":
            drive = _open_serial(config, clock, opened)
        else:
            drive = _open(
                "drive",
                lambda: GpioDrive(
                    pins, clock, d.steps_per_place, d.max_speed, d.acceleration, realtime=realtime
                ),
                opened,
                config,
            )
        if b.sensors == "serial":
            sensors = drive.sensors
        button = _open("button.pin", lambda: GpioButton(pins, clock), opened, config)
        lights = open_lights(config)
    except BaseException:
        for part in reversed(opened):
            part.close()
        raise
    return Board(clock, sensors, button, drive, lights)


def _open(key: str, make: Any, opened: list[Any], config: Config) -> Any:
    from gpiozero import BadPinFactory, GPIOZeroError

    try:
        with warnings.catch_warnings():  # gpiozero warns for each pin library it skips
            warnings.simplefilter("ignore")
            part = make()
    except BadPinFactory:
        raise HardwareError(
            f"{config.source}: {key}: no GPIO library can drive this machine's pins "
            "(not a Raspberry Pi? on one: apt install python3-lgpio, or pip's [pi] extra); "
            "try run --mock"
        ) from None
    except (GPIOZeroError, OSError, RuntimeError) as exc:
        raise HardwareError(f"{config.source}: {key}: {type(exc).__name__}: {exc}") from None
    opened.append(part)
    return part


def _open_serial(config: Config, clock: Clock, opened: list[Any]) -> Any:
    """The ring controller on the Pico, set up with the config's drive settings."""
    from orbito_hw.hw.serial_backend import SerialRingDrive
    from orbito_hw.hw.serial_link import LinkError

    d = config.drive
    settings = {
        "spp": d.steps_per_place,
        "speed": round(d.max_speed),
        "accel": round(d.acceleration),
        "scan": int(config.backends.sensors == "serial"),
        "debounce_ms": config.sensors.debounce_ms,
    }
    try:
        drive = SerialRingDrive(clock, config.serial.port, settings)
    except (LinkError, OSError) as exc:
        raise HardwareError(f"{config.source}: serial.port = {config.serial.port}: {exc}") from None
    opened.append(drive)
    return drive
