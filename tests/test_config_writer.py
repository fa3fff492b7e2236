"""``orbito-hw config show`` writes the config back as TOML (with tomli-w): whatever a valid
file holds, newlines, quotes and backslashes in its strings included, the output loads back
to an equal config, one ``[section]`` per part in the schema's order."""

from __future__ import annotations

import contextlib
import dataclasses
import io
import tempfile
from pathlib import Path
from typing import Any

import tomli_w
from hypothesis import example, given, settings
from hypothesis import strategies as st

from orbito_hw.app.config import (
    BUTTON_BACKENDS,
    DRIVE_BACKENDS,
    HAT_EEPROM_PINS,
    LEVELS,
    LIGHT_BACKENDS,
    NEOPIXEL_PINS,
    PIXEL_ORDERS,
    PULLS,
    SENSOR_BACKENDS,
    SPI_BUS_PINS,
    TABLES,
    LightsConfig,
    load_config,
    parse_config,
)
from orbito_hw.app.config_analog import I2C_PINS
from orbito_hw.app.config_checks import GPIO_PINS
from orbito_hw.cli import main
from orbito_hw.rules.squares import SQUARE_NAMES

# A path the schema takes: not blank, no NUL, short names; newlines, quotes, "\\" and any
# other character welcome.
# A file holds no lone surrogate (it is UTF-8, decoded strictly): such text is no path in it.
PATH = st.text(
    st.characters(exclude_characters="\0", exclude_categories=("Cs",)), min_size=1, max_size=50
).filter(str.strip)
COLOUR_NAMES = [f.name for f in dataclasses.fields(LightsConfig().colours)]


def show(path: Path) -> str:
    """What ``orbito-hw config show --config PATH`` prints."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["config", "show", "--config", str(path)]) == 0
    return out.getvalue()


def read_back(text: str) -> Any:
    """The config a written file loads to, read from a folder of its own: so a state_dir
    that did not come back absolute would show up as a different path."""
    with tempfile.TemporaryDirectory() as elsewhere:
        return parse_config(text, "again.toml", base_dir=Path(elsewhere))


@st.composite
def config_files(draw: st.DrawFn) -> dict[str, Any]:
    """A valid config file's contents: every key given or left to its default."""
    strip_pin = draw(st.sampled_from(NEOPIXEL_PINS))
    sensors = draw(st.sampled_from(SENSOR_BACKENDS))
    taken = {strip_pin, *HAT_EEPROM_PINS, *(SPI_BUS_PINS if strip_pin in SPI_BUS_PINS else ())}
    if sensors == "tmag":
        taken |= set(I2C_PINS[1])  # the sensors' bus: SDA and SCL
    pins = iter(draw(st.permutations([p for p in GPIO_PINS if p not in taken])))
    levels, pulls = st.sampled_from(LEVELS), st.sampled_from(PULLS)

    def some(**keys: st.SearchStrategy[Any]) -> dict[str, Any]:
        return draw(st.fixed_dictionaries({}, optional=keys))

    int_pin = next(pins)
    # The tmag board leaves [sensors.pins] unused: they need not come from the pins left.
    spare = iter(draw(st.permutations([p for p in GPIO_PINS if p not in HAT_EEPROM_PINS])))
    square_pins = {name: next(spare if sensors == "tmag" else pins) for name in SQUARE_NAMES}
    button_pin, step, direction, enable, index = (next(pins) for _ in range(5))
    pixels = draw(st.integers(17, 1024))
    document = {
        "board": some(
            first=st.sampled_from(["black", "white"]),
            state_dir=PATH,
            new_game_hold_s=st.floats(0.05, 60),
        ),
        "backends": {
            "sensors": sensors,
            "button": draw(st.sampled_from(BUTTON_BACKENDS)),
            "drive": draw(st.sampled_from(DRIVE_BACKENDS)),
            "lights": draw(st.sampled_from(LIGHT_BACKENDS)),
        },
        "sensors": {
            "pins": square_pins,
            **some(active=levels, pull=pulls, debounce_ms=st.integers(0, 1000)),
        },
        "button": {"pin": button_pin, **some(active=levels, pull=pulls)},
        "drive": {
            "step_pin": step,
            "dir_pin": direction,
            "enable_pin": enable,
            "index_pin": index,
            **some(
                enable_active=levels,
                invert_direction=st.booleans(),
                steps_per_place=st.integers(1, 100_000),
                max_speed=st.floats(1, 100_000) | st.integers(1, 100_000),
                acceleration=st.floats(4000, 1e6),
                index_active=levels,
                index_pull=pulls,
            ),
        },
        "serial": some(port=PATH, baud=st.integers(300, 4_000_000)),
        "tmag": {
            "int_pin": int_pin,
            **some(
                muxes=st.sampled_from([[0x70, 0x71], [0x72, 0x77]]),
                channels=st.permutations(range(16)),
                sleep_ms=st.sampled_from([1, 5, 10, 20, 50]),
                check_s=st.floats(0.5, 60),
            ),
        },
        "lights": {
            "pin": strip_pin,
            "pixels": pixels,
            **some(
                order=st.permutations(SQUARE_NAMES),
                status_pixel=st.integers(0, pixels - 1) | st.just("none"),
                brightness=st.floats(0.01, 1),
                pixel_order=st.sampled_from(PIXEL_ORDERS),
                colours=st.fixed_dictionaries(
                    {},
                    optional={
                        name: st.from_regex(r"#[0-9a-fA-F]{6}", fullmatch=True)
                        for name in COLOUR_NAMES
                    },
                ),
            ),
        },
    }
    return document


@settings(max_examples=60, deadline=None)
@given(config_files())
@example(
    {
        "board": {"state_dir": "/srv/orbito\nhw"},
        "backends": dict.fromkeys(["sensors", "button", "drive", "lights"], "sim"),
        "serial": {"port": 'C:\\ "COM3"\t'},
    }
)
def test_config_show_loads_back_to_an_equal_config(document: dict[str, Any]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.toml"
        path.write_text(tomli_w.dumps(document), encoding="utf-8")
        config = load_config(path)
        shown = show(path)
    assert read_back(shown) == dataclasses.replace(config, source="again.toml")
    headers = [line for line in shown.splitlines() if line in {f"[{t}]" for t in TABLES}]
    assert headers == [f"[{t}]" for t in TABLES]


def test_a_state_dir_with_a_newline_is_one_escaped_line(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[board]\nstate_dir = "/srv/orbito\\nhw"\n'
        '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
    )
    assert load_config(path).board.state_dir == Path("/srv/orbito\nhw")
    shown = show(path)
    assert 'state_dir = "/srv/orbito\\nhw"' in shown.splitlines()
    assert read_back(shown).board.state_dir == Path("/srv/orbito\nhw")


def test_without_sensor_pins_there_is_no_pins_table(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n')
    shown = show(path)
    assert "[sensors.pins]" not in shown and "step_pin" not in shown
    assert "status_pixel = 16" in shown.splitlines()
