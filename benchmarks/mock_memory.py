"""Peak memory of a long simulated session: N random games in one board script.

    python benchmarks/mock_memory.py [GAMES] [BACKEND...]

Writes a board script of GAMES random complete games (default 150), runs
`orbito-hw run --mock --events SCRIPT --backend B` for each backend (default sim gpio serial)
and prints the wall time and the peak RSS of that process. A long session must run in flat
memory: the goal is gpio within 2x of sim.
"""

from __future__ import annotations

import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from orbito_hw import Colour, Position


def game_lines(rng: random.Random) -> list[str]:
    first = rng.choice(list(Colour))
    position, lines = Position.start(first), [f"reset {first.value}"]
    while position.result is None:
        turn = rng.choice(list(position.legal_turns()))
        token = turn.notation()
        if token != "*":
            move, _, place = token.rpartition(":")
            if move:
                source, target = move.split("-")
                lines += [f"lift {source}", f"put {target}"]
            lines.append(f"put {place}")
        lines.append("press")
        position = position.play(turn)
    return lines


def main() -> None:
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 150
    backends = sys.argv[2:] or ["sim", "gpio", "serial"]
    rng = random.Random(150)
    with tempfile.TemporaryDirectory() as tmp:
        script = Path(tmp) / "games.txt"
        script.write_text("\n".join(line for _ in range(games) for line in game_lines(rng)) + "\n")
        for backend in backends:
            code = (
                "import resource, subprocess, sys; "
                "subprocess.run(sys.argv[1:], check=True, capture_output=True); "
                "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
            )
            start = time.perf_counter()
            command = [sys.executable, "-m", "orbito_hw", "run", "--mock", "--events", str(script)]
            out = subprocess.run(
                [sys.executable, "-c", code, *command, "--backend", backend],
                capture_output=True,
                text=True,
                check=True,
            )
            wall = time.perf_counter() - start
            peak = int(out.stdout) / 1024
            print(f"{backend:7} {games} games: {wall:6.1f} s, peak RSS {peak:6.1f} MB")


if __name__ == "__main__":
    main()
