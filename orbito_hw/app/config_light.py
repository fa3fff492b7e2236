"""The config's ``[light]`` table: the reference board's colour told by light
(``backends.sensors = "tmag"`` with ``sensors.colour = true``): each square's phototransistor
through a CD74HC4067 into an ADS1115 on the sensors' I2C. Its defaults are
``hw/light_front.LightConfig``'s, the one source the backend, the simulated board and
hardware/make_wiring.py read too.

Read by config.py's reader, in its words: a wrong select pin, address or input is named by
its key; a pin that clashes with another part's is named by config.py's pin check.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any

from orbito_hw.app import config_checks as checks
from orbito_hw.app.config_analog import I2C_BUSES, Reader, ads1115_address
from orbito_hw.hw.light_front import MUX_LINES, LightConfig
from orbito_hw.lang import _

MAINS_HZ = (0, 50, 60)
"""0: the reading tells the mains by which flicker fits the room's light better."""
FLASH_MS = (2.0, 20.0)
"""The flash's bounds: two conversions lit at the least; past 20 ms a blink the eye sees."""


def read_light(self: Reader, top: dict[str, Any], chosen: bool) -> LightConfig:
    """The ``[light]`` table; every key checked (the select pins are needed only when the
    board tells colour by light: ``chosen``)."""
    names = tuple(f.name for f in fields(LightConfig))
    t = self.table(top, "light", names)
    d = LightConfig()
    bus = self.get(t, "light.bus", checks.int_in(I2C_BUSES.start, I2C_BUSES[-1]), d.bus) or d.bus
    address = self.get(t, "light.address", ads1115_address, d.address) or d.address
    channel = self.get(t, "light.channel", checks.int_in(0, 3), d.channel)
    flash = self.get(t, "light.flash_ms", checks.number_in(*FLASH_MS), d.flash_ms)
    mains = self.get(t, "light.mains_hz", checks.one_of_ints(MAINS_HZ), d.mains_hz)
    return LightConfig(
        select_pins=_select_pins(self, t.get("select_pins", list(d.select_pins))) or d.select_pins,
        bus=bus,
        address=address,
        channel=d.channel if channel is None else channel,
        flash_ms=float(flash or d.flash_ms),
        mains_hz=d.mains_hz if mains is None else mains,
    )


def _select_pins(self: Reader, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) != MUX_LINES:
        text = _("expected the 4 BCM pins on the multiplexer's S0..S3, like [22, 27, 26, 16]")
        self.problem("light.select_pins", text)
        return ()
    out = []
    for n, item in enumerate(value):
        problem = checks.pin(item)
        if problem:
            self.problem(f"light.select_pins[{n}]", problem)
        else:
            out.append(item)
    return tuple(out) if len(out) == len(value) else ()


def light_pins(config: LightConfig, chosen: bool = True) -> list[tuple[str, int]]:
    """(key path, BCM pin) of the pins colour by light uses (none unless ``chosen``): the
    multiplexer's select lines (its ADC is on the sensors' bus, whose pins [tmag] names)."""
    if not chosen:
        return []
    return [(f"light.select_pins[{n}]", p) for n, p in enumerate(config.select_pins)]


def off_bus(bus: int, sensors_bus: int) -> str:
    """The phototransistors' ADC must be on the sensors' bus: the reading shares it."""
    text = _("bus {bus} is not the sensors' (tmag.bus = {sensors}): the ADS1115 shares their bus")
    return text.format(bus=bus, sensors=sensors_bus)


def described(config: LightConfig) -> str:
    pins = ", ".join(str(p) for p in config.select_pins)
    return _(
        "by light: a phototransistor a square through a CD74HC4067 (S0..S3 on GPIO {pins}) "
        "into the ADS1115 at 0x{address:02x}, input {channel}, on I2C bus {bus}; a red flash "
        "of {flash} ms"
    ).format(pins=pins, address=config.address, channel=config.channel, bus=config.bus,
             flash=f"{config.flash_ms:g}")  # fmt: skip
