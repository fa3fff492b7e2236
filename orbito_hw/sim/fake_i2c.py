"""An ADS1115 on a fake I2C bus, behind a fake CD74HC4067: the analog front end of the
simulated board, at the interface adafruit_bus_device drives a bus with (``try_lock``,
``unlock``, ``writeto``, ``readfrom_into``, ``writeto_then_readfrom``), so adafruit's own
ADS1x15 code runs against it unchanged.

The chip is modelled by its registers: the pointer, the config register (its power-on
value, gain, data rate, mode and input multiplexer as the datasheet lays them out) and the
conversion register, a signed 16-bit code of the input's voltage at the gain's full scale.
In continuous mode the conversion register holds the last conversion finished: until two
conversion periods have passed since the multiplexer in front of it switched, that is the
previous square's voltage (a scan that does not wait for the settling reads the wrong
square). The time is the simulated board's clock.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from orbito_hw.hw.analog_front import DATA_RATES, FULL_SCALE_V, SETTLE_CONVERSIONS
from orbito_hw.hw.interfaces import Clock
from orbito_hw.sim.mock_pins import ShortMemoryPin

ADDRESS: Final = 0x48  # ADDR to GND
POINTER_CONVERSION: Final = 0x00
POINTER_CONFIG: Final = 0x01
POWER_ON_CONFIG: Final = 0x8583  # datasheet 8.6.3: single-shot, AIN0-AIN1, 2.048 V, 128 SPS
SINGLE_ENDED_MUX: Final = 4  # MUX[2:0] 100..111: AIN0..AIN3 against GND
GAIN_ORDER: Final = ("2/3", "1", "2", "4", "8", "16")  # PGA[2:0] 000..101 (110, 111: 0.256 V)
REMOTE_IO: Final = 121  # errno EREMOTEIO: no device acknowledged the address
IO_ERROR: Final = 5  # errno EIO: the bus itself failed


class FakeAds1115:
    """The chip: registers, and an input whose voltage ``source(input)`` gives for AIN0..3."""

    def __init__(self, clock: Clock, source: Callable[[int], float]) -> None:
        self.clock = clock
        self.source = source
        self.pointer = POINTER_CONVERSION
        self.config = POWER_ON_CONFIG
        self.conversions = 0
        self._held = 0  # the conversion register while the input settles
        self._switched = -1e9  # when the multiplexer in front of the input last switched

    def switched(self) -> None:
        """The multiplexer in front of the input is about to choose another square: the
        conversion register keeps what it last converted (the square before) until the
        input has settled."""
        now = self.clock.now()
        if now - self._switched >= self._settle_s:
            self._held = self._code()
        self._switched = now

    @property
    def _settle_s(self) -> float:
        return SETTLE_CONVERSIONS / self.data_rate

    @property
    def full_scale_v(self) -> float:
        pga = self.config >> 9 & 0x7
        return FULL_SCALE_V[GAIN_ORDER[min(pga, len(GAIN_ORDER) - 1)]]

    @property
    def data_rate(self) -> int:
        return DATA_RATES[self.config >> 5 & 0x7]

    @property
    def continuous(self) -> bool:
        return not self.config & 0x0100

    def _code(self) -> int:
        mux = self.config >> 12 & 0x7
        if mux < SINGLE_ENDED_MUX:
            return 0  # differential inputs: nothing is wired across them
        volts = self.source(mux - SINGLE_ENDED_MUX)
        code = round(volts / self.full_scale_v * 32768)
        return max(-32768, min(32767, code))

    def write(self, data: bytes) -> None:
        if not data:
            return  # the probe's empty write: an acknowledge
        self.pointer = data[0] & 0x3
        if len(data) == 3 and self.pointer == POINTER_CONFIG:
            self.config = (data[1] << 8 | data[2]) & 0x7FFF  # OS reads back 1 when idle
            self.config |= 0x8000
            self._held = self._code()  # a conversion of the input as it is now

    def read(self, count: int) -> bytes:
        if self.pointer == POINTER_CONFIG:
            value = self.config
        elif self.pointer == POINTER_CONVERSION:
            value = self._conversion() & 0xFFFF
        else:
            value = 0x8000 if self.pointer == 0x02 else 0x7FFF  # the thresholds' resets
        return bytes([value >> 8 & 0xFF, value & 0xFF])[:count]

    def _conversion(self) -> int:
        self.conversions += 1
        if self.continuous and self.clock.now() - self._switched < self._settle_s:
            return self._held
        self._held = self._code()
        return self._held


class LockedBus:
    """busio.I2C's lock, as the simulated buses keep it: ``transfer`` counts a transfer made
    under it and refuses one made without (adafruit_bus_device always locks first)."""

    def __init__(self) -> None:
        self.locked = False
        self.transfers = 0

    def try_lock(self) -> bool:
        if self.locked:
            return False
        self.locked = True
        return True

    def unlock(self) -> None:
        self.locked = False

    def transfer(self) -> None:
        if not self.locked:
            raise RuntimeError("the I2C bus is used without its lock")
        self.transfers += 1


class FakeI2C(LockedBus):
    """A bus with one ADS1115 on it; ``gone`` makes every transfer fail, as a bus whose
    chip lost its power or its wires does."""

    def __init__(self, chip: FakeAds1115, address: int = ADDRESS) -> None:
        super().__init__()
        self.chip = chip
        self.address = address
        self.gone = False

    def _device(self, address: int) -> FakeAds1115:
        self.transfer()
        if self.gone:
            raise OSError(IO_ERROR, "Input/output error")
        if address != self.address:
            raise OSError(REMOTE_IO, "Remote I/O error")
        return self.chip

    def writeto(
        self, address: int, buffer: bytes | bytearray, *, start: int = 0, end: int | None = None
    ) -> None:
        self._device(address).write(bytes(buffer[start:end]))

    def readfrom_into(
        self, address: int, buffer: bytearray, *, start: int = 0, end: int | None = None
    ) -> None:
        end = len(buffer) if end is None else end
        buffer[start:end] = self._device(address).read(end - start)

    def writeto_then_readfrom(
        self,
        address: int,
        buffer_out: bytes | bytearray,
        buffer_in: bytearray,
        *,
        out_start: int = 0,
        out_end: int | None = None,
        in_start: int = 0,
        in_end: int | None = None,
    ) -> None:
        chip = self._device(address)
        chip.write(bytes(buffer_out[out_start:out_end]))
        in_end = len(buffer_in) if in_end is None else in_end
        buffer_in[in_start:in_end] = chip.read(in_end - in_start)


class MuxLine(ShortMemoryPin):
    """A select line of the multiplexer, as gpiozero's mock pin: the chip behind the mux
    hears of each change before it happens (its input switches to another square). Its
    history is bounded as every simulated pin's (``sim/mock_pins.py``): the scan switches
    the lines 16 times a scan, for as long as the board runs."""

    def __init__(self, factory: Any, info: Any, on_change: Callable[[], None]) -> None:
        super().__init__(factory, info)
        self.on_change = on_change

    def _change_state(self, value: bool) -> bool:
        if bool(value) != bool(self.state):
            self.on_change()  # before the line moves: the chip holds what it had
        changed: bool = super()._change_state(value)
        return changed
