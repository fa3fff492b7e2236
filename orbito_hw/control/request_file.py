"""The set-up request's file as the file system sees it (issue 34): placed without a tear,
read without a wedge, and set aside, never deleted, when it is not one.

The state directory is shared with whoever may write there, so the request's path may hold
anything: a FIFO (a blocking ``open()`` waits for a writer that never comes, and the
controller's loop with it), a symbolic link, a directory, a socket, a device, a file of
gigabytes or another user's file. ``read_regular`` opens only a regular file, checked by
``lstat`` before the open and ``fstat`` after it (the same inode), with ``O_NONBLOCK`` and
``O_NOFOLLOW``, and reads at most ``limit`` bytes; anything else is ``UnfitRequestError``,
saying what it was.

Two writers at once must not tear each other: each writes its own temporary file and renames
it into place. Linux's ``renameat2`` does it with ``RENAME_EXCHANGE`` when something is
already there (what it displaced comes back under the writer's temporary name, so the writer
knows exactly which request it superseded) and ``RENAME_NOREPLACE`` when nothing is (so a
request that arrived in between is never overwritten unseen). Where the kernel or the file
system has no ``renameat2``, ``os.replace`` does: still atomic, but the request replaced is
not known.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Collection
from pathlib import Path
from typing import Final

from orbito_hw.aside import (
    RENAME_EXCHANGE,
    RENAME_NOREPLACE,
    UNSUPPORTED,
    rename2,
)
from orbito_hw.aside import set_aside as set_aside  # requests.py's, from here as before
from orbito_hw.errors import OrbitoError

PLACE_TRIES: Final = 64
"""Exchanges and no-replace renames tried, when writers keep racing in between, before
a writer gives up (each try is a few microseconds: a race that long is no race)."""
REPLACED: Final = "replaced while it was being read"
KINDS: Final = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


class UnfitRequestError(OrbitoError, ValueError):
    """What is at a request's path is not a request's file: why, in a few words."""


def kind(mode: int) -> str:
    """What a file of ``mode`` is, as a message names it ("a FIFO")."""
    return next((name for test, name in KINDS if test(mode)), "not a regular file")


def _unfit(st: os.stat_result, owners: Collection[int] | None, limit: int) -> str | None:
    if not stat.S_ISREG(st.st_mode):
        return f"not a regular file ({kind(st.st_mode)})"
    if owners is not None and st.st_uid not in owners:
        return f"owned by uid {st.st_uid}, not by this controller's user or root"
    if st.st_size > limit:
        return f"larger than {limit} bytes ({st.st_size} bytes)"
    return None


def read_regular(path: Path, limit: int, owners: Collection[int] | None = None) -> bytes:
    """The bytes of the regular file at ``path`` (at most ``limit``; owned by one of
    ``owners`` unless None), read without ever blocking; UnfitRequestError saying why not."""
    try:
        before = os.lstat(path)
    except OSError as exc:
        raise UnfitRequestError(f"cannot be looked at: {exc.strerror or exc}") from None
    if problem := _unfit(before, owners, limit):
        raise UnfitRequestError(problem)
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NOCTTY
    try:
        fd = os.open(path, flags)
    except OSError as exc:  # ELOOP: a symbolic link put there since the lstat
        raise UnfitRequestError(f"cannot be opened: {exc.strerror or exc}") from None
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (before.st_dev, before.st_ino):
            raise UnfitRequestError(REPLACED)
        if problem := _unfit(now, owners, limit):
            raise UnfitRequestError(problem)
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise UnfitRequestError(f"cannot be read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > limit:  # it grew after the fstat
        raise UnfitRequestError(f"larger than {limit} bytes")
    return b"".join(chunks)


# --- renames -------------------------------------------------------------------------------
# ``renameat2`` and setting a damaged file aside live at the bottom (orbito_hw/aside.py):
# the archive and hw set their damaged files aside the same way, and may not import control.


def place(source: Path, target: Path) -> bool:
    """Rename ``source`` to ``target`` atomically, whatever is at ``target`` (a directory
    included); whether something was displaced, which is then at ``source``. OSError if it
    cannot be done."""
    for _ in range(PLACE_TRIES):
        # Exchange with what is there; else (nothing was there) take the place, unless a
        # writer has just taken it: then round again. Each try fails only by the race it
        # expects; a kernel or file system without renameat2 gets a plain rename.
        for flag, raced in ((RENAME_EXCHANGE, errno.ENOENT), (RENAME_NOREPLACE, errno.EEXIST)):
            try:
                rename2(source, target, flag)
                return flag == RENAME_EXCHANGE
            except OSError as exc:
                if exc.errno in UNSUPPORTED:
                    os.replace(source, target)
                    return False
                if exc.errno != raced:
                    raise
    raise OSError(errno.EAGAIN, "other writers kept taking the place", str(target))


def sync_directory(directory: Path) -> None:
    """The directory's entries on disk (a rename in it made durable); best effort: some
    file systems cannot fsync a directory."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
