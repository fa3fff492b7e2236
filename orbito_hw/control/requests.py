"""A set-up asked for from outside the controller: ``orbito-hw games resume`` (and the
simulated board's ``--resume``) writes a request file into the state directory; the
controller takes it at its start and, on a real board, as soon as it is written while it
runs (app/inbox.py: told by the kernel's inotify; every ``POLL`` seconds without it).

Why a file: the command line and the service share nothing but the state directory (the
service holds its lock, and may run as its own user with the page switched off). The file
is written atomically (a temporary file, fsync, rename), so the controller reads a whole
request or none; it is removed before the set-up begins, so a power cut in between loses
the request (ask again) but never sets a game up twice. Like the journal, nothing in it is
trusted: it is read as bytes, decoded strictly and its record replayed through the engine.
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.control.events import Event, Fault
from orbito_hw.control.guard import cut
from orbito_hw.control.journal import Saved
from orbito_hw.control.setup import SetupError, check_record
from orbito_hw.errors import OrbitoError
from orbito_hw.rules.game import Colour

NAME: Final = "setup-request.json"
POLL: Final = 2.0
"""Seconds between two looks for a request on a running board without inotify."""
MAX_BYTES: Final = 64 * 1024  # a record holds at most 21 turns: anything larger is not ours


class RequestError(OrbitoError, ValueError):
    """A request file that is not one (it has been removed): one line saying why."""


@dataclass(frozen=True)
class SetupRequest:
    """Set up the position ``moves`` reaches (``first`` to move first); ``origin`` says where
    it came from, as the journal and the archive keep it ("archive:ID:N", "journal")."""

    first: Colour
    moves: tuple[str, ...]
    origin: str | None = None
    again: bool = False  # set the journal's own game up again (moves ignored)

    def to_json(self) -> dict[str, object]:
        if self.again:
            return {"again": True}
        return {"first": self.first.value, "moves": " ".join(self.moves), "origin": self.origin}


def write_request(directory: str | os.PathLike[str], request: SetupRequest) -> Path:
    """The request, atomically and durably, in ``directory``; OSError if it cannot be."""
    path = Path(directory) / NAME
    tmp = path.with_name(NAME + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with open(fd, "w", encoding="utf-8") as f:
            f.write(json.dumps(request.to_json()) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path


def take_request(directory: str | os.PathLike[str]) -> SetupRequest | None:
    """The request waiting in ``directory``, removed from it; None if there is none.
    RequestError (the file removed all the same) for one that is not a request."""
    path = Path(directory) / NAME
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise RequestError(f"cannot read the set-up request {path}: {exc.strerror}") from None
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)  # taken, whatever it holds: a bad one is not read again and again
    try:
        return parse_request(raw)
    except ValueError as exc:
        raise RequestError(f"the set-up request {path} was ignored: {exc}") from None


def parse_request(raw: bytes) -> SetupRequest:
    """A request's bytes; ValueError saying what is wrong with them."""
    if len(raw) > MAX_BYTES:
        raise ValueError(f"more than {MAX_BYTES} bytes")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, RecursionError, ValueError):
        raise ValueError("not a JSON object of UTF-8 text") from None
    if not isinstance(data, dict):
        raise ValueError("not a JSON object")
    if data.get("again") is True:
        return SetupRequest(Colour.BLACK, (), "journal", again=True)
    first, moves, origin = data.get("first"), data.get("moves"), data.get("origin")
    if first not in ("black", "white"):
        raise ValueError("first is not black or white")
    if not isinstance(moves, str):
        raise ValueError("moves is not a game record")
    if origin is not None and not (isinstance(origin, str) and 0 < len(origin) <= 64):
        raise ValueError("origin is not where the set-up came from")
    if isinstance(origin, str) and not origin.isprintable():
        raise ValueError("origin is not where the set-up came from")
    tokens = tuple(moves.split())
    try:
        check_record(Colour(first), tokens)
    except SetupError as exc:
        raise ValueError(cut(str(exc))) from None
    return SetupRequest(Colour(first), tokens, origin)


class Asks(Protocol):
    """The referee as a request sees it."""

    saved: Saved

    @property
    def busy(self) -> bool: ...

    def set_up(
        self, first: Colour, tokens: list[str], next_game: bool | None = None,
        origin: str | None = None,
    ) -> None: ...  # fmt: skip

    def set_up_again(self) -> None: ...

    def tell(self, event: Event) -> None: ...


def serve_request(referee: Asks, directory: str | os.PathLike[str]) -> bool:
    """Take the request waiting in ``directory`` and set it up; whether there was one. A bad
    one is a fault the players hear of (and is gone): play goes on as it was. Not while the
    rings turn or home (the request waits for the next look)."""
    if referee.busy:
        return False
    try:
        request = take_request(directory)
    except RequestError as exc:
        referee.tell(Fault(referee.saved.game, str(exc)))
        return False
    if request is None:
        return False
    if request.again:
        referee.set_up_again()
    else:
        referee.set_up(request.first, list(request.moves), None, request.origin)
    return True
