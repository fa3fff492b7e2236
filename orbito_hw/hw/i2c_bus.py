"""An I2C bus as adafruit's drivers use one (busio.I2C's ``try_lock``, ``unlock``,
``writeto``, ``readfrom_into``, ``writeto_then_readfrom``), made safe to fail on.

adafruit_tca9548a's channel selects its multiplexer inside ``try_lock`` and deselects it
inside ``unlock``: a transfer that fails there (a multiplexer gone, the bus held low) raises
with the bus's own lock still taken, and the next ``try_lock`` would spin for ever. Every
transfer of the TMAG5273 board therefore runs through ``SafeBus``, which knows whether its
lock is held and lets go of it after a failure.

A bus held low (a device reset in the middle of a read keeps SDA low, waiting for clocks
that never come) is freed the standard way (NXP UM10204 3.1.16, "bus clear"): nine clocks
on SCL with SDA released, then a STOP. On the Pi the kernel's I2C controller owns SDA and
SCL, so ``pinctrl`` hands SCL to the GPIO block for the nine clocks and back after
(``PinctrlRecovery``); the emulated bus (``sim/tmag_bus.py``) implements the same clocks.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
import threading
from typing import Any, Final, Protocol

NAK_ERRNOS: Final = frozenset({errno.EREMOTEIO, errno.ENXIO})
"""What Linux's i2c-bcm2835 says when no device acknowledged its address."""
BUS_ERRNOS: Final = frozenset({errno.EIO, errno.ETIMEDOUT, errno.EAGAIN})
"""What it says when the bus itself failed: arbitration lost, a clock stretched for ever,
SDA held low."""


class Recovery(Protocol):
    def __call__(self) -> bool:
        """Nine clocks and a STOP; whether the clocks could be sent at all."""
        ...


class SafeBus:
    """``bus`` (busio.I2C-like), its lock tracked: ``release`` lets go of a lock a failed
    transfer left taken. ``recover`` clocks a stuck bus free."""

    def __init__(self, bus: Any, recover: Recovery | None = None) -> None:
        self.bus = bus
        self._recover = recover
        self._held = False
        self._guard = threading.Lock()
        self.transfers = 0
        self.recoveries = 0

    def try_lock(self) -> bool:
        with self._guard:
            if self._held:
                return False
            taken = bool(self.bus.try_lock())
            self._held = taken
            return taken

    def unlock(self) -> None:
        with self._guard:
            if self._held:
                self._held = False
                self.bus.unlock()

    def release(self) -> None:
        """After a failed transfer: the lock let go of if it is still held."""
        self.unlock()

    def writeto(self, address: int, buffer: Any, **kwargs: Any) -> None:
        self.transfers += 1
        self.bus.writeto(address, buffer, **kwargs)

    def readfrom_into(self, address: int, buffer: Any, **kwargs: Any) -> None:
        self.transfers += 1
        self.bus.readfrom_into(address, buffer, **kwargs)

    def writeto_then_readfrom(
        self, address: int, buffer_out: Any, buffer_in: Any, **kwargs: Any
    ) -> None:
        self.transfers += 1
        self.bus.writeto_then_readfrom(address, buffer_out, buffer_in, **kwargs)

    def recover(self) -> bool:
        """Nine clocks and a STOP (the lock let go of first); False when this bus cannot."""
        self.release()
        self.recoveries += 1
        if self._recover is not None:
            return self._recover()
        clocks = getattr(self.bus, "nine_clocks", None)
        return bool(clocks()) if clocks is not None else False

    def deinit(self) -> None:
        self.release()
        deinit = getattr(self.bus, "deinit", None)
        if deinit is not None:
            deinit()


class PinctrlRecovery:
    """The bus clear on a Raspberry Pi: SCL (BCM ``scl``) taken from the I2C controller with
    Raspberry Pi OS's ``pinctrl``, clocked nine times with SDA left pulled up, a STOP made
    (SDA low then high while SCL is high), and both pins given back to the controller
    (function a0). Each pinctrl call takes a few milliseconds: a bus clear takes about 0.2 s,
    once, when every transfer has failed."""

    def __init__(self, sda: int, scl: int) -> None:
        self.sda, self.scl = sda, scl

    def _pinctrl(self, *args: str) -> bool:
        tool = shutil.which("pinctrl")
        if tool is None:
            return False
        done = subprocess.run([tool, *args], capture_output=True, timeout=2, check=False)
        return done.returncode == 0

    def __call__(self) -> bool:
        scl, sda = str(self.scl), str(self.sda)
        if not self._pinctrl("set", sda, "ip", "pu"):
            return False
        for _ in range(9):
            self._pinctrl("set", scl, "op", "dl")
            self._pinctrl("set", scl, "op", "dh")
        self._pinctrl("set", sda, "op", "dl")  # a STOP: SDA rises while SCL is high
        self._pinctrl("set", sda, "op", "dh")
        return self._pinctrl("set", f"{sda},{scl}", "a0")


def open_linux_bus(bus: int, sda: int, scl: int) -> SafeBus:
    """``/dev/i2c-<bus>`` through Blinka (hw/analog.py's ``LinuxI2C``), made safe; OSError or
    RuntimeError ("I2C Bus #N not found") when it is not enabled."""
    from orbito_hw.hw.analog import LinuxI2C

    return SafeBus(LinuxI2C(bus), PinctrlRecovery(sda, scl) if bus == 1 else None)
