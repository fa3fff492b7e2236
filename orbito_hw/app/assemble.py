"""A board from the config: each part from the backend the config names for it.

The one place where a real board is wired. A backend's library is imported here only when
that backend is chosen, and a part that cannot be opened is reported by the config key
that chose it (a ``HardwareError``), never as a traceback.
"""

from __future__ import annotations

import asyncio
import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from orbito_hw.app.config import Config
from orbito_hw.doctor.checks import PINNED_PARTS, Wiring
from orbito_hw.errors import ConfigError, HardwareError
from orbito_hw.hw.calibration_file import load_calibration
from orbito_hw.hw.hall import Calibration
from orbito_hw.hw.interfaces import (
    RGB,
    Board,
    Button,
    Clock,
    Frame,
    Lights,
    RingDrive,
    SquareSensors,
)
from orbito_hw.lang import _

if TYPE_CHECKING:
    from orbito_hw.hw.gpio import GpioPins, PinOpenError
    from orbito_hw.hw.serial_backend import SerialRingDrive

log = logging.getLogger(__name__)


class Part(Protocol):
    """Anything the assembly opened and must close again if a later part fails."""

    def close(self) -> None: ...


P = TypeVar("P", bound=Part)


class NoLights:
    """``lights = "none"``: a board built without LEDs."""

    watched = False  # nothing to animate (control/lights.py ``watched``)

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        pass

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        return [None] * 16, None

    def close(self) -> None:
        pass


def gpio_pins(config: Config) -> GpioPins:
    """The config's pins and levels as the gpio backend takes them (-1: a pin not given)."""
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


def doctor_wiring(config: Config) -> Wiring:
    """The config keys and pins the doctor names when a part of this board fails."""
    b, lights = config.backends, config.lights
    return Wiring.of(
        gpio_pins(config),
        pinned=[part for part in PINNED_PARTS if getattr(b, part) == "gpio"],
        lights_pin=lights.pin if b.lights == "neopixel" else None,
        pixel_of=lights.square_pixels(),
        status_pixel=lights.status_pixel,
        steps_per_place=config.drive.steps_per_place,
        max_speed=config.drive.max_speed,
    )


def open_lights(config: Config) -> Lights:
    lights = config.lights
    if config.backends.lights == "none":
        return NoLights()
    if config.backends.lights != "neopixel":
        raise ConfigError(
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


def check_backends(config: Config) -> None:
    """What no device can mend, before anything is opened: ConfigError (exit 2)."""
    b = config.backends
    for name in PINNED_PARTS:
        if getattr(b, name) == "sim":
            raise ConfigError(
                f'{config.source}: backends.{name}: "sim" is the simulated board: use run --mock'
            )
    if b.sensors == "serial" and b.drive != "serial":
        raise ConfigError(
            f'{config.source}: backends.sensors: "serial" reads the squares through '
            'the Pico, which needs backends.drive = "serial" too'
        )
    if b.lights not in ("neopixel", "none"):
        raise ConfigError(f"{config.source}: backends.lights: {b.lights!r} is not for a real board")


def build_board(config: Config, clock: Clock, realtime: bool = True) -> Board:
    """The real board the config describes. Every part is opened, or none is (the doctor's
    way; the service opens each part as it can: app/devices.py)."""
    check_backends(config)
    opened: list[Part] = []
    factory = open_pin_factory(config)
    trying = "sensors"  # the part being opened: a HardwareError names it (doctor says it)
    try:
        sensors: SquareSensors | None = None
        if config.backends.sensors in ("gpio", "tmag"):
            # No supervisor here (the doctor's board): a square whose sensor does not answer
            # is said in the log, by square, channel and multiplexer.
            opened.append(sensors := open_sensors(config, clock, factory, on_fault=_say_fault))
        trying = "drive"
        drive, pico_sensors = open_drive(config, clock, realtime, factory)
        opened.append(drive)
        sensors = pico_sensors or sensors
        assert sensors is not None  # gpio, tmag or serial: check_backends allows no other
        trying = "button"
        opened.append(button := open_button(config, clock, factory))
        trying = "lights"
        lights = open_lights(config)
        if config.by_light:  # the squares' colours, read by their LEDs' light
            trying = "sensors"
            opened.remove(sensors)
            opened.append(sensors := by_light(config, clock, sensors, lights, factory, _say_fault))
    except BaseException as exc:
        if isinstance(exc, HardwareError):
            exc.part = exc.part or trying
        for part in reversed(opened):
            part.close()
        if factory is not None:
            factory.close()
        raise
    say_pin_library(config, factory)
    return Board(clock, sensors, button, drive, lights, factory.close if factory else None)


def _say_fault(line: str) -> None:
    if line:
        log.warning("%s", line)


def open_pin_factory(config: Config, loop: asyncio.AbstractEventLoop | None = None) -> Any:
    """The gpio parts' pin factory, as ``backends.gpio`` chooses (hw/gpio.py's
    ``pin_factory``); None: gpiozero's own (``Device.pin_factory``). A library that cannot
    run here is a HardwareError naming the key. ``loop``: the controller's, where the gpiod
    factory reads the edges."""
    from orbito_hw.hw.gpio import pin_factory  # gpiozero only when a gpio part is chosen

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return pin_factory(config.backends.gpio, loop)
    except Exception as exc:  # ImportError (lgpio absent), OSError (no chip), BadPinFactory
        raise HardwareError(
            f"{config.source}: backends.gpio = {config.backends.gpio!r}: cannot drive the "
            f"pins with it here: {type(exc).__name__}: {exc}"
        ) from None


def say_pin_library(config: Config, factory: Any) -> None:
    """Log which pin library the gpio parts run on ("auto" chose it, or gpiozero did)."""
    from gpiozero import Device

    from orbito_hw.hw.gpio import factory_name

    used = factory if factory is not None else Device.pin_factory
    if used is not None:
        text = _("GPIO pins through {library} (backends.gpio = {gpio})")
        log.info("%s", text.format(library=factory_name(used), gpio=config.backends.gpio))


def open_sensors(
    config: Config,
    clock: Clock,
    factory: Any = None,
    on_lost: Callable[[str], None] | None = None,
    on_fault: Callable[[str], None] | None = None,
) -> SquareSensors:
    """The squares' sensors on the Pi's pins (``backends.sensors = "gpio"``), through
    ``factory`` (``open_pin_factory``'s; None: gpiozero's own): a hall switch per square,
    or (``sensors.colour``) the linear sensors through the multiplexer and the ADC, whose
    failure mid-game ``on_lost`` hears; or (``"tmag"``) the reference board's TMAG5273 on
    I2C, their INT line through ``factory``, whose squares unknown ``on_fault`` hears."""
    if config.backends.sensors == "tmag":
        from orbito_hw.hw.tmag import TmagSquares  # adafruit's drivers only when chosen
        from orbito_hw.hw.tmag_calibration import load_tmag_calibration

        loaded = load_tmag_calibration(config.board.state_dir, config.tmag)
        if loaded.warning:
            log.warning("%s", loaded.warning)
        return _open(
            "tmag",
            lambda: TmagSquares(config.tmag, clock, loaded.calibration, factory, on_fault=on_fault),
            config,
        )
    if config.sensors.colour:
        from orbito_hw.hw.analog import AnalogSquares  # adafruit_ads1x15 only when chosen

        calibration = board_calibration(config)
        front = config.analog.front_end()
        return _open(
            "analog.address",
            lambda: AnalogSquares(front, clock, calibration, factory, on_lost=on_lost),
            config,
        )
    from orbito_hw.hw.gpio import GpioSensors  # gpiozero only when a gpio part is chosen

    pins = gpio_pins(config)
    return _open("sensors.pins", lambda: GpioSensors(pins, clock, factory), config)


def by_light(
    config: Config,
    clock: Clock,
    presence: SquareSensors,
    lights: Lights,
    factory: Any = None,
    on_fault: Callable[[str], None] | None = None,
) -> SquareSensors:
    """The reference board's squares telling colour by light (``sensors.colour`` on the
    tmag backend): ``presence`` (its TMAG5273, whose bus the phototransistors' ADS1115
    shares) and a reading through ``lights`` (their LEDs flash). A HardwareError naming
    ``light.address`` when the ADC does not answer (``presence`` is closed then)."""
    from orbito_hw.hw.light import LightColours, LightReader  # adafruit_ads1x15 when chosen
    from orbito_hw.hw.light_calibration import load_light_calibration

    loaded = load_light_calibration(config.board.state_dir)
    if loaded.warning:
        log.warning("%s", loaded.warning)
    bus = getattr(presence, "bus", None)
    try:
        reader = _open(
            "light.address",
            lambda: LightReader(config.light, lights, bus, factory),
            config,
        )
    except BaseException:
        presence.close()
        raise
    return LightColours(presence, reader, loaded.calibration, clock, on_fault)


def board_calibration(config: Config) -> Calibration:
    """The squares' calibration from the state directory; the design's, with a warning in
    the log, on a board not calibrated yet (or whose file was damaged: moved aside)."""
    loaded = load_calibration(config.board.state_dir)
    if loaded.warning:
        log.warning("%s", loaded.warning)
    return loaded.calibration


def open_button(config: Config, clock: Clock, factory: Any = None) -> Button:
    from orbito_hw.hw.gpio import GpioButton

    pins = gpio_pins(config)
    return _open("button.pin", lambda: GpioButton(pins, clock, factory), config)


def open_drive(
    config: Config, clock: Clock, realtime: bool = True, factory: Any = None
) -> tuple[RingDrive, SquareSensors | None]:
    """The ring drive; with the Pico, its square sensors too when it reads them."""
    if config.backends.drive == "serial":
        pico = _open_serial(config, clock)
        return pico, (pico.sensors if config.backends.sensors == "serial" else None)
    from orbito_hw.hw.gpio import GpioDrive

    pins, d = gpio_pins(config), config.drive
    drive = _open(
        "drive",
        lambda: GpioDrive(
            pins,
            clock,
            d.steps_per_place,
            d.max_speed,
            d.acceleration,
            factory=factory,
            realtime=realtime,
        ),
        config,
    )
    return drive, None


def _open(key: str, make: Callable[[], P], config: Config) -> P:
    """A gpio part, opened by ``make``; HardwareError naming ``key`` if it cannot be."""
    from gpiozero import BadPinFactory, GPIOZeroError

    from orbito_hw.hw.gpio import PinOpenError

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
    except PinOpenError as exc:
        raise HardwareError(f"{config.source}: {pin_problem(config, exc)}") from None
    except HardwareError as exc:  # the ADC: its message names its address and bus
        raise HardwareError(f"{config.source}: {key}: {exc}") from None
    except (GPIOZeroError, OSError, RuntimeError) as exc:
        raise HardwareError(f"{config.source}: {key}: {type(exc).__name__}: {exc}") from None
    return part


def pin_problem(config: Config, exc: PinOpenError) -> str:
    """What is wrong with a pin, named by the config key that chose it."""
    keys = [key for key, pin in config.gpio_pins() if pin == exc.pin]
    named = f"{keys[0]} = {exc.pin}" if keys else f"GPIO {exc.pin}"
    if exc.busy:
        return (
            f"{named}: GPIO {exc.pin} is busy: another process holds it, or the kernel "
            "claimed it (an SPI chip select or I2C pin: see config.example.toml)"
        )
    return f"{named}: cannot open GPIO {exc.pin}: {exc.reason}"


def _open_serial(config: Config, clock: Clock) -> SerialRingDrive:
    """The ring controller on the Pico, set up with the config's drive settings."""
    from orbito_hw.hw.serial_backend import SerialRingDrive

    port = Path(config.serial.port)
    if not port.exists():  # udev makes it when the Pico is plugged in, maybe later
        raise HardwareError(f"no {port} yet (serial.port): plug the Pico in")

    d = config.drive
    scan = config.backends.sensors == "serial"
    settings = {
        "spp": d.steps_per_place,
        "speed": round(d.max_speed),
        "accel": round(d.acceleration),
        "scan": int(scan),
        "debounce_ms": config.sensors.debounce_ms,
    }
    colour = None
    if scan and config.sensors.colour:  # the Pico reports levels; the host classifies them
        settings |= {"analog": 1, "scan_ms": config.analog.scan_ms}
        colour = (config.analog.front_end(), board_calibration(config))
    try:
        drive = SerialRingDrive(clock, config.serial.port, settings, colour=colour)
    except OSError as exc:  # a LinkError (a HardwareError) or the port's own
        raise HardwareError(f"{config.source}: serial.port = {config.serial.port}: {exc}") from None
    return drive
