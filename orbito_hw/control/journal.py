"""The controller's journal: the game so far and the turn in progress, on disk.

Every write is atomic and durable (write a temporary file, fsync, rename over, fsync the
directory), so a power cut at any point leaves either the old or the new journal, never
a torn one.

Nothing on disk is trusted: the journal is read as bytes, decoded strictly and replayed
through the engine. A journal damaged in any way (not UTF-8, not JSON, wrong types, a turn
the rules refuse, a turn in progress that does not fit the board, a newer format, a file
that cannot be read) is moved aside, never deleted or written over, and JournalError says
where it went. A journal that cannot even be moved aside, or a state directory that cannot
be locked, is JournalUnavailableError: not a JournalError, so nobody starts a fresh game
over it; the controller refuses to start and leaves the file alone.

A Journal holds an exclusive lock on its state directory (``.lock``, holding the pid and
the command) from creation to ``close()``: two controllers on one directory would write
over each other's turns.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import json
import os
import stat
import sys
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, NoReturn

from orbito_hw.control.guard import VALUE_LIMIT, cut
from orbito_hw.errors import ConfigError, IllegalTurnError, NotationError, OrbitoError
from orbito_hw.rules.game import Colour, Position, ReplayError, replay
from orbito_hw.rules.squares import BB_SQUARES, is_square_name, parse_square, square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.opponents import parse_level

if TYPE_CHECKING:
    from orbito_hw.control.reading import TurnReader

FORMAT = 1
MAX_BYTES = 16 * 1024 * 1024
"""A journal larger than this is damaged: a game holds at most 21 turns, and a turn in
progress would need a touch a second for days on end to come near it."""

Touch = tuple[str, str]
"""("lift" | "put", square name): one debounced sensor change of the turn in progress."""


class JournalError(OrbitoError, ValueError):
    """The journal on disk was damaged; it has been moved aside (the message says where),
    so a fresh game may start, or, when only the turn in progress was damaged, the game
    carries on from ``recovered``: its accepted turns are never thrown away."""

    def __init__(self, message: str, recovered: Saved | None = None) -> None:
        super().__init__(message)
        self.recovered = recovered


class JournalUnavailableError(OrbitoError, OSError):
    """The journal or its state directory cannot be used and the journal could not be set
    aside: the controller must not start, and must not write over it. Deliberately not a
    JournalError, whose handlers start a fresh game."""


class StateDirBusyError(JournalUnavailableError):
    """Another controller holds the state directory's lock."""


class JournalDamageError(OrbitoError, ValueError):
    """Why the bytes of a journal are not a journal this program can carry on from;
    ``recovered`` holds its accepted turns when only the turn in progress was damaged."""

    def __init__(self, message: str, recovered: Saved | None = None) -> None:
        super().__init__(message)
        self.recovered = recovered


@dataclass(frozen=True)
class SavedAsk:
    """An ask waiting for its answer (asks.py): ``colour`` asks for ``what`` after ``number``
    turns; ``away`` is the colour of the player away."""

    what: str
    colour: Colour
    number: int
    away: Colour

    def to_json(self) -> dict[str, object]:
        return {"what": self.what, "colour": self.colour.value, "number": self.number,
                "away": self.away.value}  # fmt: skip


MAX_TOUCHES = 64
"""Touches of a turn in progress journaled as they come; past this many the journal keeps
what the reader holds instead (at most 48 touches), so a marble lifted and put back a
thousand times costs no more to journal than a turn made at once."""


@dataclass
class Saved:
    game: int = 1
    first: Colour = Colour.BLACK
    turns: list[str] = field(default_factory=list)
    pending: str | None = None
    touches: list[Touch] = field(default_factory=list)
    announced: bool = False
    """The result of this (finished) game was announced and added to the history: after a
    power cut it is shown again on the LEDs, never announced or archived a second time."""
    board_turn: str | None = None
    """The turn the board, playing against a person, chose for the position after ``turns``
    and shows on the LEDs: after a power cut it shows the same turn again."""
    undo_one: bool = False
    """The take-back under way takes back its one turn only, even against the board (the
    other board's take-back, carried out here one turn at a time)."""
    opponent: str | None = None
    """Who plays, as chosen at the board (the opponent menu, a directive): "person" for two
    people, "board:LEVEL:COLOUR" for the board; None: as the config says. A power cut keeps
    the choice, and so does the next game."""
    placed_first: bool = False
    """The turn in progress placed before it moved an opponent marble (``TurnReader``): kept
    apart from ``touches``, whose shortened form may not keep their order."""
    undo: str | None = None
    """A take-back of the last of ``turns`` under way: "turning" once it began (the rings may
    not have turned back yet), "turned" once they have; the turn stays in ``turns`` until the
    board shows the position before it."""
    base: int = 0
    """The game started from a set-up: its first ``base`` turns are the record it was set up
    from (they stand, numbered as in that record); a take-back never goes back past them."""
    setting_up: bool = False
    """The board asks for the position after ``turns`` to be set up (``control/setup.py``):
    after a power cut the set-up goes on, the sensors saying what is still to do."""
    origin: str | None = None
    """Where a set-up game came from, as the archive keeps it: "archive:ID:N" (an archived
    game ID, after its turn N), "journal" (set up again), "script", "puzzle:ID"..."""
    ask: SavedAsk | None = None
    """The ask across the board waiting for an answer (a take-back, a draw: asks.py)."""
    undo_to: int | None = None
    """An agreed take-back (asks.py) under way: it takes back, one turn at a time, until this
    many turns are left; after a power cut between its turns it goes on to the next."""

    @property
    def own_turns(self) -> int:
        """The turns played on this board since the game began (after its set-up)."""
        return len(self.turns) - self.base

    def add_touch(self, reader: TurnReader, square: int, present: bool) -> None:
        """A lift or put of the turn in progress, as ``reader`` has taken it in: journaled
        as it comes; past ``MAX_TOUCHES``, what the reader holds instead (at most 48
        touches, bounded by the board, not by the history of touches)."""
        self.touches.append(("put" if present else "lift", square_name(square)))
        self.placed_first = reader.placed_first
        if len(self.touches) > MAX_TOUCHES:
            self.touches = [
                ("put" if put else "lift", square_name(sq)) for put, sq in reader.replay_touches()
            ]

    def position(self) -> Position:
        """The position after the committed turns (the engine checks each one)."""
        return replay(self.first, self.turns)

    def undo_start(self) -> int:
        """The squares holding a marble once the rings have turned back for a take-back of
        the last turn: that turn made, before its press."""
        black, white = replay(self.first, self.turns[:-1]).before_press(
            Turn.from_notation(self.turns[-1])
        )
        return black | white

    def to_json(self) -> dict[str, object]:
        return {
            "format": FORMAT,
            "game": self.game,
            "first": self.first.value,
            "turns": self.turns,
            "pending": self.pending,
            "touches": [list(t) for t in self.touches],
            "announced": self.announced,
            # Only against the board: a two-person journal is as it always was.
            **({"board_turn": self.board_turn} if self.board_turn is not None else {}),
            **({"undo": self.undo} if self.undo is not None else {}),
            **({"placed_first": True} if self.placed_first else {}),
            **({"undo_one": True} if self.undo_one else {}),
            **({"opponent": self.opponent} if self.opponent is not None else {}),
            # Only for a game set up from a record: other journals are as they always were.
            **({"base": self.base} if self.base else {}),
            **({"setting_up": True} if self.setting_up else {}),
            **({"origin": self.origin} if self.origin is not None else {}),
            # Only while a player away's ask waits, or an agreed take-back is under way.
            **({"ask": self.ask.to_json()} if self.ask is not None else {}),
            **({"undo_to": self.undo_to} if self.undo_to is not None else {}),
        }

    @classmethod
    def from_json(cls, data: object) -> Saved:
        """A journal's JSON, checked field by field and replayed through the engine;
        JournalDamageError naming the first thing wrong."""
        if not isinstance(data, dict):
            raise JournalDamageError(f"{_shown(data)} is not a JSON object")
        _check_format(data.get("format"))
        game = data.get("game")
        if type(game) is not int or game < 1:  # type(): true is an int to isinstance
            raise JournalDamageError(f"game {_shown(game)} is not a game number")
        first = data.get("first")
        if first not in [c.value for c in Colour]:
            raise JournalDamageError(f"first {_shown(first)} is not black or white")
        saved = cls(game, Colour(first), _strings(data.get("turns"), "turns"))
        position = saved._replay()
        saved.base = _base(data.get("base", 0), len(saved.turns))
        saved.origin = _origin(data.get("origin"))
        # Journals written before "announced" was kept: a finished game in them had been
        # announced before the cut.
        announced = data.get("announced", position.is_over)
        if type(announced) is not bool:
            raise JournalDamageError(f"announced {_shown(announced)} is not true or false")
        saved.announced = announced
        try:  # the accepted turns are good: damage from here on spares them
            saved.pending = _pending(position, data.get("pending"))
            saved.undo = _undo(data.get("undo"), bool(saved.turns))
            # A take-back's undoing starts from the last turn made, before its press.
            start = saved.undo_start() if saved.undo else position.occupied
            saved.touches = _touches(start, data.get("touches"), fits=bool(saved.turns))
            saved.board_turn = _pending(position, data.get("board_turn"), "the board's turn")
            saved.placed_first = _flag(data.get("placed_first", False), "placed_first")
            saved.opponent = _opponent(data.get("opponent"))
            saved.undo_one = _flag(data.get("undo_one", False), "undo_one")
            saved.setting_up = _flag(data.get("setting_up", False), "setting_up")
            saved.ask = _ask(data.get("ask"), len(saved.turns))
            saved.undo_to = _undo_to(data.get("undo_to"), saved.base, len(saved.turns))
            under_way = saved.pending or saved.touches or saved.undo or saved.undo_to is not None
            if saved.setting_up and under_way:
                raise JournalDamageError("a set-up with a turn or a take-back under way")
        except JournalDamageError as exc:
            recovered = cls(game, saved.first, saved.turns, base=saved.base, origin=saved.origin)
            raise JournalDamageError(str(exc), recovered=recovered) from None
        return saved

    def _replay(self) -> Position:
        try:
            return self.position()
        except ReplayError as exc:
            raise JournalDamageError(
                f"turn {exc.number} {_shown(exc.token)} cannot be played: {_short(exc.reason)}"
            ) from None


def _check_format(version: object) -> None:
    if type(version) is not int:
        raise JournalDamageError(f"format {_shown(version)} is not an orbito-hw journal format")
    if version > FORMAT:
        raise JournalDamageError(
            f"written by a newer orbito-hw (format {_shown(version)}; this one reads {FORMAT})"
        )
    if version != FORMAT:
        raise JournalDamageError(f"format {_shown(version)} is not format {FORMAT}")


def _strings(value: object, name: str) -> list[str]:
    if not isinstance(value, list):
        raise JournalDamageError(f"{name} is {_shown(value)}, not a list")
    for number, item in enumerate(value, 1):
        if not isinstance(item, str):
            raise JournalDamageError(f"{name} item {number} is {_shown(item)}, not a string")
    return list(value)


def _pending(position: Position, token: object, what: str = "the turn in progress") -> str | None:
    """The turn accepted but not yet committed (or the board's chosen turn, ``what``): it
    must be one the position allows."""
    if token is None:
        return None
    if not isinstance(token, str):
        raise JournalDamageError(f"{what} {_shown(token)} is not a turn")
    try:
        position.check(Turn.from_notation(token))
    except NotationError:
        raise JournalDamageError(f"{what} {_shown(token)} is malformed") from None
    except IllegalTurnError as exc:
        raise JournalDamageError(
            f"{what} {_shown(token)} does not fit the board: {_short(exc.reason)}"
        ) from None
    return token


def _opponent(value: object) -> str | None:
    """ "person", or "board:LEVEL:COLOUR" with a level the board plays."""
    if value is None or value == "person":
        return None if value is None else "person"
    parts = value.split(":") if isinstance(value, str) else []
    if len(parts) != 3 or parts[0] != "board" or parts[2] not in [c.value for c in Colour]:
        raise JournalDamageError(f"opponent {_shown(value)} is not person or board:LEVEL:COLOUR")
    try:
        parse_level(parts[1])
    except ConfigError:
        raise JournalDamageError(
            f"opponent {_shown(value)} plays no level this board has"
        ) from None
    assert isinstance(value, str)
    return value


def _flag(value: object, name: str) -> bool:
    if type(value) is not bool:
        raise JournalDamageError(f"{name} {_shown(value)} is not true or false")
    return value


def _base(value: object, turns: int) -> int:
    """How many of the turns a set-up game started from: 0 to all of them."""
    if type(value) is not int or not 0 <= value <= turns:
        raise JournalDamageError(f"base {_shown(value)} is not a number of turns (0 to {turns})")
    return value


def _origin(value: object) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not 0 < len(value) <= 64 or not value.isprintable():
        raise JournalDamageError(f"origin {_shown(value)} is not where a set-up came from")
    return value


ASKED = ("take-back", "draw")


def _ask(value: object, turns: int) -> SavedAsk | None:
    """An ask waiting: what, by which colour, after how many turns (at most two turns more
    than stand: a take-back since may have left fewer), and the colour of the player away."""
    if value is None:
        return None
    colours = [c.value for c in Colour]
    if not (isinstance(value, dict) and value.get("what") in ASKED
            and value.get("colour") in colours and value.get("away") in colours):  # fmt: skip
        raise JournalDamageError(f"ask {_shown(value)} is not an ask of black or white")
    number = value.get("number")
    if type(number) is not int or not 0 <= number <= turns + 2:
        raise JournalDamageError(f"ask number {_shown(number)} is not after a turn of the game")
    return SavedAsk(value["what"], Colour(value["colour"]), number, Colour(value["away"]))


def _undo_to(value: object, base: int, turns: int) -> int | None:
    """The turns an agreed take-back leaves: fewer than stand, none of a set-up's."""
    if value is None or (type(value) is int and base <= value < turns):
        return value
    raise JournalDamageError(f"undo_to {_shown(value)} is not {base} to {turns - 1} turns")


UNDO_STEPS = ("turning", "turned")


def _undo(value: object, has_turns: bool) -> str | None:
    """The step of a take-back under way: one of ``UNDO_STEPS``, and only with a turn to take."""
    if value is None:
        return None
    if value not in UNDO_STEPS:
        raise JournalDamageError(f"undo {_shown(value)} is not one of {', '.join(UNDO_STEPS)}")
    if not has_turns:
        raise JournalDamageError(f"undo {_shown(value)} with no turn to take back")
    assert isinstance(value, str)
    return value


def _touches(occupied: int, value: object, fits: bool) -> list[Touch]:
    """The lifts and puts of the turn in progress (or of a take-back's undoing), from the
    squares ``occupied`` at its start. The referee journals a lift only from an occupied
    square and a put only on an empty one, so after a committed turn they replay onto its
    position. (Not before one: a new game may start on a board not yet cleared.)"""
    if not isinstance(value, list):
        raise JournalDamageError(f"touches is {_shown(value)}, not a list")
    touches: list[Touch] = []
    for number, item in enumerate(value, 1):
        if not (
            isinstance(item, list)
            and len(item) == 2
            and item[0] in ("lift", "put")
            and isinstance(item[1], str)
            and is_square_name(item[1])
        ):
            raise JournalDamageError(
                f"touch {number} {_shown(item)} is not a lift or put of a square"
            )
        kind, name = item
        bit = BB_SQUARES[parse_square(name)]
        if fits and bool(occupied & bit) != (kind == "lift"):
            state = "empty" if kind == "lift" else "occupied"
            raise JournalDamageError(
                f"touch {number} ({kind} {name}) does not fit: {name} is {state}"
            )
        occupied ^= bit
        touches.append((kind, name))
    return touches


def parse_journal(raw: bytes) -> Saved:
    """The bytes of a journal as a saved game; JournalDamageError naming what is wrong with them."""
    if len(raw) > MAX_BYTES:
        raise JournalDamageError(f"{len(raw)} bytes, more than a journal holds ({MAX_BYTES})")
    try:
        text = raw.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        raise JournalDamageError(
            f"not UTF-8: byte {raw[exc.start]:#04x} at offset {exc.start}"
        ) from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise JournalDamageError(f"not JSON: {exc.msg} at offset {exc.pos}") from None
    except RecursionError:
        raise JournalDamageError("not JSON this program reads: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer of more digits than Python converts
        raise JournalDamageError(f"not JSON this program reads: {_short(str(exc))}") from None
    return Saved.from_json(data)


def _shown(value: object) -> str:
    """A value from the file as a message shows it: JSON, ASCII, short (the file may hold
    megabytes in one string, or bytes no terminal should print)."""
    if isinstance(value, str):
        return cut(json.dumps(value[: VALUE_LIMIT + 1]), VALUE_LIMIT)
    if value is None or isinstance(value, bool | int | float):
        return cut(json.dumps(value), VALUE_LIMIT)
    if isinstance(value, list):
        return "a list" if value else "[]"
    return "an object" if isinstance(value, dict) else type(value).__name__


def _short(text: str) -> str:
    """A message from the engine or a library, as a journal fault repeats it."""
    return cut(text.encode("ascii", "backslashreplace").decode("ascii"))


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


class Journal:
    NAME = "game.json"
    HISTORY = "games.jsonl"
    LOCK = ".lock"

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        """Lock the state directory (creating it): StateDirBusyError naming who holds it,
        JournalUnavailableError if it cannot be created or locked."""
        self.directory = Path(directory)
        self.path = self.directory / self.NAME
        self._accounted = False  # load() has read the file, found none, or moved it aside
        self._unlock = weakref.finalize(self, os.close, _lock(self.directory / self.LOCK))

    # --- the lock ---------------------------------------------------------------------
    def close(self) -> None:
        """Release the state directory's lock; the journal cannot be written after this."""
        self._unlock()  # a finalizer runs once: close() is idempotent

    @property
    def closed(self) -> bool:
        return not self._unlock.alive

    def __enter__(self) -> Journal:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # --- reading ----------------------------------------------------------------------
    def load(self) -> Saved | None:
        """The saved game, None if there is none. JournalError if it was damaged (it has
        been moved aside); JournalUnavailableError if it is damaged and cannot be moved."""
        self._check_open()
        try:
            raw = self._read()
            saved = None if raw is None else parse_journal(raw)
        except JournalDamageError as exc:
            self._set_aside(str(exc), exc.recovered)
        self._accounted = True
        return saved

    def _read(self) -> bytes | None:
        """The journal's bytes, None if there is no journal; JournalDamageError if what stands at
        its name cannot be read as a file."""
        try:
            os.lstat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:  # cannot even look: the directory is not searchable
            raise JournalUnavailableError(
                f"cannot read the journal {self.path}: {_why(exc)}; not starting over it"
            ) from None
        try:
            # Non-blocking: a FIFO standing at the journal's name must not hang the start.
            fd = os.open(self.path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
        except FileNotFoundError:
            raise JournalDamageError("a link to nothing") from None
        except OSError as exc:
            raise JournalDamageError(f"cannot be read: {_why(exc)}") from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise JournalDamageError(f"{_file_kind(info.st_mode)}, not a file")
            if info.st_size > MAX_BYTES:
                raise JournalDamageError(f"{info.st_size} bytes, more than a journal holds")
            return _read_all(fd)
        except OSError as exc:
            raise JournalDamageError(f"cannot be read: {_why(exc)}") from None
        finally:
            os.close(fd)

    def _set_aside(self, reason: str, recovered: Saved | None = None) -> NoReturn:
        try:
            kept = self._move_aside()
        except OSError as exc:
            raise JournalUnavailableError(
                f"the journal {self.path} is damaged ({reason}) and cannot be moved aside "
                f"({_why(exc)}): not starting over it; move it away by hand"
            ) from None
        self._accounted = True
        carry_on = ""
        if recovered is not None:
            count = len(recovered.turns)
            carry_on = f"; game {recovered.game} goes on from its {count} accepted turns"
        raise JournalError(
            f"the journal {self.path} is damaged ({reason}); kept as {kept}{carry_on}", recovered
        )

    def _move_aside(self) -> Path:
        """Rename the journal to the first free ``game.json.damaged-N``. Nothing else writes
        in the directory while we hold its lock, so the name is still free at the rename."""
        n = 1
        while os.path.lexists(kept := self.path.with_name(f"{self.NAME}.damaged-{n}")):
            n += 1
        os.rename(self.path, kept)
        return kept

    # --- writing ----------------------------------------------------------------------
    def save(self, saved: Saved) -> None:
        """Write ``saved`` atomically and durably; JournalUnavailableError if the journal
        on disk was never accounted for by load() or cannot be written."""
        self._check_open()
        if not self._accounted and os.path.lexists(self.path):
            raise JournalUnavailableError(
                f"will not write over the journal {self.path}: it was not read first"
            )
        text = json.dumps(saved.to_json(), separators=(",", ":"))
        try:
            self._write_atomic(self.path, text)
        except OSError as exc:
            raise JournalUnavailableError(
                f"cannot save the journal {self.path}: {_why(exc)}"
            ) from None
        self._accounted = True

    def add_to_history(self, saved: Saved, result: str | None) -> None:
        """Append a finished (or abandoned) game to the history, durably."""
        self._check_open()
        if not saved.turns:
            return
        line = json.dumps(
            {
                "game": saved.game,
                "first": saved.first.value,
                "moves": " ".join(saved.turns),
                "result": result,
                # a game set up from a record: its first turns were that record's
                **({"setup": saved.base} if saved.base else {}),
            }
        )
        history = self.directory / self.HISTORY
        if _last_line(history) == line.encode():
            return  # written just before a power cut: a game is kept once
        try:
            with open(history, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
                os.fsync(f.fileno())
        except OSError as exc:
            raise JournalUnavailableError(
                f"cannot add to the history {history}: {_why(exc)}"
            ) from None

    def _check_open(self) -> None:
        if self.closed:
            raise JournalUnavailableError(f"the journal {self.path} is closed (its lock is gone)")

    def _write_atomic(self, path: Path, text: str) -> None:
        tmp = path.with_name(path.name + ".tmp")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a fresh file: never write through whatever stands at the name
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            with open(fd, "w", encoding="utf-8") as f:
                f.write(text)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)  # a full disk gets its space back
            raise
        fd = os.open(self.directory, os.O_RDONLY)
        try:
            with contextlib.suppress(OSError):  # some filesystems refuse a directory fsync
                os.fsync(fd)
        finally:
            os.close(fd)


def _file_kind(mode: int) -> str:
    kinds = {stat.S_ISDIR: "a directory", stat.S_ISFIFO: "a FIFO", stat.S_ISSOCK: "a socket"}
    return next((name for test, name in kinds.items() if test(mode)), "a device")


def _read_all(fd: int) -> bytes:
    chunks: list[bytes] = []
    size = 0
    while chunk := os.read(fd, 1 << 16):
        chunks.append(chunk)
        size += len(chunk)
        if size > MAX_BYTES:  # the file grew since fstat
            raise JournalDamageError(f"more than {MAX_BYTES} bytes, more than a journal holds")
    return b"".join(chunks)


def _lock(path: Path) -> int:
    """An exclusive lock on the state directory, by an open lock file ``path`` in it."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except FileExistsError:  # mkdir found something that is not a directory
        raise JournalUnavailableError(
            f"cannot lock the state directory {path.parent}: it is not a directory"
        ) from None
    except OSError as exc:
        raise JournalUnavailableError(
            f"cannot lock the state directory {path.parent}: {_why(exc)}"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as exc:
        holder = _holder(fd)
        os.close(fd)
        if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            raise StateDirBusyError(
                f"the state directory {path.parent} is in use by another controller "
                f"({holder}); stop that one first"
            ) from None
        raise JournalUnavailableError(
            f"cannot lock the state directory {path.parent}: {_why(exc)}"
        ) from None
    with contextlib.suppress(OSError):  # the note only helps the next one say who holds it
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}: {_command()}\n".encode(errors="backslashreplace"), 0)
    return fd


def _command() -> str:
    """This process's command line, short: ``orbito-hw run ...``, ``python -m orbito_hw ...``."""
    if not sys.argv or not sys.argv[0]:
        return "python"
    program = Path(sys.argv[0])
    name = f"python -m {program.parent.name}" if program.name == "__main__.py" else program.name
    return cut(" ".join([name, *sys.argv[1:]]))


def _holder(fd: int) -> str:
    """Who holds the lock, as its holder wrote it: one line, bounded."""
    try:
        note = os.pread(fd, 256, 0).decode("utf-8", errors="replace").split("\n")[0]
    except OSError:
        note = ""
    note = "".join(c if c.isprintable() else "?" for c in note).strip()
    return cut(note) or "pid unknown"


def _last_line(path: Path) -> bytes | None:
    """The last line of the history (its tail is enough), None if there is none."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            f.seek(max(0, f.tell() - 4096))
            tail = f.read()
    except OSError:
        return None
    lines = tail.rstrip(b"\n").rsplit(b"\n", 1)
    return lines[-1] if tail else None
