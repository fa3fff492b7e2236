"""The reference board's sensors (16 TMAG5273 behind two TCA9548A, hw/tmag.py, and the
colour told by light over them, hw/light.py) while the board waits, and how fast a marble
reaches the referee.

    python benchmarks/idle_sensors.py [IDLE_SECONDS] [MARBLES] [--presence]
                                                        (10 s, 200 marbles, colour by light)

The backend runs on a real asyncio loop (app/run.py's ``LoopClock``), as on the Pi, its bus
the emulated one (sim/tmag_bus.py: the chips convert on their own every ``sleep_ms``, the
INT line a gpiozero mock pin). Prints:

- idle: the process's CPU (share of one core) and its wake-ups a second (voluntary context
  switches, /proc/self/status) over IDLE_SECONDS with nothing on the board moving: the goal
  is under 1 % and under 5 a second;
- a marble put or lifted on a random square, MARBLES times: from the INT edge to the
  referee's listener hearing the square, and from the field's change (the marble) to it,
  p50 and p99, in milliseconds. The emulated bus costs no wire time: the I2C time a real
  bus adds (``wire_ms``) is printed beside them, computed from the transfers a sweep makes.
  With colour by light (the default; ``--presence``: the TMAG5273 alone) a put reaches the
  referee once its colour is read: the reading's CPU on the emulated ADS1115 is in these
  figures, its wait for the ADC's conversions (the model's 45 ms at 860 a second) is not,
  and is printed beside them.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import sys
import time

from orbito_hw.hw import tmag_chip as chip
from orbito_hw.hw.clock import LoopClock
from orbito_hw.hw.light_front import optics
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES
from orbito_hw.sim.board import SimBoard, SimLights
from orbito_hw.sim.light_board import SimLight
from orbito_hw.sim.tmag_board import TmagField, TmagSimWiring


def switches() -> int:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("voluntary_ctxt_switches:"):
                return int(line.split()[1])
    return 0


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def wire_ms(transfers: int, khz: int) -> float:
    """I2C time of ``transfers`` (a select, a 7-byte read, a deselect per sensor): about 14
    bytes of 9 bits each for the three, plus each ioctl's 60 us on a Pi."""
    per_sensor_bits = 14 * 9
    sensors = transfers / 3
    return sensors * (per_sensor_bits / khz + 0.18)


async def main(idle_s: float, marbles: int, by_light: bool = True) -> None:
    loop = asyncio.get_running_loop()
    clock = LoopClock(loop)
    board = SimBoard(clock=None)
    fields = TmagField(board, seed=1)
    lights = SimLights()
    light = SimLight(board, lights, "window", seed=1) if by_light else None
    wiring = TmagSimWiring(board, fields, clock, light=light)  # type: ignore[arg-type]
    heard: list[tuple[int, bool, float]] = []
    edges: list[float] = []
    presence = wiring.sensors()
    sensors = wiring.colours(presence, lights) if by_light else presence
    told = asyncio.Event()

    def hear(square: int, present: bool, when: float) -> None:
        heard.append((square, present, time.monotonic()))
        told.set()

    sensors.subscribe(hear)
    pin = wiring.int_pin
    pulse = wiring._pulse

    def timed_pulse() -> None:
        edges.append(time.monotonic())
        pulse()

    for c in wiring.chips:
        c.pulse = timed_pulse
    print(f"sensors: sleep {chip.TmagConfig().sleep_ms} ms, check every "
          f"{chip.TmagConfig().check_s:g} s; INT on mock {pin.info.name}")  # fmt: skip

    await asyncio.sleep(1.0)  # settled
    cpu0, wall0, sw0, t0 = time.process_time(), time.monotonic(), switches(), wiring.bus.transfers
    await asyncio.sleep(idle_s)
    cpu, wall = time.process_time() - cpu0, time.monotonic() - wall0
    wakes = switches() - sw0
    reads = getattr(sensors, "reader", None)
    print(f"idle {wall:.1f} s: CPU {100 * cpu / wall:.3f} % of a core, "
          f"{wakes / wall:.2f} wake-ups/s, {wiring.bus.transfers - t0} bus transfers "
          f"({presence.sweeps} sweeps so far"
          + (f", {reads.readings} colour readings" if reads else "") + ")")  # fmt: skip
    readings_before = reads.readings if reads else 0

    rng = random.Random(7)
    to_edge: list[float] = []
    to_field: list[float] = []
    sweep_transfers: list[int] = []
    by_check = 0
    for _ in range(marbles):
        square = rng.choice(SQUARES)
        heard.clear()
        edges.clear()
        told.clear()
        before = wiring.bus.transfers
        changed = time.monotonic()
        if board.colour_at(square) is None:
            board.put(square, rng.choice((Colour.BLACK, Colour.WHITE)))
        else:
            board.lift(square)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(told.wait(), 1.0)
        if not heard:
            print(f"{SQUARE_NAMES[square]}: not heard within 1 s", file=sys.stderr)
            continue
        if not edges:  # the slow check read it before the sensor's next conversion did
            by_check += 1
            continue
        to_field.append(1000 * (heard[0][2] - changed))
        to_edge.append(1000 * (heard[0][2] - edges[0]))
        sweep_transfers.append(wiring.bus.transfers - before)
        await asyncio.sleep(rng.uniform(0.05, 0.15))
    wire = wire_ms(round(sum(sweep_transfers) / max(1, len(sweep_transfers))), 400)
    wire100 = wire_ms(round(sum(sweep_transfers) / max(1, len(sweep_transfers))), 100)
    print(f"{len(to_edge)} marbles by an edge ({by_check} read first by the slow check)")
    print(f"edge -> referee p50 {percentile(to_edge, 0.5):.2f} ms, "
          f"p99 {percentile(to_edge, 0.99):.2f} ms (+ {wire:.1f} ms on a 400 kHz bus, "
          f"{wire100:.1f} ms at 100 kHz)")  # fmt: skip
    print(
        f"marble -> referee p50 {percentile(to_field, 0.5):.1f} ms, "
        f"p99 {percentile(to_field, 0.99):.1f} ms (the sensor's sleep and conversion included)"
    )
    if reads:
        o = optics()
        print(f"colour by light: {reads.readings - readings_before} readings for the puts, "
              f"+ {1000 * o.reading_s:.0f} ms each on a real ADS1115 (the ADC's conversions, "
              f"the LED lit {1000 * o.lit_s:.0f} ms)")  # fmt: skip
    sensors.close()
    wiring.close()


if __name__ == "__main__":
    by_light = "--presence" not in sys.argv
    sys.argv[1:] = [a for a in sys.argv[1:] if not a.startswith("--")]
    idle = float(sys.argv[1]) if len(sys.argv) > 1 else 10.0
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 200
    asyncio.run(main(idle, count, by_light))
