"""The controller on a "real" board: the gpio backend on gpiozero's MockFactory as the
default pin factory, an asyncio loop, systemd's notify socket faked, SIGTERM to stop."""

from __future__ import annotations

import asyncio
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from gpiozero.pins.mock import MockFactory

from orbito_hw.app.config import BackendsConfig, load_config
from orbito_hw.app.run import run_board
from orbito_hw.control.journal import Journal

from .common.boards import EXAMPLE, FakeLgpioError, RealBoard, pico_config
from .common.players import Person, Watch, press, settled, turning
from .common.systemd import FakeSystemd
from .common.wait import until

if TYPE_CHECKING:
    from orbito_hw.sim.board import SimBoard


def test_the_controller_runs_a_turn_on_gpio_pins_and_tells_systemd(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    watch = Watch(caplog)
    board = RealBoard(tmp_path, mock_pins, monkeypatch, watchdog=True)
    a1, b1, index, button, step = board.a1, board.b1, board.index, board.button, board.step
    systemd = board.systemd

    def player() -> None:
        # The player follows the board, not a clock (a loaded CI machine is slow to start):
        # each step waits for what a person would see before the next.
        until(lambda: "READY=1" in systemd.texts(), what="READY")  # the pins are open
        index.drive_low()  # homing finds the index magnet
        watch.entered("waiting for a turn")
        settled(step)  # homed and checked: the rings stand still
        a1.drive_low()  # a marble on a1
        watch.entered("turn in progress")  # the board has seen it
        rings = turning(step)
        press(button)
        until(rings, what="the rings turn")
        a1.drive_high()  # and carry the marble from a1 to b1
        b1.drive_low()
        until(lambda: any(t.startswith("STATUS=game 1, turn") for t in systemd.texts()))

    texts = board.run(player)
    assert texts[0] == "READY=1"
    assert texts.count("WATCHDOG=1") >= 3
    assert any(t.startswith("STATUS=game 1, turn 1: a1") for t in texts)
    assert texts[-1] == "STOPPING=1"
    saved = Journal(tmp_path / "state").load()
    assert saved is not None and saved.turns == ["a1"]


def play_a1(physics: SimBoard, button: Any, watch: Watch) -> None:
    """A person at the board: once it waits for a turn, a marble on a1 and, once the board
    has seen it, the button pressed; done when the log has the turn."""
    from orbito_hw.rules.game import Colour

    watch.entered("waiting for a turn")  # homed and checked
    physics.put(0, Colour.BLACK)  # the Pico's scan sees a marble on a1
    watch.entered("turn in progress")
    press(button)
    watch.see("game 1 turn 1: black a1")  # the rings carried it, the board checked


def test_the_controller_runs_a_turn_through_the_pico_on_its_serial_port(
    tmp_path: Path, mock_pins: MockFactory, caplog: pytest.LogCaptureFixture
) -> None:
    from orbito_hw.sim.board import SimBoard
    from orbito_hw.sim.pico import FakePico
    from orbito_hw.sim.world import SimRings

    watch = Watch(caplog)
    physics = SimBoard(steps_per_place=800)
    pico = FakePico(SimRings(physics))
    pico.start()
    config = pico_config(pico.path, tmp_path / "state")
    button = mock_pins.pin(17)
    person = Person(lambda: play_a1(physics, button, watch))
    try:
        assert run_board(config) == 0
    finally:
        pico.close()
    person.done()
    saved = Journal(tmp_path / "state").load()
    assert saved is not None and saved.turns == ["a1"]
    assert physics.position_string() == "..../..../..../.B.."  # the rings carried it to b1


def test_a_busy_pin_is_one_line_naming_its_key_and_pin(
    tmp_path: Path, mock_pins: MockFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    # On a real OS lgpio raises lgpio.error('GPIO busy') for a line another process holds
    # or the kernel claimed (an SPI chip select): the system test's gpioset check.
    import types

    from orbito_hw.app.assemble import build_board
    from orbito_hw.errors import HardwareError
    from orbito_hw.hw.clock import LoopClock

    monkeypatch.setitem(sys.modules, "lgpio", types.SimpleNamespace(error=FakeLgpioError))
    base = load_config(EXAMPLE)
    config = replace(
        base,
        backends=BackendsConfig(sensors="gpio", button="gpio", drive="gpio", lights="none"),
        sensors=replace(base.sensors, colour=False),  # hall switches: presence only
    )
    real_pin = mock_pins.pin
    opened: list[int] = []

    def pin(spec: int, **kwargs: object) -> object:
        if spec == 8:  # d1: GPIO8, SPI's chip select 0 unless the overlay frees it
            raise FakeLgpioError("GPIO busy")
        opened.append(spec)
        return real_pin(spec, **kwargs)

    monkeypatch.setattr(mock_pins, "pin", pin)
    loop = asyncio.new_event_loop()
    try:
        with pytest.raises(HardwareError) as caught:
            build_board(config, LoopClock(loop))
    finally:
        loop.close()
    message = str(caught.value)
    assert message.startswith(f"{config.source}: sensors.pins.d1 = 8: GPIO 8 is busy"), message
    assert "\n" not in message and "Traceback" not in message
    assert opened == [5, 6, 7]  # a1..c1 were opened first, and closed again: free to open
    from gpiozero import DigitalInputDevice

    for spec in (5, 6, 7):
        DigitalInputDevice(spec).close()


def test_the_service_waits_for_the_pico_and_starts_once_it_is_plugged_in(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    from orbito_hw.app import devices
    from orbito_hw.sim.board import SimBoard
    from orbito_hw.sim.pico import FakePico
    from orbito_hw.sim.world import SimRings

    monkeypatch.setattr(devices, "FIRST_RETRY_S", 0.05)
    monkeypatch.setattr(devices, "LAST_RETRY_S", 0.1)
    watch = Watch(caplog)
    notify = str(tmp_path / "notify")
    systemd = FakeSystemd(notify)
    monkeypatch.setenv("NOTIFY_SOCKET", notify)
    physics = SimBoard(steps_per_place=800)
    pico = FakePico(SimRings(physics))
    pico.start()
    port = tmp_path / "orbito-ring"  # what udev makes once the Pico is plugged in
    config = pico_config(port, tmp_path / "state")
    button = mock_pins.pin(17)

    waiting = f"STATUS=fault: waiting for the board: no {port} yet (serial.port): plug the Pico in"

    def player() -> None:
        until(lambda: waiting in systemd.texts(), what=waiting)  # the service waits ...
        threading.Event().wait(0.5)  # ... a while (trying again meanwhile) ...
        port.symlink_to(pico.path)  # ... until the Pico is plugged in
        play_a1(physics, button, watch)

    person = Person(player)
    try:
        assert run_board(config) == 0
    finally:
        pico.close()
    person.done()
    texts = [text for _, text in systemd.close()]
    assert texts[0] == "READY=1"
    assert texts[1] == waiting
    saved = Journal(tmp_path / "state").load()
    assert saved is not None and saved.turns == ["a1"]


def test_a_service_stopped_while_it_waits_for_the_pico_exits_cleanly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    notify = str(tmp_path / "notify")
    systemd = FakeSystemd(notify)
    monkeypatch.setenv("NOTIFY_SOCKET", notify)
    config = pico_config(tmp_path / "nowhere", tmp_path / "state")

    def fault_shown() -> bool:
        return any("waiting for the board: no " in t for t in systemd.texts())

    # Stopped once the fault says what the board waits for (not after a fixed time: a slow
    # start would have the signal come before the service handles it, or before the fault).
    person = Person(lambda: until(fault_shown, what="the fault"))
    assert run_board(config) == 0
    person.done()
    texts = [text for _, text in systemd.close()]
    assert texts[0] == "READY=1" and texts[-1] == "STOPPING=1"
    assert any("waiting for the board: no " in t for t in texts)


def test_the_gpio_button_starts_no_thread_of_its_own(mock_pins: MockFactory) -> None:
    # gpiozero's Button runs a hold thread that wakes ten times a second, idle or not; the
    # referee times holds itself, so the button is a plain input (defect 4: idle CPU).
    from orbito_hw.app.assemble import gpio_pins
    from orbito_hw.hw.clock import LoopClock
    from orbito_hw.hw.gpio import GpioButton

    before = set(threading.enumerate())
    loop = asyncio.new_event_loop()
    button = GpioButton(gpio_pins(load_config(EXAMPLE)), LoopClock(loop))
    try:
        assert set(threading.enumerate()) == before
        pin = mock_pins.pin(17)
        pin.drive_low()
        assert button.is_pressed
        pin.drive_high()
        assert not button.is_pressed
    finally:
        button.close()
        loop.close()


def test_a_running_service_takes_a_set_up_request_as_it_comes(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``games resume`` while the service runs: the request file lands in the state directory,
    the kernel says so (inotify), and the board asks for the position at once, the journal
    saying it is setting up, the request gone."""
    from orbito_hw.control.requests import NAME, SetupRequest, write_request
    from orbito_hw.rules.game import Colour

    watch = Watch(caplog)
    board = RealBoard(tmp_path, mock_pins, monkeypatch)
    state, systemd, index = board.state, board.systemd, board.index
    seen: list[bool] = []

    def player() -> None:
        until(lambda: "READY=1" in systemd.texts(), what="READY")  # the pins are open
        index.drive_low()  # homing finds the index magnet
        watch.entered("waiting for a turn")  # homed and checked: a request is taken now
        write_request(state, SetupRequest(Colour.WHITE, ("a1", "b2"), origin="archive:1:2"))
        for _ in range(50):  # the kernel tells at once; 0.5 s is a quarter of a poll
            threading.Event().wait(0.01)
            if not (state / NAME).exists():
                break
        seen.append(not (state / NAME).exists())
        watch.entered("setting up")  # the board asks for the position (journaled first)

    board.run(player)
    assert seen == [True]
    saved = Journal(state).load()
    assert saved is not None and saved.setting_up and saved.turns == ["a1", "b2"]
    assert saved.origin == "archive:1:2"
