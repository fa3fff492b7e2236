"""Boards the tests configure: the example config, a board on a Pico, lgpio's own error."""

from __future__ import annotations

from pathlib import Path

from orbito_hw.app.config import Config

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
