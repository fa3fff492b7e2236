"""What scanning a colour board's 16 linear hall sensors costs the Pi, idle.

    python benchmarks/analog_scan.py [SECONDS] [SCAN_MS]

Runs the analog backend (hw/analog.py) as a real board does: its scan thread on the wall
clock, sleeping between readings, adafruit's own ADS1115 code on the emulated chip of
sim/fake_i2c.py (registers only: no bus time), the multiplexer's select lines on gpiozero's
mock pins. It prints the scan's timing by design (the mux's settling at the data rate),
what the thread did (scans, readings, I2C transfers per reading) and the CPU it took, as a
share of one core: the Python side of a scan, which a Pi pays as well. On a real bus each
reading adds one 2-byte I2C read (0.3 ms at 100 kHz, spent asleep in the kernel).
Measured on the development machine: 2.6 % of a core with the default 100 ms scan
(2.8 ms a scan, of which half is the emulated chip and the mock pins).
"""

from __future__ import annotations

import resource
import sys
import threading
import time

from gpiozero.pins.mock import MockFactory

from orbito_hw.hw.analog import AnalogSquares
from orbito_hw.hw.analog_front import FrontEnd
from orbito_hw.hw.hall import default_calibration
from orbito_hw.rules.squares import SQUARES
from orbito_hw.sim.fake_i2c import FakeAds1115, FakeI2C, MuxLine

I2C_READ_S = (1 + 2) * 9 / 100_000 + 50e-6  # address and 2 bytes at 100 kHz, start and stop


class WallClock:
    """The wall clock; what the scan posts runs at once (no loop to hand it to here)."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: object) -> threading.Timer:
        raise NotImplementedError("the thread scanner sets no timers")

    def post(self, callback: object) -> None:
        callback()  # type: ignore[operator]


def cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> int:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    scan_ms = int(sys.argv[2]) if len(sys.argv) > 2 else FrontEnd().scan_ms
    front = FrontEnd(select_pins=(5, 6, 13, 16), scan_ms=scan_ms)
    clock = WallClock()
    factory = MockFactory()
    field = [0.0] * len(SQUARES)
    field[3], field[12] = 180.0, -170.0  # a black marble on d1, a white one on a4
    lines: list[MuxLine] = []

    def volts(_input: int) -> float:
        return front.volts(field[sum(bool(line.state) << n for n, line in enumerate(lines))])

    chip = FakeAds1115(clock, volts)  # type: ignore[arg-type]
    lines += [factory.pin(p, pin_class=MuxLine, on_change=chip.switched) for p in front.select_pins]
    bus = FakeI2C(chip)
    per_square = front.settle_s + I2C_READ_S
    scan = len(SQUARES) * per_square
    print(f"by design: {front.data_rate} samples/s, {front.settle_s * 1e3:.2f} ms settling a "
          f"square; with a 100 kHz read {per_square * 1e3:.2f} ms a square, "
          f"{scan * 1e3:.0f} ms a scan, one every {front.scan_s * 1e3:.0f} ms")  # fmt: skip
    sensors = AnalogSquares(front, clock, default_calibration(), factory, bus)  # type: ignore[arg-type]
    try:
        time.sleep(0.5)  # past the first scan and the thread's start
        scans, readings, transfers = sensors.scans, sensors.core.readings, bus.transfers
        start_cpu, start = cpu(), time.monotonic()
        time.sleep(seconds)  # the main thread sleeps: the CPU measured is the scan's
        used, wall = cpu() - start_cpu, time.monotonic() - start
        scans = sensors.scans - scans
        readings = sensors.core.readings - readings
        transfers = bus.transfers - transfers
        assert sensors.colours() == (1 << 3, 1 << 12), "the scan read the marbles wrong"
    finally:
        sensors.close()
    print(f"measured over {wall:.1f} s: {scans} scans ({scans / wall:.1f}/s), {readings} "
          f"readings, {transfers / max(readings, 1):.2f} I2C transfers a reading")  # fmt: skip
    print(f"CPU: {used * 1e3:.0f} ms, {100 * used / wall:.2f} % of a core, "
          f"{used / max(scans, 1) * 1e3:.2f} ms a scan")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
