"""The mechanism in MuJoCo, one model (issue 45, hardware/orbito_cad/models/physics*.py): its
contact geometry read against the CAD's solids, the stepper's law, the drive's kinematics,
short runs of places forward and back, a power cut, the first design caught, and the corners
of a printer's errors on a short run. The benchmark (`python benchmarks/mechanism.py`) runs the
frictions, the take-backs and all 16 corners, and prints what holds against issue 45's bounds.

They need the ``cad`` extra; without it they are skipped, except under CI=true, where they
fail (``.ci/run`` installs the extra).
"""

from __future__ import annotations

import dataclasses
import functools
import math

import pytest

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("mujoco", "build123d", "manifold3d")  # the cad extra: fails under CI=true

import manifold3d
import mujoco
import numpy as np
from orbito_cad.board import gearing
from orbito_cad.board import layout as geo
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models import physics as ph
from orbito_cad.models import physics_model as pm
from orbito_cad.models import physics_motor as motor
from orbito_cad.models import physics_tolerance as tol
from orbito_cad.parts import drive, mesh, track

SHIFT, START_TURN = tol.SHIFT, tol.TURN  # how far off the cups and marbles start
HOLE_HEIGHTS = (0.05, 0.2, 0.35, 1.0, 2.0, 3.5)  # mm over a cup's bottom
FINGER_DEPTHS = (0.05, 0.3, 0.6, 1.0, 2.0)  # mm under a finger's tip
SAME = 0.02  # mm: the STL's tolerance: a model's radius this near the solid's is the solid's


# --- the contact geometry, read from the CAD's solids ----------------------------------------
@functools.cache
def _solid(part: str, p: Params) -> manifold3d.Manifold:
    """A cup or a transfer bar as drawn, meshed finely."""
    made = track.cup(p) if part == "cup" else drive.transfer_bar(p)
    return mesh.manifold(made, tolerance=0.002)


@functools.cache
def _model(p: Params) -> mujoco.MjModel:
    return mujoco.MjModel.from_xml_string(pm.mjcf(p, 0.3, ph.TIMESTEP))


def _section_radius(solid: manifold3d.Manifold, centre: tuple[float, float], z: float) -> float:
    """The radius of the smallest loop of ``solid``'s section at height ``z`` round
    ``centre``: a hole's bore, or a pin's outline (its points lie on the surface or inside
    it, so their farthest is the true radius)."""
    loops = solid.slice(z).to_polygons()
    best = math.inf, 0.0
    for loop in loops:
        pts = np.asarray(loop) - centre
        x, y = pts[:, 0], pts[:, 1]
        area = abs(float(np.dot(x, np.roll(y, 1)) - np.dot(y, np.roll(x, 1)))) / 2
        angles = np.unwrap(np.arctan2(y, x))
        if abs(angles[-1] - angles[0]) > math.pi and area < best[0]:  # it goes round centre
            best = area, float(np.hypot(x, y).max())
    return best[1]


def _capsule_envelope(m: mujoco.MjModel, geom: int, centre: np.ndarray, z: float) -> float:
    """How near ``centre``'s vertical axis a capsule's surface comes at height ``z`` (in its
    body's frame, along the capsule's own azimuth): inf where it does not reach ``z``."""
    r, half = m.geom_size[geom][:2]
    axis = np.zeros(9)
    mujoco.mju_quat2Mat(axis, m.geom_quat[geom])
    a = m.geom_pos[geom] - half * axis.reshape(3, 3)[:, 2]
    b = m.geom_pos[geom] + half * axis.reshape(3, 3)[:, 2]
    best = math.inf
    for t in np.linspace(0, 1, 401):
        p = a + t * (b - a)
        dz = z - p[2]
        if abs(dz) <= r:
            best = min(best, float(np.hypot(*(p[:2] - centre))) - math.sqrt(r * r - dz * dz))
    return best


def _model_hole(p: Params, z: float) -> float:
    """The model's finger hole's radius at ``z`` mm over the cup's bottom (its first hole)."""
    m = _model(p)
    cup = m.body("cup_a1").id
    centre = np.array(geo.cup_holes(p)[0]) * pm.MM
    walls = [g for g in range(m.ngeom) if m.geom_bodyid[g] == cup
             and m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CAPSULE
             and m.geom_conaffinity[g] == pm.FINGER
             and np.hypot(*(m.geom_pos[g][:2] - centre)) < 0.004]  # fmt: skip
    return min(_capsule_envelope(m, g, centre, z * pm.MM) for g in walls) / pm.MM


def _model_finger(p: Params, depth: float) -> float:
    """The model's finger's radius ``depth`` mm under its tip (its stem a cylinder, its
    chamfer a mesh whose corners stand out as far as its faces stand in)."""
    m = _model(p)
    bar = m.body("bar_a1").id
    mine = [g for g in range(m.ngeom) if m.geom_bodyid[g] == bar and m.geom_contype[g] == pm.FINGER]
    cylinder = next(g for g in mine if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_CYLINDER)
    tip = next(g for g in mine if m.geom_type[g] == mujoco.mjtGeom.mjGEOM_MESH)
    x, y = m.geom_pos[cylinder][:2]
    k = m.geom_dataid[tip]
    turn = np.zeros(9)
    mujoco.mju_quat2Mat(turn, m.geom_quat[tip])
    verts = m.mesh_vert[m.mesh_vertadr[k] : m.mesh_vertadr[k] + m.mesh_vertnum[k]]
    at = m.geom_pos[tip] + verts @ turn.reshape(3, 3).T
    top = float(at[:, 2].max())
    z = top - depth * pm.MM
    c_top = m.geom_pos[cylinder][2] + m.geom_size[cylinder][1]
    if z <= c_top + 1e-9:
        return float(m.geom_size[cylinder][0]) / pm.MM
    radii = np.hypot(at[:, 0] - x, at[:, 1] - y)
    lo, hi = at[:, 2].min(), top
    r_lo, r_hi = radii[at[:, 2] < lo + 1e-7].mean(), radii[at[:, 2] > hi - 1e-7].mean()
    r = r_lo + (r_hi - r_lo) * (z - lo) / (hi - lo)
    return float(r * (1 + math.cos(math.pi / pm.FINGER_SIDES)) / 2) / pm.MM


def _solid_hole(p: Params, z: float) -> float:
    return _section_radius(_solid("cup", p), geo.cup_holes(p)[0], z)


def _solid_finger(p: Params, depth: float) -> float:
    centre = (gearing.fingers_x(p)[0], gearing.rails_y(p)[0])
    return _section_radius(_solid("bar", p), centre, gearing.finger_tip_z(p) - depth)


VARIANTS = {
    "as drawn": PARAMS,
    "a deeper chamfer": dataclasses.replace(PARAMS, lead_in=0.6),
    "another fit": dataclasses.replace(PARAMS, finger_d=3.8, print_clearance=0.6),
    "a blunter finger": dataclasses.replace(PARAMS, finger_chamfer=0.5),
}


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_models_fingers_and_holes_are_the_cads(variant: str) -> None:
    """The finger hole's bore and lead-in, and the finger's stem and chamfer, as the model's
    compiled geoms stand, at every height where they touch: the solids' own sections, within
    the STL's tolerance. A chamfer or a fit changed in the CAD and not in the model fails."""
    p = VARIANTS[variant]
    for z in HOLE_HEIGHTS:
        assert _model_hole(p, z) == pytest.approx(_solid_hole(p, z), abs=SAME), z
    for depth in FINGER_DEPTHS:
        assert _model_finger(p, depth) == pytest.approx(_solid_finger(p, depth), abs=SAME), depth


def test_the_geometry_check_sees_a_chamfer_the_model_missed() -> None:
    """The check above can fail: the solids with a 0.6 mm lead-in, or a 0.5 mm chamfer on the
    finger, against the model as drawn differ where the chamfer is."""
    deeper, blunter = VARIANTS["a deeper chamfer"], VARIANTS["a blunter finger"]
    assert abs(_model_hole(PARAMS, 0.05) - _solid_hole(deeper, 0.05)) > 0.15
    assert abs(_model_finger(PARAMS, 0.05) - _solid_finger(blunter, 0.05)) > 0.25


# --- the motor --------------------------------------------------------------------------------
def test_the_stepper_gives_its_pull_out_torque_a_full_step_behind() -> None:
    """The law the motor joint is driven by: no torque on its step, the pull-out torque at
    that speed a full step (1.8 deg) behind, less beyond (it slips); the response time is the
    inertias on the field's spring."""
    speed = 1600.0
    full_step = math.radians(1.8)
    most = motor.pull_out(PARAMS, speed)
    assert motor.torque(PARAMS, 0.0, 0.0, speed) == 0.0
    assert motor.torque(PARAMS, full_step, 0.0, speed) == pytest.approx(most)
    assert motor.torque(PARAMS, 1.5 * full_step, 0.0, speed) < most
    assert most == pytest.approx(0.3764 * PARAMS.driver_current / PARAMS.motor_rated_current,
                                 rel=0.01)  # the datasheet's curve at 30 rpm  # fmt: skip
    inertia = pm.armature(PARAMS) + pm.disc_inertia(PARAMS)[1]
    assert motor.response_time(PARAMS) == pytest.approx(
        math.sqrt(inertia / (50 * motor.pull_out(PARAMS, 0.0)))
    )
    assert 0.001 < motor.response_time(PARAMS) < 0.01


def test_the_kinematics_match_layout() -> None:
    """The couplings follow layout's yoke and ramp (the tables and their derivatives)."""
    kin = ph.Kinematics(PARAMS)
    for places in (0.1, 0.3, 0.5, 0.77):
        theta = places * kin.place
        phi = geo.crank_angle(places)
        along, speed, _ = kin.along(theta)
        assert along / pm.MM == pytest.approx(geo.bar_displacement(phi, PARAMS))
        up, _, _ = kin.up(theta)
        assert up / pm.MM == pytest.approx(geo.bar_lift(phi, PARAMS) - PARAMS.lift, abs=0.01)
        h = 1e-6
        slope = (kin.along(theta + h)[0] - kin.along(theta - h)[0]) / (2 * h)
        assert slope == pytest.approx(speed, rel=1e-4, abs=1e-9)


def test_the_drive_is_bodies_and_joints_never_moved_by_hand() -> None:
    """No mocap body: the contacts see the fingers' real speeds."""
    m = ph.Board(mu=0.3).model
    assert m.nmocap == 0
    assert m.nu == 1 and m.actuator_trnid[0][0] == m.joint("motor").id


# --- places ---------------------------------------------------------------------------------
def test_a_place_forward_at_low_friction_holds_every_bound() -> None:
    """At mu 0.2, with the fit set from the tolerance test, every cup is driven to within
    0.3 mm and 1 deg of its square from a start 0.3 mm and 2 deg off, the marbles in their
    seats, none lifted, the motor within half its pull-out torque."""
    board = ph.Board(mu=0.2, seed=1)
    board.scatter(SHIFT, START_TURN)
    r = board.move(1)
    assert r.missed == [] and r.marbles_off == 0
    assert tol.broken(r) == []
    assert r.duration == pytest.approx(ph.step_times(1)[-1])


def test_a_take_back_at_its_speed_lifts_no_cup(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 45: backwards, the bars rise into the cups mid-move, at the take-back's top
    speed. At BACK_SHARE (20 %) the fingers' chamfers have time to slide the cups over: none
    lifted over 0.2 mm at mu 0.5, every cup back within 0.3 mm of its square; at the
    earlier 40 % the same board lifts them (the check can fail)."""
    from orbito_fw import planner

    shipped = planner.BACK_SHARE
    assert shipped == 0.2
    lifts = []
    for share in (shipped, 0.4):
        monkeypatch.setattr(planner, "BACK_SHARE", share)
        board = ph.Board(mu=0.5, seed=1)
        board.scatter(SHIFT, START_TURN)
        board.move(1)
        back = board.move(-1)
        assert back.missed == [] and back.marbles_off == 0
        assert back.duration == pytest.approx(ph.step_times(-1)[-1])
        lifts.append(back.lifted)
        if share == shipped:
            assert tol.broken(back) == []
    assert lifts[0] <= tol.BOUNDS.lift < lifts[1]


def test_a_power_cut_mid_place_is_finished_by_homing() -> None:
    """The referee's recovery (RingDrive.home, then the reading decides whether the turn
    stands): the drive coasts a little, and homing finishes the place."""
    board = ph.Board(mu=0.2, seed=3)
    cut = board.cut(0.5)
    assert 0 < cut.coasted < 0.25  # on, never back past its start nor on to the next index
    assert not cut.index
    assert cut.outcome == "finished"
    assert cut.marble_offset <= tol.BOUNDS.marble


def test_the_first_design_fails_the_checks() -> None:
    """The model catches a bad design: one finger off the centre line turns 30 mm cups, and
    they press on each other at the corners."""
    # 5 mm holes round 4.4 mm fingers, no lead-ins
    before = dataclasses.replace(PARAMS, cup_d=30.0, seat_d=13.0, print_clearance=0.6,
                                 finger_d=4.4, finger_offset=11.0, lead_in=0.0,
                                 finger_chamfer=0.0)  # fmt: skip
    board = ph.Board(before, mu=0.3, seed=1, fingers=pm.one_finger, errors=pm.EXACT)
    r = board.move(1)
    assert r.cup_turn > tol.BOUNDS.turn
    assert "turn" in " ".join(tol.broken(r))


# --- a printer's errors -----------------------------------------------------------------------
def test_the_corners_are_the_fit_read_off_the_tolerance_test_and_a_printers_errors() -> None:
    """The board as built prints its finger fit with the play of the tolerance test's hole
    that fits (whatever ``print_clearance`` the printer needed); the corners move that play
    by half the test's step either way, and the walls, the cups, the ramp and the gears by a
    printer's full errors. The model's finger, hole and yoke take the play printed."""
    built = pm.calibrated(PARAMS)
    play = PARAMS.fit_play + PARAMS.fit_step / 2
    assert pm.printed_play(PARAMS, built) == pytest.approx(play)
    other = dataclasses.replace(PARAMS, print_clearance=0.45)
    assert pm.printed_play(other, pm.calibrated(other)) == pytest.approx(play)
    corners = tol.corners()
    assert len(corners) == 16 and len({c.name for c in corners}) == 16
    for c in corners:
        e = c.errors
        got = pm.printed_play(PARAMS, e)
        assert abs(got - play) == pytest.approx(PARAMS.fit_step / 2)
        assert (got > play) == c.name.startswith("loose")
        assert abs(e.wall) == abs(e.ramp) == abs(e.centre) == tol.WALLS
        assert abs(e.cup) == tol.HOLES_PINS and e.cup * e.wall > 0  # a wide channel, a small cup
        assert pm.hole_profile(PARAMS, e)[1][0] - pm.finger_profile(PARAMS, e)[0][0] == (
            pytest.approx(got / 2)
        )
        assert pm.yoke_play(PARAMS, e) == pytest.approx(got / 2)


def test_a_corner_on_a_short_run_holds_its_bounds() -> None:
    """A corner of the sweep at mu 0.5 (the fit tight, the channel narrow, the ramp high, the
    gears near), one place forward and one back: every cup within 0.3 mm and 1 deg of its
    square, the marbles in their seats, the motor within half its pull-out torque, the
    take-back lifting no cup over 0.2 mm (the benchmark runs all 16 corners at both
    frictions, and names the corners where a cup's lift forwards passes 0.2 mm at mu 0.5)."""
    corner = "tight fit, narrow channel, high ramp, near gears"
    run = tol.run(next(c for c in tol.corners() if c.name == corner), 0.5)
    for r in (run.forward, run.back):
        assert r.missed == [] and r.marbles_off == 0
        assert [b for b in tol.broken(r) if not b.startswith("lift")] == []
    assert run.back.lifted <= tol.BOUNDS.lift
