"""The game archive: every game the referee sees, in an SQLite database in the state directory.

``Recorder`` listens to the referee's events and writes each as it comes, one transaction an
event (WAL, ``synchronous=FULL``: a committed event survives a power cut). The journal stays
the source of truth for the game in progress: at every start (``Recorder.boot``, after
``referee.start()``) the archive catches up from it, adding the turns it missed and marking
taken back the turns it has beyond the journal. Archive ids are the archive's own: the
journal's game number starts again at 1 when a damaged journal is set aside, and two games
that share a journal number are never merged.

Nothing on disk is trusted. A file at the archive's name that is not SQLite, another
program's database, or one written by a newer orbito-hw is moved aside as
``games.sqlite3.damaged-N`` (never deleted or written over), reported as a fault, and a fresh
archive catches up from the journal: play never waits on the archive. ``sqlite3`` is imported
only when an archive is opened, so the command line starts light.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from orbito_hw.aside import set_aside
from orbito_hw.control.events import (
    FirstChosen,
    GameOver,
    NewGame,
    PuzzleDone,
    Rejected,
    SetupAsked,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.errors import OrbitoError, shown
from orbito_hw.lang import _
from orbito_hw.rules.game import Colour

if TYPE_CHECKING:
    import sqlite3


log = logging.getLogger(__name__)

NAME: Final = "games.sqlite3"
APPLICATION_ID: Final = 0x4F524249  # "ORBI": PRAGMA application_id marks the file as ours
PERSON: Final = "person"  # SPEC.md's PLAYER for a person at the board
SET_ASIDE_FACT: Final = "journals_set_aside"
CACHE_KIB: Final = 256
"""The page cache of each connection, in KiB (SQLite's own default is 2000). A connection
keeps every page it has touched up to its cache's size, so the controller's one long-lived
connection grew with the archive, game after game, until it held 2 MB of it (the hostile
soak's memory growth, benchmarks/hostile_soak.py). Writing a game touches the right edge of
a few B-trees and a read walks one game's rows: 64 pages of 4 KiB hold both, and every
other page is in the operating system's file cache anyway."""

# The schema's history: MIGRATIONS[n] takes version n to n + 1, in one transaction. A fresh
# archive runs them all, so every step is run on every board, not only on old ones.
MIGRATIONS: Final[tuple[str, ...]] = (
    # 1: games, their turns by number, their refusals.
    f"""
    PRAGMA application_id = {APPLICATION_ID};
    CREATE TABLE games (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        journal_game INTEGER NOT NULL,
        first TEXT NOT NULL CHECK (first IN ('black', 'white')),
        black TEXT NOT NULL,
        white TEXT NOT NULL,
        started TEXT NOT NULL,
        ended TEXT,
        result TEXT CHECK (result IN ('black', 'white', 'draw')),
        lines TEXT NOT NULL DEFAULT '[]'
    );
    CREATE TABLE turns (
        game INTEGER NOT NULL REFERENCES games (id),
        number INTEGER NOT NULL,
        colour TEXT NOT NULL,
        turn TEXT NOT NULL,
        at TEXT NOT NULL,
        PRIMARY KEY (game, number)
    );
    CREATE TABLE refusals (
        game INTEGER NOT NULL REFERENCES games (id),
        at TEXT NOT NULL,
        reason TEXT NOT NULL,
        squares TEXT NOT NULL
    );
    CREATE INDEX refusals_of_game ON refusals (game);
    """,
    # 2: take-backs. A turn taken back is kept with the time it went (``taken_back``); its
    # number may be played again, so turns are kept in the order they came (``seq``). And
    # the facts the archive keeps about the state directory (journals set aside).
    """
    CREATE TABLE turns_v2 (
        game INTEGER NOT NULL REFERENCES games (id),
        seq INTEGER NOT NULL,
        number INTEGER NOT NULL,
        colour TEXT NOT NULL,
        turn TEXT NOT NULL,
        at TEXT NOT NULL,
        taken_back TEXT,
        PRIMARY KEY (game, seq)
    );
    INSERT INTO turns_v2 (game, seq, number, colour, turn, at)
        SELECT game, number, number, colour, turn, at FROM turns;
    DROP TABLE turns;
    ALTER TABLE turns_v2 RENAME TO turns;
    CREATE UNIQUE INDEX standing_turns ON turns (game, number) WHERE taken_back IS NULL;
    CREATE TABLE facts (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
    """,
    # 3: games set up from a record (issue 28): their first ``setup_turns`` turns are the
    # record they were set up from (kept as turns, so the game replays from the empty board),
    # and ``origin`` says where it came from ("archive:ID:N": game ID after its turn N).
    # Columns added with defaults: every game before it reads as one started from empty.
    """
    ALTER TABLE games ADD COLUMN setup_turns INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN origin TEXT;
    """,
    # 4: puzzle progress (issue 28): one row per try of a puzzle that ended (the ``puzzle``
    # event), solved or not, in the order they came. A table added: nothing before changes.
    """
    CREATE TABLE puzzle_tries (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        puzzle TEXT NOT NULL,
        game INTEGER REFERENCES games (id),
        solved INTEGER NOT NULL CHECK (solved IN (0, 1)),
        plies INTEGER NOT NULL,
        at TEXT NOT NULL
    );
    CREATE INDEX puzzle_tries_of ON puzzle_tries (puzzle);
    """,
)
SCHEMA: Final = len(MIGRATIONS)

GAME_ID_DIGITS: Final = 18
"""An archive id is a number SQLite holds (at most 9223372036854775807): more digits are no
id of ours, and are never handed to SQLite (an OverflowError) or to int() (its 4,300-digit
limit)."""
SQLITE_CORRUPT: Final = 11
SQLITE_NOTADB: Final = 26


class ArchiveError(OrbitoError, ValueError):
    """The archive cannot be read (none there, unreadable, not ours): one line, exit 2."""


class NoSuchGameError(ArchiveError):
    """An id the archive has no game of: said as it is, never as damage."""


class ArchiveDamageError(OrbitoError, ValueError):
    """Why a file at the archive's name is not an archive this orbito-hw can write to."""


# --- rows ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class GameRow:
    id: int
    journal_game: int
    first: str
    black: str
    white: str
    started: str
    ended: str | None
    result: str | None
    lines: list[list[str]]
    turns: int  # standing turns: accepted turns and extra presses, take-backs deducted
    setup_turns: int = 0  # a game set up from a record: its first turns were that record's
    origin: str | None = None  # where a set-up game came from ("archive:ID:N", "journal"...)

    def as_json(self) -> dict[str, object]:
        """SPEC.md's ``games list`` line (and, for a game set up from a record, where it
        came from: keys readers that do not know them ignore)."""
        return {
            "id": self.id,
            "started": self.started,
            "ended": self.ended,
            "first": self.first,
            "black": self.black,
            "white": self.white,
            "result": self.result,
            "turns": self.turns,
            **self.setup_json(),
        }

    def setup_json(self) -> dict[str, object]:
        """``{"setup": N, "from": {"game": ID, "turn": N}|ORIGIN}`` for a set-up game, else {}."""
        if not self.setup_turns and self.origin is None:
            return {}
        return {"setup": self.setup_turns, "from": origin_json(self.origin)}


def origin_json(origin: str | None) -> object:
    """An origin as JSON: ``{"game": ID, "turn": N}`` for "archive:ID:N", else as kept."""
    parts = (origin or "").split(":")
    if len(parts) == 3 and parts[0] == "archive" and all(p.isdigit() for p in parts[1:]):
        return {"game": int(parts[1]), "turn": int(parts[2])}
    return origin


@dataclass(frozen=True, slots=True)
class TurnRow:
    number: int
    colour: str
    turn: str
    at: str
    taken_back: str | None = None

    def as_json(self) -> dict[str, object]:
        head: dict[str, object] = {
            "number": self.number,
            "colour": self.colour,
            "turn": self.turn,
            "at": self.at,
        }
        return head if self.taken_back is None else {**head, "taken_back": self.taken_back}


_GAME_COLUMNS = (
    "g.id, g.journal_game, g.first, g.black, g.white, g.started, g.ended, g.result, g.lines, "
    "(SELECT count(*) FROM turns t WHERE t.game = g.id AND t.taken_back IS NULL), "
    "g.setup_turns, g.origin"
)


def _game_row(row: tuple[Any, ...]) -> GameRow:
    """A row of ``games``, each value checked: SQLite keeps whatever a file holds (text in
    an integer column, a ``lines`` that is not JSON), and a damaged or edited archive must be
    told in one line, never read as a game or a traceback."""
    game_id, journal_game, first, black, white, started, ended, result, lines, turns = row[:10]
    setup_turns, origin = row[10:]
    where = f"game {shown(game_id)}"
    for column, value, kind in (
        ("id", game_id, int), ("journal_game", journal_game, int), ("turns", turns, int),
        ("first", first, str), ("black", black, str), ("white", white, str),
        ("started", started, str), ("ended", ended, (str, type(None))),
        ("result", result, (str, type(None))), ("lines", lines, str),
        ("setup_turns", setup_turns, int), ("origin", origin, (str, type(None))),
    ):  # fmt: skip
        _check(isinstance(value, kind), where, column, value)
    _check(first in ("black", "white"), where, "first", first)
    try:
        parsed = json.loads(lines)
    except ValueError:
        parsed = None
    _check(_is_lines(parsed), where, "lines", lines)
    return GameRow(game_id, journal_game, first, black, white, started, ended, result, parsed,
                   turns, setup_turns, origin)  # fmt: skip


@dataclass(frozen=True, slots=True)
class PuzzleTry:
    """A try of a puzzle that ended: solved or not, in ``plies``, in archived game ``game``."""

    puzzle: str
    game: int | None
    solved: bool
    plies: int
    at: str


def _try_row(row: tuple[Any, ...]) -> PuzzleTry:
    puzzle, game, solved, plies, at = row
    columns = (("puzzle", puzzle, str), ("game", game, (int, type(None))),
               ("solved", solved, int), ("plies", plies, int), ("at", at, str))  # fmt: skip
    for column, value, kind in columns:
        _check(isinstance(value, kind), "puzzle_tries", column, value)
    return PuzzleTry(puzzle, game, bool(solved), plies, at)


def _turn_row(row: tuple[Any, ...]) -> TurnRow:
    """A row of ``turns``, each value checked (see ``_game_row``)."""
    where = f"turn {shown(row[0])}"
    kinds: tuple[type | tuple[type, ...], ...] = (int, str, str, str, (str, type(None)))
    columns = ("number", "colour", "turn", "at", "taken_back")[: len(row)]  # standing: 4
    for column, value, kind in zip(columns, row, kinds[: len(row)], strict=True):
        _check(isinstance(value, kind), where, column, value)
    return TurnRow(*row)


def _is_lines(value: object) -> bool:
    return isinstance(value, list) and all(
        isinstance(line, list) and all(isinstance(sq, str) for sq in line) for line in value
    )


def _check(ok: bool, where: str, column: str, value: object) -> None:
    if not ok:
        raise ArchiveError(f"{where} has {column} = {shown(value)}, which no orbito-hw wrote")


@contextlib.contextmanager
def damage_told(path: Path) -> Iterator[None]:
    """Reads of the archive at ``path``, whatever a damaged file makes them raise (SQLite's
    "malformed", an integer too large for it, a value of the wrong kind) told as one
    ArchiveError naming the file. The file is left as it is: nothing here writes."""
    import sqlite3

    try:
        yield
    except NoSuchGameError:
        raise
    except ArchiveError as exc:
        raise ArchiveError(f"the game archive {path} is damaged: {exc}; it was left as it is") \
            from None  # fmt: skip
    except OrbitoError:
        raise
    except (sqlite3.Error, ValueError, TypeError, OverflowError, KeyError, IndexError) as exc:
        raise ArchiveError(
            f"the game archive {path} is damaged ({why(exc)}); it was left as it is"
        ) from None


def colour_of(first: Colour, number: int) -> Colour:
    """Who makes turn ``number``: the players alternate, extra presses included."""
    return first if number % 2 else first.other


# --- the database ----------------------------------------------------------------------------
class Archive:
    """One open archive: the SQL of every read and write. Writes go inside ``write()``."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.db = connection
        self.path = path

    # --- opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, directory: str | os.PathLike[str]) -> Archive:
        """The controller's archive in ``directory``, created or migrated as needed;
        ArchiveDamageError if the file there is not one this orbito-hw can write to, sqlite3.Error
        or OSError if it cannot be opened at all."""
        import sqlite3

        path = Path(directory) / NAME
        db = sqlite3.connect(path, isolation_level=None, timeout=10.0)
        try:
            version = _version(db)
            if version and _one(db, "PRAGMA quick_check") != "ok":
                raise ArchiveDamageError("the database fails its integrity check")
            _tune(db)
            _migrate(db, version)
        except sqlite3.DatabaseError as exc:
            db.close()
            if is_damage(exc):
                raise ArchiveDamageError(f"a damaged database ({why(exc)})") from None
            raise
        except BaseException:
            db.close()
            raise
        return cls(db, path)

    @classmethod
    def read(cls, directory: str | os.PathLike[str]) -> Archive:
        """The archive in ``directory`` for the ``games`` commands; ArchiveError naming the
        file for none there, one that cannot be read, or one that is not ours. An archive of
        an older schema (or an empty file) is read through a copy migrated in memory: a read
        changes nothing on the disk, whatever the file holds (the controller migrates the file
        itself at its next start)."""
        import sqlite3

        path = Path(directory) / NAME
        if not os.path.lexists(path):
            raise ArchiveError(
                f"no game archive in {directory} (no {NAME} there; "
                "--state-dir DIR reads the archive of another directory)"
            )
        if not path.is_file():
            raise ArchiveError(f"cannot read the game archive {path}: not a file")
        try:
            db = _read_only(path)
            try:
                version = _version(db)
                db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")  # once the file is known ours
            except BaseException:
                db.close()
                raise
            if version < SCHEMA:
                return cls(_migrated_copy(db, version), path)
            return cls(db, path)
        except ArchiveDamageError as exc:
            raise ArchiveError(
                f"{path} is not a game archive this orbito-hw reads: {exc}"
            ) from None
        except (sqlite3.Error, OSError) as exc:
            raise ArchiveError(f"cannot read the game archive {path}: {why(exc)}") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> Archive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def write(self) -> contextlib.AbstractContextManager[None]:
        """One transaction: committed (and fsync'd) whole, or not at all."""
        return _transaction(self.db)

    # --- reading ------------------------------------------------------------------------
    def games(self, before: int | None = None, limit: int | None = None) -> list[GameRow]:
        """Every game, oldest first; with ``limit``, only the newest ``limit`` of them (of
        those before the game ``before``, if given), still oldest first: a page of the list,
        read in memory that does not grow with the archive."""
        where, params = ("", []) if before is None else ("WHERE g.id < ?", [before])
        if limit is None:
            sql = f"SELECT {_GAME_COLUMNS} FROM games g {where} ORDER BY g.id"
            return [_game_row(row) for row in self.db.execute(sql, params)]
        sql = f"SELECT {_GAME_COLUMNS} FROM games g {where} ORDER BY g.id DESC LIMIT ?"
        return [_game_row(row) for row in self.db.execute(sql, [*params, limit])][::-1]

    def game(self, game_id: int) -> GameRow | None:
        row = self.db.execute(f"SELECT {_GAME_COLUMNS} FROM games g WHERE g.id = ?", (game_id,))
        found = row.fetchone()
        return None if found is None else _game_row(found)

    def current(self) -> GameRow | None:
        """The newest game: the one the referee is playing, if any is."""
        row = self.db.execute(f"SELECT {_GAME_COLUMNS} FROM games g ORDER BY g.id DESC LIMIT 1")
        found = row.fetchone()
        return None if found is None else _game_row(found)

    def turns(self, game_id: int, standing: bool = True) -> list[TurnRow]:
        """The turns that stand, by number; with ``standing=False`` the taken back ones,
        in the order they were played."""
        if standing:
            sql = "SELECT number, colour, turn, at FROM turns WHERE game = ? "
            sql += "AND taken_back IS NULL ORDER BY number"
        else:
            sql = "SELECT number, colour, turn, at, taken_back FROM turns WHERE game = ? "
            sql += "AND taken_back IS NOT NULL ORDER BY seq"
        return [_turn_row(row) for row in self.db.execute(sql, (game_id,))]

    def moves(self) -> dict[int, str]:
        """Every game's standing turns as a record, by game id (games with none left out)."""
        sql = "SELECT game, turn FROM turns WHERE taken_back IS NULL ORDER BY game, number"
        tokens: dict[int, list[str]] = {}
        for game_id, turn in self.db.execute(sql):
            tokens.setdefault(game_id, []).append(turn)
        return {game_id: " ".join(turns) for game_id, turns in tokens.items()}

    def refusals(self, game_id: int) -> list[dict[str, object]]:
        sql = "SELECT at, reason, squares FROM refusals WHERE game = ? ORDER BY rowid"
        return [
            {"at": at, "reason": reason, "squares": json.loads(squares)}
            for at, reason, squares in self.db.execute(sql, (game_id,))
        ]

    def is_blank(self, game_id: int) -> bool:
        """Nothing happened in the game: no turn (even taken back), no refusal, no result."""
        sql = (
            "SELECT NOT EXISTS (SELECT 1 FROM turns WHERE game = :g) "
            "AND NOT EXISTS (SELECT 1 FROM refusals WHERE game = :g) "
            "AND (SELECT result IS NULL FROM games WHERE id = :g)"
        )
        return bool(_one(self.db, sql, {"g": game_id}))

    def puzzle_tries(self) -> list[PuzzleTry]:
        """Every puzzle try that ended, in the order they came (``archive/progress.py``)."""
        sql = "SELECT puzzle, game, solved, plies, at FROM puzzle_tries ORDER BY seq"
        return [_try_row(row) for row in self.db.execute(sql)]

    def fact(self, key: str) -> int | None:
        found = self.db.execute("SELECT value FROM facts WHERE key = ?", (key,)).fetchone()
        return None if found is None else int(found[0])

    # --- writing (inside write()) --------------------------------------------------------
    def new_game(self, journal_game: int, first: Colour, players: tuple[str, str], at: str) -> int:
        cursor = self.db.execute(
            "INSERT INTO games (journal_game, first, black, white, started) VALUES (?, ?, ?, ?, ?)",
            (journal_game, first.value, *players, at),
        )
        assert cursor.lastrowid is not None
        return cursor.lastrowid

    def renew(
        self, game_id: int, journal_game: int, first: Colour, players: tuple[str, str], at: str
    ) -> None:
        """A blank game becomes the game that starts now (nothing of it is lost)."""
        self.db.execute(
            "UPDATE games SET journal_game = ?, first = ?, black = ?, white = ?, started = ?, "
            "ended = NULL, setup_turns = 0, origin = NULL WHERE id = ?",
            (journal_game, first.value, *players, at, game_id),
        )

    def set_first(self, game_id: int, first: Colour) -> None:
        self.db.execute("UPDATE games SET first = ? WHERE id = ?", (first.value, game_id))

    def set_setup(self, game_id: int, setup_turns: int, origin: str | None) -> None:
        """The game was set up from a record: its first ``setup_turns`` turns, from ``origin``."""
        self.db.execute(
            "UPDATE games SET setup_turns = ?, origin = ? WHERE id = ?",
            (setup_turns, origin, game_id),
        )

    def set_players(self, game_id: int, players: tuple[str, str]) -> None:
        self.db.execute("UPDATE games SET black = ?, white = ? WHERE id = ?", (*players, game_id))

    def add_turn(self, game_id: int, number: int, colour: Colour, turn: str, at: str) -> None:
        """Turn ``number`` of the game; one that stands at that number is taken back first."""
        self.take_back(game_id, number, at)
        self.db.execute(
            "INSERT INTO turns (game, seq, number, colour, turn, at) VALUES (?, "
            "(SELECT coalesce(max(seq), 0) + 1 FROM turns WHERE game = ?), ?, ?, ?, ?)",
            (game_id, game_id, number, colour.value, turn, at),
        )

    def take_back(self, game_id: int, number: int, at: str) -> None:
        """Turns ``number`` on are gone from the game (and with them any result)."""
        cursor = self.db.execute(
            "UPDATE turns SET taken_back = ? WHERE game = ? AND number >= ? AND taken_back IS NULL",
            (at, game_id, number),
        )
        if cursor.rowcount:
            self.db.execute(
                "UPDATE games SET result = NULL, lines = '[]', ended = NULL WHERE id = ?",
                (game_id,),
            )

    def finish(self, game_id: int, result: str, lines: list[list[str]], at: str) -> None:
        """The result; announced again (after a power cut) it keeps its first time."""
        self.db.execute(
            "UPDATE games SET result = ?, lines = ?, ended = ? WHERE id = ? AND result IS NOT ?",
            (result, json.dumps(lines), at, game_id, result),
        )

    def abandon(self, game_id: int, at: str) -> None:
        """An unfinished game left for another: it ended, with no result."""
        self.db.execute(
            "UPDATE games SET ended = ? WHERE id = ? AND ended IS NULL AND result IS NULL",
            (at, game_id),
        )

    def add_refusal(self, game_id: int, reason: str, squares: list[str], at: str) -> None:
        self.db.execute(
            "INSERT INTO refusals (game, at, reason, squares) VALUES (?, ?, ?, ?)",
            (game_id, at, reason, json.dumps(squares)),
        )

    def add_puzzle_try(self, puzzle: str, game_id: int | None, solved: bool, plies: int,
                       at: str) -> None:  # fmt: skip
        self.db.execute(
            "INSERT INTO puzzle_tries (puzzle, game, solved, plies, at) VALUES (?, ?, ?, ?, ?)",
            (puzzle, game_id, int(solved), plies, at),
        )

    def set_fact(self, key: str, value: int) -> None:
        self.db.execute("INSERT OR REPLACE INTO facts (key, value) VALUES (?, ?)", (key, value))


def _read_only(path: Path) -> sqlite3.Connection:
    """``path`` opened for reading only, making nothing beside it. With no ``-wal`` there,
    no controller has the archive open (its ``-wal`` lives as long as its connection) and
    every commit is in the file: it is read as it stands. Else SQLite would make a
    ``-wal`` and ``-shm``: one who may not write there (a builder's own login) could not read,
    and root's would be root's, which the controller (its own user) then cannot write."""
    import sqlite3

    uri = f"{path.absolute().as_uri()}?mode=ro"
    if not os.path.lexists(path.with_name(path.name + "-wal")):
        uri += "&immutable=1"
    return sqlite3.connect(uri, uri=True, timeout=10.0)


def _migrated_copy(db: sqlite3.Connection, version: int) -> sqlite3.Connection:
    """A copy of ``db`` in memory, migrated from ``version`` to ``SCHEMA``; ``db`` closed."""
    import sqlite3

    try:
        memory = sqlite3.connect(":memory:")
        db.backup(memory)
    finally:
        db.close()
    _migrate(memory, version)
    return memory


def _one(db: sqlite3.Connection, sql: str, params: Any = ()) -> Any:
    return db.execute(sql, params).fetchone()[0]


def _version(db: sqlite3.Connection) -> int:
    """The schema version of the file ``db`` opened, 0 for a fresh (empty) one; ArchiveDamageError
    for a file that is not SQLite, another program's database or a newer archive."""
    import sqlite3

    try:
        application = _one(db, "PRAGMA application_id")
        version = _one(db, "PRAGMA user_version")
        tables = _one(db, "SELECT count(*) FROM sqlite_master")
    except sqlite3.DatabaseError as exc:
        if is_damage(exc):
            raise ArchiveDamageError(f"not an SQLite database ({why(exc)})") from None
        raise
    except UnicodeDecodeError:
        # A schema page overwritten with noise: SQLite's own message quotes the bytes it could
        # not parse, which Python then fails to decode (found by test_pages_overwritten_with_noise)
        raise ArchiveDamageError("not an SQLite database (its schema is not text)") from None
    if application == version == tables == 0:
        return 0
    if application != APPLICATION_ID:
        raise ArchiveDamageError(
            f"another program's SQLite database (application id {application})"
        )
    if version > SCHEMA:
        raise ArchiveDamageError(
            f"written by a newer orbito-hw (schema {version}; this one reads up to {SCHEMA})"
        )
    if version < 1:
        raise ArchiveDamageError(f"schema version {version} is not one orbito-hw wrote")
    return int(version)


def _tune(db: sqlite3.Connection) -> None:
    """WAL: readers (the ``games`` commands) never block the controller; FULL: a commit is
    on the disk before the next turn is played; a cache that does not grow with the archive
    (CACHE_KIB)."""
    db.execute(f"PRAGMA cache_size = -{CACHE_KIB}")
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA synchronous = FULL")
    db.execute("PRAGMA foreign_keys = ON")


@contextlib.contextmanager
def _transaction(db: sqlite3.Connection) -> Iterator[None]:
    db.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        with contextlib.suppress(Exception):  # a damaged file may refuse even this
            db.execute("ROLLBACK")
        raise
    db.execute("COMMIT")


def _migrate(db: sqlite3.Connection, version: int) -> None:
    """Each step and its version number in one transaction: a power cut leaves the archive
    at one version or the next, never between."""
    for target in range(version + 1, SCHEMA + 1):
        with _transaction(db):
            for statement in _statements(MIGRATIONS[target - 1]):
                db.execute(statement)
            db.execute(f"PRAGMA user_version = {target}")
        log.info("%s", _("game archive: schema version {version}").format(version=target))


def _statements(script: str) -> list[str]:
    """A migration's statements (executescript would commit the transaction it runs in)."""
    return [s.strip() for s in script.split(";") if s.strip()]


def is_damage(exc: Exception) -> bool:
    """Whether SQLite's error says the file is damaged or not a database at all."""
    return getattr(exc, "sqlite_errorcode", None) in (SQLITE_CORRUPT, SQLITE_NOTADB)


def why(exc: BaseException) -> str:
    return (exc.strerror if isinstance(exc, OSError) else None) or str(exc) or type(exc).__name__


def move_aside(path: Path) -> Path:
    """Rename the database (and its WAL and shared-memory files, which belong to it) to the
    first free ``NAME.damaged-N``: nothing is deleted or written over (orbito_hw/aside.py,
    the database last: its name is what says "damaged")."""
    return set_aside(path, companions=("-wal", "-shm"))


KEPT = (NewGame, FirstChosen, TurnPlayed, Rejected, GameOver, TakenBack, SetupAsked, PuzzleDone)
"""The events the archive keeps something of."""
