"""The mechanism in motion (issue 32): the assembly moved through one place, forwards and
back, pose by pose with its own kinematics, as swept solids (manifold3d); the gears in mesh
over one tooth; and the motion data `cad build` writes for checks outside the project
(SPEC.md, "The mechanism's motion"; docs/motion.md).

They need the ``cad`` extra; without it they are skipped, except under CI=true, where they
fail (``.ci/run`` installs the extra).
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from orbito_hw.rules.squares import INNER_RING, OUTER_RING, PRESS_TO, SQUARE_NAMES, parse_square

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("build123d", "manifold3d")  # the cad extra: fails under CI=true, skips elsewhere
import build123d
import manifold3d
import numpy as np
from orbito_cad.assembly.placed import Placed
from orbito_cad.board import layout
from orbito_cad.board.params import PARAMS
from orbito_cad.models import motion, sweep, teeth
from orbito_cad.parts import track

from .common import cad


@pytest.fixture(scope="module")
def assembly(tmp_path_factory: pytest.TempPathFactory) -> list[Placed]:
    return cad.assembly(tmp_path_factory)


@pytest.fixture(scope="module")
def meshes(assembly: list[Placed]) -> dict[str, manifold3d.Manifold]:
    return cad.meshes(assembly)


@pytest.mark.parametrize("part", range(cad.SWEEP_PARTS))
def test_nothing_collides_and_every_gap_holds_at_every_pose(
    assembly: list[Placed], meshes: dict[str, manifold3d.Manifold], part: int
) -> None:
    """Every pose of one place forwards (a quarter of them in each test; the way back is
    test_mechanism_back's): no two solids share volume unless they touch by design, cups keep
    0.5 mm from each other and every moving part 0.5 mm from every fixed one."""
    cad.check_sweep_part(assembly, meshes, "forward", part)


@pytest.mark.parametrize("way", ["forward", "back"])
def test_the_sweeps_parts_check_every_pose_once(way: str) -> None:
    assert cad.swept(way)[0] == (0.0 if way == "forward" else 1.0)
    assert len(cad.swept(way)) == cad.POSES + (way == "back")
    every = [k for part in range(cad.SWEEP_PARTS) for k in cad.sweep_part(way, part)]
    assert every == list(range(len(cad.swept(way))))


def test_a_sweep_in_parts_follows_the_whole_way(
    assembly: list[Placed], meshes: dict[str, manifold3d.Manifold]
) -> None:
    """Checked at one pose near mid-stroke on the way back, a sweep moves the cups as the
    whole way back to it does (their fingers' play taken up backwards), not as a move
    straight to that pose from rest would: the corner cups' gap differs by the play."""
    cups = [x for x in assembly if x.part == "cup"]
    back = cad.swept("back")
    k = 3 * cad.POSES // 4  # a quarter of a place from rest: the corner cups pass closest
    there = sweep.sweep(cups, back, meshes=meshes, at=[k])
    assert there.poses == 1 and there.least_cup_pair[2] == back[k]
    upto = sweep.sweep(cups, back[: k + 1], meshes=meshes, at=[k])  # the way back up to it
    assert there.least_cup_gap == upto.least_cup_gap
    alone = sweep.sweep(cups, [back[k]], meshes=meshes)
    assert abs(there.least_cup_gap - alone.least_cup_gap) > 0.005


def test_the_sweep_measures_the_least_gaps(
    assembly: list[Placed], meshes: dict[str, manifold3d.Manifold]
) -> None:
    """At mid-stroke the cups meeting at a corner pass closest: 40/sqrt(2) = 28.3 mm apart,
    less the cup's width."""
    found = sweep.sweep(assembly, [0.25], meshes=meshes)
    corner = PARAMS.pitch / math.sqrt(2) - PARAMS.cup_d
    assert found.least_cup_gap == pytest.approx(corner, abs=0.05)
    assert {found.least_cup_pair[0], found.least_cup_pair[1]} <= {
        f"cup_{SQUARE_NAMES[s]}" for s in OUTER_RING
    }
    assert sweep.GAP <= found.least_moving_gap <= sweep.GAP + sweep.MEASURED


def test_the_sweep_catches_cups_that_collide_at_the_corners() -> None:
    """The old design's 30 mm cups: the cup coming into a corner and the one leaving it
    overlap at mid-stroke."""
    wide = dataclasses.replace(PARAMS, cup_d=30.0)
    cups = [
        Placed(f"cup_{SQUARE_NAMES[s]}", "cup", build123d.Pos(*layout.square_centre(s, wide),
               wide.z_floor_top) * track.cup(wide), True, True, 0)
        for s in OUTER_RING
    ]  # fmt: skip
    found = sweep.sweep(cups, [0.0, 0.25, 0.5], wide)
    assert {(a, b) for a, b, t, _ in found.overlaps if t == 0.25} >= {("cup_c1", "cup_d1")}
    assert all(t == 0.25 for _, _, t, _ in found.overlaps)


def test_the_sweep_skips_only_pairs_that_cannot_have_closed_the_gap() -> None:
    """Checking the rule alone, a pair measured well apart is not measured again for the
    poses it cannot close the gap in: the 30 mm cups through the first half of a place
    overlap at the same poses, pair by pair, as when every pair is measured at every pose,
    with fewer pairs measured (the cups that meet at a corner are near all the way: only the
    others are certified; in the whole assembly, most pairs are)."""
    wide = dataclasses.replace(PARAMS, cup_d=30.0)
    cups = [
        Placed(f"cup_{SQUARE_NAMES[s]}", "cup", build123d.Pos(*layout.square_centre(s, wide),
               wide.z_floor_top) * track.cup(wide), True, True, 0)
        for s in OUTER_RING
    ]  # fmt: skip
    places, at = motion.forward(cad.POSES), range(cad.POSES // 2)
    meshes = cad.meshes(cups)
    certified = sweep.sweep(cups, places, wide, meshes=meshes, measure=0.0, at=at)
    every = sweep.sweep(cups, places, wide, meshes=meshes, measure=0.05, at=at)
    assert certified.overlaps != [] and certified.poses == every.poses == len(at)
    assert [(a, b, t) for a, b, t, _ in certified.overlaps] == [
        (a, b, t) for a, b, t, _ in every.overlaps
    ]
    assert certified.close == every.close
    assert certified.measured < every.measured


def test_the_sweep_catches_a_finger_too_close_to_its_slot(
    assembly: list[Placed], meshes: dict[str, manifold3d.Manifold]
) -> None:
    """A bar moved 0.3 mm across its side: its fingers come within 0.5 mm of the face."""
    bar = next(x for x in assembly if x.part == "transfer_bar")
    side = next(
        s for s in layout.sides() if f"transfer_bar_{SQUARE_NAMES[s.starts[0]]}" == bar.name
    )
    ox, oy = side.outward
    moved = dict(meshes)
    moved[bar.name] = meshes[bar.name].translate((0.3 * ox, 0.3 * oy, 0.0))
    found = sweep.sweep(assembly, [0.1], meshes=moved, measure=0.0)
    assert any({a, b} == {bar.name, "face"} or {a, b} == {bar.name, "centre_plate"}
               for a, b, _, _ in found.close)  # fmt: skip


# --- the gears -------------------------------------------------------------------------------
def test_the_gears_mesh_with_backlash_and_no_transmission_error() -> None:
    """Over one tooth: the teeth never overlap, the backlash stays at least 0.1 mm, and the
    crank follows the ideal 1:4 within 0.5 deg (involute teeth: far less)."""
    mesh = teeth.mesh_over_one_tooth(positions=24)
    assert mesh.overlap == 0.0
    assert mesh.backlash[0] >= 0.1
    assert mesh.backlash[1] <= PARAMS.backlash + 0.05
    assert mesh.transmission_error <= 0.5


def test_the_gear_check_catches_teeth_without_backlash() -> None:
    tight = dataclasses.replace(PARAMS, backlash=-0.1)  # teeth fatter than the space
    mesh = teeth.mesh_over_one_tooth(tight, positions=6)
    assert mesh.overlap > 0


def test_the_crank_arm_clears_the_central_gear_it_turns_over() -> None:
    """Issue 45: the crank arm's underside lay flush on the central gear's teeth, hidden by
    the gears' listed contact; the arm (the crank gear above its teeth) clears them by a
    running gap whichever way it points."""
    from orbito_cad.parts import drive, mesh

    p = PARAMS
    central = mesh.manifold(drive.central_gear(p), tolerance=0.02)
    crank = mesh.manifold(drive.crank_gear(p), tolerance=0.02)
    # (a micron over the teeth's tops: the teeth themselves touch, in mesh)
    above = manifold3d.Manifold.cube((100, 100, 100)).translate((-50, -50, p.gear_t + 1e-3))
    arm = crank ^ above
    for turn in range(0, 360, 90):
        placed = arm.rotate((0, 0, turn)).translate((p.crank_distance, 0, 0))
        assert placed.min_gap(central, 2.0) >= p.running_gap - 0.05, turn


def test_every_listed_contact_touches_at_some_pose(
    assembly: list[Placed], meshes: dict[str, manifold3d.Manifold]
) -> None:
    """motion.json's contacts are the pairs that touch (issue 45): each comes within
    ``sweep.TOUCH`` at some pose (every sixth of a place and the first half of the next: a
    bar's fingers rise at the end of a place into the cups they push in the next, within
    0.49 mm there; a bought part pressed into a printed pocket within half the pocket's fit
    more, gears in mesh within half their backlash more), those with no moving part at rest.
    That every other pair with a moving part keeps ``sweep.GAP`` at every pose is the sweep's
    (the tests above and test_mechanism_back's)."""
    one = cad.swept("forward")
    places = [*one, *(1 + t for t in one[1 : len(one) // 2 + 1])]
    found = sweep.sweep(assembly, places, meshes=meshes, measure=0.0, at=range(0, len(places), 6))
    assert found.overlaps == [] and found.close == []
    gaps = {**found.contact_gaps, **sweep.fixed_contact_gaps(assembly, PARAMS, meshes)}
    pressed = set(motion.pressed(assembly))
    meshing = set(motion.meshing(assembly))
    far = {}
    for pair in motion.contacts(assembly):
        allowed = sweep.TOUCH + (PARAMS.fit / 2 if pair in pressed else 0.0)
        allowed += PARAMS.backlash / 2 if pair in meshing else 0.0
        if gaps.get(pair, math.inf) > allowed + 1e-6:
            far[pair] = gaps.get(pair)
    assert far == {}, f"listed as touching, never within {sweep.TOUCH} mm: {far}"


def test_the_contacts_follow_the_rings_under_the_face(assembly: list[Placed]) -> None:
    """Each square's sensor and LED are glued under the plate their square is in: the outer
    ring's under the face, the inner ring's under the centre plate (issue 45: swapped)."""
    pairs = set(motion.contacts(assembly))
    for s in (*OUTER_RING, *INNER_RING):
        plate, other = ("face", "centre_plate") if s in OUTER_RING else ("centre_plate", "face")
        for kind in ("hall", "led"):
            name = f"{kind}_{SQUARE_NAMES[s]}"
            assert (min(name, plate), max(name, plate)) in pairs
            assert (min(name, other), max(name, other)) not in pairs


# --- the motion data -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory, assembly: list[Placed]) -> Path:
    out = tmp_path_factory.mktemp("motion")
    motion.write(out, assembly)
    return out


def test_the_motion_data_is_what_spec_says(written: Path, assembly: list[Placed]) -> None:
    data = json.loads((written / "motion.json").read_text())
    k = data["steps"]
    assert k >= 360
    assert sorted(data["parts"]) == sorted(x.name for x in assembly)
    for x in assembly:
        assert (written / f"{x.name}.stl").stat().st_size > 84
        mats = data["parts"][x.name]
        assert len(mats) == k
        for m in mats:
            t = np.array(m, dtype=float).reshape(4, 4)
            assert np.allclose(t[3], [0, 0, 0, 1])
            assert np.allclose(t[:3, :3] @ t[:3, :3].T, np.eye(3), atol=1e-5)  # rigid
            assert np.linalg.det(t[:3, :3]) == pytest.approx(1.0, abs=1e-5)
            if not x.moves:
                assert np.allclose(t, np.eye(4))
        assert np.allclose(np.array(mats[0]).reshape(4, 4), np.eye(4))  # the first at rest
    names = {x.name for x in assembly}
    assert all(a in names and b in names and a < b for a, b in data["contacts"])


def test_each_marble_goes_from_its_square_to_where_the_press_sends_it(
    written: Path, assembly: list[Placed]
) -> None:
    data = json.loads((written / "motion.json").read_text())
    play = layout.finger_play() * math.sqrt(2)
    for x in assembly:
        if x.part != "marble":
            continue
        box = x.solid.bounding_box()
        at_rest = np.array([box.center().X, box.center().Y, box.center().Z, 1.0])
        square = parse_square(x.name.split("_")[1])
        assert math.dist(at_rest[:2], layout.square_centre(square)) < 1e-6
        end = np.array(data["parts"][x.name][-1]).reshape(4, 4) @ at_rest
        assert math.dist(end[:2], layout.square_centre(PRESS_TO[square])) <= play + 1e-4
        assert end[2] == pytest.approx(at_rest[2])
