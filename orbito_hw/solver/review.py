"""The review of a game: each turn against the solved game, exactly.

For every turn, how the game stood for its player before it and after it with perfect play
(win, draw or loss, and in how many plies), the turns that would have kept the value (the
``best`` of ``analyse``), and whether it threw the value away. A pure function of the first
colour and the turns; the table is the shipped one unless another is given.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from orbito_hw.rules.game import Colour, Position, Result
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.layout import Value
from orbito_hw.solver.table import Solution, shipped_solution

RANK = {Value.LOSS: 0, Value.DRAW: 1, Value.WIN: 2}
"""Values in order: a turn whose value after is lower than before is a mistake."""

_FLIPPED = {Value.WIN: Value.LOSS, Value.DRAW: Value.DRAW, Value.LOSS: Value.WIN}
"""What a position's value for the side to move is worth to the player who just moved."""


@dataclass(frozen=True, slots=True)
class TurnReview:
    """One turn: ``before`` with ``before_plies`` plies to the end before it (its own
    included), ``after`` with ``after_plies`` left after it (0 when it ended the game)."""

    number: int
    colour: Colour
    turn: str
    before: Value
    before_plies: int
    after: Value
    after_plies: int
    best: tuple[str, ...]

    @property
    def mistake(self) -> bool:
        """A win thrown to a draw or a loss, a draw thrown to a loss."""
        return RANK[self.after] < RANK[self.before]

    def as_json(self) -> dict[str, object]:
        """SPEC.md's review turn, then the plies (keys a reader may ignore)."""
        return {
            "number": self.number,
            "colour": self.colour.value,
            "turn": self.turn,
            "before": self.before.value,
            "after": self.after.value,
            "best": list(self.best),
            "mistake": self.mistake,
            "before_plies": self.before_plies,
            "after_plies": self.after_plies,
        }


@dataclass(frozen=True, slots=True)
class Review:
    first: Colour
    turns: tuple[TurnReview, ...]
    result: Result | None

    def mistakes(self, colour: Colour) -> tuple[int, ...]:
        """The numbers of ``colour``'s mistakes."""
        return tuple(t.number for t in self.turns if t.mistake and t.colour is colour)

    @property
    def decided(self) -> int | None:
        """The turn where the game was decided: the last mistake, after which every turn
        kept the value (so the result is what perfect play gave from there). None when no
        turn was a mistake: the game went as perfect play from the start says."""
        return next((t.number for t in reversed(self.turns) if t.mistake), None)

    def summary(self) -> dict[str, object]:
        return {
            "mistakes": {c.value: list(self.mistakes(c)) for c in Colour},
            "decided": self.decided,
        }


def review(first: Colour, turns: Sequence[Turn | str], solution: Solution | None = None) -> Review:
    """The review of the game ``first`` began with ``turns`` (tokens or Turns, all legal:
    IllegalTurnError/NotationError otherwise). A game still going on is reviewed so far."""
    table = solution if solution is not None else shipped_solution()
    position = Position.start(first)
    out = []
    for number, played in enumerate(turns, 1):
        turn = played if isinstance(played, Turn) else Turn.from_notation(played)
        analysis = table.analyse(position)  # the value, its plies and best, as analyse says
        after = position.play(turn)
        value, plies = _worth_to_mover(table, after, position.to_move)
        out.append(
            TurnReview(
                number,
                position.to_move,
                turn.notation(),
                analysis.value,
                analysis.plies,
                value,
                plies,
                analysis.best,
            )
        )
        position = after
    return Review(first, tuple(out), position.result)


def _worth_to_mover(table: Solution, after: Position, mover: Colour) -> tuple[Value, int]:
    """How ``after`` stands for the player who just moved, and the plies left: the result
    if the game is over, else the opponent's perfect-play value turned round."""
    if after.result is not None:
        winner = after.result.winner
        value = Value.DRAW if winner is None else Value.WIN if winner is mover else Value.LOSS
        return value, 0
    score = table.score(after)
    return _FLIPPED[score.value], score.plies
