"""How hard a puzzle is, measured exactly from the solved table.

A puzzle is solved by playing, at each of the solver's turns, a turn that keeps the win in
the plies left, while the board defends perfectly (the longest loss, ties at random). How
likely a player is to do that is a sum over the tree of those lines, which the table gives
exactly: no sampling, so the grade of a position is the same on every machine.

The players measured:

- the *careful* player (``LOOK`` = 2 plies): sees every result its own turn and the reply
  can bring (takes a line at once, never hands the opponent one), and otherwise cannot tell
  turns apart: it picks uniformly among the turns whose outcome lies beyond its look. The
  wrong turns among those are the *tempting* ones. ``bits`` is -log2 of its chance to solve
  the whole puzzle: 0 for a win within its look, about log2(tempting + 1) for a unique first
  turn, more for each further turn where it must find the way again.
- the board's levels (``solver/opponents.py``): ``random`` (any legal turn) and 1 to 5 (the
  perfect turn with probability KEEP[N], else a mistake); ``misses`` is each one's chance to
  fail, as many seeded games between it and the perfect defence would measure.

The grade is read off ``bits``: ``GRADES`` gives each grade's lowest bits.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Final

from orbito_hw.rules.game import Position
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.layout import Value, decode
from orbito_hw.solver.opponents import KEEP
from orbito_hw.solver.puzzle_ids import PuzzleError
from orbito_hw.solver.table import Solution

LOOK: Final = 2  # the careful player's horizon: its own turn and the reply
GRADES: Final[tuple[tuple[str, float], ...]] = (
    ("easy", 0.0),  # within the careful player's look, or found one time in 2 or more
    ("medium", 1.0),
    ("hard", 3.0),  # the careful player finds it less than one time in 8
    ("expert", 6.0),  # less than one time in 64
)
LEVEL_NAMES: Final[tuple[str, ...]] = ("random", *sorted(KEEP))  # the weakest first
_DIGITS: Final = 4  # figures rounded so a line is the same on every machine


@dataclass(frozen=True, slots=True)
class Difficulty:
    """A puzzle's grade and the measures it is read from.

    ``bits``: -log2 of the careful player's chance to solve it (0: it cannot miss);
    ``legal``: the legal turns in the puzzle's position; ``tempting``: the wrong ones the
    careful player cannot tell from a solution there; ``misses``: each level's chance to
    fail, by level name (``random``, ``1`` .. ``5``)."""

    grade: str
    bits: float
    legal: int
    tempting: int
    misses: tuple[tuple[str, float], ...]

    def as_json(self) -> dict[str, object]:
        return {
            "grade": self.grade,
            "difficulty": self.bits,
            "legal": self.legal,
            "tempting": self.tempting,
            "misses": dict(self.misses),
        }


def grade_of(bits: float) -> str:
    """The grade of a puzzle the careful player solves with chance 2^-bits."""
    return [name for name, lowest in GRADES if bits >= lowest][-1]


# A policy: given a position's (turn, byte) list, its top byte and the plies to win, the
# chance it picks each turn that keeps the win in those plies (the rest fail).
Policy = Callable[[list[tuple[Turn, int]], int, int], float]


def _careful(turns: list[tuple[Turn, int]], top: int, plies: int) -> float:
    """Each solution turn's chance under the careful player."""
    solutions = sum(1 for _, byte in turns if byte == top)
    if plies <= LOOK:  # it sees the quickest win and takes one of them
        return 1 / solutions
    unseen = sum(1 for _, byte in turns if decode(byte).plies > LOOK)
    return 1 / unseen


def _level(keep: float) -> Policy:
    def choose(turns: list[tuple[Turn, int]], top: int, plies: int) -> float:
        solutions = sum(1 for _, byte in turns if byte == top)
        # A mistake needs a turn that throws the win away; where none does, level N's
        # "mistake" is any legal turn, which may still be a solution (opponents.py).
        no_mistake = all(byte >> 6 == top >> 6 for _, byte in turns)
        return keep / solutions + ((1 - keep) / len(turns) if no_mistake else 0.0)

    return choose


def _random(turns: list[tuple[Turn, int]], top: int, plies: int) -> float:
    return 1 / len(turns)


POLICIES: Final[dict[str, Policy]] = {
    "random": _random,
    **{name: _level(KEEP[name]) for name in sorted(KEEP)},
}


class _Lines:
    """The tree of the puzzle's winning lines (the solver's solution turns, the defender's
    best replies), each position's turns read from the table once."""

    def __init__(self, solution: Solution) -> None:
        self.solution = solution
        self._turns: dict[Position, list[tuple[Turn, int]]] = {}

    def turns(self, position: Position) -> list[tuple[Turn, int]]:
        if position not in self._turns:
            self._turns[position] = self.solution.turn_bytes(position)
        return self._turns[position]

    def chance(self, position: Position, policy: Policy, memo: dict[Position, float]) -> float:
        """The chance that ``policy``, to move in ``position`` (a win), wins in its plies."""
        if position in memo:
            return memo[position]
        turns = self.turns(position)
        top = max(byte for _, byte in turns)
        plies = decode(top).plies
        each = policy(turns, top, plies)
        total = 0.0
        for turn, byte in turns:
            if byte == top:
                total += each * self._after(position.play_unchecked(turn), policy, memo)
        memo[position] = total
        return total

    def _after(self, position: Position, policy: Policy, memo: dict[Position, float]) -> float:
        """The solver's chance once the defender is to move, on a line that keeps the win:
        the defender's best replies (the longest loss), each as likely as the others."""
        if position.result is not None:  # the solution turn won at once
            return 1.0
        replies = self.turns(position)
        best = max(byte for _, byte in replies)
        chosen = [turn for turn, byte in replies if byte == best]
        total = 0.0
        for turn in chosen:
            after = position.play_unchecked(turn)
            total += 1.0 if after.result is not None else self.chance(after, policy, memo)
        return total / len(chosen)


def measure(solution: Solution, position: Position) -> Difficulty:
    """The difficulty of ``position``, a win for the side to move (PuzzleError if not)."""
    lines = _Lines(solution)
    turns = lines.turns(position)
    top = max(byte for _, byte in turns)
    score = decode(top)
    if score.value is not Value.WIN:
        raise PuzzleError(f"{position.board()} is no win for {position.to_move}: not a puzzle")
    careful = lines.chance(position, _careful, {})
    bits = max(0.0, round(-math.log2(careful), 2))  # never -0.0 from a sum a hair over 1
    unseen = [byte for _, byte in turns if decode(byte).plies > LOOK]
    tempting = sum(1 for byte in unseen if byte != top) if score.plies > LOOK else 0
    misses = tuple(
        (name, round(1 - lines.chance(position, POLICIES[name], {}), _DIGITS))
        for name in LEVEL_NAMES
    )
    return Difficulty(grade_of(bits), bits, len(turns), tempting, misses)
