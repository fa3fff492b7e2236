"""Two simulated boards playing each other through a mosquitto of the test's own (the
``broker`` fixture in conftest.py): joining, a turn made on one board and then on the other,
the records compared with the engine's replay."""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import subprocess
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

from orbito_hw.control.events import BoardTurn, RemoteStatus, TurnPlayed
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.protocol import BrokerUrl
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands

from . import wait
from .needs import free_port, tool
from .scripts import random_game

GAME = "club-night"


def mosquitto() -> str:
    """Debian's mosquitto (``apt-get install mosquitto``; .ci/run installs it)."""
    return tool("mosquitto", "apt-get install mosquitto", ["/usr/sbin/mosquitto"])


class Broker:
    """A mosquitto of the test's own: loopback only, no persistence (a restart forgets
    every retained message: the boards must say again what they hold)."""

    def __init__(self, program: str, folder: Path, websockets: bool = False) -> None:
        self.program = program
        self.port = free_port()
        # A second listener for browsers (a seat's page: MQTT over WebSockets), on its own
        # loopback port; Debian's mosquitto is built with WebSockets.
        self.ws_port = free_port() if websockets else None
        ws = f"listener {self.ws_port} 127.0.0.1\nprotocol websockets\n" if websockets else ""
        self.config = folder / "mosquitto.conf"
        self.config.write_text(
            f"listener {self.port} 127.0.0.1\n{ws}allow_anonymous true\npersistence false\n"
            "log_dest none\n"
        )
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen([self.program, "-c", str(self.config)])
        wait.until(self.listening, 10, f"mosquitto listening on port {self.port}")

    def listening(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", self.port)) == 0

    def stop(self) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(10)
            self.process = None

    def ws_url(self) -> str:
        """The WebSockets listener's address, as a browser's page reaches it."""
        assert self.ws_port is not None, "Broker(..., websockets=True)"
        return f"ws://127.0.0.1:{self.ws_port}/mqtt"

    def url(self, game: str = GAME) -> BrokerUrl:
        return BrokerUrl("127.0.0.1", self.port, False, game)


# --- two boards ----------------------------------------------------------------------------------
def boards(broker: Broker, tmp_path: Path, game: str = GAME) -> dict[Colour, RemoteMock]:
    return {
        colour: RemoteMock(
            broker.url(game),
            colour,
            tmp_path / colour.value,
            board_id=f"{colour}-board",
            retry=0.1,
        )
        for colour in Colour
    }


async def until(
    what: Callable[[], bool], both: dict[Colour, RemoteMock], timeout: float = 15.0
) -> None:
    """Wait on the loop until ``what`` holds; the boards' clocks run meanwhile (0.02 s of
    theirs every 0.01 s)."""

    def advance() -> None:
        for board in both.values():
            board.run.advance(0.02)

    await wait.until_async(what, timeout, "the two boards", step=advance, poll=0.01)


def told(board: RemoteMock, kind: type, since: int = 0, **fields: object) -> bool:
    """Whether ``board`` emitted such an event (after its first ``since`` events)."""
    return any(
        isinstance(e, kind) and all(getattr(e, k) == v for k, v in fields.items())
        for e in board.events[since:]
    )


async def join(both: dict[Colour, RemoteMock]) -> None:
    for board in both.values():
        board.connect()
    await until(
        lambda: all(told(b, RemoteStatus, state="opponent-online") for b in both.values()), both
    )


async def play_turn(
    both: dict[Colour, RemoteMock], number: int, turn: Turn, rng: random.Random
) -> None:
    """The mover's person makes ``turn``; it lights on the other board, whose person makes
    it there too and presses."""
    mover = both[Colour.BLACK].run.referee.position.to_move
    here, there = both[mover], both[mover.other]
    marks = {colour: len(board.events) for colour, board in both.items()}
    for command in turn_commands(turn, rng):
        here.command(command)
    await until(lambda: told(there, BoardTurn, marks[mover.other], number=number), both)
    assert there.run.referee.board_turn == turn
    for command in turn_commands(turn, rng, board=True):
        there.command(command)
    await until(
        lambda: all(told(b, TurnPlayed, marks[c], number=number) for c, b in both.items()), both
    )


def assert_records(both: dict[Colour, RemoteMock], first: Colour, turns: list[Turn]) -> None:
    tokens = [t.notation() for t in turns]
    engine = replay(first, tokens)
    for board in both.values():
        saved = board.run.referee.saved
        assert saved.turns == tokens
        assert saved.first is first
        assert replay(saved.first, saved.turns) == engine


async def close(both: dict[Colour, RemoteMock]) -> None:
    for board in both.values():
        await board.close()


@contextlib.asynccontextmanager
async def playing(
    broker: Broker, tmp_path: Path, game: str = GAME
) -> AsyncIterator[dict[Colour, RemoteMock]]:
    """The two boards, joined in ``game``; closed at the end, whatever happened."""
    both = boards(broker, tmp_path, game)
    try:
        await join(both)
        yield both
    finally:
        await close(both)


def scenario(body: Callable[[], Awaitable[None]]) -> None:
    asyncio.run(asyncio.wait_for(body(), 120))


def game(seed: int) -> tuple[random.Random, list[Turn]]:
    rng = random.Random(seed)
    _, turns = random_game(rng, Colour.BLACK)
    return rng, turns
