"""The board's health, its own channel (issue 35): which parts are missing or failing, held
in one place (hw/health.py), told whole to the referee, the status line and the log, and
named by doctor. The service's scenarios (a strip lost, a Pico late) are in test_devices.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from orbito_hw import cli
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.health import BoardHealth
from orbito_hw.hw.interfaces import Health


def test_the_fault_line_names_the_first_missing_part_before_a_failing_one() -> None:
    assert Health().fault == "" and Health().whole
    gone = Health(failing=(("drive", "the ring controller on /dev/x is gone"),))
    assert gone.fault == "the ring controller on /dev/x is gone" and not gone.whole
    both = Health(
        missing=(("lights", "the LED strip is missing (it failed: EIO)"), ("button", "b")),
        failing=gone.failing,
    )
    assert (
        both.fault
        == "waiting for the board: the LED strip is missing (it failed: EIO) (and 1 more)"
    )
    assert both.parts() == [
        "the LED strip is missing: the LED strip is missing (it failed: EIO)",
        "the button is missing: b",
        "the ring drive is failing: the ring controller on /dev/x is gone",
    ]


def test_the_health_is_told_when_its_line_changes_and_only_then() -> None:
    clock = VirtualClock()
    health = BoardHealth(clock)
    heard: list[Health] = []
    health.watch(heard.append)
    health.missing("lights", "lights.pin = 18: cannot open the strip")
    health.tell()
    health.failing("drive", "the ring controller is gone")  # behind a missing part: unseen
    health.tell()
    clock.advance(0)
    assert [h.fault for h in heard] == [
        "waiting for the board: lights.pin = 18: cannot open the strip"
    ]
    assert heard[0].missing == (("lights", "lights.pin = 18: cannot open the strip"),)
    health.opened("lights")
    health.tell()  # the strip is back: the drive's fault shows
    health.failing("drive", "")
    clock.advance(0)
    assert [h.fault for h in heard[1:]] == ["the ring controller is gone", ""]
    assert heard[-1].whole


def test_a_fault_heard_in_a_move_report_is_followed_by_the_all_clear() -> None:
    clock = VirtualClock()
    health = BoardHealth(clock)
    heard: list[str] = []
    health.watch(lambda h: heard.append(h.fault))
    health.heard("the ring controller lost the move")  # the referee read it in the report
    health.failing("drive", "")  # the link is back: the referee must hear it
    clock.advance(0)
    assert heard == [""]


def test_doctor_names_the_part_that_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = tmp_path / "orbito-ring"
    config = tmp_path / "config.toml"
    config.write_text(
        '[backends]\nsensors = "serial"\nbutton = "gpio"\ndrive = "serial"\nlights = "none"\n'
        'gpio = "mock"\n[button]\npin = 17\n'
        f'[serial]\nport = "{port}"\n[board]\nstate_dir = "{tmp_path / "state"}"\n'
    )
    with pytest.raises(SystemExit) as exit_:
        cli.main(["doctor", "--config", str(config), "--yes"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err == (
        f"orbito-hw: the ring drive is missing: no {port} yet (serial.port): plug the Pico in\n"
    )
