"""The config's ``[tmag]`` table: the reference board's TMAG5273 sensors on I2C
(``backends.sensors = "tmag"``). Its defaults are ``hw/tmag_chip.TmagConfig``'s, the one
source the backend, the simulated board and hardware/make_wiring.py read too.

Read by config.py's reader, in its words: a wrong multiplexer address, channel or INT pin
is named by its key.
"""

from __future__ import annotations

from dataclasses import fields
from typing import Any, Final

from orbito_hw.app import config_checks as checks
from orbito_hw.app.config_analog import I2C_BUSES, I2C_PINS, Reader
from orbito_hw.hw.tmag_chip import MUX_BASE, MUX_CHANNELS, SLEEP_MS, TmagConfig
from orbito_hw.lang import _
from orbito_hw.rules.squares import SQUARE_NAMES

MUX_ADDRESSES: Final = tuple(range(MUX_BASE, MUX_BASE + 8))  # A2 A1 A0: 0x70 .. 0x77
TMAG_ADDRESSES: Final = (0x35, 0x22, 0x78, 0x44)  # the A1, B1, C1 and D1 parts' own


def _mux_address(value: Any) -> str | None:
    sentence = _("{value} is not a TCA9548A's address (0x70..0x77)")
    return checks.i2c_address(value, MUX_ADDRESSES, sentence)


def _sensor_address(value: Any) -> str | None:
    sentence = _("{value} is not a TMAG5273's address (0x35 on the A1 breakouts; 0x22, 0x78, 0x44)")
    return checks.i2c_address(value, TMAG_ADDRESSES, sentence)


def read_tmag(self: Reader, top: dict[str, Any], chosen: bool, colour: bool) -> TmagConfig:
    """The ``[tmag]`` table; every key checked (its problems only count when ``chosen``:
    a board on other sensors may keep the table). With ``colour`` the board tells colour by
    light (``[light]``, config_light.py)."""
    names = tuple(f.name for f in fields(TmagConfig))
    t = self.table(top, "tmag", names)
    d = TmagConfig()
    bus = self.get(t, "tmag.bus", checks.int_in(I2C_BUSES.start, I2C_BUSES[-1]), d.bus) or d.bus
    muxes = _muxes(self, t.get("muxes", list(d.muxes)))
    listed = t.get("muxes", d.muxes)  # a wrong address is its own problem, not the channels'
    channels = _channels(
        self,
        t.get("channels", list(d.channels)),
        len(listed) if isinstance(listed, (list, tuple)) else len(d.muxes),
    )
    address = self.get(t, "tmag.address", _sensor_address, d.address) or d.address
    int_pin = self.pin(t, "tmag.int_pin", False) if "int_pin" in t else d.int_pin
    sleep = self.get(t, "tmag.sleep_ms", checks.one_of_ints(SLEEP_MS[:8]), d.sleep_ms)
    check = self.get(t, "tmag.check_s", checks.number_in(0.5, 60.0), d.check_s)
    threshold = self.get(t, "tmag.threshold_g", checks.number_in(2.0, 100.0), d.threshold_g)
    hysteresis = self.get(t, "tmag.hysteresis_g", checks.number_in(0.5, 50.0), d.hysteresis_g)
    config = TmagConfig(
        bus=bus,
        muxes=muxes or d.muxes,
        address=address,
        channels=channels or d.channels,
        int_pin=d.int_pin if int_pin is None else int_pin,
        sleep_ms=sleep or d.sleep_ms,
        check_s=float(check or d.check_s),
        threshold_g=float(threshold or d.threshold_g),
        hysteresis_g=float(hysteresis or d.hysteresis_g),
    )
    if config.hysteresis_g >= config.threshold_g:
        text = _("{value} G is not under tmag.threshold_g ({threshold} G)")
        self.problem(
            "tmag.hysteresis_g",
            text.format(value=f"{config.hysteresis_g:g}", threshold=f"{config.threshold_g:g}"),
        )
    return config


def _muxes(self: Reader, value: Any) -> tuple[int, ...]:
    if not isinstance(value, list) or not 1 <= len(value) <= 8:
        text = _("expected a list of 1 to 8 TCA9548A addresses, like [0x70, 0x71]")
        self.problem("tmag.muxes", text)
        return ()
    out = []
    for n, item in enumerate(value):
        problem = _mux_address(item)
        if problem:
            self.problem(f"tmag.muxes[{n}]", problem)
        elif item in out:
            self.problem(f"tmag.muxes[{n}]", _("0x{value:02x} is listed twice").format(value=item))
        else:
            out.append(item)
    return tuple(out) if len(out) == len(value) else ()


def _channels(self: Reader, value: Any, muxes: int) -> tuple[int, ...]:
    """16 channel numbers, square a1's first: multiplexer n // 8, its channel n % 8."""
    if not isinstance(value, list) or len(value) != len(SQUARE_NAMES):
        self.problem("tmag.channels", _("expected 16 channel numbers, square a1's first"))
        return ()
    top = max(muxes, 1) * MUX_CHANNELS - 1
    seen: dict[int, str] = {}
    ok = True
    for name, item in zip(SQUARE_NAMES, value, strict=True):
        key = f"tmag.channels.{name}"
        problem = checks.int_in(0, top)(item)
        if problem:
            self.problem(key, problem)
            ok = False
        elif item in seen:
            text = _("channel {value} is also square {other}'s: one sensor a channel")
            self.problem(key, text.format(value=item, other=seen[item]))
            ok = False
        else:
            seen[item] = name
    return tuple(value) if ok else ()


def tmag_pins(config: TmagConfig) -> list[tuple[str, int]]:
    """(key path, BCM pin) of the pins the tmag sensors use: the INT line and the bus's."""
    bus = [("tmag.bus", p) for p in I2C_PINS.get(config.bus, ())]
    return [*bus, ("tmag.int_pin", config.int_pin)]  # a clash names the INT pin


def described(config: TmagConfig) -> str:
    muxes = ", ".join(f"0x{a:02x}" for a in config.muxes)
    return _(
        "16 TMAG5273 at 0x{address:02x} behind the TCA9548A at {muxes} on I2C bus {bus}, "
        "INT on GPIO {pin}"
    ).format(address=config.address, muxes=muxes, bus=config.bus, pin=config.int_pin)
