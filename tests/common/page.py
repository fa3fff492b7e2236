"""The page's server on a simulated board, in this process, without a browser (aiohttp's
test client): ``serve`` runs a test against it on a fresh event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.control.settings import Settings
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.controls import BoardControls
from orbito_hw.web.server import WebServer

Test = Callable[[TestClient[Any, Any], MockRun], Awaitable[None]]


def serve(
    test: Test,
    code: str | None = None,
    referee: Settings | None = None,
    real_board: bool = False,
    state_dir: Path | None = None,
) -> None:
    """Run ``test`` against the page of a simulated board, on a fresh event loop."""

    async def main() -> None:
        run = MockRun(state_dir, referee)
        clock = RealTime(run, asyncio.get_running_loop())
        controls = (
            BoardControls(run.referee, run.state_dir, Colour.BLACK)
            if real_board
            else MockControls(run, clock)
        )
        server = WebServer(controls, code, ArchiveReads(run.state_dir))
        server.feed.watch()
        clock.wake()
        try:
            async with TestClient(TestServer(server.app())) as client:
                await test(client, run)
        finally:
            server.feed.close()
            clock.stop()
            run.close()

    asyncio.run(main())
