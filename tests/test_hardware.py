"""hardware/: the pin map, the wiring diagram and the figures in the docs agree with the
example config."""

import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from orbito_hw.app.config import HEADER_PIN, load_config

ROOT = Path(__file__).resolve().parent.parent
HARDWARE = ROOT / "hardware"
EXAMPLE = load_config(ROOT / "config.example.toml")

# The 40-pin header as printed on the official pinout, pin 1 to 40, typed out independently
# of HEADER_PIN.
PINOUT = (
    "3V3 5V GPIO2 5V GPIO3 GND GPIO4 GPIO14 GND GPIO15 GPIO17 GPIO18 GPIO27 GND GPIO22 GPIO23 "
    "3V3 GPIO24 GPIO10 GND GPIO9 GPIO25 GPIO11 GPIO8 GND GPIO7 GPIO0 GPIO1 GPIO5 GND GPIO6 "
    "GPIO12 GPIO13 GND GPIO19 GPIO16 GPIO26 GPIO20 GND GPIO21"
).split()


def pinmap_rows(table: int = 0) -> list[tuple[str, int, int]]:
    """(key, BCM pin, header pin) of each row of one of pinmap.md's signal tables: the
    board's (0), the hall-switch variant's (1), the colour board's front end (2)."""
    lines = (HARDWARE / "pinmap.md").read_text().splitlines()
    heads = [n for n, line in enumerate(lines) if line == "| part | key | BCM pin | header pin |"]
    start = heads[table] + 2
    rows = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        _, key, bcm, header = (cell.strip() for cell in line.strip("|").split("|"))
        rows.append((key.strip("`"), int(bcm), int(header)))
    return rows


def test_the_header_table_matches_the_official_pinout() -> None:
    assert len(PINOUT) == 40
    expected = {int(name[4:]): number for number, name in enumerate(PINOUT, 1) if "GPIO" in name}
    assert dict(HEADER_PIN) == expected
    assert sorted(HEADER_PIN) == list(range(28))


def test_the_pin_map_is_the_example_config() -> None:
    expected = [(key, pin, HEADER_PIN[pin]) for key, pin in EXAMPLE.gpio_pins()]
    assert pinmap_rows() == expected


def test_the_switch_variants_pin_map_is_the_examples_sensor_pins() -> None:
    from orbito_hw.app.config import example_text, parse_config

    switches = parse_config(
        example_text()
        .replace('sensors = "tmag"', 'sensors = "gpio"')
        .replace("\ncolour = true\n", "\ncolour = false\n")
    )
    pins = [(k, p, HEADER_PIN[p]) for k, p in switches.gpio_pins() if k.startswith("sensors.")]
    assert len(pins) == 16 and pinmap_rows(1) == pins


def test_the_colour_boards_pin_map_is_the_examples_analog_table() -> None:
    from orbito_hw.app.config import example_text, parse_config

    text = example_text().replace('sensors = "tmag"', 'sensors = "gpio"')
    colour = parse_config(text)  # the example tells colour: on GPIO lines through [analog]
    analog = [(k, p, HEADER_PIN[p]) for k, p in colour.gpio_pins() if k.startswith("analog.")]
    assert pinmap_rows(2) == analog


def test_the_wiring_diagram_draws_the_colour_boards_front_end() -> None:
    root = ET.parse(HARDWARE / "wiring.svg").getroot()
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    a = EXAMPLE.analog
    assert f"S0 <- GPIO{a.s0_pin}   S1 <- GPIO{a.s1_pin}" in texts
    assert (
        f"SIG -> ADS1115 A{a.channel}" in texts
        and "  SIG -> GP26 (ADC0), all on the Pico's 3V3" in texts
    )


def test_the_committed_wiring_diagram_is_up_to_date(tmp_path: Path) -> None:
    out = tmp_path / "wiring.svg"
    script = HARDWARE / "make_wiring.py"
    done = subprocess.run([sys.executable, str(script), "--out", str(out)], capture_output=True)
    assert done.returncode == 0, done.stderr
    committed = (HARDWARE / "wiring.svg").read_text()
    assert out.read_text() == committed, "hardware/wiring.svg is stale: run make_wiring.py"


def test_the_wiring_diagram_labels_every_pin_in_use() -> None:
    root = ET.parse(HARDWARE / "wiring.svg").getroot()
    texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    for key, pin in EXAMPLE.gpio_pins():
        assert f"GPIO{pin}" in texts, key
    assert "TCA9548A SDA / SCL (I2C)" in texts and "every TMAG5273 INT (wired)" in texts
    assert "driver STEP" in texts and "index sensor: OUT" in texts


def test_the_wiring_script_refuses_a_bad_config(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text("[drive]\nstep_pin = 99\n")
    script = HARDWARE / "make_wiring.py"
    done = subprocess.run(
        [sys.executable, str(script), "--config", str(bad), "--out", str(tmp_path / "w.svg")],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and done.stdout == ""
    assert "drive.step_pin: pin 99 is not a GPIO" in done.stderr
    assert done.stderr.count("\n") == 1 and not (tmp_path / "w.svg").exists()


def test_the_led_budget_uses_the_example_strip() -> None:
    lights = EXAMPLE.lights
    capped = round(lights.pixels * 60 * lights.brightness)
    bom = (HARDWARE / "BOM.md").read_text()
    assert f"{lights.pixels} pixels x 60 mA x {lights.brightness:g} = {capped} mA" in bom
    assert f"{lights.pixels} pixels x 60 mA = {lights.pixels * 60} mA" in bom


def test_the_steps_per_place_sums_give_the_example_figure() -> None:
    text = (HARDWARE / "mechanics.md").read_text()
    sums = re.findall(r"= (\d+) x (\d+) x (\d+) / (\d+)\s+= (\d+)", text)
    assert len(sums) == 2  # the outer ring and the inner ring
    for steps, micro, gearing, places, stated in (tuple(map(int, s)) for s in sums):
        assert steps * micro * gearing == places * stated == places * EXAMPLE.drive.steps_per_place
