"""The whole controller on the simulated board, driven by board-script commands.

``MockRun`` owns a simulated world (``sim/world.py``: a virtual clock, the physical
``SimBoard``, which survives power cuts, and the backend under test) and the controller
(which does not): a power cut kills the controller's parts and starts a new controller from
the state directory, the marbles staying where they are.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from orbito_hw.control.events import Event, EventListener
from orbito_hw.control.guard import timer_name
from orbito_hw.control.journal import Journal
from orbito_hw.control.players import BoardPlayer
from orbito_hw.control.puzzle import PuzzleWatch
from orbito_hw.control.referee import Referee, State
from orbito_hw.control.requests import Desk
from orbito_hw.control.settings import Settings
from orbito_hw.errors import OrbitoError
from orbito_hw.hw.interfaces import RGB, Backend
from orbito_hw.rules.game import Colour
from orbito_hw.sim.board import SimError, seen
from orbito_hw.sim.script import Command
from orbito_hw.sim.world import SimWorld
from orbito_hw.solver.opponents import Level, level_opponent, parse_level

HUMAN_GAP = 0.3
"""Seconds between two things a person does to the board."""
PRESS_TIME = 0.1
"""How long a short press holds the button down."""
RINGS_TIMEOUT = 30.0
SETTLE_AT_END = 3.0


def board_player(level: Level, colour: Colour, seed: int | None = None) -> BoardPlayer:
    """The board playing ``colour`` at ``level``, its choices drawn from ``seed``."""
    return BoardPlayer(colour, level_opponent(level, seed).choose, f"board:{level.name}")


class CommandError(OrbitoError, ValueError):
    """A board-script command the simulated board cannot carry out."""


class ControllerFailedError(OrbitoError, RuntimeError):
    """The controller stopped after an internal error (its fault event names it): on a real
    board the watchdog would restart it; here the script stops (``run --events`` exits 1)."""


class MockRun:
    def __init__(
        self,
        state_dir: str | Path | None = None,
        settings: Settings | None = None,
        parts: Backend = "sim",
        on_event: EventListener | None = None,
        seed: int | None = None,
        on_boot: Callable[[Referee], None] | None = None,
        colour: bool = True,
        keep_events: bool = True,
        room: str = "dark",
    ) -> None:
        self._tmp = tempfile.TemporaryDirectory(prefix="orbito-hw-") if state_dir is None else None
        self.state_dir = Path(self._tmp.name if self._tmp else str(state_dir))
        self.settings = settings or Settings()
        if self.settings.make_player is None:  # the opponent menu, its choices seeded
            self.settings = replace(self.settings, make_player=self._make_player)
        self.seed = seed  # of the board's choices, when it plays (the opponent directive)
        # An opponent directive waiting for the next reset: (the player or None,) or ().
        self._next_opponent: tuple[BoardPlayer | None, ...] = ()
        self.world = SimWorld(
            parts, colour=colour, room=room
        )  # colour: hall sensors tell black from white
        self.clock, self.physics = self.world.clock, self.world.physics
        # Every event kept, for the scripts and tests that read them (``events``); not in a
        # world that runs for days (the page's, the broker's): they hear each as it comes.
        self.keep_events = keep_events
        self.typed_events: list[Event] = []
        self._on_event = on_event
        # Called after each start of the controller (the first and after every power cut),
        # once it has read its journal: the game archive catches up from it there.
        self._on_boot = on_boot
        self.commands_run = 0
        self.source = "line"
        self._boot()

    # --- the controller's life ---------------------------------------------------
    def _boot(self) -> None:
        parts = self.parts = self.world.boot()
        self.scope, self.drive = parts.clock, parts.drive
        self.lights, self.finger = parts.lights, parts.finger
        settings = self.settings  # a colour board's scan waited out, as on a real board
        if parts.settle > settings.settle:
            settings = replace(settings, settle=parts.settle)
        self.referee = Referee(parts.board(), Journal(self.state_dir), settings)
        self.referee.subscribe(self._event)
        # What escapes a timer on the virtual clock (the light show's, the simulated parts')
        # becomes the referee's fault, as app/run.py's handler does on the asyncio loop.
        self.clock.set_exception_handler(self._clock_error)
        self.referee.start()
        self.puzzles = PuzzleWatch.attach(self.referee)  # a puzzle game goes on after a cut
        if self._on_boot is not None:
            self._on_boot(self.referee)
        # A set-up asked for from outside (``games resume``, ``--resume``), as a real board
        # takes it: the request file in the state directory, taken once the rings have
        # homed, and whenever the referee is next free after a look found it busy.
        self.desk = Desk.attach(self.referee, self.state_dir)
        self.advance(0.0)
        self.wait_for_rings()
        self.advance(0.0)
        self.wait_for_rings()  # a failure here is surfaced by the command that booted it

    def power_cut(self) -> None:
        self._settle_link()
        self.world.power_cut(self.parts)  # the Pico is powered by the Pi: it goes down too
        self.referee.journal.close()  # the dead controller's lock on the state directory goes
        self._boot()  # a marble held in a hand stays in the hand

    def _clock_error(self, exc: Exception, callback: Callable[[], None]) -> None:
        self.referee.fail(timer_name(callback), exc)

    def check_controller(self) -> None:
        """ControllerFailedError if the referee has stopped after an internal error: nothing a
        script does after it would be refereed."""
        if not self.referee.healthy:
            raise ControllerFailedError(self.referee.guard.failure or "the referee has stopped")

    @property
    def events(self) -> list[dict[str, object]]:
        """The events so far as JSON, what SPEC.md's ``--events`` prints (made when asked:
        a long run keeps its typed events only)."""
        return [event.to_json() for event in self.typed_events]

    def _event(self, event: Event) -> None:
        if self.keep_events:
            self.typed_events.append(event)
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
        while not self.drive.wait_idle(0.0):
            self.drive.wait_idle(10.0)
            self.clock.advance(0.0)

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
        self.check_controller()

    # --- commands ----------------------------------------------------------------
    def run(self, command: Command, first_command: bool = False) -> None:
        try:
            self._do(command, first_command)
        except SimError as exc:
            where = f"{self.source}:{command.line}: " if command.line else ""
            raise CommandError(f"{where}{command.text()}: {exc}") from None
        self.check_controller()
        self.commands_run += 1

    def _do(self, c: Command, first_command: bool) -> None:
        if c.name in ("lift", "put", "bounce", "reset", "press", "hold", "slip", "setup"):
            # A person waits for the rings to stop (a slip makes them home for longer)
            # before touching the board or pressing again; a slip is for the NEXT ring
            # move (SPEC.md), not the one still turning.
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
        elif c.name == "opponent":
            self._opponent(c)
            return
        elif c.name == "hints":
            self.settings = replace(self.settings, hints=c.on)  # the next boots too
            self.referee.set_hints(c.on)
            return
        elif c.name == "reset":
            assert c.colour is not None
            self.physics.clear()
            # A person clears the board, then holds: the sensors have read it empty by the
            # hold (an ADC scanning the squares reads them a scan later, not at once).
            self.advance(HUMAN_GAP)
            if self._next_opponent:
                self._play_opponent(self._next_opponent[0], now=False)
            self.referee.new_game(c.colour, next_game=not first_command)
        elif c.name == "setup":
            # A new game as a reset starts one, from a position: the marbles stay where they
            # are (the script puts and lifts them to match the LEDs).
            assert c.colour is not None
            if self._next_opponent:
                self._play_opponent(self._next_opponent[0], now=False)
            self.referee.set_up(c.colour, list(c.moves), next_game=not first_command)
        self.advance(HUMAN_GAP)

    @property
    def opponent_later(self) -> bool:
        """An ``opponent`` directive waits for the next game (this one had begun)."""
        return bool(self._next_opponent)

    def play_given_opponent(self) -> None:
        """The opponent of the settings given (``--opponent``) plays now, even in an old
        game of the state directory whose journal names another (the journal keeps the
        opponent menu's choice from game to game)."""
        wanted, now = self.settings.opponent, self.referee.opponent
        if wanted is None:
            return
        if now is None or (now.player, now.colour) != (wanted.player, wanted.colour):
            self.referee.set_opponent(wanted)
            self.wait_for_rings()

    def _make_player(self, level: str, colour: Colour) -> BoardPlayer:
        return board_player(parse_level(level), colour, self.seed)

    def _opponent(self, c: Command) -> None:
        """SPEC.md: from the next ``reset``, or at once if no marble was placed in this game."""
        player = None
        if c.level is not None:
            assert c.colour is not None
            player = board_player(parse_level(c.level), c.colour, self.seed)
        now = self.referee.snapshot()
        if now.saved.own_turns or now.pending is not None or now.touched:
            self._next_opponent = (player,)
        else:
            self._play_opponent(player, now=True)

    def _play_opponent(self, player: BoardPlayer | None, now: bool) -> None:
        self._next_opponent = ()
        self.settings = replace(self.settings, opponent=player)  # the next boots too
        if now:
            self.referee.set_opponent(player)
        else:
            self.referee.set_next_opponent(player)  # the new game about to start chooses with it

    def _put(self, c: Command) -> None:
        assert c.square is not None
        if c.colour is not None:
            self.physics.put(c.square, c.colour)
            return
        if self.referee.state in (State.WAITING, State.TURN, State.UNDOING):
            # In play the hand holds what the referee has it hold: the marbles lifted off
            # the board this turn (a press, a set-up or a correction set the others aside),
            # so hall sensors read the colour the script means.
            self.physics.hand = [marble.colour for marble in self.referee.hand]
        if self.physics.put_from_hand(c.square) is None:
            self.physics.put(c.square, self.referee.position.to_move)

    def run_script(self, commands: list[Command]) -> None:
        for i, command in enumerate(commands):
            self.run(command, first_command=i == 0)
        self.finish()

    def lights_frame(self) -> tuple[list[RGB | None], RGB | None]:
        """What the strip shows now: the 16 squares and the status pixel."""
        return seen(self.lights)

    def close(self) -> None:
        self.world.power_cut(self.parts)
        self.referee.close()
        self.referee.journal.close()
        if self._tmp is not None:
            self._tmp.cleanup()
