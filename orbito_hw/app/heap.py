"""The controller's heap, kept flat for weeks: glibc's malloc held to one mmap threshold.

glibc gives a block of 128 KiB or more a mapping of its own, returned to the system when the
block is freed, and then raises that threshold to the freed block's size (up to 32 MiB), so
that a program that keeps freeing big blocks maps less. The controller frees big blocks once:
the solution table's load (the archive's review, hints) decompresses 10 MB through buffers of
up to megabytes, and the threshold is raised past them for the rest of the process's life.

From then on the buffer asyncio reads every socket into (256 KiB, shrunk to what arrived) is
carved from the brk heap: each read leaves a small block where a big one was, and a block
that outlives the next reads (a connection's data still queued) pins a hole no 256 KiB read
fits in. Under the pages' load (connections opened, dropped and idle by the hundred) the
heap grew by half a megabyte a minute of free but unusable memory, with nothing in Python
growing (benchmarks/hostile_soak.py: malloc's free bytes +0.55 MB/min, its bytes in use
flat). Holding the threshold where it starts keeps every such buffer in a mapping of its
own, given back whole when it is freed.
"""

from __future__ import annotations

import ctypes
import logging
from typing import Final

log = logging.getLogger(__name__)

M_MMAP_THRESHOLD: Final = -3  # glibc's malloc.h
MMAP_THRESHOLD: Final = 128 * 1024
"""glibc's own starting threshold: set explicitly, glibc no longer moves it."""


def hold_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold at ``MMAP_THRESHOLD`` for the process (once, early in the
    controller's life). False where the C library has no ``mallopt`` (musl, macOS): their
    mallocs have no threshold that moves, nothing to do."""
    try:
        mallopt = ctypes.CDLL(None).mallopt  # the C library the process already runs on
    except (OSError, AttributeError):
        return False
    mallopt.argtypes = [ctypes.c_int, ctypes.c_int]
    mallopt.restype = ctypes.c_int
    held = bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    if not held:
        log.debug("malloc kept its own mmap threshold")
    return held
