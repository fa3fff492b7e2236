"""One board everywhere (issue 43): the BOM's sensor lines, pinmap.md, wiring.svg and
config.example.toml name the same parts, addresses, channels and pins, each read from its own
file and held against the others."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from orbito_hw.app.config import HEADER_PIN, load_config
from orbito_hw.hw.light_front import LightConfig
from orbito_hw.hw.tmag_chip import TmagConfig, read_tmag, square_channel
from orbito_hw.rules.squares import SQUARE_NAMES

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = ROOT / "hardware"
EXAMPLE = load_config(ROOT / "config.example.toml")


def bom_rows() -> list[list[str]]:
    """The bought parts' rows of BOM.md: qty, part, size, example, price."""
    lines = (HARDWARE / "BOM.md").read_text().splitlines()
    start = lines.index("| qty | part | size | example | each (EUR) |") + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split("|")])
    return rows


def svg_texts() -> list[str]:
    root = ET.parse(HARDWARE / "wiring.svg").getroot()
    return [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}text")]


def test_the_example_is_the_reference_board_and_its_facts_are_one_source() -> None:
    t = EXAMPLE.tmag
    assert EXAMPLE.backends.sensors == "tmag"
    # make_wiring.py reads [tmag] without the app (hw/tmag_chip.read_tmag): the same board
    assert read_tmag(ROOT / "config.example.toml") == t == TmagConfig()


def test_the_bom_buys_what_the_config_wires() -> None:
    t = EXAMPLE.tmag
    rows = bom_rows()
    sensors = [r for r in rows if "TMAG5273" in " ".join(r)]
    muxes = [r for r in rows if "9548A" in " ".join(r)]
    assert len(sensors) == 1 and int(sensors[0][0]) == len(t.channels) == 16
    assert f"I2C 0x{t.address:02x}" in " ".join(sensors[0])
    assert "A1" in sensors[0][2]  # one variant for every square: no B1, C1, D1 to buy
    assert not re.search(r"\b[BCD]1\b", " ".join(sensors[0]))
    assert len(muxes) == 1 and int(muxes[0][0]) == len(t.muxes)
    for address in t.muxes:
        assert f"0x{address:02x}" in " ".join(muxes[0])
    cables = [r for r in rows if "STEMMA QT" in r[1]]
    assert sum(int(r[0]) for r in cables) >= len(t.channels) + 1  # a sensor each, and the Pi
    assert not [r for r in rows if "hall switch" in r[1] and int(r[0]) > 1]  # the index only


def test_the_pin_map_names_the_configs_bus_int_pin_and_channels() -> None:
    t = EXAMPLE.tmag
    text = (HARDWARE / "pinmap.md").read_text()
    assert f"| every sensor's INT, wired together | `tmag.int_pin` | {t.int_pin} | " \
        f"{HEADER_PIN[t.int_pin]} |" in text  # fmt: skip
    for n, address in enumerate(t.muxes):
        squares = [SQUARE_NAMES[s] for s, c in enumerate(t.channels) if square_channel(c)[0] == n]
        squares.sort(key=lambda name: square_channel(t.channels[SQUARE_NAMES.index(name)])[1])
        row = f"| 0x{address:02x} (`tmag.muxes[{n}]`) | {' '.join(squares)} |"
        assert row in text, row


def test_the_wiring_diagram_draws_the_configs_channels_and_int_pin() -> None:
    t = EXAMPLE.tmag
    texts = svg_texts()
    cells = [x for x in texts if re.fullmatch(r"0x7[0-7]/[0-7]", x)]
    expected = []
    for number in t.channels:
        mux, channel = square_channel(number)
        expected.append(f"0x{t.muxes[mux]:02x}/{channel}")
    assert sorted(cells) == sorted(expected)
    assert f"every INT (open drain) wired together to GPIO{t.int_pin}, 4.7k to 3.3 V" in texts
    assert f"16 TMAG5273 breakouts at 0x{t.address:02x}, one a channel, STEMMA QT cables" in texts
    assert f"GPIO{t.int_pin}" in texts


# --- colour by light (issue 44): the same board's phototransistors, multiplexer and ADC -------
def test_the_example_tells_colour_by_light_on_the_one_sources_wiring() -> None:
    assert EXAMPLE.by_light and EXAMPLE.light == LightConfig()
    assert EXAMPLE.light.bus == EXAMPLE.tmag.bus  # the ADS1115 on the sensors' bus
    assert EXAMPLE.light.address not in (*EXAMPLE.tmag.muxes, EXAMPLE.tmag.address)
    used = [pin for _, pin in EXAMPLE.gpio_pins()]
    assert len(used) == len(set(used))  # the select pins clash with nothing else


def test_the_bom_buys_the_phototransistors_their_multiplexer_and_the_adc() -> None:
    li = EXAMPLE.light
    rows = bom_rows()
    photo = [r for r in rows if "ALS-PT19" in " ".join(r)]
    mux = [r for r in rows if "CD74HC4067" in " ".join(r) and "multiplexer" in r[1]]
    adc = [r for r in rows if "ADS1115" in r[2]]
    loads = [r for r in rows if r[1] == "resistor 8.2 kohm"]
    assert len(photo) == 1 and int(photo[0][0]) == len(SQUARE_NAMES)
    assert len(loads) == 1 and int(loads[0][0]) == len(SQUARE_NAMES)
    assert len(mux) == 1 and int(mux[0][0]) == 1
    assert len(adc) == 1 and int(adc[0][0]) == 1 and f"I2C 0x{li.address:02x}" in adc[0][2]
    assert f"SIG on A{li.channel}" in adc[0][3]


def test_the_pin_map_and_the_wiring_diagram_name_the_lights_select_pins() -> None:
    li = EXAMPLE.light
    text = (HARDWARE / "pinmap.md").read_text()
    texts = svg_texts()
    for n, pin in enumerate(li.select_pins):
        row = f"| phototransistors' CD74HC4067 S{n} | `light.select_pins[{n}]` | {pin} | "
        assert row + f"{HEADER_PIN[pin]} |" in text, row
        assert f"light CD74HC4067 S{n}" in texts
    pins = [f"GPIO{p}" for p in li.select_pins]
    assert f"S0 <- {pins[0]}   S1 <- {pins[1]}" in texts
    assert f"S2 <- {pins[2]}   S3 <- {pins[3]}" in texts
    assert f"ADDR -> address 0x{li.address:02x} (GND: 0x48)" in texts
    assert f"SIG -> ADS1115 A{li.channel}" in texts
