"""The board's turn, timed: from the verified end of a person's turn to the board's turn lit.

python benchmarks/board_turn.py [GAMES] [SEED]    (GAMES per level; 30 by default)

For every level (solver/opponents.py LEVELS), GAMES games on the simulated board (MockRun, sim
parts): the board plays black in even games and white in odd ones, the first player drawn from
the seed; a scripted person makes the board's turns as shown and random legal turns of their own.

What is timed: the referee's callback that ends a person's turn. When the rings have turned and
settled, the virtual clock calls ``Referee._verify``; in that one callback the referee reads the
sensors and checks them against the expected layout (the verified end of the turn), commits the
turn to the journal (atomic write and fsync), chooses the board's turn (the level's ``choose``
on the solution table), journals that choice, emits the ``turn`` and ``board-turn`` events and
draws the board's turn on the LEDs (the simulated strip). The time is perf_counter from the
callback's start to its end, for the callbacks that emitted a ``board-turn`` event. The virtual
clock's delays (the rings turning, the sensors settling) are not in it: they are waits, not CPU.
Goal: under 5 ms here at every level (a Pi Zero 2 W is about 10x slower).

Also prints the peak RSS of the process (ru_maxrss) once the table is loaded and after all the
games: goal, a run holding the table under 60 MB.
"""

from __future__ import annotations

import random
import resource
import statistics
import sys
import time
from collections.abc import Callable

from orbito_hw.control.events import BoardTurn, Event
from orbito_hw.control.settings import Settings
from orbito_hw.rules.game import Colour
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import Command
from orbito_hw.solver.opponents import LEVELS, Level, level_opponent
from orbito_hw.solver.table import shipped_solution


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def timed_game(level: Level, board: Colour, seed: int, times: list[float]) -> None:
    """One game against the board at ``level``; appends the time of each board's turn lit."""
    told: list[BoardTurn] = []

    def on_event(event: Event) -> None:
        if isinstance(event, BoardTurn):
            told.append(event)

    settings = Settings(opponent=board_player(level, board, seed))
    run = MockRun(None, settings, on_event=on_event, seed=seed)
    referee = run.referee
    verify: Callable[[], None] = referee._verify  # the timed callback

    def timed_verify() -> None:
        before = len(told)
        start = time.perf_counter()
        verify()
        if len(told) > before:  # this callback ended a person's turn with the board's lit
            times.append(time.perf_counter() - start)

    # The referee looks the callback up on itself each time it sets the settle timer.
    referee._verify = timed_verify  # type: ignore[method-assign]
    rng = random.Random(seed)
    person = level_opponent(LEVELS[-1], seed)  # random legal turns
    try:
        run.run(Command("reset", colour=rng.choice(list(Colour))), first_command=True)
        while referee.position.result is None:
            position = referee.position
            turn = referee.board_turn if position.to_move is board else person.choose(position)
            assert turn is not None, "the board shows no turn on its move"
            for command in turn_commands(turn, rng, position.to_move is board):
                run.run(command)
            run.wait_for_rings()  # a press counts on release: the rings may still turn
        run.finish()
    finally:
        run.close()


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 1
    shipped_solution()  # loaded once, as the controller does
    print(f"peak RSS with the table loaded: {peak_rss_mb():.1f} MB")
    print(f"{'level':>8} {'turns':>6} {'mean ms':>8} {'p99 ms':>8} {'worst ms':>9}")
    for level in LEVELS:
        times: list[float] = []
        for game in range(games):
            board = Colour.BLACK if game % 2 == 0 else Colour.WHITE
            timed_game(level, board, seed * 100_003 + game, times)
        ms = sorted(t * 1000 for t in times)
        p99 = ms[min(len(ms) - 1, int(len(ms) * 0.99))]
        print(
            f"{level.name:>8} {len(ms):>6} {statistics.mean(ms):>8.3f} {p99:>8.3f} {ms[-1]:>9.3f}"
        )
    print(f"peak RSS after all games: {peak_rss_mb():.1f} MB")


if __name__ == "__main__":
    main()
