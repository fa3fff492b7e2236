"""``run --mock --web``: the simulated board in real time, played from a browser.

The simulated board lives on a virtual clock (hw/clock.py's VirtualClock, sim/harness.py's
MockRun). Here the event loop lets it keep up with real time: ``RealTime`` sleeps until the
virtual clock's next timer falls due, then runs what is due, so the rings turn and the LEDs
blink at their real pace, and an idle board costs no CPU. A click runs the board-script
command it stands for through the harness (``lift SQ`` / ``put SQ``, ``press``, the
directives), as a person's hand would, which lets virtual time run ahead by a person's gap:
the clock then simply goes on from there.
"""

from __future__ import annotations

import asyncio
import logging
import signal
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from orbito_hw.app.archive import Recorder
from orbito_hw.app.web import BoardControls, Refused, WebServer
from orbito_hw.control.referee import Referee, Settings
from orbito_hw.errors import OrbitoError
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import square_name
from orbito_hw.sim.harness import HUMAN_GAP, CommandError, ControllerFailed, MockRun
from orbito_hw.sim.script import parse_line

if TYPE_CHECKING:
    from orbito_hw.app.remote_mock import RemoteMock
    from orbito_hw.app.remote_protocol import BrokerUrl

log = logging.getLogger(__name__)

MOCK_BIND = "127.0.0.1"
"""Where the simulated board listens unless ``--config`` names a ``[web] bind``: this
machine only (its controls need no code)."""


class RealTime:
    """Runs the simulated board's virtual clock alongside the event loop's."""

    def __init__(self, run: MockRun, loop: asyncio.AbstractEventLoop) -> None:
        self.run = run
        self.loop = loop
        self.ahead = run.clock.now() - loop.time()  # virtual time minus the loop's
        self._timer: asyncio.TimerHandle | None = None
        self.stopped = False

    def wake(self) -> None:
        """Run every virtual timer due by now, then sleep until the next one."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.stopped:
            return
        clock = self.run.clock
        now = self.loop.time() + self.ahead
        if clock.now() > now:  # a command let a person's gap pass: go on from there
            self.ahead = clock.now() - self.loop.time()
            now = clock.now()
        try:
            self.run.advance(now - clock.now())
        except Exception as exc:  # the clock hands the referee's own errors to the referee
            log.error("the simulated board failed: %s: %s", type(exc).__name__, exc)
        due = clock.next_due()
        if due is not None:
            self._timer = self.loop.call_at(due - self.ahead, self.wake)

    @property
    def asleep(self) -> bool:
        """Whether nothing is due on the simulated board: the loop sleeps on I/O alone."""
        return self._timer is None

    def stop(self) -> None:
        self.stopped = True
        if self._timer is not None:
            self._timer.cancel()


class MockControls(BoardControls):
    """The page's controls on the simulated board: board-script commands run by the harness,
    the button's hold in real time."""

    simulated = True

    def __init__(self, run: MockRun, clock: RealTime) -> None:
        self.run = run
        self.clock = clock
        self.state_dir = run.state_dir
        self.first = run.settings.first

    @property
    def referee(self) -> Referee:
        return self.run.referee

    def touch(self, square: int) -> None:
        """A click on a square: lift the marble there, or put one (SPEC.md's web page)."""
        self.run.wait_for_rings()  # hands off while the rings turn: the click waits for them
        held = self.run.physics.occupancy() >> square & 1
        self._do(f"{'lift' if held else 'put'} {square_name(square)}")

    def button(self, action: str) -> None:
        if action == "click":
            # Pressed and released, and the rings turned (fast-forwarded, the page draws
            # the move): the page shows the turn as the click's answer comes back.
            self._do("press")
            self.run.wait_for_rings()
            self.clock.wake()
            return
        run = self.run
        if action == "down":
            run.wait_for_rings()
            run.physics.empty_hand()  # as ``press`` does: a marble in the hand goes back
        run.finger(action == "down")
        self._settle()

    def new_game(self, first: Colour) -> None:
        self._do(f"reset {first.value}", first_command=not self.referee.saved.turns)

    def set_opponent(self, level: str, colour: Colour) -> None:
        self._do("opponent none" if level == "none" else f"opponent {level} {colour.value}")

    def set_hints(self, on: bool) -> None:
        self._do(f"hints {'on' if on else 'off'}")

    def take_back(self) -> None:
        super().take_back()
        self._settle()

    def _do(self, line: str, first_command: bool = False) -> None:
        command = parse_line(line)
        assert command is not None
        try:
            self.run.run(command, first_command=first_command)
        except CommandError as exc:
            raise Refused(str(exc).split(": ", 1)[-1]) from None
        except ControllerFailed as exc:
            raise Refused(f"the controller failed: {exc}") from None
        finally:
            self.clock.wake()

    def _settle(self) -> None:
        self.run.advance(0.0)
        self.clock.wake()


def put_back(run: MockRun) -> None:
    """A simulated board starts empty in a new process; a real one keeps its marbles. After
    a restart on a state directory that holds a game, the marbles the referee expects are
    put back, as the players would find them (the referee sees its board corrected)."""
    if run.physics.occupancy() or not run.referee.model:
        return
    for square, marble in sorted(run.referee.model.items()):
        run.physics.put(square, marble.colour)
    run.advance(HUMAN_GAP)
    run.wait_for_rings()


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
) -> int:
    """The simulated board with its page, until SIGINT or SIGTERM; with ``remote`` (the
    broker's game and the colour played here) in that remote game, on the same loop.
    OrbitoError (exit 2) when the port cannot be listened on."""
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    # The games played are archived even in a fresh directory: the page lists them.
    temporary = tempfile.TemporaryDirectory(prefix="orbito-hw-") if state_dir is None else None
    where = Path(temporary.name if temporary else str(state_dir))
    archive = Recorder(where)
    clock: RealTime | None = None
    board: RemoteMock | None = None
    if remote is None:
        run = MockRun(where, settings, backend, archive, seed=seed, on_boot=archive.boot)
    else:
        from orbito_hw.app.remote_mock import RemoteMock  # aiomqtt only with --remote

        board = RemoteMock(
            *remote, where, backend=backend, settings=settings, seed=seed, on_event=archive,
            on_boot=archive.boot, wake=lambda: clock.wake() if clock else None,
        )  # fmt: skip
        run = board.run
    server: WebServer | None = None
    try:
        put_back(run)
        clock = RealTime(run, loop)
        if board is not None:
            board.connect(loop)
        watch = None
        if remote is not None:  # its games on that broker can be watched from the page
            from orbito_hw.app.remote import Credentials

            watch = (remote[0], Credentials())
        server = WebServer(MockControls(run, clock), code, run.state_dir, watch)
        try:
            loop.run_until_complete(server.start(bind or MOCK_BIND, port))
        except OSError as exc:
            listen = f"--port {port}: cannot listen on {bind or MOCK_BIND}"
            raise OrbitoError(f"{listen}: {exc.strerror or exc}") from None
        clock.wake()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, loop.stop)
        host = bind or MOCK_BIND
        say(f"orbito-hw: the simulated board is at http://{host}:{server.port}/ (Ctrl-C stops it)")
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
        loop.close()
        if temporary is not None:
            temporary.cleanup()
    return 0
