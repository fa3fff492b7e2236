"""The controller's memory stays flat under hostile load (issue 35): glibc's mmap threshold held
(app/heap.py), and the long-running worlds keep no list of every event.

The growth itself is measured by benchmarks/hostile_soak.py; these tests hold its two causes:
after the solution table's load, a socket read's 256 KiB buffer still gets a mapping of its
own (given back whole), and the served worlds forget the events they passed on."""

from __future__ import annotations

import ctypes
import subprocess
import sys
import textwrap

import pytest

from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script

try:
    ctypes.CDLL(None).mallinfo2  # noqa: B018
    GLIBC = True
except (OSError, AttributeError):
    GLIBC = False

# In a process of its own: the threshold is the process's, for the rest of its life. It
# prints the bytes glibc has mapped for big blocks while a read buffer is held, and after.
PROBE = textwrap.dedent(
    """
    import ctypes, sys
    from orbito_hw.app.heap import hold_mmap_threshold
    from orbito_hw.solver.table import shipped_solution

    class Info(ctypes.Structure):
        _fields_ = [(name, ctypes.c_size_t) for name in ("arena", "ordblks", "smblks",
                    "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks",
                    "keepcost")]
    libc = ctypes.CDLL(None)
    libc.mallinfo2.restype = Info
    if sys.argv[1] == "held":
        hold_mmap_threshold()
    shipped_solution()  # frees buffers of megabytes on the way: glibc's threshold goes up
    before = libc.mallinfo2().hblkhd
    buffer = bytearray(256 * 1024)  # asyncio's read buffer (selector_events' max_size)
    held = libc.mallinfo2().hblkhd
    del buffer
    print(held - before, libc.mallinfo2().hblkhd - before)
    """
)


def mapped_for_a_read_buffer(mode: str) -> tuple[int, int]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True
    ).stdout.split()
    return int(out[0]), int(out[1])


@pytest.mark.skipif(not GLIBC, reason="glibc's malloc only: others have no moving threshold")
def test_after_the_solution_tables_load_a_read_buffer_still_has_a_mapping_given_back() -> None:
    held, after = mapped_for_a_read_buffer("held")
    assert held >= 256 * 1024  # its own mapping, not a piece of the heap
    assert after == 0  # and given back whole when freed
    # The cause, as glibc does it unheld: the buffer is carved from the heap.
    assert mapped_for_a_read_buffer("free") == (0, 0)


def test_a_world_that_runs_for_days_keeps_no_event_it_passed_on() -> None:
    heard: list[object] = []
    run = MockRun(on_event=heard.append, keep_events=False)
    try:
        for _ in range(20):  # refusals, as a person pressing on an empty board makes them
            run.run_script(parse_script("press\n"))
        run.run_script(parse_script(f"reset {Colour.BLACK.value}\nput a1\npress\n"))
        assert len(heard) > 20  # every event went on to the listener...
        assert run.typed_events == [] and run.events == []  # ...and none was kept
    finally:
        run.close()


def test_a_script_still_reads_every_event() -> None:
    run = MockRun()
    try:
        run.run_script(parse_script("put a1\npress\n"))
        assert [e["event"] for e in run.events if e["event"] == "turn"] == ["turn"]
    finally:
        run.close()
