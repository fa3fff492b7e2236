"""The config file: the example loads, and every kind of bad config is one clear message
naming the key, with exit 2 and nothing on stdout from the command line."""

import dataclasses
from pathlib import Path

import pytest

from orbito_hw.app.config import (
    SERPENTINE,
    Config,
    example_text,
    load_config,
    parse_config,
    sim_config,
    to_toml,
)
from orbito_hw.cli import main
from orbito_hw.errors import ConfigError
from orbito_hw.hw.light_front import LightConfig
from orbito_hw.hw.tmag_chip import TmagConfig
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import parse_square

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "config.example.toml"
SWITCHES = ('sensors = "tmag"', 'sensors = "gpio"')
COLOUR_OFF = ("\ncolour = true\n", "\ncolour = false\n")
"""The example's switch variant (both edits): a hall switch per square on the pins of
[sensors.pins], presence only (the example tells colour by light)."""


def edited(*edits: tuple[str, str]) -> str:
    """The example config with each (old, new) text replaced exactly once."""
    text = EXAMPLE.read_text()
    for old, new in edits:
        assert text.count(old) == 1, f"the example has {text.count(old)} of {old!r}"
        text = text.replace(old, new)
    return text


def problem_of(text: str) -> str:
    with pytest.raises(ConfigError) as info:
        parse_config(text, "board.toml")
    return str(info.value)


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    try:
        status = main(list(argv))
    except SystemExit as exc:
        status = int(exc.code or 0)
    out, err = capsys.readouterr()
    return status, out, err


BAD = [
    ("missing key", [("step_pin = 23\n", "")], "drive.step_pin: missing"),
    (
        "missing square",
        [("c2 = 18\n", "")],
        "sensors.pins: missing a pin for c2",
    ),
    (
        "pin used twice",
        [("step_pin = 23", "step_pin = 17")],
        "drive.step_pin: pin 17 is also used by button.pin",
    ),
    (
        "sensor pin used twice",
        [SWITCHES, COLOUR_OFF, ("d4 = 27", "d4 = 10")],
        "lights.pin: pin 10 is also used by sensors.pins.d4",
    ),
    (
        "the HAT EEPROM's pin",
        [SWITCHES, COLOUR_OFF, ("d4 = 27", "d4 = 0")],
        "sensors.pins.d4: pin 0 is the HAT ID EEPROM's bus: never a board's pin",
    ),
    (
        "the SPI bus the LEDs use",
        [("step_pin = 23", "step_pin = 11")],
        "drive.step_pin: pin 11 is on the SPI bus that drives the LEDs (GPIO 10)",
    ),
    ("unknown square", [("a1 = 5\n", "a1 = 5\ne5 = 3\n")], "sensors.pins.e5: unknown square"),
    (
        "typo in a key",
        [("debounce_ms = 50", "debounce_msec = 50")],
        "sensors.debounce_msec: unknown key (did you mean sensors.debounce_ms?)",
    ),
    (
        "typo in a table",
        [("[button]", "[buton]")],
        "buton: unknown table (did you mean button?)",
    ),
    (
        "text for a number",
        [("steps_per_place = 800", 'steps_per_place = "800"')],
        "drive.steps_per_place: expected a whole number",
    ),
    ("true for a number", [("baud = 115200", "baud = true")], "serial.baud: expected a whole"),
    ("pin out of range", [("pin = 17", "pin = 28")], "button.pin: pin 28 is not a GPIO"),
    ("negative pin", [("index_pin = 25", "index_pin = -1")], "drive.index_pin: pin -1"),
    ("brightness above 1", [("brightness = 0.3", "brightness = 1.5")], "lights.brightness: 1.5"),
    ("zero speed", [("max_speed = 1600.0", "max_speed = 0")], "drive.max_speed: 0 is out"),
    (
        "negative acceleration",
        [("acceleration = 4000.0", "acceleration = -1.0")],
        "drive.acceleration: -1.0 is out",
    ),
    ("zero steps", [("steps_per_place = 800", "steps_per_place = 0")], "drive.steps_per_place"),
    ("bad level", [('index_active = "low"', 'index_active = "lo"')], "drive.index_active: 'lo'"),
    ("bad backend", [('sensors = "tmag"', 'sensors = "i2c"')], "backends.sensors: 'i2c' is not"),
    ("bad first player", [('first = "black"', 'first = "red"')], "board.first: 'red'"),
    ("bad colour", [('error = "#ff0000"', 'error = "#ff000"')], "lights.colours.error: '#ff000'"),
    (
        "unknown colour",
        [('draw = "#ff9600"', 'drew = "#ff9600"')],
        "lights.colours.drew: unknown key (did you mean lights.colours.draw?)",
    ),
    (
        "LED order not the 16 squares",
        [('"b4", "a4"]', '"b4", "a1"]')],
        "lights.order: must list each square once (listed twice: a1, missing: a4)",
    ),
    ("LED order with a non-square", [('"b4", "a4"]', '"b4", "x9"]')], "'x9'"),
    ("status pixel past the end", [("status_pixel = 16", "status_pixel = 17")], "status_pixel"),
    (
        "strip too short",
        [("pixels = 17", "pixels = 16"), ("status_pixel = 16", "status_pixel = 3")],
        "lights.pixels: 16 pixels cannot light 16 squares and a status",
    ),
    ("strip past its end", [("pixels = 17", "pixels = 16")], "lights.status_pixel: 16 is past"),
    ("neopixel on a plain pin", [("pin = 10", "pin = 14")], "lights.pin: the neopixel backend"),
]


@pytest.mark.parametrize(("edits", "expected"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_each_bad_config_is_one_message_naming_the_key(
    edits: list[tuple[str, str]], expected: str
) -> None:
    message = problem_of(edited(*edits))
    assert message.startswith("board.toml: ")
    assert expected in message
    assert "\n" not in message


@pytest.mark.parametrize(("edits", "expected"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_the_cli_exits_2_with_nothing_on_stdout(
    edits: list[tuple[str, str]],
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "config.toml"
    path.write_text(edited(*edits))
    status, out, err = cli(capsys, "config", "check", "--config", str(path))
    assert (status, out) == (2, "")
    assert err.startswith(f"orbito-hw: {path}: ") and expected in err
    assert "Traceback" not in err
    # Issue 27: one problem is one line; several are a count, then each on a line of its own.
    with pytest.raises(ConfigError) as info:
        parse_config(path.read_text(), str(path))
    problems = info.value.problems
    if len(problems) < 2:
        assert err.count("\n") == 1
    else:
        head, *lines = err.splitlines()
        assert head == f"orbito-hw: {path}: {len(problems)} problems:"
        assert lines == [f"  {problem}" for problem in problems]


def test_a_value_where_a_table_belongs_is_named() -> None:
    assert problem_of('backends = "sim"\n') == (
        "board.toml: backends: expected a table [backends], got 'sim'"
    )


def test_every_problem_is_reported_at_once() -> None:
    message = problem_of(
        edited(
            ("step_pin = 23", "step_pin = 17"),
            ("brightness = 0.3", "brightness = 2"),
            ("a1 = 5\n", "e5 = 5\n"),
        )
    )
    for key in ("drive.step_pin", "lights.brightness", "sensors.pins.e5", "missing a pin for a1"):
        assert key in message
    assert message.count("; ") == 3


def test_config_check_puts_each_problem_on_a_line_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 27: a wrong type (first = 5, pixels = "x") hides none of the other problems."""
    path = tmp_path / "config.toml"
    path.write_text(
        edited(
            ('first = "black"', "first = 5"),
            ("pixels = 17", 'pixels = "x"'),
            ("step_pin = 23", "step_pin = 17"),
            ("brightness = 0.3", "brightness = 2"),
        )
    )
    status, out, err = cli(capsys, "config", "check", "--config", str(path))
    assert (status, out) == (2, "")
    assert err.splitlines() == [
        f"orbito-hw: {path}: 4 problems:",
        "  board.first: 5 is not one of black, white",
        "  lights.pixels: expected a whole number, got 'x'",
        "  lights.brightness: 2 is out of range (above 0, at most 1)",
        "  drive.step_pin: pin 17 is also used by button.pin",
    ]


def test_a_toml_syntax_error_names_the_line() -> None:
    text = edited(("[drive]\n", "[drive\n"))
    line = text.splitlines().index("[drive") + 1
    message = problem_of(text)
    assert "not valid TOML" in message and f"line {line}" in message


def test_a_missing_file_is_one_message(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "nowhere.toml"
    status, out, err = cli(capsys, "config", "check", "--config", str(path))
    assert (status, out) == (2, "")
    assert err == f"orbito-hw: {path}: cannot read the config file: No such file or directory\n"


def test_an_unreadable_file_is_one_message(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match=rf"^{tmp_path}: cannot read the config file"):
        load_config(tmp_path)  # a directory


def test_a_file_that_is_not_text_is_one_message(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ConfigError, match="cannot read the config file"):
        load_config(path)


def test_the_example_loads_with_the_documented_wiring() -> None:
    config = load_config(EXAMPLE)
    assert config.backends.sensors == "tmag" and config.backends.lights == "neopixel"
    assert config.tmag == TmagConfig()  # the reference board: the one source's defaults
    assert config.light == LightConfig() and config.by_light  # colour told by light
    pins = [pin for _, pin in config.gpio_pins()]
    # I2C, INT, the light's multiplexer, button, drive, LEDs
    assert len(pins) == 2 + 1 + 4 + 1 + 4 + 1 == len(set(pins))


def test_the_switch_variant_loads_with_the_documented_wiring() -> None:
    config = parse_config(
        EXAMPLE.read_text().replace(*SWITCHES).replace(*COLOUR_OFF), "switches.toml"
    )
    assert config.backends.sensors == "gpio"
    assert config.sensors.pins[parse_square("a1")] == 5
    assert config.drive.steps_per_place == 200 * 16 * 3 // 12
    pins = [pin for _, pin in config.gpio_pins()]
    assert len(pins) == 16 + 1 + 4 + 1 == len(set(pins))
    assert config.lights.order == SERPENTINE
    assert config.board.first is Colour.BLACK


def test_the_example_is_commented_on_every_key() -> None:
    # Each key sits in a run of lines (no blank line between) that a comment opens.
    commented = False
    for line in EXAMPLE.read_text().splitlines():
        if not line.strip() or line.startswith("["):
            commented = False
        elif line.startswith("#"):
            commented = True
        elif "=" in line:
            assert commented, f"no comment for {line!r}"


def test_the_packaged_example_is_the_repository_one(capsys: pytest.CaptureFixture[str]) -> None:
    assert example_text() == EXAMPLE.read_text()
    status, out, err = cli(capsys, "config", "example")
    assert (status, err) == (0, "") and out == EXAMPLE.read_text()


def test_check_prints_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = cli(capsys, "config", "check", "--config", str(EXAMPLE))
    assert (status, err) == (0, "")
    assert out.splitlines()[0] == f"{EXAMPLE}: ok" and "GPIO pins in use: 13" in out
    assert "16 TMAG5273 at 0x35 behind the TCA9548A at 0x70, 0x71 on I2C bus 1" in out


def test_no_file_means_the_simulated_board() -> None:
    config = load_config(None)
    backends = dataclasses.astuple(config.backends)
    assert backends == ("sim", "sim", "sim", "sim", "auto")
    assert config.gpio_pins() == []


def test_sim_and_serial_parts_need_no_pins() -> None:
    text = '[backends]\nsensors = "serial"\nbutton = "sim"\ndrive = "serial"\nlights = "none"\n'
    config = parse_config(text)
    assert config.sensors.pins == () and config.drive.step_pin is None
    assert config.serial.port == "/dev/orbito-ring"


def test_pins_of_parts_off_the_pi_are_not_counted_twice() -> None:
    # The drive runs on the Pico: its (unused) pins may repeat the button's.
    config = parse_config(
        edited(('drive = "gpio"', 'drive = "serial"'), ("dir_pin = 24", "dir_pin = 17"))
    )
    assert ("button.pin", 17) in config.gpio_pins()
    assert not any(key.startswith("drive.") for key, _ in config.gpio_pins())


def test_defaults_fill_what_is_left_out() -> None:
    config = parse_config(
        '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
    )
    assert dataclasses.replace(config, source="x") == dataclasses.replace(sim_config(), source="x")


@pytest.mark.parametrize("make", [sim_config, lambda: load_config(EXAMPLE)], ids=["sim", "example"])
def test_a_config_written_out_loads_back_equal(make: object) -> None:
    assert callable(make)
    config: Config = make()
    again = parse_config(to_toml(config), "again.toml")
    assert again == dataclasses.replace(config, source="again.toml")


def test_show_writes_the_defaults_out(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "none"\n')
    status, out, err = cli(capsys, "config", "show", "--config", str(path))
    assert (status, err) == (0, "")
    assert "steps_per_place = 800" in out and 'lights = "none"' in out
    assert parse_config(out) == dataclasses.replace(load_config(path), source="<config>")


def test_a_relative_state_dir_is_taken_from_the_file(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[board]\nstate_dir = "state"\n[backends]\nsensors = "sim"\nbutton = "sim"\n'
        'drive = "sim"\nlights = "sim"\n'
    )
    assert load_config(path).board.state_dir == tmp_path / "state"


def test_square_pixels_step_over_the_status_pixel() -> None:
    example = load_config(EXAMPLE).lights
    assert example.square_pixels()[parse_square("a2")] == 7
    first = parse_config(edited(("status_pixel = 16", "status_pixel = 0"))).lights
    pixels = first.square_pixels()
    assert pixels[parse_square("a1")] == 1 and pixels[parse_square("a4")] == 16
    assert sorted(pixels) == list(range(1, 17))


def test_a_wrong_pin_hides_no_clash_of_the_other_pins() -> None:
    """Issue 27: a sensor pin of the wrong type used to drop every sensor pin from the
    shared-pin check; the others still clash with the button's pin."""
    message = problem_of(
        edited(SWITCHES, COLOUR_OFF, ("a1 = 5\n", 'a1 = "x"\n'), ("b1 = 6\n", "b1 = 17\n"))
    )
    assert "sensors.pins.a1: expected a BCM GPIO number, got 'x'" in message
    assert "button.pin: pin 17 is also used by sensors.pins.b1" in message
