"""Controller cost per sensor event and per accepted turn, on the simulated board.

    python benchmarks/controller_cost.py [GAMES] [STATE_DIR]

Times only the referee's own handlers (what a Pi would run per event), not the simulated
physics around it. Every sensor event is journalled with an fsync, so the figure depends
on the disk under STATE_DIR (default: a temporary directory); try /dev/shm for the CPU
cost alone. Goal: under 0.5 ms per event.
"""

from __future__ import annotations

import random
import sys
import tempfile
import time
from collections.abc import Callable
from typing import Any

from orbito_hw.control.journal import Journal
from orbito_hw.control.referee import Referee
from orbito_hw.rules.game import Colour, Position
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command

spent: dict[str, float] = {"square": 0.0, "press": 0.0, "verify": 0.0, "save": 0.0}
counts: dict[str, int] = {"square": 0, "press": 0, "verify": 0, "save": 0}


def timed(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def wrapper(*args: Any) -> Any:
        start = time.perf_counter()
        try:
            return fn(*args)
        finally:
            spent[name] += time.perf_counter() - start
            counts[name] += 1

    return wrapper


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    base = sys.argv[2] if len(sys.argv) > 2 else None
    Referee._on_square = timed("square", Referee._on_square)  # type: ignore[method-assign]
    Referee._referee_press = timed("press", Referee._referee_press)  # type: ignore[method-assign]
    Referee._verify = timed("verify", Referee._verify)  # type: ignore[method-assign]
    Journal.save = timed("save", Journal.save)  # type: ignore[method-assign]
    rng = random.Random(1)
    turns_played = 0
    wall = time.perf_counter()
    for _ in range(games):
        with tempfile.TemporaryDirectory(dir=base) as state:
            run = MockRun(state)
            first = rng.choice(list(Colour))
            run.run(Command("reset", colour=first), first_command=True)
            position = Position.start(first)
            while position.result is None:
                turn = rng.choice(list(position.legal_turns()))
                for command in turn_commands(turn, rng):
                    run.run(command)
                position = position.play(turn)
                turns_played += 1
            run.close()
    wall = time.perf_counter() - wall
    per_event = spent["square"] / counts["square"] * 1e3
    per_turn = (spent["press"] + spent["verify"]) / turns_played * 1e3
    print(f"{games} games, {turns_played} turns, {counts['square']} debounced sensor events")
    save = spent["save"] / counts["save"] * 1e3
    print(f"per sensor event: {per_event:.3f} ms on average, journal writes included")
    print(f"per journal write (atomic, fsync'd; {counts['save']} writes): {save:.3f} ms")
    print(f"per accepted turn (press + verify + commit): {per_turn:.3f} ms")
    print(f"whole simulation, physics included: {wall:.1f} s")


if __name__ == "__main__":
    main()
