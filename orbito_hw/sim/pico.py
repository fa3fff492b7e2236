"""A simulated Pico: the firmware's own logic (``orbito_fw``) on a thread, behind a
pseudo-terminal, driving simulated rings.

The host's serial link cannot tell it from a Pico on USB: it opens ``path`` (a symlink to
the pty, like ``/dev/serial/by-id/...``) with pyserial. ``unplug``/``replug`` pull and put
back the cable (the Pico keeps its power, so a move goes on meanwhile); ``restart`` is a
Pico that reboots (power lost): the rings stay where they stopped, everything else is new.
``cut`` pulls the cable between two steps of a move, the Pico's power with it or not, as
the system test's USB gadget does (tests/system/guest/pico.py).
"""

from __future__ import annotations

import contextlib
import os
import select
import tempfile
import threading
import time
import tty
from collections.abc import Callable, Mapping
from typing import Protocol

from orbito_fw.controller import RingController
from orbito_fw.device import Device

from orbito_hw.hw.analog_front import PICO_ADC_REF_V, PICO_FULL_COUNT, FrontEnd
from orbito_hw.hw.hall import Calibration
from orbito_hw.hw.interfaces import Clock
from orbito_hw.hw.serial_backend import SerialRingDrive
from orbito_hw.rules.squares import SQUARES


class MotorPort(Protocol):
    """What the simulated board offers the simulated Pico: the stepper and the sensors."""

    def step(self, forward: bool) -> None:
        """One motor step; forward turns the rings counter-clockwise (a press), back
        (``forward`` False) clockwise (a take-back)."""
        ...

    def index_active(self) -> bool:
        """The index sensor: True when the rings sit exactly on the squares."""
        ...

    def read_squares(self) -> int:
        """The square sensors now, as a mask (bit n = square n)."""
        ...


class FirmwarePort:
    """The firmware's hardware port on a MotorPort (the simulated driver has no enable)."""

    def __init__(self, rings: MotorPort) -> None:
        self.rings = rings
        self.enabled = False
        self.steps = 0  # steps made since this boot

    def step(self, forward: bool) -> None:
        if self.enabled:  # a disabled driver makes no step
            self.rings.step(forward)
            self.steps += 1

    def enable(self, on: bool) -> None:
        self.enabled = on

    def index_active(self) -> bool:
        return self.rings.index_active()

    def read_squares(self) -> int:
        return self.rings.read_squares()

    def read_levels(self) -> list[int]:
        """A colour board's levels (``HallRings``); a presence board's Pico has no
        multiplexer: every input floats at mid-scale."""
        read: Callable[[], list[int]] | None = getattr(self.rings, "read_levels", None)
        return read() if read is not None else [PICO_FULL_COUNT // 2] * len(SQUARES)


class HallRings:
    """Rings whose squares are a colour board's linear hall sensors, as the Pico's ADC
    reads them behind the multiplexer: each square's field (``field(square)``, gauss) made
    a voltage by the sensors' ``front`` and a count by the Pico's ADC."""

    def __init__(self, rings: MotorPort, field: Callable[[int], float], front: FrontEnd) -> None:
        self.rings = rings
        self.field = field
        self.front = front
        self.step = rings.step
        self.index_active = rings.index_active
        self.read_squares = rings.read_squares

    def read_levels(self) -> list[int]:
        top = PICO_FULL_COUNT
        levels = []
        for square in SQUARES:
            volts = self.front.volts(self.field(square))
            levels.append(max(0, min(top, round(volts / PICO_ADC_REF_V * top))))
        return levels


def _monotonic_us() -> int:
    return time.monotonic_ns() // 1000


class FakePico:
    """The firmware logic on a thread, talking over a pty. Use as a context manager."""

    def __init__(
        self,
        rings: MotorPort,
        directory: str | None = None,
        now_us: Callable[[], int] = _monotonic_us,
    ) -> None:
        self.rings = rings
        self.now_us = now_us
        self._dir: tempfile.TemporaryDirectory[str] | None = None
        if directory is None:
            self._dir = tempfile.TemporaryDirectory(prefix="fake-pico-")
            directory = self._dir.name
        self.path = os.path.join(directory, "ttyPico")
        self.boots = 0
        self.unplug_after: str = ""  # pull the cable right after this command, before its reply
        self.output_filter: Callable[[bytes], bytes] | None = None  # to corrupt replies
        self._injected = bytearray()  # bytes to send as they are (``inject``)
        self._lock = threading.RLock()
        self._master: int | None = None
        self._slave: int | None = None
        self._stop = threading.Event()
        self.unplugged = threading.Event()  # set on each unplug, for tests to wait on
        self.powered = True  # False: the cable took the power with it (``cut``)
        self._cut_at: int | None = None  # the step count at which ``cut`` pulls the cable
        self._cut_power = False
        self._boot()
        self._thread = threading.Thread(target=self._run, name="fake-pico", daemon=True)

    def __enter__(self) -> FakePico:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def start(self) -> None:
        self.replug()
        self._thread.start()

    def close(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(timeout=5)
        self.unplug()
        if self._dir is not None:
            self._dir.cleanup()

    # -- the cable and the power --------------------------------------------------------

    def unplug(self) -> None:
        """The cable is pulled: the port disappears; the firmware runs on."""
        with self._lock:
            for fd in (self._master, self._slave):
                if fd is not None:
                    os.close(fd)
            self._master = self._slave = None
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
            self.unplugged.set()

    def replug(self) -> None:
        """The cable is back: a new pty at the same path (a Pico the cable powers boots)."""
        with self._lock:
            if self._master is not None:
                return
            if not self.powered:
                self._boot()
                self.powered = True
            self.unplugged.clear()
            master, slave = os.openpty()
            tty.setraw(slave)  # no echo, no line editing: bytes as they are
            os.symlink(os.ttyname(slave), self.path)
            self._master, self._slave = master, slave

    def restart(self) -> None:
        """The Pico reboots: moves, settings and the link's memory are gone, and its USB
        port goes away and comes back, as a real one's does."""
        with self._lock:
            self.unplug()
            self._boot()
            self.replug()

    def cut(self, steps: int, power: bool) -> None:
        """Pull the cable once the motor has made ``steps`` more steps, between two of them
        (during a move). ``power``: the Pico is powered by the cable (on the Pi's USB): it
        stops at once, the rings where they stopped, and boots anew when plugged back; else
        it runs on (its own supply) and only what it says meanwhile is lost."""
        with self._lock:
            self._cut_at = self.port.steps + steps
            self._cut_power = power

    @property
    def plugged(self) -> bool:
        return self._master is not None

    def inject(self, data: bytes) -> None:
        """Send ``data`` to the host as it is, with the next output: noise on the line, or
        frames the firmware would never send (a square past d4, fields out of range)."""
        with self._lock:
            self._injected += data

    # -- inside -------------------------------------------------------------------------

    def _boot(self) -> None:
        self.boots += 1
        self.port = FirmwarePort(self.rings)
        self.controller = RingController(self.port)
        self.device = Device(self.controller, os.urandom(4).hex())

    def _run(self) -> None:
        while not self._stop.is_set():
            with self._lock:
                wake = self._serve()
            delay = max(0.0, min(0.005, (wake - self.now_us()) / 1e6))
            master = self._master
            if master is None:
                self._stop.wait(delay)  # as fast as with the cable in: a move goes on
                continue
            with contextlib.suppress(OSError, ValueError):
                select.select([master], [], [], delay)

    def _serve(self) -> int:
        """One pass of the firmware's main loop: input, the controller, output."""
        if not self.powered:
            return self.now_us() + 1000
        device = self.device
        master = self._master
        if master is not None and select.select([master], [], [], 0)[0]:
            try:
                data = os.read(master, 4096)
            except OSError:
                data = b""
            for byte in data:  # byte by byte, so an unplug can fall between two commands
                frames = device.frames
                device.feed(bytes([byte]), self.now_us())
                cut = device.frames != frames and device.last_command == self.unplug_after
                if cut:
                    self.unplug_after = ""
                    device.take_output()  # the reply is lost with the cable
                    self.unplug()
                    master = None
                    break
        wake = device.poll(self.now_us())  # one step at most
        if self._cut_at is not None and self.port.steps >= self._cut_at:
            self._cut_at = None
            device.take_output()  # said into a cable that is gone
            self.powered = not self._cut_power
            self.unplug()
            return wake
        out = device.take_output()
        if self.output_filter is not None and out:
            out = self.output_filter(out)
        if master is not None and self._injected:
            out, self._injected = bytes(self._injected) + out, bytearray()
        if master is not None and out:
            with contextlib.suppress(OSError):
                os.write(master, out)
        return wake


# The Pico's settings for the simulated board: fast moves, fast scans.
MOCK_SETTINGS = {"speed": 50000, "accel": 4000000, "home_speed": 50000, "scan_ms": 1}


def mock_serial_drive(
    clock: Clock,
    rings: MotorPort,
    steps_per_place: int,
    settings: Mapping[str, int] | None = None,
    colour: tuple[FrontEnd, Calibration] | None = None,
) -> SerialRingDrive:
    """A SerialRingDrive talking over a pty to the firmware logic driving ``rings``:
    ``orbito-hw run --mock --backend serial``. ``settings`` go to the Pico on top of
    MOCK_SETTINGS (``{"scan": 1}`` to have it scan the square sensors too; with
    ``"analog": 1`` and ``colour``, a colour board's levels, ``HallRings``). Closing the
    drive stops the fake Pico."""
    pico = FakePico(rings)
    pico.start()
    try:
        wanted = {**MOCK_SETTINGS, "spp": steps_per_place, **(settings or {})}
        drive = SerialRingDrive(clock, pico.path, wanted, colour=colour)
    except Exception:
        pico.close()
        raise
    drive.on_close.append(pico.close)
    return drive
