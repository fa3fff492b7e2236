"""The serial link against the simulated Pico over a pty: request round trips, the time
from ``move`` to its report, and the step planner's cost on the Pico's settings.

    python benchmarks/serial_link.py [ROUNDS]
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable

from orbito_fw.controller import DEFAULTS
from orbito_fw.planner import Planner

from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.hw.serial_backend import SerialRingDrive
from orbito_hw.hw.serial_link import SerialLink
from orbito_hw.sim.pico import MOCK_SETTINGS, FakePico


class Rings:
    def __init__(self, spp: int) -> None:
        self.spp, self.position = spp, 0

    def step(self, forward: bool) -> None:
        self.position += 1

    def index_active(self) -> bool:
        return self.position % self.spp == 0

    def read_squares(self) -> int:
        return 0


class Clock:
    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> None:
        raise NotImplementedError

    def post(self, callback: Callable[[], None]) -> None:
        callback()


def main(rounds: int) -> None:
    with FakePico(Rings(16)) as pico:
        link = SerialLink(pico.path)
        link.open()
        start = time.perf_counter()
        for _ in range(rounds):
            link.request("PING")
        took = time.perf_counter() - start
        print(f"PING round trip: {took / rounds * 1e3:.3f} ms ({rounds / took:.0f}/s)")
        link.close()

        drive = SerialRingDrive(Clock(), pico.path, {**MOCK_SETTINGS, "spp": 16})
        done = threading.Event()
        reports: list[MoveReport] = []

        def finished(report: MoveReport) -> None:
            reports.append(report)
            done.set()

        times = []
        for _ in range(max(1, rounds // 50)):
            done.clear()
            start = time.perf_counter()
            drive.move(1, finished)
            done.wait(10)
            times.append(time.perf_counter() - start)
        times.sort()
        print(
            f"1-place move (16 steps, mock settings) to its report: median "
            f"{times[len(times) // 2] * 1e3:.1f} ms, worst {times[-1] * 1e3:.1f} ms"
        )
        drive.close()

    start = time.perf_counter()
    planner = Planner(DEFAULTS["speed"], DEFAULTS["accel"])
    built = time.perf_counter() - start
    plan = planner.plan(DEFAULTS["spp"])
    move = sum(plan.interval(k) for k in range(DEFAULTS["spp"])) / 1e6
    print(
        f"planner on the default settings: ramp of {len(planner.ramp)} steps "
        f"({len(planner.ramp) * 2} bytes) built in {built * 1e3:.2f} ms on CPython; "
        f"one place ({DEFAULTS['spp']} steps) takes {move * 1e3:.0f} ms"
    )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000)
