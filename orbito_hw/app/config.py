"""The board's config file: which backend drives each part, and how the parts are wired.

One TOML file (``/etc/orbito-hw/config.toml`` unless ``--config`` says otherwise; the
documented example is ``config.example.toml``). Loading checks everything at once and
raises one :class:`ConfigError` listing every problem, each named by its key path, so a
person fixes the whole file in one go instead of one typo per restart.

Pins are BCM GPIO numbers. A part's pins are required only when its backend is ``gpio``
(``neopixel`` for the lights): a simulated or Pico-driven part needs none.
"""

from __future__ import annotations

import difflib
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from importlib import resources
from pathlib import Path
from typing import Any, Final

import tomli_w

from orbito_hw.app import config_checks as checks
from orbito_hw.app import config_light
from orbito_hw.app.config_analog import I2C_PINS, AnalogConfig, read_analog
from orbito_hw.app.config_checks import pull_for
from orbito_hw.app.config_file import MAX_CONFIG_BYTES as MAX_CONFIG_BYTES
from orbito_hw.app.config_file import read_text, toml_reason
from orbito_hw.app.config_pins import HAT_EEPROM_PINS as HAT_EEPROM_PINS
from orbito_hw.app.config_pins import HEADER_PIN as HEADER_PIN
from orbito_hw.app.config_pins import NEOPIXEL_PINS, pin_clashes
from orbito_hw.app.config_pins import SPI_BUS_PINS as SPI_BUS_PINS
from orbito_hw.app.config_tmag import described, read_tmag, tmag_pins
from orbito_hw.control.lights import Palette
from orbito_hw.control.settings import Settings
from orbito_hw.errors import ConfigError, shown
from orbito_hw.hw.facts import DriveConfig  # the CAD's facts, held below the app
from orbito_hw.hw.interfaces import Backend, LightsBackend, parse_rgb, rgb_hex
from orbito_hw.hw.light_front import LightConfig
from orbito_hw.hw.planner import MIN_ACCELERATION
from orbito_hw.hw.strip import SERPENTINE, pixels_along
from orbito_hw.hw.tmag_chip import TmagConfig
from orbito_hw.lang import DEFAULT, LANGUAGES, _, use_configured
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARE_NAMES, parse_square
from orbito_hw.solver import opponents

DEFAULT_PATH: Final = Path("/etc/orbito-hw/config.toml")
EXAMPLE_NAME: Final = "config.example.toml"

# The backends each part may name (hw/interfaces.py names them all), in the messages' order.
SENSOR_BACKENDS: Final[tuple[Backend, ...]] = ("gpio", "tmag", "serial", "sim")
BUTTON_BACKENDS: Final[tuple[Backend, ...]] = ("gpio", "sim")
DRIVE_BACKENDS: Final[tuple[Backend, ...]] = ("gpio", "serial", "sim")
LIGHT_BACKENDS: Final[tuple[LightsBackend, ...]] = ("neopixel", "sim", "none")
# gpiozero's pin factory for the gpio parts: "auto" is gpiod where it imports and the machine
# has a GPIO chip (GPIOZERO_PIN_FACTORY, when set, chooses instead), else gpiozero's own order.
GPIO_LIBRARIES: Final = ("auto", "gpiod", "lgpio", "rpigpio", "mock")
LEVELS: Final = ("low", "high")
PULLS: Final = ("up", "down", "off")
PIXEL_ORDERS: Final = ("GRB", "RGB", "GRBW", "RGBW")
# The referee's own defaults are the config's: a board without a config file (run --mock)
# and one whose file leaves a key out are refereed alike.
REFEREE: Final = Settings()


@dataclass(frozen=True, slots=True)
class BoardConfig:
    first: Colour = REFEREE.first
    state_dir: Path = Path("/var/lib/orbito-hw")
    new_game_hold_s: float = REFEREE.hold_time  # holding the button this long starts a new game
    language: str = DEFAULT  # the words of the prompt, LEDs, errors, log (--lang wins)


@dataclass(frozen=True, slots=True)
class GameConfig:
    """Who plays: two people (``opponent`` "none"), or a person against the board playing
    ``board_colour`` at the level ``opponent`` names (solver/opponents.py's LEVELS)."""

    opponent: str = "none"
    board_colour: Colour = Colour.WHITE
    hints: bool = False  # a press before any touch shows the best turn; blunders held back once


@dataclass(frozen=True, slots=True)
class WebConfig:
    """The web page (web/): off unless ``enabled``; served on ``bind``:``port``.
    ``code`` is the access code the page's controls need; None: one is generated and kept
    in the state directory (``orbito-hw web code`` prints it)."""

    enabled: bool = False
    bind: str = "0.0.0.0"  # every address of the Pi: the phones on the local network
    port: int = 8080
    code: str | None = None


@dataclass(frozen=True, slots=True)
class RemoteConfig:
    """A game against a board in another home, over an MQTT broker (remote/): off
    unless ``enabled``. The broker's URL (``mqtts://`` for TLS), the ``game``'s name (the
    same on both boards), the colour this board's person ``plays`` and who ``starts``
    (agreed by the two configs); ``user`` and ``password``, or a client certificate
    (``cert_file`` and ``key_file``), as the broker asks; ``ca_file`` the authority that
    signed the broker's certificate (None: the system's). ``board_id`` names this board to
    the other (None: its own id, made once and kept in the state directory: remote/identity.py).
    ``publish_events``: spectators see this board's live events."""

    enabled: bool = False
    broker: str | None = None
    game: str | None = None
    plays: Colour = Colour.BLACK
    starts: Colour = Colour.BLACK
    board_id: str | None = None
    user: str | None = None
    password: str | None = None
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    publish_events: bool = False


@dataclass(frozen=True, slots=True)
class BackendsConfig:
    sensors: Backend = "gpio"
    button: Backend = "gpio"
    drive: Backend = "gpio"
    lights: LightsBackend = "neopixel"
    gpio: str = "auto"  # the pin library of the gpio parts (GPIO_LIBRARIES)


@dataclass(frozen=True, slots=True)
class SensorsConfig:
    colour: bool = False  # linear hall sensors that tell black from white ([analog])
    pins: tuple[int, ...] = ()  # indexed by square, a1 = 0; empty when no pins are given
    active: str = "low"
    pull: str = "up"
    debounce_ms: int = round(REFEREE.debounce * 1000)


@dataclass(frozen=True, slots=True)
class ButtonConfig:
    pin: int | None = None
    active: str = "low"
    pull: str = "up"
    debounce_ms: int = 20


@dataclass(frozen=True, slots=True)
class SerialConfig:
    port: str = "/dev/orbito-ring"
    baud: int = 115200


@dataclass(frozen=True, slots=True)
class LightsConfig:
    pin: int | None = None
    pixels: int = 17
    order: tuple[int, ...] = SERPENTINE  # the square under each pixel along the strip
    status_pixel: int | None = 16
    brightness: float = 0.3
    pixel_order: str = "GRB"
    colours: Palette = field(default_factory=Palette)  # [lights.colours]: Palette's fields

    def square_pixels(self) -> tuple[int, ...]:
        """The strip index of each square's pixel, indexed by square: ``order`` fills the
        strip from pixel 0, stepping over the status pixel."""
        return pixels_along(self.order, self.status_pixel)


@dataclass(frozen=True, slots=True)
class Config:
    source: str = "<built-in>"
    board: BoardConfig = field(default_factory=BoardConfig)
    game: GameConfig = field(default_factory=GameConfig)
    backends: BackendsConfig = field(default_factory=BackendsConfig)
    sensors: SensorsConfig = field(default_factory=SensorsConfig)
    analog: AnalogConfig = field(default_factory=AnalogConfig)
    tmag: TmagConfig = field(default_factory=TmagConfig)
    light: LightConfig = field(default_factory=LightConfig)
    button: ButtonConfig = field(default_factory=ButtonConfig)
    drive: DriveConfig = field(default_factory=DriveConfig)
    serial: SerialConfig = field(default_factory=SerialConfig)
    lights: LightsConfig = field(default_factory=LightsConfig)
    web: WebConfig = field(default_factory=WebConfig)
    remote: RemoteConfig = field(default_factory=RemoteConfig)
    notes: tuple[str, ...] = ()
    """Keys the file sets that are no longer used: said by ``config check`` and logged by
    ``run``, never a reason to refuse a board that worked before an upgrade."""
    given: frozenset[str] = field(default=frozenset(), compare=False)
    """The key paths the file sets (``board.language``): a value it names, told from the same
    value left to its default (an explicit ``language = "en"`` pins the pages to English).
    Not compared: a config written out in full (``config show``) is still the same config."""

    @property
    def by_light(self) -> bool:  # the board tells colour by light: [light]
        return self.backends.sensors == "tmag" and self.sensors.colour

    def gpio_pins(self) -> list[tuple[str, int]]:
        """(key path, BCM pin) of every Pi pin the chosen backends use, in file order."""
        used: list[tuple[str, int]] = []
        if self.backends.sensors == "gpio" and self.sensors.colour:
            a = self.analog
            used += [
                (f"analog.s{n}_pin", p) for n, p in enumerate(a.select_pins()) if p is not None
            ]
            used += [("analog.bus", p) for p in I2C_PINS.get(a.bus, ())]
        elif self.backends.sensors == "tmag":
            used += tmag_pins(self.tmag) + config_light.light_pins(self.light, self.by_light)
        elif self.backends.sensors == "gpio":
            used += [
                (f"sensors.pins.{SQUARE_NAMES[s]}", p) for s, p in enumerate(self.sensors.pins)
            ]
        candidates = [
            (self.backends.button == "gpio", "button.pin", self.button.pin),
            (self.backends.drive == "gpio", "drive.step_pin", self.drive.step_pin),
            (self.backends.drive == "gpio", "drive.dir_pin", self.drive.dir_pin),
            (self.backends.drive == "gpio", "drive.enable_pin", self.drive.enable_pin),
            (self.backends.drive == "gpio", "drive.index_pin", self.drive.index_pin),
            (self.backends.lights == "neopixel", "lights.pin", self.lights.pin),
        ]
        used += [(key, pin) for chosen, key, pin in candidates if chosen and pin is not None]
        return used

    def summary(self) -> str:
        """What ``config check`` prints for a good file: the backends, the pins, the extras."""
        from orbito_hw.control.led_words import colour_word  # the marble's colour in words

        b = self.backends
        lines = [
            _("{source}: ok").format(source=self.source),
            _("backends: {parts}").format(  # the table's name and its values: the file's words
                parts=f"sensors={b.sensors} button={b.button} drive={b.drive} lights={b.lights}"
            ),
            _("first player: {colour}; state directory: {path}").format(
                colour=colour_word(self.board.first), path=self.board.state_dir
            ),
            _("drive: {steps} steps/place, {speed} steps/s, {acceleration} steps/s^2").format(
                steps=self.drive.steps_per_place,
                speed=f"{self.drive.max_speed:g}",
                acceleration=f"{self.drive.acceleration:g}",
            ),
        ]
        lines += [_("note: {note}").format(note=note) for note in self.notes]
        if self.web.enabled:
            lines.append(
                _("web page: {url}").format(url=f"http://{self.web.bind}:{self.web.port}/")
            )
        if self.remote.enabled:
            r = self.remote
            lines.append(
                _("remote game: {game} on {broker}, this board plays {colour}").format(
                    game=r.game, broker=r.broker, colour=r.plays
                )
            )
        if b.drive == "serial" or b.sensors == "serial":
            lines.append(
                _("serial: {port} at {baud} baud").format(
                    port=self.serial.port, baud=self.serial.baud
                )
            )
        if self.sensors.colour:
            light = config_light.described(self.light)
            how = light if self.by_light else self.analog.described(b.sensors)
            lines.append(_("colour sensing: {how}").format(how=how))
        if b.sensors == "tmag":
            lines.append(_("square sensors: {how}").format(how=described(self.tmag)))
        pins = self.gpio_pins()
        if pins:
            lines.append(_("GPIO pins in use: {n}").format(n=len(pins)))
        return "\n".join(lines)


def sim_config(state_dir: Path | None = None) -> Config:
    """A config for the simulated board: every part ``sim``, no pins."""
    board = BoardConfig() if state_dir is None else BoardConfig(state_dir=state_dir)
    return Config(
        source="<simulated board>",
        board=board,
        backends=BackendsConfig(sensors="sim", button="sim", drive="sim", lights="sim"),
    )


def example_text() -> str:
    """The documented example config shipped with the package."""
    return resources.files("orbito_hw").joinpath(EXAMPLE_NAME).read_text(encoding="utf-8")


def load_config(path: str | Path | None) -> Config:
    """The config in ``path``; the simulated board's when ``path`` is None (``--mock``)."""
    if path is None:
        return sim_config()
    path = Path(path)
    text = read_text(path)
    config = parse_config(text, str(path), base_dir=path.parent)
    # from here on in its words, unless --lang; one it names (English too) the pages speak
    use_configured(config.board.language, named="board.language" in config.given)
    return config


def parse_config(text: str, source: str = "<config>", base_dir: Path | None = None) -> Config:
    """Check TOML ``text`` against the schema; relative paths are taken from ``base_dir``."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        text = _("{source}: not valid TOML: {reason}")
        raise ConfigError(text.format(source=source, reason=toml_reason(exc))) from None
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raise ConfigError(
            _("{source}: not a usable config: nested too deeply").format(source=source)
        ) from None
    reader = _Reader(data)
    config = reader.config(source, base_dir or Path.cwd())
    if reader.problems:
        problems = tuple(reader.problems)
        text = _("{source}: {problems}").format(source=source, problems=_("; ").join(problems))
        raise ConfigError(text, problems, source)
    assert config is not None
    return config


RETIRED_COLOUR: Final = "ready"  # was documented, never shown: a file that still sets it is told so
TABLES: Final = (
    "board", "game", "backends", "sensors", "analog", "tmag", "light", "button", "drive",
    "serial", "lights", "web", "remote",
)  # fmt: skip


class _Reader:
    """Walks the parsed TOML, collecting every problem instead of stopping at the first."""

    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data
        self.problems: list[str] = []
        self.notes: list[str] = []
        self.some_pins: list[tuple[str, int]] = []  # the usable sensor pins of a bad table
        self.given: list[str] = []  # the key paths the file sets (Config.given)

    def problem(self, key: str, text: str, **values: object) -> None:
        """A problem with ``key``: ``text`` (a sentence in the reader's language) filled in."""
        text = text.format(**values) if values else text
        self.problems.append(_("{key}: {problem}").format(key=key, problem=text))

    def table(self, parent: Mapping[str, Any], path: str, known: tuple[str, ...]) -> dict[str, Any]:
        """The sub-table ``path`` (empty if absent), with unknown keys reported."""
        name = path.rsplit(".", 1)[-1]
        value = parent.get(name, {}) if path != "" else parent
        if not isinstance(value, dict):
            self.problem(
                path, _("expected a table [{table}], got {value}"), table=path, value=shown(value)
            )
            return {}
        prefix = f"{path}." if path else ""
        for key in value:
            if key not in known:
                close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
                unknown = _("unknown table") if isinstance(value[key], dict) else _("unknown key")
                if close:
                    hint = _("did you mean {key}?").format(key=f"{prefix}{close[0]}")
                    unknown = f"{unknown} ({hint})"
                self.problem(f"{prefix}{key}", unknown)
        return value

    def get(
        self,
        table: Mapping[str, Any],
        path: str,
        check: checks.Check,
        default: Any = checks.MISSING,
    ) -> Any:
        """``table``'s value for the last part of ``path``, checked; ``default`` if absent
        (a problem when there is no default). None when the value is unusable."""
        key = path.rsplit(".", 1)[-1]
        if key not in table:
            if default is checks.MISSING:
                self.problem(path, _("missing"))
                return None
            return default
        self.given.append(path)
        value = table[key]
        trouble = check(value)
        if trouble:
            self.problem(path, trouble)
            return None
        return value

    def pin(self, table: Mapping[str, Any], path: str, needed: bool) -> int | None:
        """A pin: required when the part's backend drives it from the Pi's GPIOs."""
        if path.rsplit(".", 1)[-1] not in table and needed:
            backend = "neopixel" if path.startswith("lights.") else "gpio"
            self.problem(path, _("missing (the {backend} backend needs a pin)"), backend=backend)
            return None
        value: int | None = self.get(table, path, checks.pin, None)
        return value

    # --- sections --------------------------------------------------------------------
    def config(self, source: str, base_dir: Path) -> Config | None:
        top = self.table(self.data, "", TABLES)
        backends = self.backends(top)
        config = Config(
            source=source,
            board=self.board(top, base_dir),
            game=self.game(top),
            backends=backends,
            sensors=(sensors := self.sensors(top, backends.sensors == "gpio")),
            analog=read_analog(self, top, sensors.colour, backends.sensors == "gpio"),
            tmag=read_tmag(self, top, backends.sensors == "tmag", sensors.colour),
            light=config_light.read_light(self, top, backends.sensors == "tmag" and sensors.colour),
            button=self.button(top, backends.button == "gpio"),
            drive=self.drive(top, backends.drive == "gpio"),
            serial=self.serial(top),
            lights=self.lights(top, backends.lights == "neopixel"),
            web=self.web(top),
            remote=self.remote(top, base_dir),
            notes=tuple(self.notes),  # after the tables above: reading them adds the notes
            given=frozenset(self.given),
        )
        self.check_shared_pins(config)
        return None if self.problems else config

    def board(self, top: dict[str, Any], base_dir: Path) -> BoardConfig:
        t = self.table(top, "board", ("first", "state_dir", "new_game_hold_s", "language"))
        d = BoardConfig()
        first = self.get(t, "board.first", checks.choice(("black", "white")), str(d.first))
        state_dir = self.get(t, "board.state_dir", checks.path, str(d.state_dir))
        hold = self.get(t, "board.new_game_hold_s", checks.positive(60), d.new_game_hold_s)
        language = self.get(t, "board.language", checks.choice(LANGUAGES), d.language)
        return BoardConfig(
            first=Colour(first or "black"),
            state_dir=base_dir / (state_dir or "."),
            new_game_hold_s=float(hold or d.new_game_hold_s),
            language=language or d.language,
        )

    def game(self, top: dict[str, Any]) -> GameConfig:
        t = self.table(top, "game", ("opponent", "board_colour", "hints"))
        d = GameConfig()
        names = ("none", *(level.name for level in opponents.LEVELS))
        opponent = self.get(t, "game.opponent", checks.choice(names), d.opponent)
        colour = self.get(
            t, "game.board_colour", checks.choice(("black", "white")), str(d.board_colour)
        )
        hints = bool(self.get(t, "game.hints", checks.flag, d.hints))
        return GameConfig(opponent or d.opponent, Colour(colour or d.board_colour), hints)

    def backends(self, top: dict[str, Any]) -> BackendsConfig:
        t = self.table(top, "backends", ("sensors", "button", "drive", "lights", "gpio"))
        # An unusable backend stands in as sim, so it adds no "missing pin" problems on top.
        d = (
            BackendsConfig()
            if isinstance(top.get("backends", {}), dict)
            else BackendsConfig("sim", "sim", "sim", "sim", "auto")
        )
        return BackendsConfig(
            sensors=self.get(t, "backends.sensors", checks.choice(SENSOR_BACKENDS), d.sensors)
            or "sim",
            button=self.get(t, "backends.button", checks.choice(BUTTON_BACKENDS), d.button)
            or "sim",
            drive=self.get(t, "backends.drive", checks.choice(DRIVE_BACKENDS), d.drive) or "sim",
            lights=self.get(t, "backends.lights", checks.choice(LIGHT_BACKENDS), d.lights) or "sim",
            gpio=self.get(t, "backends.gpio", checks.choice(GPIO_LIBRARIES), d.gpio) or d.gpio,
        )

    def sensors(self, top: dict[str, Any], gpio: bool) -> SensorsConfig:
        t = self.table(top, "sensors", ("colour", "pins", "active", "pull", "debounce_ms"))
        d = SensorsConfig()
        active = self.get(t, "sensors.active", checks.choice(LEVELS), d.active) or d.active
        colour = bool(self.get(t, "sensors.colour", checks.flag, d.colour))
        return SensorsConfig(
            colour=colour,
            pins=self.square_pins(t, gpio and not colour),
            active=active,
            pull=self.get(t, "sensors.pull", checks.choice(PULLS), pull_for(active)) or d.pull,
            debounce_ms=self.get(t, "sensors.debounce_ms", checks.int_in(0, 1000), d.debounce_ms)
            or 0,
        )

    def square_pins(self, sensors: dict[str, Any], gpio: bool) -> tuple[int, ...]:
        if "pins" not in sensors:
            if gpio:
                self.problem("sensors.pins", _("missing (the gpio backend needs a pin per square)"))
            return ()
        t = sensors["pins"]
        if not isinstance(t, dict):
            self.problem(
                "sensors.pins", _("expected a table of square = pin, got {value}"), value=shown(t)
            )
            return ()
        for key in t:
            if key not in SQUARE_NAMES:
                self.problem(f"sensors.pins.{key}", _("unknown square (a1..d4)"))
        absent = [name for name in SQUARE_NAMES if name not in t]
        if absent:
            self.problem("sensors.pins", _("missing a pin for {squares}"), squares=" ".join(absent))
        pins = [self.get(t, f"sensors.pins.{name}", checks.pin, None) for name in SQUARE_NAMES]
        if None in pins and gpio:  # a pin that is wrong hides no clash of the others
            named = zip(SQUARE_NAMES, pins, strict=True)
            self.some_pins = [(f"sensors.pins.{n}", p) for n, p in named if p is not None]
        return tuple(pins) if None not in pins else ()

    def button(self, top: dict[str, Any], gpio: bool) -> ButtonConfig:
        t = self.table(top, "button", ("pin", "active", "pull", "debounce_ms"))
        d = ButtonConfig()
        active = self.get(t, "button.active", checks.choice(LEVELS), d.active) or d.active
        return ButtonConfig(
            pin=self.pin(t, "button.pin", gpio),
            active=active,
            pull=self.get(t, "button.pull", checks.choice(PULLS), pull_for(active)) or d.pull,
            debounce_ms=self.get(t, "button.debounce_ms", checks.int_in(0, 1000), d.debounce_ms)
            or 0,
        )

    def drive(self, top: dict[str, Any], gpio: bool) -> DriveConfig:
        names = tuple(f.name for f in fields(DriveConfig))
        t = self.table(top, "drive", names)
        d = DriveConfig()
        index_active = self.get(t, "drive.index_active", checks.choice(LEVELS), d.index_active)
        index_active = index_active or d.index_active
        return DriveConfig(
            step_pin=self.pin(t, "drive.step_pin", gpio),
            dir_pin=self.pin(t, "drive.dir_pin", gpio),
            enable_pin=self.pin(t, "drive.enable_pin", gpio),
            enable_active=self.get(t, "drive.enable_active", checks.choice(LEVELS), d.enable_active)
            or d.enable_active,
            invert_direction=bool(self.get(t, "drive.invert_direction", checks.flag, False)),
            steps_per_place=self.get(
                t, "drive.steps_per_place", checks.int_in(1, 1_000_000), d.steps_per_place
            )
            or d.steps_per_place,
            max_speed=float(
                self.get(t, "drive.max_speed", checks.positive(100_000), d.max_speed) or d.max_speed
            ),
            acceleration=float(
                # The step planner (the Pi's and the Pico's) needs a first step under 65 ms.
                self.get(
                    t, "drive.acceleration", checks.number_in(MIN_ACCELERATION, 1e6), d.acceleration
                )
                or d.acceleration
            ),
            index_pin=self.pin(t, "drive.index_pin", gpio),
            index_active=index_active,
            index_pull=self.get(t, "drive.index_pull", checks.choice(PULLS), pull_for(index_active))
            or d.index_pull,
        )

    def serial(self, top: dict[str, Any]) -> SerialConfig:
        t = self.table(top, "serial", ("port", "baud"))
        d = SerialConfig()
        return SerialConfig(
            port=self.get(t, "serial.port", checks.path, d.port) or d.port,
            baud=self.get(t, "serial.baud", checks.int_in(300, 4_000_000), d.baud) or d.baud,
        )

    def lights(self, top: dict[str, Any], neopixel: bool) -> LightsConfig:
        known = ("pin", "pixels", "order", "status_pixel", "brightness", "pixel_order", "colours")
        t = self.table(top, "lights", known)
        d = LightsConfig()
        pin = self.pin(t, "lights.pin", neopixel)
        if neopixel and pin is not None and pin not in NEOPIXEL_PINS:
            pins = ", ".join(map(str, NEOPIXEL_PINS))
            self.problem(
                "lights.pin",
                _("the neopixel backend needs GPIO {pins}, not {pin}"),
                pins=pins,
                pin=pin,
            )
        pixels = self.get(t, "lights.pixels", checks.int_in(16, 1024), d.pixels)
        status = self.get(t, "lights.status_pixel", checks.status_pixel, d.status_pixel)
        status = None if status == "none" else status
        if pixels is not None and status is not None and not status < pixels:
            self.problem(
                "lights.status_pixel",
                _("{status} is past the strip's end ({pixels} pixels)"),
                status=status,
                pixels=pixels,
            )
        elif pixels is not None and pixels < 16 + (status is not None):
            self.problem(
                "lights.pixels",
                _("{pixels} pixels cannot light 16 squares and a status"),
                pixels=pixels,
            )
        return LightsConfig(
            pin=pin,
            pixels=pixels or d.pixels,
            order=self.order(t),
            status_pixel=status,
            brightness=float(
                self.get(t, "lights.brightness", checks.positive(1), d.brightness) or 1
            ),
            pixel_order=self.get(
                t, "lights.pixel_order", checks.choice(PIXEL_ORDERS), d.pixel_order
            )
            or d.pixel_order,
            colours=self.colours(t),
        )

    def web(self, top: dict[str, Any]) -> WebConfig:
        t = self.table(top, "web", ("enabled", "bind", "port", "code"))
        d = WebConfig()
        return WebConfig(
            enabled=bool(self.get(t, "web.enabled", checks.flag, d.enabled)),
            bind=self.get(t, "web.bind", checks.address, d.bind) or d.bind,
            port=self.get(t, "web.port", checks.int_in(1, 65535), d.port) or d.port,
            code=self.get(t, "web.code", checks.access_code, d.code),
        )

    def remote(self, top: dict[str, Any], base_dir: Path) -> RemoteConfig:
        names = tuple(f.name for f in fields(RemoteConfig))
        t = self.table(top, "remote", names)
        d = RemoteConfig()
        enabled = bool(self.get(t, "remote.enabled", checks.flag, d.enabled))
        need = checks.MISSING if enabled else None  # the broker and the game, when the game is on
        broker = self.get(t, "remote.broker", checks.broker, need)
        game = self.get(t, "remote.game", checks.name("game"), need)
        colours = checks.choice(("black", "white"))
        files = {
            key: self.get(t, f"remote.{key}", checks.path, None)
            for key in ("ca_file", "cert_file", "key_file")
        }
        if (files["cert_file"] is None) != (files["key_file"] is None):
            both = _("a client certificate needs both cert_file and key_file")
            self.problem("remote.cert_file", both)
        return RemoteConfig(
            enabled=enabled,
            broker=broker,
            game=game,
            plays=Colour(self.get(t, "remote.plays", colours, str(d.plays)) or d.plays),
            starts=Colour(self.get(t, "remote.starts", colours, str(d.starts)) or d.starts),
            board_id=self.get(t, "remote.board_id", checks.name("board_id"), d.board_id),
            user=self.get(t, "remote.user", checks.text, d.user),
            password=self.get(t, "remote.password", checks.text, d.password),
            ca_file=base_dir / files["ca_file"] if files["ca_file"] else None,
            cert_file=base_dir / files["cert_file"] if files["cert_file"] else None,
            key_file=base_dir / files["key_file"] if files["key_file"] else None,
            publish_events=bool(
                self.get(t, "remote.publish_events", checks.flag, d.publish_events)
            ),
        )

    def order(self, lights: dict[str, Any]) -> tuple[int, ...]:
        order = self.get(lights, "lights.order", checks.square_order, None)
        return SERPENTINE if order is None else tuple(parse_square(n) for n in order)

    def colours(self, lights: dict[str, Any]) -> Palette:
        names = tuple(f.name for f in fields(Palette))
        t = self.table(lights, "lights.colours", (*names, RETIRED_COLOUR))
        if RETIRED_COLOUR in t:
            self.notes.append(
                f"lights.colours.{RETIRED_COLOUR}: "
                + _("no longer used (the status pixel shows the colour to move); you may delete it")
            )
        d = Palette()
        out = {}
        for name in names:
            text = self.get(t, f"lights.colours.{name}", checks.colour, None)
            out[name] = parse_rgb(text) if text else getattr(d, name)
        return Palette(**out)

    def check_shared_pins(self, config: Config) -> None:
        """No pin used twice, none of the HAT EEPROM's, none of the SPI bus the LEDs use."""
        lights = config.lights.pin if config.backends.lights == "neopixel" else None
        used = self.some_pins + config.gpio_pins()
        for key, text in pin_clashes(used, lights, config.analog.bus):
            self.problem(key, text)
        if config.by_light and config.light.bus != config.tmag.bus:  # one bus, its ADC on it
            self.problem("light.bus", config_light.off_bus(config.light.bus, config.tmag.bus))


# --- writing ----------------------------------------------------------------------------
def to_toml(config: Config) -> str:
    """``config`` as a TOML file that loads back to an equal config (defaults written out).

    tomli-w does the quoting, so any string (a path with a newline or a quote) comes back
    as it was; a section's own keys come first, then its sub-tables."""
    return tomli_w.dumps({section: _toml_table(getattr(config, section)) for section in TABLES})


def _toml_table(part: Any) -> dict[str, Any]:
    """One section of the config as TOML values, in the words the file uses."""
    table: dict[str, Any] = {}
    for f in fields(part):
        item = getattr(part, f.name)
        if f.name == "pins":
            if item:  # no pins (off the Pi) is no table at all
                table["pins"] = dict(zip(SQUARE_NAMES, item, strict=True))
        elif f.name == "order":
            table["order"] = [SQUARE_NAMES[s] for s in item]
        elif f.name == "status_pixel" and item is None:
            table["status_pixel"] = "none"
        elif isinstance(item, Palette):
            table[f.name] = {c.name: rgb_hex(getattr(item, c.name)) for c in fields(item)}
        elif isinstance(item, Colour):
            table[f.name] = item.value
        elif isinstance(item, Path):
            table[f.name] = str(item)
        elif item is not None:  # an unset pin is left out
            table[f.name] = item
    return table
