"""Opponents the board can play against, behind one small interface, and its playing levels.

Each opponent has its own seeded random source, so a game against it can be replayed.

The board's levels (``LEVELS``; ``parse_level`` reads a level's name). A turn *keeps the value*
when the position it leaves is worth as much to its player, under perfect play, as the position
before it (a win stays a win, a draw a draw); a *mistake* is a turn that does not (a win thrown
to a draw or a loss, a draw to a loss). A position *allows a mistake* when at least one of its
legal turns is one; a lost position, or one where every turn wins, allows none.

- ``perfect``: the perfect turn, as ``analyse``'s ``move`` values it: the quickest win, the
  longest loss, a draw kept going as long as possible (ties among those picked at random). It
  never makes a mistake.
- ``1`` to ``5``: level N plays the perfect turn with probability ``KEEP[N]`` (1: 0.5, 2: 0.7,
  3: 0.85, 4: 0.93, 5: 0.97), decided afresh on every turn; otherwise it makes a mistake: a
  turn drawn uniformly from those that throw the value away, or, in a position that allows
  none, from every legal turn. So wherever a mistake is possible, level N keeps the value with
  probability exactly ``KEEP[N]``.
- ``random``: any legal turn, uniformly. It needs no solution table (and so no memory for one).
  Where a mistake is possible it keeps the value about one time in four (0.23 measured by
  ``benchmarks/levels.py``).

Two older opponents stay for the demo: ``strong`` (any value-keeping turn, uniformly) and
``casual`` (a strong turn with probability ``skill``, default 0.5, else any legal turn).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final, Protocol

from orbito_hw.errors import ConfigError, OrbitoError, echo
from orbito_hw.lang import R_
from orbito_hw.rules.game import Position
from orbito_hw.rules.turn import Turn

if TYPE_CHECKING:
    from orbito_hw.solver.table import Solution

# How often level N keeps the value where it could throw it away: the one source of the
# levels' strengths (the docstring above and the README's table say the same).
KEEP: Final[dict[str, float]] = {"1": 0.5, "2": 0.7, "3": 0.85, "4": 0.93, "5": 0.97}


@dataclass(frozen=True, slots=True)
class Level:
    """A playing level of the board: its name and how often it keeps the value where a
    mistake is possible (``None`` for ``random``, which looks at no table)."""

    name: str
    keep: float | None

    @property
    def meaning(self) -> str:
        """What the level does, in one line (for the README and for help texts)."""
        if self.keep is None:
            return "any legal turn, uniformly at random"
        if self.keep == 1.0:
            return "the perfect turn: the quickest win, the longest loss, the longest draw"
        return (
            f"the perfect turn with probability {self.keep:g}, else a random mistake"
            " (a turn that throws the value away, if there is one)"
        )


LEVELS: Final[tuple[Level, ...]] = (
    Level("perfect", 1.0),
    *(Level(name, keep) for name, keep in sorted(KEEP.items(), key=lambda item: -item[1])),
    Level("random", None),
)
_BY_NAME: Final[dict[str, Level]] = {level.name: level for level in LEVELS}
OPPONENTS: Final = ("perfect", "strong", "casual", "random", *KEEP)


UNKNOWN_LEVEL = R_("unknown level {word}: choose one of {names}")


def parse_level(text: str) -> Level:
    """The level named ``text`` (case and surrounding blanks ignored); ConfigError naming
    the text and every valid level otherwise."""
    level = _BY_NAME.get(text.strip().lower())
    if level is None:
        names = ", ".join(known.name for known in LEVELS)
        raise ConfigError(UNKNOWN_LEVEL.format(word=echo(text), names=names))
    return level


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


def _worths(solution: Solution, position: Position) -> list[tuple[Turn, int]]:
    """Every legal turn with its table byte, sorted by notation so that a seed picks the
    same turn whatever order the engine yields them in."""
    _legal(position)
    return sorted(solution.turn_bytes(position), key=lambda tb: tb[0].notation())


def _kind(byte: int) -> int:
    """A table byte's value alone (win, draw or loss), without the plies."""
    return byte >> 6


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
        turns = _worths(self.solution, position)
        top = max(byte for _, byte in turns)
        if self.keep_value_only:
            return self.rng.choice([t for t, byte in turns if _kind(byte) == _kind(top)])
        # The highest byte is the perfect turn: the byte orders quick wins, then draws by
        # length, then losses by length, the longest first (solver/layout.py).
        return self.rng.choice([t for t, byte in turns if byte == top])


class LevelOpponent:
    """Level ``name`` of the docstring: the perfect turn with probability ``keep``, else a
    random mistake (a random legal turn where no mistake is possible)."""

    def __init__(self, solution: Solution, level: Level, seed: int | None = None) -> None:
        if level.keep is None:
            raise ConfigError(f"level {level.name} plays without a table: use RandomOpponent")
        self.name = level.name
        self.keep = level.keep
        self.solution = solution
        self.rng = random.Random(seed)

    def choose(self, position: Position) -> Turn:
        turns = _worths(self.solution, position)
        top = max(byte for _, byte in turns)
        # One draw per turn whatever the position, so a game replays from its seed alone.
        if self.rng.random() < self.keep:
            return self.rng.choice([t for t, byte in turns if byte == top])
        mistakes = [t for t, byte in turns if _kind(byte) != _kind(top)]
        return self.rng.choice(mistakes or [t for t, _ in turns])


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
    """The opponent called ``name`` (a level of ``LEVELS``, or ``strong`` or ``casual``);
    ``solution`` defaults to the shipped table (loaded only for the opponents that need it).
    Options: ``skill`` for ``casual``."""
    allowed = {"casual": {"skill"}}.get(name, set())
    unknown = sorted(set(options) - allowed)
    if name not in OPPONENTS:
        raise ConfigError(f"unknown opponent {echo(name)}: choose one of {', '.join(OPPONENTS)}")
    if unknown:
        raise ConfigError(f"the {name} opponent has no option {echo(unknown[0])}")
    if name == "random":
        return RandomOpponent(seed)
    table = solution or _shipped()
    builders: dict[str, Callable[[], Opponent]] = {
        "perfect": lambda: PerfectOpponent(table, seed),
        "strong": lambda: PerfectOpponent(table, seed, keep_value_only=True),
        "casual": lambda: CasualOpponent(table, seed, float(options.get("skill", 0.5))),
    }
    builder = builders.get(name, lambda: LevelOpponent(table, _BY_NAME[name], seed))
    return builder()


def level_opponent(
    level: Level, seed: int | None = None, solution: Solution | None = None
) -> Opponent:
    """The board playing at ``level`` (what ``parse_level`` returned), seeded."""
    return make_opponent(level.name, seed=seed, solution=solution)


def _shipped() -> Solution:
    from orbito_hw.solver.table import shipped_solution

    return shipped_solution()
