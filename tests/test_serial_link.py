"""The host's serial link and backend against the simulated Pico, over real pseudo-
terminals: handshake and version check, exclusive open, timeouts, corrupted replies,
ring moves, lost steps, square events, and unplugging mid-move (the move happens once)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator

import orbito_fw.device
import pytest
from orbito_fw.protocol import PROTOCOL_VERSION

from orbito_hw.errors import OrbitoError
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.hw.serial_backend import SerialRingDrive
from orbito_hw.hw.serial_link import (
    FirmwareVersionError,
    LinkError,
    LinkSettings,
    LinkTimeout,
    SerialLink,
)
from orbito_hw.sim.pico import FakePico, mock_serial_drive

from .standin_rings import StandInRings

SPP = 50
FAST = {"spp": SPP, "speed": 4000, "accel": 200000, "home_speed": 4000}
SLOW = {"spp": SPP, "speed": 500, "accel": 20000, "home_speed": 500}  # 3 places: ~0.35 s
QUICK_LINK = LinkSettings(backoff_first=0.01, backoff_max=0.1, reconnect_timeout=10.0)
WAIT = 10.0  # generous: nothing here should take more than a fraction of it


class ThreadClock:
    """Clock whose posted callbacks run at once on the poster's thread."""

    def now(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> None:
        raise NotImplementedError

    def post(self, callback: Callable[[], None]) -> None:
        callback()


class Reports:
    """Collects MoveReports; ``wait(n)`` blocks until n have come."""

    def __init__(self) -> None:
        self.items: list[MoveReport] = []
        self._cond = threading.Condition()

    def __call__(self, report: MoveReport) -> None:
        with self._cond:
            self.items.append(report)
            self._cond.notify_all()

    def wait(self, count: int = 1) -> list[MoveReport]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.items) >= count, WAIT), self.items
            return list(self.items)


@pytest.fixture
def rings() -> StandInRings:
    return StandInRings(SPP)


@pytest.fixture
def pico(rings: StandInRings) -> Iterator[FakePico]:
    with FakePico(rings) as pico:
        yield pico


def drive_for(pico: FakePico, settings: dict[str, int] = FAST) -> SerialRingDrive:
    return SerialRingDrive(ThreadClock(), pico.path, settings, QUICK_LINK)


def test_the_handshake_names_the_firmware_and_its_boot(pico: FakePico) -> None:
    link = SerialLink(pico.path)
    hello = link.open()
    assert hello.protocol == PROTOCOL_VERSION and hello.boot == pico.device.boot_id
    assert link.request("PING") == ["OK", "PING"]
    link.close()


def test_a_firmware_with_another_protocol_is_refused_clearly(
    pico: FakePico, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(orbito_fw.device, "PROTOCOL_VERSION", PROTOCOL_VERSION + 1)
    with pytest.raises(FirmwareVersionError) as caught:
        drive_for(pico)
    message = str(caught.value)
    assert f"speaking protocol {PROTOCOL_VERSION + 1}" in message
    assert f"speaks protocol {PROTOCOL_VERSION}" in message and "firmware install" in message
    assert isinstance(caught.value, OrbitoError)  # the CLI reports it in one line


def test_the_port_is_opened_exclusively(pico: FakePico) -> None:
    first = SerialLink(pico.path)
    first.open()
    with pytest.raises(LinkError, match="cannot open"):
        SerialLink(pico.path).open()
    first.close()


def test_a_missing_port_is_named(tmp_path: object) -> None:
    with pytest.raises(LinkError, match="/nonexistent/ttyPico"):
        SerialLink("/nonexistent/ttyPico").open()


def test_a_controller_that_never_answers_times_out(pico: FakePico) -> None:
    pico.output_filter = lambda out: b""  # every reply lost
    link = SerialLink(pico.path, LinkSettings(reply_timeout=0.05, retries=2))
    with pytest.raises(LinkTimeout, match=r"did not answer HELLO \(3 tries"):
        link.open()
    assert pico.device.frames == 3  # the same frame, three times
    link.close()


def test_corrupted_replies_and_garbage_are_retried_through(pico: FakePico) -> None:
    spoiled = [0]

    def spoil(out: bytes) -> bytes:
        if spoiled[0] < 2:  # the first two replies: a bit flipped, garbage around
            spoiled[0] += 1
            bad = bytearray(out)
            bad[3] ^= 0x10
            return b"\x00\xffnoise" + bytes(bad) + b"$12 OK"
        return b"junk" + out

    pico.output_filter = spoil
    link = SerialLink(pico.path, LinkSettings(reply_timeout=0.05))
    hello = link.open()
    assert hello.boot == pico.device.boot_id
    assert link.request("PING") == ["OK", "PING"]
    assert pico.device.frames == 4  # HELLO sent three times, PING once
    link.close()


def test_ring_moves_over_the_link(pico: FakePico, rings: StandInRings) -> None:
    drive = drive_for(pico)
    reports = Reports()
    drive.move(3, reports)
    drive.move(1, reports)
    assert drive.moving
    assert reports.wait(2) == [MoveReport(3, 150, True), MoveReport(1, 50, True)]
    assert rings.position == 200 and not drive.moving
    drive.close()


def test_lost_steps_are_reported_and_the_next_move_homes_first(
    pico: FakePico, rings: StandInRings
) -> None:
    drive = drive_for(pico)
    reports = Reports()
    drive.home(reports)
    reports.wait(1)
    rings.slip = 4
    drive.move(2, reports)
    assert reports.wait(2)[1] == MoveReport(2, 100, False)
    assert rings.position == 96
    drive.move(1, reports)
    assert reports.wait(3)[2] == MoveReport(1, 50, True)
    assert rings.position == 150  # homed to 100, then one place
    drive.close()


def test_square_changes_arrive_as_events(pico: FakePico, rings: StandInRings) -> None:
    drive = drive_for(pico, {**FAST, "scan": 1, "scan_ms": 1, "debounce_ms": 5})
    seen: list[tuple[int, bool]] = []
    two = threading.Event()

    def listener(square: int, present: bool, when: float) -> None:
        seen.append((square, present))
        if len(seen) == 2:
            two.set()

    drive.sensors.subscribe(listener)
    rings.squares = 0b1000_0000_0000_0001
    assert two.wait(WAIT)
    assert sorted(seen) == [(0, True), (15, True)] and drive.sensors.read() == 0x8001
    drive.close()


def test_unplugged_mid_move_the_move_completes_exactly_once(
    pico: FakePico, rings: StandInRings
) -> None:
    drive = drive_for(pico, SLOW)
    reports = Reports()
    drive.home(reports)
    reports.wait(1)
    drive.move(3, reports)
    assert rings.when_pulses(40).wait(WAIT)
    pico.unplug()  # the Pico keeps its power and goes on with the move
    assert rings.when_pulses(80).wait(WAIT)
    pico.replug()
    assert reports.wait(2)[1] == MoveReport(3, 150, True)
    assert rings.position == 150 and pico.device.acted["MOVE"] == 1
    drive.move(1, reports)  # and the link works on
    assert reports.wait(3)[2] == MoveReport(1, 50, True)
    assert rings.position == 200 and len(reports.items) == 3
    drive.close()


def test_a_move_whose_reply_was_lost_with_the_cable_is_not_run_twice(
    pico: FakePico, rings: StandInRings
) -> None:
    drive = drive_for(pico, SLOW)
    reports = Reports()
    drive.home(reports)
    reports.wait(1)
    pico.unplug_after = "MOVE"  # the MOVE arrives; the cable goes before its reply
    drive.move(2, reports)
    assert pico.unplugged.wait(WAIT)
    pico.replug()
    assert reports.wait(2)[1] == MoveReport(2, 100, True)
    assert rings.position == 100
    assert pico.device.acted["MOVE"] == 1  # the retry was answered from memory
    drive.close()


def test_after_a_reconnect_the_rings_are_homed(pico: FakePico, rings: StandInRings) -> None:
    drive = drive_for(pico)
    reports = Reports()
    drive.move(1, reports)
    reports.wait(1)
    pico.unplug()
    rings.position += 7  # someone turned the rings while the cable was out
    pico.replug()
    assert drive.link.reconnected.wait(WAIT)  # noticed while idle, reading for events
    drive.move(1, reports)
    assert reports.wait(2)[1] == MoveReport(1, 50, True)
    assert rings.position == 150  # homed on to 100 first, then one place
    drive.close()


def test_a_pico_restarting_mid_move_is_homed_and_the_move_reported_faulty(
    pico: FakePico, rings: StandInRings
) -> None:
    drive = drive_for(pico, SLOW)
    reports = Reports()
    drive.home(reports)
    reports.wait(1)
    drive.move(3, reports)
    assert rings.when_pulses(60).wait(WAIT)
    pico.restart()  # power lost: the move stops where it is
    report = reports.wait(2)[1]
    assert "restarted" in report.fault and report.at_index
    assert rings.position % SPP == 0 and 100 <= rings.position <= 150
    drive.close()


def test_the_mock_serial_drive_runs_the_firmware_behind_a_pty(rings: StandInRings) -> None:
    clock = VirtualClock()
    drive = mock_serial_drive(clock, rings, SPP)
    reports = Reports()
    drive.move(2, reports)
    assert drive.wait_idle(WAIT) and not drive.moving
    assert reports.items == []  # posted to the virtual clock, which has not run yet
    clock.advance(0.0)
    assert reports.items == [MoveReport(2, 100, True)]
    drive.close()


def test_a_fault_refuses_moves_with_its_name_until_the_rings_are_homed(
    pico: FakePico, rings: StandInRings
) -> None:
    drive = drive_for(pico, {**FAST, "home_margin": 5})
    reports = Reports()
    rings.spp = 10**6  # the index sensor is gone (a loose magnet)
    rings.position = 1
    drive.home(reports)
    assert reports.wait(1)[0] == MoveReport(
        0, 55, False, "homing found no index within a place of steps"
    )
    drive.move(1, reports)
    refused = reports.wait(2)[1]
    assert refused.fault == "refused after a fault: homing found no index within a place of steps"
    assert rings.pulses == 55  # not one step more
    rings.spp, rings.position = SPP, 40  # repaired
    drive.home(reports)
    drive.move(1, reports)
    assert reports.wait(4)[2:] == [MoveReport(0, 10, True), MoveReport(1, 50, True)]
    drive.close()


def test_settings_the_pico_refuses_are_a_clear_error(pico: FakePico) -> None:
    with pytest.raises(LinkError, match="refused its settings: ERR bad_value spp"):
        drive_for(pico, {"spp": 0})
    link = SerialLink(pico.path)
    link.open()  # the port was let go
    link.close()
