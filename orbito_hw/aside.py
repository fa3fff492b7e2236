"""A damaged file set aside, never deleted: renamed to the first free ``NAME.damaged-N``.

The project's way with a file it cannot read (the set-up request, the archive's database,
the calibration, the board's id): keep it for a person to look at, under a name that says
why. One function for all of them, at the bottom of the house beside ``errors``: the
control layer (the request), ``hw`` (the calibration) and the archive each call it, and
the control layer may import neither ``hw`` nor the archive.

The rename never replaces (Linux's ``renameat2`` with ``RENAME_NOREPLACE``), so two writers
setting aside at the same time each get a name of their own; where the kernel or the file
system has no ``renameat2``, a look then a plain rename.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import errno
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Final

RENAME_NOREPLACE: Final = 1
RENAME_EXCHANGE: Final = 2
AT_FDCWD: Final = -100
UNSUPPORTED: Final = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP)
"""What ``renameat2`` fails with where the kernel or the file system has none."""
ASIDE_TRIES: Final = 10_000
"""``NAME.damaged-N`` names tried before a file cannot be set aside."""

_RENAMEAT2: list[Callable[..., int] | None] = []  # looked up once: libc's, or None


def _libc_renameat2() -> Callable[..., int] | None:
    if not _RENAMEAT2:
        found = None
        name = ctypes.util.find_library("c")
        if name is not None:
            libc = ctypes.CDLL(name, use_errno=True)
            found = getattr(libc, "renameat2", None)  # glibc 2.28 and later
        _RENAMEAT2.append(found)
    return _RENAMEAT2[0]


def rename2(source: Path, target: Path, flags: int) -> None:
    """``renameat2(source, target, flags)``; OSError as the kernel says it (ENOSYS when
    the C library has no renameat2)."""
    call = _libc_renameat2()
    if call is None:
        raise OSError(errno.ENOSYS, "no renameat2 in the C library")
    if call(AT_FDCWD, os.fsencode(source), AT_FDCWD, os.fsencode(target), flags) != 0:
        code = ctypes.get_errno()
        raise OSError(code, os.strerror(code), str(target))


def set_aside(path: Path, name: Path | None = None, companions: Sequence[str] = ()) -> Path:
    """Rename ``path`` (any kind of file) to the first free ``NAME.damaged-N`` beside
    ``name`` (``path`` itself unless given): the name it has now. ``companions``: the tails
    of files that belong to it (a database's ``-wal`` and ``-shm``), moved with it to the
    same N, before it (its own name is what says "damaged"), an N being free only when it
    is free for all of them. OSError if it cannot be moved."""
    name = path if name is None else name
    for n in range(1, ASIDE_TRIES + 1):
        kept = name.with_name(f"{name.name}.damaged-{n}")
        if any(os.path.lexists(f"{kept}{tail}") for tail in ("", *companions)):
            continue  # taken (the rename below checks again: a writer may take it now)
        for tail in companions:
            if os.path.lexists(f"{path}{tail}"):
                os.rename(f"{path}{tail}", f"{kept}{tail}")
        try:
            rename2(path, kept, RENAME_NOREPLACE)
            return kept
        except OSError as exc:
            if exc.errno == errno.EEXIST:
                continue
            if exc.errno not in UNSUPPORTED:
                raise
        if not os.path.lexists(kept):  # no renameat2: look, then rename
            os.rename(path, kept)
            return kept
    raise OSError(errno.EEXIST, f"no free name up to {name.name}.damaged-{ASIDE_TRIES}")
