"""The full solve: time and peak memory, and whether it rebuilds the shipped table exactly.

python benchmarks/solve_speed.py     (goals: solve under 60 s, moonshot 15 s; peak RSS under 2 GB)
"""

from __future__ import annotations

import hashlib
import resource
import time

from orbito_hw.solver.build import solve, step_count
from orbito_hw.solver.progress import ProgressBar
from orbito_hw.solver.table import pack, shipped_path


def cpu_seconds() -> float:
    """User and system time of this process, all its threads together."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    start, cpu = time.perf_counter(), cpu_seconds()
    payload = solve(progress=ProgressBar(step_count(), "solving").step)
    solved, solved_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    data = pack(payload)
    total, total_cpu = time.perf_counter() - start, cpu_seconds() - cpu
    # CPU time too: on a shared machine the wall time depends on the neighbours.
    print(f"solve (all layers, NumPy): {solved:.2f} s ({solved_cpu:.2f} s CPU)")
    print(f"compress and checksum:     {total - solved:.2f} s ({total_cpu - solved_cpu:.2f} s CPU)")
    print(f"solve and pack in all:     {total:.2f} s ({total_cpu:.2f} s CPU)")
    print(f"peak RSS:                  {peak_rss_mb():.0f} MB")
    print(f"table: {len(payload)} bytes in memory, {len(data)} bytes on disk")
    same = data == shipped_path().read_bytes()
    print(f"identical to the shipped table: {same} (sha256 {hashlib.sha256(data).hexdigest()})")


if __name__ == "__main__":
    main()
