"""Two boards over a local mosquitto, timed: from the press on one board to the turn lit on
the other.

python benchmarks/remote.py [GAMES] [SEED]    (GAMES random games; 10 by default)

Starts Debian's mosquitto on a free loopback port (its own config, no persistence), then two
simulated boards (mock/remote.py's RemoteMock: MockRun, RemoteGame and the aiomqtt link) on
one event loop, as the tests do. Each turn: the mover's person makes the turn and presses;
what is timed is perf_counter from the press command to the moment the other board has drawn
the turn on its LEDs (its ``board-turn`` event emitted and the frame shown, after the message
that brought it). In between: the press, the rings turning and settling on the VIRTUAL clock
(waits, not CPU: the real rings take about a second more), the verify callback, the journal's
fsync'd write, remote.json, the record published with QoS 1 through the broker, received,
parsed, decided, journaled and drawn. Goal: p95 under 100 ms here.

Memory: the process's RSS with both boards built and no link, then once aiomqtt is imported
and both links have played the games: the difference, halved, is what one board's client adds
(an upper bound: the games' events are in it too). Goal: under 15 MB.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from orbito_hw.control.events import BoardTurn
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.protocol import BrokerUrl
from orbito_hw.rules.game import Colour, Position
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.script import Command


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_broker(folder: Path) -> tuple[subprocess.Popen[bytes], int]:
    program = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
    port = free_port()
    config = folder / "mosquitto.conf"
    config.write_text(f"listener {port} 127.0.0.1\nallow_anonymous true\nlog_dest none\n")
    process = subprocess.Popen([program, "-c", str(config)])
    for _ in range(500):
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return process, port
        time.sleep(0.01)
    raise SystemExit("mosquitto did not start")


class Timer:
    """The other board's wake hook: runs after each message it took in."""

    def __init__(self) -> None:
        self.since: float | None = None
        self.number = 0
        self.board: RemoteMock | None = None
        self.times: list[float] = []

    def __call__(self) -> None:
        board = self.board
        if self.since is None or board is None:
            return
        if any(isinstance(e, BoardTurn) and e.number == self.number for e in board.events[-3:]):
            self.times.append(time.perf_counter() - self.since)
            self.since = None


async def wait_for(what: object, boards: dict[Colour, RemoteMock]) -> None:
    assert callable(what)
    deadline = time.monotonic() + 20
    while not what():
        if time.monotonic() > deadline:
            raise SystemExit("timed out")
        await asyncio.sleep(0.001)


async def play(
    boards: dict[Colour, RemoteMock], timers: dict[Colour, Timer], rng: random.Random, game: int
) -> None:
    position = Position.start(Colour.BLACK)
    number = 0
    if game > 1:  # a new game on black's board: white's follows
        boards[Colour.BLACK].do("reset black")
        await wait_for(lambda: boards[Colour.WHITE].run.referee.saved.game == game, boards)
        for board in boards.values():
            board.run.physics.clear()
    while position.result is None:
        number += 1
        turn = rng.choice(list(position.legal_turns()))
        here, there = boards[position.to_move], boards[position.to_move.other]
        timer = timers[position.to_move.other]
        commands = turn_commands(turn, rng)
        for command in commands[:-1]:
            here.command(command)
        timer.number = number
        timer.since = time.perf_counter()
        here.command(Command("press"))
        here.run.wait_for_rings()  # the rings turn on the virtual clock: no real wait
        await wait_for(lambda t=timer: t.since is None, boards)
        for command in turn_commands(turn, rng, board=True):
            there.command(command)
        there.run.wait_for_rings()
        position = position.play(turn)


async def main(games: int, seed: int) -> None:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory() as folder:
        broker, port = start_broker(Path(folder))
        try:
            url = BrokerUrl("127.0.0.1", port, False, "bench")
            timers = {colour: Timer() for colour in Colour}
            boards = {
                colour: RemoteMock(
                    url,
                    colour,
                    Path(folder) / colour.value,
                    board_id=f"{colour}-board",
                    wake=timers[colour],
                )
                for colour in Colour
            }
            for colour, board in boards.items():
                timers[colour].board = board
            before = rss_mb()
            for board in boards.values():
                board.connect()
            await wait_for(lambda: all(b.game.opponent_online for b in boards.values()), boards)
            for game in range(1, games + 1):
                await play(boards, timers, rng, game)
            after = rss_mb()
            for board in boards.values():
                await board.close()
        finally:
            broker.terminate()
            broker.wait()
    times = sorted(t for timer in timers.values() for t in timer.times)
    ms = [t * 1000 for t in times]
    p95 = ms[max(0, round(0.95 * len(ms)) - 1)]
    print(f"{len(ms)} turns in {games} games: press -> lit on the other board")
    print(
        f"  median {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms "
        f"(goal: p95 < 100 ms)"
    )
    print(
        f"  RSS {before:.1f} MB with two boards, {after:.1f} MB with both links: "
        f"{(after - before) / 2:.1f} MB per board's client (goal: < 15 MB)"
    )


if __name__ == "__main__":
    asyncio.run(
        main(
            int(sys.argv[1]) if len(sys.argv) > 1 else 10,
            int(sys.argv[2]) if len(sys.argv) > 2 else 1,
        )
    )
