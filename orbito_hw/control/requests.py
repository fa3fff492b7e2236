"""A set-up asked for from outside the controller: ``orbito-hw games resume``, ``puzzles
play``, the page's button and the simulated board's ``--resume`` and ``--puzzle`` leave a
request file in the state directory; the controller takes it (``Desk``) at every start,
whenever the directory's watch says one may have come (app/inbox.py), and, when that moment
finds the rings turning, as soon as the referee is next free.

Why a file: the command line and the service share nothing but the state directory (the
service holds its lock, and may run as its own user with the page switched off). Nothing in
it is trusted (issue 34): only a regular file of this controller's user or root, at most
``MAX_BYTES``, is read, without ever blocking (request_file.py), then decoded strictly and
its record replayed through the engine. Anything else is moved aside to
``setup-request.json.damaged-N`` (never deleted) and named in a fault the players hear of.

The writers and the taker (issue 34, "a channel that cannot lose or wedge"):

- A writer writes its own temporary file (a unique name: any number of writers at once) with
  a ``ticket`` of its own, fsyncs it, and renames it into place atomically
  (request_file.place). The last complete request wins; a writer whose rename displaced a
  request not yet taken knows which one (``Left.replaced``) and says so.
- The controller claims a request by renaming it to ``setup-request.json.taking`` before it
  reads it: a request renamed into place after the claim stays for the next look, never
  removed unread. Once read, its ticket goes into the receipt (``setup-request.taken``, the
  last ``RECEIPTS`` tickets), then the claimed file is removed, then the position is set up:
  a power cut in between loses the request (ask again) but never sets a game up twice.
- A writer, once its request is in place and while it still holds the file open (so its
  inode cannot be reused), looks where its request is: at the request's name, claimed, or in
  the receipt, it stands (``Left.stands``); none of them, a later writer superseded it. The
  claim and the receipt come in that order, and the writer looks in that order, so a request
  taken meanwhile is never missed.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.control.events import Event, Fault
from orbito_hw.control.guard import cut
from orbito_hw.control.journal import Saved
from orbito_hw.control.request_file import (
    REPLACED,
    UnfitRequestError,
    place,
    read_regular,
    set_aside,
    sync_directory,
)
from orbito_hw.control.setup import SetupError, check_record
from orbito_hw.errors import OrbitoError, echo
from orbito_hw.lang import R_, _, reworded
from orbito_hw.rules.game import Colour

log = logging.getLogger(__name__)

NAME: Final = "setup-request.json"
TAKING: Final = NAME + ".taking"
"""The request the controller has claimed and is reading."""
TAKEN: Final = "setup-request.taken"
"""The receipt: the tickets of the requests taken last, for their writers to look up."""
RECEIPTS: Final = 64
RECEIPT_TRIES: Final = 20
POLL: Final = 2.0
"""Seconds between two looks for a request on a running board without inotify."""
MAX_BYTES: Final = 64 * 1024  # a record holds at most 21 turns: anything larger is not ours
TICKET: Final = re.compile(r"[0-9a-f]{16}")


class RequestError(OrbitoError, ValueError):
    """A request file that is not one (it has been moved aside): one line saying why."""


@dataclass(frozen=True)
class SetupRequest:
    """Set up the position ``moves`` reaches (``first`` to move first); ``origin`` says where
    it came from, as the journal and the archive keep it ("archive:ID:N", "journal");
    ``ticket``: the writer's own mark, looked up in the receipt (None in a request written
    by hand)."""

    first: Colour
    moves: tuple[str, ...]
    origin: str | None = None
    again: bool = False  # set the journal's own game up again (moves ignored)
    ticket: str | None = field(default=None, compare=False)

    def to_json(self) -> dict[str, object]:
        head: dict[str, object] = {"ticket": self.ticket} if self.ticket else {}
        if self.again:
            return {"again": True, **head}
        return {"first": self.first.value, "moves": " ".join(self.moves),
                "origin": self.origin, **head}  # fmt: skip

    def asked(self) -> str:
        """What it asks for, in words: "game 3 after turn 5", "puzzle 3WBAFZ15ZCZ7"; English
        data (the JSON's ``replaced``), marked R_ for lang.reworded where a person reads it."""
        origin = self.origin or ""
        if self.again:
            return R_("the game on the board, again")
        if found := re.fullmatch(r"archive:(\d{1,12}):(\d{1,3})", origin):
            return R_("game {game} after turn {turn}").format(game=found[1], turn=found[2])
        if found := re.fullmatch(r"puzzle:([0-9A-Z]{1,24})", origin):
            return R_("puzzle {puzzle}").format(puzzle=found[1])
        if origin:
            text = R_("a position of {n} turns ({origin})")
            return text.format(n=len(self.moves), origin=echo(origin))
        return R_("a position of {n} turns").format(n=len(self.moves))


# --- the writer's side ---------------------------------------------------------------------
@dataclass(frozen=True)
class Left:
    """A request left in the state directory, as its writer saw it just after."""

    path: Path
    ticket: str
    stands: bool  # waiting to be taken, or taken: not superseded by a later request
    replaced: SetupRequest | None = None  # the request not yet taken that this one displaced
    aside: str | None = None  # what was at the request's path that was no request, where it went

    def in_place_of(self) -> str | None:
        """What this request took the place of, in words; None if nothing."""
        if self.replaced is not None:
            text = R_("{request}, asked for earlier and not taken yet")
            return text.format(request=self.replaced.asked())
        return self.aside

    def note(self) -> str:
        """``in_place_of`` as the writer's message adds it ("" if nothing), in the language
        spoken now."""
        replaced = self.in_place_of()
        if not replaced:
            return ""
        return " (" + _("in place of {request}").format(request=reworded(replaced)) + ")"


def write_request(directory: str | os.PathLike[str], request: SetupRequest) -> Left:
    """The request, atomically and durably, in ``directory``, with a ticket of its own, and
    where it stands; OSError if it cannot be left there."""
    folder = Path(directory)
    path = folder / NAME
    ticket = secrets.token_hex(8)
    tmp = folder / f"{NAME}.tmp-{os.getpid()}-{ticket}"
    data = (json.dumps({**request.to_json(), "ticket": ticket}) + "\n").encode()
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(tmp, flags, 0o644)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            os.fsync(fd)
            displaced = place(tmp, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)  # still ours: nothing was placed
            raise
        sync_directory(folder)
        replaced, aside = _displaced(tmp, path) if displaced else (None, None)
        return Left(path, ticket, _stands(fd, folder, ticket), replaced, aside)
    finally:
        os.close(fd)  # held until now: our inode cannot be another file's while we look


def _displaced(tmp: Path, path: Path) -> tuple[SetupRequest | None, str | None]:
    """What our rename displaced, now at our temporary name: a request superseded (removed:
    it is whole, and its taking is what we ask for instead), or what was no request (moved
    aside, never deleted)."""
    try:
        superseded = parse_request(read_regular(tmp, MAX_BYTES))
    except (UnfitRequestError, ValueError) as exc:
        why = cut(str(exc), 80)
        try:
            kept = set_aside(tmp, path)
        except OSError as error:
            return None, f"something that was no set-up request ({why}), left as {tmp}: {error}"
        text = R_("something that was no set-up request ({reason}), moved aside to {path}")
        return None, text.format(reason=why, path=kept)
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    return superseded, None


def _stands(fd: int, folder: Path, ticket: str) -> bool:
    """Whether our request is at its name, claimed, or in the receipt, looked at in the
    order the controller moves it: a request on its way is seen at one of them."""
    mine = os.fstat(fd)
    for name in (NAME, TAKING):
        with contextlib.suppress(OSError):
            there = os.lstat(folder / name)
            if (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino):
                return True
    return ticket in receipt(folder)


def receipt(folder: Path) -> list[str]:
    """The tickets of the requests taken last (none if the receipt cannot be read)."""
    data: object = None
    for _try in range(RECEIPT_TRIES):  # the controller may replace it as we read it: again
        try:
            data = json.loads(read_regular(folder / TAKEN, MAX_BYTES).decode("utf-8"))
        except UnfitRequestError as exc:
            if str(exc) == REPLACED:
                continue
        except ValueError:
            pass
        break
    tickets = data.get("taken") if isinstance(data, dict) else None
    return [t for t in tickets if isinstance(t, str)] if isinstance(tickets, list) else []


# --- the controller's side -----------------------------------------------------------------
def owners() -> tuple[int, ...]:
    """Whose request the controller reads: its own user's, and root's."""
    return (os.geteuid(), 0)


def take_request(directory: str | os.PathLike[str]) -> SetupRequest | None:
    """The request waiting in ``directory``, removed from it; None if there is none.
    RequestError (the file moved aside) for one that is not a request."""
    folder = Path(directory)
    path, taking = folder / NAME, folder / TAKING
    try:
        if os.path.lexists(taking) and os.path.lexists(path):
            text = _("a set-up request claimed before a restart is superseded by {path}")
            log.warning("%s", text.format(path=path))
        os.rename(path, taking)  # the claim: a request renamed in from now on waits its turn
    except FileNotFoundError:
        if not os.path.lexists(taking):  # none, nor one claimed before a power cut
            return None
    except OSError as exc:
        raise RequestError(f"cannot take the set-up request {path}: {_why(exc)}") from None
    try:
        request = parse_request(read_regular(taking, MAX_BYTES, owners()))
    except (UnfitRequestError, ValueError) as exc:
        raise RequestError(_moved_aside(path, taking, cut(str(exc)))) from None
    if request.ticket is not None:
        _receive(folder, request.ticket)
    try:
        os.unlink(taking)  # before the set-up: never set up twice
    except FileNotFoundError:
        pass
    except OSError as exc:
        raise RequestError(f"the set-up request {path} cannot be removed once read "
                           f"({_why(exc)}): not set up, so that it is never set up twice") \
            from None  # fmt: skip
    return request


def _moved_aside(path: Path, taking: Path, why: str) -> str:
    """The claimed file set aside; the fault's reason, naming where it went."""
    try:
        kept = set_aside(taking, path)
    except OSError as exc:
        return (f"the set-up request {path} was ignored: {why}, and cannot be moved aside "
                f"({_why(exc)}): move {taking} away by hand")  # fmt: skip
    return f"the set-up request {path} was ignored: {why}; kept as {kept}"


def _receive(folder: Path, ticket: str) -> None:
    """``ticket`` into the receipt, atomically (only the controller, which holds the
    directory's lock, writes it). Not durable: its readers are writers waiting now."""
    tickets = [*receipt(folder), ticket][-RECEIPTS:]
    tmp = folder / f"{TAKEN}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                     0o644)  # fmt: skip
        with open(fd, "w", encoding="utf-8") as file:
            file.write(json.dumps({"taken": tickets}) + "\n")
        os.replace(tmp, folder / TAKEN)
    except OSError as exc:  # its writer may be told "superseded": the set-up goes on
        text = _("cannot write the set-up requests' receipt {path}: {reason}")
        log.warning("%s", text.format(path=folder / TAKEN, reason=_why(exc)))
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc)


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
    found = data.get("ticket")  # a writer's own mark; one that is not ours is no ticket
    ticket = found if isinstance(found, str) and TICKET.fullmatch(found) else None
    if data.get("again") is True:
        return SetupRequest(Colour.BLACK, (), "journal", again=True, ticket=ticket)
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
    return SetupRequest(Colour(first), tokens, origin, ticket=ticket)


class Settling(Protocol):
    """The referee's guard as the desk sees it: what runs once the referee is done."""

    afterwards: list[Callable[[], None]]


class Asks(Protocol):
    """The referee as a request sees it."""

    saved: Saved

    @property
    def guard(self) -> Settling: ...

    @property
    def busy(self) -> bool: ...

    @property
    def healthy(self) -> bool: ...

    def set_up(
        self, first: Colour, tokens: list[str], next_game: bool | None = None,
        origin: str | None = None,
    ) -> None: ...  # fmt: skip

    def set_up_again(self) -> None: ...

    def tell(self, event: Event) -> None: ...


def serve_request(
    referee: Asks, directory: str | os.PathLike[str], tell: Callable[[str], None] | None = None
) -> bool:
    """Take the request waiting in ``directory`` and set it up; whether there was one. A bad
    one is a fault the players hear of (``tell``, by default the referee's fault event; it is
    moved aside): play goes on as it was. Not while the rings turn or home: the request waits
    (``Desk`` looks again when they stop)."""
    if referee.busy:
        return False
    try:
        request = take_request(directory)
    except RequestError as exc:
        if tell is None:
            referee.tell(Fault(referee.saved.game, str(exc)))
        else:
            tell(str(exc))
        return False
    if request is None:
        return False
    if request.again:
        referee.set_up_again()
    else:
        referee.set_up(request.first, list(request.moves), None, request.origin)
    return True


class Desk:
    """The controller's side of the channel: ``look`` takes a request now, or, while the
    referee is busy, as soon as it is free (the guard's ``afterwards``: after the guarded
    call that ends the ring move, the homing or the take-back). No timer: an idle board never
    wakes for it."""

    def __init__(self, referee: Asks, directory: str | os.PathLike[str]) -> None:
        self.referee = referee
        self.directory = Path(directory)
        self.wanted = False  # a look was put off while the referee was busy
        self._told = ""  # the last fault told: a file that cannot be moved is told once

    @classmethod
    def attach(cls, referee: Asks, directory: str | os.PathLike[str]) -> Desk:
        """A desk on ``referee`` (started from its journal), looking at once: a request left
        while no controller ran is taken at this start, once the rings have homed."""
        desk = cls(referee, directory)
        referee.guard.afterwards.append(desk._settled)
        desk.look()
        return desk

    def look(self) -> None:
        """Take a request if there is one and set it up. Called at the start, by the
        directory's watch (a request may have come, or the watch overflowed) and when the
        referee is next free."""
        if not self.referee.healthy:
            return  # stopped after an internal error: the restart looks
        if self.referee.busy:
            if not self.wanted:
                log.debug("a set-up request is looked for while the rings turn: once they stop")
            self.wanted = True
            return
        self.wanted = False
        if serve_request(self.referee, self.directory, self._fault):
            self._told = ""

    def _fault(self, reason: str) -> None:
        """A request refused, told unless it is the one told last (a file that cannot be
        moved aside is found again at every look)."""
        if reason != self._told:
            self._told = reason
            self.referee.tell(Fault(self.referee.saved.game, reason))

    def _settled(self) -> None:
        if self.wanted and not self.referee.busy:
            self.look()
