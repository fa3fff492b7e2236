"""``run --mock --remote mqtt://HOST:PORT/GAME --plays COLOUR``: a simulated board in a
remote game, so two simulated boards play each other on one machine (or across two).

``RemoteMock`` is the simulated board (sim/harness.py's MockRun), its side of the game
(``RemoteGame``) and its MQTT link, on the running event loop: the tests drive two of them
on one loop. The command runs one in real time (app/web_mock.py's RealTime runs the virtual
clock alongside the loop's): board-script commands from a file (``--events``: ``wait S``
waits S real seconds, time for the other board's turn to arrive) or typed (``--interactive``).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import stat
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Final

from orbito_hw.app.remote import Credentials, MqttLink, RemoteGame, board_id_for
from orbito_hw.app.remote_protocol import BrokerUrl
from orbito_hw.control.events import Event, EventListener
from orbito_hw.control.referee import Referee, Settings
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, parse_line

SETTLE: Final = 0.5  # seconds at the end of a script for the last messages to go out


class RemoteMock:
    """A simulated board playing ``plays`` in the game ``url`` names."""

    def __init__(
        self,
        url: BrokerUrl,
        plays: Colour,
        state_dir: str | Path | None = None,
        *,
        starts: Colour | None = None,
        board_id: str | None = None,
        backend: Backend = "sim",
        settings: Settings | None = None,
        seed: int | None = None,
        on_event: EventListener | None = None,
        on_boot: Callable[[Referee], None] | None = None,
        credentials: Credentials | None = None,
        publish_events: bool = False,
        retry: float = 1.0,
        wake: Callable[[], None] = lambda: None,
    ) -> None:
        assert url.game is not None
        self.url, self.plays, self.retry, self.wake = url, plays, retry, wake
        self.board_id = board_id or board_id_for(plays)
        self.credentials = credentials
        self.publish_events = publish_events
        self.events: list[Event] = []
        self._on_event = on_event
        self._on_boot = on_boot
        base = settings or Settings()
        first = self.starts = starts or base.first
        self.game = self._new_game()
        self.run = MockRun(
            state_dir,
            replace(base, first=first, opponent=self.game.player),
            backend,
            self._event,
            seed=seed,
            on_boot=self._boot,
        )
        self.link: MqttLink | None = None

    def _new_game(self) -> RemoteGame:
        assert self.url.game is not None
        return RemoteGame(
            self.url.game,
            self.plays,
            self.starts,
            self.board_id,
            self._event,
            self.publish_events,
        )

    def _boot(self, referee: Referee) -> None:
        if self._on_boot is not None:
            self._on_boot(referee)
        self.game.attach(referee)

    def _event(self, event: Event) -> None:
        self.events.append(event)
        if self._on_event is not None:
            self._on_event(event)
        self.game.on_event(event)

    # --- the link ------------------------------------------------------------------------------
    def connect(self, loop: asyncio.AbstractEventLoop | None = None) -> None:
        """Join the game on the broker (on ``loop``, default the running one)."""
        self.link = MqttLink(self.game, self.url, self.credentials, self.retry, self.wake)
        self.link.start(loop)

    async def leave(self) -> None:
        if self.link is not None:
            await self.link.stop()
            self.link = None

    async def power_cut(self, back: bool = True) -> None:
        """The board loses power: the link goes without a word (the broker tells the other
        board), the controller restarts from its journal, and (``back``) joins again."""
        if self.link is not None:
            await self.link.cut()
        self.game = self._new_game()  # what it knew in memory is gone
        self.run.settings = replace(self.run.settings, opponent=self.game.player)
        self.run.power_cut()
        if back:
            self.connect()

    # --- the person at the board -------------------------------------------------------------
    def do(self, line: str) -> None:
        """One board-script command, as a person does it."""
        command = parse_line(line)
        assert command is not None, line
        self.command(command)

    def command(self, command: Command, first_command: bool = False) -> None:
        try:
            self.run.run(command, first_command=first_command)
        finally:
            self.wake()

    async def close(self) -> None:
        await self.leave()
        self.run.close()


# --- the command -------------------------------------------------------------------------------
def serve_remote(
    url: BrokerUrl,
    plays: Colour,
    script: list[Command] | None,
    show: Callable[[Event], None],
    state_dir: str | None = None,
    backend: Backend = "sim",
    settings: Settings | None = None,
    seed: int | None = None,
    on_boot: Callable[[Referee], None] | None = None,
    prompt: Callable[[], None] | None = None,
) -> int:
    """Run a simulated board in the remote game until the script ends (``script``), or
    stdin does (None), or SIGINT/SIGTERM; 1 if its controller failed."""
    from orbito_hw.app.web_mock import RealTime, put_back
    from orbito_hw.sim.harness import ControllerFailed

    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    clock: list[RealTime] = []
    board = RemoteMock(
        url,
        plays,
        state_dir,
        backend=backend,
        settings=settings,
        seed=seed,
        on_event=show,
        on_boot=on_boot,
        wake=lambda: clock[0].wake() if clock else None,
    )
    try:
        put_back(board.run)
        clock.append(RealTime(board.run, loop))
        clock[0].wake()
        board.connect(loop)
        steps = _script(board, script) if script is not None else _typed(board, loop, prompt)
        main = loop.create_task(steps)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, main.cancel)
        with contextlib.suppress(asyncio.CancelledError):  # a signal: stop as at the end
            loop.run_until_complete(main)
        board.run.finish()
    except ControllerFailed as exc:
        print(f"orbito-hw: the controller failed: {exc}", file=sys.stderr)
        return 1
    finally:
        if clock:
            clock[0].stop()
        loop.run_until_complete(board.close())
        loop.close()
    return 0


async def _script(board: RemoteMock, script: list[Command]) -> None:
    for i, command in enumerate(script):
        if command.name == "wait":  # real seconds: the other board's turn may come meanwhile
            await asyncio.sleep(command.seconds)
            board.wake()
        else:
            board.command(command, first_command=i == 0)
            await asyncio.sleep(0)
    await asyncio.sleep(SETTLE)


async def _typed(
    board: RemoteMock, loop: asyncio.AbstractEventLoop, prompt: Callable[[], None] | None
) -> None:
    """Commands typed (or piped) on stdin, read on the loop: the other board's turns come
    in while the person thinks. A bad line is named on stderr; the next one is read."""
    from orbito_hw.sim.harness import CommandError

    number = 0
    async for raw in _stdin_lines(loop):
        number += 1
        try:
            text = raw.decode("utf-8").removeprefix("\ufeff").rstrip("\r\n")
            command = parse_line(text, number)
            if command is not None and command.name == "wait":
                await asyncio.sleep(command.seconds)
                board.wake()
            elif command is not None:
                board.command(command, first_command=number == 1)
        except UnicodeDecodeError:
            print(f"orbito-hw: line {number} is not UTF-8 text", file=sys.stderr)
        except (ValueError, CommandError) as exc:
            print(f"orbito-hw: {exc}", file=sys.stderr)
        if prompt is not None:
            prompt()
    await asyncio.sleep(SETTLE)


async def _stdin_lines(loop: asyncio.AbstractEventLoop) -> AsyncIterator[bytes]:
    """stdin's lines as bytes: read on the loop from a pipe or terminal; a regular file
    (``< script``) cannot block, so it is read as it stands."""
    fd = sys.stdin.fileno()
    if stat.S_ISREG(os.fstat(fd).st_mode):
        for line in sys.stdin.buffer.read().splitlines(keepends=True):
            yield line
            await asyncio.sleep(0)
        return
    reader = asyncio.StreamReader(limit=1 << 20)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while line := await reader.readline():
        yield line
