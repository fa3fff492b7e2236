"""What the seat's tests share (tests/test_seat*.py): a short game to play against a seat, and
a simulated board's page with its seats on a loop of its own (aiohttp's test client)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.server import WebServer

from .wait import until_async

GAME = "b1 b4 c3 a1 c2 c4 a1".split()
"""A short game, black (the person at the board) first; white (the seat) plays b4, a1, c4;
black wins on turn 7 (found with the rules; test_seat.py checks it)."""


@dataclass
class Board:
    """A simulated board's page on a loop of its own, for many examples."""

    loop: asyncio.AbstractEventLoop
    run: MockRun
    clock: RealTime
    server: WebServer
    client: TestClient[Any, Any]
    events: list[object]
    token: str = ""  # the seat's link, once invited

    def do(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    async def post(self, path: str, **fields: str) -> tuple[int, dict[str, Any]]:
        response = await self.client.post(path, json=fields)
        return response.status, await response.json()

    async def get(self, path: str) -> tuple[int, Any]:
        response = await self.client.get(path)
        if response.content_type == "application/json":
            return response.status, await response.json()
        return response.status, await response.read()

    async def person(self, token: str) -> None:
        """The person at the board plays ``token`` (a placement) and presses."""
        turns = len(self.run.referee.snapshot().saved.turns)
        assert (await self.post(f"/api/square/{token}"))[0] == 200
        assert (await self.post("/api/press"))[0] == 200
        await until_async(lambda: len(self.run.referee.snapshot().saved.turns) == turns + 1,
                          what=f"the person's {token} counted")  # fmt: skip

    def snapshot(self) -> dict[str, Any]:
        return self.server.feed.snapshot()

    @property
    def turns(self) -> list[str]:
        return list(self.run.referee.snapshot().saved.turns)


@contextmanager
def open_board(loop: asyncio.AbstractEventLoop, state_dir: Path) -> Iterator[Board]:
    asyncio.set_event_loop(loop)
    events: list[object] = []

    async def start() -> Board:
        run = MockRun(state_dir, None, on_event=events.append)
        clock = RealTime(run, loop)
        server = WebServer(MockControls(run, clock), None, ArchiveReads(run.state_dir))
        server.feed.watch()
        clock.wake()
        client: TestClient[Any, Any] = TestClient(TestServer(server.app()))
        await client.start_server()
        return Board(loop, run, clock, server, client, events)

    made = loop.run_until_complete(start())
    try:
        yield made
    finally:
        made.do(made.client.close())
        made.server.feed.close()
        made.clock.stop()
        made.run.close()
        loop.close()
