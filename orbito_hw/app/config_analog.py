"""The config's ``[analog]`` table: the colour board's analog front end (``sensors.colour``).

Read by config.py's reader (``read_analog``), in its words: every problem named by its key.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, Final, Protocol

from orbito_hw.app import config_checks as checks
from orbito_hw.hw.analog_front import DATA_RATES, FULL_SCALE_V, MUX_LINES, FrontEnd
from orbito_hw.hw.hall import DESIGN
from orbito_hw.lang import _

I2C_PINS: Final[Mapping[int, tuple[int, int]]] = {1: (2, 3)}
"""The header's I2C bus (SDA, SCL): /dev/i2c-1 on every Pi since the B+ (bus 0 is the HAT
EEPROM's, ``HAT_EEPROM_PINS``; others come from overlays on pins of their own)."""
I2C_BUSES: Final = range(1, 23)  # /dev/i2c-1 and the buses overlays add (i2c-gpio, i2c3..6)
ADS1115_ADDRESSES: Final = (0x48, 0x49, 0x4A, 0x4B)  # ADDR to GND, VDD, SDA, SCL


def ads1115_address(value: Any) -> str | None:
    """The ADS1115's address check: the analog build's and the light's ADC alike."""
    sentence = _("{value} is not an ADS1115's address (0x48, 0x49, 0x4a, 0x4b)")
    return checks.i2c_address(value, ADS1115_ADDRESSES, sentence)


class Reader(Protocol):
    """config.py's reader, as this table needs it."""

    problems: list[str]

    def problem(self, key: str, text: str) -> None: ...

    def table(
        self, parent: Mapping[str, Any], path: str, known: tuple[str, ...]
    ) -> dict[str, Any]: ...

    def get(
        self, table: Mapping[str, Any], path: str, check: checks.Check, default: Any = ...
    ) -> Any: ...

    def pin(self, table: Mapping[str, Any], path: str, needed: bool) -> int | None: ...


NOMINAL: Final = FrontEnd()


@dataclass(frozen=True, slots=True)
class AnalogConfig:
    """The colour board's analog front end (``sensors.colour = true``): the squares' linear
    hall sensors through a CD74HC4067 multiplexer into an ADS1115 on the Pi's I2C (or,
    with ``backends.sensors = "serial"``, into the Pico's own ADC: its firmware's pins)."""

    bus: int = NOMINAL.bus
    address: int = NOMINAL.address
    channel: int = NOMINAL.channel
    gain: str = NOMINAL.gain
    data_rate: int = NOMINAL.data_rate
    s0_pin: int | None = None
    s1_pin: int | None = None
    s2_pin: int | None = None
    s3_pin: int | None = None
    zero_v: float = NOMINAL.zero_v
    mv_per_gauss: float = NOMINAL.mv_per_gauss
    scan_ms: int = NOMINAL.scan_ms

    def select_pins(self) -> tuple[int | None, ...]:
        return (self.s0_pin, self.s1_pin, self.s2_pin, self.s3_pin)

    def described(self, backend: str) -> str:
        """The ADC and the scan, as ``config check`` sums them up."""
        adc = "the Pico's ADC" if backend == "serial" else self.front_end().where
        return f"{adc}, a scan every {self.scan_ms} ms"

    def front_end(self) -> FrontEnd:
        """The front end as the backend takes it (a select pin not given: -1)."""
        return FrontEnd(
            select_pins=tuple(-1 if p is None else p for p in self.select_pins()),
            bus=self.bus,
            address=self.address,
            channel=self.channel,
            gain=self.gain,
            data_rate=self.data_rate,
            zero_v=self.zero_v,
            mv_per_gauss=self.mv_per_gauss,
            scan_ms=self.scan_ms,
        )


def read_analog(self: Reader, top: dict[str, Any], colour: bool, gpio: bool) -> AnalogConfig:
    names = tuple(f.name for f in fields(AnalogConfig))
    t = self.table(top, "analog", names)
    d = AnalogConfig()
    pins = gpio and colour  # the Pico's ADC has its select lines in its firmware
    bus = self.get(t, "analog.bus", checks.int_in(I2C_BUSES.start, I2C_BUSES[-1]), d.bus)
    config = AnalogConfig(
        bus=bus or d.bus,
        address=self.get(t, "analog.address", ads1115_address, d.address) or d.address,
        channel=self.get(t, "analog.channel", checks.int_in(0, 3), d.channel) or 0,
        gain=str(
            self.get(t, "analog.gain", checks.adc_gain(tuple(FULL_SCALE_V)), d.gain) or d.gain
        ),
        data_rate=self.get(t, "analog.data_rate", checks.one_of_ints(DATA_RATES), d.data_rate)
        or d.data_rate,
        s0_pin=self.pin(t, "analog.s0_pin", pins),
        s1_pin=self.pin(t, "analog.s1_pin", pins),
        s2_pin=self.pin(t, "analog.s2_pin", pins),
        s3_pin=self.pin(t, "analog.s3_pin", pins),
        zero_v=float(self.get(t, "analog.zero_v", checks.positive(5), d.zero_v) or d.zero_v),
        mv_per_gauss=float(
            self.get(t, "analog.mv_per_gauss", checks.nonzero(100), d.mv_per_gauss)
            or d.mv_per_gauss
        ),
        scan_ms=self.get(t, "analog.scan_ms", checks.int_in(10, 1000), d.scan_ms) or d.scan_ms,
    )
    assert len(config.select_pins()) == MUX_LINES
    if colour:
        check_range(self, config)
    return config


def check_range(self: Reader, a: AnalogConfig) -> None:
    """The sensors' whole swing must fit the ADC's input: a marble's field read past
    the full scale (or under 0 V) clips, and strong marbles would read alike."""
    if "analog.gain" in " ".join(self.problems) or "analog.zero_v" in " ".join(self.problems):
        return
    swing = max(abs(DESIGN.black_strongest_g), abs(DESIGN.white_strongest_g))
    top = a.zero_v + swing * abs(a.mv_per_gauss) / 1000
    bottom = a.zero_v - swing * abs(a.mv_per_gauss) / 1000
    full = FULL_SCALE_V[a.gain]
    if top > full:
        self.problem(
            "analog.gain",
            f"{a.gain} reads up to {full:g} V, but a marble's strongest field puts "
            f"{top:.2f} V on the sensor's output (use a gain with a larger full scale)",
        )
    elif bottom < 0:
        self.problem(
            "analog.zero_v",
            f"{a.zero_v:g} V less a marble's strongest field is {bottom:.2f} V: under 0 V, "
            "which the ADC cannot read (check analog.mv_per_gauss)",
        )
