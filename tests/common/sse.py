"""Reading the page's ``/events`` stream in a test (aiohttp's test client)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from aiohttp import ClientResponse


async def next_event(stream: ClientResponse, kind: str | None = None) -> dict[str, Any]:
    """The next ``data:`` event on ``stream`` (of ``kind`` if given), within 5 s."""
    async with asyncio.timeout(5):
        while True:
            line = await stream.content.readline()
            assert line, "the stream ended"
            if line.startswith(b"data: "):
                event: dict[str, Any] = json.loads(line[6:])
                if kind is None or event["event"] == kind:
                    return event


async def snapshot_after(
    stream: ClientResponse, check: Callable[[dict[str, Any]], bool]
) -> dict[str, Any]:
    """The first snapshot on ``stream`` for which ``check`` holds."""
    while True:
        event = await next_event(stream, "snapshot")
        if check(event):
            return event
