"""A running board takes a set-up request as it comes (app/inbox.py): the kernel's inotify on
a real directory says when the request file is renamed in, no timer runs while the board
waits, other files written there (the journal's, the archive's) call for nothing, and
without inotify the directory is looked at every POLL seconds."""

from __future__ import annotations

import asyncio
import struct
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.app.inbox import EVENT, Inbox, names
from orbito_hw.control.requests import NAME, POLL, SetupRequest, write_request
from orbito_hw.rules.game import Colour


def run(body: object) -> None:
    asyncio.run(body)  # type: ignore[arg-type]


def test_a_request_written_is_taken_at_once_and_nothing_ticks_meanwhile(tmp_path: Path) -> None:
    async def body() -> None:
        loop = asyncio.get_running_loop()
        taken: list[float] = []
        inbox = Inbox(loop, tmp_path, lambda: taken.append(loop.time()))
        inbox.start()
        try:
            assert inbox.watching
            assert not loop._scheduled  # type: ignore[attr-defined]  # no timer: no wake-up
            (tmp_path / "journal.jsonl").write_text("{}\n")  # the journal's writes: nothing
            await asyncio.sleep(0.2)
            assert taken == []
            asked = loop.time()
            write_request(tmp_path, SetupRequest(Colour.WHITE, ("a1", "b2")))
            for _ in range(100):
                if taken:
                    break
                await asyncio.sleep(0.01)
            assert len(taken) == 1 and taken[0] - asked < 0.5
            assert (tmp_path / NAME).exists()  # reading it is the referee's (serve_request)
        finally:
            inbox.close()
            inbox.close()  # idempotent

    run(body())


def test_without_inotify_the_directory_is_looked_at_every_poll(tmp_path: Path) -> None:
    missing = tmp_path / "gone"  # a watch on a directory that is not there fails: polling

    async def body() -> None:
        loop = asyncio.get_running_loop()
        taken: list[float] = []
        inbox = Inbox(loop, missing, lambda: taken.append(loop.time()))
        inbox.start()
        try:
            assert not inbox.watching
            await asyncio.sleep(POLL * 1.5)
            assert len(taken) == 1
        finally:
            inbox.close()
        await asyncio.sleep(POLL)
        assert len(taken) == 1  # closed: no more looks

    run(body())


def event(name: str, mask: int = 0x80) -> bytes:
    raw = name.encode()
    padded = raw + b"\0" * (16 - len(raw) % 16) if raw else b""
    return EVENT.pack(1, mask, 0, len(padded)) + padded


@given(st.lists(st.text(alphabet="abcdefghij.-_", max_size=30), max_size=8))
def test_the_kernels_events_are_read_name_by_name(files: list[str]) -> None:
    data = b"".join(event(name) for name in files)
    assert names(data) == [name for name in files if name]


def test_a_truncated_event_is_left_out() -> None:
    data = event(NAME) + struct.pack("iI", 1, 0x80)  # a partial header: not an event
    assert names(data) == [NAME]
