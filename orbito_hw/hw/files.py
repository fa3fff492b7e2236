"""Small files the board keeps beside its journal (the calibration, the board's id), written
the one way: atomically and durably. (The journal, a layer below, has its own writer.)"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_durably(path: Path, text: str, encoding: str = "utf-8", mode: int = 0o644) -> None:
    """``text`` at ``path``, atomically and durably: a fresh temporary file beside it (made
    with ``mode``: 0o600 for a file that holds keys), synced, renamed over, the directory
    synced. Never written through whatever stands at the name; OSError as the file system
    says, the temporary file gone (a full disk gets its space back)."""
    tmp = path.with_name(path.name + ".tmp")
    with contextlib.suppress(FileNotFoundError):
        os.unlink(tmp)
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with open(fd, "w", encoding=encoding) as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fd = os.open(path.parent, os.O_RDONLY)
    try:
        with contextlib.suppress(OSError):  # some file systems refuse a directory fsync
            os.fsync(fd)
    finally:
        os.close(fd)
