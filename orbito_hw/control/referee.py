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
from collections.abc import Mapping
from typing import Literal

from orbito_hw.control.asks import Asks, What
from orbito_hw.control.core import Core
from orbito_hw.control.correction import Corrections
from orbito_hw.control.discard import NewGameQuestion
from orbito_hw.control.ending import end_by_agreement
from orbito_hw.control.events import Event, Fault, FirstChosen, NewGame, Rejected, TurnPlayed
from orbito_hw.control.guard import guarded
from orbito_hw.control.hints import Hints
from orbito_hw.control.journal import Journal, JournalError, Saved
from orbito_hw.control.lights import View
from orbito_hw.control.machine import IDLE, TRANSITIONS, State, TransitionError, Trigger
from orbito_hw.control.menu import CHOICES, Choice, OpponentMenu
from orbito_hw.control.players import BoardPlayer, Players
from orbito_hw.control.reading import Marble, TurnReader
from orbito_hw.control.seen import board_off, put_colour, resync
from orbito_hw.control.settings import Settings
from orbito_hw.control.setup import SetUps
from orbito_hw.control.snapshot import Snapshot, frozen_marbles, saved_copy
from orbito_hw.control.takeback import MAX_FINISHING_MOVES, TakeBacks
from orbito_hw.errors import IllegalTurnError
from orbito_hw.hw.interfaces import Board, Health, MoveReport, TimerHandle
from orbito_hw.lang import R_, _
from orbito_hw.rules.game import Colour, Position, Result
from orbito_hw.rules.squares import mask_of, parse_square, press, squares_of
from orbito_hw.rules.turn import Turn

log = logging.getLogger(__name__)
S, T = State, Trigger
__all__ = ["TRANSITIONS", "Referee", "State", "TransitionError", "Trigger"]  # machine.py's too

HoldAction = Literal["new game", "take-back", "menu", "set-up"]


class Referee(Core):
    """The core (core.py) and the steps of a turn: the squares, the button, the ring move."""

    def __init__(self, board: Board, journal: Journal, settings: Settings | None = None) -> None:
        super().__init__(board, journal, settings)
        # A hold that would throw a game in progress away asks first (discard.py).
        self.question = NewGameQuestion(self, lambda: self.new_game(self.settings.first))
        self._hold_timer: TimerHandle | None = None
        self._held = False
        self._hold_action: HoldAction | None = None  # what holding the button down would do
        # The referee's parts, each one idea of it, each working on the core (core.py).
        self.players = Players(self, self.settings.opponent)
        self.hinter = Hints(self, self.players, self.settings.hints)
        self.take_backs = TakeBacks(self, self.players, self.hinter)
        self.corrections = Corrections(self, self.players, self.take_backs)
        self.setups = SetUps(self, self.players, self.hinter)
        self.opponent_menu = OpponentMenu(
            self.clock, self.draw, self.settings.invite_seat is not None
        )
        self.asks = Asks(self, self.players, self.take_backs, self.new_game)
        self.sensors.subscribe(self._on_square)
        self.sensors.subscribe(lambda square, present, when: self._changed())
        self.board.button.subscribe(self._on_button)
        self.board.health.watch(self._on_health)

    @property
    def model(self) -> Mapping[int, Marble]:
        """The marbles on the board as the lifts and puts left them."""
        return self.reader.marbles

    @property
    def hand(self) -> list[Marble]:
        """The marbles lifted and not yet put down, the last lifted last."""
        return self.reader.hand

    @property
    def opponent(self) -> BoardPlayer | None:
        """Who plays the board's colour; None: two people at the board."""
        return self.players.opponent

    @opponent.setter
    def opponent(self, opponent: BoardPlayer | None) -> None:
        self.players.opponent = opponent  # as is: the caller journals and offers

    @property
    def hints(self) -> bool:
        """Whether hints and the blunder warning are on."""
        return self.hinter.on

    @property
    def menu(self) -> int | None:
        """The choice the open opponent menu shows; None: no menu open."""
        return self.opponent_menu.choice

    # --- start-up: carry on from the journal ---------------------------------------
    def start(self) -> None:
        """Load the journal, home the rings, and carry on where the board left off."""
        try:
            saved = self.journal.load()
        except JournalError as exc:  # set aside: what was recovered is journaled at once
            self.emit(Fault(self.saved.game, str(exc)))
            self.journal.save(saved := exc.recovered or Saved(first=self.settings.first))
        self.saved = saved or Saved(first=self.settings.first)
        self.players.restore(self.settings.make_player)
        self.asks.restore()  # an ask that waited before the cut waits again
        self.pending = Turn.from_notation(self.saved.pending) if self.saved.pending else None
        if self.saved.undo == "turned":  # the undoing of a take-back, under way
            self.reader = self.take_backs.undo_reader()
        else:
            self.reader = TurnReader(self.saved.position())
            for kind, name in self.saved.touches:
                self.reader.sense(parse_square(name), kind == "put")
            self.reader.placed_first = self.saved.placed_first
        self.draw()
        self.board.drive.home(self._started)

    def _started(self, report: MoveReport) -> None:
        if self.state is not S.STARTING:
            return  # a new game began while the rings homed
        if report.fault:
            return self.fault(report.fault)
        if report.steps:  # the rings moved home: their squares are read again after the settle
            self.clock.call_later(self.settings.settle, lambda: self._look_at_start(homed=True))
            return
        self._look_at_start(homed=False)

    def _look_at_start(self, homed: bool) -> None:
        if self.state is not S.STARTING:
            return  # a new game began while the squares settled
        reading = resync(self.sensors, self.reader)  # colours too: a wrong one put before a cut
        if self.saved.setting_up:
            return self.setups.resume()
        if self.saved.undo is not None:
            return self.take_backs.resume(reading)
        if self.pending is not None:
            if not self._pressed_before_cut(homed):
                self.go(T.ACCEPT)
                self.board.drive.move(1, self._moved)
                return
            self.emit(self._commit(self.pending))  # the rings had turned: the turn stands
        if self.corrections.off():
            return self.corrections.enter(T.MISMATCH)
        if self.take_backs.carry_on(T.RESUME_TURNING):  # an agreed take-back, cut between turns
            return
        if self.position.is_over:
            self.go(T.RESUME_OVER)
            self.announce()  # unless it was, before the cut
        else:
            self.go(T.RESUME_TURN if self.reader.touched else T.RESUME)
            self.players.offer()  # the same turn as before the cut: it is in the journal

    def _pressed_before_cut(self, homed: bool) -> bool:
        """Whether the rings had turned for the pending turn when the power went: the board
        shows the turn after its press, not before it, colour for colour where the sensors
        tell colours. Where the squares cannot tell (a full board read by presence alone:
        an extra press, or the last place, moves a marble onto every square), homing can:
        rings that had to move home were cut in the middle of that very move, which the
        homing finished."""
        assert self.pending is not None
        black, white = self.position.before_press(self.pending)
        before = not board_off(self.sensors, black, white)
        after = not board_off(self.sensors, press(black), press(white))
        if before != after:
            return after
        return homed or not before

    # --- squares -------------------------------------------------------------------
    def _on_square(self, square: int, present: bool, when: float) -> None:
        self.question.keep("marble")  # a marble down (or up): the game goes on, nothing lost
        if self.state in (S.WAITING, S.TURN, S.UNDOING):
            if present == self.reader.holds(square):
                return  # the sensor agrees with the board as we know it
            self.reader.sense(square, present, put_colour(self.sensors, square, present))
            self.saved.add_touch(self.reader, square, present)
            self.save()
            self.refusal = None
            self.hinter.forget()  # a touch: the hint goes, a warning is called off
            if self.state is S.UNDOING:
                self.take_backs.check_undone()
            elif self.state is S.WAITING and self.reader.touched:
                self.go(T.TOUCH)
            elif self.state is S.TURN and not self.reader.touched:
                self.go(T.UNTOUCH)
            else:
                self.draw()
        elif self.state is S.CORRECTION:
            self.corrections.check()
        elif self.state is S.SETTING_UP:
            self.setups.touched()

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
            held = self.settings.hold_time - (self.clock.now() - when)  # from the edge's stamp
            self._hold_timer = self.clock.call_later(max(0.0, held), self._on_hold)
            # The menu after the new game, never before the question is answered.
            starts = self._hold_action == "new game" and self._starts_at_once()
            if starts and self.settings.make_player and self.menu is None:
                self.opponent_menu.set_timer(self.settings.menu_hold, self._open_menu)
            return  # short press or hold: decided on release
        if self.menu is None:
            self.opponent_menu.set_timer(None)  # released before the menu opened
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
        if self.question.asked:
            return "new game"  # the answer to the question: a hold agrees, a press refuses
        if self.state is S.CORRECTION:
            return "set-up"  # a board knocked over: set it up again where the journal has it
        if self._board_empty():
            return "new game"
        if self.can_take_back:
            return "take-back"
        return None

    def _short_press(self) -> None:
        if self._hold_action == "menu":
            self.opponent_menu.next()
        elif self._hold_action == "new game" and self.question.asked:
            self.question.keep("press")  # the press says no: the game goes on
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
        if self._hold_action == "new game" and self.question.asked:
            self.question.agree()  # the second hold: thrown away, agreed on the board
        elif self._hold_action == "new game" and not self._starts_at_once():
            self.question.ask()  # a game in progress: the LEDs ask first
        elif self._hold_action == "new game":
            self.new_game(self.settings.first)
        elif self._hold_action == "take-back" and not self.asks.agree_by_hold():
            self.take_backs.ask()
        elif self._hold_action == "set-up":
            self.setups.again()
        elif self._hold_action == "menu":
            assert self.settings.make_player is not None
            choice = self.opponent_menu.take()
            if choice.seat:
                self._invite(choice)
            else:
                self.players.take_choice(choice, self.settings.make_player)

    def _starts_at_once(self) -> bool:
        """Whether a hold on the empty board starts the new game at once: nothing of a
        game in progress is lost (discard.py), or the question asked is being answered."""
        return self.question.asked or not self.question.at_stake()

    def _short_press_on_empty_board(self) -> None:
        # Hints on, the press asks for the hint (SPEC.md; README's gestures).
        if self.state is S.WAITING and not self.saved.turns and not self.hinter.asked():
            self.saved.first = self.saved.first.other
            self.reader = TurnReader(Position.start(self.saved.first))
            self.players.rechoose()
            self.save()
            self.emit(FirstChosen(self.saved.game, self.saved.first))
            self.players.offer()
            self.draw()
        else:
            self._press()

    def _press(self) -> None:
        if self.state in (S.WAITING, S.TURN):
            self._referee_press()
        elif self.state is S.SETTING_UP:
            self.setups.press()
        elif self.state is S.FAULT:
            self.go(T.RETRY)
            self.board.drive.home(self._started)
        else:
            log.info("%s", _("press ignored while {state}").format(state=_(self.state.value)))

    # --- a press: accept exactly a legal turn ------------------------------------------
    def _referee_press(self) -> None:
        changed = self.corrections.off()
        if changed:
            return self._refuse(
                R_("the board changed while the sensors settled; check it"), changed
            )
        try:
            turn = self.reader.turn()
        except IllegalTurnError as exc:
            if self.hinter.asked():
                return self.hinter.show()
            return self._refuse(exc.reason, mask_of(exc.squares))
        refusal = self.players.refusal(turn)  # a turn the board's player does not allow
        if refusal is not None:
            return self._refuse(*refusal)
        if self.board_turn is None and self.hinter.held_back(turn):
            return
        self._accept(turn)

    # --- hints and the blunder warning (hints.py) --------------------------------------
    @guarded("hints on or off")
    def set_hints(self, on: bool) -> None:
        """Hints and the blunder warning on or off, at once."""
        self.hinter.switch(on)

    def _refuse(self, reason: str, squares: int) -> None:
        at_fault = tuple(squares_of(squares))
        self.hinter.forget()
        seen = self.reader.wrong_colours(at_fault)  # a colour told, and not the mover's
        self.emit(Rejected(self.saved.game, reason, at_fault, seen))
        to_move, board_turn = self.position.to_move, self.board_turn
        self.refusal = View("refused", to_move, at_fault, board_turn=board_turn, seen=seen)
        self.draw()

    def _accept(self, turn: Turn) -> None:
        self.pending = turn
        self.saved.pending = turn.notation()
        self.save()
        self.go(T.ACCEPT)
        self.board.drive.move(1, self._moved)

    # --- the ring move and its check --------------------------------------------------------
    def _moved(self, report: MoveReport) -> None:
        self.go(T.MOVED)
        self.finishing = 0
        self._check_move(report)

    def _check_move(self, report: MoveReport) -> None:
        """Off the index means lost steps: home, which finishes the place; then look."""
        if report.fault:
            return self.fault(report.fault)
        if not report.at_index:
            text = _("the rings stopped off the index after {steps} steps: homing")
            log.warning("%s", text.format(steps=report.steps))
            self.board.drive.home(self._check_move)
            return
        self.clock.call_later(self.settings.settle, self._verify)

    def _verify(self) -> None:
        assert self.pending is not None
        if self.board_away():  # the board failed while the rings settled: no sensor to trust
            return
        black, white = self.position.before_press(self.pending)
        self.sensors.resync()  # the rings have settled: the raw reading is the board's
        before = board_off(self.sensors, black, white)  # colour for colour, if told
        after = board_off(self.sensors, press(black), press(white))
        if not before and after and self.finishing < MAX_FINISHING_MOVES:
            # A whole place was lost: the board still shows the turn before its press.
            log.warning("%s", _("the rings lost a whole place: finishing the move"))
            self.finishing += 1
            self.board.drive.move(1, self._check_move)
            return
        turn_event = self._commit(self.pending)
        if self.corrections.off():  # colour for colour, where the sensors tell colours
            self.emit(turn_event)
            return self.corrections.enter(T.MISMATCH)
        self.go(T.OVER if self.position.is_over else T.MATCH)
        self.emit(turn_event)  # after the transition, so the lights already show the next turn
        if self.position.is_over:
            self.announce()
        else:
            self.players.offer()

    def _commit(self, turn: Turn) -> TurnPlayed:
        """Make ``turn`` part of the game, on disk first; returns its turn event."""
        mover = self.position.to_move
        self.reader = TurnReader(self.position.play(turn))
        self.saved.turns.append(turn.notation())
        self.saved.pending = None
        self.saved.touches = []
        self.saved.placed_first = False
        self.pending = None
        self.hinter.forget()
        self.players.rechoose()  # journaled with the turn: a power cut shows the same choice again
        self.save()
        board = self.position.board()
        return TurnPlayed(self.saved.game, len(self.saved.turns), mover, turn, board)

    def _on_health(self, health: Health) -> None:
        """The board's health between moves (a part missing, a ring controller unplugged
        while the rings are idle): a fault, shown at once, so no turn is refused for squares
        the board cannot read; or whole again, and the board recovers as after a restart
        (home the rings, check the board). A move or homing under way ends with its own
        report."""
        self.health = health
        fault = health.fault
        if fault and self.state in IDLE and self.state is not S.UNDOING:
            self.fault(fault)
        elif not fault and self.state is S.FAULT:
            self.go(T.RETRY)
            self.board.drive.home(self._started)

    # --- games ---------------------------------------------------------------------
    @guarded("a new game")
    def new_game(self, first: Colour, next_game: bool | None = None) -> None:
        """Start a new game, ``first`` to move. It counts as the next game if ``next_game``
        says so, by default if the current one had begun (which then goes to the history).
        Not while the rings turn (a control on the web page may ask then): ignored, logged."""
        if self.state in (S.ROTATING, S.VERIFYING, S.TAKING_BACK):
            log.warning("%s", _("a new game was asked for while the rings turn: ignored"))
            return
        self.question.drop("new-game")  # answered already, or a new game from elsewhere
        if self.saved.turns and self.position.result is None and not self.saved.announced:
            self.journal.add_to_history(self.saved, None)
        opponent = self.saved.opponent
        if self.saved.turns if next_game is None else next_game:
            self.saved = Saved(game=self.saved.game + 1, first=first)
        else:
            self.saved = Saved(game=self.saved.game, first=first)
        self.saved.opponent = opponent  # who plays is kept from game to game
        self.reader = TurnReader(Position.start(first))
        self.pending = None
        self.refusal = None
        self.hinter.forget()
        self.sensors.resync()
        self.players.rechoose()
        self.save()
        self.emit(NewGame(self.saved.game, first))
        self.go(T.NEW_GAME)
        if self.board_away():  # still away: the new game starts once the board is back
            return
        if self.sensors.read():
            self._enter_board_not_empty()
        self.players.offer()

    # --- set-ups (setup.py) -------------------------------------------------------------
    @guarded("a set-up")
    def set_up(
        self,
        first: Colour,
        tokens: list[str],
        next_game: bool | None = None,
        origin: str | None = None,
    ) -> None:
        """A new game from the position ``tokens`` reach, set up by the LEDs (setup.py)."""
        if not self.busy:
            self.setups.begin(first, tokens, next_game, origin)

    @guarded("a set-up again")
    def set_up_again(self) -> None:
        """Set the game up again where the journal has it (a board knocked over)."""
        if not self.busy:
            self.setups.again()

    # --- the board as a player (players.py) ------------------------------------------
    @property
    def board_turn(self) -> Turn | None:
        """The turn the board chose and shows, when it is the board's move; else None."""
        return self.players.board_turn

    @guarded("an event from outside")
    def tell(self, event: Event) -> None:
        """An event from beside the referee (a remote board's link) to all its listeners,
        in the order of its own."""
        self.emit(event)

    @guarded("a turn offered")
    def offer(self) -> None:
        """Ask the opponent again for its turn: a remote player's turn has arrived."""
        self.players.offer()

    def set_next_opponent(self, opponent: BoardPlayer | None) -> None:
        """``opponent`` plays from the new game about to start, which chooses with it (not
        journaled and nothing offered here: the new game does both)."""
        self.players.opponent = opponent

    @guarded("a change of opponent")
    def set_opponent(self, opponent: BoardPlayer | None) -> None:
        """The board plays ``opponent`` (None: nobody) from now on, in this position too;
        journaled, so a power cut keeps it."""
        self.players.set_opponent(opponent)

    def _enter_board_not_empty(self) -> None:
        """A new game on a board that still holds marbles: treat them as a turn to clear."""
        for square in squares_of(self.sensors.read()):
            colour = put_colour(self.sensors, square, True)  # told, else the mover's
            self.reader.sense(square, True, colour)  # the hand is empty
        self.go(T.TOUCH)

    # --- the opponent menu (menu.py) ---------------------------------------------------
    def _open_menu(self) -> None:
        if self.state is not S.WAITING or self.saved.turns or self.sensors.read():
            return  # a marble went down while the button was held: no menu
        opponent = self.opponent
        if opponent is None:
            self.opponent_menu.open(None, None)
        else:
            self.opponent_menu.open(opponent.player, opponent.colour)

    def _invite(self, choice: Choice) -> None:
        """The menu's "invite a player": the app makes the link (``Settings.invite_seat``);
        the LEDs confirm it, or refuse it (red, and a ``rejected`` event saying why not)."""
        invite, colour = self.settings.invite_seat, choice.colour
        assert invite is not None and colour is not None
        why = invite(colour)
        if why is None:
            self.opponent_menu.confirmed(choice)
        else:
            self._refuse(R_("no seat's link for {colour}: {why}").format(colour=colour, why=why), 0)

    # --- take-backs (takeback.py) -------------------------------------------------------
    @property
    def board_as_it_stands(self) -> bool:
        """Whether the board shows the game as its turns left it: no turn in progress, no
        marble in the hand, none missing or extra. Only from there may the rings turn back."""
        return self.take_backs.board_as_it_stands

    @guarded("a take-back")
    def take_back(self, single: bool = False) -> None:
        """Take back the last turn, as holding the button does (the web page's control);
        nothing when ``can_take_back`` is False. ``single``: that turn only, even where the
        board's turn would take the person's with it (a remote board's take-back, followed
        here one turn at a time)."""
        self.take_backs.ask(single)

    @guarded("a game ended by the players")
    def end_by_agreement(self, result: Result) -> None:
        """A resignation (``result``: the other side wins) or an agreed draw: kept, then a
        new game (ending.py); nothing while ``ending.can_end`` says why not."""
        end_by_agreement(self, result, self.new_game)

    # --- asks across the board (asks.py) ------------------------------------------------
    @guarded("an ask")
    def ask(self, what: What, colour: Colour) -> None:
        """``colour`` asks the other side for ``what`` (a player away a take-back or a draw,
        the person here a draw); nothing while ``asks.refusal`` says why not."""
        self.asks.ask(what, colour)

    @guarded("an answer")
    def answer(self, colour: Colour, agreed: bool, reason: str = "") -> None:
        """``colour`` answers the ask waiting, ``agreed`` or not (``reason``: why not);
        nothing while ``asks.answer_refusal`` says why not."""
        self.asks.answer(colour, agreed, reason)

    def snapshot(self) -> Snapshot:
        """The referee as the outside sees it, now: a copy (snapshot.py)."""
        leds, status = self.show.lights.shown()
        reader = self.reader
        return Snapshot(
            state=self.state,
            saved=saved_copy(self.saved),
            position=self.position,
            marbles=frozen_marbles(reader.marbles),
            hand=tuple(reader.hand),
            touched=reader.touched,
            placed_first=reader.placed_first,
            pending=self.pending,
            opponent=self.opponent,
            board_turn=self.board_turn,
            hints=self.hints,
            menu=self.menu,
            can_take_back=self.can_take_back,
            busy=self.busy,
            healthy=self.healthy,
            view=self.show.view,
            leds=tuple(leds),
            status=status,
            palette=self.settings.palette,
            reading=self.sensors.read(),
            blink_period=self.show.blink_period,
            ask=self.asks.pending,
            answered=self.asks.last,
        )

    # --- lights ------------------------------------------------------------------
    def go(self, trigger: Trigger) -> None:
        """The core's change of state; a question waiting lapses with it (the board moved
        on under it: a fault, a set-up, a take-back from the page), the game kept."""
        self.question.drop("moved-on")
        super().go(trigger)

    def view(self) -> View:
        to_move = self.position.to_move
        if self.question.asked:  # throw this game away? over whatever the board shows
            return View("discard", to_move)
        if self.state is S.CORRECTION:  # the parts that draw their own state
            return self.corrections.view()
        if self.state is S.SETTING_UP:
            return self.setups.view()
        if self.state is S.UNDOING:
            return self.take_backs.view()
        if self.state is S.GAME_OVER and (result := self.position.result) is not None:
            return View("result", None, result=result, lines=tuple(self.position.lines()))
        if self.state in (S.ROTATING, S.VERIFYING, S.TAKING_BACK):
            return View("rotating", to_move)
        if self.state in (S.STARTING, S.FAULT):
            return View("starting" if self.state is S.STARTING else "fault", to_move)
        if self.menu is not None:
            return View("menu", to_move, menu=CHOICES[self.menu])
        invited = self.opponent_menu.invited  # a seat's link just made: confirmed, untouched
        if invited is not None and self.state is S.WAITING and not self.reader.touched:
            return View("menu", to_move, menu=invited)
        shown = self.refusal or self.hinter.shown
        if shown is not None:
            return shown
        board_turn = self.board_turn  # its turn's steps first; else an ask waiting, pulsing
        asked = self.asks.shown() if board_turn is None else None
        return View("play", to_move, board_turn=board_turn, ask=asked)
