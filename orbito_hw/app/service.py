"""Talking to systemd: readiness, a status line, and a watchdog fed by the event loop.

The protocol (sd_notify(3)) is one datagram of ``KEY=VALUE`` lines sent to the socket named
in ``$NOTIFY_SOCKET`` (a leading ``@`` names an abstract socket); with the variable unset
every call here does nothing, so the same controller runs under systemd and in a terminal.
The watchdog is on when ``$WATCHDOG_USEC`` is set and ``$WATCHDOG_PID`` is unset or names
this process, as sd_watchdog_enabled(3) reads them.

Library choice: the protocol is written here, in a few lines, after checking the candidates:

- systemd-python (the reference binding) is a C extension built against the libsystemd
  headers: ``pip install`` into the venv would need libsystemd-dev and a compiler on every
  Pi Zero and in CI, for one ``sendto``.
- sdnotify (last release 2017) connects once, swallows every error, and knows nothing of
  ``WATCHDOG_USEC`` or ``WATCHDOG_PID``.
- systemd-watchdog has no ``STOPPING=1``, reports "no watchdog" as a 24-hour timeout (so
  off and on cannot be told apart), and its author marks its abstract-socket path untested.

What matters most is ours anyway: the pinger is a timer on the asyncio loop itself
(``loop.call_later``), never a thread, so a loop that is stuck stops feeding the watchdog
and systemd restarts the service (``Restart=on-failure`` in the unit).

A loop that runs is not enough: each ping also asks a health predicate (the referee's
``healthy``), and none is sent while it is false. After an internal error the referee takes
nothing in (control/guard.py) though the loop runs on; unfed, the watchdog has systemd
restart the service (within ``WatchdogSec``), which carries on from the journal the error
left untouched. A hardware fault (a homing that failed, a Pico unplugged) is not one: the
referee shows it and a press retries (re-homing and re-checking the board, as a restart
would), so the watchdog is fed on; restarting over a Pico that stays unplugged would only
loop until systemd's start limit gave up on the board altogether.
"""

from __future__ import annotations

import asyncio
import logging
import os
import socket
from collections.abc import Callable, Mapping

from orbito_hw.lang import _

log = logging.getLogger(__name__)


def notify_address(environ: Mapping[str, str]) -> str | None:
    """The notification socket's address, abstract names with their leading NUL, or None."""
    address = environ.get("NOTIFY_SOCKET", "")
    if not address:
        return None
    if address.startswith("@"):
        return "\0" + address[1:]
    return address


def watchdog_interval(environ: Mapping[str, str], pid: int) -> float | None:
    """Seconds between pings: half the watchdog timeout, or None when the watchdog is off
    (no ``WATCHDOG_USEC``, a nonsense value, or a ``WATCHDOG_PID`` that is not ours)."""
    usec, owner = environ.get("WATCHDOG_USEC", ""), environ.get("WATCHDOG_PID", "")
    if not usec.isdigit() or int(usec) == 0:
        return None
    if owner and owner != str(pid):
        return None
    return int(usec) / 1e6 / 2


class Service:
    """The controller's side of systemd's ``Type=notify`` contract.

    ``start(loop)`` once the board is set up (sends ``READY=1`` and starts the watchdog
    pings); ``status(text)`` whenever there is something worth a glance in
    ``systemctl status``; ``stop()`` on the way out (sends ``STOPPING=1``).
    """

    def __init__(self, environ: Mapping[str, str] | None = None, pid: int | None = None) -> None:
        env = os.environ if environ is None else environ
        self.address = notify_address(env)
        self.interval = watchdog_interval(env, os.getpid() if pid is None else pid)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._warned = False
        self._healthy: Callable[[], bool] = lambda: True
        self.starved = False  # whether pings were held back: the controller cannot work

    @property
    def enabled(self) -> bool:
        """Whether systemd listens (``$NOTIFY_SOCKET`` is set)."""
        return self.address is not None

    @property
    def watching(self) -> bool:
        """Whether watchdog pings are scheduled on the loop."""
        return self._timer is not None

    def notify(self, message: str) -> bool:
        """Send one message; False if it could not be sent (never raises: the board plays on)."""
        if self.address is None:
            return False
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.sendto(message.encode(), self.address)
        except OSError as exc:
            if not self._warned:  # once: a gone socket would otherwise flood the log
                text = _("cannot notify systemd at {address}: {reason}")
                log.warning("%s", text.format(address=self.address.lstrip("\0"), reason=exc))
                self._warned = True
            return False
        return True

    def ready(self) -> None:
        self.notify("READY=1")

    def status(self, text: str) -> None:
        # A newline would start a new KEY=VALUE assignment: keep the status one line.
        self.notify("STATUS=" + " ".join(text.split()))

    def stopping(self) -> None:
        self.notify("STOPPING=1")

    def start(
        self, loop: asyncio.AbstractEventLoop, healthy: Callable[[], bool] | None = None
    ) -> None:
        """Tell systemd the board is up and feed the watchdog from ``loop`` from now on,
        while ``healthy()`` holds (always, if not given). Again later (a service that
        waited for its hardware, then opened it): the pings go on with the new predicate."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._loop = loop
        if healthy is not None:
            self._healthy = healthy
        self.ready()
        if self.enabled and self.interval is not None:
            self._ping()

    def stop(self) -> None:
        """Stop the pings and tell systemd the service is on its way out."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.stopping()

    def _ping(self) -> None:
        assert self._loop is not None and self.interval is not None
        if self._is_healthy():
            self.notify("WATCHDOG=1")
            self.starved = False
        elif not self.starved:
            self.starved = True
            text = _("the controller cannot work: no more watchdog pings, systemd restarts it")
            log.error("%s", text)
        # The next ping is a timer on the same loop: if the loop hangs, the pings stop.
        self._timer = self._loop.call_later(self.interval, self._ping)

    def _is_healthy(self) -> bool:
        try:
            return self._healthy()
        except Exception as exc:  # a predicate that cannot say is a no
            text = _("the health check failed: {error}: {reason}")
            log.error("%s", text.format(error=type(exc).__name__, reason=exc))
            return False
