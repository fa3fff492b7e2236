"""A process holding the table: load time, one analyse query, and its memory.

python benchmarks/query_speed.py [QUERIES]    (goals: a query under 1 ms; RSS under 100 MB)
"""

from __future__ import annotations

import random
import resource
import sys
import time

from orbito_hw.rules.game import Colour, Position


def rss_mb() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def sample(count: int) -> list[Position]:
    """Positions from random games, every stage of the game alike."""
    rng, out = random.Random(1), []
    while len(out) < count:
        position = Position.start(rng.choice(list(Colour)))
        for _ in range(rng.randrange(20)):
            if position.result is None:
                position = position.play_unchecked(rng.choice(list(position.legal_turns())))
        if position.result is None:
            out.append(position)
    return out


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    positions = sample(count)
    before = rss_mb()
    start = time.perf_counter()
    from orbito_hw.solver.table import shipped_solution

    solution = shipped_solution()
    print(f"load (read, decompress, sha256): {time.perf_counter() - start:.3f} s")
    times = []
    for position in positions:
        start = time.perf_counter()
        solution.analyse(position)
        times.append(time.perf_counter() - start)
    times.sort()
    mean = sum(times) / len(times)
    print(
        f"analyse over {count} positions: mean {mean * 1e3:.3f} ms, median"
        f" {times[len(times) // 2] * 1e3:.3f} ms, worst {times[-1] * 1e3:.3f} ms"
    )
    start = time.perf_counter()
    empty = solution.analyse(Position.start())
    print(f"analyse of the empty board (16 turns): {(time.perf_counter() - start) * 1e3:.3f} ms")
    print(f"empty board: {empty.value} in {empty.plies} plies")
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"RSS before loading {before:.0f} MB, holding the table {rss_mb():.0f} MB,"
        f" peak {peak:.0f} MB"
    )
    print(f"numpy imported: {'numpy' in sys.modules}")


if __name__ == "__main__":
    main()
