"""The Pi's pins as the config sees them: which the LED strip may use, which are never a
board's, where each sits on the header, and the clashes between the parts' pins."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Final

from orbito_hw.lang import _

# rpi_ws281x (behind Adafruit's neopixel on a Pi Zero 2 W to 4) can only drive a strip from
# SPI (10, no root needed), PWM (12, 18) or PCM (21). A Pi 5's PIO drives any pin, 10 included.
NEOPIXEL_PINS: Final = (10, 12, 18, 21)
HAT_EEPROM_PINS: Final = (0, 1)
"""The HAT ID EEPROM's bus (ID_SD, ID_SC): read by the firmware at boot, never a board's pin
(hardware/pinmap.md)."""
SPI_BUS_PINS: Final = (9, 10, 11)
"""SPI0's MISO, MOSI and SCLK: with the LEDs on GPIO 10 the bus owns all three."""
# BCM GPIO -> physical pin on the 40-pin header (the same on every Pi since the B+).
HEADER_PIN: Final[Mapping[int, int]] = {
    2: 3, 3: 5, 4: 7, 14: 8, 15: 10, 17: 11, 18: 12, 27: 13, 22: 15, 23: 16, 24: 18,
    10: 19, 9: 21, 25: 22, 11: 23, 8: 24, 7: 26, 0: 27, 1: 28, 5: 29, 6: 31, 12: 32,
    13: 33, 19: 35, 16: 36, 26: 37, 20: 38, 21: 40,
}  # fmt: skip


def pin_clashes(
    used: list[tuple[str, int]], lights: int | None, i2c_bus: int
) -> Iterator[tuple[str, str]]:
    """(key path, problem) for each pin of ``used`` (key path, BCM pin, in file order) that is
    taken twice, the HAT EEPROM's, or on the SPI bus of the LEDs (``lights``: their pin)."""
    owner: dict[int, str] = {}
    for key, pin in used:
        i2c = key == "analog.bus"
        if pin in HAT_EEPROM_PINS:
            yield (
                key,
                _("pin {pin} is the HAT ID EEPROM's bus: never a board's pin").format(pin=pin),
            )
        elif lights in SPI_BUS_PINS and pin in SPI_BUS_PINS and pin != lights:
            text = _("pin {pin} is on the SPI bus that drives the LEDs (GPIO 10)")
            yield key, text.format(pin=pin)
        elif pin in owner and (i2c or owner[pin] == "analog.bus"):
            user = owner[pin] if i2c else key
            text = _("pin {pin} is I2C bus {bus}'s, for the colour sensors' ADC")
            yield user, text.format(pin=pin, bus=i2c_bus)
        elif pin in owner:
            yield key, _("pin {pin} is also used by {user}").format(pin=pin, user=owner[pin])
        else:
            owner[pin] = key
