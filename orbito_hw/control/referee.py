"""The referee: an explicit state machine between the board's sensors and the rules engine.

It is fed debounced square events and button events, works out each turn from the ORDER
of lifts and puts (presence sensors cannot tell colours), asks the engine whether the
turn is legal, turns the rings, checks the board afterwards and journals everything it
accepts. It knows the hardware only through ``orbito_hw.hw.interfaces``. Side effects
other than the ring drive and the journal go to listeners: JSON events to event
listeners, what to show to the light show.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import NoReturn

from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.journal import Journal, JournalError, Saved
from orbito_hw.control.lights import LightShow, Palette, View, frame_names, result_frame
from orbito_hw.errors import IllegalTurnError
from orbito_hw.hw.interfaces import Board, MoveReport, TimerHandle
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import (
    BB_SQUARES,
    line_names,
    mask_of,
    parse_square,
    press,
    square_name,
    squares_of,
)
from orbito_hw.rules.turn import EXTRA_PRESS, Turn

log = logging.getLogger(__name__)

Event = dict[str, object]
EventListener = Callable[[Event], None]


class State(Enum):
    STARTING = "starting"
    WAITING = "waiting for a turn"
    TURN = "turn in progress"
    ROTATING = "rotating"
    VERIFYING = "verifying"
    CORRECTION = "correction"
    GAME_OVER = "game over"
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
}
# A new game may start from any state but the ring moves.
for _state in (S.WAITING, S.TURN, S.CORRECTION, S.GAME_OVER, S.FAULT, S.STARTING):
    TRANSITIONS[(_state, "new_game")] = S.WAITING


MAX_FINISHING_MOVES = 2
"""Whole places a ring move may be finished by, before the players are asked to look."""


class TransitionError(RuntimeError):
    """A trigger the machine does not allow in its state: a bug, never a player's doing."""


@dataclass(frozen=True)
class Marble:
    """A marble on the board or in a hand; ``origin`` is where it stood when the turn
    began, None for a marble placed this turn."""

    colour: Colour
    origin: int | None


@dataclass(frozen=True)
class Settings:
    first: Colour = Colour.BLACK
    debounce: float = 0.03
    hold_time: float = 2.0
    settle: float = 0.05
    palette: Palette = field(default_factory=Palette)


class Referee:
    def __init__(self, board: Board, journal: Journal, settings: Settings | None = None) -> None:
        self.board = board
        self.clock = board.clock
        self.journal = journal
        self.settings = settings or Settings()
        self.state = State.STARTING
        self.saved = Saved(first=self.settings.first)
        self.position = Position.start(self.settings.first)
        self.model: dict[int, Marble] = {}
        self.hand: list[Marble] = []
        self.pending: Turn | None = None
        self._listeners: list[EventListener] = []
        self._hold_timer: TimerHandle | None = None
        self._held = False
        self._refusal: View | None = None
        self._finishing = 0
        self.show = LightShow(board.lights, self.clock, self.settings.palette)
        self.sensors = Debouncer(board.sensors, self.clock, self.settings.debounce)
        self.sensors.subscribe(self._on_square)
        board.button.subscribe(self._on_button)

    # --- plumbing --------------------------------------------------------------
    @property
    def busy(self) -> bool:
        """Whether the board is turning or checking itself: hands off (the status pixel says so)."""
        return self.state in (S.STARTING, S.ROTATING, S.VERIFYING)

    def add_listener(self, listener: EventListener) -> None:
        self._listeners.append(listener)

    def _emit(self, event: Event) -> None:
        event = {"event": event["event"], "game": self.saved.game, **event}
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
            self._emit({"event": "fault", "reason": str(exc)})
            saved = None
        self.saved = saved or Saved(first=self.settings.first)
        self.position = self.saved.position()
        self.pending = Turn.from_notation(self.saved.pending) if self.saved.pending else None
        self._reset_model()
        for kind, name in self.saved.touches:
            self._touch(parse_square(name), kind == "put")
        self._draw()
        self.board.drive.home(self._started)

    def _started(self, report: MoveReport) -> None:
        if self.state is not S.STARTING:
            return  # a new game began while the rings homed
        if report.fault:
            return self._fault(report.fault)
        self.sensors.resync()
        reading = self.sensors.read()
        if self.pending is not None:
            black, white = self.position.before_press(self.pending)
            if reading == black | white:
                self._go("accept")
                self.board.drive.move(1, self._moved)
                return
            self._emit(self._commit(self.pending))  # the rings had turned: the turn stands
            announce = self.position.is_over
        else:
            announce = False  # a finished game in the journal was announced before the cut
        if reading != self._expected():
            return self._enter_correction("mismatch")
        if self.position.is_over:
            self._go("resume_over")
            if announce:
                self._announce()
        else:
            self._go("resume_turn" if self._touched() else "resume")

    # --- squares -------------------------------------------------------------------
    def _on_square(self, square: int, present: bool, when: float) -> None:
        if self.state in (S.WAITING, S.TURN):
            if present == (square in self.model):
                return  # the sensor agrees with the board as we know it
            self._touch(square, present)
            self.saved.touches.append(("put" if present else "lift", square_name(square)))
            self._save()
            self._refusal = None
            if self.state is S.WAITING and self._touched():
                self._go("touch")
            elif self.state is S.TURN and not self._touched():
                self._go("untouch")
            else:
                self._draw()
        elif self.state is S.CORRECTION:
            self._check_correction()

    def _touch(self, square: int, present: bool) -> None:
        """One lift or put: the marble last lifted goes down first, else a new one."""
        if present:
            marble = self.hand.pop() if self.hand else Marble(self.position.to_move, None)
            self.model[square] = marble
        elif square in self.model:
            self.hand.append(self.model.pop(square))

    def _touched(self) -> bool:
        """Whether the board differs from the position at the start of the turn."""
        return self._masks() != (self.position.black, self.position.white)

    def _masks(self) -> tuple[int, int]:
        black = white = 0
        for square, marble in self.model.items():
            if marble.colour is Colour.BLACK:
                black |= BB_SQUARES[square]
            else:
                white |= BB_SQUARES[square]
        return black, white

    def _expected(self) -> int:
        black, white = self._masks()
        return black | white

    def _reset_model(self) -> None:
        self.hand = []
        self.model = {}
        for square in squares_of(self.position.occupied):
            colour = self.position.colour_at(square)
            assert colour is not None
            self.model[square] = Marble(colour, square)

    # --- the button ------------------------------------------------------------------
    def _on_button(self, pressed: bool, when: float) -> None:
        if pressed:
            # A marble taken from the supply and still in the hand goes back to the supply;
            # one lifted off the board stays in the hand: it has to come back.
            self.hand = [m for m in self.hand if m.origin is not None]
            if self._board_empty():
                self._held = False
                self._hold_timer = self.clock.call_later(self.settings.hold_time, self._on_hold)
                return  # short press or hold: decided on release
            self._press()
            return
        if self._hold_timer is not None:
            self._hold_timer.cancel()
            self._hold_timer = None
            if not self._held:
                self._short_press_on_empty_board()

    def _board_empty(self) -> bool:
        # After a game the players clear the board: the sensors, not the model, say empty.
        return self.sensors.read() == 0 and self.state not in (S.ROTATING, S.VERIFYING)

    def _on_hold(self) -> None:
        self._held = True
        self._hold_timer = None
        self.new_game(self.settings.first)

    def _short_press_on_empty_board(self) -> None:
        if self.state is S.WAITING and not self.saved.turns:
            self.saved.first = self.saved.first.other
            self.position = Position.start(self.saved.first)
            self._save()
            self._emit({"event": "first", "colour": self.saved.first.value})
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
        if self.position.is_full and not self._touched():
            return self._accept(EXTRA_PRESS)
        try:
            turn = self._turn_on_board()
        except IllegalTurnError as exc:
            return self._refuse(exc.reason, mask_of(exc.squares))
        self._accept(turn)

    def _turn_on_board(self) -> Turn:
        """The legal turn whose board the lifts and puts made; IllegalTurnError naming why
        there is none.

        Marbles of one colour are alike, so the turn is judged on the colours alone (a
        colour layout has at most one legal turn); which marble went where only explains
        a refusal."""
        masks = self._masks()
        for turn in self.position.legal_turns():
            if turn.place is not None and self.position.before_press(turn) == masks:
                return turn
        self._explain_refusal()

    def _explain_refusal(self) -> NoReturn:
        """Why the board shows no legal turn, from which marble went where."""
        mover = self.position.to_move
        placed = [sq for sq, m in self.model.items() if m.origin is None]
        moved = [(m.origin, sq) for sq, m in self.model.items() if m.origin not in (None, sq)]
        lifted = [m.origin for m in self.hand if m.origin is not None]
        board = self.position.board()
        fault: tuple[str, list[int]] | None = None
        if lifted:
            fault = (f"the marble lifted from {_names(lifted)} is not back on the board", lifted)
        elif self.position.is_full:
            changed = [s for pair in moved for s in pair if s is not None] + placed
            fault = ("the board is full: put the marbles back, press for an extra press", changed)
        elif not placed:
            fault = ("place one of your own marbles, then press", [])
        elif len(placed) > 1:
            fault = (f"only one marble may be placed in a turn, not {len(placed)}", placed)
        elif len(moved) > 1:
            squares = [s for pair in moved for s in pair if s is not None]
            fault = ("only one opponent marble may be moved in a turn", squares)
        if fault:
            raise IllegalTurnError("?", fault[0], board, tuple(fault[1]))
        src, dst = moved[0] if moved else (None, None)
        turn = Turn(placed[0], src, dst)
        self.position.check(turn)  # the rules' own reason, when they refuse this turn
        raise IllegalTurnError(
            turn.notation(), f"the board does not show {turn} for {mover}", board
        )

    def _refuse(self, reason: str, squares: int) -> None:
        names = [square_name(s) for s in squares_of(squares)]
        self._emit({"event": "rejected", "reason": reason, "squares": names})
        self._refusal = View("refused", self.position.to_move, tuple(squares_of(squares)))
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

    def _commit(self, turn: Turn) -> Event:
        """Make ``turn`` part of the game, on disk first; returns its turn event."""
        mover = self.position.to_move
        self.position = self.position.play(turn)
        self.saved.turns.append(turn.notation())
        self.saved.pending = None
        self.saved.touches = []
        self.pending = None
        self._save()
        self._reset_model()
        return {
            "event": "turn",
            "number": len(self.saved.turns),
            "colour": mover.value,
            "turn": turn.notation(),
            "board": self.position.board(),
        }

    def _announce(self) -> None:
        result = self.position.result
        assert result is not None
        lines = tuple(self.position.lines())
        lit = result_frame(result, lines, self.settings.palette)
        self._emit(
            {
                "event": "result",
                "result": result.value,
                "lines": line_names(list(lines)),
                "leds": frame_names(lit),
            }
        )
        self.journal.archive(self.saved, result.value)

    # --- correction -------------------------------------------------------------------
    def _enter_correction(self, trigger: str) -> None:
        self._go(trigger)
        self._emit({"event": "correction", "squares": self._wrong_squares()})

    def _wrong_squares(self) -> list[str]:
        return [square_name(s) for s in squares_of(self.board.sensors.read() ^ self._expected())]

    def _check_correction(self) -> None:
        if self.sensors.read() != self._expected():
            self._draw()
            return
        self._emit({"event": "corrected"})
        if self.position.is_over:
            self._go("fixed_over")
            self._announce()
        else:
            self._go("fixed_turn" if self._touched() else "fixed")

    def _fault(self, reason: str) -> None:
        self._emit({"event": "fault", "reason": reason})
        self._go("fault")

    # --- games ---------------------------------------------------------------------
    def new_game(self, first: Colour, next_game: bool | None = None) -> None:
        """Start a new game, ``first`` to move. It counts as the next game if ``next_game``
        says so, by default if the current one had begun (which then goes to the history)."""
        if self.saved.turns and self.position.result is None:
            self.journal.archive(self.saved, None)
        if self.saved.turns if next_game is None else next_game:
            self.saved = Saved(game=self.saved.game + 1, first=first)
        else:
            self.saved = Saved(game=self.saved.game, first=first)
        self.position = Position.start(first)
        self.pending = None
        self._reset_model()
        self._refusal = None
        self.sensors.resync()
        self._save()
        self._emit({"event": "new-game", "first": first.value})
        self._go("new_game")
        if self.sensors.read():
            self._enter_board_not_empty()

    def _enter_board_not_empty(self) -> None:
        """A new game on a board that still holds marbles: treat them as a turn to clear."""
        for square in squares_of(self.sensors.read()):
            self.model[square] = Marble(self.position.to_move, None)
        self._go("touch")

    # --- lights ------------------------------------------------------------------
    def view(self) -> View:
        to_move = self.position.to_move
        if self.state is S.CORRECTION:
            reading, expected = self.sensors.read(), self._expected()
            missing = tuple((sq, self.model[sq].colour) for sq in squares_of(expected & ~reading))
            return View(
                "correction", to_move, missing=missing, extra=tuple(squares_of(reading & ~expected))
            )
        if self.state is S.GAME_OVER and self.position.result is not None:
            return View(
                "result", None, result=self.position.result, lines=tuple(self.position.lines())
            )
        if self.state in (S.ROTATING, S.VERIFYING):
            return View("rotating", to_move)
        if self.state in (S.STARTING, S.FAULT):
            return View(self.state.value, to_move)
        return self._refusal or View("play", to_move)

    def _draw(self) -> None:
        self.show.update(self.view())

    def close(self) -> None:
        self.show.close()


def _names(squares: list[int]) -> str:
    return " and ".join(square_name(s) for s in squares)
