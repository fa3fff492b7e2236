"""Puzzles from the solved game: a position where the side to move wins in exactly P plies.

A puzzle is a game record (the first colour and its turns) that leaves the side to move a
win with perfect play; ``plies`` is ``analyse``'s (the quickest win against the longest
defence, turns and extra presses counted) and ``solution`` every turn that keeps the win in
``plies`` (byte for byte the turns ``analyse`` would rate as good as its ``move``). A
puzzle is a pure function of its record, which its ID spells out (``puzzle_ids.py``), so
``find_puzzle`` needs no storage: it decodes, replays and values the record again. Its
difficulty is measured exactly (``puzzle_grades.py``).

The generator plays games between the board's levels 1 to 5 (``solver/opponents.py``), each
side's level and seed drawn from the seed, and takes a position of such a game whose side to
move wins in exactly P plies, has a wrong turn to make, and has not been given already;
among a game's positions it prefers one with a single solution, and takes one with s
solutions only with chance 1/s^2. Everything is drawn from ``random.Random`` seeded with a
string (SHA-512 of it, never ``hash()``) and nothing iterates over a set, so a seed gives
the same puzzles on every run and machine.

The shipped set (``data/puzzles.jsonl``, read on first use) is the generator's first
``SHIPPED_COUNT`` puzzles from ``SHIPPED_SEED``, one JSON line each as ``puzzles --json``
prints it: ``python -m orbito_hw.solver.puzzles_build`` writes it.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Final

from orbito_hw.errors import IllegalTurnError, NotationError, echo
from orbito_hw.lang import R_
from orbito_hw.rules.game import Colour, Position, ReplayError, replay
from orbito_hw.solver.layout import Value, decode
from orbito_hw.solver.opponents import KEEP, LEVELS, LevelOpponent
from orbito_hw.solver.puzzle_grades import Difficulty, measure
from orbito_hw.solver.puzzle_ids import PuzzleError, encode
from orbito_hw.solver.puzzle_ids import decode as decode_id
from orbito_hw.solver.table import Solution, shipped_solution

__all__ = [
    "PLIES",
    "Difficulty",
    "Puzzle",
    "PuzzleError",
    "find_puzzle",
    "generate",
    "puzzle_of",
    "shipped_puzzles",
]

PLIES: Final = range(1, 14)
"""The plies ``generate`` offers. Longer wins exist early in a game, but a level's game
rarely leaves one with a single solution, and no person reads 14 plies ahead."""
MENU: Final[tuple[int, ...]] = (1, 2, 3, 3, 4, 5, 5, 5, 6, 7, 7, 7, 8, 9, 9, 10, 11, 12, 13)
"""The plies of a puzzle when none are asked for, drawn from this list: short wins and odd
ones (won on the solver's own turn) more often."""
PLAYERS: Final[tuple[str, ...]] = tuple(sorted(KEEP))  # the levels whose games give the puzzles
MAX_GAMES: Final = 5000  # games tried for one puzzle before giving up (a few hundred at worst)
SHIPPED_SEED: Final = 28
SHIPPED_COUNT: Final = 300
DATA_FILE: Final = "puzzles.jsonl"


@dataclass(frozen=True)
class Puzzle:
    """SPEC.md's puzzle line, and its difficulty (``puzzle_grades.Difficulty``)."""

    id: str
    first: Colour
    moves: str
    to_move: Colour
    plies: int
    solution: tuple[str, ...]
    difficulty: Difficulty

    def as_json(self) -> dict[str, object]:
        """SPEC.md's keys, then the difficulty's (``grade``, ``difficulty`` in bits,
        ``legal``, ``tempting``, ``misses``)."""
        return {
            "id": self.id,
            "first": self.first.value,
            "moves": self.moves,
            "to_move": self.to_move.value,
            "plies": self.plies,
            "solution": list(self.solution),
            **self.difficulty.as_json(),
        }

    @classmethod
    def from_json(cls, line: dict[str, object]) -> Puzzle:
        """The puzzle of a line ``as_json`` wrote (the shipped file's); KeyError, TypeError
        or ValueError for a line that is not one."""
        misses = line["misses"]
        if not isinstance(misses, dict):
            raise TypeError("misses is not an object")
        difficulty = Difficulty(
            str(line["grade"]),
            float(str(line["difficulty"])),
            int(str(line["legal"])),
            int(str(line["tempting"])),
            tuple((str(name), float(chance)) for name, chance in misses.items()),
        )
        solution = line["solution"]
        if not isinstance(solution, list):
            raise TypeError("solution is not a list")
        return cls(
            str(line["id"]),
            Colour(line["first"]),
            str(line["moves"]),
            Colour(line["to_move"]),
            int(str(line["plies"])),
            tuple(str(token) for token in solution),
            difficulty,
        )

    def goal(self) -> str:
        """ "White to play and win in 3 turns": what the person is asked, in words (turns
        counted as plies: both sides' turns and extra presses)."""
        return _GOALS[self.to_move, self.plies == 1].format(n=self.plies)

    def position(self) -> Position:
        return replay(self.first, self.moves)


_GOALS: Final = {
    (Colour.BLACK, True): R_("Black to play and win in 1 turn"),
    (Colour.BLACK, False): R_("Black to play and win in {n} turns"),
    (Colour.WHITE, True): R_("White to play and win in 1 turn"),
    (Colour.WHITE, False): R_("White to play and win in {n} turns"),
}
"""A puzzle's goal, a reason carried as English data (the page's JSON, the journal's origin
is only the id): said in the reader's words where it is read (lang.reworded, inWords); the
colour changes the French's words, so each is its own sentence."""


def puzzle_of(
    first: Colour, moves: Sequence[str] | str, solution: Solution | None = None
) -> Puzzle:
    """The puzzle of a game record, valued from the table (the shipped one by default);
    PuzzleError if a turn is illegal, the game is over, or its side to move has no win."""
    table = solution if solution is not None else shipped_solution()
    tokens = moves.split() if isinstance(moves, str) else list(moves)
    try:
        position = replay(first, tokens)
    except (ReplayError, NotationError, IllegalTurnError) as exc:
        raise PuzzleError(str(exc)) from None
    if position.result is not None:
        raise PuzzleError(f"the game is over ({position.result}): no puzzle")
    turns = table.turn_bytes(position)
    top = max(byte for _, byte in turns)
    score = decode(top)
    if score.value is not Value.WIN:
        raise PuzzleError(
            f"{position.to_move} cannot force a win in {position.board()} (a {score.value}):"
            " no puzzle"
        )
    return Puzzle(
        encode(first, tokens),
        first,
        " ".join(tokens),
        position.to_move,
        score.plies,
        tuple(sorted(turn.notation() for turn, byte in turns if byte == top)),
        measure(table, position),
    )


def find_puzzle(puzzle_id: str, solution: Solution | None = None) -> Puzzle:
    """The puzzle an ID names (any the generator gave, from any seed), replayed and valued
    again; PuzzleError naming the ID if it is malformed or names no puzzle."""
    first, tokens = decode_id(puzzle_id)
    try:
        return puzzle_of(first, tokens, solution)
    except PuzzleError as exc:
        raise PuzzleError(f"puzzle ID {echo(puzzle_id)} names no puzzle: {exc}") from None


def check_plies(plies: int | None) -> None:
    """PuzzleError unless ``plies`` is None (any) or one the generator offers."""
    if plies is not None and plies not in PLIES:
        raise PuzzleError(
            f"no puzzle in exactly {plies} plies: puzzles are won in"
            f" {PLIES.start} to {PLIES.stop - 1} plies"
        )


def generate(
    count: int, plies: int | None, seed: int, solution: Solution | None = None
) -> Iterator[Puzzle]:
    """``count`` puzzles won in exactly ``plies`` (any of MENU when None), from ``seed``:
    the same puzzles for the same arguments, each position at most once. PuzzleError for
    a count below 0 or plies not in PLIES (at once, before any puzzle)."""
    check_plies(plies)
    if count < 0:
        raise PuzzleError(f"a count of {count} puzzles: give 0 or more")
    return _generate(count, plies, seed, solution)


def _generate(
    count: int, plies: int | None, seed: int, solution: Solution | None
) -> Iterator[Puzzle]:
    table = solution if solution is not None else shipped_solution()
    rng = random.Random(f"orbito-hw puzzles {seed}")  # a str seed: -1 and 1 differ
    given: set[Position] = set()  # only asked "in?": its order never matters
    for _ in range(count):
        target = plies if plies is not None else rng.choice(MENU)
        for _ in range(MAX_GAMES):
            found = _from_game(table, target, rng.getrandbits(64), given)
            if found is not None:
                break
        else:  # not seen for any plies in PLIES; a bug or a changed table if it ever is
            raise PuzzleError(f"no puzzle in {target} plies found in {MAX_GAMES} games")
        first, tokens, position = found
        given.add(position)
        yield puzzle_of(first, tokens, table)


_LEVELS: Final = {level.name: level for level in LEVELS}


def _from_game(
    table: Solution, target: int, game_seed: int, given: set[Position]
) -> tuple[Colour, tuple[str, ...], Position] | None:
    """A position of one game between two levels that makes a puzzle in ``target`` plies:
    the first with a single solution, else the one with the fewest (s), taken with chance
    1/s^2; None if the game has none."""
    rng = random.Random(game_seed)
    first = rng.choice((Colour.BLACK, Colour.WHITE))
    players = {
        colour: LevelOpponent(table, _LEVELS[rng.choice(PLAYERS)], rng.getrandbits(64))
        for colour in (first, first.other)
    }
    position = Position.start(first)
    tokens: list[str] = []
    fallback: tuple[int, tuple[str, ...], Position] | None = None
    while position.result is None:
        score = table.score(position)
        if score.value is Value.WIN and score.plies == target and position not in given:
            turns = table.turn_bytes(position)
            top = max(byte for _, byte in turns)
            solutions = sum(1 for _, byte in turns if byte == top)
            if solutions < len(turns):  # a wrong turn to make: a puzzle, not a formality
                if solutions == 1:
                    return first, tuple(tokens), position
                if fallback is None or solutions < fallback[0]:
                    fallback = (solutions, tuple(tokens), position)
        turn = players[position.to_move].choose(position)
        tokens.append(turn.notation())
        position = position.play_unchecked(turn)
    if fallback is not None and rng.random() < 1 / fallback[0] ** 2:
        return first, fallback[1], fallback[2]
    return None


_shipped: dict[str, tuple[Puzzle, ...]] = {}


def shipped_path() -> str:
    return str(resources.files("orbito_hw") / "data" / DATA_FILE)


def shipped_puzzles() -> tuple[Puzzle, ...]:
    """The shipped set, read on first use and kept (no table needed to list it)."""
    if "set" not in _shipped:
        text = (resources.files("orbito_hw") / "data" / DATA_FILE).read_text(encoding="utf-8")
        _shipped["set"] = tuple(
            Puzzle.from_json(json.loads(line)) for line in text.splitlines() if line.strip()
        )
    return _shipped["set"]
