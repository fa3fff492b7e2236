"""The system test's Pico, in the VM: a real USB CDC ACM device through the kernel's USB
gadget framework, with the ring controller's own firmware logic (``orbito_fw``) answering on
the gadget's side.

``dummy_hcd`` is a USB host controller and a device controller (UDC) joined in the kernel:
a gadget bound to its UDC is plugged into its host side, where ``cdc_acm`` makes it a
``/dev/ttyACM*``, and the project's udev rule (the Pico's vendor id, 2e8a) links it to
``/dev/orbito-ring``: what a Pico plugged into the Pi's USB gets, through the same kernel
paths (enumeration, udev, the device cgroup of the service). Unbinding the gadget is pulling
the cable, binding it again putting it back.

A Pico is powered by its USB cable: pulled, it stops (a move under way is cut, the rings
stay where they stopped) and forgets everything; plugged in, it boots anew (a new boot id).
Its motor is the world's (world.py): each step turns the world's rings.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import subprocess
import sys
import termios
import threading
import time
import tty
from pathlib import Path
from typing import Protocol

sys.path.insert(0, "/root/orbito-hw/firmware")  # orbito_fw, as the Pico runs it
from orbito_fw.controller import RingController
from orbito_fw.device import Device

GADGET = Path("/sys/kernel/config/usb_gadget/orbito-pico")
TTY = "/dev/ttyGS0"  # the gadget side of the ACM function acm.usb0
VENDOR, PRODUCT = "0x2e8a", "0x0005"  # Raspberry Pi; MicroPython's CDC


class Rings(Protocol):
    def step(self, forward: bool) -> None: ...

    def index_active(self) -> bool: ...

    def read_squares(self) -> int: ...


class Port:
    """The firmware's hardware port on the world's rings; counts the steps it makes."""

    def __init__(self, rings: Rings) -> None:
        self.rings = rings
        self.enabled = False
        self.steps = 0

    def step(self, forward: bool) -> None:
        if self.enabled:
            self.rings.step(forward)
            self.steps += 1

    def enable(self, on: bool) -> None:
        self.enabled = on

    def index_active(self) -> bool:
        return self.rings.index_active()

    def read_squares(self) -> int:
        return self.rings.read_squares()


def _write(path: Path, text: str) -> None:
    path.write_text(text)


def make_gadget() -> str:
    """The gadget (once per boot), unplugged; returns the UDC's name."""
    for module in ("dummy_hcd", "libcomposite"):
        subprocess.run(["modprobe", module], check=True)
    if not GADGET.exists():
        GADGET.mkdir(parents=True)
        _write(GADGET / "idVendor", VENDOR)
        _write(GADGET / "idProduct", PRODUCT)
        strings = GADGET / "strings" / "0x409"
        strings.mkdir(parents=True)
        _write(strings / "manufacturer", "Raspberry Pi")
        _write(strings / "product", "orbito-hw ring controller (system test)")
        _write(strings / "serialnumber", "orbito-systest")
        config = GADGET / "configs" / "c.1"
        config.mkdir(parents=True)
        (GADGET / "functions" / "acm.usb0").mkdir(parents=True)
        (config / "acm.usb0").symlink_to(GADGET / "functions" / "acm.usb0")
    [udc] = os.listdir("/sys/class/udc")
    if (GADGET / "UDC").read_text().strip():
        _write(GADGET / "UDC", "\n")
    return udc


class UsbPico:
    """The firmware logic behind the gadget, on a thread; ``plug``/``unplug`` the cable."""

    def __init__(self, rings: Rings) -> None:
        self.rings = rings
        self.udc = make_gadget()
        self.lock = threading.Lock()
        self.device: Device | None = None  # None: no power
        self.boots = 0
        self.port = Port(rings)
        self.cut_at: int | None = None  # pull the cable at this step count (``cut``)
        self.fd: int | None = None
        threading.Thread(target=self._run, name="pico", daemon=True).start()

    @property
    def plugged(self) -> bool:
        return self.device is not None

    def plug(self) -> None:
        with self.lock:
            if self.device is not None:
                return
            self.boots += 1
            self.port = Port(self.rings)
            self.device = Device(RingController(self.port), os.urandom(4).hex())
            _write(GADGET / "UDC", self.udc)

    def unplug(self) -> None:
        with self.lock:
            self._pull()

    def cut(self, steps: int) -> None:
        """Pull the cable once the motor has made ``steps`` more steps (during a move)."""
        with self.lock:
            self.cut_at = self.port.steps + steps if self.device is not None else None

    def _pull(self) -> None:
        self.cut_at = None
        if self.device is None:
            return
        self.device = None  # the power goes with the cable: the motor stops at once
        _write(GADGET / "UDC", "\n")
        self._close()

    def state(self) -> dict[str, object]:
        return {"plugged": self.plugged, "boots": self.boots, "motor_steps": self.port.steps}

    # -- inside ---------------------------------------------------------------------------

    def _open(self) -> int | None:
        if self.fd is None:
            try:
                fd = os.open(TTY, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
            except OSError:
                return None
            with contextlib.suppress(termios.error):
                tty.setraw(fd)  # no echo, no line editing: bytes as they are
            self.fd = fd
        return self.fd

    def _close(self) -> None:
        if self.fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.fd)
            self.fd = None

    def _run(self) -> None:
        while True:
            with self.lock:
                wake = self._serve()
            if wake is None:
                time.sleep(0.05)
                continue
            delay = max(0.0, min(0.005, (wake - _now_us()) / 1e6))
            fd = self.fd
            if fd is None:
                time.sleep(delay or 0.001)
                continue
            with contextlib.suppress(OSError, ValueError):
                select.select([fd], [], [], delay)

    def _serve(self) -> int | None:
        """One pass of the firmware's main loop: input, the controller, output."""
        device = self.device
        if device is None:
            return None
        fd = self._open()
        if fd is not None:
            try:
                data: bytes | None = os.read(fd, 4096)
            except BlockingIOError:
                data = None  # nothing came
            except OSError:
                data = b""
            if data:
                device.feed(data, _now_us())
            elif data is not None:  # hung up by the last unbind: opened anew
                self._close()
        wake = device.poll(_now_us())
        if self.cut_at is not None and self.port.steps >= self.cut_at:
            self._pull()  # between two steps of the move
            return None
        out = device.take_output()
        if out and self.fd is not None:
            try:
                os.write(self.fd, out)
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EIO):
                    raise
        return wake


def _now_us() -> int:
    return time.monotonic_ns() // 1000
