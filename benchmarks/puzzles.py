"""Puzzles, measured: how fast the generator makes them, and how the shipped set is spread.

python benchmarks/puzzles.py [COUNT] [SEED]    (COUNT puzzles per run; 100 by default)

Prints: the table's load time; puzzles per second for COUNT puzzles of any plies and for
COUNT / 5 puzzles at each of a few fixed plies (the rare ones cost more games); the time
``find_puzzle`` takes to decode, replay and value an ID again; then the shipped set's
counts per grade, per plies, per grade and plies, and by number of solutions, with the
median and range of its difficulty in bits per plies.
"""

from __future__ import annotations

import statistics
import sys
import time
from collections import Counter

from orbito_hw.solver.puzzle_grades import GRADES
from orbito_hw.solver.puzzles import PLIES, find_puzzle, generate, shipped_puzzles
from orbito_hw.solver.table import shipped_solution


def rate(count: int, plies: int | None, seed: int) -> tuple[float, list[str]]:
    start = time.perf_counter()
    ids = [p.id for p in generate(count, plies, seed)]
    return count / (time.perf_counter() - start), ids


def main(count: int, seed: int) -> None:
    start = time.perf_counter()
    shipped_solution()
    print(f"table loaded in {time.perf_counter() - start:.2f} s")

    per_second, ids = rate(count, None, seed)
    print(f"any plies: {per_second:.1f} puzzles/s ({count} puzzles)")
    for plies in (1, 3, 5, 8, 13):
        each, _ = rate(max(1, count // 5), plies, seed)
        print(f"{plies:2} plies: {each:.1f} puzzles/s ({max(1, count // 5)} puzzles)")
    start = time.perf_counter()
    for puzzle_id in ids:
        find_puzzle(puzzle_id)
    print(f"find_puzzle: {1000 * (time.perf_counter() - start) / len(ids):.1f} ms per ID")

    shipped = shipped_puzzles()
    grades = [name for name, _ in GRADES]
    print(f"\nshipped set: {len(shipped)} puzzles")
    by_grade = Counter(p.difficulty.grade for p in shipped)
    print("per grade: " + ", ".join(f"{g} {by_grade[g]}" for g in grades))
    by_solutions = Counter(len(p.solution) for p in shipped)
    print("solutions: " + ", ".join(f"{n}: {by_solutions[n]}" for n in sorted(by_solutions)))
    print(
        f"\n{'plies':>5} {'count':>5} "
        + " ".join(f"{g:>6}" for g in grades)
        + "   bits: median (range)"
    )
    for plies in PLIES:
        these = [p for p in shipped if p.plies == plies]
        if not these:
            continue
        counts = Counter(p.difficulty.grade for p in these)
        bits = [p.difficulty.bits for p in these]
        print(
            f"{plies:>5} {len(these):>5} "
            + " ".join(f"{counts[g]:>6}" for g in grades)
            + f"   {statistics.median(bits):5.2f} ({min(bits):.2f} .. {max(bits):.2f})"
        )


if __name__ == "__main__":
    main(
        int(sys.argv[1]) if len(sys.argv) > 1 else 100, int(sys.argv[2]) if len(sys.argv) > 2 else 1
    )
