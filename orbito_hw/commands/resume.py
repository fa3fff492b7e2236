"""``games resume ID [--at N]``: a game of the archive set up on the board again, to play on.

The command and the board's service share only the state directory (the service holds its
lock and may run as its own user): the command writes a set-up request there
(``control/requests.py``), once everything that could refuse it has been checked, which the
controller takes at its start and, while it runs, at once (or when the rings stop). The
command says whether its request stands: a later request written at the same moment may
supersede it (exit 1), and one that supersedes an earlier request not yet taken says so.
``games resume current`` asks for the game on the board to be set up again where its journal
has it (a board knocked over). ``run --mock --resume ID[@N]`` leaves the same request once
the simulated controller holds the state directory.
"""

from __future__ import annotations

import argparse
import fcntl
import os
from pathlib import Path

from orbito_hw.commands import UsageError, emit, fail
from orbito_hw.control.requests import Left, SetupRequest, write_request
from orbito_hw.errors import echo
from orbito_hw.lang import _, reworded, system_reason
from orbito_hw.rules.game import Colour


def resume_request(directory: Path, game_id: str, at: str | None) -> tuple[SetupRequest, int]:
    """The request setting game ``game_id`` of the archive in ``directory`` up after its turn
    ``at`` (all its standing turns by default), and that turn's number; UsageError (or the
    archive's ArchiveError) saying why it cannot be."""
    from orbito_hw.archive.store import GAME_ID_DIGITS, Archive, NoSuchGameError, damage_told
    from orbito_hw.control.setup import SetupError, check_record

    if not game_id.isascii() or not game_id.isdigit():
        text = _("game id {id} is not a number (see `orbito-hw games list`)")
        raise UsageError(text.format(id=echo(game_id)))
    with Archive.read(directory) as archive, damage_told(archive.path):
        game = archive.game(int(game_id)) if len(game_id.lstrip("0")) <= GAME_ID_DIGITS else None
        if game is None:  # digits only: "0" and "0009" named as the numbers they are
            number = game_id.lstrip("0") or "0"
            shown = number if len(number) <= 24 else f"{number[:24]}... ({len(number)} digits)"
            text = _("no game {game} in the archive {path}")
            raise NoSuchGameError(text.format(game=shown, path=archive.path))
        moves = [t.turn for t in archive.turns(game.id)]
    if at is None:
        turn = len(moves)
    elif at.isascii() and at.isdigit() and len(at) <= 3 and int(at) <= len(moves):
        turn = int(at)
    else:
        text = _(
            "--at {at} is not a turn of game {game} (0 to {last}: the position after that turn)"
        )
        raise UsageError(text.format(at=echo(at), game=game.id, last=len(moves)))
    try:
        check_record(Colour(game.first), moves[:turn])
    except SetupError as exc:
        reason = reworded(str(exc))
        if "over" in str(exc) and turn:
            text = _(
                "game {game} cannot be set up after turn {turn}: {reason} (--at {at} or before)"
            )
        else:
            text = _("game {game} cannot be set up after turn {turn}: {reason}")
        raise UsageError(text.format(game=game.id, turn=turn, reason=reason, at=turn - 1)) from None
    return SetupRequest(Colour(game.first), tuple(moves[:turn]), f"archive:{game.id}:{turn}"), turn


def controller_on(directory: Path) -> str | None:
    """Who holds the state directory's lock (a controller runs on it), None if nobody does."""
    try:
        fd = os.open(directory / ".lock", os.O_RDONLY)
    except OSError:
        return None  # no lock file: no controller ever ran here
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        note = os.pread(fd, 256, 0).decode("utf-8", "replace").split("\n")[0].strip()
        return "".join(c if c.isprintable() else "?" for c in note)[:80] or "pid unknown"
    finally:
        os.close(fd)  # a lock we got goes with the descriptor
    return None


def leave_request(directory: Path, request: SetupRequest) -> tuple[Left, str | None]:
    """``request`` left in ``directory`` (UsageError, one line, if it cannot be), and who runs
    a controller there to take it (``controller_on``)."""
    try:
        directory.mkdir(parents=True, exist_ok=True)  # a new --state-dir: a board not yet run
        left = write_request(directory, request)
    except OSError as exc:
        text = _("cannot leave the set-up request in {path}: {reason}")
        raise UsageError(text.format(path=directory, reason=system_reason(exc))) from None
    return left, controller_on(directory)


def superseded(left: Left, what: str, json_out: dict[str, object] | None = None) -> int:
    """0 if the request ``left`` stands; else (a later request took its place before the
    board took it) the JSON printed, or the one line said, and 1."""
    if left.stands:
        return 0
    if json_out is not None:
        emit(json_out)
        return 1
    text = _("a later set-up request took the place of this one before the board took it: "
             "{request} is not set up (ask again)")  # fmt: skip
    fail(text.format(request=reworded(what)), status=1)


def cmd_resume(args: argparse.Namespace, directory: Path) -> int:
    """``games resume``, for the archive in ``directory`` (``games``' --state-dir)."""
    from orbito_hw.rules.game import replay

    if args.id == "current":
        if args.at is not None:
            raise UsageError(_("--at goes with an archived game's ID, not with current"))
        request, turn = SetupRequest(Colour.BLACK, (), "journal", again=True), -1
    else:
        request, turn = resume_request(directory, args.id, args.at)
    left, holder = leave_request(directory, request)
    what = request.asked()
    if args.json:
        out: dict[str, object] = {
            "request": str(left.path), "running": holder is not None, "stands": left.stands,
            "replaced": left.in_place_of(),
        }  # fmt: skip
        if not request.again:
            position = replay(request.first, list(request.moves))
            out |= {"id": int(args.id), "at": turn, "first": request.first.value,
                    "moves": " ".join(request.moves), "board": position.board(),
                    "to_move": position.to_move.value}  # fmt: skip
        if superseded(left, what, out):
            return 1
        emit(out)
        return 0
    superseded(left, what)
    said, note = reworded(what), left.note()
    if holder is not None:
        text = _("asked the board ({holder}) to set up {request}{note}: follow its LEDs")
        print(text.format(holder=holder, request=said, note=note))
    else:
        text = _("no controller runs on {path} now: it sets up {request} when it starts{note}")
        print(text.format(path=directory, request=said, note=note))
    return 0
