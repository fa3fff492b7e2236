"""The Pi's end of the framed serial link to the ring controller (a Pico on USB).

The frames, their CRC and the sequence numbers are ``orbito_fw.protocol``: the very
module the firmware runs. A request is sent with a fresh sequence number and retried
with the same number until its reply comes, so the Pico (which answers a repeated number
from memory) never acts twice. When the port goes away (the Pico unplugged) the link
reopens it and shakes hands again, each try when its one reconnect policy says
(``reconnect``, a ``hw/reconnect.py`` ``Reconnect``; on a board the supervisor hands it the
drive's), whether a request waits for the Pico or the link is idle; if the Pico restarted in
the meantime, what it was doing is lost and the caller hears so (``ControllerRestartedError``).

Between requests the link keeps a heartbeat: after ``heartbeat`` seconds without a frame
from the Pico it sends ``PING``; no answer (every try) or the port gone and the link is
*lost* (``lost`` says why), noticed within ``LinkSettings.silence_limit`` seconds even
while the rings are idle. ``poll_events`` then tries to get it back, each try when due.

Everything the Pico sends is checked before it goes on: a reply that does not answer its
command is a ``ProtocolError``; a frame that fails the CRC is dropped by the ``Deframer``.
Both are counted and logged, never a traceback in the link's thread.

pyserial is imported here only, when a link is opened.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from orbito_fw.protocol import PROTOCOL_VERSION, Deframer, encode, fields

from orbito_hw.errors import HardwareError
from orbito_hw.hw.reconnect import Reconnect
from orbito_hw.lang import _, reworded

if TYPE_CHECKING:
    import serial

try:  # pyserial lets termios errors through on POSIX (tcdrain on a vanished pty)
    import termios

    _TERMIOS_ERRORS: tuple[type[Exception], ...] = (termios.error,)
except ImportError:  # pragma: no cover - Windows
    _TERMIOS_ERRORS = ()

log = logging.getLogger(__name__)

EventListener = Callable[[list[str]], None]
"""Gets the words of each event frame the Pico sends (``["EV", "SQ", "5", "1", ...]``)."""

JobKind = Literal["move", "home"]
"""What the host asks the ring controller to do with the rings: a move of some places
(``MOVE N``; ``MOVE -N`` turns them back, clockwise, for a take-back), or homing on the
index sensor (always forward). Each is one job on the link's worker, and one
``MoveReport``."""

LOGGED_FAULTS = 10
"""Protocol faults logged one by one; past these, one line per ``LOG_EVERY`` (a Pico that
babbles must not fill the journal's disk with the same warning)."""
LOG_EVERY = 100


class LinkError(HardwareError):
    """The ring controller cannot be reached, or answers nonsense. An ``OSError`` (the
    port, the cable or the Pico is at fault), so its handlers must come before any
    ``except OSError`` that means "the port failed, reconnect"."""


class LinkTimeoutError(LinkError):
    """A request got no valid answer, however often it was sent."""


class ProtocolError(LinkError):
    """The Pico sent a well-framed frame (its CRC good) that says nothing this protocol
    allows: a reply that does not answer its command, a field out of range."""

    what = ""  # the nonsense, without the port's name ("answered PING with 'OK STAT'")


class FirmwareVersionError(LinkError):
    """The Pico runs firmware that speaks another protocol version."""


class ControllerRestartedError(LinkError):
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
    heartbeat: float = 1.0  # PING after this long without a frame from the Pico
    # The reconnect policy of a link opened alone (doctor, tests): the first wait, doubling
    # up to the cap. On a board the supervisor hands the link the drive's own (devices.py).
    backoff_first: float = 0.05
    backoff_max: float = 1.0
    reconnect_timeout: float = 20.0  # a request gives up waiting for the link after this

    @property
    def request_limit(self) -> float:
        """Seconds a request goes unanswered, every try, before it fails."""
        return (self.retries + 1) * self.reply_timeout

    @property
    def silence_limit(self) -> float:
        """Seconds from the Pico's last word to the link counting it lost, at most, while
        the rings are idle: the heartbeat's wait, its PING's tries and one read."""
        return self.heartbeat + self.request_limit + self.read_timeout


def number(text: str, top: int) -> int | None:
    """``text`` as a decimal 0..``top`` written as the firmware writes it (``str``), or
    None: how every number from the Pico is read (never ``int()`` on its word alone: "+1",
    "01", "1_0" or a thousand digits are no number the firmware sends)."""
    if not (text.isascii() and text.isdigit()) or len(text) > len(str(top)):
        return None
    if text[0] == "0" and text != "0":
        return None
    value = int(text)
    return value if value <= top else None


class SerialLink:
    """One framed link; not thread-safe: one thread (the backend's worker) uses it, other
    threads only ``wake`` or ``stop`` it."""

    def __init__(
        self,
        port: str,
        settings: LinkSettings | None = None,
        on_event: EventListener | None = None,
        reconnect: Reconnect | None = None,
    ) -> None:
        self.port = port
        self.settings = settings or LinkSettings()
        s = self.settings
        # When the Pico is tried next once gone: one policy, in a request and between them.
        self.reconnect = reconnect or Reconnect(s.backoff_first, s.backoff_max)
        self.on_event = on_event
        self.session = os.urandom(4).hex()  # a restarted host is a new session to the Pico
        self.hello: Hello | None = None
        self.reconnects = 0
        self.reconnected = threading.Event()  # set at each reconnect (for tests to wait on)
        self.lost = ""  # why the link is down, or "" while it works
        self.protocol_faults = 0  # well-framed frames that made no sense
        self.listener_faults = 0  # events whose listener raised (a bug: logged, not fatal)
        self.last_seq = 0
        self._seq = 0
        self._serial: serial.Serial | None = None
        self._deframer = Deframer()
        self._frames: deque[tuple[int, list[str]]] = deque()  # read, not yet handed on
        self._closed = threading.Event()
        self._heard = time.monotonic()  # the Pico's last good frame

    # -- opening and closing ------------------------------------------------------------

    def open(self) -> Hello:
        """Open the port and shake hands; raises LinkError with the reason."""
        try:
            return self._attempt()
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

    def pause(self, seconds: float) -> None:
        """Wait ``seconds``, or less if the link is stopped meanwhile."""
        self._closed.wait(seconds)

    @property
    def bad_frames(self) -> int:
        """Frames thrown away since the port was last opened: cut short or failing their
        CRC or syntax (``Deframer``), and well-framed ones that made no sense."""
        d = self._deframer
        return d.cut + d.bad + self.protocol_faults

    # -- requests -------------------------------------------------------------------------

    def request(self, *words: str) -> list[str]:
        """Send one command and return its reply's words (``["OK", command, ...]`` or
        ``["ERR", code, ...]``), retrying and reconnecting as needed."""
        self.last_seq = seq = self._next_seq()
        while True:
            try:
                return self._answer(words[0], self._transact(seq, list(words)))
            except LinkError:  # no answer however often sent: reconnecting would not help
                raise
            except OSError as exc:  # pyserial's SerialException is an OSError
                self._reconnect(exc)  # raises ControllerRestartedError: then do not resend

    def protocol_fault(self, what: str) -> ProtocolError:
        """Count and log a frame from the Pico that makes no sense; the error to raise."""
        self.protocol_faults += 1
        count = self.protocol_faults
        if count <= LOGGED_FAULTS or count % LOG_EVERY == 0:
            text = _("ring controller on {port}: {reason} (protocol fault {number})")
            log.warning("%s", text.format(port=self.port, reason=reworded(what), number=count))
        error = ProtocolError(f"the ring controller on {self.port} {what}")
        error.what = what
        return error

    def wake(self) -> None:
        """From another thread: cut short a ``poll_events`` that is waiting on the port."""
        port = self._serial
        if port is not None and hasattr(port, "cancel_read"):
            with contextlib.suppress(OSError, ValueError):
                port.cancel_read()

    def poll_events(self) -> None:
        """Between requests: read whatever has come in (waiting one read timeout at most)
        and pass events on; PING a Pico quiet for ``heartbeat`` seconds; on a lost link,
        one try to get it back once its back-off has passed. Never raises: a failure
        makes the link ``lost``."""
        if self._serial is None:
            self._retry()
            return
        s = self.settings
        try:
            self._idle_read()
            if time.monotonic() - self._heard >= s.heartbeat:
                self._answer("PING", self._transact(self._next_seq(), ["PING"]))
        except LinkTimeoutError:
            self._lose(f"no answer to PING ({s.retries + 1} tries of {s.reply_timeout:g} s)")
        except ProtocolError as exc:
            self._lose(exc.what)
        except (LinkError, OSError) as exc:  # the port gone
            self._lose(str(exc))

    def _idle_read(self) -> None:
        """One read between requests, asleep in the kernel until a byte comes, ``wake`` cuts
        it short, or the heartbeat is due: an idle board wakes for the Pico's PING and its
        answer, not fifty times a second."""
        port = self._serial
        assert port is not None
        s = self.settings
        port.timeout = max(s.read_timeout, s.heartbeat - (time.monotonic() - self._heard))
        try:
            self._await(-1, 0.0)
        finally:
            if self._serial is port:
                port.timeout = s.read_timeout

    def reconnect_now(self) -> bool:
        """On a lost link, one try to get it back at once (a job is waiting): True when the
        link works."""
        if self._serial is None:
            self.reconnect.soon()
            self._retry()
        return not self.lost

    # -- inside ---------------------------------------------------------------------------

    def _next_seq(self) -> int:
        self._seq = self._seq % 65535 + 1
        return self._seq

    def _answer(self, command: str, reply: list[str]) -> list[str]:
        """``reply`` if it answers ``command`` (``OK <command> ...`` or ``ERR <code> ...``);
        a protocol fault otherwise."""
        if len(reply) >= 2 and (reply[0] == "ERR" or reply[:2] == ["OK", command]):
            return reply
        raise self.protocol_fault(f"answered {command} with {' '.join(reply)!r}")

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
        self._heard = time.monotonic()
        self._serial.reset_input_buffer()

    def _close_port(self) -> None:
        port, self._serial = self._serial, None
        if port is not None:
            with contextlib.suppress(OSError):  # it may be gone already
                port.close()

    def _attempt(self) -> Hello:
        """Open the port and shake hands, once."""
        self._open_port()
        return self._handshake()

    def _handshake(self) -> Hello:
        """HELLO: raises OSError when the port fails, LinkError for a wrong answer."""
        reply = self._transact(self._next_seq(), ["HELLO", str(PROTOCOL_VERSION), self.session])
        info = fields(reply)
        protocol = number(info.get("proto", ""), 65535)
        if reply[:2] != ["OK", "HELLO"] or protocol is None:
            raise LinkError(f"the device on {self.port} is not an orbito-hw ring controller")
        hello = Hello(protocol, info.get("fw", "?"), info.get("boot", ""), info.get("fault", "-"))
        if hello.protocol != PROTOCOL_VERSION:
            raise FirmwareVersionError(
                f"the ring controller on {self.port} runs firmware {hello.firmware} speaking "
                f"protocol {hello.protocol}, but this orbito-hw speaks protocol "
                f"{PROTOCOL_VERSION}: flash the firmware of this release "
                "(orbito-hw firmware install, see firmware/README.md)"
            )
        self.hello = hello
        return hello

    def _lose(self, why: str) -> None:
        """The port failed or the Pico fell silent: let go of the port and say so once;
        ``poll_events`` tries again when the reconnect policy says (a request that gave up
        leaves its schedule going on)."""
        self._close_port()
        if not self.lost:
            self.lost = f"the ring controller on {self.port} is gone ({why})"
            log.warning("%s", self.lost)
        self.reconnect.lost()

    def _wrong_firmware(self, exc: FirmwareVersionError) -> None:
        """Lost, for a reason only flashing the firmware mends: say that one."""
        self._lose(str(exc))
        if self.lost != str(exc):
            log.warning("%s", exc)
            self.lost = str(exc)

    def _retry(self) -> None:
        """One try to get a lost link back, if it is due (else a short wait, as a read
        would have made)."""
        wait = self.reconnect.remaining()
        if wait > 0:
            self._closed.wait(min(wait, self.settings.read_timeout))
            return
        if self.closed:
            return
        with contextlib.suppress(LinkError, OSError):  # the next try when due
            self._try_once()

    def _try_once(self) -> Hello:
        """One try to get the Pico back, now, whoever waits for it (the idle link, a
        request): its hello once back; else why not, raised, and the next try set by the
        reconnect policy. Firmware of another release is the link's fault until flashed."""
        try:
            hello = self._attempt()
        except FirmwareVersionError as exc:  # flashed with another release meanwhile
            self._wrong_firmware(exc)
            self.reconnect.failed()
            raise
        except (LinkError, OSError):
            self._close_port()
            self.reconnect.failed()
            raise
        self._found()
        return hello

    def _found(self) -> None:
        """The link is back (the caller sets the Pico up again: ``reconnects`` counts)."""
        if self.lost:
            log.warning("%s", _("the ring controller on {port} is back").format(port=self.port))
        self.lost = ""
        self.reconnect.succeeded()
        self.reconnects += 1
        self.reconnected.set()

    def _reconnect(self, cause: OSError) -> None:
        """In a request: reopen the port and shake hands again, each try when the reconnect
        policy says, for ``reconnect_timeout`` at most."""
        self._close_port()
        before = self.hello
        s = self.settings
        self.reconnect.lost()
        clock = self.reconnect.clock
        deadline = clock.now() + s.reconnect_timeout
        while True:
            if self.reconnect.pause(self._closed):
                raise LinkError(f"the link to {self.port} was closed")
            try:
                hello = self._try_once()
                break
            except FirmwareVersionError:
                raise
            except (LinkError, OSError) as exc:
                if clock.now() > deadline:
                    self._lose(str(cause))
                    raise LinkError(
                        f"lost the ring controller on {self.port} ({cause}) and could not "
                        f"reconnect in {s.reconnect_timeout:g} s: {exc}"
                    ) from exc
        if before is not None and hello.boot != before.boot:
            raise ControllerRestartedError(f"the ring controller on {self.port} restarted")

    def _transact(self, seq: int, words: list[str]) -> list[str]:
        """Send the frame until its reply comes; the same ``seq`` on every try."""
        frame = encode(seq, words)
        for _try in range(self.settings.retries + 1):
            self._write(frame)
            reply = self._await(seq, self.settings.reply_timeout)
            if reply is not None:
                return reply
        raise LinkTimeoutError(
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
        the way go to the listener, stale replies (to earlier tries) are dropped. Frames
        read after the reply (an event in the same read) wait for the next call."""
        port = self._serial
        if port is None:
            raise OSError("port not open")
        reply = self._take(seq)
        deadline = time.monotonic() + timeout
        while reply is None:
            try:
                data = port.read(max(1, port.in_waiting))
            except _TERMIOS_ERRORS as exc:
                raise OSError(f"read failed: {exc}") from exc
            frames = self._deframer.feed(data)
            if frames:
                self._heard = time.monotonic()
                self._frames.extend(frames)
            reply = self._take(seq)
            if reply is None and time.monotonic() >= deadline:
                return None
        return reply

    def _take(self, seq: int) -> list[str] | None:
        """Hand on the events read so far, up to the reply to ``seq`` (returned)."""
        while self._frames:
            got, words = self._frames.popleft()
            if words[0] == "EV":
                self._event(words)
            elif got == seq:
                return words
        return None

    def _event(self, words: list[str]) -> None:
        """Hand an event on; a listener that raises is a bug to log, never the end of
        the link's thread."""
        if self.on_event is None:
            return
        try:
            self.on_event(words)
        except Exception:
            self.listener_faults += 1
            text = _("ring controller on {port}: the event {event} was not handled")
            log.exception("%s", text.format(port=self.port, event=words))
