"""Soak test: many random games with trouble on each backend, in flat memory.

    python benchmarks/soak.py [GAMES] [BACKEND...]     (default 2000 games, sim gpio serial)

Each backend runs in its own process: GAMES random complete games through the whole
controller (MockRun), with power cuts, sensor chatter, lost steps and illegal attempts
(two marbles placed, a press with nothing placed) spread over them. Every game must end
with exactly the engine's turns and result (no accepted turn lost, none doubled), with no
fault. The process's resident memory is sampled every tenth of the games: a long session
must run in flat memory. Prints one line per backend; exits 1 if any game went wrong.
"""

from __future__ import annotations

import logging
import random
import resource
import subprocess
import sys
import time
from pathlib import Path

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import square_name, squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, parse_script

TROUBLE = ["power-cut", "bounce b2", "bounce d3", "slip 50", "slip 199", "slip 1"]


def rss_mb() -> float:
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * resource.getpagesize() / 2**20


def illegal_attempt(position: Position, rng: random.Random) -> list[Command]:
    """Two marbles placed and a press (refused), then both lifted back off."""
    empty = [square_name(s) for s in squares_of(~(position.black | position.white) & 0xFFFF)]
    if len(empty) < 2:
        return parse_script("press")  # nothing placed: refused too (on a board not full)
    a, b = rng.sample(empty, 2)
    return parse_script(f"put {a}\nput {b}\npress\nlift {b}\nlift {a}\n")


def game(rng: random.Random) -> tuple[list[Command], list[str], str]:
    first = rng.choice(list(Colour))
    position, commands, tokens = Position.start(first), [Command("reset", colour=first)], []
    while position.result is None:
        turn: Turn = rng.choice(list(position.legal_turns()))
        if rng.random() < 0.15 and position.placed < 16:
            commands += illegal_attempt(position, rng)
        if rng.random() < 0.2:
            commands += parse_script(rng.choice(TROUBLE))
        commands += turn_commands(turn, rng)
        tokens.append(turn.notation())
        position = position.play(turn)
    assert position.result is not None
    return commands, tokens, position.result.value


def soak(backend: str, games: int) -> int:
    logging.disable(logging.WARNING)  # thousands of "homing after lost steps" lines
    rng = random.Random(2000)
    run = MockRun(parts=backend)
    samples, wrong, start = [], 0, time.perf_counter()
    try:
        for n in range(games):
            commands, tokens, result = game(rng)
            seen = len(run.events)
            run.run_script(commands)
            events = run.events[seen:]
            turns = [e["turn"] for e in events if e["event"] == "turn"]
            results = [e["result"] for e in events if e["event"] == "result"]
            faults = [e for e in events if e["event"] in ("fault", "correction")]
            if turns != tokens or results != [result] or faults:
                wrong += 1
                print(f"{backend}: game {n + 1} went wrong: {turns} {results} {faults}")
            del run.typed_events[:]  # the harness keeps every event: not here
            if (n + 1) % max(1, games // 10) == 0:
                samples.append(rss_mb())
    finally:
        run.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    wall = time.perf_counter() - start
    rss = " ".join(f"{s:.0f}" for s in samples)
    print(
        f"{backend:7} {games} games in {wall:.0f} s, {wrong} wrong; RSS MB every tenth: {rss}; "
        f"peak {peak:.0f} MB"
    )
    return 1 if wrong else 0


def main() -> int:
    args = sys.argv[1:]
    if args[:1] == ["--one"]:
        return soak(args[1], int(args[2]))
    games = int(args[0]) if args else 2000
    failed = 0
    for backend in args[1:] or ["sim", "gpio", "serial"]:
        failed |= subprocess.run(
            [sys.executable, __file__, "--one", backend, str(games)], check=False
        ).returncode
    return failed


if __name__ == "__main__":
    sys.exit(main())
