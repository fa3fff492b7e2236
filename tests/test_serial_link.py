"""The host's serial link and backend against the simulated Pico, over real pseudo-
terminals: handshake and version check, exclusive open, timeouts, corrupted replies,
ring moves, lost steps, square events, unplugging mid-move (the move happens once), and
the heartbeat: a Pico unplugged or silent while the rings are idle is a fault the referee
shows within a few seconds, and the board resumes once it is back."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import orbito_fw.device
import pytest
from orbito_fw.protocol import PROTOCOL_VERSION

from orbito_hw.control.journal import Journal
from orbito_hw.control.lights import Palette
from orbito_hw.control.referee import Referee, State
from orbito_hw.control.settings import Settings
from orbito_hw.errors import OrbitoError
from orbito_hw.hw.clock import LoopClock, VirtualClock
from orbito_hw.hw.interfaces import Board, MoveReport
from orbito_hw.hw.serial_backend import SerialRingDrive
from orbito_hw.hw.serial_link import (
    FirmwareVersionError,
    LinkError,
    LinkSettings,
    LinkTimeoutError,
    SerialLink,
)
from orbito_hw.rules.game import Colour
from orbito_hw.sim.board import SimButton, SimLights
from orbito_hw.sim.pico import FakePico, mock_serial_drive

from .common.scripts import kinds
from .common.standin_rings import StandInRings

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
    with pytest.raises(LinkTimeoutError, match=r"did not answer HELLO \(3 tries"):
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
    # Long enough that a loaded machine's slow answer is never a try of its own: only the
    # two spoiled replies are tried again.
    link = SerialLink(pico.path, LinkSettings(reply_timeout=0.5))
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


# --- defect 8: a Pico lost while the rings are idle ---------------------------------------
class Heard:
    """What a drive's watchers are told between moves, in order; ``wait(n)`` for n."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, fault: str) -> None:
        with self._cond:
            self.items.append(fault)
            self._cond.notify_all()

    def wait(self, count: int) -> list[str]:
        with self._cond:
            assert self._cond.wait_for(lambda: len(self.items) >= count, WAIT), self.items
            return list(self.items)


def test_the_default_heartbeat_notices_a_silent_pico_within_a_few_seconds() -> None:
    # PING after 1 s of quiet, 6 tries of 0.3 s: the bound the players wait at most.
    assert LinkSettings().silence_limit <= 3.0


def test_unplugged_while_idle_the_watchers_hear_at_once_and_again_once_homed(
    pico: FakePico, rings: StandInRings
) -> None:
    drive = drive_for(pico)
    heard = Heard()
    drive.watch(heard)
    started = time.monotonic()
    pico.unplug()
    (gone,) = heard.wait(1)
    assert time.monotonic() - started < QUICK_LINK.silence_limit
    assert gone.startswith(f"the ring controller on {pico.path} is gone (") and drive.fault == gone
    reports = Reports()
    asked = time.monotonic()
    drive.move(1, reports)  # with the link lost: refused at once, with the same words
    assert reports.wait(1) == [MoveReport(1, 0, False, gone)]
    assert time.monotonic() - asked < 1.0 and rings.pulses == 0
    homes = pico.device.acted.get("HOME", 0)
    rings.position += 7  # someone turned the rings while the cable was out
    pico.replug()
    assert heard.wait(2) == [gone, ""]  # said once the Pico is set up and the rings homed
    assert pico.device.acted["HOME"] == homes + 1 and rings.position == SPP
    assert len(heard.items) == 2  # each said once
    drive.close()


def test_a_pico_that_falls_silent_is_lost_within_the_heartbeat_bound(
    pico: FakePico, rings: StandInRings
) -> None:
    settings = LinkSettings(
        heartbeat=0.2, reply_timeout=0.05, retries=2, backoff_first=0.01, backoff_max=0.1
    )
    drive = SerialRingDrive(ThreadClock(), pico.path, FAST, settings)
    heard = Heard()
    drive.watch(heard)
    pings = pico.device.acted.get("PING", 0)
    started = time.monotonic()
    pico.output_filter = lambda out: b""  # hung, or a UART bridge whose Pico is gone
    (gone,) = heard.wait(1)
    assert time.monotonic() - started < settings.silence_limit + 0.5  # a scheduling margin
    assert "is gone (" in gone and gone.endswith("(no answer to PING (3 tries of 0.05 s))")
    assert pico.device.acted["PING"] > pings  # the heartbeat asked
    pico.output_filter = None
    assert heard.wait(2)[1] == ""
    reports = Reports()
    drive.move(1, reports)
    assert reports.wait(1) == [MoveReport(1, SPP, True)]
    drive.close()


def test_a_quiet_link_is_pinged_and_kept(pico: FakePico) -> None:
    settings = LinkSettings(heartbeat=0.05)
    drive = SerialRingDrive(ThreadClock(), pico.path, FAST, settings)
    heard = Heard()
    drive.watch(heard)
    assert wait_until(lambda: pico.device.acted.get("PING", 0) >= 3)
    assert heard.items == [] and drive.fault == ""
    drive.close()


def wait_until(condition: Callable[[], bool], timeout: float = WAIT) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True


def spin(loop: asyncio.AbstractEventLoop, condition: Callable[[], bool], timeout: float) -> bool:
    """Run ``loop`` until ``condition`` holds (True) or ``timeout`` seconds pass (False)."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        loop.run_until_complete(asyncio.sleep(0.005))
    return True


class PicoBoard:
    """The referee on an event loop, its squares and rings on the fake Pico."""

    def __init__(self, pico: FakePico, state_dir: Path) -> None:
        self.loop = asyncio.new_event_loop()
        clock = LoopClock(self.loop)
        scanning = {**FAST, "scan": 1, "scan_ms": 1, "debounce_ms": 5}
        self.drive = SerialRingDrive(clock, pico.path, scanning, QUICK_LINK)
        self.button, self.lights = SimButton(clock), SimLights()
        self.journal = Journal(state_dir)
        board = Board(clock, self.drive.sensors, self.button, self.drive, self.lights)
        self.referee = Referee(board, self.journal, Settings(debounce=0.0))  # the Pico debounces
        self.events: list[dict[str, object]] = []
        self.referee.subscribe(lambda event: self.events.append(event.to_json()))

    def until(self, condition: Callable[[], bool], timeout: float = WAIT) -> bool:
        return spin(self.loop, condition, timeout)

    def until_state(self, state: State) -> bool:
        return self.until(lambda: self.referee.state is state)

    def press(self) -> None:
        self.button.set(True)
        self.until(lambda: False, 0.1)
        self.button.set(False)

    def close(self) -> None:
        self.drive.close()  # before the loop: its worker posts to the loop
        self.referee.close()
        self.journal.close()
        self.loop.close()


@pytest.fixture
def on_pico(pico: FakePico, tmp_path: Path) -> Iterator[PicoBoard]:
    board = PicoBoard(pico, tmp_path)
    yield board
    board.close()


def test_squares_on_the_pico_an_unplug_is_a_fault_not_a_refusal_and_replugged_it_resumes(
    pico: FakePico, rings: StandInRings, on_pico: PicoBoard
) -> None:
    b, referee, events = on_pico, on_pico.referee, on_pico.events
    referee.start()
    assert b.until_state(State.WAITING)
    rings.squares = 0b1  # black puts a marble on a1
    assert b.until_state(State.TURN)
    started = time.monotonic()
    pico.unplug()
    assert b.until_state(State.FAULT)
    assert time.monotonic() - started < LinkSettings().silence_limit
    (fault,) = kinds(events, "fault")
    assert str(fault["reason"]).startswith(f"the ring controller on {pico.path} is gone (")
    assert referee.show.view is not None and referee.show.view.mode == "fault"
    assert b.until(lambda: b.lights.status == Palette().fault, 1.0)  # blinking it
    # Meanwhile the squares cannot be read: a marble put and a press are no refusal.
    rings.squares = 0b11
    b.press()
    b.until(lambda: False, 0.3)
    assert kinds(events, "rejected") == [] and referee.state is State.FAULT
    homes = pico.device.acted["HOME"]
    rings.squares = 0b1  # the second marble taken back
    rings.position += 7  # and the rings nudged
    pico.replug()
    assert b.until_state(State.TURN)  # a1 still being placed
    assert pico.device.acted["HOME"] > homes and rings.position == SPP
    b.press()  # the turn is played: the board referees again
    assert b.until(lambda: bool(kinds(events, "turn")))
    assert kinds(events, "turn")[0]["turn"] == "a1" and kinds(events, "rejected") == []


def test_a_new_game_while_the_pico_is_away_waits_for_it(
    pico: FakePico, rings: StandInRings, on_pico: PicoBoard
) -> None:
    b, referee, events = on_pico, on_pico.referee, on_pico.events
    referee.start()
    assert b.until_state(State.WAITING)
    pico.unplug()
    assert b.until_state(State.FAULT)
    referee.new_game(Colour.WHITE)
    assert referee.state is State.FAULT and len(kinds(events, "fault")) == 2
    assert kinds(events, "new-game")[0]["first"] == "white"
    pico.replug()
    assert b.until_state(State.WAITING) and referee.position.to_move is Colour.WHITE
    rings.squares = 0b1
    assert b.until_state(State.TURN)
    assert kinds(events, "rejected") == []
