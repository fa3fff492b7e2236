"""``firmware/orbito_fw/main.py`` on CPython with stand-ins for ``machine``, ``rp2`` and
MicroPython's ``time``, on the Pico's file system as ``firmware install`` lays it out
(``main.py`` at the root, the modules in ``orbito_fw/``): the real main loop reads frames
from stdin, steps the motor through the PIO state machine, reads the index pin, answers on
stdout, and a Ctrl-C frees the motor."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from orbito_fw.protocol import PROTOCOL_VERSION, Deframer, encode, fields

from orbito_hw.commands.firmware import firmware_files

# Runs main.py as the Pico would (from the root of its file system, argv[1]), with its
# hardware modules stood in for.
STUBS = r"""
import io, sys, time, types, runpy
SPP = 20
state = {"pulses": 0, "enabled": None, "mux": [0, 0, 0, 0]}
machine = types.ModuleType("machine")
class Pin:
    OUT, IN, PULL_UP = 1, 0, 2
    def __init__(self, n, mode=0, pull=None, value=None):
        self.n = n
        if value is not None:
            self.value(value)
    def value(self, v=None):
        if v is None:  # the index (GP5) is active low on whole places
            return 0 if self.n == 5 and state["pulses"] % SPP == 0 else 1
        if self.n == 4:
            state["enabled"] = (v == 0)
            sys.stderr.write("enable %d\n" % (v == 0))
        if self.n == 3:  # DIR, with the step pulses made before it changed
            sys.stderr.write("dir %d after %d pulses\n" % (v, state["pulses"]))
        if 6 <= self.n <= 9:  # a colour board's multiplexer select lines S0..S3
            state["mux"][self.n - 6] = v
class ADC:  # GP26 behind the multiplexer: a black marble's field on b2 (input C5)
    def __init__(self, pin): assert pin == 26
    def read_u16(self):
        selected = sum(v << n for n, v in enumerate(state["mux"]))
        return 40000 if selected == 5 else 32768
class WDT:
    def __init__(self, timeout): self.timeout = timeout
    def feed(self): pass
class Timer:
    PERIODIC = 1
    def __init__(self, period, mode, callback): callback(self)
machine.Pin, machine.WDT, machine.Timer, machine.ADC = Pin, WDT, Timer, ADC
machine.WDT_RESET, machine.reset_cause = 3, lambda: 1
machine.mem32 = {0xD0000004: 0xFFFFFFFF}
rp2 = types.ModuleType("rp2")
class PIO: OUT_LOW = 0
class StateMachine:
    def __init__(self, *a, **k): pass
    def active(self, on): pass
    def put(self, word):
        state["pulses"] += 1
rp2.PIO, rp2.StateMachine, rp2.asm_pio = PIO, StateMachine, lambda **k: (lambda f: f)
mtime = types.ModuleType("time")
mtime.ticks_us = lambda: time.monotonic_ns() // 1000
mtime.ticks_diff = lambda a, b: a - b
def sleep_us(us):
    sys.stderr.write("sleep_us %d after %d pulses\n" % (us, state["pulses"]))
    time.sleep(us / 1e6)
mtime.sleep_us = sleep_us
sys.modules.update(machine=machine, rp2=rp2)
class Stdin:  # unbuffered, as MicroPython's: what poll() says is there is all there is
    buffer = io.FileIO(0, "rb", closefd=False)
    def fileno(self): return 0
sys.stdin = Stdin()
sys.path.insert(0, sys.argv[1])
sys.modules["time"] = mtime
print("ready", file=sys.stderr, flush=True)
runpy.run_path(sys.argv[1] + "/main.py", run_name="__main__")
sys.stderr.write("pulses %d\n" % state["pulses"])
"""


def pico_files(root: Path) -> Path:
    """The Pico's file system after ``firmware install``, in ``root``."""
    (root / "orbito_fw").mkdir()
    for target, source in firmware_files().items():
        shutil.copyfile(source, root / target.removeprefix(":"))
    return root


Ask = Callable[..., list[str]]


def run_main(root: Path, talk: Callable[[Ask], None]) -> list[str]:
    """Run main.py on the stand-ins, ``talk`` to it (``ask(seq, *words)`` -> the reply),
    Ctrl-C it; the lines it wrote on stderr (the stand-ins' log)."""
    proc = subprocess.Popen(
        [sys.executable, "-u", "-c", STUBS, str(pico_files(root))],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdin and proc.stdout and proc.stderr
    assert proc.stderr.readline() == b"ready\n"
    deframer = Deframer()

    def ask(seq: int, *words: str) -> list[str]:
        assert proc.stdin and proc.stdout
        proc.stdin.write(encode(seq, list(words)))
        proc.stdin.flush()
        while True:
            chunk = os.read(proc.stdout.fileno(), 4096)
            assert chunk, "main.py stopped answering"
            for got, reply in deframer.feed(chunk):
                if got == seq:
                    return reply

    try:
        talk(ask)
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C, as mpremote sends it
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()
    return err.decode().splitlines()


def set_up(ask: Ask) -> None:
    assert ask(1, "HELLO", str(PROTOCOL_VERSION), "t")[:3] == [
        "OK",
        "HELLO",
        f"proto={PROTOCOL_VERSION}",
    ]
    assert ask(2, "CFG", "spp=20", "speed=20000", "accel=2000000") == ["OK", "CFG"]
    assert ask(3, "HOME") == ["OK", "HOME"]


def moved(ask: Ask, seq: int, places: int) -> dict[str, str]:
    """``MOVE places`` as command ``seq``, then STAT until idle: its fields."""
    assert ask(seq, "MOVE", str(places)) == ["OK", "MOVE"]
    while (stat := fields(ask(seq + 1, "STAT")))["state"] != "idle":
        pass  # STAT is never answered from memory: the same number asks again
    return stat


def test_main_runs_the_controller_on_the_pico_pins(tmp_path: Path) -> None:
    def talk(ask: Ask) -> None:
        set_up(ask)
        stat = moved(ask, 4, 3)
        assert (stat["op"], stat["steps"], stat["index"]) == ("4", "60", "1")

    lines = run_main(tmp_path, talk)
    assert lines[-2:] == ["enable 0", "pulses 60"]  # motor freed; 3 places of 20 steps


def test_main_sets_dir_low_before_the_first_pulse_of_a_move_back(tmp_path: Path) -> None:
    def talk(ask: Ask) -> None:
        set_up(ask)
        assert moved(ask, 4, 1)["steps"] == "20"
        stat = moved(ask, 6, -2)
        assert (stat["op"], stat["places"], stat["steps"], stat["index"]) == ("6", "-2", "40", "1")
        assert moved(ask, 8, 1)["index"] == "1"

    lines = run_main(tmp_path, talk)
    dir_log = [line for line in lines if line.startswith(("dir", "sleep_us"))]
    assert dir_log == [
        "dir 1 after 0 pulses",  # at boot: forward
        "dir 0 after 20 pulses",  # before the move back's first pulse...
        "sleep_us 2 after 20 pulses",  # ...and its setup time
        "dir 1 after 60 pulses",  # forward again, before the last move's first pulse
        "sleep_us 2 after 60 pulses",
    ]
    assert lines[-1] == "pulses 80"


def test_main_reads_a_colour_boards_levels_through_the_multiplexer(tmp_path: Path) -> None:
    def talk(ask: Ask) -> None:
        set_up(ask)
        assert ask(4, "CFG", "scan=1", "analog=1", "scan_ms=1000") == ["OK", "CFG"]
        seq = 5
        while (levels := fields(ask(seq, "LV"))["levels"].split(","))[0] == "-1":
            seq += 1  # the first scan comes at a later turn of the main loop
        assert levels == ["32768"] * 5 + ["40000"] + ["32768"] * 10

    lines = run_main(tmp_path, talk)
    assert "sleep_us 20 after 0 pulses" in lines  # the mux settles before each square's read
