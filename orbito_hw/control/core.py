"""The referee's state and the few steps every part of it takes.

``Core`` owns what the referee knows: the state (changed only by ``go``, through
machine.py's ``TRANSITIONS``), the game as journaled (``saved``), the marbles as the lifts and
puts left them (``reader``), the turn on its way (``pending``), the refusal shown, the
listeners, and the board through the guard. The referee (referee.py) is a ``Core`` with the
steps of a turn; its parts (players.py, hints.py, takeback.py, correction.py, setup.py) each
carry one idea of it and take a ``Core`` and the sibling parts they use, never the referee
itself: none imports the referee, and none reaches a private member of it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.events import Event, EventListener, Fault, GameOver
from orbito_hw.control.guard import Guard
from orbito_hw.control.journal import Journal, Saved
from orbito_hw.control.lights import LightShow, View, follow
from orbito_hw.control.machine import TRANSITIONS, State, TransitionError, Trigger
from orbito_hw.control.reading import TurnReader
from orbito_hw.control.settings import Settings
from orbito_hw.hw.interfaces import RGB, Board, Health
from orbito_hw.lang import _
from orbito_hw.rules.game import Position
from orbito_hw.rules.turn import Turn

log = logging.getLogger("orbito_hw.control.referee")  # the referee's log, as it always was
S = State


class Core:
    """The referee's state, and the steps its parts take on it."""

    def __init__(self, board: Board, journal: Journal, settings: Settings | None = None) -> None:
        # Every way in passes the guard (guard.py): the parts below check what they report
        # and guard each callback the referee hands them, wherever it hands one over.
        self.guard = Guard(on_fault=self._stopped, on_refusal=self._refused_input)
        self.board = self.guard.board(board)
        self.clock = self.board.clock
        self.journal = journal
        self.settings = settings or Settings()
        self._state = State.STARTING
        self.saved = Saved(first=self.settings.first)
        self.reader = TurnReader(Position.start(self.settings.first))
        self.pending: Turn | None = None
        self.refusal: View | None = None  # the refusal shown, until a touch
        self.finishing = 0  # whole places a ring move was finished by so far
        # The board's health as last told (hw/health.py holds it): its parts missing or
        # failing, and the one fault line the players see while the board cannot play.
        self.health = Health()
        self._listeners: list[EventListener] = []
        self._watchers: list[Callable[[], None]] = []
        # The light show's own timers are not the referee's: the fault still blinks after
        # the guard has stopped the referee.
        self.show = LightShow(board.lights, board.clock, self.settings.palette)
        self.sensors = Debouncer(self.board.sensors, self.clock, self.settings.debounce)

    @property
    def state(self) -> State:
        """Where the machine is; it changes only by ``go`` (and the guard's stop)."""
        return self._state

    @property
    def position(self) -> Position:
        """The game's position at the start of the turn being made."""
        return self.reader.position

    @property
    def busy(self) -> bool:
        """Whether the board is turning or checking itself: hands off (the status pixel says so)."""
        return self._state in (S.STARTING, S.ROTATING, S.VERIFYING, S.TAKING_BACK)

    @property
    def playing(self) -> bool:
        """Whether the board waits for a turn or one is in progress: a turn may be offered."""
        return self._state in (S.WAITING, S.TURN)

    @property
    def settle(self) -> float:
        """Seconds the rings settle after a move before the sensors are read."""
        return self.settings.settle

    @property
    def healthy(self) -> bool:
        """False once an internal error has stopped the referee: it takes nothing in any more,
        and the service stops feeding the watchdog so that systemd restarts it. A hardware
        fault (``State.FAULT`` from a ring move) leaves it healthy: a press retries."""
        return self.guard.healthy

    @property
    def can_take_back(self) -> bool:
        """Whether the game has a turn to take back and the board is still enough for it."""
        return self.saved.own_turns > 0 and (self._state, Trigger.TAKE_BACK) in TRANSITIONS

    def fail(self, where: str, exc: BaseException) -> None:
        """An exception escaped ``where`` on the event loop (the loop's handler calls this):
        the same internal error as one the guard catches."""
        self.guard.fail(where, exc)

    # --- listeners ----------------------------------------------------------------------
    def subscribe(
        self, listener: EventListener | None = None, changed: Callable[[], None] | None = None
    ) -> None:
        """Hear the referee: ``listener`` each event, in order; ``changed`` (no argument)
        after anything a snapshot shows may have changed (a frame drawn, a square read)."""
        if listener is not None:
            self._listeners.append(listener)
        if changed is not None:
            self._watchers.append(changed)
            self.show.subscribe(changed)  # drawn again: its blinks run for the watcher

    def take_status(self, colour: RGB | None) -> None:
        """The status pixel shows ``colour`` steady over what the referee shows (a remote
        game's link down); None: the referee's own again."""
        self.show.take_status(colour)

    def emit(self, event: Event) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _changed(self) -> None:
        for watcher in list(self._watchers):
            watcher()

    # --- the steps the parts take ---------------------------------------------------------
    def go(self, trigger: Trigger) -> None:
        """The one change of state: by ``TRANSITIONS``, then the lights show the new state."""
        self._enter(trigger)
        self.draw()

    def _enter(self, trigger: Trigger) -> None:
        target = TRANSITIONS.get((self._state, trigger))
        if target is None:
            raise TransitionError(f"no transition {trigger.value!r} from {self._state.value!r}")
        log.debug("%s --%s--> %s", self._state.value, trigger.value, target.value)
        self._state = target

    def save(self) -> None:
        self.journal.save(self.saved)

    def view(self) -> View:
        raise NotImplementedError  # the referee's: what its state shows

    def draw(self) -> None:
        # The board's turn as far as the hands got (guide.py): its lights follow each touch.
        self.show.update(follow(self.view(), self.position, self.reader.marbles))

    def fault(self, reason: str) -> None:
        self.emit(Fault(self.saved.game, reason))
        self.go(Trigger.FAULT)

    def board_away(self) -> bool:
        """Whether the board cannot play (a part missing, or the drive failing between
        moves) and is not back: then no sensor is to be trusted, and the referee goes to the
        fault (it goes on once the board is whole again)."""
        if self.health.fault:
            self.fault(self.health.fault)
        return bool(self.health.fault)

    def off(self, wanted: Turn | None = None) -> int:
        """The squares where the board differs from ``wanted`` made on it (None, or an
        extra press: from the position at the start of the turn)."""
        black, white = self.reader.masks()
        if wanted is None or wanted.is_extra_press:
            want_black, want_white = self.position.black, self.position.white
        else:
            want_black, want_white = self.position.before_press(wanted)
        return (black ^ want_black) | (white ^ want_white)

    def announce(self) -> None:
        """The result, once per game: a power cut after it (or a correction after the
        restart) shows it again on the LEDs but never announces or archives it twice."""
        result = self.position.result
        assert result is not None
        if self.saved.announced:
            return
        lines = tuple(self.position.lines())
        self.emit(GameOver.of(self.saved.game, result, lines, self.settings.palette))
        self.journal.add_to_history(self.saved, result.value)
        self.saved.announced = True
        self.save()

    # --- the guard's --------------------------------------------------------------------
    def _stopped(self, reason: str) -> None:
        """The guard has stopped the referee after an internal error: every listener hears
        of the fault (one that fails does not keep it from the others) and the status pixel
        blinks the fault colour. Nothing is saved: the journal stays as the error left it."""
        fault = Fault(self.saved.game, reason)
        for listener in list(self._listeners):
            try:
                listener(fault)
            except Exception as exc:
                text = _("an event listener failed on the fault: {error}: {reason}")
                log.error("%s", text.format(error=type(exc).__name__, reason=exc))
        self._enter(Trigger.STOP)  # not drawn from the model, which may be broken:
        self.show.update(View("fault"))

    def _refused_input(self, reason: str) -> None:
        """An input refused at the boundary: a fault the players hear of; the model is as
        it was and the referee plays on."""
        self.emit(Fault(self.saved.game, reason))

    def close(self) -> None:
        self.show.close()
