"""One board everywhere (issue 43): the BOM's sensor lines, pinmap.md, wiring.svg and
config.example.toml name the same parts, addresses, channels and pins, each read from its own
file and held against the others."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

from orbito_hw.app.config import HEADER_PIN, load_config
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
