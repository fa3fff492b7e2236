"""The reference board's I2C, emulated: TMAG5273 sensors behind TCA9548A multiplexers on a
bus with busio.I2C's interface (``try_lock``, ``unlock``, ``writeto``, ``readfrom_into``,
``writeto_then_readfrom``), so adafruit's own TMAG5273 and TCA9548A drivers and the
board's backend (``hw/tmag.py``) run against it unchanged.

Each chip is its registers as its datasheet lays them out (``hw/tmag_chip.py``): the
TMAG5273's configuration, thresholds, results and conversion status with its POR flag, its
IDs; the TCA9548A's one control register. A sensor in wake-up and sleep mode converts every
SLEEPTIME on the board's clock while its field changes (and while its threshold holds) and
pulses the shared INT line when an enabled axis crosses its threshold; its results are its
last conversion's.

Faults, as a bench would make them: a sensor that stops acknowledging (``answering``), a
multiplexer channel dead, a multiplexer gone, a sensor reset (``power_cycle``: its
registers back to their power-on values, POR set), the bus held low (``hold_sda``: every
transfer fails until nine clocks free it, or for good).
"""

from __future__ import annotations

import errno
import random
from collections.abc import Callable
from typing import Any

from orbito_hw.hw import tmag_chip as chip
from orbito_hw.hw.interfaces import Clock, TimerHandle
from orbito_hw.sim.fake_i2c import LockedBus

Vector = tuple[float, float, float]


def _nak() -> OSError:
    return OSError(errno.EREMOTEIO, "Remote I/O error")


class FakeTmag5273:
    """One sensor: ``field()`` gives the true field at it (gauss); each conversion adds
    ``noise_g`` RMS an axis. ``pulse`` is the INT pin (open drain: the line's pulse)."""

    def __init__(self, clock: Clock, field: Callable[[], Vector], pulse: Callable[[], None],
                 noise_g: float = 0.0, seed: int = 0) -> None:  # fmt: skip
        self.clock = clock
        self.field = field
        self.pulse = pulse
        self.noise_g = noise_g
        self._noise = random.Random(seed)
        self.answering = True
        self.conversions = 0
        self.pulses = 0
        self._timer: TimerHandle | None = None
        self.power_cycle()

    def power_cycle(self) -> None:
        """A reset or brown-out: every register at its power-on value, POR set."""
        if getattr(self, "_timer", None) is not None:
            assert self._timer is not None
            self._timer.cancel()
            self._timer = None
        self.regs = bytearray(chip.REGISTERS)
        self.regs[chip.INT_CONFIG_1] = chip.INT_CONFIG_RESET
        self.regs[chip.I2C_ADDRESS] = chip.SENSOR_ADDRESS << 1
        self.regs[chip.DEVICE_ID] = chip.VERSION_X1
        self.regs[chip.MANUFACTURER_ID_LSB] = chip.MANUFACTURER_ID & 0xFF
        self.regs[chip.MANUFACTURER_ID_LSB + 1] = chip.MANUFACTURER_ID >> 8
        self.regs[chip.CONV_STATUS] = chip.POR
        self.pointer = 0
        self._since = self._converted = self.clock.now()

    # -- the bus side -------------------------------------------------------------------
    def write(self, data: bytes) -> None:
        if not data:
            return  # the probe's empty write: an acknowledge
        self.pointer = data[0] % chip.REGISTERS
        mode_before = self.mode
        for value in data[1:]:
            self._write_register(self.pointer, value)
            self.pointer = (self.pointer + 1) % chip.REGISTERS
        if self.mode != mode_before:
            self._since = self.clock.now()
            if self.mode in (chip.MODE_WAKE_SLEEP, chip.MODE_CONTINUOUS):
                # A mode that converts starts with a conversion (taken as done at once: the
                # backend waits CONVERSION_S before it reads the first one).
                if self._timer is not None:
                    self._timer.cancel()
                    self._timer = None
                self._convert()
        if len(data) > 1:
            self.field_changed()  # a new arming is compared at the next conversion

    def _write_register(self, register: int, value: int) -> None:
        if register <= chip.I2C_ADDRESS:
            self.regs[register] = value
        elif register == chip.CONV_STATUS and value & chip.POR:
            self.regs[chip.CONV_STATUS] &= ~chip.POR & 0xFF  # POR: write 1 to clear
        # the IDs and results are read-only

    def read(self, count: int) -> bytes:
        if chip.X_MSB_RESULT <= self.pointer <= chip.CONV_STATUS and self._stale():
            self._convert(quiet=True)  # the chip has converted since, on its own: fresh noise
        out = bytearray()
        for _ in range(count):
            out.append(self.regs[self.pointer])
            self.pointer = (self.pointer + 1) % chip.REGISTERS
        return bytes(out)

    # -- conversions ----------------------------------------------------------------------
    @property
    def mode(self) -> int:
        return self.regs[chip.DEVICE_CONFIG_2] & 0x3

    @property
    def period_s(self) -> float:
        sleep = self.regs[chip.SENSOR_CONFIG_1] & 0xF
        return chip.SLEEP_MS[min(sleep, len(chip.SLEEP_MS) - 1)] / 1000 + chip.CONVERSION_S

    def field_changed(self) -> None:
        """The field (or the arming) changed: converted at the next conversion's time."""
        if self.mode in (chip.MODE_WAKE_SLEEP, chip.MODE_CONTINUOUS) and self._timer is None:
            period = self.period_s
            wait = period - (self.clock.now() - self._since) % period
            if wait < period * 1e-6:  # on a conversion's time, as floats round it: the next
                wait += period
            self._timer = self.clock.call_later(wait, self._convert)

    def _stale(self) -> bool:
        """Whether a conversion of its own has come since the last one modelled (a sensor
        whose field holds still is not converted on the clock: the board's time runs on)."""
        converting = self.mode in (chip.MODE_WAKE_SLEEP, chip.MODE_CONTINUOUS)
        return converting and self.clock.now() - self._converted >= self.period_s

    def _convert(self, quiet: bool = False) -> None:
        """One conversion; ``quiet``: one the backend reads, its crossing already told."""
        if not quiet:
            self._timer = None
        self._converted = self.clock.now()
        self.conversions += 1
        field = self.field()
        counts = []
        for axis, value in enumerate(field):
            noisy = value + (self._noise.gauss(0.0, self.noise_g) if self.noise_g else 0.0)
            per_count = self._range_g(axis) / 32768
            counts.append(max(-32768, min(32767, round(noisy / per_count))))
        for axis, count in enumerate(counts):
            raw = count & 0xFFFF
            self.regs[chip.X_MSB_RESULT + 2 * axis] = raw >> 8
            self.regs[chip.X_MSB_RESULT + 2 * axis + 1] = raw & 0xFF
        status = self.regs[chip.CONV_STATUS]
        count = (status >> 5) + 1 & 0x7
        self.regs[chip.CONV_STATUS] = count << 5 | status & chip.POR | chip.RESULT_READY
        if quiet:
            return
        if self._crossed(counts):
            self.pulses += 1
            self.pulse()
            self.field_changed()  # still crossed: pulses again at each conversion
        elif self.mode == chip.MODE_CONTINUOUS:
            self.field_changed()

    def _range_g(self, axis: int) -> float:
        """An axis's full scale (gauss): X_Y_RANGE and Z_RANGE double the A1's 40 mT."""
        wide = self.regs[chip.SENSOR_CONFIG_2] >> (0 if axis == 2 else 1) & 1
        return chip.RANGE_MT * 10 * (2 if wide else 1)

    def _crossed(self, counts: list[int]) -> bool:
        """SLYS043 7.4.1.3 (threshold detection): THR_HYST 001 takes each threshold's 7 LSBs
        for both poles; with MAG_THR_DIR 0 an enabled axis whose field's size reaches its
        threshold sets INT, with 1 one whose size is under it."""
        r = self.regs
        int_config = r[chip.INT_CONFIG_1]
        if (self.mode != chip.MODE_WAKE_SLEEP or not int_config & chip.THRESHOLD_INTERRUPT
                or int_config & 1 or (int_config >> 2 & 0x7) != chip.INT_THROUGH_PIN):  # fmt: skip
            return False
        enabled = r[chip.SENSOR_CONFIG_1] >> 4
        below = bool(r[chip.SENSOR_CONFIG_2] & chip.THR_BELOW)
        for axis in range(3):
            if not enabled >> axis & 1 or enabled > chip.CHANNELS_XYZ:
                continue
            threshold = (r[chip.X_THR_CONFIG + axis] & 0x7F) * self._range_g(axis) / 128
            size = abs(counts[axis]) * self._range_g(axis) / 32768
            if (size < threshold) if below else (size >= threshold):
                return True
        return False


class FakeTca9548a:
    """The multiplexer: a control register, a bit a channel (several may be on at once)."""

    def __init__(self, address: int) -> None:
        self.address = address
        self.control = 0
        self.answering = True
        self.dead: set[int] = set()  # channels whose wires are cut

    def write(self, data: bytes) -> None:
        if data:
            self.control = data[-1]

    def read(self, count: int) -> bytes:
        return bytes([self.control]) * count


class EmulatedI2C(LockedBus):
    """The Pi's bus with the multiplexers on it, and a sensor behind each channel wired.

    ``collisions`` counts transfers that two sensors answered at once (two channels open
    onto the same address: their bits wired-AND); the backend must never make one."""

    def __init__(self) -> None:
        super().__init__()
        self.muxes: dict[int, FakeTca9548a] = {}
        self.behind: dict[tuple[int, int], FakeTmag5273] = {}
        self.devices: dict[int, Any] = {}  # chips on the bus itself (the light's ADS1115)
        self.collisions = 0
        self.held = False  # SDA held low by a device stuck in a read
        self.held_for_good = False  # ...and nine clocks do not free it
        self.clocked = 0

    def add_mux(self, address: int) -> FakeTca9548a:
        self.muxes[address] = mux = FakeTca9548a(address)
        return mux

    def hold_sda(self, for_good: bool = False) -> None:
        self.held, self.held_for_good = True, for_good

    def nine_clocks(self) -> bool:
        self.clocked += 1
        if not self.held_for_good:
            self.held = False
        return True

    # -- busio.I2C (its lock: LockedBus) -------------------------------------------------
    def _targets(self, address: int) -> list[Any]:
        self.transfer()
        if self.held:
            raise OSError(errno.EIO, "Input/output error")
        device = self.devices.get(address)
        if device is not None:
            return [device]
        mux = self.muxes.get(address)
        if mux is not None:
            if not mux.answering:
                raise _nak()
            return [mux]
        found: list[Any] = []
        for (mux_address, channel), chip_ in self.behind.items():
            m = self.muxes[mux_address]
            if (m.answering and m.control >> channel & 1 and channel not in m.dead
                    and chip_.answering and address == chip.SENSOR_ADDRESS):  # fmt: skip
                found.append(chip_)
        if not found:
            raise _nak()
        if len(found) > 1:
            self.collisions += 1
        return found

    def writeto(self, address: int, buffer: Any, *, start: int = 0, end: int | None = None) -> None:
        for target in self._targets(address):
            target.write(bytes(buffer[start:end]))

    def readfrom_into(self, address: int, buffer: Any, *, start: int = 0,
                      end: int | None = None) -> None:  # fmt: skip
        end = len(buffer) if end is None else end
        buffer[start:end] = self._and([t.read(end - start) for t in self._targets(address)])

    def writeto_then_readfrom(self, address: int, buffer_out: Any, buffer_in: Any, *,
                              out_start: int = 0, out_end: int | None = None,
                              in_start: int = 0, in_end: int | None = None) -> None:  # fmt: skip
        targets = self._targets(address)
        for target in targets:
            target.write(bytes(buffer_out[out_start:out_end]))
        in_end = len(buffer_in) if in_end is None else in_end
        buffer_in[in_start:in_end] = self._and([t.read(in_end - in_start) for t in targets])

    @staticmethod
    def _and(reads: list[bytes]) -> bytes:
        out = bytearray(reads[0])
        for other in reads[1:]:
            out = bytearray(a & b for a, b in zip(out, other, strict=True))
        return bytes(out)
