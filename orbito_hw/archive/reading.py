"""The archive's read side as the web page reads it: the list of games, and one game with
its review and the board after each turn. The ``games`` commands read the store directly
(store.py); the page gets an ``ArchiveReads`` from the app (its ``GameStore``)."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from orbito_hw.archive.store import GAME_ID_DIGITS, Archive, damage_told
from orbito_hw.errors import OrbitoError
from orbito_hw.lang import _, reworded
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.puzzles import Puzzle

log = logging.getLogger(__name__)


class ArchiveReads:
    """The game archive (store.py, SPEC.md's "Game archive") as the pages read it: the
    list of games, and one game's standing turns with its review (solver/review.py) and the
    board after each turn. Read afresh at each request, read-only; the page says "not
    available" when there is none (a board that has not finished a game, or no archive)."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    def _open(self) -> Archive | None:
        """The archive, or None (and why, logged at debug) when there is none to read."""
        try:
            return Archive.read(self.state_dir)
        except OrbitoError as exc:
            log.debug("the web page has no archive: %s", exc)
            return None

    def games(
        self, before: int | None = None, limit: int | None = None
    ) -> list[dict[str, object]] | None:
        """The games as ``games list --json`` has them, oldest first; with ``limit`` the newest
        ``limit`` before the game ``before`` (a page of the list: Archive.games)."""
        archive = self._open()
        if archive is None:
            return None
        try:
            with archive, damage_told(archive.path):
                return [game.as_json() for game in archive.games(before, limit)]
        except OrbitoError as exc:  # damaged: the page says "not available", the log why
            text = _("the web page cannot read the archive: {reason}")
            log.warning("%s", text.format(reason=reworded(str(exc))))
            return None

    def next_puzzle(self) -> Puzzle:
        """The puzzle to play next from the tries the archive holds (``puzzles next``; the
        first one when there is no archive, or it cannot be read)."""
        from orbito_hw.archive.progress import choose_next

        archive = self._open()
        tries = []
        if archive is not None:
            try:
                with archive, damage_told(archive.path):
                    tries = archive.puzzle_tries()
            except OrbitoError as exc:
                text = _("the web page cannot read the puzzles' progress: {reason}")
                log.warning("%s", text.format(reason=reworded(str(exc))))
        return choose_next(tries)[0]

    def game(self, game_id: str) -> dict[str, Any] | None:
        """A game (as ``games show --json``), its review and the boards; None if unknown."""
        if not (game_id.isascii() and game_id.isdigit() and len(game_id) <= GAME_ID_DIGITS):
            return None
        archive = self._open()
        if archive is None:
            return None
        try:
            with archive, damage_told(archive.path):
                row = archive.game(int(game_id))
                turns = [] if row is None else archive.turns(row.id)
        except OrbitoError as exc:  # damaged: the page says "no such game", the log why
            text = _("the web page cannot read the archive: {reason}")
            log.warning("%s", text.format(reason=reworded(str(exc))))
            return None
        if row is None:
            return None
        moves = [t.turn for t in turns]
        game = {
            **row.as_json(),
            "moves": " ".join(moves),
            "lines": row.lines,
            "turns": [t.as_json() for t in turns],
        }
        return {"game": game, "review": _review(row.first, moves), "boards": boards_of(game)}


def _review(first: str, moves: list[str]) -> dict[str, object] | None:
    from orbito_hw.solver.review import review  # the solution table, on the archive's page only

    try:
        result = review(Colour(first), moves)
    except (ValueError, OrbitoError) as exc:  # an archive edited by hand
        log.info("%s", _("no review of a game: {reason}").format(reason=reworded(str(exc))))
        return None
    return {"turns": [t.as_json() for t in result.turns], **result.summary()}


def boards_of(game: Mapping[str, Any]) -> list[str]:
    """The board before the first turn and after each of ``game``'s ``moves``."""
    position = Position.start(Colour.parse(str(game.get("first"))))
    boards = [position.board()]
    for token in str(game.get("moves", "")).split():
        try:
            position = position.play(Turn.from_notation(token))
        except (ValueError, OrbitoError):  # an archive edited by hand: the boards so far
            break
        boards.append(position.board())
    return boards
