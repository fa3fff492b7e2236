"""The mechanism in a physics engine (issue 32): the cups, their fingers and the marbles pushed
through places on the drive's own step profile (MuJoCo, hardware/orbito_cad/models/physics.py), at
the ends of the friction range, cups and marbles started off their places. The benchmark
(`python benchmarks/mechanism.py`) runs the same on 1,000 random places.

They need the ``cad`` extra; without it they are skipped, except under CI=true, where they
fail (``.ci/run`` installs the extra).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("mujoco")  # the cad extra: fails under CI=true, skips elsewhere

from orbito_cad.board.params import PARAMS
from orbito_cad.models import physics

from orbito_hw.app.config import load_config

ROOT = Path(__file__).resolve().parent.parent

# the bounds
OFFSET, TURN, MARBLE, CUP_FORCE, TORQUE_SHARE = 0.3, 1.0, 1.0, 0.2, 0.5


def check(report: physics.PlaceReport) -> None:
    assert report.missed == []  # every cup driven to the next square
    assert report.cup_offset <= OFFSET
    assert report.cup_turn <= TURN
    assert report.marble_offset <= MARBLE  # never out of its seat
    assert report.cup_force <= CUP_FORCE
    assert report.torque_share <= TORQUE_SHARE
    assert report.lifted < 0.5  # no cup lifted out of the channel by a finger


@pytest.mark.parametrize("mu", physics.MU)
def test_places_forwards_and_back_hold_every_cup_and_marble(mu: float) -> None:
    """Two places forwards and two back, cups and marbles started up to 0.3 mm and 2 deg
    off: after every place each cup within 0.3 mm and 1 deg of its square, the marbles in
    their seats, no cup pressing on another, the motor within half its torque, each place in
    the profile's time."""
    board = physics.Board(mu=mu, seed=7, jitter=physics.JITTER)
    ahead, back = physics.profile(board.drive, 1)[-1], physics.profile(board.drive, -1)[-1]
    assert back > ahead  # a take-back turns slower (the firmware's BACK_SHARE)
    reports = physics.places_and_back(board, 2)
    for report, expected in zip(reports, [ahead] * 2 + [back] * 2, strict=True):
        check(report)
        assert report.duration == pytest.approx(expected)


def test_the_drive_profile_is_the_configs() -> None:
    drive = load_config(ROOT / "config.example.toml").drive
    assert physics.Drive().steps_per_place == drive.steps_per_place
    assert physics.Drive().max_speed == drive.max_speed
    assert physics.Drive().acceleration == drive.acceleration
    times = physics.profile(physics.Drive(), 1)
    assert len(times) == drive.steps_per_place
    assert times[-1] == pytest.approx(0.9, abs=0.01)  # mechanics.md: 0.9 s a place


def test_a_power_cut_mid_place_is_finished_by_homing() -> None:
    """The power goes with the cups half way between squares; the motor coasts a hair; the
    referee's homing at its next start (on at the homing speed to the index) takes every cup
    on to the square the place was taking it to."""
    board = physics.Board(mu=0.3, seed=3, jitter=physics.JITTER)
    cut = physics.power_cut(board, 0.25)
    assert cut.between > PARAMS.pitch / 4  # the cups stopped between squares
    assert cut.coast < 0.01  # the rotor's energy is nothing to the drive's friction
    check(cut.after_home)
    assert board.places == pytest.approx(1.0)


def test_the_model_catches_the_first_designs_one_finger() -> None:
    """One finger 10 mm off each cup's centre line, as the first design had: the push turns
    the cup, and the next place misses it."""
    board = physics.Board(mu=0.3, seed=3, jitter=physics.JITTER, one_finger=True)
    first = board.move(1)
    assert first.cup_turn > 5
    second = board.move(1)
    assert second.missed != [] or second.cup_offset > OFFSET
