"""This board's own id on a broker: made once per install and kept in the state directory.

The id names the board in its hello (``"board"`` of its ``online`` and ``record``) and makes
its MQTT client id. It used to be the host's name and the colour, so a second board on the
same colour and host name (every Pi left as ``raspberrypi``, two ``--mock`` runs on one
machine) had the same client id: the broker handed it the first board's session, and it
took that board's seat as its own. Made once here from the host's name and a random part,
the id is the install's own; the host's name is only there to make it readable in a log.

``board-id`` holds it on one line, written atomically. A file that is not one id (a cut
mid-write on a file system that lost it, a hand's edit) is moved aside to the first free
``board-id.damaged-N``, never deleted, and a new id is made and said.
"""

from __future__ import annotations

import errno
import os
import secrets
import socket
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from orbito_hw.errors import echo
from orbito_hw.hw.calibration_file import move_aside
from orbito_hw.hw.files import write_durably
from orbito_hw.remote.protocol import NAME
from orbito_hw.rules.game import Colour

ID_FILE: Final = "board-id"
MAX_BYTES: Final = 256  # an id is at most 64 characters: more is not one
HOST_CHARS: Final = 40  # of the host's name in a new id, with "-" and RANDOM_HEX after it
RANDOM_HEX: Final = 12  # 48 random bits: two installs never draw the same


@dataclass(frozen=True, slots=True)
class OwnId:
    """This install's id, and what a person should hear about it ("": nothing)."""

    board_id: str
    warning: str = ""


def _host() -> str:
    """The host's name in the characters an id may hold."""
    return "".join(c if c.isalnum() or c in "._-" else "-" for c in socket.gethostname())


def host_name() -> str:
    """The host's name as a new id begins ("board" when nothing of it is usable)."""
    return _host().strip(".-_")[:HOST_CHARS].strip(".-_") or "board"


def new_board_id() -> str:
    return f"{host_name()}-{secrets.token_hex(RANDOM_HEX // 2)}"


def host_colour_id(plays: Colour) -> str:
    """The id a board had before it had its own: the host's name and the colour. Only a
    game begun then (remote.json keeps no id of it) goes on under it: made exactly as it
    was, so that the other board knows it."""
    return f"{_host().strip('.-_')[:50] or 'board'}-{plays}"


def own_board_id(state_dir: Path) -> OwnId:
    """The id kept in ``state_dir``; a new one, kept there, when there is none or the file
    is damaged (moved aside, the warning says where). A directory that cannot keep it
    gives an id for this run only, said too: the board still plays, as itself."""
    path = state_dir / ID_FILE
    try:
        with path.open("rb") as file:
            data = file.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return _made(path, "")
    except OSError as exc:
        return _made(path, f"cannot read {path} ({exc.strerror or exc})")
    problem = _problem(data)
    if problem is None:
        return OwnId(data.decode("ascii").removesuffix("\n"))
    try:
        kept = f"kept as {move_aside(path)}"
    except OSError as exc:  # then it is not written over either: _made cannot replace it
        kept = f"and cannot be moved aside ({exc.strerror or exc})"
    return _made(path, f"this board's id file {path} is damaged ({problem}); {kept}")


def _problem(data: bytes) -> str | None:
    """What makes the file's bytes not one id on one line (None: they are one)."""
    if len(data) > MAX_BYTES:
        return f"more than {MAX_BYTES} bytes"
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError as exc:
        return f"not an id: byte {exc.start} is not ASCII"
    line = text.removesuffix("\n")
    if not NAME.fullmatch(line):
        return f"{echo(line)} is not an id" if line else "empty"
    return None


def _made(path: Path, why: str) -> OwnId:
    """A new id, kept at ``path``; ``why`` the old one is not used (the warning), if any."""
    board_id = new_board_id()
    try:
        _write(path, board_id)
    except OSError as exc:
        # The board still plays, as itself, this run; said, so that the directory is mended
        # (after a restart it would be another board to the broker).
        lost = (
            f"cannot keep this board's id in {path} ({exc.strerror or exc}): "
            f"{board_id} for this run only"
        )
        return OwnId(board_id, f"{why}; {lost}" if why else lost)
    return OwnId(board_id, f"{why}; this board is now {board_id}" if why else "")


def _write(path: Path, board_id: str) -> None:
    """Atomically and durably, never through a file that stands at the name: a temporary
    file of its own, synced, renamed over; only a missing or moved-aside id is replaced."""
    if os.path.lexists(path):  # damaged, and could not be moved aside: left as it is
        raise FileExistsError(errno.EEXIST, "something stands at the name that was not moved aside")
    write_durably(path, board_id + "\n", encoding="ascii")
