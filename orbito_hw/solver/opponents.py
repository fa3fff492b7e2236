"""Opponents the board can play against, behind one small interface.

Each opponent has its own seeded random source, so a game against it can be replayed.

- ``perfect``: the quickest win, the longest loss (ties among those picked at random);
- ``strong``: any turn that keeps the position's value, at random;
- ``casual``: a strong turn with probability ``skill`` (default 0.5), else any legal turn;
- ``random``: any legal turn. It needs no solution table (and so no memory for one).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Protocol

from orbito_hw.errors import ConfigError, OrbitoError
from orbito_hw.rules.game import Position
from orbito_hw.rules.turn import Turn

if TYPE_CHECKING:
    from orbito_hw.solver.table import Solution

OPPONENTS = ("perfect", "strong", "casual", "random")


class Opponent(Protocol):
    name: str

    def choose(self, position: Position) -> Turn:
        """The turn this opponent plays in ``position`` (a game still going on)."""
        ...


def _legal(position: Position) -> list[Turn]:
    turns = list(position.legal_turns())
    if not turns:
        raise OrbitoError(f"no turn to choose in {position.board()}: the game is over")
    return turns


class RandomOpponent:
    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def choose(self, position: Position) -> Turn:
        return self.rng.choice(_legal(position))


class PerfectOpponent:
    """Plays from the table; ``keep_value_only`` makes it ``strong``."""

    def __init__(self, solution: Solution, seed: int | None = None, keep_value_only: bool = False):
        self.name = "strong" if keep_value_only else "perfect"
        self.solution = solution
        self.rng = random.Random(seed)
        self.keep_value_only = keep_value_only

    def choose(self, position: Position) -> Turn:
        _legal(position)
        # Sorted so that a seed picks the same turn whatever order the engine yields them in.
        turns = sorted(self.solution.turn_bytes(position), key=lambda tb: tb[0].notation())
        top = max(byte for _, byte in turns)
        if self.keep_value_only:
            return self.rng.choice([t for t, byte in turns if byte >> 6 == top >> 6])
        return self.rng.choice([t for t, byte in turns if byte == top])


class CasualOpponent:
    name = "casual"

    def __init__(self, solution: Solution, seed: int | None = None, skill: float = 0.5):
        if not 0.0 <= skill <= 1.0:
            raise ConfigError(f"casual opponent skill {skill} is not between 0 and 1")
        self.skill = skill
        self.rng = random.Random(seed)
        # The two helpers draw from their own seeded sources, split off this one's.
        self.strong = PerfectOpponent(solution, self.rng.getrandbits(64), keep_value_only=True)
        self.wild = RandomOpponent(self.rng.getrandbits(64))

    def choose(self, position: Position) -> Turn:
        if self.rng.random() < self.skill:
            return self.strong.choose(position)
        return self.wild.choose(position)


def make_opponent(
    name: str,
    seed: int | None = None,
    solution: Solution | None = None,
    **options: float,
) -> Opponent:
    """The opponent called ``name``; ``solution`` defaults to the shipped table (loaded only
    for the opponents that need it). Options: ``skill`` for ``casual``."""
    allowed = {"casual": {"skill"}}.get(name, set())
    unknown = sorted(set(options) - allowed)
    if name not in OPPONENTS:
        raise ConfigError(f"unknown opponent {name!r}: choose one of {', '.join(OPPONENTS)}")
    if unknown:
        raise ConfigError(f"the {name} opponent has no option {unknown[0]!r}")
    if name == "random":
        return RandomOpponent(seed)
    table = solution or _shipped()
    builders: dict[str, Callable[[], Opponent]] = {
        "perfect": lambda: PerfectOpponent(table, seed),
        "strong": lambda: PerfectOpponent(table, seed, keep_value_only=True),
        "casual": lambda: CasualOpponent(table, seed, float(options.get("skill", 0.5))),
    }
    return builders[name]()


def _shipped() -> Solution:
    from orbito_hw.solver.table import shipped_solution

    return shipped_solution()
