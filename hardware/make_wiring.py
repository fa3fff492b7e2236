#!/usr/bin/env python3
"""Draw the wiring diagram (SVG) from a config file: the Pi's 40-pin header, a labelled wire
from each pin in use to the part it drives, the board seen from above with each square's
sensor pin and LED pixel, the power path (12 V jack, fuse, driver, buck, 5 V loads and their
capacitors), and the pinouts of the driver, the motor's coils, the level shifter and the hall
switches, with the driver's current setting; the reference board's colour by light (the 16
phototransistors, their CD74HC4067 and the ADS1115 on the sensors' bus) from ``[light]``;
and the hall colour board's analog front end (the linear hall sensors, the CD74HC4067
multiplexer and the ADS1115 on the Pi, or the Pico's ADC) from the config's ``[analog]``
table, whether or not ``sensors.colour`` chooses it.

    python hardware/make_wiring.py [--config config.example.toml] [--out hardware/wiring.svg]

Standard library only (plus orbito_hw from this repository). The output depends only on the
config, so tests/test_hardware.py can regenerate it and compare with the committed file.

It reads the config through the app (``app/config.py``'s ``load_config``), unlike the model
beside it (``orbito_cad``, which takes the board's facts from ``hw/facts.py``): it draws the
wiring of whatever file it is given, so it must read that file as the controller does (every
check, the same one line on a bad key, exit 2), and a diagram of a config the controller
would refuse would be wrong. A tool run from the repository, at the top of the house like
the commands; tests/test_layers.py lets it read the config and nothing else of the app.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from xml.sax.saxutils import escape

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from orbito_hw.app.config import HEADER_PIN, Config, load_config  # noqa: E402
from orbito_hw.app.config_analog import I2C_PINS  # noqa: E402
from orbito_hw.errors import ConfigError  # noqa: E402
from orbito_hw.hw.analog_front import FULL_SCALE_V  # noqa: E402
from orbito_hw.hw.tmag_chip import SCL_PIN, SDA_PIN, square_channel  # noqa: E402
from orbito_hw.rules.squares import SQUARE_NAMES  # noqa: E402

WIDTH, HEIGHT = 1120, 2270
ROW, TOP = 32, 130  # header pin rows
ODD_X, EVEN_X = 540, 580  # the header's two columns of pins
PANEL_Y = 810  # the board panels below the header

COLOURS = {
    "sensors": "#1f77b4",
    "button": "#2ca02c",
    "drive": "#9467bd",
    "index": "#8c564b",
    "lights": "#ff7f0e",
    "light": "#17becf",
    "5V": "#d62728",
    "3V3": "#e377c2",
    "GND": "#222222",
}
LEGEND = {
    "sensors": "square sensors (TMAG5273 on I2C)",
    "button": "Orbito button",
    "drive": "stepper driver (TMC2209)",
    "index": "index sensor",
    "lights": "LEDs (via 74AHCT125)",
    "light": "light",
    "5V": "5 V",
    "3V3": "3.3 V",
    "GND": "ground",
}
# Power pins and what they feed: the design, not the config (see BOM.md).
POWER = {
    1: ("3V3", "3V3", "driver VIO (logic supply)"),
    2: ("5V", "5V", "5 V in, from the buck converter"),
    4: ("5V", "5V", "5 V to index switch, 74AHCT125"),
    6: ("GND", "GND", "GND: buck, driver, LEDs"),
    9: ("GND", "GND", "GND: sensors, button, index"),
}
OTHER_PINS = {17: "3V3", 14: "GND", 20: "GND", 25: "GND", 30: "GND", 34: "GND", 39: "GND"}
SENSOR_SUPPLY = {17: ("3V3", "3V3", "3.3 V: sensors' STEMMA QT")}
"""The reference board's sensors take their 3.3 V from header pin 17 (pinmap.md)."""
FREE_NOTES = {
    0: "ID EEPROM",
    1: "ID EEPROM",
    2: "I2C SDA",
    3: "I2C SCL",
    9: "SPI MISO",
    11: "SPI SCLK",
    14: "UART TX",
    15: "UART RX",
}


def wire_of(key: str) -> tuple[str, str]:
    """(part, terminal label) of a config key that holds a pin."""
    if key.startswith("sensors.pins."):
        return "sensors", f"sensor {key.rsplit('.', 1)[1]}: OUT"
    if key.startswith("analog.s"):
        return "sensors", f"CD74HC4067 {key.split('.')[1][:2].upper()}"
    if key == "analog.bus":
        return "sensors", "ADS1115 SDA / SCL (I2C)"
    if key == "tmag.bus":
        return "sensors", "TCA9548A SDA / SCL (I2C)"
    if key == "tmag.int_pin":
        return "sensors", "every TMAG5273 INT (wired)"
    if key.startswith("light.select_pins["):
        return "light", f"light CD74HC4067 S{key[-2]}"
    return {
        "button.pin": ("button", "Orbito button (to GND)"),
        "drive.step_pin": ("drive", "driver STEP"),
        "drive.dir_pin": ("drive", "driver DIR"),
        "drive.enable_pin": ("drive", "driver EN (10k pull-up)"),
        "drive.index_pin": ("index", "index sensor: OUT"),
        "lights.pin": ("lights", "74AHCT125 1A, 1Y to LED DIN"),
    }[key]


def text(x: float, y: float, body: str, size: int = 12, anchor: str = "start", **extra: str) -> str:
    attrs = "".join(f' {k.replace("_", "-")}="{v}"' for k, v in extra.items())
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}"{attrs}>'
        f"{escape(body)}</text>"
    )


def header(config: Config) -> list[str]:
    """The header, its pin names, and a wire from each pin in use to its terminal."""
    by_header = {HEADER_PIN[pin]: (key, pin) for key, pin in config.gpio_pins()}
    gpio_at = {header_pin: bcm for bcm, header_pin in HEADER_PIN.items()}
    out = [
        f'<rect x="{ODD_X - 20}" y="{TOP - 22}" width="80" height="{20 * ROW + 12}" rx="6" '
        'fill="#1b5e20" stroke="#0b3d0b"/>',
        text(ODD_X + 20, TOP - 30, "Raspberry Pi 40-pin header", 13, "middle", font_weight="bold"),
    ]
    for number in range(1, 41):
        left = number % 2 == 1
        x, y = (ODD_X if left else EVEN_X), TOP + (number - 1) // 2 * ROW
        side = -1 if left else 1
        name_x, wire_end = x + side * 28, x + side * 220
        anchor = "end" if left else "start"
        if number in gpio_at:
            bcm = gpio_at[number]
            name = f"GPIO{bcm}"
            if number in by_header:
                part, label = wire_of(by_header[number][0])
            else:
                part, label = "", f"free ({FREE_NOTES[bcm]})" if bcm in FREE_NOTES else "free"
        else:
            power = POWER | (SENSOR_SUPPLY if config.backends.sensors == "tmag" else {})
            part, name, label = power[number] if number in power else ("", OTHER_PINS[number], "")
        colour = COLOURS.get(part, "#9e9e9e")
        fill = colour if part else "#ffffff"
        if part:
            out.append(
                f'<line x1="{x}" y1="{y}" x2="{wire_end}" y2="{y}" stroke="{colour}" '
                'stroke-width="3"/>'
            )
            box_x = wire_end - 210 if left else wire_end
            out.append(
                f'<rect x="{box_x}" y="{y - 11}" width="210" height="22" rx="4" fill="#ffffff" '
                f'stroke="{colour}" stroke-width="2"/>'
            )
            label_x = wire_end - 6 if left else wire_end + 6
            out.append(text(label_x, y + 4, label, 12, anchor))
        elif label:
            out.append(text(x + side * 90, y + 4, label, 11, anchor, fill="#757575"))
        out.append(f'<circle cx="{x}" cy="{y}" r="10" fill="{fill}" stroke="#000000"/>')
        out.append(text(x, y + 3.5, str(number), 9, "middle", fill="#000000"))
        out.append(text(name_x, y - 5, name, 11, anchor, font_weight="bold"))
    return out


def legend() -> list[str]:
    out = []
    x = 30
    for part, label in LEGEND.items():
        out.append(f'<rect x="{x}" y="68" width="14" height="14" fill="{COLOURS[part]}"/>')
        out.append(text(x + 20, 80, label, 12))
        x += 28 + 6.5 * len(label)
    return out


def board_panel(x0: int, title: str, cells: dict[int, str], path: list[int] | None) -> list[str]:
    """The 4x4 board seen from above (a1 bottom left), one line of text in each square."""
    size = 60
    out = [text(x0 + 2 * size, PANEL_Y - 14, title, 13, "middle", font_weight="bold")]

    def centre(square: int) -> tuple[int, int]:
        file, rank = square % 4, square // 4
        return x0 + file * size + size // 2, PANEL_Y + (3 - rank) * size + size // 2

    for square, name in enumerate(SQUARE_NAMES):
        cx, cy = centre(square)
        inner = square in (5, 6, 9, 10)  # b2 c2 b3 c3: the inner ring
        shade = "#f3e5f5" if inner else "#e3f2fd"
        out.append(
            f'<rect x="{cx - size // 2}" y="{cy - size // 2}" width="{size}" height="{size}" '
            f'fill="{shade}" stroke="#455a64"/>'
        )
        out.append(text(cx, cy - 8, name, 11, "middle", fill="#455a64"))
        out.append(text(cx, cy + 12, cells[square], 13, "middle", font_weight="bold"))
    if path:
        points = " ".join(f"{x + 18},{y + 22}" for x, y in map(centre, path))
        out.append(
            f'<polyline points="{points}" fill="none" stroke="{COLOURS["lights"]}" '
            'stroke-width="2" stroke-dasharray="5,3" marker-end="url(#arrow)"/>'
        )
    return out


# The driver's current: BIGTREETECH TMC2209 V1.3 in standalone mode, I_rms = VREF x 1.77 / 2.5
# (its 0.11 ohm sense resistors); 1.0 A RMS keeps a 1.7 A (peak) 17HS4401 cool.
DRIVER_RMS_A = 1.0
VREF_V = round(DRIVER_RMS_A * 2.5 / 1.77, 2)
SECTION_Y = 1130  # the power path and the pinouts, below the header and the board panels


def box(
    x: float, y: float, w: float, h: float, title: str, lines: list[str], colour: str
) -> list[str]:
    """A part: its name in bold, then one line per pin or note."""
    out = [
        f'<rect x="{x}" y="{y}" width="{w}" height="{h}" rx="6" fill="#ffffff" '
        f'stroke="{colour}" stroke-width="2"/>',
        text(x + 8, y + 18, title, 13, font_weight="bold"),
    ]
    out += [text(x + 8, y + 38 + 17 * i, line, 11) for i, line in enumerate(lines)]
    return out


def wire(points: list[tuple[float, float]], colour: str, label: str = "") -> list[str]:
    path = " ".join(f"{x},{y}" for x, y in points)
    out = [f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="3"/>']
    if label:
        (x0, y0), (x1, y1) = points[0], points[1]
        out.append(text((x0 + x1) / 2, (y0 + y1) / 2 - 6, label, 11, "middle", fill=colour))
    return out


def section(y: int, title: str) -> list[str]:
    """A section of the lower half: a rule across the drawing and its title under it."""
    return [
        f'<line x1="20" y1="{y - 10}" x2="{WIDTH - 20}" y2="{y - 10}" stroke="#bdbdbd"/>',
        text(WIDTH // 2, y + 14, title, 16, "middle", font_weight="bold"),
    ]


def mux_box(
    y: int, colour: str, inputs: str, pins: list[str], channel: int, notes: list[str]
) -> list[str]:
    """The CD74HC4067 of either colour build: ``inputs`` on its channels, ``pins`` on its
    select lines, its SIG into the ADS1115's input ``channel``; then the build's ``notes``."""
    return box(390, y, 330, 210, "CD74HC4067 multiplexer", [
        "VCC <- 3.3 V (100 nF); GND, EN -> GND",
        f"C0..C15 <- {inputs}",
        f"S0 <- {pins[0]}   S1 <- {pins[1]}",
        f"S2 <- {pins[2]}   S3 <- {pins[3]}",
        f"SIG -> ADS1115 A{channel}",
        *notes,
    ], colour)  # fmt: skip


def power_and_pinouts(config: Config) -> list[str]:
    """The power path and every part's pinout, the GPIOs taken from the config."""
    d = config.drive
    y = SECTION_Y
    red, violet = COLOURS["5V"], COLOURS["drive"]
    out = section(y, "Power path (all grounds joined) and pinouts")
    y += 34
    out += box(30, y, 150, 60, "12 V 4 A supply", ["5.5 x 2.1 mm jack", "centre +"], red)
    out += box(230, y, 130, 60, "fuse 5 A", ["slow blow, 5 x 20", "on the + wire"], red)
    out += box(410, y, 200, 60, "buck 12 V -> 5.1 V", ["IN+/IN- from the fuse", "set 5.1 V first"],
               red)  # fmt: skip
    out += wire([(180, y + 30), (230, y + 30)], red, "12 V")
    out += wire([(360, y + 30), (410, y + 30)], red, "12 V")
    out += wire([(295, y + 60), (295, y + 90)], red, "")
    out.append(text(300, y + 80, "12 V to driver VM", 11, fill=red))
    out += box(30, y + 90, 340, 60, "driver VM: 100 uF 25 V to GND", ["at the driver's pins: it "
               "takes the motor's back-EMF"], red)  # fmt: skip
    out += wire([(510, y + 60), (510, y + 90)], red, "")
    five = [
        "5.1 V rail, from the buck's OUT+/OUT-:",
        "- Pi header pins 2 and 4 (5 V in) and 6 (GND)",
        f"- the {config.lights.pixels} LEDs' 5V/GND, with 1000 uF 10 V across them at the first",
        (
            "- the index hall switch's VCC (pin 1), 100 nF across it"
            if config.backends.sensors == "tmag"
            else "- the 17 hall switches' VCC (pin 1), 100 nF across each"
        ),
        "- the 74AHCT125's VCC (pin 14)",
    ]
    out += box(410, y + 90, 480, 110, "5 V loads", five, red)
    y += 230
    out += box(30, y, 340, 230, "TMC2209 carrier (StepStick pins)", [
        f"EN   <- GPIO{d.enable_pin} (10k pull-up to 3.3 V)",
        "MS1  -> VIO     } both high:",
        "MS2  -> VIO     } 16 microsteps",
        f"STEP <- GPIO{d.step_pin}",
        f"DIR  <- GPIO{d.dir_pin}",
        "VM   <- 12 V (fused), 100 uF",
        "VIO  <- 3.3 V (Pi pin 1); GND x2 -> GND",
        "1A/1B -> coil A, 2A/2B -> coil B",
        f"current: VREF = {VREF_V} V for {DRIVER_RMS_A:g} A RMS",
        "(I_rms = VREF x 1.77 / 2.5; pot wiper to GND,",
        " 12 V on, motor unplugged only when off)",
    ], violet)  # fmt: skip
    out += box(400, y, 300, 130, "NEMA 17 (17HS4401) coils", [
        "black  A+  -> 1A",
        "green  A-  -> 1B",
        "red    B+  -> 2A",
        "blue   B-  -> 2B",
        "swap one coil's pair to reverse",
    ], violet)  # fmt: skip
    out += box(730, y, 360, 230, "74AHCT125 (DIP-14)", [
        "1  1OE  -> GND (buffer 1 on)",
        f"2  1A   <- GPIO{config.lights.pin} (LED data, 3.3 V)",
        "3  1Y   -> 330 ohm -> first LED's DIN (5 V)",
        "7  GND  -> GND",
        "14 VCC  <- 5 V",
        "4, 10, 13 (2OE..4OE) -> 5 V: unused",
        "5, 9, 12 (2A..4A) -> GND",
        "LEDs: each DOUT -> the next DIN,",
        "in lights.order (hardware/BOM.md)",
    ], COLOURS["lights"])  # fmt: skip
    out += box(400, y + 150, 300, 130, "SS451A hall switch (flat face up)", [
        "1  VCC  <- 5 V (100 nF to GND)",
        "2  GND  -> GND",
        "3  OUT  -> its GPIO (pull-up: the Pi's,",
        "   to 3.3 V; never a pull-up to 5 V)",
        (
            f"the index (GPIO{d.index_pin}); x16 squares in the variant"
            if config.backends.sensors == "tmag"
            else f"x16 squares + index (GPIO{d.index_pin})"
        ),
    ], COLOURS["sensors"])  # fmt: skip
    return out


LIGHT_Y = 1720  # the reference board's colour by light, below the pinouts
ANALOG_Y = 1990  # the hall colour board's front end, below it


def light_front(config: Config) -> list[str]:
    """The reference board's colour by light: the phototransistors, their multiplexer and the
    ADS1115 on the sensors' bus (``[light]``)."""
    li = config.light
    cyan = COLOURS["light"]
    chosen = "chosen" if config.by_light else "not chosen"
    y = LIGHT_Y
    out = section(y, f"Colour by light: phototransistors, multiplexer, ADC ({chosen})")
    y += 34
    pins = [f"GPIO{p}" for p in li.select_pins]
    out += box(30, y, 330, 210, "16 ALS-PT19 phototransistor breakouts", [
        "beside each square's LED, under its window",
        "VCC <- 3.3 V; GND -> GND",
        "OUT -> CD74HC4067 C0..C15",
        "  (square a1 on C0 .. d4 on C15)",
        "load 4.7k: a 10k breakout gets 8.2k",
        "  from OUT to GND at the multiplexer",
        "white/black calibrated by doctor",
    ], cyan)  # fmt: skip
    out += mux_box(y, cyan, "the phototransistors' OUT", pins, li.channel, [
        "read only after a put or a ring move,",
        f"  the square's LED flashed {li.flash_ms:g} ms red",
    ])  # fmt: skip
    sda, scl = (f"GPIO{p}" for p in I2C_PINS.get(li.bus, (2, 3)))
    out += box(750, y, 340, 210, f"ADS1115 ADC (I2C bus {li.bus})", [
        "VDD <- 3.3 V (100 nF); GND -> GND",
        f"SDA <-> {sda}, SCL <- {scl}: the sensors' bus",
        "  (STEMMA QT, beside the TCA9548A)",
        f"ADDR -> address 0x{li.address:02x} (GND: 0x48)",
        f"A{li.channel} <- multiplexer SIG; other inputs to GND",
        "single-shot, 860 samples/s, its range",
        "  chosen for each reading",
    ], cyan)  # fmt: skip
    return out


def analog_front(config: Config) -> list[str]:
    """The colour board's sensors, multiplexer and ADC: on the Pi (``[analog]``'s pins) and
    on the Pico (its firmware's)."""
    a = config.analog
    blue = COLOURS["sensors"]
    chosen = (
        "chosen"
        if config.sensors.colour and not config.by_light
        else "a variant, not chosen"
        if config.by_light
        else "not chosen: sensors.colour = false"
    )
    y = ANALOG_Y
    out = section(y, f"Colour board: linear hall sensors, multiplexer, ADC ({chosen})")
    y += 34
    pins = [f"GPIO{p}" if p is not None else "unset" for p in a.select_pins()]
    out += box(30, y, 330, 210, "16 linear hall sensors (SS49E / DRV5055)", [
        "VCC <- 3.3 V, 100 nF to GND at each",
        "GND -> GND",
        "OUT -> CD74HC4067 C0..C15",
        "  (square a1 on C0 .. d4 on C15)",
        f"no field: {a.zero_v:g} V; {a.mv_per_gauss:g} mV per gauss",
        "black marble one way, white the other",
        "calibrated by doctor --only calibrate",
    ], blue)  # fmt: skip
    out += mux_box(y, blue, "the sensors' OUT", pins, a.channel, [
        "Pico option: S0..S3 <- GP6..GP9,",
        "  SIG -> GP26 (ADC0), all on the Pico's 3V3",
    ])  # fmt: skip
    sda, scl = (f"GPIO{p}" for p in I2C_PINS.get(a.bus, (2, 3)))
    out += box(750, y, 340, 210, f"ADS1115 ADC (I2C bus {a.bus})", [
        "VDD <- 3.3 V (100 nF); GND -> GND",
        f"SDA <-> {sda}, SCL <- {scl} (the Pi's pull-ups)",
        f"ADDR -> address 0x{a.address:02x} (GND: 0x48)",
        f"A{a.channel} <- multiplexer SIG; other inputs to GND",
        f"gain {a.gain}: 0..{FULL_SCALE_V[a.gain]:g} V, {a.data_rate} samples/s",
        "dtparam=i2c_arm=on in config.txt",
        "not on the Pico option (its own ADC)",
    ], blue)  # fmt: skip
    return out


def tmag_panel(config: Config) -> list[str]:
    """The reference board's squares: each one's multiplexer and channel, and the bus."""
    t = config.tmag
    cells = {}
    for square, number in enumerate(t.channels):
        mux, channel = square_channel(number)
        cells[square] = f"0x{t.muxes[mux]:02x}/{channel}"
    out = board_panel(150, "TCA9548A address/channel of each square", cells, None)
    muxes = " and ".join(f"0x{a:02x}" for a in t.muxes)
    notes = [
        f"16 TMAG5273 breakouts at 0x{t.address:02x}, one a channel, STEMMA QT cables",
        f"TCA9548A at {muxes} on I2C bus {t.bus} (GPIO{SDA_PIN} SDA, GPIO{SCL_PIN} SCL)",
        f"every INT (open drain) wired together to GPIO{t.int_pin}, 4.7k to 3.3 V",
    ]
    for i, note in enumerate(notes):
        out.append(text(150 + 120, PANEL_Y + 262 + 18 * i, note, 12, "middle", fill="#555555"))
    return out


def draw(config: Config, source: str) -> str:
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="DejaVu Sans, Arial, sans-serif">',
        '<defs><marker id="arrow" markerWidth="8" markerHeight="8" refX="6" refY="4" '
        f'orient="auto"><path d="M0,0 L8,4 L0,8 z" fill="{COLOURS["lights"]}"/></marker></defs>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="#ffffff"/>',
        text(WIDTH // 2, 30, "orbito-hw wiring", 20, "middle", font_weight="bold"),
        text(
            WIDTH // 2,
            52,
            f"generated by hardware/make_wiring.py from {source}; pins are BCM GPIO numbers",
            12,
            "middle",
            fill="#555555",
        ),
        *legend(),
        *header(config),
    ]
    lights = config.lights
    if config.backends.sensors == "tmag":
        out += tmag_panel(config)
    elif config.sensors.pins:
        cells = {s: f"GPIO{pin}" for s, pin in enumerate(config.sensors.pins)}
        out += board_panel(150, "sensor under each square", cells, None)
    pixels = lights.square_pixels()
    title = "LED pixel under each square (strip order)"
    out += board_panel(710, title, {s: str(p) for s, p in enumerate(pixels)}, list(lights.order))
    status = "none" if lights.status_pixel is None else f"pixel {lights.status_pixel}"
    notes = [
        f"{lights.pixels} pixels, status pixel: {status}, brightness cap {lights.brightness:g}",
        "inner ring (b2 c2 c3 b3) shaded violet; rings turn counter-clockwise",
    ]
    for i, note in enumerate(notes):
        out.append(text(710 + 120, PANEL_Y + 262 + 18 * i, note, 12, "middle", fill="#555555"))
    out += power_and_pinouts(config)
    out += light_front(config)
    out += analog_front(config)
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--config", default=str(ROOT / "config.example.toml"))
    parser.add_argument("--out", default=str(ROOT / "hardware" / "wiring.svg"))
    args = parser.parse_args(argv)
    try:
        config = load_config(args.config)
    except ConfigError as exc:
        print(f"make_wiring.py: {exc}", file=sys.stderr)
        return 2
    config_path = Path(args.config).absolute()
    source = config_path.relative_to(ROOT) if config_path.is_relative_to(ROOT) else config_path
    Path(args.out).write_text(draw(config, str(source)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
