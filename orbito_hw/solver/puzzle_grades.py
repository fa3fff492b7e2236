"""How hard a puzzle is, measured exactly from the solved table.

A puzzle is solved by playing, at each of the solver's turns, a turn that keeps the win in
the plies left, while the board defends perfectly. The measures follow the *main line*:
both sides play ``analyse``'s ``move`` (the first perfect turn in notation order) from the
puzzle to the end. At each of the solver's positions on it, a player's chance to keep the
win is read from the table; the chance to solve is their product. No sampling, and a line of
at most 21 plies, so a grade costs a few table reads and is the same on every machine.

The players measured:

- the *careful* player (``LOOK`` = 2 plies): sees every result its own turn and the reply
  can bring (takes a line at once, never hands the opponent one), and otherwise cannot tell
  turns apart: it picks uniformly among the turns whose outcome lies beyond its look. The
  wrong turns among those are the *tempting* ones. ``bits`` is -log2 of its chance to solve
  the puzzle: 0 for a win within its look, log2((tempting + s) / s) for a win in 3 with s
  solutions, more for each further turn where it must find the way again.
- the board's levels (``solver/opponents.py``): ``random`` (any legal turn) and 1 to 5 (the
  perfect turn with probability KEEP[N], else a mistake); ``misses`` is each one's chance to
  miss the win somewhere on the main line against the perfect defence.

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
    ("easy", 0.0),  # the careful player finds it at least one time in 4
    ("medium", 2.0),
    ("hard", 6.0),  # less than one time in 64
    ("expert", 12.0),  # less than one time in 4096: long wins, found by reading them out
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
# chance it plays a turn that keeps the win in those plies (any other turn fails).
Policy = Callable[[list[tuple[Turn, int]], int, int], float]


def _careful(turns: list[tuple[Turn, int]], top: int, plies: int) -> float:
    if plies <= LOOK:  # it sees the quickest win and takes it
        return 1.0
    solutions = sum(1 for _, byte in turns if byte == top)
    return solutions / sum(1 for _, byte in turns if decode(byte).plies > LOOK)


def _level(keep: float) -> Policy:
    def choose(turns: list[tuple[Turn, int]], top: int, plies: int) -> float:
        solutions = sum(1 for _, byte in turns if byte == top)
        # A mistake needs a turn that throws the win away; where none does, level N's
        # "mistake" is any legal turn, which may still be a solution (opponents.py).
        no_mistake = all(byte >> 6 == top >> 6 for _, byte in turns)
        return keep + ((1 - keep) * solutions / len(turns) if no_mistake else 0.0)

    return choose


def _random(turns: list[tuple[Turn, int]], top: int, plies: int) -> float:
    return sum(1 for _, byte in turns if byte == top) / len(turns)


POLICIES: Final[dict[str, Policy]] = {
    "careful": _careful,
    "random": _random,
    **{name: _level(KEEP[name]) for name in sorted(KEEP)},
}


def main_line(solution: Solution, position: Position) -> list[list[tuple[Turn, int]]]:
    """The turns of each position where the solver is to move along the main line: both
    sides play ``analyse``'s ``move`` (the first perfect turn in notation order: the
    solver's quickest win, the defender's longest loss) to the end of the game."""
    solver = position.to_move
    nodes = []
    while True:  # ends: a game is at most 21 plies
        turns = sorted(solution.turn_bytes(position), key=lambda tb: tb[0].notation())
        top = max(byte for _, byte in turns)
        if position.to_move is solver:
            nodes.append(turns)
        position = position.play_unchecked(next(t for t, byte in turns if byte == top))
        if position.result is not None:
            return nodes


def chance(nodes: list[list[tuple[Turn, int]]], policy: Policy) -> float:
    """The chance that ``policy`` keeps the win at every node of the main line."""
    total = 1.0
    for turns in nodes:
        top = max(byte for _, byte in turns)
        total *= policy(turns, top, decode(top).plies)
    return total


def measure(solution: Solution, position: Position) -> Difficulty:
    """The difficulty of ``position``, a win for the side to move (PuzzleError if not)."""
    turns = solution.turn_bytes(position)
    top = max(byte for _, byte in turns)
    score = decode(top)
    if score.value is not Value.WIN:
        raise PuzzleError(f"{position.board()} is no win for {position.to_move}: not a puzzle")
    nodes = main_line(solution, position)
    bits = max(0.0, round(-math.log2(chance(nodes, _careful)), 2))  # never -0.0
    unseen = [byte for _, byte in turns if decode(byte).plies > LOOK]
    tempting = sum(1 for byte in unseen if byte != top) if score.plies > LOOK else 0
    misses = tuple(
        (name, round(1 - chance(nodes, POLICIES[name]), _DIGITS)) for name in LEVEL_NAMES
    )
    return Difficulty(grade_of(bits), bits, len(turns), tempting, misses)
