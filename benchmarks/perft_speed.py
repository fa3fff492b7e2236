"""perft(N) in pure Python: the transposition-table count, and the naive walk for scale.

python benchmarks/perft_speed.py [N]      (default 5; goal: perft(5) under 20 s)
"""

from __future__ import annotations

import sys
import time

from orbito_hw.rules.perft import perft, perft_naive


def main() -> None:
    depth = int(sys.argv[1]) if len(sys.argv) > 1 else 5
    start = time.perf_counter()
    count = perft(depth)
    print(f"perft({depth}) = {count} in {time.perf_counter() - start:.3f} s")
    start = time.perf_counter()
    naive = perft_naive(3)
    print(f"naive perft(3) = {naive} in {time.perf_counter() - start:.3f} s (every turn played)")


if __name__ == "__main__":
    main()
