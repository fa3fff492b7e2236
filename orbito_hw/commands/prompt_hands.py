"""The prompt's whole-turn words (commands/prompt.py): a turn typed in the game's notation
(``a2``, ``c1-c2:a2``, ``*``), ``undo``, ``new`` and ``hint``, each made on the simulated
board as hands would make it, so the controller referees it as any turn.

A typed turn is checked first with the rules' own parser and checker: an illegal one is
refused with the rules' reason and the board is not touched. A turn the controller then
refuses at the press (a blunder held back with hints on, say) is unmade, so nothing is left
half-made on the board: typing it again is a fresh try.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from orbito_hw.errors import OrbitoError
from orbito_hw.lang import _, reworded
from orbito_hw.rules.game import Colour
from orbito_hw.rules.turn import Turn, why_malformed
from orbito_hw.sim.script import Command

if TYPE_CHECKING:
    from orbito_hw.sim.harness import MockRun

TAKE_BACK_ROUNDS: Final = 4
"""Take-backs an ``undo`` follows, at most: against the board, its turn and the person's."""
_NOTATION: Final = re.compile(r"\*|[a-d][1-4](?:-[a-d][1-4]:[a-d][1-4])?")
_TURN_SHAPED: Final = re.compile(r"[a-z]?\d+(?:[-:][a-z]?\d*)*|[a-z]\d*(?:[-:][a-z]?\d*)+")
"""A word meant as a turn though written wrong (a5, c1-c2, e1): its fault explained, not
"unknown command"."""


class TypedTurnError(OrbitoError, ValueError):
    """A whole turn, ``undo`` or ``new`` typed that the board cannot make now (the reason)."""


@dataclass(frozen=True, slots=True)
class Whole:
    """A whole-turn word typed: ``turn`` (notation), ``undo``, ``new`` (``colour``) or
    ``hint``."""

    name: str
    turn: Turn | None = None
    colour: Colour | None = None


def whole_of(words: list[str]) -> Whole | None:
    """The whole-turn word these (lower-case) words ask for; None for another command.
    ValueError for one of them written wrong."""
    first, rest = words[0], words[1:]
    if _NOTATION.fullmatch(first):
        if rest:
            raise ValueError(_("a turn is one token (like c1-c2:a2), got {words}").format(
                words=" ".join(words)))  # fmt: skip
        return Whole("turn", turn=Turn.from_notation(first))
    if _TURN_SHAPED.fullmatch(first):
        raise ValueError(why_malformed(first))
    if first in ("undo", "hint"):
        if rest:
            raise ValueError(_("{word} takes nothing").format(word=first))
        return Whole(first)
    if first == "new":
        if len(rest) > 1 or (rest and rest[0] not in ("black", "white")):
            raise ValueError(_("new takes black or white (who starts), or nothing"))
        return Whole("new", colour=Colour(rest[0]) if rest else None)
    return None


def make(run: MockRun, whole: Whole, first_command: bool = False) -> str | None:
    """Make ``whole`` on the board; a sentence to show (the hint), or None. TypedTurnError
    when the board cannot make it now, nothing touched."""
    if whole.name == "turn":
        assert whole.turn is not None
        play(run, whole.turn)
        return None
    if whole.name == "undo":
        return take_back(run)
    if whole.name == "new":
        colour = whole.colour or run.referee.snapshot().first
        run.run(Command("reset", colour=colour), first_command=first_command)
        return None
    return hint(run)


def _waiting(run: MockRun) -> None:
    """TypedTurnError unless the board waits for a turn with nothing touched."""
    from orbito_hw.control.referee import State

    referee, now = run.referee, run.referee.snapshot()
    if referee.state is State.TURN or now.touched:
        raise TypedTurnError(_("a turn is under way on the board: press to play it, or put "
                               "the marbles back (the LEDs say where)"))  # fmt: skip
    if referee.state is State.GAME_OVER or referee.position.result is not None:
        raise TypedTurnError(_("the game is over: type new for a new game, or undo"))
    if referee.state is not State.WAITING or referee.menu is not None:
        raise TypedTurnError(_("the board is not waiting for a turn now ({state}): follow "
                               "its LEDs first").format(state=_(referee.state.value)))  # fmt: skip


def play(run: MockRun, turn: Turn) -> None:
    """``turn`` made by hand and pressed: the move (lift, put), the placement, the press.
    TypedTurnError, the board untouched, for a turn the rules refuse here, or another than
    the one the board shows on its move. The same turn typed again while it stands held
    back (a blunder warned of, with hints on) is pressed: it is meant."""
    from orbito_hw.control.events import BlunderWarning
    from orbito_hw.errors import IllegalTurnError

    referee = run.referee
    if referee.snapshot().touched and _standing(run) == turn:
        run.run(Command("press"))
        run.wait_for_rings()
        return
    _waiting(run)
    try:
        referee.position.check(turn)
    except IllegalTurnError as exc:
        raise TypedTurnError(_("{turn} is not a legal turn here: {reason}").format(
            turn=turn.notation(), reason=reworded(exc.reason))) from None  # fmt: skip
    shown = referee.board_turn
    if shown is not None and shown != turn:
        raise TypedTurnError(_("the board plays {shown} on its move: type {shown}, or make it "
                               "by hand").format(shown=shown.notation()))  # fmt: skip
    hands: list[Command] = []
    if turn.move_from is not None and turn.move_to is not None:
        hands += [Command("lift", square=turn.move_from), Command("put", square=turn.move_to)]
    if turn.place is not None:
        hands.append(Command("put", square=turn.place))
    heard = len(run.typed_events)
    for command in [*hands, Command("press")]:
        run.run(command)
    run.wait_for_rings()
    warned = any(isinstance(e, BlunderWarning) for e in run.typed_events[heard:])
    if run.referee.snapshot().touched and not warned:  # refused at the press: unmade
        _unmake(run, turn)


def _standing(run: MockRun) -> Turn | None:
    """The turn the marbles on the board make now, before its press, if they make one."""
    now = run.referee.snapshot()
    black = white = 0
    for square, marble in now.marbles.items():
        if marble.colour is Colour.BLACK:
            black |= 1 << square
        else:
            white |= 1 << square
    for turn in now.position.legal_turns():
        if now.position.before_press(turn) == (black, white):
            return turn
    return None


def _unmake(run: MockRun, turn: Turn) -> None:
    """The hands of ``turn`` undone (the placed marble off, the moved one back)."""
    if turn.place is not None:
        run.run(Command("lift", square=turn.place))
        run.physics.empty_hand()
    if turn.move_from is not None and turn.move_to is not None:
        run.run(Command("lift", square=turn.move_to))
        run.run(Command("put", square=turn.move_from))
    run.wait_for_rings()


def take_back(run: MockRun) -> str | None:
    """The last turn taken back as holding the button does, then the marbles put as the
    LEDs ask (against the board, its turn and the person's before it). A whole turn made
    and not played (held back by the blunder warning) is unmade instead: that is the turn
    the person takes back, and a sentence says so."""
    from orbito_hw.control.referee import State

    now = run.referee.snapshot()
    standing = _standing(run) if now.touched and not now.hand else None
    if standing is not None:
        _unmake(run, standing)
        return _("{turn} not played: its marbles are back where they were").format(
            turn=standing.notation()
        )
    if now.touched or now.hand:
        raise TypedTurnError(_("put the marbles of the turn under way back first: a take-back "
                               "starts from the board as the last turn left it"))  # fmt: skip
    if not now.can_take_back:
        raise TypedTurnError(_("there is no turn to take back"))
    run.run(Command("hold", seconds=2.5))
    for _round in range(TAKE_BACK_ROUNDS):
        run.wait_for_rings()
        if run.referee.state is not State.UNDOING:
            return None
        _put_back(run)
    run.wait_for_rings()
    return None


def _put_back(run: MockRun) -> None:
    """The marbles as the position before the turn taken back: the wrong ones lifted off,
    the missing ones put, each of its colour."""
    target, physics = run.referee.position, run.physics  # the position before the turn
    for square in range(16):
        there = physics.colour_at(square)
        if there is not None and there is not target.colour_at(square):
            run.run(Command("lift", square=square))
            physics.empty_hand()
    for square in range(16):
        wanted = target.colour_at(square)
        if wanted is not None and physics.colour_at(square) is None:
            run.run(Command("put", square=square, colour=wanted))


def hint(run: MockRun) -> str:
    """The best turn for the side to move, from the solved game, in a sentence."""
    from orbito_hw.solver.table import shipped_solution

    position = run.referee.position
    if position.result is not None:
        return _("the game is over: no turn to hint")
    shown = run.referee.board_turn
    if shown is not None:  # the board's move: its turn is on the LEDs already
        return _("the board plays {turn} on its move: type {turn}, or make it by hand").format(
            turn=shown.notation()
        )
    analysis = shipped_solution().analyse(position)
    value = {"win": _("a win"), "draw": _("a draw"), "loss": _("a loss")}[analysis.value.value]
    colour = _("black") if position.to_move is Colour.BLACK else _("white")
    return _("hint: {colour} plays {turn} ({value} with perfect play)").format(
        colour=colour, turn=analysis.move.notation(), value=value
    )
