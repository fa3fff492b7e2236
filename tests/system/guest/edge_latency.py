"""Sensor-event latency through a pin factory, in the VM (tests/system/gpiod_checks.py): the
board's own sensor part (hw/gpio.py's GpioSensors, on the controller's LoopClock) opened with
one factory, a square's gpio-sim line flipped from outside (its ``pull`` file, as the world
does) and the time until the square's change is on the event loop, where the referee gets it.

  edge_latency.py CONFIG LIBRARY ROUNDS
      prints: LIBRARY median p90 max (ms) N-heard FACTORY MISSED
      or, when the library could not be opened or run: LIBRARY failed: REASON

Run with the service stopped (it holds the lines), as root, from the service's venv. The line
is left at the level it had (an even number of flips).
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

from orbito_hw.app.assemble import gpio_pins
from orbito_hw.app.config import load_config
from orbito_hw.hw.clock import LoopClock
from orbito_hw.hw.gpio import GpioSensors, factory_name, pin_factory

CONFIGFS = Path("/sys/kernel/config/gpio-sim/orbito")
SQUARE = 15  # d4: any square will do, its line is put back as it was


def main() -> None:
    config = load_config(sys.argv[1])
    library, rounds = sys.argv[2], int(sys.argv[3])
    device = (CONFIGFS / "dev_name").read_text().strip()
    chip = (CONFIGFS / "gpio-bank0" / "chip_name").read_text().strip()
    line = Path("/sys/devices/platform") / device / chip / f"sim_gpio{config.sensors.pins[SQUARE]}"
    loop = asyncio.new_event_loop()
    clock = LoopClock(loop)
    factory = pin_factory(library, loop)  # gpiod reads the edges on the loop, as the service
    sensors = GpioSensors(gpio_pins(config), clock, factory)
    heard: list[asyncio.Future[float]] = []

    def listener(square: int, present: bool, when: float) -> None:
        if square == SQUARE and heard and not heard[-1].done():
            heard[-1].set_result(loop.time())

    sensors.subscribe(listener)
    samples: list[float] = []
    missed: list[int] = []

    async def flips() -> None:
        high = (line / "value").read_text().strip() == "1"
        for _ in range(2 * rounds):
            heard.append(loop.create_future())
            high = not high
            start = time.monotonic()
            (line / "pull").write_text("pull-up" if high else "pull-down")
            try:
                samples.append(await asyncio.wait_for(heard[-1], 5) - start)
            except TimeoutError:
                missed.append(len(heard))  # said, not fatal: the next flips still measure
            await asyncio.sleep(0.05)

    try:
        loop.run_until_complete(flips())
    finally:
        sensors.close()
        if factory is not None:
            factory.close()
        loop.close()
    if not samples:
        raise RuntimeError(f"no edge heard in {2 * rounds} flips")
    ms = sorted(s * 1000 for s in samples)
    p90 = ms[int(0.9 * (len(ms) - 1))]
    print(
        f"{library} {statistics.median(ms):.2f} {p90:.2f} {ms[-1]:.2f} "
        f"{len(ms)} {factory_name(factory).replace(' ', '_')} {len(missed)}"
    )


if __name__ == "__main__":
    try:
        main()
    except Exception as exc:  # one line the host's check quotes, whatever went wrong
        print(f"{sys.argv[2] if len(sys.argv) > 2 else '?'} failed: {type(exc).__name__}: {exc}")
        raise SystemExit(1) from None
