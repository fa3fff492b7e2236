"""Boards the tests configure: the example config, a board on a Pico, a "real" board on
gpiozero's mock pins (``RealBoard``), lgpio's own error."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from orbito_hw.app.config import Config

from .players import Person
from .systemd import FakeSystemd

EXAMPLE = Path(__file__).resolve().parents[2] / "config.example.toml"
"""The repository's example config, as a builder starts from it."""
SIM_CONFIG = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
"""A config whose every part is simulated."""


def pico_config(port: Path | str, state: Path) -> Config:
    """A board whose sensors and drive are the Pico's on ``port``, its button on GPIO 17."""
    from orbito_hw.app.config import parse_config

    return parse_config(
        f"""
        [backends]
        sensors = "serial"
        button = "gpio"
        drive = "serial"
        lights = "none"
        [button]
        pin = 17
        [drive]
        max_speed = 8000.0
        acceleration = 80000.0
        [serial]
        port = "{port}"
        [board]
        state_dir = "{state}"
        """
    )


class FakeLgpioError(Exception):
    """lgpio's own error class: not a GPIOZeroError, OSError or RuntimeError."""

    def __init__(self, value: str) -> None:
        self.value = value
        super().__init__(value)

    def __str__(self) -> str:
        return repr(self.value)  # as lgpio.error prints: with quotes


def gpio_config(state: Path) -> Config:
    """The example's wiring, every part on the Pi's pins (a hall switch a square: presence
    only), no LEDs; the state in ``state``."""
    from dataclasses import replace

    from orbito_hw.app.config import BackendsConfig, load_config

    base = load_config(EXAMPLE)
    return replace(
        base,
        board=replace(base.board, state_dir=state),
        backends=BackendsConfig(sensors="gpio", button="gpio", drive="gpio", lights="none"),
        sensors=replace(base.sensors, colour=False),
    )


class RealBoard:
    """The controller's own run (``run_board``) on a "real" board: the example's wiring
    (``gpio_config``, the state in ``tmp_path / "state"``) on gpiozero's mock pins (``pins``:
    the conftest's ``mock_pins``), with the pins a turn needs (a1's and b1's sensors, the
    index, the button, the step line) and systemd's notify socket faked (its watchdog too
    when ``watchdog``)."""

    def __init__(
        self,
        tmp_path: Path,
        pins: Any,
        monkeypatch: pytest.MonkeyPatch,
        watchdog: bool = False,
    ) -> None:
        self.state = tmp_path / "state"
        self.config = config = gpio_config(self.state)
        notify = str(tmp_path / "notify")
        self.systemd = FakeSystemd(notify)
        monkeypatch.setenv("NOTIFY_SOCKET", notify)
        if watchdog:
            monkeypatch.setenv("WATCHDOG_USEC", "400000")
            monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
        self.a1, self.b1 = (pins.pin(config.sensors.pins[square]) for square in (0, 1))
        self.index = pins.pin(config.drive.index_pin)
        self.button = pins.pin(config.button.pin)
        assert config.drive.step_pin is not None
        self.step = pins.pin(config.drive.step_pin)

    def run(self, player: Callable[[], None]) -> list[str]:
        """``run_board`` with ``player`` on a thread of its own (a person at the board, who
        stops the service once done): what systemd heard, in order."""
        from orbito_hw.app.run import run_board

        person = Person(player)
        try:
            assert run_board(self.config) == 0
        finally:
            texts = [text for _, text in self.systemd.close()]
        person.done()
        return texts
