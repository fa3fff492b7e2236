"""The ``serial`` backend: the rings (and, if wired to it, the square sensors) on a Pico
running orbito-hw's firmware, reached over USB serial.

All link traffic happens on one worker thread; every callback reaches the referee
through ``Clock.post``. A move is sent once and then followed with ``STAT`` until the
Pico reports it finished. After the link comes back from an unplug the rings are homed
before the next move (homing on the index costs nothing when they already sit on it); if
the Pico restarted mid-move the move's remaining steps are lost with its memory, so the
rings are homed and the move is reported with a fault for the referee to check the board.

Between moves the link's heartbeat watches the Pico: unplugged or silent, the drive tells
its watchers (``watch``: the referee) at once that the ring controller is gone, and once
the link is back, the Pico set up and the rings homed, that it works again (``""``). A job
asked for while the link is lost fails at once with the same words. A set-up that fails (no
answer, nonsense) is a failed try to get the Pico back: the next one comes when the link's
one reconnect policy says (``hw/reconnect.py``), or at once for a job.

Whoever hears that the Pico is back, or that the rings were homed, reads the board next
(the referee's start-up check), so the squares the drive reports must be the board's by
then. The Pico's own reading lags the board: a Pico just booted counts a square only
``debounce_ms`` after its scan starts, a marble the rings carried onto a square only
``debounce_ms`` after it arrives, and what it said while the cable was out is lost. So
after setting the Pico up, after a homing that turned the rings, and after a job the cable
was pulled in, the drive waits until the Pico's squares have settled (``squares_settle``)
and reads them all again before it says so.

Nothing the Pico says reaches the referee unchecked: every number is read with its range
(``STAT``, ``SQ``, square events); a square event that is not one (a square past d4, a
field that is no number) is counted, logged and dropped, and the squares are read again
(``SQ``) to be back in step; a reply that makes no sense fails its job with a fault.

On a colour board the Pico reports its linear hall sensors' levels instead (settings
``analog=1``: ``EV LV``, and ``LV`` to read them all): the host converts them to gauss and
classifies them with the board's calibration (``SerialColourSensors``), as the Pi's own
analog backend does.
"""

from __future__ import annotations

import functools
import logging
import queue
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from orbito_fw import controller as fw
from orbito_fw.protocol import MAX_SEQ, fields

from orbito_hw.hw.analog_front import PICO_FULL_COUNT, FrontEnd, SquareColours, pico_volts
from orbito_hw.hw.hall import Calibration
from orbito_hw.hw.interfaces import Clock, FaultListener, MoveListener, MoveReport, SquareListener
from orbito_hw.hw.reconnect import Reconnect
from orbito_hw.hw.serial_link import (
    ControllerRestartedError,
    JobKind,
    LinkError,
    LinkSettings,
    SerialLink,
    number,
)
from orbito_hw.lang import _

log = logging.getLogger(__name__)

# The firmware's fault and refusal words, as a person reads them.
FAULTS = {
    fw.HOME_NO_INDEX: "homing found no index within a place of steps",
    fw.HOME_TIMEOUT: "homing took too long",
    fw.INDEX_STUCK: "the index sensor reads active all the time",
    fw.WATCHDOG: "the ring controller's watchdog restarted it",
    fw.STOPPED: "the ring controller was stopped",
    fw.BUSY: "the ring controller was busy",
    fw.BAD_VALUE: "the ring controller refused the value",
    fw.NOT_HOMED: "the rings are not homed",
}

SQUARES = 16
ALL_SQUARES = (1 << SQUARES) - 1
STATES = (fw.IDLE, fw.MOVING, fw.HOMING, fw.FAULT)
MAX_COUNT = 999_999_999  # the firmware's numbers are below 10 digits (device._int)


@dataclass(frozen=True, slots=True)
class Status:
    """A ``STAT`` reply, checked: the current or last move or homing."""

    state: str
    op: int  # the sequence number of the command that started it (-1: none yet)
    steps: int
    at_index: bool
    fault: str  # the firmware's fault word, "" for none


@dataclass
class _Job:
    kind: JobKind
    places: int
    done: MoveListener


class SerialRingDrive:
    """``RingDrive`` (and ``sensors``, a ``SquareSensors``) over a SerialLink."""

    def __init__(
        self,
        clock: Clock,
        port: str,
        settings: Mapping[str, int] | None = None,
        link_settings: LinkSettings | None = None,
        poll_interval: float = 0.003,
        move_timeout: float = 60.0,
        colour: tuple[FrontEnd, Calibration] | None = None,
        reconnect: Reconnect | None = None,
    ) -> None:
        self.clock = clock
        self.settings = dict(settings or {})
        self.poll_interval = poll_interval
        self.move_timeout = move_timeout
        self.sensors: SerialSquareSensors = (
            SerialSquareSensors(self) if colour is None else SerialColourSensors(self, *colour)
        )
        self.link = SerialLink(port, link_settings, self.sensors.on_event, reconnect)
        self.on_close: list[Callable[[], None]] = []
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._busy = 0  # jobs queued or running
        self._lock = threading.Condition()
        self._need_setup = True
        self._reconnects_seen = 0
        self._watchers: list[FaultListener] = []
        self._told = ""  # the fault the watchers last heard of ("" none)
        self.link.open()  # a wrong port or firmware version is reported here, at once
        try:
            self._setup()
        except Exception:
            self.link.close()
            raise
        self._worker = threading.Thread(target=self._run, name="serial-rings", daemon=True)
        self._worker.start()

    # -- RingDrive ------------------------------------------------------------------------

    def move(self, places: int, done: MoveListener) -> None:
        self._submit(_Job("move", places, done))

    def home(self, done: MoveListener) -> None:
        self._submit(_Job("home", 0, done))

    def watch(self, on_fault: FaultListener) -> None:
        self._watchers.append(on_fault)

    @property
    def moving(self) -> bool:
        return self._busy > 0

    @property
    def fault(self) -> str:
        """What the watchers last heard: the fault between moves, or ""."""
        return self._told

    @property
    def squares_settle(self) -> float:
        """Seconds from the rings' last step, or the Pico's scan switched on, until every
        square the Pico reports has settled: its debounce and a scan on either side (0 when
        the Pico does not scan the squares)."""
        wanted = {**fw.DEFAULTS, **self.settings}
        if not wanted["scan"]:
            return 0.0
        return (wanted["debounce_ms"] + 2 * wanted["scan_ms"]) / 1000

    def wait_idle(self, timeout: float) -> bool:
        """Block until every move and homing asked for has been reported (posted to the
        clock); False on timeout. For a simulated board whose virtual clock must not run
        ahead of the real-time link."""
        with self._lock:
            return self._lock.wait_for(lambda: self._busy == 0, timeout)

    def close(self) -> None:
        self.link.stop()
        self._jobs.put(None)
        self.link.wake()  # out of a read of the port that may be waiting for events
        self._worker.join(timeout=5)
        self.link.close()  # after the worker: never under a read in progress
        for action in self.on_close:
            action()

    # -- the worker -----------------------------------------------------------------------

    def _submit(self, job: _Job) -> None:
        with self._lock:
            self._busy += 1
        self._jobs.put(job)
        self.link.wake()  # the worker may be waiting on the port for events

    def _run(self) -> None:
        while not self.link.closed:
            try:
                job = self._jobs.get_nowait()
            except queue.Empty:
                self._idle()
                continue
            if job is None:
                return
            report = self._do(job)
            # Posted before ``moving`` turns False: whoever waits for the drive to stop
            # (a simulated board's clock) finds the report already queued.
            self.clock.post(functools.partial(job.done, report))
            with self._lock:
                self._busy -= 1
                self._lock.notify_all()

    def _idle(self) -> None:
        """Between jobs: events, the heartbeat, the link back; then tell the watchers."""
        if not (self._need_setup or self.sensors.stale or self.link.lost):
            # Set up (a Pico that restarted during a job, by ``_recover``): the watchers hear
            # so now, not after the read below, which may wait a heartbeat for a word.
            self._tell("")
        try:
            self.link.poll_events()  # waits a heartbeat at most; never raises
            self._check_reconnect()
            if not self.link.lost:
                if self._need_setup:
                    if not self.link.reconnect.due():
                        return  # a set-up that failed: tried again when the policy says
                    self._setup()
                elif self.sensors.stale:
                    self._resync_squares()
        except LinkError as exc:  # no answer or nonsense while setting up: tried again
            self._setup_failed(str(exc))
            return
        except Exception as exc:  # a bug: the worker must live on, and the referee hear
            log.exception("%s", _("the ring controller's worker failed between moves"))
            self._setup_failed(f"serial link failure: {exc!r}")
            return
        self._tell(self.link.lost or "")

    def _setup_failed(self, fault: str) -> None:
        """Setting the Pico up failed (no answer, nonsense): a failed try to get it back,
        the next when the link's one reconnect policy says (a job asked for meanwhile tries
        at once). A link lost meanwhile is already on that policy's schedule."""
        self._need_setup = True
        self._tell(self.link.lost or fault)
        if not self.link.lost:
            self.link.reconnect.failed()

    def _tell(self, fault: str) -> None:
        """Tell the watchers how the drive is, when that changed."""
        if fault == self._told:
            return
        self._told = fault
        for listener in list(self._watchers):
            self.clock.post(functools.partial(listener, fault))

    def _do(self, job: _Job) -> MoveReport:
        try:
            if self.link.lost and not self.link.reconnect_now():
                return self._cut(MoveReport(job.places, 0, False, fault=self.link.lost))
            self._check_reconnect()
            if self._need_setup:
                self._setup()
            if job.kind == "home":
                # Homing is the way back from a fault: the Pico keeps a fault latched
                # (and refuses to move) until the host clears it and homes.
                self.link.request("CLEAR")
                report = self._operate(["HOME"], 0)
            else:
                report = self._move(job.places)
            # A homing is followed by a look at the board (the start-up check), and a job
            # the cable was pulled in lost the square events the Pico sent meanwhile: the
            # report goes once the squares are the board's. A move's own squares come as
            # events, which the referee lets settle after it.
            turned = job.kind == "home" and report.steps > 0 and self.squares_settle > 0
            if turned or self.link.reconnects != self._reconnects_seen:
                self._read_settled_squares()
            return report
        except ControllerRestartedError as exc:
            return self._cut(self._recover(job, str(exc)))
        except LinkError as exc:
            self._need_setup = True
            return self._cut(MoveReport(job.places, 0, False, fault=str(exc)))
        except Exception as exc:  # the worker must live on: every job gets its report
            text = _("the ring controller's worker failed in a ring {job}")
            log.exception("%s", text.format(job=job.kind))
            self._need_setup = True
            return MoveReport(job.places, 0, False, fault=f"serial link failure: {exc!r}")

    def _cut(self, report: MoveReport) -> MoveReport:
        """A job the link cut: its report tells the fault, and the watchers count as told,
        so that they hear "" once the link is back and set up (``_idle``): the referee then
        homes and checks the board by itself, where a fault of the rings' own (a jam) waits
        for a person to press."""
        self._told = report.fault or self._told
        return report

    def _move(self, places: int) -> MoveReport:
        """``MOVE places``, as the firmware reads it: a negative number turns the rings back
        (clockwise, ``MOVE -1``); the Pico refuses more than 100 places either way."""
        report = self._operate(["MOVE", str(places)], places)
        if report.fault == FAULTS[fw.NOT_HOMED]:
            # Refused, not run: home (to the place the rings are nearest ahead) and go.
            homed = self._operate(["HOME"], 0)
            if homed.fault:
                return MoveReport(places, 0, False, fault=homed.fault)
            report = self._operate(["MOVE", str(places)], places)
        return report

    def _operate(self, command: list[str], places: int) -> MoveReport:
        """Start a move or a homing and follow it with STAT until it ends."""
        reply = self.link.request(*command)
        if reply[0] != "OK":
            code = reply[1]
            if code == fw.FAULT:  # refused: name the latched fault
                latched = self._status().fault or "?"
                text = FAULTS.get(latched, latched)
                return MoveReport(places, 0, False, fault=f"refused after a fault: {text}")
            return MoveReport(places, 0, False, fault=FAULTS.get(code, code))
        op = self.link.last_seq
        deadline = time.monotonic() + self.move_timeout
        while True:
            stat = self._status()
            if stat.state in (fw.IDLE, fw.FAULT):
                if stat.op == op:
                    break
                # Not ours and not running: a Pico that restarted behind our back.
                return MoveReport(places, 0, False, fault="the ring controller lost the move")
            if time.monotonic() > deadline:
                self.link.request("STOP")
                return MoveReport(places, 0, False, fault="the ring move did not finish")
            time.sleep(self.poll_interval)
        return MoveReport(places, stat.steps, stat.at_index, FAULTS.get(stat.fault, stat.fault))

    def _status(self) -> Status:
        """``STAT``, every field checked (a protocol fault otherwise)."""
        reply = self.link.request("STAT")
        if reply[0] != "OK":
            raise self.link.protocol_fault(f"refused STAT: {' '.join(reply)!r}")
        info = fields(reply)
        state, fault = info.get("state", ""), info.get("fault", "")
        op = -1 if info.get("op") == "-1" else number(info.get("op", ""), MAX_SEQ)
        steps = number(info.get("steps", ""), MAX_COUNT)
        index = info.get("index", "")
        if state not in STATES or op is None or steps is None or index not in ("0", "1"):
            raise self.link.protocol_fault(f"answered STAT with {' '.join(reply)!r}")
        return Status(state, op, steps, index == "1", "" if fault == "-" else fault)

    def _recover(self, job: _Job, why: str) -> MoveReport:
        """The Pico restarted during the job: set it up and home the rings."""
        self._check_reconnect()  # this reconnect is set up here, not once more between jobs
        try:
            homed = self._setup() or self._operate(["HOME"], 0)
        except LinkError as exc:
            self._need_setup = True
            return MoveReport(job.places, 0, False, fault=f"{why}; {exc}")
        return MoveReport(
            job.places,
            homed.steps,
            homed.at_index,
            fault=f"{why} during the ring {job.kind}; the rings were homed"
            + (f" ({homed.fault})" if homed.fault else ""),
        )

    def _check_reconnect(self) -> None:
        if self.link.reconnects != self._reconnects_seen:
            self._reconnects_seen = self.link.reconnects
            self._need_setup = True

    def _setup(self) -> MoveReport | None:
        """Settings, then homing when the link came back (the homing's report)."""
        self._need_setup = True
        words = [f"{key}={value}" for key, value in sorted(self.settings.items())]
        if words:
            reply = self.link.request("CFG", *words)
            if reply[0] != "OK":
                raise LinkError(f"the ring controller refused its settings: {' '.join(reply)}")
        if self.link.hello is not None and self.link.hello.fault != "-":
            self.link.request("CLEAR")  # reported at the handshake; homing checks the rings
        homed = None
        if self._reconnects_seen or self.link.reconnects:
            homed = self._operate(["HOME"], 0)
        # The watchers hear that the Pico is back right after this: a Pico that has just
        # booted (its scan switched on by the CFG) or whose homing carried marbles onto
        # their squares does not count them yet.
        self._read_settled_squares()
        self._need_setup = False
        self.link.reconnect.succeeded()
        return homed

    def _read_settled_squares(self) -> None:
        """Wait until the Pico's squares have settled, then read every one of them."""
        self.link.pause(self.squares_settle)
        self._resync_squares()

    def _resync_squares(self) -> None:
        """Read every square (``SQ``, or ``LV`` on a colour board) and report what changed
        while nobody listened."""
        self.sensors.stale = False
        if isinstance(self.sensors, SerialColourSensors):
            reply = self.link.request("LV")
            levels = parse_levels(fields(reply).get("levels", ""))
            if reply[0] != "OK" or levels is None:
                self.sensors.stale = True
                raise self.link.protocol_fault(f"answered LV with {' '.join(reply)!r}")
            self.sensors.resync_levels(levels)
            return
        reply = self.link.request("SQ")
        mask = number(fields(reply).get("mask", ""), ALL_SQUARES)
        if reply[0] != "OK" or mask is None:
            self.sensors.stale = True
            raise self.link.protocol_fault(f"answered SQ with {' '.join(reply)!r}")
        self.sensors.resync(mask)


def square_event(words: list[str]) -> tuple[int, bool] | None:
    """``EV SQ <square> <0|1> <ms>`` as (square, present); None for anything else."""
    if len(words) != 5 or words[:2] != ["EV", "SQ"] or words[3] not in ("0", "1"):
        return None
    square = number(words[2], SQUARES - 1)
    if square is None or number(words[4], MAX_COUNT * 1000) is None:
        return None
    return square, words[3] == "1"


class SerialSquareSensors:
    """``SquareSensors`` fed by the Pico's debounced square events (settings ``scan=1``)."""

    def __init__(self, drive: SerialRingDrive) -> None:
        self.drive = drive
        self.stale = False  # an event was lost to nonsense: read every square again
        self.bad_events = 0
        self._mask = 0
        self._listeners: list[SquareListener] = []

    def read(self) -> int:
        return self._mask

    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def close(self) -> None:
        self._listeners.clear()

    def on_event(self, words: list[str]) -> None:
        """On the worker thread: an event frame from the Pico, checked."""
        event = square_event(words)
        if event is None:
            self.bad_events += 1
            self.stale = True  # the worker reads every square again between jobs
            self.drive.link.protocol_fault(f"sent the event {' '.join(words)!r}")
            return
        self._change(*event)

    def resync(self, mask: int) -> None:
        """After (re)connecting: report every square that changed while nobody listened."""
        for square in range(SQUARES):
            if (mask ^ self._mask) >> square & 1:
                self._change(square, bool(mask >> square & 1))

    def _change(self, square: int, present: bool) -> None:
        if present:
            self._mask |= 1 << square
        else:
            self._mask &= ~(1 << square)
        clock = self.drive.clock
        for listener in list(self._listeners):
            clock.post(functools.partial(_tell, clock, listener, square, present))


def _tell(clock: Clock, listener: SquareListener, square: int, present: bool) -> None:
    listener(square, present, clock.now())


def level_event(words: list[str]) -> tuple[int, int] | None:
    """``EV LV <square> <level> <ms>`` as (square, level); None for anything else."""
    if len(words) != 5 or words[:2] != ["EV", "LV"]:
        return None
    square, level = number(words[2], SQUARES - 1), number(words[3], PICO_FULL_COUNT)
    if square is None or level is None or number(words[4], MAX_COUNT * 1000) is None:
        return None
    return square, level


def parse_levels(text: str) -> list[int | None] | None:
    """``LV``'s ``levels=``: 16 levels, -1 for one not read yet; None if it is not that."""
    words = text.split(",")
    if len(words) != SQUARES:
        return None
    levels = [None if w == "-1" else number(w, PICO_FULL_COUNT) for w in words]
    if any(level is None and w != "-1" for level, w in zip(levels, words, strict=True)):
        return None
    return levels


class SerialColourSensors(SerialSquareSensors):
    """``ColourSensors`` fed by the Pico's levels (settings ``scan=1 analog=1``), each
    converted to gauss (``front``: the sensors' zero and sensitivity) and classified here
    with the board's calibration."""

    def __init__(self, drive: SerialRingDrive, front: FrontEnd, calibration: Calibration) -> None:
        super().__init__(drive)
        self.front = front
        self.core = SquareColours(drive.clock, calibration)

    def read(self) -> int:
        return self.core.read()

    def colours(self) -> tuple[int, int]:
        return self.core.colours()

    def gauss(self) -> tuple[float, ...]:
        return self.core.gauss()

    @property
    def scan_period(self) -> float:
        return self.front.scan_ms / 1000

    def subscribe(self, listener: SquareListener) -> None:
        self.core.subscribe(listener)

    def close(self) -> None:
        self.core.forget_listeners()

    def on_event(self, words: list[str]) -> None:
        """On the worker thread: a level from the Pico, checked."""
        event = level_event(words)
        if event is None:
            self.bad_events += 1
            self.stale = True
            self.drive.link.protocol_fault(f"sent the event {' '.join(words)!r}")
            return
        square, level = event
        self.core.take(square, self.front.gauss(pico_volts(level)))

    def resync_levels(self, levels: list[int | None]) -> None:
        for square, level in enumerate(levels):
            if level is not None:
                self.core.take(square, self.front.gauss(pico_volts(level)))
