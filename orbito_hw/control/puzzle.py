"""Playing a puzzle: a set-up from the puzzle's record, then its goal watched to the end.

A puzzle game is a set-up (``setup.py``) whose origin is ``puzzle:ID``: the origin is
journaled and archived with the game, so nothing else of a puzzle needs keeping here; after
a power cut the watch reads the origin again and goes on. Once the position stands
(``SetUps.on_done``) the board plays the other side, perfectly and predictably: ``analyse``'s
``move`` (the longest loss, the first such turn in notation order), so that a person (or a
script) who knows the solution knows the board's replies too.

The person's *try* is on from the set-up. It ends, with one ``puzzle`` event:
- solved: the game ends with the person's win within the puzzle's plies;
- failed: a turn of the person leaves no win within the plies left (the first wrong turn:
  the puzzle says so at once, as a trainer would, and the game goes on, the board playing
  it out perfectly), or the game ends without the person's win in time.

``plies`` in the event counts the turns (both sides', extra presses too) played from the
set-up position to that end, the failing turn included. A take-back that brings the game
back to a position where the win in the plies left still stands starts a new try (after a
failure, or after a solve to play it again); the take-back never goes past the set-up
position (``base``). The archive counts the tries: one ``puzzle`` event each.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Final

from orbito_hw.control.events import (
    Event,
    GameOver,
    PuzzleDone,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.journal import Saved
from orbito_hw.control.players import BoardPlayer
from orbito_hw.lang import _, reworded
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.layout import Value
from orbito_hw.solver.puzzles import Puzzle, PuzzleError, find_puzzle
from orbito_hw.solver.table import shipped_solution

if TYPE_CHECKING:
    from orbito_hw.control.referee import Referee

log = logging.getLogger(__name__)

PREFIX: Final = "puzzle:"
DEFENDER: Final = "board:perfect"  # the archive's and the page's name for the board's side


def origin_of(puzzle: Puzzle | str) -> str:
    """The origin a puzzle's set-up carries (journaled and archived): ``puzzle:ID``."""
    return PREFIX + (puzzle if isinstance(puzzle, str) else puzzle.id)


def puzzle_id(origin: str | None) -> str | None:
    """The puzzle ID an origin names; None if it names none."""
    if origin is None or not origin.startswith(PREFIX):
        return None
    return origin[len(PREFIX) :] or None


def defend(position: Position) -> Turn:
    """The board's turn in a puzzle: ``analyse``'s ``move`` (the longest loss, the first
    in notation order among equals), the same every time."""
    return shipped_solution().analyse(position).move


def defender(colour: Colour) -> BoardPlayer:
    """The board playing ``colour``, the puzzle's losing side."""
    return BoardPlayer(colour, defend, DEFENDER)


_found: dict[str, Puzzle | None] = {}


def _puzzle(puzzle_id: str) -> Puzzle | None:
    if puzzle_id not in _found:
        try:
            _found[puzzle_id] = find_puzzle(puzzle_id)
        except PuzzleError as exc:  # an origin from a damaged journal: no puzzle to watch
            log.warning(
                "%s", _("not watched as a puzzle: {reason}").format(reason=reworded(str(exc)))
            )
            _found[puzzle_id] = None
    return _found[puzzle_id]


def goal_of(origin: str | None) -> str:
    """The goal of the puzzle an origin names ("White to play and win in 3 turns"), or ""."""
    found = puzzle_id(origin)
    puzzle = _puzzle(found) if found is not None else None
    return puzzle.goal() if puzzle is not None else ""


def standing(puzzle: Puzzle, saved: Saved, position: Position) -> str:
    """Where the try stands: "on" (the win within the plies left still stands), "solved"
    (the person has won in time) or "failed"."""
    return _standing(puzzle, saved.own_turns, position)


def _standing(puzzle: Puzzle, played: int, position: Position) -> str:
    left = puzzle.plies - played
    result = position.result
    if result is not None:
        return "solved" if result.value == puzzle.to_move.value and left >= 0 else "failed"
    if left <= 0:
        return "failed"
    score = shipped_solution().score(position)
    wanted = Value.WIN if position.to_move is puzzle.to_move else Value.LOSS
    return "on" if score.value is wanted and score.plies <= left else "failed"


def ended_try(saved: Saved) -> PuzzleDone | None:
    """The end of the try the journal's game holds, as its ``puzzle`` event told it (or
    would have: a power cut may fall between the turn's journal entry and the event's
    record); None if the game is no puzzle's, is being set up, or its try is still on.
    The turns are replayed from the set-up position: the try ended with the first turn
    after which it stood no longer."""
    found = puzzle_id(saved.origin)
    puzzle = _puzzle(found) if found is not None else None
    if puzzle is None or saved.setting_up:
        return None
    position = replay(saved.first, saved.turns[: saved.base])
    for played, token in enumerate(saved.turns[saved.base :], 1):
        position = position.play(Turn.from_notation(token))
        now = _standing(puzzle, played, position)
        if now != "on":
            return PuzzleDone(saved.game, puzzle.id, now == "solved", played)
    return None


class PuzzleWatch:
    """Watches the referee's game while it is a puzzle's; ``attach`` after each start."""

    def __init__(self, referee: Referee) -> None:
        self.referee = referee
        self.live = False  # a try is on: its end is still to tell

    @classmethod
    def attach(cls, referee: Referee) -> PuzzleWatch:
        """A watch on ``referee`` (just started from its journal): a puzzle game in
        progress goes on, the board defending as before."""
        watch = cls(referee)
        referee.subscribe(watch)
        referee.setups.on_done = watch.started
        puzzle = watch.puzzle()
        saved = referee.saved
        if puzzle is not None and not saved.setting_up:
            watch.live = standing(puzzle, saved, referee.position) == "on"
            opponent = referee.opponent
            if opponent is not None and opponent.player == DEFENDER:
                referee.opponent = defender(opponent.colour)  # as journaled, predictable again
        return watch

    def puzzle(self) -> Puzzle | None:
        """The puzzle of the game on the board; None if it is no puzzle's."""
        found = puzzle_id(self.referee.saved.origin)
        return _puzzle(found) if found is not None else None

    def started(self, game: int) -> None:
        """The set-up is done (``SetUps.on_done``): the first try is on, the board defends."""
        puzzle = self.puzzle()
        if puzzle is None:
            return
        referee = self.referee
        self.live = standing(puzzle, referee.saved, referee.position) == "on"
        referee.set_opponent(defender(puzzle.to_move.other))
        text = _("game {game}: puzzle {puzzle}: {goal}")
        log.info("%s", text.format(game=game, puzzle=puzzle.id, goal=reworded(puzzle.goal())))

    def __call__(self, event: Event) -> None:
        if isinstance(event, PuzzleDone):
            return  # its own, told to every listener
        referee = self.referee
        saved = referee.saved
        if getattr(event, "game", None) != saved.game:
            return
        if not isinstance(event, TurnPlayed | GameOver | TakenBack):
            return
        puzzle = self.puzzle()
        if puzzle is None or saved.setting_up:
            return
        now = standing(puzzle, saved, referee.position)
        if isinstance(event, TakenBack):
            if not self.live and now == "on":
                self.live = True  # a new try
                text = _("game {game}: puzzle {puzzle} tried again")
                log.info("%s", text.format(game=saved.game, puzzle=puzzle.id))
            return
        if not self.live or now == "on":
            return
        if isinstance(event, TurnPlayed) and referee.position.result is not None:
            return  # the result comes next: the end is told with it
        self.live = False
        played = len(saved.turns) - saved.base
        referee.tell(PuzzleDone(saved.game, puzzle.id, now == "solved", played))
