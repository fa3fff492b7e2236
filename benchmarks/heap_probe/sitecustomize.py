"""Where a controller's memory is, every 30 s: loaded by Python's ``site`` at start-up in a
controller that benchmarks/hostile_soak.py starts with this folder on PYTHONPATH and
ORBITO_HEAP_PROBE naming a file. Nothing of the package is imported or changed.

Each line: seconds since start, then in MB: malloc's bytes in use (``mallinfo2``'s
uordblks, every arena), its free bytes held (fordblks), its blocks given a mapping of their
own (hblkhd), and SQLite's bytes in use (``sqlite3_memory_used``: page caches, schemas,
statements). Python's small objects live in pymalloc's arenas, outside malloc: what RSS
gains beyond these is theirs, the thread stacks' or the libraries' pages.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
import time

PERIOD_S = 30.0


class _Mallinfo2(ctypes.Structure):
    _fields_ = [
        (name, ctypes.c_size_t)
        for name in ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                     "uordblks", "fordblks", "keepcost")
    ]  # fmt: skip


def _probe(path: str) -> None:
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = _Mallinfo2
    name = ctypes.util.find_library("sqlite3")
    sqlite = ctypes.CDLL(name) if name else None  # the library _sqlite3 loads: the same copy
    if sqlite is not None:
        sqlite.sqlite3_memory_used.restype = ctypes.c_int64
    start = time.monotonic()
    with open(path, "a", encoding="utf-8") as out:
        while True:
            time.sleep(PERIOD_S)
            info = libc.mallinfo2()
            used = sqlite.sqlite3_memory_used() if sqlite is not None else 0
            sizes = (info.uordblks, info.fordblks, info.hblkhd, used)
            mb = " ".join(f"{n / 1e6:.2f}" for n in sizes)
            out.write(f"{time.monotonic() - start:.0f} {mb}\n")
            out.flush()


WHERE = os.environ.get("ORBITO_HEAP_PROBE")
if WHERE and hasattr(ctypes.CDLL(None), "mallinfo2"):  # glibc 2.33 and later; else no probe
    threading.Thread(target=_probe, args=(WHERE,), daemon=True).start()
