"""The archive's recorder: the referee's listener that writes every game as it is played.

Each event is written as it comes, one transaction an event (WAL, ``synchronous=FULL``: a
committed event survives a power cut). The journal stays the source of truth for the game
in progress: at every start (``Recorder.boot``, after ``referee.start()``) the archive
catches up from it, adding the turns it missed and marking taken back the turns it has
beyond the journal. Whatever goes wrong with the archive is reported and never stops play.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from orbito_hw.archive.store import (
    KEPT,
    NAME,
    PERSON,
    SET_ASIDE_FACT,
    Archive,
    ArchiveDamageError,
    GameRow,
    colour_of,
    is_damage,
    move_aside,
    why,
)
from orbito_hw.control.events import (
    Event,
    Fault,
    FirstChosen,
    GameOver,
    NewGame,
    PuzzleDone,
    Rejected,
    SetupAsked,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.journal import Journal, Saved
from orbito_hw.lang import _
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import line_names, square_name

if TYPE_CHECKING:
    from orbito_hw.control.players import BoardPlayer
    from orbito_hw.control.referee import Referee

log = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now().astimezone()


def _log_fault(fault: Fault) -> None:
    log.error("%s", _("fault: {reason}").format(reason=fault.reason))


class Recorder:
    """The referee's archive listener, for the archive in ``directory`` (None: no archive).
    ``boot(referee)`` after each ``referee.start()`` catches up from the journal (the first
    opens the archive, once the journal has locked the directory); each event is then
    written as it comes. Whatever goes wrong with the archive is reported (``report``, a
    Fault) and never stops play.

    ``defer`` (the controller's ``loop.call_soon``): each event is written once the loop is
    next free, not inside the referee. A press's answer and its lights then wait on no
    archive commit (an fsync, ``synchronous=FULL``: under the pages' load the largest
    share of a press, more than the journal's own write); the events are written in the
    order they came, each stamped when it came, and any still waiting before the next boot's
    catch-up or the close. None (tests, scripts): written at once."""

    def __init__(
        self,
        directory: str | os.PathLike[str] | None,
        report: Callable[[Fault], None] = _log_fault,
        now: Callable[[], datetime] = _now,
        defer: Callable[[Callable[[], None]], object] | None = None,
    ) -> None:
        self.directory = None if directory is None else Path(directory)
        self._defer = defer
        self._waiting: list[tuple[Event, str]] = []  # events heard, to be written (defer)
        self._report = report
        self._now = now
        self._referee: Referee | None = None
        self._failing = ""  # the last write failure reported, so a dead disk is told once
        self._opened = False
        self.archive: Archive | None = None  # opened at the first boot, under the journal's lock

    # --- opening, and a damaged file ------------------------------------------------------
    def _open(self) -> Archive | None:
        import sqlite3

        assert self.directory is not None
        path = self.directory / NAME
        try:
            try:
                return Archive.open(self.directory)
            except ArchiveDamageError as exc:
                return self._set_aside(path, str(exc))
        except (sqlite3.Error, OSError) as exc:
            self._tell(f"cannot open the game archive {path}: {why(exc)}; games are not archived")
            return None

    def _set_aside(self, path: Path, reason: str) -> Archive | None:
        try:
            kept = move_aside(path)
        except OSError as exc:
            self._tell(
                f"the game archive {path} is not usable ({reason}) and cannot be moved aside "
                f"({why(exc)}): games are not archived until it is moved away by hand"
            )
            return None
        self._tell(
            f"the game archive {path} is not usable ({reason}); kept as {kept}; "
            "a fresh archive goes on from the journal"
        )
        return Archive.open(path.parent)

    def _tell(self, reason: str) -> None:
        self._report(Fault(None, reason))  # the archive's own fault: of no one game

    def close(self) -> None:
        self.write_waiting()
        if self.archive is not None:
            self.archive.close()
            self.archive = None

    # --- what the referee says ----------------------------------------------------------------
    def boot(self, referee: Referee) -> None:
        """After ``referee.start()``: catch up from its journal."""
        self.write_waiting()  # the events of the controller before: before the catch-up
        self._referee = referee
        if not self._opened and self.directory is not None:
            self._opened = True
            self.archive = self._open()
        self._safely(lambda archive: self._catch_up(archive, referee.snapshot().saved))
        self._safely(lambda archive: self._puzzle_caught_up(archive, referee.snapshot().saved))

    def __call__(self, event: Event) -> None:
        if not isinstance(event, KEPT):
            return  # hints, warnings, corrections, faults: the game's record has no place
        if self._defer is None:
            at = self._stamp()
            self._safely(lambda archive: self._record(archive, event, at))
            return
        self._waiting.append((event, self._stamp()))
        if len(self._waiting) == 1:
            self._defer(self.write_waiting)

    def write_waiting(self) -> None:
        """Write the events heard and not yet written (``defer``), in the order they came."""
        waiting, self._waiting = self._waiting, []
        for event, at in waiting:
            self._safely(lambda archive: self._record(archive, event, at))  # noqa: B023

    def _safely(self, write: Callable[[Archive], None]) -> None:
        """One write in one transaction. A database found damaged is set aside and a fresh
        one catches up from the journal; any other failure is reported once and skipped:
        the journal holds the game, and the next start catches up."""
        import sqlite3

        archive = self.archive
        if archive is None:
            return
        try:
            with archive.write():
                write(archive)
            self._failing = ""
        except sqlite3.DatabaseError as exc:
            if is_damage(exc):
                self._recover(archive, why(exc))
            else:
                self._failed(exc)
        except Exception as exc:  # a bug here must not stop the referee: reported instead
            log.exception("%s", _("the game archive failed"))
            self._failed(exc)

    def _failed(self, exc: Exception) -> None:
        what = f"cannot write to the game archive: {type(exc).__name__}: {why(exc)}"
        if what != self._failing:
            self._failing = what
            self._tell(
                f"{what}; the journal keeps the game, the archive catches up at the next start"
            )

    def _recover(self, archive: Archive, reason: str) -> None:
        import sqlite3

        archive.close()
        try:
            self.archive = fresh = self._set_aside(archive.path, reason)
        except (sqlite3.Error, OSError, ArchiveDamageError) as exc:
            self.archive = None
            self._tell(f"cannot open a fresh game archive: {why(exc)}; games are not archived")
            return
        if self._referee is not None and fresh is not None:
            try:  # not through _safely: a fresh file that fails too is not set aside again
                with fresh.write():
                    self._catch_up(fresh, self._referee.snapshot().saved)
            except Exception as exc:
                self._failed(exc)

    def _record(self, archive: Archive, event: Event, at: str) -> None:
        if not isinstance(event, KEPT):
            return  # told again here: what follows reads the kept events' fields
        if isinstance(event, NewGame):
            self._open_game(archive, event.game, event.first, at)
            return
        if isinstance(event, SetupAsked):
            self._set_up(archive, event, at)
            return
        game = archive.current()
        if game is None or game.journal_game != event.game:
            if self._referee is None:  # events without a board (tests): take them as they come
                first = Colour.BLACK
                if isinstance(event, TurnPlayed):
                    first = colour_of(event.colour, event.number)  # the mover of turn 1
                game_id = self._open_game(archive, event.game, first, at)
                game = archive.game(game_id)
            else:  # an event of a game the archive missed: the journal has it all
                self._catch_up(archive, self._referee.snapshot().saved)
                game = archive.current()
            assert game is not None
        if isinstance(event, TurnPlayed):
            self._turn(archive, game, event, at)
        elif isinstance(event, Rejected):
            squares = [square_name(sq) for sq in event.squares]
            archive.add_refusal(game.id, event.reason, squares, at)
        elif isinstance(event, GameOver):
            archive.finish(game.id, event.result.value, line_names(event.lines), at)
        elif isinstance(event, TakenBack):
            archive.take_back(game.id, event.number, at)
        elif isinstance(event, PuzzleDone):
            archive.add_puzzle_try(event.puzzle, game.id, event.solved, event.plies, at)
        elif isinstance(event, FirstChosen) and game.turns == 0:
            archive.set_first(game.id, event.colour)

    def _turn(self, archive: Archive, game: GameRow, event: TurnPlayed, at: str) -> None:
        if event.number > game.turns + 1 and self._referee is not None:
            # A turn missed: the journal has it.
            self._catch_up(archive, self._referee.snapshot().saved)
            return
        standing = archive.turns(game.id)
        if (
            event.number <= len(standing)
            and standing[event.number - 1].turn == event.turn.notation()
        ):
            return  # the same turn told again (after a power cut)
        if game.turns == game.setup_turns:  # who plays is read at the game's first turn
            archive.set_players(game.id, self._players())
        archive.add_turn(game.id, event.number, event.colour, event.turn.notation(), at)

    def _set_up(self, archive: Archive, event: SetupAsked, at: str) -> None:
        """A game set up from a record: a new game whose first turns are the record's (the
        journal has them), unless it is the game the archive has (set up again)."""
        if self._referee is None:
            return  # events without a board (tests): no record to keep
        saved = self._referee.snapshot().saved
        game = archive.current()
        if (
            game is not None
            and game.journal_game == event.game
            and ([t.turn for t in archive.turns(game.id)] == saved.turns)
        ):
            return
        game_id = self._open_game(archive, event.game, saved.first, at)
        game = archive.game(game_id)
        assert game is not None
        self._carry_on(archive, game, saved, 0, at)

    def _open_game(self, archive: Archive, journal_game: int, first: Colour, at: str) -> int:
        """A row for the game starting now: the newest one if nothing happened in it yet,
        else a new one (the newest, if unfinished, is kept as abandoned)."""
        current = archive.current()
        if current is not None and archive.is_blank(current.id):
            archive.renew(current.id, journal_game, first, self._players(), at)
            return current.id
        if current is not None:
            archive.abandon(current.id, at)
        return archive.new_game(journal_game, first, self._players(), at)

    def _catch_up(self, archive: Archive, saved: Saved) -> None:
        """Make the archive's newest game the journal's game: the same game carried on (its
        missing turns added, its turns beyond the journal taken back), or a new one."""
        at = self._stamp()
        restarted = self._journal_set_aside(archive)
        game = archive.current()
        tokens = saved.turns
        if game is not None and game.journal_game == saved.game:
            standing = [t.turn for t in archive.turns(game.id)]
            same = 0
            while same < min(len(standing), len(tokens)) and standing[same] == tokens[same]:
                same += 1
            first_agrees = game.first == saved.first.value or not standing
            # After a damaged journal was set aside, its game number started again at 1: a
            # game of the same number is the same game only if the journal carries it on.
            if first_agrees and (same == len(standing) or not restarted):
                self._carry_on(archive, game, saved, same, at)
                return
        game_id = self._open_game(archive, saved.game, saved.first, at)
        game = archive.game(game_id)
        assert game is not None
        self._carry_on(archive, game, saved, 0, at)

    def _carry_on(self, archive: Archive, game: GameRow, saved: Saved, same: int, at: str) -> None:
        """``game`` is the journal's: turns past the ``same`` first go, the journal's follow."""
        if game.turns == 0:
            archive.set_first(game.id, saved.first)
            archive.set_players(game.id, self._players())
        if (saved.base, saved.origin) != (game.setup_turns, game.origin):
            archive.set_setup(game.id, saved.base, saved.origin)
        archive.take_back(game.id, same + 1, at)
        for number, token in enumerate(saved.turns[same:], same + 1):
            archive.add_turn(game.id, number, colour_of(saved.first, number), token, at)
        position = saved.position()
        if position.result is not None:
            archive.finish(game.id, position.result.value, position.line_names(), at)

    def _puzzle_caught_up(self, archive: Archive, saved: Saved) -> None:
        """A puzzle's try that ended in the journal is in the archive: the power cut between
        the turn's journal entry and its ``puzzle`` event loses no try. A try the archive
        holds (the same game, result and plies) is never added twice."""
        from orbito_hw.control.puzzle import ended_try  # the puzzles only with a board

        done = ended_try(saved)
        game = archive.current()
        if done is None or game is None or game.journal_game != saved.game:
            return
        told = (done.puzzle, game.id, done.solved, done.plies)
        if any((t.puzzle, t.game, t.solved, t.plies) == told for t in archive.puzzle_tries()):
            return
        archive.add_puzzle_try(done.puzzle, game.id, done.solved, done.plies, self._stamp())

    def _journal_set_aside(self, archive: Archive) -> bool:
        """Whether a damaged journal was set aside (``game.json.damaged-N``) since the
        archive last looked: its game numbers may have started again."""
        if self.directory is None:
            return False
        count = len(list(self.directory.glob(f"{Journal.NAME}.damaged-*")))
        seen = archive.fact(SET_ASIDE_FACT)
        if seen != count:
            archive.set_fact(SET_ASIDE_FACT, count)
        return seen is not None and count > seen

    def _players(self) -> tuple[str, str]:
        """SPEC.md's PLAYER for black and white, from who the referee plays for now."""
        opponent: BoardPlayer | None = self._referee.snapshot().opponent if self._referee else None
        return (
            _player(opponent, Colour.BLACK),
            _player(opponent, Colour.WHITE),
        )

    def _stamp(self) -> str:
        return self._now().isoformat(timespec="seconds")


def _player(opponent: BoardPlayer | None, colour: Colour) -> str:
    return opponent.player if opponent is not None and opponent.colour is colour else PERSON
