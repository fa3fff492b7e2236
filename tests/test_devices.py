"""Devices come and go (issue 23): the real controller (run_board, systemd's socket faked)
never gives up on its hardware. A GPIO line busy at the start, a Pico plugged in late, pulled
while idle or restarted during a ring move: the service stays up, shows the fault, and the
game goes on by itself once the part is back, every turn exactly once in the journal and the
archive. The same scenarios on a real kernel are in tests/system/ (USB gadget, gpio-sim)."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory

from orbito_hw.app import devices
from orbito_hw.app.config import load_config
from orbito_hw.app.run import run_board
from orbito_hw.archive.store import Archive
from orbito_hw.control.journal import Journal
from orbito_hw.errors import ConfigError
from orbito_hw.hw.clock import LoopClock, VirtualClock
from orbito_hw.hw.health import BoardHealth
from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.hw.serial_backend import SerialRingDrive
from orbito_hw.hw.standby import StandInDrive
from orbito_hw.rules.game import Colour
from orbito_hw.sim.board import SimBoard, SimLights
from orbito_hw.sim.pico import FakePico
from orbito_hw.sim.world import SimRings

from .common.boards import EXAMPLE, FakeLgpioError, gpio_config, pico_config
from .common.players import Person, Watch, press, settled, turning
from .common.systemd import FakeSystemd
from .common.wait import until, until_async


@pytest.fixture
def mock_pins(mock_pins: MockFactory, monkeypatch: pytest.MonkeyPatch) -> MockFactory:
    """conftest's mock pins, with the parts' retries brisk: a part found missing is looked
    for again within a fifth of a second."""
    monkeypatch.setattr(devices, "FIRST_RETRY_S", 0.05)
    monkeypatch.setattr(devices, "LAST_RETRY_S", 0.2)
    return mock_pins


class Service:
    """run_board on this thread with systemd faked; ``person`` plays on another."""

    def __init__(
        self, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
    ) -> None:
        self.state = tmp_path / "state"
        self.log = Watch(caplog)  # what the person sees of the board, in its order
        notify = str(tmp_path / "notify")
        self.systemd = FakeSystemd(notify)
        monkeypatch.setenv("NOTIFY_SOCKET", notify)
        monkeypatch.setenv("WATCHDOG_USEC", "400000")
        monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))

    def status(self) -> str:
        texts = [t for t in self.systemd.texts() if t.startswith("STATUS=")]
        return texts[-1] if texts else ""

    def says(self, text: str) -> Callable[[], bool]:
        return lambda: text in self.status()

    def run(self, config: Any, person: Callable[[], None]) -> list[str]:
        player = Person(person)
        try:
            assert run_board(config) == 0
        finally:
            self.systemd.close()  # its listening thread ends with the test
        player.done()
        return self.systemd.texts()

    def turns(self) -> list[str]:
        saved = Journal(self.state).load()
        assert saved is not None
        return saved.turns

    def archived_turns(self) -> list[str]:
        archive = Archive.read(self.state)
        try:
            games = archive.games()
            return [t.turn for g in games for t in archive.turns(g.id)]
        finally:
            archive.close()


def test_a_busy_gpio_line_at_the_start_is_a_fault_until_it_is_free_then_the_board_plays(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    monkeypatch.setitem(sys.modules, "lgpio", types.SimpleNamespace(error=FakeLgpioError))
    config = gpio_config(tmp_path / "state")
    held = threading.Event()
    held.set()
    real_pin = mock_pins.pin

    def pin(spec: int, **kwargs: object) -> object:
        if spec == 8 and held.is_set():  # another program holds d1's line
            raise FakeLgpioError("GPIO busy")
        return real_pin(spec, **kwargs)

    monkeypatch.setattr(mock_pins, "pin", pin)
    service = Service(tmp_path, monkeypatch, caplog)
    a1, b1 = (real_pin(config.sensors.pins[sq]) for sq in (0, 1))
    index, button = real_pin(config.drive.index_pin), real_pin(config.button.pin)
    assert config.drive.step_pin is not None
    step = real_pin(config.drive.step_pin)

    def person() -> None:
        until(service.says("sensors.pins.d1 = 8: GPIO 8 is busy"), what="the busy line")
        index.drive_low()  # the drive is open (its pull-up set): homing finds the index
        time.sleep(0.5)  # a few tries, each refused
        held.clear()  # the other program lets go
        service.log.see("every part of the board is there")
        service.log.entered("starting")  # the board whole: the referee starts again ...
        service.log.entered("waiting for a turn")  # ... homed and checked
        settled(step)
        a1.drive_low()  # the sensors are open (their pull-ups set): a marble on a1
        service.log.entered("turn in progress")
        rings = turning(step)
        press(button)
        until(rings, what="the rings turn")
        a1.drive_high()  # the rings carry the marble from a1 to b1
        b1.drive_low()
        until(service.says("turn 1: a1"))

    texts = service.run(config, person)
    assert texts[0] == "READY=1"  # up at once, the line busy or not
    faults = [t for t in texts if t.startswith("STATUS=fault:")]
    assert faults and "waiting for the board:" in faults[0], texts
    assert texts.count("WATCHDOG=1") >= 3  # fed while it waited
    assert service.turns() == ["a1"]


class FailingStrip(SimLights):
    """A strip whose SPI goes away after ``good`` frames: every show from then on fails."""

    def __init__(self, good: int) -> None:
        super().__init__()
        self.good = good
        self.closed = 0

    def show(self, frame: Any, status: Any = None) -> None:
        if self.good <= 0:
            raise OSError(5, "Input/output error")
        self.good -= 1
        super().show(frame, status)

    def close(self) -> None:
        self.closed += 1


def test_leds_that_fail_are_a_fault_opened_again_and_the_game_goes_on(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    config = gpio_config(tmp_path / "state")
    first, second = FailingStrip(good=1), FailingStrip(good=10**6)
    strips = iter([first, second])
    monkeypatch.setattr(devices, "open_lights", lambda config: next(strips))
    service = Service(tmp_path, monkeypatch, caplog)
    a1, b1 = (mock_pins.pin(config.sensors.pins[sq]) for sq in (0, 1))
    index, button = mock_pins.pin(config.drive.index_pin), mock_pins.pin(config.button.pin)
    assert config.drive.step_pin is not None
    step = mock_pins.pin(config.drive.step_pin)

    def person() -> None:
        until(lambda: "READY=1" in service.systemd.texts(), what="READY")  # the pins are open
        index.drive_low()  # homing finds the index (the first strip fails meanwhile)
        service.log.see("fault: waiting for the board: the LED strip is missing (it failed")
        until(lambda: second.shown()[1] is not None or any(second.shown()[0]), what="LEDs")
        service.log.entered("starting")  # the board whole again: the referee starts again ...
        service.log.entered("waiting for a turn")  # ... homed and checked
        settled(step)
        a1.drive_low()
        service.log.entered("turn in progress")
        rings = turning(step)
        press(button)
        until(rings, what="the rings turn")
        a1.drive_high()  # the rings carry the marble from a1 to b1
        b1.drive_low()
        until(service.says("turn 1: a1"))

    texts = service.run(config, person)
    assert any(
        "fault: waiting for the board: the LED strip is missing (it failed" in t for t in texts
    ), texts
    assert first.closed == 1  # let go of at once
    assert service.turns() == ["a1"]


def pico_board(tmp_path: Path) -> tuple[SimBoard, FakePico, Path]:
    physics = SimBoard(steps_per_place=800)
    pico = FakePico(SimRings(physics))
    return physics, pico, tmp_path / "orbito-ring"


def test_a_pico_plugged_in_late_is_picked_up_and_the_game_played(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    physics, pico, port = pico_board(tmp_path)
    config = pico_config(port, tmp_path / "state")
    service = Service(tmp_path, monkeypatch, caplog)
    button = mock_pins.pin(17)

    def person() -> None:
        until(service.says(f"no {port} yet (serial.port): plug the Pico in"), what="the fault")
        time.sleep(0.5)  # a while later (the service trying again meanwhile) ...
        pico.start()
        port.symlink_to(pico.path)  # ... udev's link, once the Pico is there
        service.log.entered("starting")  # the board whole: the referee starts again ...
        service.log.entered("waiting for a turn")  # ... homed and checked
        physics.put(0, Colour.BLACK)
        service.log.entered("turn in progress")
        press(button)
        until(service.says("turn 1: a1"))

    try:
        service.run(config, person)
    finally:
        pico.close()
    assert service.turns() == ["a1"]
    assert service.archived_turns() == ["a1"]


def plugged_pico(tmp_path: Path) -> tuple[SimBoard, FakePico, Any]:
    """A Pico plugged in from the start (udev's link to it) and the board's config."""
    physics, pico, port = pico_board(tmp_path)
    pico.start()
    port.symlink_to(pico.path)
    return physics, pico, pico_config(port, tmp_path / "state")


def test_a_pico_restarted_during_a_ring_move_the_turn_counts_once(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    # The Pico loses power while the rings turn: its link comes back with another boot, the
    # move is lost on its side. The rings are homed (which finishes the place they were on)
    # and the board checked: the turn stands once, and the next one is played.
    physics, pico, config = plugged_pico(tmp_path)
    service = Service(tmp_path, monkeypatch, caplog)
    button = mock_pins.pin(17)

    def person() -> None:
        service.log.entered("waiting for a turn")  # homed and checked
        physics.put(0, Colour.BLACK)
        service.log.entered("turn in progress")
        pico.unplug_after = "MOVE"  # the cable goes with the move's start ...
        press(button)
        until(pico.unplugged.is_set, what="the move's start")
        time.sleep(0.05)
        pico.restart()  # ... and the Pico comes back from a power cut
        until(service.says("turn 1: a1"))  # the rings homed, the board checked: it stands
        service.log.now("waiting for a turn")  # and play goes on
        physics.put(4, Colour.WHITE)  # a2, white's turn
        service.log.entered("turn in progress")
        press(button)
        until(service.says("turn 2: a2"))

    try:
        service.run(config, person)
    finally:
        pico.close()
    assert service.turns() == ["a1", "a2"]
    assert service.archived_turns() == ["a1", "a2"]


def test_a_pico_pulled_while_idle_is_a_fault_and_the_game_goes_on_when_it_is_back(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    physics, pico, config = plugged_pico(tmp_path)
    service = Service(tmp_path, monkeypatch, caplog)
    button = mock_pins.pin(17)

    def person() -> None:
        service.log.entered("waiting for a turn")  # homed and checked
        physics.put(0, Colour.BLACK)
        service.log.entered("turn in progress")
        press(button)
        until(service.says("turn 1: a1"))
        pico.unplug()  # a child pulls the cable
        until(service.says("fault: the ring controller on"), what="the fault")
        service.log.entered("fault")
        time.sleep(1.0)  # the cable out a while
        pico.replug()
        service.log.entered("starting")  # back: the referee starts again ...
        service.log.entered("waiting for a turn")  # ... homed and checked
        physics.put(4, Colour.WHITE)
        service.log.entered("turn in progress")
        press(button)
        until(service.says("turn 2: a2"))

    try:
        service.run(config, person)
    finally:
        pico.close()
    assert service.turns() == ["a1", "a2"]


def test_only_a_config_no_device_can_mend_stops_the_service(tmp_path: Path) -> None:
    from dataclasses import replace

    from orbito_hw.app.config import BackendsConfig

    base = load_config(EXAMPLE)
    config = replace(
        base,
        board=replace(base.board, state_dir=tmp_path),
        backends=BackendsConfig(sensors="serial", button="gpio", drive="gpio", lights="none"),
    )
    with pytest.raises(ConfigError, match='"serial" reads the squares through the Pico'):
        run_board(config)


class FakeDrive:
    def __init__(self) -> None:
        self.moves: list[int] = []
        self.watchers: list[Callable[[str], None]] = []
        self.closed = 0

    def move(self, places: int, done: Callable[[MoveReport], None]) -> None:
        self.moves.append(places)
        done(MoveReport(places, 800 * abs(places), True))

    def home(self, done: Callable[[MoveReport], None]) -> None:
        self.move(0, done)

    def watch(self, on_fault: Callable[[str], None]) -> None:
        self.watchers.append(on_fault)

    @property
    def moving(self) -> bool:
        return False

    def close(self) -> None:
        self.closed += 1


def test_the_boards_health_tells_the_referee_what_is_missing_and_when_all_is_back() -> None:
    clock = VirtualClock()
    health = BoardHealth(clock)
    drive = StandInDrive(clock, health)
    heard: list[str] = []
    reports: list[MoveReport] = []
    health.watch(lambda now: heard.append(now.fault))
    health.missing("drive", "no /dev/x yet")
    drive.move(1, reports.append)
    clock.advance(0)
    assert reports == [MoveReport(1, 0, False, "waiting for the board: no /dev/x yet")]
    health.tell()
    clock.advance(0)
    assert heard == ["waiting for the board: no /dev/x yet"]
    real = FakeDrive()
    drive.attach(real)
    health.opened("drive")
    health.tell()
    clock.advance(0)
    assert heard[-1] == ""  # whole: the referee homes and checks the board
    drive.move(-1, reports.append)
    assert real.moves == [-1] and reports[-1] == MoveReport(-1, 800, True)
    real.watchers[0]("the ring controller on /dev/x is gone (unplugged)")
    clock.advance(0)
    assert heard[-1] == "the ring controller on /dev/x is gone (unplugged)"
    assert health.now().failing == (("drive", "the ring controller on /dev/x is gone (unplugged)"),)
    health.missing("sensors", "sensors.pins.a1 = 5: GPIO 5 is busy")
    real.watchers[0]("")  # the link is back, but a part is missing: still a fault
    clock.advance(0)
    assert heard[-1] == "waiting for the board: sensors.pins.a1 = 5: GPIO 5 is busy"
    assert health.now().parts() == [
        "the square sensors are missing: sensors.pins.a1 = 5: GPIO 5 is busy"
    ]
    drive.move(1, reports.append)
    clock.advance(0)
    assert real.moves == [-1] and reports[-1].fault.startswith("waiting for the board")
    health.opened("sensors")
    health.tell()
    clock.advance(0)
    assert heard[-1] == "" and health.now().whole
    drive.close()
    drive.close()
    assert real.closed == 1
    late = FakeDrive()
    drive.attach(late)  # opened on the worker while the board shut down
    assert late.closed == 1


def test_the_pico_follows_one_reconnect_policy_unplugged_at_the_start_and_pulled_later(
    tmp_path: Path, mock_pins: MockFactory
) -> None:
    # The supervisor's policy for the drive tries the Pico until it is first opened, then
    # goes on with its link: the same object, not a second schedule of the link's own.
    _physics, pico, port = pico_board(tmp_path)
    loop = asyncio.new_event_loop()
    board = devices.Devices(pico_config(port, tmp_path / "state"), LoopClock(loop), loop)
    policy = board.reconnects["drive"]

    def wait_for(condition: Callable[[], bool], what: str) -> None:
        loop.run_until_complete(until_async(condition, what=what))

    try:
        board.open_now()
        assert "drive" in board.missing and policy.gone  # tried on its first wait
        board.start()
        pico.start()
        port.symlink_to(pico.path)  # plugged in late
        wait_for(lambda: board.whole, "the Pico opened")
        assert not policy.gone
        drive = board.drive.real
        assert isinstance(drive, SerialRingDrive)
        assert drive.link.reconnect is policy
        pico.unplug()
        wait_for(lambda: policy.gone, "the link's loss on the drive's policy")
        assert policy.wait <= devices.LAST_RETRY_S  # the supervisor's figures
        pico.replug()
        wait_for(lambda: not policy.gone, "the Pico back on the same policy")
        assert drive.link.reconnects >= 1
    finally:
        board.close()
        loop.close()
        pico.close()
