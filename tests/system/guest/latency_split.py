"""Where an edge's time goes, in the VM (a diagnostic; the system test's own figures are
gpiod_checks.py's): a line of gpio-sim flipped from outside (its ``pull`` file), then each
step stamped on CLOCK_MONOTONIC, the kernel's clock and the event loop's.

  latency_split.py CONFIG LIBRARY ROUNDS [square|button]

LIBRARY: ``gpiod`` (edges read on the loop, as the service), ``gpiod-thread`` (the factory's
own thread, as gpiozero's other users) or ``lgpio``. ``square``: a sensor (d4), no debounce
in the pin library; ``button``: the button, with its debounce (``button.debounce_ms``).
Prints the median time from the write's start to each step, then each step's share:
``kernel`` (the edge's stamp: for gpiod the kernel's, for lgpio its own), ``read`` (the
edge in the pin library's hands, in Python), ``loop`` (the listener on the event loop).
Run as root with the service stopped, from the service's venv, as edge_latency.py is.
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from orbito_hw.app.assemble import gpio_pins
from orbito_hw.app.config import load_config
from orbito_hw.hw.clock import LoopClock
from orbito_hw.hw.gpio import GpioButton, GpioSensors, pin_factory

CONFIGFS = Path("/sys/kernel/config/gpio-sim/orbito")
SQUARE = 15  # d4
STEPS = ("start", "written", "kernel", "read", "loop")
marks: dict[str, float] = {}


def stamp_reads(library: str) -> None:
    """Stamp the moment the pin library holds an edge, and keep the edge's own stamp."""
    if library.startswith("gpiod"):
        from orbito_hw.hw import gpiod_factory

        pending = gpiod_factory.GpiodPin._pending_events

        def read(pin: gpiod_factory.GpiodPin) -> list[tuple[int, bool]]:
            edges = pending(pin)
            if edges:
                marks["read"] = time.monotonic()
                marks["kernel"] = edges[-1][0] / 1e9
            return edges

        gpiod_factory.GpiodPin._pending_events = read  # type: ignore[method-assign, assignment]
        return
    from gpiozero.pins import lgpio as lgpio_pins

    call = lgpio_pins.LGPIOPin._call_when_changed

    def called(pin: Any, chip: int, gpio: int, level: int, ticks: int) -> None:
        marks["read"] = time.monotonic()
        marks["kernel"] = ticks / 1e9
        call(pin, chip, gpio, level, ticks)

    lgpio_pins.LGPIOPin._call_when_changed = called


def main() -> None:
    config = load_config(sys.argv[1])
    library, rounds = sys.argv[2], int(sys.argv[3])
    part = sys.argv[4] if len(sys.argv) > 4 else "square"
    stamp_reads(library)
    device = (CONFIGFS / "dev_name").read_text().strip()
    chip = (CONFIGFS / "gpio-bank0" / "chip_name").read_text().strip()
    pin = config.button.pin if part == "button" else config.sensors.pins[SQUARE]
    line = Path("/sys/devices/platform") / device / chip / f"sim_gpio{pin}"
    loop = asyncio.new_event_loop()
    factory = pin_factory(library.split("-")[0], loop if library == "gpiod" else None)
    heard: list[asyncio.Future[float]] = []

    def listener(*_: Any) -> None:
        if heard and not heard[-1].done():
            heard[-1].set_result(time.monotonic())

    if part == "button":
        device_: GpioButton | GpioSensors = GpioButton(gpio_pins(config), LoopClock(loop), factory)
    else:
        device_ = GpioSensors(gpio_pins(config), LoopClock(loop), factory)
    device_.subscribe(listener)
    rows: list[dict[str, float]] = []

    async def flips() -> None:
        high = (line / "value").read_text().strip() == "1"
        for _ in range(2 * rounds):
            heard.append(loop.create_future())
            high = not high
            marks.clear()
            marks["start"] = time.monotonic()
            (line / "pull").write_text("pull-up" if high else "pull-down")
            marks["written"] = time.monotonic()
            marks["loop"] = await asyncio.wait_for(heard[-1], 5)
            rows.append(dict(marks))
            await asyncio.sleep(0.1)

    try:
        loop.run_until_complete(flips())
    finally:
        device_.close()
        factory.close()
        loop.close()
    median = {k: statistics.median(1000 * (r[k] - r["start"]) for r in rows) for k in STEPS}
    print(f"{library} {part}: " + " ".join(f"{k} {median[k]:.2f}" for k in STEPS[1:]) + " ms")


if __name__ == "__main__":
    main()
