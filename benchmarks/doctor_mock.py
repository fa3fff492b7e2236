"""Wall time of ``orbito-hw doctor --mock``: every check on the simulated board, with its
simulated helper, on the virtual clock (about 60 s of a person's time).

    python benchmarks/doctor_mock.py [RUNS]

Times the doctor itself (run_mock), for the sim backend and for the gpio one (gpiozero's
MockFactory pins and adafruit's pixel buffer). Goal: well under a second each.
"""

from __future__ import annotations

import sys
import time

from orbito_hw.doctor.sim import run_mock


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    for backend in ("sim", "gpio"):
        times = []
        for _ in range(runs):
            start = time.perf_counter()
            results = run_mock(backend=backend, out=lambda _: None)
            times.append(time.perf_counter() - start)
            assert all(r.passed for r in results)
        best, worst = min(times), max(times)
        name = f"doctor --mock --backend {backend}"
        print(f"{name}: best {best * 1000:.0f} ms, worst {worst * 1000:.0f} ms")


if __name__ == "__main__":
    main()
