"""The bill of materials, from the model and the config: ``hardware/BOM.md`` is its output.

Quantities come from the model (cups per ring, one crank per side) and the config (the
pixels, the pins in use); sizes from ``params``; the filament from each printed part's
volume. Prices are rough 2026 street prices in euros, single units from hobby shops.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from orbito_cad.board import bay, layout
from orbito_cad.board.face import led_centre
from orbito_cad.board.marble import DISC_AXES
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.make import printing, slicer
from orbito_hw.hw.facts import BoardFacts
from orbito_hw.hw.light_front import LightConfig
from orbito_hw.hw.tmag_chip import TmagConfig, square_channel
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARE_NAMES, SQUARES

# name: (quantity per board, material and colour, what to know); a part of parts.PRINTED
# missing here is printed once, in PETG. How each lies and is sliced: printing.py.
PRINTED: dict[str, tuple[int, str, str]] = {
    "case": (1, "PETG", ""),
    "face": (1, "PETG, dark", ""),
    "centre_plate": (1, "PETG, dark", "the same colour as the face"),
    "crank_gear": (len(layout.sides()), "PETG", ""),
    "transfer_bar": (len(layout.sides()), "PETG", ""),
    "cup": (len(OUTER_RING), "PETG, natural (translucent)", ""),
    "disc": (1, "PETG, natural (translucent)", ""),
    # marbles.md: 16 marbles of two halves, 8 black and 8 white, solid for their weight
    "marble_half": (32, "PETG, black (16) and white (16)", "100 % infill; 8 marbles of each"),
    "polarity_jig": (2, "PETG", "one for each colour (marbles.md)"),
}
EUR_PER_KG = 25.0  # PETG


# Every screw and nut, by the assembly's steps (hardware/assembly.md): (count, kind, size,
# where). Self-tapping: into a printed pilot hole (params.screw_tap_d, standoff_hole_d,
# pico_hole_d); button heads (ISO 7380) sink into the face's and the floor's counterbores.
FASTENERS: tuple[tuple[int, str, str, str], ...] = (
    (4, "screw, button head", "M3 x 8", "ISO 7380: the motor under its mount"),
    (4, "screw, button head", "M3 x 10", "ISO 7380: the mount's legs, from under the case"),
    (4, "screw, button head", "M3 x 16", "ISO 7380: the face onto the case's corner bosses"),
    (4, "screw, button head", "M2.5 x 10", "ISO 7380: the centre plate onto its posts"),
    (8, "screw, pan head", "M2.5 x 6", "the Pi and the perfboard onto their standoffs"),
    (8, "screw, pan head", "M2.5 x 6", "the sensors' four small boards onto their standoffs"),
    (4, "screw, pan head", "M2 x 5", "the Pico onto its standoffs"),
    (2, "grub screw and nut", "M3 x 5, M3 nut", "the central gear's and the disc's clamps"),
)


def fasteners() -> list[tuple[int, str, str, str, float]]:
    return [(n, kind, size, where, 0.05) for n, kind, size, where in FASTENERS]


def _money(eur: float) -> str:
    return f"{eur:.2f}"


def bought(config: BoardFacts, p: Params = PARAMS) -> list[tuple[int, str, str, str, float]]:
    """(quantity, part, size, example part number, price each in EUR) of every bought part."""
    squares, sides = len(SQUARES), len(layout.sides())
    pixels = config.lights.pixels
    light = LightConfig()  # the phototransistors' multiplexer and ADC (hw/light_front.py)
    return [
        (1, "Raspberry Pi", "", "Raspberry Pi 4 B (2 GB); a 3 B+ or 5 does too", 45.0),
        (1, "microSD card", "16 GB, A1", "SanDisk Ultra 16 GB", 6.0),
        (1, "hall switch, omnipolar, open collector",
         f"flat TO-92, {p.hall_w} x {p.hall_d} x {p.hall_t} mm", "Honeywell SS451A: the index",
         1.5),
        (1, "capacitor 100 nF ceramic", "", "across the index switch's VCC-GND", 0.05),
        (squares, "hall sensor breakout, three-axis, I2C",
         "TMAG5273A1 (I2C 0x35), 2 STEMMA QT / Qwiic sockets",
         "Adafruit 6489; one under each square, its INT wired (mechanics.md)", 6.0),
        (2, "I2C multiplexer, 8 channels", "TCA9548A / PCA9548A, STEMMA QT sockets",
         "Adafruit 5626: one at 0x70, one at 0x71 (its A0 jumper bridged)", 7.0),
        *sensor_cables(p),
        (2, "STEMMA QT / Qwiic cable", "JST SH 4-pin, 100 mm",
         "Adafruit 4210: the first multiplexer on to the second, the second on to the ADS1115",
         1.0),
        (1, "STEMMA QT cable to female sockets", "JST SH 4-pin to 0.1-inch sockets",
         "Adafruit 4397: the Pi's 3.3 V, GND, GPIO2, GPIO3 to the first multiplexer", 1.0),
        (1, "resistor 4.7 kohm", "", "pull-up from the sensors' joined INT wires to 3.3 V",
         0.05),
        (squares, "light sensor breakout, phototransistor, analog out",
         "Everlight ALS-PT19 (the eye's response), 10 kohm load on the board",
         "Adafruit 2748: one beside each square's LED, under its detector window (optics.md)",
         2.5),
        (squares, "resistor 8.2 kohm", "",
         "from each phototransistor's OUT to GND at the multiplexer: with the breakout's "
         "10 kohm, the model's 4.7 kohm load (4.5 kohm)", 0.05),
        (1, "analog multiplexer breakout, 16 channels", "CD74HC4067, 0.1-inch pins",
         "SparkFun BOB-09056: the phototransistors on C0..C15, S0..S3 to the Pi (pinmap.md)",
         4.0),
        (1, "ADC breakout, 16 bits, I2C",
         f"ADS1115 (I2C 0x{light.address:02x}), STEMMA QT sockets",
         f"Adafruit 1085: the multiplexer's SIG on A{light.channel}, on the sensors' bus", 15.0),
        (1, "ribbon cable, 3 conductors", "28 AWG, about 4 m",
         "3.3 V, GND and OUT from each phototransistor to the multiplexer's perfboard", 3.0),
        (squares * len(DISC_AXES) + 2, "marble magnet, N42 disc, axially magnetised",
         f"{p.marble_magnet_d:g} x {p.marble_magnet_h:g} mm",
         f"{len(DISC_AXES)} in each printed marble, 1 in each of the 2 polarity jigs (marbles.md)",
         0.08),
        (1, "index magnet, N42 disc", f"{p.index_magnet_d:g} x {p.index_magnet_h:g} mm",
         "in the index crank gear's arm", 0.1),
        (1, "stepper motor", f"NEMA 17, {p.motor_len:g} mm, 1.8 deg, about "
         f"{p.motor_torque_curve[0][1] * 100:.0f} N cm, {p.motor_rated_current:g} A; run at "
         f"{p.driver_current:g} A",
         "17HS4401 (5 mm D-shaft)", 10.0),
        (1, "stepper driver", "TMC2209 carrier (StepStick)", "BIGTREETECH TMC2209 V1.3", 6.0),
        (sides, "ball bearing", f"625ZZ, 5 x {p.bearing_od:g} x {p.bearing_w:g} mm",
         "one in each crank gear", 0.5),
        (sides, "steel dowel (crank axle)", f"{p.axle_d:g} x {p.axle_len:g} mm",
         "ISO 2338 5m6x20", 0.2),
        *fasteners(),
        (pixels, "LED module, WS2812B (5050)", f"{p.led_d:g} mm round PCB",
         "\"WS2812B 10 mm round module\" (sold in 10s); one under each square + status", 0.25),
        (1, "level shifter", "74AHCT125, DIP-14", "TI SN74AHCT125N", 0.6),
        (1, "resistor 330 ohm", "", "in series with the first LED's DIN", 0.05),
        (1, "capacitor 1000 uF 10 V electrolytic", "", "across the LEDs' 5 V at the first", 0.3),
        (1, "capacitor 100 uF 25 V electrolytic", "", "across the driver's VM-GND, close to it",
         0.2),
        (1, "resistor 10 kohm", "", "pull-up from the driver's EN to 3.3 V", 0.05),
        (1, "Orbito button", "16 mm momentary", "any 16 mm panel push button", 1.5),
        (1, "power supply", "12 V 4 A (48 W), 5.5 x 2.1 mm plug", "Mean Well GST60A12", 18.0),
        (1, "DC jack", "5.5 x 2.1 mm, panel", "", 0.8),
        (1, "fuse and holder", "5 A, 5 x 20 mm slow", "", 1.5),
        (1, "buck converter", "12 V to 5.1 V, 5 A", "XL4015 module, set to 5.1 V", 3.0),
        (1, "perfboard, headers, wire", "", "40-pin female header for the Pi", 6.0),
    ]  # fmt: skip


def sensor_cables(p: Params = PARAMS) -> list[tuple[int, str, str, str, float]]:
    """The squares' STEMMA QT cables, one line per length sold: each square's route to its
    multiplexer (``bay.sensor_cable``, on the default channels of ``tmag.channels``) rounded
    up to the next length sold."""
    t = TmagConfig()
    by_length: dict[float, list[str]] = {}
    for s in SQUARES:
        mux, _ = square_channel(t.channels[s])
        length = bay.cable_length(bay.sensor_cable(s, mux, p))
        by_length.setdefault(length, []).append(SQUARE_NAMES[s])
    return [
        (len(names), "STEMMA QT / Qwiic cable", f"JST SH 4-pin, {length:g} mm",
         f"a sensor to its multiplexer channel: {' '.join(names)} (routes: cable-routing.svg)",
         1.0 if length <= 200 else 1.5)
        for length, names in sorted(by_length.items())
    ]  # fmt: skip


def led_chain(config: BoardFacts, p: Params = PARAMS) -> tuple[float, float]:
    """(total, longest hop) of wire along the LEDs in the config's strip order, in mm: the
    single modules are chained in that order, each hop a straight run plus 20 mm slack."""
    points = [led_centre(s, p) for s in config.lights.order]
    hops = [math.dist(a, b) + 20 for a, b in pairwise(points)]
    return (sum(hops), max(hops))


def bom(config: BoardFacts, solids: Mapping[str, Any], p: Params = PARAMS,
        prints: Mapping[str, Any] | None = None) -> str:  # fmt: skip
    """BOM.md for the model ``p`` (its printed parts built: ``solids``, by name; as they
    were exported: ``prints``, ``printing.Print`` by name) and ``config``."""
    lines = [
        "# Bill of materials",
        "",
        "Generated by `orbito-hw cad build` (hardware/orbito_cad/make/bom.py) from the model",
        "(hardware/orbito_cad/board/params.py) and `config.example.toml`: do not edit by hand.",
        "Drawings, renders and the assembly: [assembly.md](assembly.md); how it moves:",
        "[mechanics.md](mechanics.md); wiring: [pinmap.md](pinmap.md), [wiring.svg](wiring.svg).",
        "Part numbers are examples: anything with the same function and ratings does; prices",
        "are rough single-unit prices in euros.",
        "",
        "## Printed parts",
        "",
    ]
    lines += printed_table(solids, p, prints or {})
    lines += [
        "## Bought parts",
        "",
        "| qty | part | size | example | each (EUR) |",
        "| --- | --- | --- | --- | --- |",
    ]
    total = 0.0
    for qty, part, size, example, price in bought(config, p):
        total += qty * price
        lines.append(f"| {qty} | {part} | {size} | {example} | {_money(price)} |")
    chain, hop = led_chain(config, p)
    lines += [
        "",
        f"Bought parts: about {total:.0f} EUR; with the filament, about "
        f"{total + filament_grams(solids, prints or {}) / 1000 * EUR_PER_KG:.0f} EUR.",
        "",
        "## LEDs: single modules, chained in the strip order",
        "",
        "A 60/m strip cannot sit under squares "
        f"{p.pitch:g} mm apart, so each square has its own WS2812B module, glued under its",
        "light window (beside the sensor, towards the board's centre) and chained DOUT to",
        "DIN with three wires (5 V, data, GND) in the config's `lights.order`:",
        "",
        "    " + " -> ".join(SQUARE_NAMES[s] for s in config.lights.order),
        "",
        f"About {chain / 1000:.2f} m of 3-core wire in all (the longest hop {hop:.0f} mm, 20 mm of "
        "slack each); the status pixel"
        + (
            f" (pixel {config.lights.status_pixel}) sits beside the button."
            if config.lights.status_pixel is not None
            else ": none."
        ),
        "",
    ]
    lines += _budgets(config, p)
    return "\n".join(lines) + "\n"


def quantity(name: str) -> int:
    return PRINTED.get(name, (1, "PETG", ""))[0]


def filament_grams(solids: Mapping[str, Any], prints: Mapping[str, Any]) -> float:
    """The filament for one board, by the slicer where it measured the part as built, by
    the part's volume (solid at 45 % as a rough share) where it did not."""
    figures = slicer.load()["parts"]
    total = 0.0
    for name, solid in solids.items():
        got = slicer.fresh(figures.get(name), prints[name]) if name in prints else None
        grams = got.grams if got is not None else solid.volume / 1000 * 1.27 * 0.45
        total += quantity(name) * grams
    return total


def printed_table(solids: Mapping[str, Any], p: Params, prints: Mapping[str, Any]) -> list[str]:
    """The printed parts: how each lies, its supports (computed from the exported mesh's
    overhangs), the slicer's settings and its figures (PrusaSlicer's own, from
    print_figures.json, where they were measured on the part as built)."""
    data = slicer.load()
    figures = data["parts"]
    lines = [
        f"Every part fits a {p.bed[0]:g} x {p.bed[1]:g} x {p.bed[2]:g} mm bed; "
        f"{p.nozzle_d:g} mm nozzle, layers as each part's row says, "
        f"walls at least {p.min_wall:g} mm, "
        f"{slicer.MATERIAL}. Clearances: {p.print_clearance:g} mm for a printed pin in a "
        "printed hole (a finger in its cup, a crank pin's collar in its yoke: "
        "`print_clearance`, set from the tolerance test's finger fit), "
        f"{p.slide:g} mm where a printed bore turns on a steel part, "
        f"{p.fit:g} mm for bought parts pressed in.",
        "",
        "Each STL lies as it prints. **Supports** are computed from the STL: its facets facing "
        f"down more than {printing.OVERHANG_DEG:g} deg from vertical, off the bed; regions "
        f"narrower than {printing.BRIDGE:g} mm (a hole's roof) are bridged, wider ones need "
        f"support (more than {printing.SUPPORT_AREA:g} mm2 of them: supports on). **Time and "
        f"filament** are {data.get('slicer', 'the slicer')}'s own figures for each STL with "
        "these settings (`python hardware/slice.py DIR`, hardware/orbito_cad/make/slicer.py).",
        "",
        "| qty | part | file | size as printed (mm) | lies | overhang (mm2): wide / all "
        "| supports | layer | walls | infill | material | time each | filament each |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    seconds, grams = 0, 0.0
    names = [*solids, *(n for n in prints if n not in solids)]
    for name in names:
        qty = quantity(name) if name in solids else 1
        _, material, know = PRINTED.get(name, (1, "PETG", ""))
        s = slicer.settings(name)
        notes = "; ".join(n for n in (material, know, s.note) if n)
        if name not in prints:
            lines.append(f"| {qty} | {name.replace('_', ' ')} | `{name}.stl` | | | | | | | | | | |")
            continue
        pr = prints[name]
        got = slicer.fresh(figures.get(name), pr)
        if got is not None and name in solids:
            seconds += qty * got.seconds
            grams += qty * got.grams
        time = slicer.hms(got.seconds) if got else "not sliced"
        mass = f"{got.grams:.0f} g" if got else "not sliced"
        size = " x ".join(f"{v:.0f}" for v in pr.size)
        lines.append(
            f"| {qty} | {name.replace('_', ' ')} | `{name}.stl` | {size} | "
            f"{printing.describe(pr.angles)} | {pr.overhang.wide:.0f} / {pr.overhang.area:.0f} | "
            f"{'yes' if pr.overhang.supports else 'no'} | {s.layer or p.layer_h:g} mm | "
            f"{s.walls} | {s.infill} % | {notes} | {time} | "
            f"{mass} |"
        )
    lines += [
        "",
        f"One board: {slicer.hms(seconds)} of printing and {grams:.0f} g of filament "
        f"({grams / 1000 * EUR_PER_KG:.0f} EUR at {EUR_PER_KG:g} EUR/kg), by the slicer, for "
        "the parts it measured as built (the tolerance test not counted).",
        "",
    ]
    return lines


def _budgets(config: BoardFacts, p: Params = PARAMS) -> list[str]:
    lights = config.lights
    buck = 2.0  # A at 12 V: the buck's input, 5.1 V x 4.2 A / 90 % / 12 V
    n, cap = lights.pixels, lights.brightness
    return [
        "## LED current budget",
        "",
        "A WS2812B pixel draws about 20 mA per colour at full duty: 60 mA at full white. "
        f"The board has {n} pixels (`lights.pixels`), and `lights.brightness` caps every colour "
        "the software sends.",
        "",
        f"- Uncapped, all white: {n} pixels x 60 mA = {n * 60} mA.",
        f"- Capped at the example's brightness: {n} pixels x 60 mA x {cap:g} = "
        f"{round(n * 60 * cap)} mA.",
        f"- Dark, each pixel still draws about 1 mA: {n} mA.",
        "",
        "The power supply is sized for the uncapped figure: a wrong brightness in a config must "
        "not brown out the Pi.",
        "",
        "## Power budget",
        "",
        "| rail | load | worst case |",
        "| --- | --- | --- |",
        "| 5 V | Raspberry Pi 4 B, no USB drives | 1.5 A (3.0 A if USB devices draw their full "
        "share) |",
        f"| 5 V | LEDs, uncapped | {n * 60 / 1000:.2f} A |",
        "| 5 V | the index hall switch, about 10 mA | 0.01 A |",
        f"| 3.3 V | {len(SQUARES)} TMAG5273 breakouts and 2 multiplexers, from the Pi's 3.3 V | "
        "0.04 A |",
        f"| 3.3 V | {len(SQUARES)} phototransistors (0.6 mA each in direct sun), the "
        "CD74HC4067 and the ADS1115 | 0.01 A |",
        "| 5 V | 74AHCT125, Pico | 0.03 A |",
        "| 5 V | total | 2.7 A (4.2 A with the Pi at 3 A): the 5 A buck has room |",
        # params.driver_current: the VREF assembly.md sets, the torque mechanics.md counts
        f"| 12 V | stepper (TMC2209 at {p.driver_current:g} A RMS phase current, at most) | "
        f"{p.driver_current:.1f} A |",
        f"| 12 V | buck converter input: 5.1 V x 4.2 A / 90 % / 12 V | {buck:.1f} A |",
        f"| 12 V | total | {p.driver_current + buck:.1f} A: the 4 A supply has room |",
        "",
        "Power the Pi from the buck through header pins 2 and 4 (as in wiring.svg; this bypasses "
        "the Pi's input fuse, so the 12 V side is fused and the buck set to 5.1 V before the Pi "
        "is connected) or from its own USB-C supply, with all grounds joined.",
        "",
        "## Pico option",
        "",
        "Add a **Raspberry Pi Pico** (RP2040, about 5 EUR) and a USB cable (pinmap.md). It "
        "makes the step pulses and reads the index sensor (and optionally the 16 square "
        "sensors) and talks to the Pi over USB serial (`/dev/orbito-ring`); it is powered from "
        "the Pi's USB port (about 25 mA).",
        "",
        f"Inner ring: {len(INNER_RING)} seats in the disc; outer ring: {len(OUTER_RING)} cups.",
    ]
