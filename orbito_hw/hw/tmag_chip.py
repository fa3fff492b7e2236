"""The TMAG5273 board's facts, free of any library: the chips' registers as their datasheets
lay them out, the reference board's I2C wiring, and the magnetic model's figures.

One source for each: the backend (``hw/tmag.py``) programs the sensors with these registers,
the emulated bus (``sim/tmag_bus.py``) answers with them, the config (``[tmag]``) takes its
defaults from ``TmagConfig``, and ``hardware/make_wiring.py`` draws the board from them
(this module imports nothing above ``hw``).

TI TMAG5273 (datasheet SLYS043, section 7.6, "Register Map"); the A1 variant answers at
0x35, the address every ready-made breakout ships with. TI TCA9548A (SCPS207, 8.6): one
control register, a bit per downstream channel, written and read with no register address.
"""

from __future__ import annotations

import json
import tomllib
from dataclasses import dataclass, field, fields
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, Final

# --- the TMAG5273's registers (SLYS043 7.6) -------------------------------------------------
DEVICE_CONFIG_1: Final = 0x00  # CRC_EN 7, MAG_TEMPCO 6:5, CONV_AVG 4:2, I2C_RD 1:0
DEVICE_CONFIG_2: Final = 0x01  # THR_HYST 7:5, LP_LN 4, GLITCH 3, TRIGGER_MODE 2, OP_MODE 1:0
SENSOR_CONFIG_1: Final = 0x02  # MAG_CH_EN 7:4, SLEEPTIME 3:0
SENSOR_CONFIG_2: Final = 0x03  # THRX_COUNT 6, MAG_THR_DIR 5, MAG_GAIN_CH 4, ANGLE_EN 3:2,
#                                X_Y_RANGE 1, Z_RANGE 0
X_THR_CONFIG: Final = 0x04  # and Y 0x05, Z 0x06: a threshold each, range / 128 an LSB
T_CONFIG: Final = 0x07
INT_CONFIG_1: Final = 0x08  # RSLT_INT 7, THRSLD_INT 6, INT_STATE 5 (1: a 10 us pulse),
#                             INT_MODE 4:2, MASK_INTB 0
I2C_ADDRESS: Final = 0x0C
DEVICE_ID: Final = 0x0D  # VER 1:0: 1 the x1 parts (+-40/80 mT), 2 the x2 (+-133/266 mT)
MANUFACTURER_ID_LSB: Final = 0x0E  # 0x49, then 0x54 ("TI")
X_MSB_RESULT: Final = 0x12  # X, Y, Z: big-endian two's complement, full range at +-32768
CONV_STATUS: Final = 0x18  # SET_COUNT 7:5, POR 4 (write 1 to clear), DIAG 1, RESULT 0
DEVICE_STATUS: Final = 0x1C
REGISTERS: Final = 0x1D  # 0x00 .. 0x1C

MANUFACTURER_ID: Final = 0x5449
VERSION_X1: Final = 1
POR: Final = 0x10  # CONV_STATUS: the device has powered up (or reset) since POR was cleared
RESULT_READY: Final = 0x01
INT_CONFIG_RESET: Final = 0x01  # MASK_INTB set: the INT pin is quiet after a reset

MODE_STANDBY: Final = 0
MODE_CONTINUOUS: Final = 2
MODE_WAKE_SLEEP: Final = 3
CHANNELS_XYZ: Final = 0x7
AVERAGE_32X: Final = 0x5
HYST_ABSOLUTE: Final = 0x1  # THR_HYST 001: each threshold's 7 LSBs, both poles alike
THR_BELOW: Final = 0x20  # MAG_THR_DIR: interrupt when a field falls under its threshold
INT_THROUGH_PIN: Final = 0x1
THRESHOLD_INTERRUPT: Final = 0x40
INT_PULSED: Final = 0x20
THRESHOLD_MAX: Final = 127  # the 7 LSBs' top: a threshold no field over it reaches

RANGE_MT: Final = 40.0  # the A1's narrow range (X_Y_RANGE = Z_RANGE = 0): +-40 mT
GAUSS_PER_COUNT: Final = RANGE_MT * 10 / 32768  # a result's LSB, 0.0122 G
GAUSS_PER_THRESHOLD: Final = RANGE_MT * 10 / 128  # a threshold's LSB, 3.125 G

SLEEP_MS: Final = (1, 5, 10, 15, 20, 30, 50, 100, 500, 1000, 2000, 5000, 20000)
"""SLEEPTIME 0..12: the wait between two conversions in wake-up and sleep mode."""
CONVERSION_S: Final = 0.0066
"""Three axes at 32x averaging (the datasheet's 2.2 ms an axis), one conversion."""

# --- the TCA9548A (SCPS207 8.6.1) -----------------------------------------------------------
MUX_CHANNELS: Final = 8
MUX_BASE: Final = 0x70  # A2 A1 A0 to GND; 0x70 .. 0x77 with them tied high

# --- the reference board --------------------------------------------------------------------
SENSOR_ADDRESS: Final = 0x35
"""Every breakout's TMAG5273A1 at its standard address: the multiplexers keep them apart."""
MUX_ADDRESSES: Final = (0x70, 0x71)
"""Two TCA9548A: the first's A0 to GND, the second's A0 bridged high."""
INT_PIN: Final = 5
"""BCM GPIO 5 (header pin 29; pulled up from reset): every sensor's open-drain INT, wired
together."""
SDA_PIN: Final = 2
SCL_PIN: Final = 3


def square_channel(channel: int) -> tuple[int, int]:
    """A channel number of the config's ``tmag.channels`` (0..15): (multiplexer, its channel)."""
    return divmod(channel, MUX_CHANNELS)


@dataclass(frozen=True, slots=True)
class TmagConfig:
    """The config's ``[tmag]``: the sensors' bus, multiplexers and INT line, and how they
    are read. ``channels[n]`` is square n's: multiplexer ``channels[n] // 8``, its channel
    ``channels[n] % 8``. ``threshold_g`` and ``hysteresis_g`` are the uncalibrated board's
    (the model's figures); ``doctor``'s calibration gives each square its own."""

    bus: int = 1
    muxes: tuple[int, ...] = MUX_ADDRESSES
    address: int = SENSOR_ADDRESS
    channels: tuple[int, ...] = tuple(range(16))
    int_pin: int = INT_PIN
    sleep_ms: int = 20
    check_s: float = 2.0
    threshold_g: float = field(default_factory=lambda: _model().threshold_g)
    hysteresis_g: float = field(default_factory=lambda: _model().hysteresis_g)

    def where(self, square_name: str, square: int) -> str:
        """A square's sensor as a fault names it."""
        mux, channel = square_channel(self.channels[square])
        return (
            f"the sensor under {square_name} (TMAG5273 0x{self.address:02x} on channel "
            f"{channel} of the TCA9548A at 0x{self.muxes[mux]:02x})"
        )


def read_tmag(path: Path) -> TmagConfig:
    """The ``[tmag]`` of the config file at ``path`` (the shipped example): each key the
    table has, the defaults for the others (hardware/make_wiring.py draws from it)."""
    with path.open("rb") as file:
        table: dict[str, Any] = tomllib.load(file).get("tmag", {})
    names = {f.name for f in fields(TmagConfig)}
    given: dict[str, Any] = {
        k: tuple(v) if isinstance(v, list) else v for k, v in table.items() if k in names
    }
    return TmagConfig(**given)


# --- the magnetic model's figures ----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Figures:
    """The model's figures for the printed marble over a TMAG5273 (gauss), from the table
    ``scripts/tmag_fields.py`` writes (orbito_hw/data/tmag_fields.json)."""

    weakest_g: float
    strongest_g: float
    empty_g: float
    operate_g: float
    release_g: float
    threshold_g: float
    offset_g: float
    drift_g: float
    noise_rms_g: float
    poses_black_g: tuple[tuple[float, float, float], ...]

    @property
    def hysteresis_g(self) -> float:
        """Half the band between operate and release: a square turns present at
        threshold + hysteresis and empty again under threshold - hysteresis."""
        return round((self.operate_g - self.release_g) / 2, 2)


def _model() -> Figures:
    return figures()


@cache
def figures() -> Figures:
    text = (resources.files("orbito_hw") / "data" / "tmag_fields.json").read_text(encoding="utf-8")
    data = json.loads(text)
    names = [f.name for f in fields(Figures)]
    values = {n: data[n] for n in names if n != "poses_black_g"}
    poses = tuple((float(x), float(y), float(z)) for x, y, z in data["poses_black_g"])
    return Figures(**values, poses_black_g=poses)
