"""The whole controller on the simulated board, driven by board-script commands.

``MockRun`` owns a virtual clock, the physical ``SimBoard`` (which survives power cuts)
and the controller (which does not): a power cut kills the controller's clock and starts
a new controller from the state directory, the marbles staying where they are.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

from orbito_hw.control.journal import Journal
from orbito_hw.control.referee import Event, Referee, Settings
from orbito_hw.errors import OrbitoError
from orbito_hw.hw.clock import ScopedClock, VirtualClock
from orbito_hw.hw.interfaces import RGB, Board, Button, Lights, RingDrive, SquareSensors
from orbito_hw.sim.board import SimBoard, SimError, seen, sim_parts
from orbito_hw.sim.script import Command

HUMAN_GAP = 0.3
"""Seconds between two things a person does to the board."""
PRESS_TIME = 0.1
"""How long a short press holds the button down."""
RINGS_TIMEOUT = 30.0
SETTLE_AT_END = 3.0

Finger = Callable[[bool], None]
"""Presses (True) or releases (False) the board's button, as a person's finger would."""
Parts = tuple[SquareSensors, Button, RingDrive, Lights, Finger]
PartsFactory = Callable[[SimBoard, ScopedClock], Parts]
"""Builds the controller's parts on the simulated board: the backend under test."""


class CommandError(OrbitoError):
    """A board-script command the simulated board cannot carry out."""


class MockRun:
    def __init__(
        self,
        state_dir: str | Path | None = None,
        settings: Settings | None = None,
        parts: PartsFactory | str = "sim",
        on_event: Callable[[Event], None] | None = None,
    ) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="orbito-hw-") if state_dir is None else None
        self.state_dir = Path(self._tmp.name if self._tmp else str(state_dir))
        self.settings = settings or Settings()
        self.clock = VirtualClock()
        self.physics = SimBoard(clock=self.clock)
        self._parts = BACKENDS[parts] if isinstance(parts, str) else parts
        self.events: list[Event] = []
        self._on_event = on_event
        self.commands_run = 0
        self.source = "line"
        self._boot()

    # --- the controller's life ---------------------------------------------------
    def _boot(self) -> None:
        self.scope = ScopedClock(self.clock)
        sensors, button, drive, lights, finger = self._parts(self.physics, self.scope)
        self.drive, self.lights, self.finger = drive, lights, finger
        self.referee = Referee(
            Board(self.scope, sensors, button, drive, lights),
            Journal(self.state_dir),
            self.settings,
        )
        self.referee.add_listener(self._event)
        self.referee.start()
        self.advance(0.0)
        self.wait_for_rings()

    def power_cut(self) -> None:
        self._settle_link()
        self.scope.kill()
        self._close_drive()  # the Pico is powered by the Pi: it goes down too
        self.physics.unsubscribe_all()
        self._boot()  # a marble held in a hand stays in the hand

    def _event(self, event: Event) -> None:
        self.events.append(event)
        if self._on_event is not None:
            self._on_event(event)

    # --- time --------------------------------------------------------------------
    def advance(self, seconds: float) -> None:
        self._settle_link()
        self.clock.advance(seconds)
        self._settle_link()

    def _settle_link(self) -> None:
        """A drive on a real-time link (the simulated Pico) must finish what it was asked
        before virtual time runs on; its reports arrive as posted callbacks."""
        wait_idle = getattr(self.drive, "wait_idle", None)
        while wait_idle is not None and not wait_idle(0.0):
            wait_idle(10.0)
            self.clock.advance(0.0)

    def _close_drive(self) -> None:
        if hasattr(self.drive, "wait_idle"):
            self.drive.close()

    def wait_for_rings(self) -> None:
        """Players keep their hands off while the rings turn and the board checks itself."""
        deadline = self.clock.now() + RINGS_TIMEOUT
        while self._hands_off() and self.clock.now() < deadline:
            self.clock.advance(0.05)

    def _hands_off(self) -> bool:
        return self.drive.moving or not self.physics.aligned or self.referee.busy

    def finish(self) -> None:
        self.wait_for_rings()
        self.advance(SETTLE_AT_END)

    # --- commands ----------------------------------------------------------------
    def run(self, command: Command, first_command: bool = False) -> None:
        try:
            self._do(command, first_command)
        except SimError as exc:
            where = f"{self.source}:{command.line}: " if command.line else ""
            raise CommandError(f"{where}{command.text()}: {exc}") from None
        self.commands_run += 1

    def _do(self, c: Command, first_command: bool) -> None:
        if c.name in ("lift", "put", "bounce", "reset"):
            self.wait_for_rings()
        if c.name == "lift":
            assert c.square is not None
            self.physics.lift(c.square)
        elif c.name == "put":
            self._put(c)
        elif c.name == "bounce":
            assert c.square is not None
            self.physics.chatter(c.square)
        elif c.name in ("press", "hold"):
            self.physics.empty_hand()
            self.finger(True)
            self.advance(c.seconds if c.name == "hold" else PRESS_TIME)
            self.finger(False)
        elif c.name == "wait":
            self.advance(c.seconds)
            return
        elif c.name == "slip":
            self.physics.slip += c.steps
            return
        elif c.name == "power-cut":
            self.power_cut()
            return
        elif c.name == "reset":
            assert c.colour is not None
            self.physics.clear()
            self.referee.new_game(c.colour, next_game=not first_command)
        self.advance(HUMAN_GAP)

    def _put(self, c: Command) -> None:
        assert c.square is not None
        if c.colour is not None:
            self.physics.put(c.square, c.colour)
        elif self.physics.put_from_hand(c.square) is None:
            self.physics.put(c.square, self.referee.position.to_move)

    def run_script(self, commands: list[Command]) -> None:
        for i, command in enumerate(commands):
            self.run(command, first_command=i == 0)
        self.finish()

    def lights_frame(self) -> tuple[list[RGB | None], RGB | None]:
        """What the strip shows now: the 16 squares and the status pixel."""
        return seen(self.lights)

    def close(self) -> None:
        self.scope.kill()
        self._close_drive()
        self.referee.close()
        if self._tmp is not None:
            self._tmp.cleanup()


def _sim_parts(board: SimBoard, clock: ScopedClock) -> Parts:
    sensors, button, drive, lights = sim_parts(board, clock)
    return sensors, button, drive, lights, button.set


def _gpio_parts(board: SimBoard, clock: ScopedClock) -> Parts:
    from orbito_hw.sim.gpio_pins import GpioSimWiring  # gpiozero and adafruit only when chosen

    wiring = GpioSimWiring(board)  # fresh pins for every boot, as after a real power cut
    sensors, button, drive, lights = wiring.parts(clock)
    return sensors, button, drive, lights, wiring.finger


class SimRings:
    """The simulated board as the simulated Pico's motor port. The Pico's thread calls in
    only while the harness waits on the link (``wait_idle``), never alongside it."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board

    def step(self, forward: bool) -> None:
        if not forward:
            raise SimError("the Pico drove the rings clockwise")
        self.board.step()

    def index_active(self) -> bool:
        return self.board.index_active()

    def read_squares(self) -> int:
        return self.board.occupancy()


def _serial_parts(board: SimBoard, clock: ScopedClock) -> Parts:
    from orbito_hw.sim.pico import mock_serial_drive  # pyserial and a pty only when chosen

    sensors, button, _, lights = sim_parts(board, clock)
    drive = mock_serial_drive(clock, SimRings(board), board.steps_per_place)
    return sensors, button, drive, lights, button.set


BACKENDS: dict[str, PartsFactory] = {
    "sim": _sim_parts,
    "gpio": _gpio_parts,
    "serial": _serial_parts,
}
"""The drivers ``run --mock --backend NAME`` runs against the simulated board."""
