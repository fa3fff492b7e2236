"""Puzzle progress, read from the archive: each puzzle tried, solved or failed, how often,
when; and the next puzzle to play, chosen from it.

Every try that ended is a row of the archive (``puzzle_tries``, written by the recorder from
the ``puzzle`` event). Nothing else is kept: the progress and the next choice are worked out
from those rows each time, so they never disagree with the archive.

The next puzzle (``choose_next``), with the person's *level* (in bits of difficulty, as
``puzzles`` grades them): it starts at 0; a solve of a puzzle of difficulty d raises it to
max(level, d) + 1, a miss lowers it to max(0, min(level, d) - 1). Then, in this order:

1. a missed puzzle (its last try failed) once ``AGAIN_AFTER`` tries of other puzzles have
   ended since the miss: the one missed longest ago ("again");
2. the never-tried shipped puzzle whose difficulty is nearest the level (the easier of two
   as near, then the shipped order): harder after a solve, easier after a miss ("new");
3. when every shipped puzzle has been tried: a missed one, even if not due ("again");
4. when every one is solved: the one solved longest ago ("review").
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Final

from orbito_hw.archive.store import PuzzleTry
from orbito_hw.solver.puzzles import Puzzle, PuzzleError, find_puzzle, shipped_puzzles

AGAIN_AFTER: Final = 3
"""Tries of other puzzles between a miss and the puzzle offered again."""
STEP: Final = 1.0
"""Bits the level moves past a puzzle solved (up) or missed (down)."""


@dataclass(frozen=True)
class Progress:
    """One puzzle's tries: how many, solved and failed, the first and the last, and
    whether the last one solved it."""

    puzzle: str
    tries: int
    solved: int
    first: str
    last: str
    last_solved: bool
    games: tuple[int, ...]

    @property
    def failed(self) -> int:
        return self.tries - self.solved

    def as_json(self, puzzle: Puzzle | None = None) -> dict[str, object]:
        """``{"id", "status", "tries", "solved", "failed", "first", "last", "games"}`` and,
        for a puzzle that is one, its ``grade`` and ``plies``."""
        out: dict[str, object] = {
            "id": self.puzzle,
            "status": "solved" if self.last_solved else "failed",
            "tries": self.tries,
            "solved": self.solved,
            "failed": self.failed,
            "first": self.first,
            "last": self.last,
            "games": list(self.games),
        }
        if puzzle is not None:
            out |= {"grade": puzzle.difficulty.grade, "plies": puzzle.plies}
        return out


def progress(tries: Sequence[PuzzleTry]) -> list[Progress]:
    """Each puzzle tried, in the order of its first try."""
    rows: dict[str, list[PuzzleTry]] = {}
    for one in tries:
        rows.setdefault(one.puzzle, []).append(one)
    return [
        Progress(
            puzzle,
            len(its),
            sum(t.solved for t in its),
            its[0].at,
            its[-1].at,
            its[-1].solved,
            tuple(dict.fromkeys(t.game for t in its if t.game is not None)),
        )
        for puzzle, its in rows.items()
    ]


def known(puzzle_id: str) -> Puzzle | None:
    """The puzzle an ID in the archive names: from the shipped set, else decoded again;
    None for one that names none (a row written by hand)."""
    for puzzle in shipped_puzzles():
        if puzzle.id == puzzle_id:
            return puzzle
    try:
        return find_puzzle(puzzle_id)
    except PuzzleError:
        return None


def level(tries: Sequence[PuzzleTry], difficulty: Callable[[str], float | None]) -> float:
    """The person's level in bits, from every try in order (the module's docstring)."""
    now = 0.0
    for one in tries:
        d = difficulty(one.puzzle)
        if d is None:
            continue
        now = max(now, d) + STEP if one.solved else max(0.0, min(now, d) - STEP)
    return now


def choose_next(
    tries: Sequence[PuzzleTry], puzzles: Sequence[Puzzle] | None = None
) -> tuple[Puzzle, str]:
    """The next puzzle to play and why ("new", "again", "review"), from the tries so far."""
    puzzles = shipped_puzzles() if puzzles is None else puzzles
    by_id = {p.id: p for p in puzzles}

    def difficulty(puzzle_id: str) -> float | None:
        found = by_id.get(puzzle_id) or known(puzzle_id)
        return found.difficulty.bits if found is not None else None

    def puzzle_of(puzzle_id: str) -> Puzzle | None:
        return by_id.get(puzzle_id) or known(puzzle_id)

    # Where each puzzle's last try stands, and how many tries of others ended since.
    last: dict[str, tuple[int, bool]] = {}
    for index, one in enumerate(tries):
        last[one.puzzle] = (index, one.solved)
    missed = sorted((index, pid) for pid, (index, solved) in last.items() if not solved)
    for index, pid in missed:
        if len(tries) - 1 - index >= AGAIN_AFTER and (found := puzzle_of(pid)) is not None:
            return found, "again"
    fresh = [p for p in puzzles if p.id not in last]
    if fresh:
        now = level(tries, difficulty)
        return min(fresh, key=lambda p: (abs(p.difficulty.bits - now), p.difficulty.bits)), "new"
    for _, pid in missed:
        if (found := puzzle_of(pid)) is not None:
            return found, "again"
    for _, pid in sorted((index, pid) for pid, (index, _) in last.items()):
        if (found := puzzle_of(pid)) is not None:
            return found, "review"
    raise PuzzleError("no puzzle to offer: the set is empty")
