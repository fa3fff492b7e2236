"""The page's instruction line: what the board wants now, in one sentence a player reads at
a glance ("White to move: place a marble, then press", "Put b1 and c2 back").

It is computed here, on the board, from the referee's state, its light show's ``View`` (what
the LEDs mean, so the line and the LEDs never disagree) and the last few events that carry
what no state keeps (why a press was refused, the fault's words, the turn being taken back).
The page draws the snapshot's ``instruction``: a reload, or a second page, shows the same line.

``SENTENCES`` is a table keyed by the phase (``phase_of``): a new state of the board (a
set-up mode, say) is one more row there and one more line in ``phase_of``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Final

from orbito_hw.control.events import (
    BlunderWarning,
    BoardTurn,
    Event,
    Fault,
    NewGame,
    PuzzleDone,
    Rejected,
    RemoteStatus,
    SetupAsked,
    TakeBack,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.guide import FIXES, Guide, Step
from orbito_hw.control.led_words import colour_word
from orbito_hw.control.lights import View, guide_of
from orbito_hw.control.menu import CHOICES
from orbito_hw.control.puzzle import goal_of
from orbito_hw.control.referee import State
from orbito_hw.control.snapshot import Snapshot
from orbito_hw.lang import _, ngettext, reworded
from orbito_hw.rules.game import EXTRA_PRESSES, Colour, Position, Result
from orbito_hw.rules.squares import line_names, square_name


@dataclass
class Memory:
    """What the events said that no state keeps: the last refusal's reason, the fault's
    words, the turn being taken back, the turn held back by a warning, the remote link."""

    rejected: str = ""
    fault: str = ""
    taking_back: tuple[int, str] | None = None
    warned: tuple[str, str] | None = None  # (turn, value) held back
    remote: str = ""  # the remote link's last word ("opponent-offline", ...)
    puzzle: tuple[bool, int] | None = None  # the puzzle's try ended: (solved, plies)

    def hear(self, event: Event) -> None:
        if isinstance(event, Rejected):
            self.rejected = event.reason
        elif isinstance(event, Fault):
            self.fault = event.reason
        elif isinstance(event, TakeBack):
            self.taking_back = (event.number, event.turn.notation())
        elif isinstance(event, TakenBack):
            self.taking_back = None
            self.puzzle = None  # a new try, or the result gone with the turns taken back
        elif isinstance(event, PuzzleDone):
            self.puzzle = (event.solved, event.plies)
        elif isinstance(event, BlunderWarning):
            self.warned = (event.turn.notation(), event.value)
        elif isinstance(event, RemoteStatus):
            self.remote = event.state
        elif isinstance(event, SetupAsked):
            self.puzzle = None
        elif isinstance(event, (NewGame, TurnPlayed, BoardTurn)):
            self.puzzle = None if isinstance(event, NewGame) else self.puzzle
            self.warned = None
            self.taking_back = None if isinstance(event, NewGame) else self.taking_back


@dataclass(frozen=True)
class Situation:
    """Everything the sentence is made of, read off the referee at one moment (``read``):
    plain data, so that each sentence is tested without a board."""

    state: str  # the referee's State value
    view: View | None
    position: Position
    hand: tuple[Colour, ...] = ()
    opponent: Colour | None = None  # the colour the board (or the other board) plays
    opponent_by: str = "board"  # "board" or "remote"
    level: str = ""  # the board's level ("3", "perfect"), "" for a remote player
    on_board: tuple[str, ...] = ()  # the squares that hold a marble now, as the board reads them
    memory: Memory = field(default_factory=Memory)
    goal: str = ""  # a puzzle's game: its goal ("White to play and win in 3 turns")
    seat: bool = False  # the remote player is a seat: a person on a phone (web/seat.py)


def read(now: Snapshot, memory: Memory, seat: bool = False) -> Situation:
    """The situation now; ``seat``: the board's opponent is a seat (the server knows), as
    it is when the opponent says so itself (a seat across the internet: its hello)."""
    opponent = now.opponent
    level = ""
    if opponent is not None and opponent.player.startswith("board:"):
        level = opponent.player.split(":", 1)[1]
    return Situation(
        state=now.state.value,
        view=now.view,
        position=now.position,
        hand=tuple(m.colour for m in now.hand),
        opponent=opponent.colour if opponent else None,
        opponent_by=opponent.by if opponent else "board",
        level=level,
        on_board=tuple(square_name(sq) for sq in sorted(now.marbles)),
        memory=memory,
        goal=goal_of(now.saved.origin),
        seat=opponent is not None and opponent.by == "remote" and (seat or opponent.seat()),
    )


# --- words ---------------------------------------------------------------------------------
def title(colour: Colour) -> str:
    """The colour as a sentence's subject ("Black", "White")."""
    return _("Black") if colour is Colour.BLACK else _("White")


def names(squares: list[str]) -> str:
    """``b1``, ``b1 and c2``, ``b1, c2 and d4``."""
    if len(squares) <= 1:
        return "".join(squares)
    return _("{some} and {last}").format(some=", ".join(squares[:-1]), last=squares[-1])


def step_phrase(step: Step) -> str:
    """One step of a guide in words: "place a black marble on b4", "take the marble off a1"."""
    square = square_name(step.square) if step.square is not None else ""
    colour, seen = colour_word(step.colour), colour_word(step.seen)
    if step.action in ("lift", "put") and step.origin is None:
        return _("lift the marble on {square}").format(square=square)
    if step.action == "put":
        origin = square_name(step.origin) if step.origin is not None else ""
        return _("put the marble from {origin} on {square}").format(origin=origin, square=square)
    if step.action == "place":
        return _("place a {colour} marble on {square}").format(colour=colour, square=square)
    if step.action == "put-back":
        return _("put a {colour} marble back on {square}").format(colour=colour, square=square)
    if step.action == "swap":
        return _("swap the {seen} marble on {square} for a {colour} one").format(
            seen=seen, square=square, colour=colour
        )
    if step.action == "take-off":
        return _("take the marble off {square}").format(square=square)
    if step.action == "undo":
        return _("undo what was done on {square}").format(square=square)
    return _("press")


def guide_steps(guide: Guide, fixes: bool = True) -> str:
    """What is left of a guide, in order: ``move c2 to c3, then place a black marble on
    b4, then press`` (a move not begun is one step: lift and put); ``fixes`` False: the
    turn's own steps only (a refusal names its squares itself)."""
    left = [s for s in guide.left() if fixes or s.action not in FIXES]
    if not any(s.action in ("lift", "put", "place") for s in guide.steps) and (
        len(left) == 1 and left[0].action == "press"
    ):
        return _("just press (the board is full)")
    phrases: list[str] = []
    for i, step in enumerate(left):
        after = left[i + 1] if i + 1 < len(left) else None
        if step.action == "lift" and after is not None and after.action == "put":
            continue  # said with the put: "move c2 to c3"
        if step.action == "put" and i > 0 and left[i - 1].action == "lift":
            origin = square_name(step.origin) if step.origin is not None else ""
            square = square_name(step.square) if step.square is not None else ""
            phrases.append(_("move {origin} to {square}").format(origin=origin, square=square))
            continue
        phrases.append(step_phrase(step))
    return _(", then ").join(phrases)


def level_words(level: str) -> str:
    """``3`` -> "level 3"; "perfect" -> "perfect play"."""
    if level.isdigit():
        return _("level {level}").format(level=level)
    if level == "perfect":
        return _("perfect play")
    if level == "random":
        return _("random turns")
    return level


def board_name(s: Situation, colour: Colour) -> str:
    """Who plays ``colour`` when it is not the person here: "The board", "Black's board"
    (another board, --remote) or "The player on the phone" (a seat, docs/seat.md)."""
    if s.seat:
        return _("The player on the phone")
    if s.opponent_by == "remote":
        return _("{colour}'s board").format(colour=title(colour))
    return _("The board")


def turn_owner(s: Situation) -> str:
    """Whose turn the LEDs show, as the status light's words name it: "the board",
    "white's board" (another board) or "the player on the phone" (a seat)."""
    if s.seat:
        return _("the player on the phone")
    if s.opponent_by == "remote" and s.opponent is not None:
        return _("{colour}'s board").format(colour=colour_word(s.opponent))
    return _("the board")


# --- the sentence of each phase --------------------------------------------------------------
def _your_turn(s: Situation) -> str:
    colour = s.position.to_move
    if s.position.is_full:
        done = s.position.extra_presses
        return _(
            "{colour} to move: the board is full, so just press "
            "(extra press {number} of {presses}: the first line wins)"
        ).format(colour=title(colour), number=done + 1, presses=EXTRA_PRESSES)
    if s.position.placed == 0 and len(s.on_board) > 1:
        # A new game on a board that still holds the last one's marbles (a real board).
        return _("Clear the board for the new game: take the marbles off {squares}").format(
            squares=names(list(s.on_board))
        )
    if s.hand:
        held = s.hand[-1]
        if held is not colour:
            return _(
                "{colour} to move: put the {held} marble you lifted on an empty square next "
                "to where it was, then place a {marble} marble, then press"
            ).format(colour=title(colour), held=colour_word(held), marble=colour_word(colour))
        return _("{colour} to move: put the {held} marble down, then press").format(
            colour=title(colour), held=colour_word(held)
        )
    return _("{colour} to move: place a marble, then press").format(colour=title(colour))


def _board_turn(s: Situation) -> str:
    """The board's turn as far as the hands got: the steps left, the press last."""
    view = s.view
    guide = guide_of(view)
    assert view is not None and view.board_turn is not None and view.to_move is not None
    assert guide is not None
    steps = guide_steps(guide)
    if guide.press_now and not view.board_turn.is_extra_press:
        steps = _("made: now press")
    if s.seat:  # the player on the phone chose it: make it here
        return _("The player on the phone plays {turn}: {steps}").format(
            turn=view.board_turn.notation(), steps=steps
        )
    if s.opponent_by == "remote":  # the other person chose it at their board: make it here
        return _("{colour}'s board plays {turn}: {steps}").format(
            colour=title(view.to_move), turn=view.board_turn.notation(), steps=steps
        )
    return _("The board's turn: {steps}").format(steps=steps)


def _board_choosing(s: Situation) -> str:
    return _("The board is choosing its turn")


def _waiting_remote(s: Situation) -> str:
    colour = colour_word(s.position.to_move)
    if s.seat:  # at home, or across the internet (its page's link to the broker)
        if s.memory.remote == "opponent-offline":
            text = _("Waiting for the player on the phone ({colour}): their page is offline")
        elif s.memory.remote == "disconnected":
            text = _(
                "Waiting for the player on the phone ({colour}): the link to the broker is down"
            )
        else:
            text = _("Waiting for the player on the phone ({colour}): choosing a turn")
        return text.format(colour=colour)
    if s.memory.remote == "opponent-offline":
        return _("Waiting for {colour}'s board: it is offline").format(colour=colour)
    if s.memory.remote == "disconnected":
        return _("Waiting for {colour}'s board: the link to the broker is down").format(
            colour=colour
        )
    return _("Waiting for {colour}'s board: the other player is choosing a turn").format(
        colour=colour
    )


def _left(s: Situation, action: str) -> list[Step]:
    """The steps of the situation's guide still to do, of one ``action``."""
    guide = guide_of(s.view)
    return [] if guide is None else [st for st in guide.left() if st.action == action]


def _sq(step: Step) -> str:
    return square_name(step.square) if step.square is not None else ""


def _capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def _off(steps: list[Step]) -> str:
    """``take the marble off d4``, ``take the marbles off a1 and b1``."""
    where = names([_sq(st) for st in steps])
    if len(steps) > 1:
        return _("take the marbles off {squares}").format(squares=where)
    return _("take the marble off {squares}").format(squares=where)


def _correction(s: Situation) -> str:
    """A correction from its guide: what to put back, to swap, to take off."""
    parts = []
    back = _left(s, "put-back")
    if back:
        each = [
            _("{square} ({colour})").format(square=_sq(st), colour=colour_word(st.colour))
            for st in back
        ]
        parts.append(_("put {squares} back").format(squares=names(each)))
    for st in _left(s, "swap"):  # a marble of the other colour (sensors that tell colours)
        parts.append(
            _("swap the {seen} marble on {square} for a {colour} one").format(
                seen=colour_word(st.seen), square=_sq(st), colour=colour_word(st.colour)
            )
        )
    if off := _left(s, "take-off"):
        parts.append(_off(off))
    return _capital(_("; ").join(parts)) or _("Check the board: it does not match the game")


def _refused(s: Situation) -> str:
    """Why, the squares ringed red (only those where something is wrong: none, none
    named), and on the board's move what is left of its turn."""
    view, guide = s.view, guide_of(s.view)
    assert view is not None and guide is not None
    reason = reworded(s.memory.rejected) or _("that is not a legal turn")
    text = _("Not accepted: {reason}").format(reason=reason)
    red = guide.squares(("undo",))
    if red:
        text += _(". Fix the squares ringed red: {squares}").format(
            squares=names([square_name(q) for q in red])
        )
    others = [step_phrase(st) for st in guide.fixes if st.action != "undo"]
    if others:  # what to put back or take off, said step by step
        text += ". " + _capital(_(", then ").join(others))
    if view.board_turn is not None and view.to_move is not None:
        text += _(". {board} asks: {steps}").format(
            board=board_name(s, view.to_move), steps=guide_steps(guide, fixes=False)
        )
    return text


def _undo(s: Situation) -> str:
    """A take-back's undoing from its guide: the marbles to take off, then to put back."""
    steps = []
    if off := _left(s, "take-off"):
        where = names([_sq(st) for st in off])
        steps.append(_("take the marble off {squares}").format(squares=where))
    if back := _left(s, "put-back"):
        each = [
            _("{colour} on {square}").format(colour=colour_word(st.colour), square=_sq(st))
            for st in back
        ]
        steps.append(_("put {marbles} back").format(marbles=names(each)))
    todo = _(", then ").join(steps) if steps else _("the board is checked")
    if s.memory.taking_back is not None:
        number, token = s.memory.taking_back
        return _("Undo turn {number} ({turn}): {todo}").format(number=number, turn=token, todo=todo)
    return _("Undo: {todo}").format(todo=todo)


def _hint(s: Situation) -> str:
    view = s.view
    assert view is not None and view.hint_turn is not None and view.to_move is not None
    worth = {"win": _("wins"), "draw": _("draws"), "loss": _("loses anyway")}.get(
        view.value or "", ""
    )
    guide = guide_of(view)
    assert guide is not None
    steps = guide_steps(guide)
    return _(
        "Hint for {colour}: {steps} ({turn}, best play {worth}); or make your own turn"
    ).format(
        colour=colour_word(view.to_move),
        steps=steps,
        turn=view.hint_turn.notation(),
        worth=worth,
    )


def _warning(s: Situation) -> str:
    view = s.view
    assert view is not None
    value = view.value or (s.memory.warned[1] if s.memory.warned else "")
    token = s.memory.warned[0] if s.memory.warned else _("this turn")
    lost = {"draw": _("only a draw"), "loss": _("a loss")}.get(value) or _("worse")
    return _(
        "Careful: {turn} turns your game into {lost}. Press again to play it anyway, "
        "or change it first"
    ).format(turn=token, lost=lost)


def _result(s: Situation) -> str:
    view = s.view
    result = s.position.result
    if result is None and view is not None:
        result = view.result
    lines = line_names(s.position.lines())
    if result is None:
        return _("The game is over")
    both = "; ".join(" ".join(line) for line in lines)
    if result is Result.DRAW:
        if lines:
            return _("Draw: both have a line ({lines})").format(lines=both)
        return _("Draw: no line after the extra presses")
    winner = result.winner
    assert winner is not None
    return _("{colour} wins: {lines}").format(colour=title(winner), lines=both)


def _by_colour(steps: list[Step]) -> str:
    """``black on a1 and c3, white on b2``: the squares of each colour, in the given order."""
    colours = list(dict.fromkeys(st.colour for st in steps))
    return _(", ").join(
        _("{colour} on {squares}").format(
            colour=colour_word(c), squares=names([_sq(st) for st in steps if st.colour is c])
        )
        for c in colours
    )


def _setup(s: Situation) -> str:
    """A set-up from its guide: the marbles to put on now (lit), after them (dim), off."""
    places = _left(s, "place")
    now = [st for st in places if st.progress == "now"]
    later = [st for st in places if st.progress == "waiting"]
    parts = []
    if now:
        parts.append(_("put {marbles} (lit)").format(marbles=_by_colour(now)))
    if later:
        if parts:
            parts.append(_("then {marbles} (dim)").format(marbles=_by_colour(later)))
        else:
            parts.append(_("put {marbles} (dim)").format(marbles=_by_colour(later)))
    if off := _left(s, "take-off"):
        squares = names([_sq(st) for st in off])
        parts.append(_("take the marbles off {squares} (blinking red)").format(squares=squares))
    todo = _("; ").join(parts) or _("the board checks the marbles")
    return _("Set the position up: {todo}").format(todo=todo)


def _rotating(s: Situation) -> str:
    if s.state == State.TAKING_BACK.value:
        return _("Hands off: the rings turn back one place for the take-back")
    if s.state == State.VERIFYING.value:
        return _("Hands off: the board checks the marbles")
    return _("Hands off: the rings are turning")


def _starting(s: Situation) -> str:
    return _("Hands off: the board is getting ready (the rings find their place)")


def _fault(s: Situation) -> str:
    reason = s.memory.fault  # the fault event's reason: English data (SPEC's events)
    if "ring controller" in reason and ("gone" in reason or "lost" in reason):
        return _(
            "The ring controller is unplugged or silent: plug it back in "
            "(the board goes on by itself once it answers). {reason}"
        ).format(reason=reworded(reason))
    if reason:
        return _("The board has stopped: {reason}. Fix it, then press to try again").format(
            reason=reworded(reason)
        )
    return _("The board has stopped on a fault: see its log, then press to try again")


def _menu(s: Situation) -> str:
    view = s.view
    choice = view.menu if view is not None and view.menu is not None else CHOICES[0]
    if choice.made and choice.colour is not None:  # the menu's invitation, made
        return _(
            "A player is invited to play {colour}: the link and its QR code are on this page, "
            "and in the board's log"
        ).format(colour=colour_word(choice.colour))
    if choice.colour is None:
        shown = _("two people")
    elif choice.seat:
        shown = _("invite a player on a phone for {colour}").format(
            colour=colour_word(choice.colour)
        )
    else:
        shown = _("the board plays {colour} ({level})").format(
            colour=colour_word(choice.colour), level=level_words(choice.level or "")
        )
    return _("Opponent menu: {choice}. Press for the next choice, hold to take this one").format(
        choice=shown
    )


def _discard(s: Situation) -> str:
    return _(
        "Throw this game away for a new one? Hold the button again to agree; press, or put "
        "a marble back, to play on (the game is kept)"
    )


SENTENCES: Final[dict[str, Callable[[Situation], str]]] = {
    "your-turn": _your_turn,
    "board-turn": _board_turn,
    "board-choosing": _board_choosing,
    "waiting-remote": _waiting_remote,
    "correction": _correction,
    "refused": _refused,
    "undo": _undo,
    "hint": _hint,
    "warning": _warning,
    "result": _result,
    "rotating": _rotating,
    "starting": _starting,
    "fault": _fault,
    "menu": _menu,
    "setup": _setup,
    "discard": _discard,
}
"""The sentence of each phase; ``phase_of`` picks the row."""


def phase_of(s: Situation) -> str:
    """The row of ``SENTENCES`` for the situation: the view's mode first (what the LEDs show
    now), then whose turn it is."""
    mode = s.view.mode if s.view is not None else "starting"
    if mode == "discard":  # the question, over any state (a fault's too): its answer first
        return mode
    if s.state == State.FAULT.value or mode == "fault":
        return "fault"
    if s.state == State.GAME_OVER.value or mode == "result":
        return "result"
    if mode in (
        "correction",
        "undo",
        "refused",
        "warning",
        "menu",
        "rotating",
        "starting",
        "setup",
    ):
        return mode
    if mode == "hint" and s.view is not None and s.view.hint_turn is not None:
        return "hint"
    if s.view is not None and s.view.board_turn is not None:
        return "board-turn"
    if s.opponent is not None and s.opponent is s.position.to_move:
        return "waiting-remote" if s.opponent_by == "remote" else "board-choosing"
    return "your-turn"


def instruction(s: Situation) -> tuple[str, str]:
    """The phase and its sentence."""
    phase = phase_of(s)
    sentence = SENTENCES[phase](s)
    if not s.goal:
        return phase, sentence
    return phase, _("{puzzle}. {sentence}").format(puzzle=puzzle_words(s), sentence=sentence)


def puzzle_words(s: Situation) -> str:
    """A puzzle's goal while the try is on, its result once it ended."""
    done = s.memory.puzzle
    if done is None:
        return _("Puzzle: {goal}").format(goal=reworded(s.goal))
    solved, plies = done
    if solved:
        return ngettext("Solved in {n} turn", "Solved in {n} turns", plies).format(n=plies)
    return _("Not solved: try again with a take-back, or a new puzzle")


def players_text(s: Situation) -> str:
    """Who plays what, in words: ``White: you · Black: the board (level 3)``."""
    parts = []
    for colour in (Colour.WHITE, Colour.BLACK):
        if s.opponent is colour and s.seat:
            who = _("the player on the phone")
        elif s.opponent is colour and s.opponent_by == "remote":
            who = _("{colour}'s board (the other player)").format(colour=colour_word(colour))
        elif s.opponent is colour:
            who = _("the board ({level})").format(level=level_words(s.level))
        elif s.opponent is None:
            who = _("a person")
        else:
            who = _("you")
        parts.append(_("{colour}: {who}").format(colour=title(colour), who=who))
    return " · ".join(parts)
