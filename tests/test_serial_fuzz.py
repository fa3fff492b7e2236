"""The host's side of the serial link against a Pico that sends nonsense: arbitrary bytes and
well-framed frames (their CRC good) of any kind with any fields, before, between and after
the firmware's own replies and events.

Whatever comes, nothing raises in the link's thread or reaches the listeners unchecked: no
square past d4, no present that is not a bool; every request ends in its answer or a
``LinkError`` (a protocol fault), every ring move in a report, and once the noise stops the
drive works as before. Most runs use ``MemoryPico`` (the firmware's ``Device`` behind an
in-memory port, put where pyserial's ``Serial`` would be), so hypothesis can try hundreds
of streams in seconds; a few go through a real pty (``FakePico``).
"""

from __future__ import annotations

import dataclasses
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import serial
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from orbito_fw.controller import RingController
from orbito_fw.device import Device
from orbito_fw.protocol import MAX_FRAME, Deframer, encode

from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.hw.serial_backend import SerialRingDrive, square_event
from orbito_hw.hw.serial_link import LinkSettings, ProtocolError, SerialLink
from orbito_hw.sim.pico import MOCK_SETTINGS, FakePico, FirmwarePort

from .common.standin_rings import StandInRings

pytestmark = pytest.mark.fuzz  # hundreds of examples: the long tier

SPP = 50
FAST = {**MOCK_SETTINGS, "spp": SPP}  # moves of a few milliseconds
SCAN = {**FAST, "scan": 1, "scan_ms": 1, "debounce_ms": 2}
# Short tries: a frame taken for the reply it is not must not cost seconds per example; a
# short heartbeat too, since an idle read waits for the heartbeat (1 s by default) when the
# noise holds no frame, and that wait was most of this file's time (300 examples).
BRISK = LinkSettings(
    read_timeout=0.002,
    reply_timeout=0.02,
    retries=2,
    heartbeat=0.05,
    backoff_first=0.01,
    backoff_max=0.05,
)
# The link alone (no drive polling it): the heartbeat due as soon as a read finds nothing, so
# that the check between the two requests (read what came, PING if the Pico was quiet) PINGs
# at once instead of waiting 50 ms of nothing in each of 300 examples (most of their time).
PROMPT = dataclasses.replace(BRISK, heartbeat=BRISK.read_timeout)
WAIT = 10.0

# --- what a Pico might send -----------------------------------------------------------------
NUMBERS = ["-1", "0", "1", "2", "15", "16", "99", "65535", "65536", "00", "1" * 40]
PROTOCOL_WORDS = ["EV", "SQ", "OK", "ERR", "PING", "STAT", "HELLO", "MOVE", "HOME", "CFG"]
STAT_KEYS = ["state", "op", "steps", "index", "fault", "mask", "proto", "boot"]
ANY_WORD = st.text(
    alphabet=st.characters(min_codepoint=0x21, max_codepoint=0x7E, exclude_characters="$*"),
    min_size=1,
    max_size=12,
)
WORD = st.one_of(
    st.sampled_from(PROTOCOL_WORDS + NUMBERS),
    st.builds("{}={}".format, st.sampled_from(STAT_KEYS), st.sampled_from([*NUMBERS, "idle"])),
    ANY_WORD,
)
SQUARE_EVENT_LIKE = st.builds(
    lambda square, present, ms: ["EV", "SQ", square, present, ms],
    st.sampled_from(NUMBERS) | ANY_WORD,
    st.sampled_from(["0", "1", "2", "-1", "yes"]),
    st.sampled_from(NUMBERS) | ANY_WORD,
)
WORDS = st.one_of(
    SQUARE_EVENT_LIKE,
    st.lists(WORD, min_size=1, max_size=7).map(lambda ws: ["EV", *ws]),
    st.lists(WORD, min_size=1, max_size=7),
)
FRAME = st.builds(encode, st.integers(0, 65535), WORDS)
CHUNK = st.one_of(FRAME, st.binary(max_size=40), st.sampled_from([b"$", b"\n", b"\r\n", b"*"]))
NOISE = st.lists(CHUNK, max_size=8).map(b"".join)


def _now_us() -> int:
    return time.monotonic_ns() // 1000


class MemoryPico:
    """The firmware's ``Device`` behind an in-memory port: each frame the host writes is
    answered at once, the rings step as time passes, and ``inject`` puts any bytes on the
    line. ``serial`` stands in for ``serial.Serial``. Thread-safe: the drive's worker
    reads and writes while the test injects."""

    def __init__(self, rings: StandInRings) -> None:
        self.rings = rings
        self.device = Device(RingController(FirmwarePort(rings)), "b007b007")
        self._lock = threading.Lock()
        self._out = bytearray()
        self._after_reply = b""
        # when the firmware wants polling next (µs): from now, as a Pico just plugged in; from
        # 0 each example's first read polled an idle Pico once a second of the machine's
        # uptime (thousands of polls, tens of ms) before it answered
        self._wake = _now_us()

    def inject(self, data: bytes) -> None:
        with self._lock:
            self._out += data

    def after_next_reply(self, data: bytes) -> None:
        """``data`` right behind the next reply, in the same read (an event that follows)."""
        self._after_reply = data

    def serial(self, port: str, baudrate: int, **options: object) -> MemoryPort:
        timeout = options.get("timeout")
        return MemoryPort(self, timeout if isinstance(timeout, float) else 0.0)

    def feed(self, data: bytes) -> None:
        with self._lock:
            now = self._run_until(_now_us())
            self.device.feed(data, now)
            self._out += self.device.take_output() + self._after_reply
            self._after_reply = b""

    def take(self, size: int) -> bytes:
        with self._lock:
            self._run_until(_now_us())
            self._out += self.device.take_output()
            data = bytes(self._out[:size])
            del self._out[:size]
            return data

    def _run_until(self, now: int) -> int:
        """Poll the firmware at each moment it asked for, up to ``now``: every step due by
        then is made, as a Pico's tight loop makes them, however seldom the host reads."""
        moment = min(self._wake, now)
        for _ in range(100_000):
            self._wake = self.device.poll(moment)
            if self._wake > now:
                break
            moment = self._wake
        return now

    def waiting(self) -> int:
        with self._lock:
            return len(self._out)


class MemoryPort:
    """As much of ``serial.Serial`` as the link uses."""

    def __init__(self, pico: MemoryPico, timeout: float) -> None:
        self.pico = pico
        self.timeout = timeout
        self._cancel = threading.Event()

    @property
    def in_waiting(self) -> int:
        return self.pico.waiting()

    def read(self, size: int = 1) -> bytes:
        deadline = time.monotonic() + self.timeout
        while not (data := self.pico.take(size)) and time.monotonic() < deadline:
            if self._cancel.wait(0.0005):
                break
        self._cancel.clear()
        return data

    def write(self, data: bytes) -> int:
        self.pico.feed(bytes(data))
        return len(data)

    def flush(self) -> None:
        pass

    def reset_input_buffer(self) -> None:
        pass

    def cancel_read(self) -> None:
        self._cancel.set()

    def close(self) -> None:
        pass


class Problems(logging.Handler):
    """Every log record at ERROR or above (a ``log.exception`` is a traceback)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@contextmanager
def on_memory(rings: StandInRings) -> Iterator[tuple[MemoryPico, Problems]]:
    """A MemoryPico where pyserial's Serial would be, and the log's errors collected."""
    pico = MemoryPico(rings)
    problems = Problems()
    logger = logging.getLogger("orbito_hw")
    logger.addHandler(problems)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(serial, "Serial", pico.serial)
            yield pico, problems
    finally:
        logger.removeHandler(problems)


class Squares:
    """A square listener that remembers what it was told, from any thread."""

    def __init__(self) -> None:
        self.seen: list[tuple[object, object, object]] = []
        self._lock = threading.Lock()

    def __call__(self, square: int, present: bool, when: float) -> None:
        with self._lock:
            self.seen.append((square, present, when))

    def all_valid(self) -> bool:
        with self._lock:
            return all(
                type(square) is int and 0 <= square < 16 and type(present) is bool
                for square, present, _ in self.seen
            )


class Reports:
    def __init__(self) -> None:
        self.items: list[MoveReport] = []
        self._cond = threading.Condition()

    def __call__(self, report: MoveReport) -> None:
        with self._cond:
            self.items.append(report)
            self._cond.notify_all()

    def next(self, count: int) -> MoveReport:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.items) >= count, WAIT), self.items
            return self.items[count - 1]


class ThreadClock:
    """Posted callbacks run at once, on the poster's thread (the drive's worker)."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: object) -> None:
        raise NotImplementedError

    def post(self, callback: object) -> None:
        assert callable(callback)
        callback()


# --- the link -------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(NOISE, NOISE)
def test_noise_around_a_reply_gives_its_answer_or_a_protocol_fault(
    before: bytes, after: bytes
) -> None:
    events: list[list[str]] = []
    with on_memory(StandInRings(SPP)) as (pico, problems):
        link = SerialLink("mem", PROMPT, on_event=events.append)
        link.open()
        pico.inject(before)
        pico.after_next_reply(after)
        try:
            assert link.request("PING") == ["OK", "PING"]
        except ProtocolError as fault:  # a good frame with this very number, not OK PING
            assert "answered PING with" in str(fault) and link.protocol_faults == 1
        link.poll_events()  # never raises
        assert all(words[0] == "EV" for words in events)
        assert link.request("PING") == ["OK", "PING"] and not link.lost  # and it goes on
        assert problems.records == []
        link.close()


def test_an_event_read_together_with_a_reply_is_not_lost() -> None:
    events: list[list[str]] = []
    with on_memory(StandInRings(SPP)) as (pico, _):
        link = SerialLink("mem", BRISK, on_event=events.append)
        link.open()
        pico.after_next_reply(encode(7, ["EV", "SQ", "3", "1", "10"]))
        assert link.request("PING") == ["OK", "PING"]
        link.poll_events()
        assert events == [["EV", "SQ", "3", "1", "10"]]
        link.close()


@given(WORDS)
def test_a_square_event_is_a_square_and_a_bool_or_nothing(words: list[str]) -> None:
    event = square_event(words)
    if event is not None:
        square, present = event
        assert 0 <= square <= 15 and words[2] == str(square) and words[3] in ("0", "1")
        assert present is (words[3] == "1") and len(words) == 5


@pytest.mark.parametrize(
    "words",
    [
        ["EV", "SQ", "16", "1", "0"],  # defect 6: a square that does not exist
        ["EV", "SQ", "99", "1", "0"],
        ["EV", "SQ", "-1", "1", "0"],
        ["EV", "SQ", "3", "2", "0"],
        ["EV", "SQ", "3", "1"],
        ["EV", "SQ", "3", "1", "0", "extra"],
        ["EV", "SQ", "0x3", "1", "0"],
        ["EV", "SQ", "3", "1", "soon"],
        ["EV", "SQ", "1" * 40, "1", "0"],
        ["EV", "KNOCK"],
    ],
)
def test_events_the_firmware_never_sends_are_refused(words: list[str]) -> None:
    assert square_event(words) is None


# --- the drive ------------------------------------------------------------------------------
@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NOISE, NOISE, st.integers(0, 0xFFFF))
def test_a_babbling_pico_never_reaches_the_squares_unchecked_and_the_drive_goes_on(
    before: bytes, between: bytes, squares: int
) -> None:
    rings = StandInRings(SPP)
    with on_memory(rings) as (pico, problems):
        drive = SerialRingDrive(ThreadClock(), "mem", SCAN, BRISK)
        seen = Squares()
        drive.sensors.subscribe(seen)
        reports = Reports()
        try:
            pico.inject(before)
            rings.squares = squares
            drive.move(1, reports)
            first = reports.next(1)
            assert first == MoveReport(1, SPP, True) or first.fault  # done, or a fault
            pico.inject(between)
            drive.home(reports)
            reports.next(2)
            # The noise is over: the drive works as before (a fault it met is behind it).
            for count in range(3, 6):
                drive.home(reports)
                if not reports.next(count).fault:
                    break
            drive.move(1, reports)
            assert reports.next(count + 1) == MoveReport(1, SPP, True)
            if not tells_of_squares(before + between):  # a lie the host cannot see through
                assert wait_for(lambda: drive.sensors.read() == squares)
            assert seen.all_valid() and problems.records == []
        finally:
            drive.close()


def test_a_square_past_d4_is_counted_dropped_and_the_squares_read_again() -> None:
    rings = StandInRings(SPP)
    with on_memory(rings) as (pico, problems):
        drive = SerialRingDrive(ThreadClock(), "mem", SCAN, BRISK)
        seen = Squares()
        drive.sensors.subscribe(seen)
        try:
            asked = pico.device.acted.get("SQ", 0)
            pico.inject(encode(40, ["EV", "SQ", "99", "1", "5"]))
            assert wait_for(lambda: drive.sensors.bad_events == 1)
            assert wait_for(lambda: pico.device.acted.get("SQ", 0) == asked + 1)  # back in step
            assert seen.seen == [] and drive.sensors.read() == 0
            assert drive.link.protocol_faults == 1 and drive.fault == ""
            assert problems.records == []
        finally:
            drive.close()


def test_a_status_that_makes_no_sense_fails_the_move_with_a_fault_and_no_traceback() -> None:
    rings = StandInRings(SPP)
    with on_memory(rings) as (pico, problems):
        drive = SerialRingDrive(ThreadClock(), "mem", FAST, BRISK)
        reports = Reports()
        try:
            real = pico.device._stat

            def lying() -> list[str]:
                return ["steps=lots" if w.startswith("steps=") else w for w in real()]

            pico.device._stat = lying  # type: ignore[method-assign]
            drive.move(1, reports)
            fault = reports.next(1).fault
            assert "answered STAT with" in fault and "steps=lots" in fault
            pico.device._stat = real  # type: ignore[method-assign]
            drive.home(reports)
            drive.move(1, reports)
            assert reports.next(3) == MoveReport(1, SPP, True)
            assert problems.records == []
        finally:
            drive.close()


def tells_of_squares(noise: bytes) -> bool:
    """Whether ``noise`` holds a square event as the firmware sends them: the host believes
    it (a sensor may truly change), so the squares it reports are not the rings' own."""
    return any(square_event(words) for _, words in Deframer().feed(noise))


def wait_for(condition: object, timeout: float = WAIT) -> bool:
    assert callable(condition)
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)
    return True


# --- over a real pty ------------------------------------------------------------------------
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NOISE, st.integers(0, 0xFFFF))
def test_noise_over_a_pty_ends_in_normal_work_or_a_fault(noise: bytes, squares: int) -> None:
    rings = StandInRings(SPP)
    problems = Problems()
    logging.getLogger("orbito_hw").addHandler(problems)
    with FakePico(rings) as pico:
        drive = SerialRingDrive(ThreadClock(), pico.path, SCAN, BRISK)
        seen = Squares()
        drive.sensors.subscribe(seen)
        reports = Reports()
        try:
            pico.inject(noise)
            rings.squares = squares
            drive.move(1, reports)
            first = reports.next(1)
            assert first == MoveReport(1, SPP, True) or first.fault
            if not tells_of_squares(noise):
                assert wait_for(lambda: drive.sensors.read() == squares)
            assert seen.all_valid() and problems.records == []
        finally:
            drive.close()
            logging.getLogger("orbito_hw").removeHandler(problems)


def test_frames_longer_than_the_protocol_allows_are_noise() -> None:
    events: list[list[str]] = []
    with on_memory(StandInRings(SPP)) as (pico, _):
        link = SerialLink("mem", BRISK, on_event=events.append)
        link.open()
        pico.inject(encode(9, ["EV", "SQ", "3", "1", "0" * MAX_FRAME]))
        assert link.request("PING") == ["OK", "PING"]
        assert events == [] and link.bad_frames == 1
        link.close()
