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
from pathlib import Path

from orbito_fw.protocol import PROTOCOL_VERSION, Deframer, encode, fields

from orbito_hw.commands.firmware import firmware_files

# Runs main.py as the Pico would (from the root of its file system, argv[1]), with its
# hardware modules stood in for.
STUBS = r"""
import io, sys, time, types, runpy
SPP = 20
state = {"pulses": 0, "enabled": None}
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
class WDT:
    def __init__(self, timeout): self.timeout = timeout
    def feed(self): pass
class Timer:
    PERIODIC = 1
    def __init__(self, period, mode, callback): callback(self)
machine.Pin, machine.WDT, machine.Timer = Pin, WDT, Timer
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
mtime.sleep_us = lambda us: time.sleep(us / 1e6)
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


def test_main_runs_the_controller_on_the_pico_pins(tmp_path: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-u", "-c", STUBS, str(pico_files(tmp_path))],
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
        assert ask(1, "HELLO", str(PROTOCOL_VERSION), "t")[:3] == [
            "OK",
            "HELLO",
            f"proto={PROTOCOL_VERSION}",
        ]
        assert ask(2, "CFG", "spp=20", "speed=20000", "accel=2000000") == ["OK", "CFG"]
        assert ask(3, "HOME") == ["OK", "HOME"]
        assert ask(4, "MOVE", "3") == ["OK", "MOVE"]
        seq = 5
        while (stat := fields(ask(seq, "STAT")))["state"] != "idle":
            seq += 1
        assert (stat["op"], stat["steps"], stat["index"]) == ("4", "60", "1")
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C, as mpremote sends it
        _out, err = proc.communicate(timeout=30)
    assert proc.returncode == 0, err.decode()
    lines = err.decode().splitlines()
    assert lines[-2:] == ["enable 0", "pulses 60"]  # motor freed; 3 places of 20 steps
