"""The real-time ``--mock`` worlds, each wired in one place: the simulated board with its
page (``serve_mock``), in a remote game over a broker (``serve_remote``), or both (the page
playing the remote game). The plain world, the board on its virtual clock alone, is
sim/harness.py's ``MockRun`` (``run --mock``, ``--events``, ``--interactive``).

This is the one module that brings the page (page.py, web/) and the broker (remote.py,
remote/) together: neither world imports the other's. aiohttp and aiomqtt are imported by
the modules this one imports, so the command line imports this module only when a world
with a page or a broker is asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import stat
import sys
import tempfile
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.archive.recorder import Recorder
from orbito_hw.control.events import Event
from orbito_hw.control.referee import Referee
from orbito_hw.control.settings import Settings
from orbito_hw.errors import OrbitoError
from orbito_hw.hw.clock import close_loop
from orbito_hw.hw.interfaces import Backend
from orbito_hw.lang import _, reworded
from orbito_hw.mock.page import MOCK_BIND, MockControls
from orbito_hw.mock.realtime import RealTime, put_back
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.link import Credentials
from orbito_hw.remote.protocol import BrokerUrl
from orbito_hw.remote.spectator import BrokerWatch
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import ControllerFailedError, MockRun
from orbito_hw.sim.script import Command, parse_line
from orbito_hw.web.seat_book import BoardInvites
from orbito_hw.web.server import WebServer

log = logging.getLogger(__name__)

SETTLE: Final = 0.5  # seconds at the end of a script for the last messages to go out


# --- with the page ------------------------------------------------------------------------------
def serve_mock(
    port: int,
    bind: str | None = None,
    code: str | None = None,
    state_dir: str | None = None,
    backend: Backend = "sim",
    settings: Settings | None = None,
    seed: int | None = None,
    say: Callable[[str], None] = lambda text: print(text, file=sys.stderr, flush=True),
    remote: tuple[BrokerUrl, Colour] | None = None,
    board_id: str | None = None,
    on_boot: Callable[[Referee], None] | None = None,
) -> int:
    """The simulated board with its page, until SIGINT or SIGTERM; with ``remote`` (the
    broker's game and the colour played here) in that remote game, on the same loop, as
    ``board_id`` (None: its own, kept in the state directory). ``on_boot``: called at each
    start of the controller before the archive catches up (``--resume`` leaves its request).
    OrbitoError (exit 2) when the port cannot be listened on."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # The games played are archived even in a fresh directory: the page lists them.
    temporary = tempfile.TemporaryDirectory(prefix="orbito-hw-") if state_dir is None else None
    where = Path(temporary.name if temporary else str(state_dir))
    archive = Recorder(where, defer=loop.call_soon)  # a press waits on no archive commit
    clock: RealTime | None = None
    board: RemoteMock | None = None
    booted = archive.boot if on_boot is None else _both_boots(on_boot, archive.boot)
    invites = BoardInvites()  # the menu's "invite a player", made by the page's seats
    if remote is None:
        settings = replace(settings or Settings(), invite_seat=invites)
        run = MockRun(where, settings, backend, archive, seed=seed, on_boot=booted,
                      keep_events=False)  # fmt: skip
    else:
        board = RemoteMock(
            *remote, where, backend=backend, settings=settings, seed=seed, on_event=archive,
            on_boot=booted, wake=lambda: clock.wake() if clock else None,
            keep_events=False, board_id=board_id,
        )  # fmt: skip
        run = board.run
    server: WebServer | None = None
    try:
        put_back(run)
        if remote is None:
            run.play_given_opponent()  # --opponent plays, whatever an old journal said
        clock = RealTime(run, loop)
        if board is not None:
            board.connect(loop)
        # Its games on the broker of a remote game can be watched from the page.
        watch = BrokerWatch(remote[0], Credentials()) if remote is not None else None
        server = WebServer(MockControls(run, clock), code, ArchiveReads(run.state_dir), watch)
        try:
            loop.run_until_complete(server.start(bind or MOCK_BIND, port))
        except OSError as exc:
            listen = f"--port {port}: cannot listen on {bind or MOCK_BIND}"
            raise OrbitoError(f"{listen}: {exc.strerror or exc}") from None
        invites.to = server.seats.invite_at_board
        clock.wake()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, loop.stop)
        host = bind or MOCK_BIND
        at = _("the simulated board is at {address} (Ctrl-C stops it)")
        say(f"orbito-hw: {at.format(address=f'http://{host}:{server.port}/')}")
        loop.run_forever()
    finally:
        if server is not None:
            loop.run_until_complete(server.stop())
        if clock is not None:
            clock.stop()
        if board is not None:
            loop.run_until_complete(board.close())
        else:
            run.close()
        archive.close()
        close_loop(loop)
        if temporary is not None:
            temporary.cleanup()
    return 0


def _both_boots(
    first: Callable[[Referee], None], then: Callable[[Referee], None]
) -> Callable[[Referee], None]:
    def boot(referee: Referee) -> None:
        first(referee)
        then(referee)

    return boot


# --- with the broker --------------------------------------------------------------------------
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
    typed: Typed | None = None,
    started: Callable[[MockRun], None] | None = None,
    board_id: str | None = None,
) -> int:
    """Run a simulated board in the remote game until the script ends (``script``), or
    stdin does (None), or SIGINT/SIGTERM; 1 if its controller failed. ``prompt`` is called
    after each line typed; ``typed`` reads the lines a person types (the prompt's);
    ``board_id`` the board's id (None: its own, kept in the state directory)."""
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
        keep_events=False,
        board_id=board_id,
    )
    try:
        put_back(board.run)
        if started is not None:  # the prompt draws this board
            started(board.run)
        clock.append(RealTime(board.run, loop))
        clock[0].wake()
        board.connect(loop)
        steps = _script(board, script) if script is not None else _typed(board, loop, prompt, typed)
        main = loop.create_task(steps)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, main.cancel)
        with contextlib.suppress(asyncio.CancelledError):  # a signal: stop as at the end
            loop.run_until_complete(main)
        board.run.finish()
    except ControllerFailedError as exc:
        said = _("the controller failed: {reason}").format(reason=reworded(str(exc)))
        print(f"orbito-hw: {said}", file=sys.stderr)
        return 1
    finally:
        if clock:
            clock[0].stop()
        loop.run_until_complete(board.close())
        close_loop(loop)
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


class Typed(Protocol):
    """A person's lines, typed at a prompt: ``lines()`` yields them; ``interpret`` turns one
    into a command (None: nothing to run; EOFError: leave)."""

    def lines(self) -> AsyncIterator[str]: ...

    def interpret(self, text: str, number: int) -> Command | None: ...


async def _typed(
    board: RemoteMock,
    loop: asyncio.AbstractEventLoop,
    prompt: Callable[[], None] | None,
    typed: Typed | None = None,
) -> None:
    """Commands typed (or piped) on stdin, read on the loop: the other board's turns come
    in while the person thinks. A bad line is named on stderr; the next one is read. With
    ``typed`` (a person at a terminal) the rings' move ends before the next prompt."""
    from orbito_hw.sim.harness import CommandError

    number = 0
    source = typed.lines() if typed is not None else _stdin_lines(loop)
    async for raw in source:
        number += 1
        try:
            text = raw if isinstance(raw, str) else raw.decode("utf-8")
            text = text.removeprefix("\ufeff").rstrip("\r\n")
            if typed is not None:
                command = typed.interpret(text, number)
            else:
                command = parse_line(text, number)
            if command is not None and command.name == "wait":
                await asyncio.sleep(command.seconds)
                board.wake()
            elif command is not None:
                board.command(command, first_command=number == 1)
                if typed is not None:
                    await _rings_still(board.run)
        except EOFError:  # quit
            break
        except UnicodeDecodeError:
            said = _("line {number} is not UTF-8 text").format(number=number)
            print(f"orbito-hw: {said}", file=sys.stderr)
        except (ValueError, CommandError) as exc:
            print(f"orbito-hw: {reworded(str(exc))}", file=sys.stderr)
        if prompt is not None:
            prompt()
    await asyncio.sleep(SETTLE)


async def _rings_still(run: MockRun, most: float = 30.0) -> None:
    """Until the rings have stopped and the board has checked itself (``most`` seconds)."""
    for _tick in range(int(most / 0.05)):
        await asyncio.sleep(0.05)
        if not (run.drive.moving or not run.physics.aligned or run.referee.busy):
            return


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
