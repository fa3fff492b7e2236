"""The game archive's costs: per accepted turn (fsync on), ``games list`` of 10,000 games,
``games review`` of one game once the table is loaded.

    python benchmarks/archive.py [GAMES] [STATE_DIR]

The per-turn figure is what the referee's listener spends writing one turn event (one
SQLite transaction, WAL, ``synchronous=FULL``), so it depends on the disk under STATE_DIR
(default: a temporary directory on the disk of the current directory). Goals: under 1 ms a
turn, ``games list`` of 10,000 games under 0.5 s (the whole command, Python's start
included), ``games review`` under 50 ms after the table is loaded.
"""

from __future__ import annotations

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from orbito_hw.archive.recorder import Recorder
from orbito_hw.archive.store import Archive
from orbito_hw.control.events import GameOver, NewGame, TurnPlayed
from orbito_hw.control.journal import Journal, Saved
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.review import review
from orbito_hw.solver.table import shipped_solution

LISTED = 10_000


def random_game(rng: random.Random) -> tuple[Colour, list[Turn], Position]:
    first = rng.choice(list(Colour))
    position, turns = Position.start(first), []
    while position.result is None:
        turn = rng.choice(list(position.legal_turns()))
        turns.append(turn)
        position = position.play(turn)
    return first, turns, position


def per_turn(state: Path, games: int) -> list[float]:
    """Seconds the archive's listener spends on each accepted turn of ``games`` games."""
    rng = random.Random(1)
    recorder = Recorder(state)
    with Journal(state) as journal:
        journal.load()
        recorder.boot(SimpleNamespace(saved=Saved(), opponent=None))  # type: ignore[arg-type]
    times = []
    for game in range(1, games + 1):
        first, turns, final = random_game(rng)
        recorder(NewGame(game, first))
        position = Position.start(first)
        for number, turn in enumerate(turns, 1):
            position = position.play(turn)
            event = TurnPlayed(game, number, position.to_move.other, turn, position.board())
            start = time.perf_counter()
            recorder(event)
            times.append(time.perf_counter() - start)
        assert final.result is not None
        recorder(GameOver(game, final.result, tuple(final.lines())))
    recorder.close()
    return times


def fill(state: Path, games: int) -> None:
    """An archive of ``games`` random games, written in one transaction (the benchmark's
    set-up, not a cost of play)."""
    rng = random.Random(2)
    archive = Archive.open(state)
    with archive.write():
        for game in range(1, games + 1):
            first, turns, final = random_game(rng)
            started = f"2024-{1 + game % 12:02d}-{1 + game % 28:02d}T20:00:00+01:00"
            players = ("person", "board:5" if game % 3 else "person")
            game_id = archive.new_game(game, first, players, started)
            for number, turn in enumerate(turns, 1):
                mover = first if number % 2 else first.other
                archive.add_turn(game_id, number, mover, turn.notation(), started)
            assert final.result is not None
            archive.finish(game_id, final.result.value, final.line_names(), started)
    archive.close()


def command(*argv: str) -> float:
    """Wall time of one ``orbito-hw`` command, output thrown away."""
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "orbito_hw", *argv], check=True, stdout=subprocess.DEVNULL
    )
    return time.perf_counter() - start


def review_times(state: Path, count: int) -> list[float]:
    shipped_solution()  # loaded once, as the command does before reviewing
    archive = Archive.read(state)
    games = archive.games()[:count]
    moves = [(Colour(g.first), [t.turn for t in archive.turns(g.id)]) for g in games]
    archive.close()
    times = []
    for first, tokens in moves:
        start = time.perf_counter()
        review(first, tokens)
        times.append(time.perf_counter() - start)
    return times


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.2f} ms"


def report(name: str, times: list[float]) -> None:
    times = sorted(times)
    print(
        f"{name}: mean {ms(statistics.fmean(times))}, median {ms(times[len(times) // 2])}, "
        f"99% {ms(times[int(len(times) * 0.99)])}, worst {ms(times[-1])} ({len(times)} samples)"
    )


def main(argv: list[str]) -> None:
    games = int(argv[0]) if argv else 50
    base: Any = Path(argv[1]) if len(argv) > 1 else None
    with tempfile.TemporaryDirectory(prefix="archive-bench-", dir=base or Path.cwd()) as tmp:
        state = Path(tmp)
        report("archive cost per accepted turn (fsync on)", per_turn(state / "turns", games))
        listed = state / "listed"
        listed.mkdir()
        start = time.perf_counter()
        fill(listed, LISTED)
        print(f"set-up: {LISTED} games written in {time.perf_counter() - start:.1f} s")
        for form in (["--json"], []):
            walls = [command("games", "list", *form, "--state-dir", str(listed)) for _ in range(5)]
            report(
                f"games list {' '.join(form) or '(table)'} of {LISTED} games, whole command", walls
            )
        start = time.perf_counter()
        archive = Archive.read(listed)
        archive.games()
        archive.close()
        print(f"reading the {LISTED} games' list alone: {ms(time.perf_counter() - start)}")
        report("games review of one game, table loaded", review_times(listed, 500))
        walls = [command("games", "review", "1", "--json", "--state-dir", str(listed))]
        print(f"games review, whole command (the table loaded in it): {walls[0]:.2f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
