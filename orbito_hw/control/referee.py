"""The referee: an explicit state machine between the board's sensors and the rules engine.

It is fed debounced square events and button events, hands the lifts and puts to a
``TurnReader`` (which works out the turn they made, see reading.py), turns the rings,
checks the board afterwards and journals everything it accepts. It knows the hardware
only through ``orbito_hw.hw.interfaces``. Side effects other than the ring drive and the
journal go to listeners: events (events.py) to event listeners, what to show to the
light show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Literal

from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.events import (
    BlunderWarning,
    BoardTurn,
    Corrected,
    Correction,
    Event,
    EventListener,
    Fault,
    FirstChosen,
    GameOver,
    Hint,
    NewGame,
    OpponentChosen,
    Rejected,
    TakeBack,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.guard import Guard, guarded
from orbito_hw.control.journal import Journal, JournalError, Saved
from orbito_hw.control.lights import LightShow, Palette, View
from orbito_hw.control.menu import CHOICES, MENU_TIMEOUT, choice_of
from orbito_hw.control.reading import Marble, TurnReader
from orbito_hw.errors import IllegalTurnError, OrbitoError
from orbito_hw.hw.interfaces import Board, MoveReport, TimerHandle
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import mask_of, parse_square, press, square_name, squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.layout import Value, decode

if TYPE_CHECKING:
    from orbito_hw.solver.table import Solution

log = logging.getLogger(__name__)

MAX_TOUCHES = 64
"""Touches of a turn in progress journaled as they come; past this many the journal keeps
what the reader holds instead (at most 48 touches), so a marble lifted and put back a
thousand times costs no more to journal than a turn made at once."""


class State(Enum):
    STARTING = "starting"
    WAITING = "waiting for a turn"
    TURN = "turn in progress"
    ROTATING = "rotating"
    VERIFYING = "verifying"
    CORRECTION = "correction"
    GAME_OVER = "game over"
    TAKING_BACK = "turning the rings back"
    UNDOING = "waiting for the turn to be undone"
    FAULT = "fault"


S = State
# Every transition the referee can make, in one place: (state, trigger) -> next state.
TRANSITIONS: dict[tuple[State, str], State] = {
    (S.STARTING, "resume"): S.WAITING,
    (S.STARTING, "resume_turn"): S.TURN,
    (S.STARTING, "resume_over"): S.GAME_OVER,
    (S.STARTING, "mismatch"): S.CORRECTION,
    (S.STARTING, "accept"): S.ROTATING,
    (S.STARTING, "fault"): S.FAULT,
    (S.STARTING, "resume_turning"): S.TAKING_BACK,
    (S.STARTING, "resume_undo"): S.UNDOING,
    (S.WAITING, "touch"): S.TURN,
    (S.WAITING, "accept"): S.ROTATING,
    (S.TURN, "untouch"): S.WAITING,
    (S.TURN, "accept"): S.ROTATING,
    (S.ROTATING, "moved"): S.VERIFYING,
    (S.ROTATING, "fault"): S.FAULT,
    (S.VERIFYING, "match"): S.WAITING,
    (S.VERIFYING, "over"): S.GAME_OVER,
    (S.VERIFYING, "mismatch"): S.CORRECTION,
    (S.VERIFYING, "fault"): S.FAULT,
    (S.CORRECTION, "fixed"): S.WAITING,
    (S.CORRECTION, "fixed_turn"): S.TURN,
    (S.CORRECTION, "fixed_over"): S.GAME_OVER,
    (S.FAULT, "retry"): S.STARTING,
    # A take-back: the rings turn back one place, then the players undo the turn by hand.
    (S.TAKING_BACK, "turned_back"): S.UNDOING,
    (S.TAKING_BACK, "fault"): S.FAULT,
    (S.UNDOING, "undone"): S.WAITING,
    (S.UNDOING, "take_back_too"): S.TAKING_BACK,  # against the board: the person's turn too
}
# A hold may take back the last turn whenever the board is still and the game has one
# (it is refused, the squares at fault lit, unless the board shows the game as it stands).
for _state in (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER):
    TRANSITIONS[(_state, "take_back")] = S.TAKING_BACK
# A new game may start from any state but the ring moves.
for _state in (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER, S.FAULT, S.STARTING, S.UNDOING):
    TRANSITIONS[(_state, "new_game")] = S.WAITING
# The drive may fail between moves (a ring controller unplugged while the rings are idle).
for _state in (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER, S.UNDOING):
    TRANSITIONS[(_state, "fault")] = S.FAULT


_RANK = {Value.LOSS: 0, Value.DRAW: 1, Value.WIN: 2}
"""Values in order, for telling a turn that throws the value away."""

MAX_FINISHING_MOVES = 2
"""Whole places a ring move may be finished by, before the players are asked to look."""


HoldAction = Literal["new game", "take-back", "menu"]


def _distance(a: int, b: int) -> int:
    """How many squares two sensor readings differ on."""
    return (a ^ b).bit_count()


class TransitionError(OrbitoError, RuntimeError):
    """A trigger the machine does not allow in its state: a bug, never a player's doing."""


@dataclass(frozen=True)
class BoardPlayer:
    """The board playing ``colour`` against a person: ``choose`` gives its turn in a position
    of a game still going on (any callable: the control layer needs no solver class);
    ``player`` names it as the archive and the page do (SPEC.md's PLAYER: ``board:LEVEL``).

    A player at another board (``by`` "remote") has no turn to give until it arrives:
    ``choose`` returns None until then, and its client calls ``Referee.offer()`` when it
    does. Meanwhile the person here may not play that colour's turn."""

    colour: Colour
    choose: Callable[[Position], Turn | None]
    player: str = "board"
    by: str = "board"  # who chose the turns shown: "board" or "remote" (SPEC.md's board-turn)


@dataclass(frozen=True)
class Settings:
    first: Colour = Colour.BLACK
    debounce: float = 0.05  # seconds a square must hold still; 0 passes changes straight on
    hold_time: float = 2.0
    settle: float = 0.05
    palette: Palette = field(default_factory=Palette)
    opponent: BoardPlayer | None = None  # None: two people at the board
    hints: bool = False  # a press before any touch shows the best turn; blunders are held back
    # The opponent menu (menu.py): the board as a player at a level and colour, made when
    # chosen (None: no menu); opened by holding the button this long on the empty board.
    make_player: Callable[[str, Colour], BoardPlayer] | None = field(default=None, compare=False)
    menu_hold: float = 5.0


class Referee:
    def __init__(self, board: Board, journal: Journal, settings: Settings | None = None) -> None:
        # Every way in passes the guard (guard.py): the parts below check what they report
        # and guard each callback the referee hands them, wherever it hands one over.
        self.guard = Guard(on_fault=self._stopped, on_refusal=self._refused_input)
        self.board = self.guard.board(board)
        self.clock = self.board.clock
        self.journal = journal
        self.settings = settings or Settings()
        self.state = State.STARTING
        self.saved = Saved(first=self.settings.first)
        self.reader = TurnReader(Position.start(self.settings.first))
        self.pending: Turn | None = None
        self._listeners: list[EventListener] = []
        self._hold_timer: TimerHandle | None = None
        self._held = False
        self._hold_action: HoldAction | None = None  # what holding the button down would do
        self._menu_timer: TimerHandle | None = None  # opens the menu, or closes it unused
        self.menu: int | None = None  # the choice the open opponent menu shows
        self._refusal: View | None = None
        self._finishing = 0
        self.opponent = self.settings.opponent
        self._board_turn_told = False  # the board-turn event of this position was emitted
        self.hints = self.settings.hints
        self._hint: View | None = None  # the hint or warning shown, until a touch
        self._warned: tuple[Turn, int] | None = None  # the turn held back, and the reading
        # The light show's own timers are not the referee's: the fault still blinks after
        # the guard has stopped the referee.
        self.show = LightShow(board.lights, board.clock, self.settings.palette)
        self.sensors = Debouncer(self.board.sensors, self.clock, self.settings.debounce)
        self.sensors.subscribe(self._on_square)
        self.board.button.subscribe(self._on_button)
        self._drive_fault = ""  # what the drive last said between moves: a fault, or ""
        self.board.drive.watch(self._on_drive_fault)

    # --- plumbing --------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Whether the board is turning or checking itself: hands off (the status pixel says so)."""
        return self.state in (S.STARTING, S.ROTATING, S.VERIFYING, S.TAKING_BACK)

    @property
    def position(self) -> Position:
        """The game's position at the start of the turn being made."""
        return self.reader.position

    @property
    def model(self) -> Mapping[int, Marble]:
        """The marbles on the board as the lifts and puts left them."""
        return self.reader.marbles

    @property
    def hand(self) -> list[Marble]:
        """The marbles lifted and not yet put down, the last lifted last."""
        return self.reader.hand

    @property
    def healthy(self) -> bool:
        """False once an internal error has stopped the referee: it takes nothing in any more,
        and the service stops feeding the watchdog so that systemd restarts it. A hardware
        fault (``State.FAULT`` from a ring move) leaves it healthy: a press retries."""
        return self.guard.healthy

    def fail(self, where: str, exc: BaseException) -> None:
        """An exception escaped ``where`` on the event loop (the loop's handler calls this):
        the same internal error as one the guard catches."""
        self.guard.fail(where, exc)

    def _stopped(self, reason: str) -> None:
        """The guard has stopped the referee after an internal error: every listener hears
        of the fault (one that fails does not keep it from the others) and the status pixel
        blinks the fault colour. Nothing is saved: the journal stays as the error left it."""
        fault = Fault(self.saved.game, reason)
        for listener in list(self._listeners):
            try:
                listener(fault)
            except Exception as exc:
                log.error("an event listener failed on the fault: %s: %s", type(exc).__name__, exc)
        self.state = S.FAULT  # straight there: the machine's own steps are what failed
        self.show.update(View("fault"))  # drawn from nothing of the model, which may be broken

    def _refused_input(self, reason: str) -> None:
        """An input refused at the boundary: a fault the players hear of; the model is as
        it was and the referee plays on."""
        self._emit(Fault(self.saved.game, reason))

    def add_listener(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def _emit(self, event: Event) -> None:
        for listener in list(self._listeners):
            listener(event)

    def _go(self, trigger: str) -> None:
        target = TRANSITIONS.get((self.state, trigger))
        if target is None:
            raise TransitionError(f"no transition {trigger!r} from {self.state.value!r}")
        log.debug("%s --%s--> %s", self.state.value, trigger, target.value)
        self.state = target
        self._draw()

    def _save(self) -> None:
        self.journal.save(self.saved)

    # --- start-up: carry on from the journal ---------------------------------------
    def start(self) -> None:
        """Load the journal, home the rings, and carry on where the board left off."""
        try:
            saved = self.journal.load()
        except JournalError as exc:
            self._emit(Fault(self.saved.game, str(exc)))
            saved = exc.recovered  # only the turn in progress was lost, if anything
        self.saved = saved or Saved(first=self.settings.first)
        self._restore_opponent()
        self.pending = Turn.from_notation(self.saved.pending) if self.saved.pending else None
        if self.saved.undo == "turned":  # the undoing of a take-back, under way
            self.reader = self._undo_reader()
        else:
            self.reader = TurnReader(self.saved.position())
            for kind, name in self.saved.touches:
                self.reader.touch(parse_square(name), kind == "put")
            self.reader.placed_first = self.saved.placed_first
        self._draw()
        self.board.drive.home(self._started)

    def _started(self, report: MoveReport) -> None:
        if self.state is not S.STARTING:
            return  # a new game began while the rings homed
        if report.fault:
            return self._fault(report.fault)
        self.sensors.resync()
        reading = self.sensors.read()
        if self.saved.undo is not None:
            return self._resume_take_back(reading)
        if self.pending is not None:
            black, white = self.position.before_press(self.pending)
            if reading == black | white:
                self._go("accept")
                self.board.drive.move(1, self._moved)
                return
            self._emit(self._commit(self.pending))  # the rings had turned: the turn stands
        if reading != self._expected():
            return self._enter_correction("mismatch")
        if self.position.is_over:
            self._go("resume_over")
            self._announce()  # unless it was, before the cut
        else:
            self._go("resume_turn" if self._touched() else "resume")
            self._offer()  # the same turn as before the cut: it is in the journal

    # --- squares -------------------------------------------------------------------
    def _on_square(self, square: int, present: bool, when: float) -> None:
        if self.state in (S.WAITING, S.TURN, S.UNDOING):
            if present == self.reader.holds(square):
                return  # the sensor agrees with the board as we know it
            self.reader.touch(square, present)
            self.saved.touches.append(("put" if present else "lift", square_name(square)))
            self.saved.placed_first = self.reader.placed_first
            if len(self.saved.touches) > MAX_TOUCHES:
                # What the reader holds, not the history of touches: bounded by the board.
                self.saved.touches = [
                    ("put" if put else "lift", square_name(sq))
                    for put, sq in self.reader.replay_touches()
                ]
            self._save()
            self._refusal = None
            self._forget_hint()  # a touch: the hint goes, a warning is called off
            if self.state is S.UNDOING:
                self._check_undone()
            elif self.state is S.WAITING and self._touched():
                self._go("touch")
            elif self.state is S.TURN and not self._touched():
                self._go("untouch")
            else:
                self._draw()
        elif self.state is S.CORRECTION:
            self._check_correction()

    def _touched(self) -> bool:
        """Whether the board differs from the position at the start of the turn."""
        return self.reader.touched

    def _expected(self) -> int:
        """The squares that should read a marble."""
        return self.reader.occupied

    # --- the button ------------------------------------------------------------------
    def _on_button(self, pressed: bool, when: float) -> None:
        if pressed:
            # A marble taken from the supply and still in the hand goes back to the supply;
            # one lifted off the board stays in the hand: it has to come back.
            self.reader.back_to_supply()
            self._hold_action = self._what_a_hold_does()
            if self._hold_action is None:
                self._press()
                return
            self._held = False
            self._hold_timer = self.clock.call_later(self.settings.hold_time, self._on_hold)
            if self._hold_action == "new game" and self.settings.make_player and self.menu is None:
                self._set_menu_timer(self.settings.menu_hold, self._open_menu)
            return  # short press or hold: decided on release
        if self.menu is None:
            self._set_menu_timer(None)  # released before the menu opened
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
            if not self._held:
                self._short_press()

    def _what_a_hold_does(self) -> HoldAction | None:
        """Holding the button: on the empty board a new game, during a game (or after it,
        the marbles still there) a take-back of the last turn; None when a hold means
        nothing, and the press counts at once."""
        if self.menu is not None:
            return "menu"
        if self._board_empty():
            return "new game"
        if self.can_take_back:
            return "take-back"
        return None

    def _short_press(self) -> None:
        if self._hold_action == "menu":
            self._next_choice()
        elif self._hold_action == "new game":
            self._short_press_on_empty_board()
        else:
            self._press()

    def _board_empty(self) -> bool:
        # After a game the players clear the board: the sensors, not the model, say empty.
        return self.sensors.read() == 0 and self.state not in (
            S.ROTATING,
            S.VERIFYING,
            S.TAKING_BACK,
        )

    def _on_hold(self) -> None:
        self._held = True
        self._hold_timer = None
        if self._hold_action == "new game":
            self.new_game(self.settings.first)
        elif self._hold_action == "take-back":
            self._hold_to_take_back()
        elif self._hold_action == "menu":
            self._take_choice()

    def _short_press_on_empty_board(self) -> None:
        if self.state is S.WAITING and not self.saved.turns:
            self.saved.first = self.saved.first.other
            self.reader = TurnReader(Position.start(self.saved.first))
            self._rechoose()
            self._save()
            self._emit(FirstChosen(self.saved.game, self.saved.first))
            self._offer()
            self._draw()
        else:
            self._press()

    def _press(self) -> None:
        if self.state in (S.WAITING, S.TURN):
            self._referee_press()
        elif self.state is S.FAULT:
            self._go("retry")
            self.board.drive.home(self._started)
        else:
            log.info("press ignored while %s", self.state.value)

    # --- a press: accept exactly a legal turn ------------------------------------------
    def _referee_press(self) -> None:
        changed = self.sensors.read() ^ self._expected()
        if changed:
            return self._refuse("the board changed while the sensors settled; check it", changed)
        try:
            turn = self.reader.turn()
        except IllegalTurnError as exc:
            if self._hinting():
                return self._show_hint()
            return self._refuse(exc.reason, mask_of(exc.squares))
        wanted = self.board_turn
        if wanted is None and self._boards_move():
            # A remote player's turn not here yet: nobody here plays that colour.
            return self._refuse("wait for the other board's turn", self._off())
        if wanted is not None and turn != wanted:
            # Another legal turn on the board's move: the board plays its own turn only.
            return self._refuse(f"the board's turn is {wanted}, not {turn}", self._off(wanted))
        if wanted is not None and wanted.move_from is not None and self.reader.placed_first:
            # The right layout, the steps the other way round: shown as move, then place.
            assert wanted.place is not None and wanted.move_to is not None
            reason = (
                f"the board's turn moves {square_name(wanted.move_from)}-"
                f"{square_name(wanted.move_to)} first, then places on "
                f"{square_name(wanted.place)}: lift the placed marble, then place it again"
            )
            return self._refuse(reason, mask_of([wanted.place]))
        if wanted is None and self._held_back(turn):
            return
        self._accept(turn)

    def _off(self, wanted: Turn | None = None) -> int:
        """The squares where the board differs from ``wanted`` made on it (None, or an
        extra press: from the position at the start of the turn)."""
        black, white = self.reader.masks()
        if wanted is None or wanted.is_extra_press:
            want_black, want_white = self.position.black, self.position.white
        else:
            want_black, want_white = self.position.before_press(wanted)
        return (black ^ want_black) | (white ^ want_white)

    # --- hints and the blunder warning ---------------------------------------------------
    def _hinting(self) -> bool:
        """A press asks for a hint: hints on, a person's move, no marble touched (on a full
        board an untouched press is the extra press, a turn: it is played, not hinted)."""
        return (
            self.hints
            and not self._boards_move()
            and not self._touched()
            and not self.position.is_full
        )

    def _solution(self) -> Solution:
        # Loaded on the first hint only: importing the controller stays light.
        from orbito_hw.solver.table import shipped_solution

        return shipped_solution()

    def _show_hint(self) -> None:
        analysis = self._solution().analyse(self.position)
        value = analysis.value.value
        self._emit(Hint(self.saved.game, self.position.to_move, analysis.move, value))
        self._hint = View("hint", self.position.to_move, value=value, hint_turn=analysis.move)
        self._draw()

    def _held_back(self, turn: Turn) -> bool:
        """Hints on, ``turn`` throws the value away for the person: warn and hold it back,
        unless it is the very turn warned of, the board unchanged since (then it is meant)."""
        if not self.hints:
            return False
        reading = self.sensors.read()
        if self._warned == (turn, reading):
            self._forget_hint()
            return False
        solution = self._solution()
        worths = dict(solution.turn_bytes(self.position))
        before = solution.score(self.position).value
        after = decode(worths[turn]).value
        if _RANK[after] >= _RANK[before]:
            return False
        self._warned = (turn, reading)
        self._emit(BlunderWarning(self.saved.game, turn, after.value))
        squares = tuple(squares_of(self._off()))
        self._hint = View("warning", self.position.to_move, squares, value=after.value)
        self._draw()
        return True

    def _forget_hint(self) -> None:
        self._hint = None
        self._warned = None

    @guarded("hints on or off")
    def set_hints(self, on: bool) -> None:
        """Hints and the blunder warning on or off, at once."""
        self.hints = on
        if not on and self._hint is not None:
            self._forget_hint()
            self._draw()

    def _refuse(self, reason: str, squares: int) -> None:
        at_fault = tuple(squares_of(squares))
        self._forget_hint()
        self._emit(Rejected(self.saved.game, reason, at_fault))
        self._refusal = View("refused", self.position.to_move, at_fault, board_turn=self.board_turn)
        self._draw()

    def _accept(self, turn: Turn) -> None:
        self.pending = turn
        self.saved.pending = turn.notation()
        self._save()
        self._go("accept")
        self.board.drive.move(1, self._moved)

    # --- the ring move and its check --------------------------------------------------------
    def _moved(self, report: MoveReport) -> None:
        self._go("moved")
        self._finishing = 0
        self._check_move(report)

    def _check_move(self, report: MoveReport) -> None:
        """Off the index means lost steps: home, which finishes the place; then look."""
        if report.fault:
            return self._fault(report.fault)
        if not report.at_index:
            log.warning("the rings stopped off the index after %d steps: homing", report.steps)
            self.board.drive.home(self._check_move)
            return
        self.clock.call_later(self.settings.settle, self._verify)

    def _verify(self) -> None:
        assert self.pending is not None
        if self._drive_fault:  # the drive failed while the rings settled: no sensor to trust
            return self._fault(self._drive_fault)
        black, white = self.position.before_press(self.pending)
        before, after = black | white, press(black | white)
        reading = self.board.sensors.read()
        if reading == before != after and self._finishing < MAX_FINISHING_MOVES:
            # A whole place was lost: the board still shows the turn before its press.
            log.warning("the rings lost a whole place: finishing the move")
            self._finishing += 1
            self.board.drive.move(1, self._check_move)
            return
        self.sensors.resync()
        turn_event = self._commit(self.pending)
        if reading != self._expected():
            self._emit(turn_event)
            return self._enter_correction("mismatch")
        self._go("over" if self.position.is_over else "match")
        self._emit(turn_event)  # after the transition, so the lights already show the next turn
        if self.position.is_over:
            self._announce()
        else:
            self._offer()

    def _commit(self, turn: Turn) -> TurnPlayed:
        """Make ``turn`` part of the game, on disk first; returns its turn event."""
        mover = self.position.to_move
        self.reader = TurnReader(self.position.play(turn))
        self.saved.turns.append(turn.notation())
        self.saved.pending = None
        self.saved.touches = []
        self.saved.placed_first = False
        self.pending = None
        self._forget_hint()
        self._rechoose()  # journaled with the turn: a power cut shows the same choice again
        self._save()
        board = self.position.board()
        return TurnPlayed(self.saved.game, len(self.saved.turns), mover, turn, board)

    def _announce(self) -> None:
        """The result, once per game: a power cut after it (or a correction after the
        restart) shows it again on the LEDs but never announces or archives it twice."""
        result = self.position.result
        assert result is not None
        if self.saved.announced:
            return
        lines = tuple(self.position.lines())
        self._emit(GameOver.of(self.saved.game, result, lines, self.settings.palette))
        self.journal.archive(self.saved, result.value)
        self.saved.announced = True
        self._save()

    # --- correction -------------------------------------------------------------------
    def _enter_correction(self, trigger: str) -> None:
        self._go(trigger)
        wrong = tuple(squares_of(self.board.sensors.read() ^ self._expected()))
        self._emit(Correction(self.saved.game, wrong))

    def _check_correction(self) -> None:
        if self.sensors.read() != self._expected():
            self._draw()
            return
        self._emit(Corrected(self.saved.game))
        if self.position.is_over:
            self._go("fixed_over")
            self._announce()
        else:
            self._go("fixed_turn" if self._touched() else "fixed")
            self._offer()

    def _fault(self, reason: str) -> None:
        self._emit(Fault(self.saved.game, reason))
        self._go("fault")

    def _on_drive_fault(self, fault: str) -> None:
        """The drive's word between moves (a ring controller unplugged while the rings are
        idle): a fault, shown at once, so no turn is refused for squares the board cannot
        read; or "" when it is back, and the board recovers as after a restart (home the
        rings, check the board). A move or homing under way ends with its own report."""
        self._drive_fault = fault
        if fault and self.state in (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER):
            self._fault(fault)
        elif not fault and self.state is S.FAULT:
            self._go("retry")
            self.board.drive.home(self._started)

    # --- games ---------------------------------------------------------------------
    @guarded("a new game")
    def new_game(self, first: Colour, next_game: bool | None = None) -> None:
        """Start a new game, ``first`` to move. It counts as the next game if ``next_game``
        says so, by default if the current one had begun (which then goes to the history).
        Not while the rings turn (a control on the web page may ask then): ignored, logged."""
        if self.state in (S.ROTATING, S.VERIFYING, S.TAKING_BACK):
            log.warning("a new game was asked for while the rings turn: ignored")
            return
        if self.saved.turns and self.position.result is None:
            self.journal.archive(self.saved, None)
        opponent = self.saved.opponent
        if self.saved.turns if next_game is None else next_game:
            self.saved = Saved(game=self.saved.game + 1, first=first)
        else:
            self.saved = Saved(game=self.saved.game, first=first)
        self.saved.opponent = opponent  # who plays is kept from game to game
        self.reader = TurnReader(Position.start(first))
        self.pending = None
        self._refusal = None
        self._forget_hint()
        self.sensors.resync()
        self._rechoose()
        self._save()
        self._emit(NewGame(self.saved.game, first))
        self._go("new_game")
        if self._drive_fault:  # still away: the new game starts once the board is back
            return self._fault(self._drive_fault)
        if self.sensors.read():
            self._enter_board_not_empty()
        self._offer()

    # --- the board as a player ------------------------------------------------------
    @property
    def board_turn(self) -> Turn | None:
        """The turn the board chose and shows, when it is the board's move; else None."""
        token = self.saved.board_turn
        return Turn.from_notation(token) if token is not None and self._boards_move() else None

    def _boards_move(self) -> bool:
        opponent = self.opponent
        position = self.position
        return opponent is not None and not position.is_over and position.to_move is opponent.colour

    def _rechoose(self) -> None:
        """A new position: forget the board's old choice and, on its move, choose again
        (the caller journals it, before it is shown)."""
        self._forget_choice()
        self._choose()

    def _forget_choice(self) -> None:
        self.saved.board_turn = None
        self._board_turn_told = False

    def _choose(self) -> None:
        if self.opponent is None or not self._boards_move():
            self.saved.board_turn = None
        elif self.saved.board_turn is None:
            turn = self.opponent.choose(self.position)
            self.saved.board_turn = turn.notation() if turn is not None else None

    @guarded("an event from outside")
    def tell(self, event: Event) -> None:
        """An event from beside the referee (a remote board's link) to all its listeners,
        in the order of its own."""
        self._emit(event)

    @guarded("a turn offered")
    def offer(self) -> None:
        """Ask the opponent again for its turn: a remote player's turn has arrived."""
        self._offer()

    def _offer(self) -> None:
        """On the board's move: its turn chosen and journaled (if not yet), told once per
        position and run, and shown on the LEDs."""
        if self.state not in (S.WAITING, S.TURN):
            return
        before = self.saved.board_turn
        self._choose()
        if self.saved.board_turn != before:
            self._save()
        turn = self.board_turn
        if turn is not None and not self._board_turn_told:
            self._board_turn_told = True
            number = len(self.saved.turns) + 1
            by = self.opponent.by if self.opponent else "board"
            self._emit(BoardTurn(self.saved.game, number, self.position.to_move, turn, by))
        self._draw()

    @guarded("a change of opponent")
    def set_opponent(self, opponent: BoardPlayer | None) -> None:
        """The board plays ``opponent`` (None: nobody) from now on, in this position too;
        journaled, so a power cut keeps it (a remote player is the remote client's to
        bring back: it is not journaled here)."""
        self.opponent = opponent
        if opponent is None:
            self.saved.opponent = "person"
        elif opponent.by == "board" and opponent.player.startswith("board:"):
            self.saved.opponent = f"{opponent.player}:{opponent.colour.value}"
        self._rechoose()
        self._save()
        self._offer()

    def _restore_opponent(self) -> None:
        """Who plays, as the journal says it was chosen at the board (else the settings)."""
        chosen, make = self.saved.opponent, self.settings.make_player
        if chosen == "person":
            self.opponent = None
        elif chosen is not None and make is not None:
            _, level, colour = chosen.split(":")
            self.opponent = make(level, Colour(colour))

    def _enter_board_not_empty(self) -> None:
        """A new game on a board that still holds marbles: treat them as a turn to clear."""
        for square in squares_of(self.sensors.read()):
            self.reader.touch(square, True)  # the hand is empty: a marble of the mover's
        self._go("touch")

    # --- the opponent menu (menu.py) ---------------------------------------------------
    def _set_menu_timer(self, delay: float | None, then: Callable[[], None] | None = None) -> None:
        if self._menu_timer is not None:
            self._menu_timer.cancel()
            self._menu_timer = None
        if delay is not None and then is not None:
            self._menu_timer = self.clock.call_later(delay, then)

    def _open_menu(self) -> None:
        if self.state is not S.WAITING or self.saved.turns or self.sensors.read():
            return  # a marble went down while the button was held: no menu
        player = self.opponent.player if self.opponent else None
        self.menu = choice_of(player, self.opponent.colour if self.opponent else None)
        self._set_menu_timer(MENU_TIMEOUT, self._close_menu)
        self._draw()

    def _next_choice(self) -> None:
        assert self.menu is not None
        self.menu = (self.menu + 1) % len(CHOICES)
        self._set_menu_timer(MENU_TIMEOUT, self._close_menu)
        self._draw()

    def _take_choice(self) -> None:
        assert self.menu is not None and self.settings.make_player is not None
        choice = CHOICES[self.menu]
        self._close_menu()
        player = None
        if choice.level is not None and choice.colour is not None:
            player = self.settings.make_player(choice.level, choice.colour)
        self._emit(OpponentChosen(self.saved.game, choice.player, choice.colour))
        self.set_opponent(player)

    def _close_menu(self) -> None:
        self.menu = None
        self._set_menu_timer(None)
        self._draw()

    # --- take-backs -------------------------------------------------------------------
    # Holding the button during a game takes back its last turn: the take-back is journaled
    # ("turning"), the rings turn back one place ("turned"), the LEDs show what to undo, and
    # once the sensors show the position before the turn it is gone from the game. Against
    # the board, taking back the board's turn takes back the person's before it too.

    @property
    def can_take_back(self) -> bool:
        """Whether the game has a turn to take back and the board is still enough for it."""
        return bool(self.saved.turns) and (self.state, "take_back") in TRANSITIONS

    @property
    def board_as_it_stands(self) -> bool:
        """Whether the board shows the game as its turns left it: no turn in progress, no
        marble in the hand, none missing or extra. Only from there may the rings turn back."""
        off = self.sensors.read() ^ self.saved.position().occupied
        return not (self.reader.touched or self.reader.hand or off)

    @guarded("a take-back")
    def take_back(self, single: bool = False) -> None:
        """Take back the last turn, as holding the button does (the web page's control);
        nothing when ``can_take_back`` is False. ``single``: that turn only, even where the
        board's turn would take the person's with it (a remote board's take-back, followed
        here one turn at a time)."""
        self._hold_to_take_back(single)

    def _hold_to_take_back(self, single: bool = False) -> None:
        """A take-back asked for: the rings turn back only from the board as the game
        stands (the turn in progress undone, nothing missing): else a refusal says what
        to put back, and the next hold asks again."""
        if not self.can_take_back:
            return
        if not self.board_as_it_stands:
            off = self.sensors.read() ^ self.saved.position().occupied
            squares = tuple(squares_of(off | self._off()))
            reason = "put the board back as the last turn left it, then hold to take it back"
            self._emit(Rejected(self.saved.game, reason, squares))
            self._refusal = View("refused", self.position.to_move, squares)
            self._draw()
            return
        self._take_back("take_back", single)

    def _take_back(self, trigger: str, single: bool = False) -> None:
        number, token = len(self.saved.turns), self.saved.turns[-1]
        self.saved.undo = "turning"
        self.saved.undo_one = single
        self.saved.pending = None
        self.saved.touches = []
        self.saved.placed_first = False
        self._refusal = None
        self._forget_hint()
        self._save()
        self._emit(TakeBack(self.saved.game, number, Turn.from_notation(token)))
        self._go(trigger)
        self._finishing = 0
        self.board.drive.move(-1, self._turned_back)

    def _turned_back(self, report: MoveReport) -> None:
        """Off the index, the backward move lost steps: home (forward, to the place it left)
        and turn back again, a bounded number of times."""
        if report.fault:
            return self._fault(report.fault)
        if not report.at_index:
            if self._finishing >= MAX_FINISHING_MOVES:
                return self._fault("the rings did not turn back to the index")
            self._finishing += 1
            log.warning("the rings stopped off the index turning back: homing, then again")
            self.board.drive.home(self._home_then_back)
            return
        self.clock.call_later(self.settings.settle, self._settled_back)

    def _home_then_back(self, report: MoveReport) -> None:
        if report.fault:
            return self._fault(report.fault)
        self.board.drive.move(-1, self._turned_back)

    def _settled_back(self) -> None:
        if self._drive_fault:
            return self._fault(self._drive_fault)
        self.sensors.resync()
        self.saved.undo = "turned"
        self.saved.touches = []
        self.reader = self._undo_reader()
        self._save()
        self._go("turned_back")
        self._check_undone()

    def _undo_reader(self) -> TurnReader:
        """The marbles as the rings left them turning back (the last turn made, before its
        press), then the lifts and puts of its undoing so far: they end on the position
        before the last turn."""
        before = replay(self.saved.first, self.saved.turns[:-1])
        reader = TurnReader(before, before.before_press(Turn.from_notation(self.saved.turns[-1])))
        for kind, name in self.saved.touches:
            reader.touch(parse_square(name), kind == "put")
        return reader

    def _resume_take_back(self, reading: int) -> None:
        """After a restart mid take-back: the journal says whether the rings had turned back;
        while it says "turning" the sensors tell (nearer the layout before the press than the
        position after it: they had), and a full board, which reads the same either way,
        trusts the journal and turns back."""
        if self.saved.undo == "turning":
            back, ahead = self.saved.undo_start(), self.saved.position().occupied
            if back == ahead or _distance(reading, back) >= _distance(reading, ahead):
                self._go("resume_turning")
                self.board.drive.move(-1, self._turned_back)
                return
            self.saved.undo = "turned"
            self.reader = self._undo_reader()
            self._save()
        self._go("resume_undo")
        self._check_undone()

    def _check_undone(self) -> None:
        """Done once the marbles, as the lifts and puts moved them, are the position before
        the turn taken back, colours and all, and the sensors agree."""
        target = self.reader.position
        shown = self.reader.masks() == (target.black, target.white)
        if not shown or self.sensors.read() != target.occupied:
            self._draw()  # what is left to undo
            return
        number, token = len(self.saved.turns), self.saved.turns.pop()
        one = self.saved.undo_one
        self.saved.undo = None
        self.saved.undo_one = False
        self.saved.touches = []
        self.saved.announced = False  # a finished game taken back is open again
        self.reader = TurnReader(target)
        self._refusal = None
        # Against the board, its own turn taken back: the person's before it goes too.
        again = self.opponent is not None and target.to_move is self.opponent.colour
        again = again and bool(self.saved.turns) and not one
        if again:
            self._forget_choice()  # the turn before goes too: nothing to choose yet
        else:
            self._rechoose()  # journaled with the take-back: shown the same after a cut
        self._save()
        self._emit(TakenBack(self.saved.game, number, target.board(), target.to_move))
        log.info("turn %d (%s) taken back", number, token)
        if again:
            return self._take_back("take_back_too")
        self._go("undone")
        self._offer()

    # --- lights ------------------------------------------------------------------
    def view(self) -> View:
        to_move = self.position.to_move
        if self.state is S.CORRECTION:
            reading, expected = self.sensors.read(), self._expected()
            missing = self.reader.colours(squares_of(expected & ~reading))
            return View(
                "correction", to_move, missing=missing, extra=tuple(squares_of(reading & ~expected))
            )
        if self.state is S.GAME_OVER and self.position.result is not None:
            return View(
                "result", None, result=self.position.result, lines=tuple(self.position.lines())
            )
        if self.state is S.UNDOING:
            return self._undo_view()
        if self.state in (S.ROTATING, S.VERIFYING, S.TAKING_BACK):
            return View("rotating", to_move)
        if self.state in (S.STARTING, S.FAULT):
            return View("starting" if self.state is S.STARTING else "fault", to_move)
        if self.menu is not None:
            return View("menu", to_move, menu=CHOICES[self.menu])
        shown = self._refusal or self._hint
        return shown or View("play", to_move, board_turn=self.board_turn)

    def _undo_view(self) -> View:
        """What is left to undo: the marbles that must go (the placed one, the moved one, or
        any the wrong colour) blink; an empty square a marble goes back to shows its colour."""
        target, marbles = self.reader.position, self.reader.marbles
        extra = tuple(
            sq for sq, m in sorted(marbles.items()) if target.colour_at(sq) is not m.colour
        )
        missing = tuple(
            (sq, colour)
            for sq in squares_of(target.occupied)
            if sq not in marbles and (colour := target.colour_at(sq)) is not None
        )
        return View("undo", target.to_move, missing=missing, extra=extra)

    def _draw(self) -> None:
        self.show.update(self.view())

    def close(self) -> None:
        self.show.close()
