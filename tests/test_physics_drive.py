"""The ring drive's dynamics in MuJoCo (issue 32, hardware/orbito_cad/models/physics_drive.py): the
bars riding their ramps by their weight, the motor with its inertia, a power cut's coast and
the homing after it. Short runs at the ends of the friction range; the benchmark
(`python benchmarks/mechanism_drive.py`) runs many more.

They need the ``cad`` extra; without it they are skipped, except under CI=true, where they
fail (``.ci/run`` installs the extra).
"""

from __future__ import annotations

import dataclasses

import pytest

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("mujoco")  # the cad extra: fails under CI=true, skips elsewhere

from orbito_cad.board import layout as geo
from orbito_cad.board.params import PARAMS
from orbito_cad.models import physics_drive as pd
from orbito_cad.models import physics_drive_model as pm

# the bounds
OFFSET, TURN, MARBLE, CUP_FORCE, TORQUE_SHARE = 0.3, 1.0, 1.0, 0.2, 0.5
SHIFT, START_TURN = 0.3, 2.0  # how far off the cups and marbles start


def check(r: pd.PlaceReport) -> None:
    assert r.missed == []
    assert r.cup_offset <= OFFSET
    assert r.cup_turn <= TURN
    assert r.marble_offset <= MARBLE
    assert r.cup_force <= CUP_FORCE
    assert r.lifted <= pd.LIFTED
    assert r.cup_speed <= pd.STILL  # the cups have stopped when the motor does


@pytest.mark.parametrize("mu", [0.2, 0.5])
def test_a_place_forward_drives_every_cup_to_its_square(mu: float) -> None:
    board = pd.Board(mu=mu, seed=1)
    board.scatter(SHIFT, START_TURN)
    r = board.move(1)
    check(r)
    assert r.torque_share <= TORQUE_SHARE
    assert r.duration == pytest.approx(pd.step_times(1)[-1])


def test_a_take_back_lifts_no_cup_within_half_the_motors_torque() -> None:
    """Backwards, the fingers rise into the cups at crank angle 180 deg, mid-move: at full
    speed the ramp threw the bars up (about 310 mN m, all the motor has at 1.4 A; their
    fingers struck the holes' ends and lifted the cups up to 0.9 mm at mu 0.5). So the drive
    makes a take-back at the firmware's BACK_SHARE of the top speed, and it holds."""
    board = pd.Board(mu=0.5, seed=2)
    board.scatter(SHIFT, START_TURN)
    board.move(1)
    r = board.move(-1)
    assert r.torque_share <= TORQUE_SHARE
    check(r)


def test_a_take_back_brings_every_cup_back() -> None:
    board = pd.Board(mu=0.2, seed=2)
    board.scatter(SHIFT, START_TURN)
    board.move(1)
    r = board.move(-1)
    assert r.missed == []
    assert r.cup_offset <= OFFSET
    assert r.cup_turn <= TURN
    assert r.marble_offset <= MARBLE
    assert r.torque_share < 1.0  # under the motor's pull-out torque, if not by half


def test_a_power_cut_mid_place_is_finished_by_homing() -> None:
    """The referee's recovery (RingDrive.home, then the reading decides whether the turn
    stands): the drive coasts a little, and homing finishes the place."""
    board = pd.Board(mu=0.2, seed=3)
    cut = board.cut(0.5)
    assert 0 < cut.coasted < 0.25  # on, never back past its start nor on to the next index
    assert not cut.index
    assert cut.outcome == "finished"
    assert cut.cup_offset <= OFFSET
    assert cut.marble_offset <= MARBLE


def test_the_first_design_fails_the_checks() -> None:
    """The model catches a bad design: one finger off the centre line turns 30 mm cups, and
    they press on each other at the corners."""
    # 5 mm holes round 4.4 mm fingers, no lead-ins
    before = dataclasses.replace(PARAMS, cup_d=30.0, seat_d=13.0, print_clearance=0.6,
                                 finger_d=4.4, finger_offset=11.0, lead_in=0.0,
                                 finger_chamfer=0.0)  # fmt: skip
    board = pd.Board(before, mu=0.3, seed=1, fingers=pm.one_finger)
    r = board.move(1)
    assert r.cup_turn > TURN
    assert r.cup_force > CUP_FORCE


def test_the_kinematics_match_layout() -> None:
    """The couplings follow layout's yoke and ramp (the tables and their derivatives)."""
    kin = pd.Kinematics(PARAMS)
    for places in (0.1, 0.3, 0.5, 0.77):
        theta = places * kin.place
        phi = geo.crank_angle(places)
        along, speed, _ = kin.along(theta)
        assert along / pd.MM == pytest.approx(geo.bar_displacement(phi, PARAMS))
        up, _, _ = kin.up(theta)
        assert up / pd.MM == pytest.approx(geo.bar_lift(phi, PARAMS) - PARAMS.lift, abs=0.01)
        h = 1e-6
        slope = (kin.along(theta + h)[0] - kin.along(theta - h)[0]) / (2 * h)
        assert slope == pytest.approx(speed, rel=1e-4, abs=1e-9)
