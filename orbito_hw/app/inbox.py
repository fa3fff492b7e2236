"""The state directory's set-up requests (control/requests.py), taken as they come on a
running board.

The kernel's inotify says when a file is renamed into the directory or closed after a
write there: the request is written to a temporary file and renamed, so its name arriving is
the moment to read it. The descriptor sits on the controller's loop, so an idle board never
wakes to look (it looked every 2 s, the one timer left on a waiting board besides the
watchdog). Where inotify is missing (not Linux, a file system without it, the kernel's
limit of watches reached) the directory is looked at every ``POLL`` seconds instead, said
once in the log.

The kernel's queue of events is bounded (``fs.inotify.max_queued_events``): a board stopped
while thousands of files are written in the directory comes back to one ``IN_Q_OVERFLOW``,
which names no file, in place of the request's own event. An overflow is a look
(``wanted``), whatever else was lost. What the watch says is only ever a reason to look: the
controller also looks at every start and whenever the referee is next free
(control/requests.py's ``Desk``).
"""

from __future__ import annotations

import asyncio
import ctypes
import ctypes.util
import logging
import os
import struct
from collections.abc import Callable
from pathlib import Path
from typing import Final

from orbito_hw.control.requests import NAME, POLL
from orbito_hw.lang import _

log = logging.getLogger(__name__)

IN_CLOSE_WRITE: Final = 0x00000008
IN_MOVED_TO: Final = 0x00000080
IN_Q_OVERFLOW: Final = 0x00004000  # the kernel's queue overflowed: events were lost
IN_NONBLOCK: Final = os.O_NONBLOCK
IN_CLOEXEC: Final = os.O_CLOEXEC
EVENT: Final = struct.Struct("iIII")  # struct inotify_event: wd, mask, cookie, len; then name
READ_SIZE: Final = 64 * 1024


class Inbox:
    """Calls ``take`` when a request may have arrived in ``directory``: at once when the
    kernel says the request file came, or every ``POLL`` seconds without inotify."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, directory: Path, take: Callable[[], None]
    ) -> None:
        self.loop = loop
        self.directory = directory
        self.take = take
        self._fd: int | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._closed = False

    @property
    def watching(self) -> bool:
        """Told by the kernel (True), or looking every POLL seconds (False)."""
        return self._fd is not None

    def start(self) -> None:
        try:
            self._fd = _watch(self.directory)
        except OSError as exc:
            text = _(
                "the state directory {path}: no inotify ({reason}): "
                "looking for set-up requests every {seconds} s"
            )
            log.warning("%s", text.format(path=self.directory, reason=exc, seconds=f"{POLL:g}"))
            self._timer = self.loop.call_later(POLL, self._look)
            return
        self.loop.add_reader(self._fd, self._heard)

    def close(self) -> None:
        """Stop watching. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._timer is not None:
            self._timer.cancel()
        self._unwatch()

    def _unwatch(self) -> None:
        """The inotify descriptor off the loop and closed, if there is one."""
        if self._fd is not None:
            self.loop.remove_reader(self._fd)
            os.close(self._fd)
            self._fd = None

    def _heard(self) -> None:
        assert self._fd is not None
        try:
            data = os.read(self._fd, READ_SIZE)
        except BlockingIOError:
            return
        except OSError as exc:  # the watch itself failed: look by the clock from now on
            text = _("the state directory's watch failed ({reason}): looking every {seconds} s")
            log.warning("%s", text.format(reason=exc, seconds=f"{POLL:g}"))
            self._unwatch()
            self._timer = self.loop.call_later(POLL, self._look)
            return
        if wanted(data):
            self.take()

    def _look(self) -> None:
        if self._closed:
            return
        self.take()
        self._timer = self.loop.call_later(POLL, self._look)


def wanted(data: bytes) -> bool:
    """Whether the inotify events in ``data`` call for a look: the request's name, or an
    overflow of the kernel's queue (the request's own event may be among those lost)."""
    if NAME in names(data):
        return True
    if any(mask & IN_Q_OVERFLOW for mask in masks(data)):
        log.info("%s", _("the state directory's watch overflowed: looking for a set-up request"))
        return True
    return False


def masks(data: bytes) -> list[int]:
    """The masks of the inotify events in ``data``, named or not."""
    found, at = [], 0
    while at + EVENT.size <= len(data):
        _wd, mask, _cookie, length = EVENT.unpack_from(data, at)
        found.append(mask)
        at += EVENT.size + length
    return found


def names(data: bytes) -> list[str]:
    """The file names of the inotify events in ``data`` (events with no name left out)."""
    found, at = [], 0
    while at + EVENT.size <= len(data):
        *_fields, length = EVENT.unpack_from(data, at)
        raw = data[at + EVENT.size : at + EVENT.size + length]
        at += EVENT.size + length
        if raw.strip(b"\0"):
            found.append(raw.split(b"\0", 1)[0].decode(errors="replace"))
    return found


def _watch(directory: Path) -> int:
    """An inotify descriptor watching ``directory`` for files written or renamed into it;
    OSError if there is none to be had."""
    libc_name = ctypes.util.find_library("c")
    if libc_name is None:
        raise OSError("no C library found")
    libc = ctypes.CDLL(libc_name, use_errno=True)
    if not hasattr(libc, "inotify_init1"):
        raise OSError("the C library has no inotify")
    fd = int(libc.inotify_init1(IN_NONBLOCK | IN_CLOEXEC))
    if fd < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    watch = libc.inotify_add_watch(fd, os.fsencode(directory), IN_CLOSE_WRITE | IN_MOVED_TO)
    if watch < 0:
        errno = ctypes.get_errno()
        os.close(fd)
        raise OSError(errno, f"{os.strerror(errno)}: {directory}")
    return fd
