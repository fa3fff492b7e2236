"""The Pi's end of the framed serial link to the ring controller (a Pico on USB).

The frames, their CRC and the sequence numbers are ``orbito_fw.protocol``: the very
module the firmware runs. A request is sent with a fresh sequence number and retried
with the same number until its reply comes, so the Pico (which answers a repeated number
from memory) never acts twice. When the port goes away (the Pico unplugged) the link
reopens it with a growing back-off and shakes hands again; if the Pico restarted in the
meantime, what it was doing is lost and the caller hears so (``ControllerRestarted``).

pyserial is imported here only, when a link is opened.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from orbito_fw.protocol import PROTOCOL_VERSION, Deframer, encode, fields

from orbito_hw.errors import HardwareError

if TYPE_CHECKING:
    import serial

try:  # pyserial lets termios errors through on POSIX (tcdrain on a vanished pty)
    import termios

    _TERMIOS_ERRORS: tuple[type[Exception], ...] = (termios.error,)
except ImportError:  # pragma: no cover - Windows
    _TERMIOS_ERRORS = ()

EventListener = Callable[[list[str]], None]
"""Gets the words of each event frame the Pico sends (``["EV", "SQ", "5", "1", ...]``)."""

JobKind = Literal["move", "home"]
"""What the host asks the ring controller to do with the rings: a move of some places, or
homing on the index sensor. Each is one job on the link's worker, and one ``MoveReport``."""


class LinkError(HardwareError):
    """The ring controller cannot be reached, or answers nonsense. An ``OSError`` (the
    port, the cable or the Pico is at fault), so its handlers must come before any
    ``except OSError`` that means "the port failed, reconnect"."""


class LinkTimeout(LinkError):
    """A request got no valid answer, however often it was sent."""


class FirmwareVersionError(LinkError):
    """The Pico runs firmware that speaks another protocol version."""


class ControllerRestarted(LinkError):
    """The link came back to a Pico that had restarted: its moves and settings are gone."""


@dataclass(frozen=True, slots=True)
class Hello:
    """What the Pico said at the handshake."""

    protocol: int
    firmware: str
    boot: str
    fault: str


@dataclass(frozen=True, slots=True)
class LinkSettings:
    baudrate: int = 115200  # USB CDC ignores it; a UART bridge does not
    read_timeout: float = 0.02  # one read call; keeps the worker responsive
    write_timeout: float = 0.5
    reply_timeout: float = 0.3  # one try of a request
    retries: int = 5  # tries after the first, with the same sequence number
    backoff_first: float = 0.05  # reconnect back-off, doubling up to backoff_max
    backoff_max: float = 1.0
    reconnect_timeout: float = 20.0  # give up reconnecting after this long


class SerialLink:
    """One framed link; not thread-safe: one thread (the backend's worker) uses it."""

    def __init__(
        self,
        port: str,
        settings: LinkSettings | None = None,
        on_event: EventListener | None = None,
    ) -> None:
        self.port = port
        self.settings = settings or LinkSettings()
        self.on_event = on_event
        self.session = os.urandom(4).hex()  # a restarted host is a new session to the Pico
        self.hello: Hello | None = None
        self.reconnects = 0
        self.reconnected = threading.Event()  # set at each reconnect (for tests to wait on)
        self.last_seq = 0
        self._seq = 0
        self._serial: serial.Serial | None = None
        self._deframer = Deframer()
        self._closed = threading.Event()

    # -- opening and closing ------------------------------------------------------------

    def open(self) -> Hello:
        """Open the port and shake hands; raises LinkError with the reason."""
        self._open_port()
        try:
            return self._handshake()
        except LinkError:  # an OSError too: the answer was wrong, not the port
            self._close_port()
            raise
        except OSError as exc:
            self._close_port()
            raise LinkError(f"the ring controller on {self.port} went away: {exc}") from exc

    def stop(self) -> None:
        """Ask the link's user to finish: a reconnect in progress gives up."""
        self._closed.set()

    def close(self) -> None:
        """Stop and let go of the port (from the thread that uses the link, or after it)."""
        self._closed.set()
        self._close_port()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    # -- requests -------------------------------------------------------------------------

    def request(self, *words: str) -> list[str]:
        """Send one command and return its reply's words (``["OK", ...]`` or
        ``["ERR", code, ...]``), retrying and reconnecting as needed."""
        self.last_seq = seq = self._next_seq()
        while True:
            try:
                return self._transact(seq, list(words))
            except LinkError:  # no answer however often sent: reconnecting would not help
                raise
            except OSError as exc:  # pyserial's SerialException is an OSError
                self._reconnect(exc)  # raises ControllerRestarted: then do not resend

    def wake(self) -> None:
        """From another thread: cut short a ``poll_events`` that is waiting on the port."""
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(OSError, ValueError):
                port.cancel_read()

    def poll_events(self) -> None:
        """Read whatever has come in (waiting one read timeout at most) and pass events on."""
        try:
            self._await(-1, 0.0)
        except OSError as exc:
            self._reconnect(exc)

    # -- inside ---------------------------------------------------------------------------

    def _next_seq(self) -> int:
        self._seq = self._seq % 65535 + 1
        return self._seq

    def _open_port(self) -> None:
        import serial

        s = self.settings
        try:
            self._serial = serial.Serial(
                self.port,
                s.baudrate,
                timeout=s.read_timeout,
                write_timeout=s.write_timeout,
                exclusive=True,  # a second orbito-hw (or a terminal) cannot share it
            )
        except (OSError, ValueError) as exc:
            raise LinkError(f"cannot open the ring controller's port {self.port}: {exc}") from exc
        self._deframer = Deframer()
        self._serial.reset_input_buffer()

    def _close_port(self) -> None:
        port, self._serial = self._serial, None
        if port is not None:
            with contextlib.suppress(OSError):  # it may be gone already
                port.close()

    def _handshake(self) -> Hello:
        """HELLO: raises OSError when the port fails, LinkError for a wrong answer."""
        reply = self._transact(self._next_seq(), ["HELLO", str(PROTOCOL_VERSION), self.session])
        info = fields(reply)
        if reply[:2] != ["OK", "HELLO"] or not info.get("proto", "").isdigit():
            raise LinkError(f"the device on {self.port} is not an orbito-hw ring controller")
        hello = Hello(
            int(info["proto"]), info.get("fw", "?"), info.get("boot", ""), info.get("fault", "-")
        )
        if hello.protocol != PROTOCOL_VERSION:
            raise FirmwareVersionError(
                f"the ring controller on {self.port} runs firmware {hello.firmware} speaking "
                f"protocol {hello.protocol}, but this orbito-hw speaks protocol "
                f"{PROTOCOL_VERSION}: flash the firmware of this release "
                "(orbito-hw firmware install, see firmware/README.md)"
            )
        self.hello = hello
        return hello

    def _reconnect(self, cause: OSError) -> None:
        """Reopen the port with a growing back-off and shake hands again."""
        self._close_port()
        before = self.hello
        s = self.settings
        delay = s.backoff_first
        deadline = time.monotonic() + s.reconnect_timeout
        while True:
            if self._closed.wait(delay):
                raise LinkError(f"the link to {self.port} was closed")
            try:
                self._open_port()
                hello = self._handshake()
                break
            except FirmwareVersionError:
                raise
            except (LinkError, OSError) as exc:
                self._close_port()
                if time.monotonic() > deadline:
                    raise LinkError(
                        f"lost the ring controller on {self.port} ({cause}) and could not "
                        f"reconnect in {s.reconnect_timeout:g} s: {exc}"
                    ) from exc
                delay = min(delay * 2, s.backoff_max)
        self.reconnects += 1
        self.reconnected.set()
        if before is not None and hello.boot != before.boot:
            raise ControllerRestarted(f"the ring controller on {self.port} restarted")

    def _transact(self, seq: int, words: list[str]) -> list[str]:
        """Send the frame until its reply comes; the same ``seq`` on every try."""
        frame = encode(seq, words)
        for _ in range(self.settings.retries + 1):
            self._write(frame)
            reply = self._await(seq, self.settings.reply_timeout)
            if reply is not None:
                return reply
        raise LinkTimeout(
            f"the ring controller on {self.port} did not answer {words[0]} "
            f"({self.settings.retries + 1} tries of {self.settings.reply_timeout:g} s)"
        )

    def _write(self, frame: bytes) -> None:
        if self._serial is None:
            raise OSError("port not open")
        try:
            self._serial.write(frame)
            self._serial.flush()
        except _TERMIOS_ERRORS as exc:
            raise OSError(f"write failed: {exc}") from exc

    def _await(self, seq: int, timeout: float) -> list[str] | None:
        """Read frames until the reply to ``seq`` comes or ``timeout`` passes; events on
        the way go to the listener, stale replies (to earlier tries) are dropped."""
        port = self._serial
        if port is None:
            raise OSError("port not open")
        deadline = time.monotonic() + timeout
        while True:
            try:
                data = port.read(max(1, port.in_waiting))
            except _TERMIOS_ERRORS as exc:
                raise OSError(f"read failed: {exc}") from exc
            for got, words in self._deframer.feed(data):
                if words[0] == "EV":
                    if self.on_event is not None:
                        self.on_event(words)
                elif got == seq:
                    return words
            if time.monotonic() >= deadline:
                return None
