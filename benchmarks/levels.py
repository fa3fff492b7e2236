"""The board's levels, measured: each level against `perfect` and against `random`.

python benchmarks/levels.py [GAMES] [SEED]    (GAMES per level, opponent and seat; 1000 by default)

For every level and opponent, GAMES games with the level moving first and GAMES with it moving
second (the first player's colour alternates), each game seeded from SEED. Prints, per level:
its wins/draws/losses against each opponent and seat; the share of its turns that kept the
value where a mistake was possible (what the level promises, see solver/opponents.py); the
mean, 99th percentile and worst time of its `choose()` calls in those games (the worst includes
whatever else the machine was doing); and the median over 200 calls on the busiest position
found (the most legal turns). Goal: well under 5 ms here.
"""

from __future__ import annotations

import random
import sys
import time
from dataclasses import dataclass, field

from orbito_hw.rules.game import Colour, Position
from orbito_hw.solver.opponents import LEVELS, Level, Opponent, make_opponent
from orbito_hw.solver.table import Solution, shipped_solution

OPPONENTS = ("perfect", "random")
SEATS = ("first", "second")


@dataclass
class Tally:
    """What one level did: results by (opponent, seat), value kept, time spent choosing."""

    results: dict[tuple[str, str], list[int]] = field(default_factory=dict)  # win, draw, loss
    could_err: int = 0  # the level's turns in positions that allow a mistake
    kept: int = 0  # of those, the turns that kept the value
    times: list[float] = field(default_factory=list)


def kept_value(solution: Solution, position: Position, chosen: object) -> bool | None:
    """Whether ``chosen`` kept the value; None where every turn does (no mistake possible)."""
    worths = solution.turn_bytes(position)
    kinds = {byte >> 6 for _, byte in worths}
    if len(kinds) == 1:
        return None
    top = max(kinds)
    return next(byte >> 6 == top for turn, byte in worths if turn == chosen)


def play(
    solution: Solution, board: Opponent, other: Opponent, seat: str, first: Colour, tally: Tally
) -> int:
    """One game; 0, 1 or 2 for the level's win, draw or loss."""
    position = Position.start(first)
    mine = first if seat == "first" else first.other
    while position.result is None:
        if position.to_move is not mine:
            position = position.play(other.choose(position))
            continue
        start = time.perf_counter()
        turn = board.choose(position)
        tally.times.append(time.perf_counter() - start)
        kept = kept_value(solution, position, turn)
        if kept is not None:
            tally.could_err += 1
            tally.kept += kept
        position = position.play(turn)
    winner = position.result.winner
    return 1 if winner is None else 0 if winner is mine else 2


def measure(level: Level, games: int, seed: int, solution: Solution) -> Tally:
    tally = Tally()
    for opponent in OPPONENTS:
        for seat in SEATS:
            counts = [0, 0, 0]
            for game in range(games):
                game_seed = seed * 1_000_003 + game
                board = make_opponent(level.name, seed=game_seed, solution=solution)
                other = make_opponent(opponent, seed=game_seed + 500_000, solution=solution)
                first = Colour.BLACK if game % 2 == 0 else Colour.WHITE
                counts[play(solution, board, other, seat, first, tally)] += 1
            tally.results[opponent, seat] = counts
    return tally


def busiest_position(count: int = 300) -> Position:
    """The position with the most legal turns seen in ``count`` random games."""
    rng, busiest, most = random.Random(1), Position.start(), 0
    for _ in range(count):
        position = Position.start()
        while position.result is None:
            turns = list(position.legal_turns())
            if len(turns) > most:
                busiest, most = position, len(turns)
            position = position.play(rng.choice(turns))
    return busiest


def median_choose_ms(board: Opponent, position: Position, repeats: int = 200) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        board.choose(position)
        times.append(time.perf_counter() - start)
    return sorted(times)[repeats // 2] * 1e3


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    solution = shipped_solution()
    busiest = busiest_position()
    columns = [f"vs {o}, {s}" for o in OPPONENTS for s in SEATS]
    print(f"{games} games per cell, seed {seed}; cells are the level's wins/draws/losses")
    print(f"busiest position: {busiest.board()}, {len(list(busiest.legal_turns()))} legal turns")
    print(
        f"{'level':8} {'promised':>8} "
        + " ".join(f"{c:>18}" for c in columns)
        + f" {'kept':>6} {'mean ms':>8} {'p99 ms':>7} {'worst ms':>8} {'busiest':>8}"
    )
    for level in LEVELS:
        tally = measure(level, games, seed, solution)
        cells = ["/".join(str(n) for n in tally.results[o, s]) for o in OPPONENTS for s in SEATS]
        promised = "-" if level.keep is None else f"{level.keep:.2f}"
        kept = tally.kept / tally.could_err if tally.could_err else float("nan")
        times = sorted(tally.times)
        mean, p99 = sum(times) / len(times) * 1e3, times[len(times) * 99 // 100] * 1e3
        busy = median_choose_ms(make_opponent(level.name, seed=seed, solution=solution), busiest)
        print(
            f"{level.name:8} {promised:>8} "
            + " ".join(f"{c:>18}" for c in cells)
            + f" {kept:6.3f} {mean:8.3f} {p99:7.3f} {times[-1] * 1e3:8.3f} {busy:8.3f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
