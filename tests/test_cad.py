"""The board's mechanics (hardware/orbito_cad, issue 25), checked on the model itself and on
the files ``orbito-hw cad build`` writes: the squares on the 4x4 grid, every cup resting on
the square the rules send its marble to, the drive's ratios against the config, the parts
printable, nothing colliding, every LED's light reaching its square.

They need the ``cad`` extra; without it they are skipped, except under CI=true, where they
fail (``.ci/run`` installs the extra).
"""

from __future__ import annotations

import dataclasses
import json
import math
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

from orbito_hw.app.config import load_config
from orbito_hw.cli import main
from orbito_hw.rules.squares import (
    INNER_RING,
    OUTER_RING,
    PRESS_TO,
    SQUARE_NAMES,
    SQUARES,
    parse_square,
)

from .common import needs

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = load_config(ROOT / "config.example.toml")

pytestmark = pytest.mark.cad
needs.modules("build123d", "matplotlib")  # the cad extra: fails under CI=true, skips elsewhere

from build123d import Cylinder
from orbito_cad.assembly import whole
from orbito_cad.assembly.placed import Placed
from orbito_cad.board import face, gearing, layout
from orbito_cad.board.params import PARAMS
from orbito_cad.models import checks
from orbito_cad.parts import track

from .common import cad


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run of ``orbito-hw cad build`` for the whole run (``cad.built``), given the printed
    parts built once for the run (``cad.printed``: byte for byte the parts the command
    builds)."""
    return cad.built(tmp_path_factory)[0]


@pytest.fixture(scope="session")
def assembly(tmp_path_factory: pytest.TempPathFactory) -> list[Placed]:
    return cad.assembly(tmp_path_factory)


# --- the assembly --------------------------------------------------------------------------
# First in the module: its first test builds the printed parts for the run (cad.printed), so
# that the build's test after it finds them built and each takes half as long.
@pytest.fixture(scope="session")
def rough() -> checks.Rough:
    """The assembly's rough meshes, made once for the interference checks."""
    return checks.Rough()


def test_the_assembly_has_no_interfering_solids(
    assembly: list[Placed], rough: checks.Rough
) -> None:
    assert checks.interferences(assembly, rough) == []


def test_the_interference_check_catches_a_misplaced_cup(
    assembly: list[Placed], rough: checks.Rough
) -> None:
    from build123d import Pos

    cup = next(p for p in assembly if p.name == "cup_a1")
    moved = Placed("moved", "cup", Pos(PARAMS.pitch / 2, 0, 0) * cup.solid, True, True, 0)
    names = {a for pair in checks.interferences([*assembly, moved], rough) for a in pair[:2]}
    assert {"moved", "cup_b1"} <= names


def test_the_interference_check_intersects_exactly_only_what_comes_near(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A post standing in the crook of an L, 2 mm clear of it (their boxes overlap), is not
    intersected exactly; one touching the L is, and so is a block inside another whole,
    whose surfaces are far apart."""
    from build123d import Box, Pos

    ell = Box(40, 10, 10) + Pos(-15, 15, 0) * Box(10, 20, 10)
    asked: list[tuple[str, str]] = []
    exact = checks.shared_volume

    def counted(a: object, b: object) -> float:
        asked.append((names[id(a)], names[id(b)]))
        return exact(a, b)

    monkeypatch.setattr(checks, "shared_volume", counted)
    clear, touching = Pos(12, 12, 0) * Box(10, 10, 10), Pos(0, 10, 0) * Box(10, 10, 10)
    big, inside = Pos(100, 0, 0) * Box(30, 30, 30), Pos(100, 0, 0) * Box(5, 5, 5)
    solids = {"ell": ell, "clear": clear, "touching": touching, "big": big, "inside": inside}
    names = {id(solid): name for name, solid in solids.items()}
    placed = [Placed(n, "case", solid, True, False, 0) for n, solid in solids.items()]
    found = checks.interferences(placed)
    assert ("ell", "clear") not in asked and ("ell", "touching") in asked
    assert [(a, b) for a, b, _ in found] == [("big", "inside")]
    assert found[0][2] == pytest.approx(125)


def test_each_sensor_and_led_sits_under_its_square(assembly: list[Placed]) -> None:
    by_name = {p.name: p.solid for p in assembly}
    for s in SQUARES:
        name = SQUARE_NAMES[s]
        x, y = layout.square_centre(s)
        hall = by_name[f"hall_{name}"].bounding_box().center()
        led = by_name[f"led_{name}"].bounding_box()
        # the switch right under the marble, the LED beside it under the cup or the disc,
        # clear of the switch's pocket
        assert math.hypot(hall.X - x, hall.Y - y) < 0.01
        off = math.hypot(led.center().X - x, led.center().Y - y)
        assert face.sensor_keepout() + PARAMS.led_d / 2 <= off + 1e-6
        assert off < PARAMS.cup_d / 2  # the light goes up into the cup (or the disc)
        assert PARAMS.z_floor_top > hall.Z and PARAMS.z_face + 1e-6 >= led.max.Z
        marble = by_name[f"marble_{name}"].bounding_box()
        assert marble.min.Z - (hall.Z + PARAMS.hall_t / 2) < 8  # mechanics.md: under 8 mm


def test_the_index_sensor_is_under_its_magnet_at_every_rest() -> None:
    side = gearing.index_side()
    ax, ay = side.crank_axis()
    for n in range(13):  # every place ends at crank angle 0: the magnet over the switch
        phi = 2 * math.pi * n
        r = gearing.index_radius()
        mx = ax - side.along[0] * r * math.cos(phi)
        my = ay - side.along[1] * r * math.cos(phi)
        assert math.dist((mx, my), gearing.index_sensor_xy()) < 1e-6


@pytest.mark.parametrize("places", range(4))
def test_the_light_from_every_led_reaches_its_square(assembly: list[Placed], places: int) -> None:
    """At each rest position (the moving parts' rest poses repeat every 4 places: the disc
    has 4-fold symmetry and every cup is alike), each LED's light comes up through its
    window into the translucent cup or disc over it (and the marble in it), and nothing
    else that moves (a bar, a finger) stands in the column."""
    from build123d import Rot

    moving = [p for p in assembly if p.moves]
    for p in moving:  # turn the disc as the rings would; the cups are all alike
        if p.part == "disc":
            moving = [m for m in moving if m is not p] + [
                Placed("disc", "disc", Rot(0, 0, 90 * places) * p.solid, True, True, 0)
            ]
    for s in SQUARES:
        column = track.light_path(s)
        lit = [p.name for p in moving if p.part in ("cup", "disc")
               and checks.shared_volume(column, p.solid) > 1e-6]  # fmt: skip
        blocking = [p.name for p in moving if p.part not in ("cup", "disc", "marble")
                    and checks.shared_volume(column, p.solid) > 1e-6]  # fmt: skip
        assert len(lit) == 1 and blocking == [], SQUARE_NAMES[s]


def test_the_light_check_sees_a_blocked_window(assembly: list[Placed]) -> None:
    from build123d import Pos

    bar = next(p for p in assembly if p.part == "transfer_bar")
    x, y = face.led_centre(OUTER_RING[3])
    finger = Pos(x, y, PARAMS.z_face) * Cylinder(1, 20)
    assert checks.shared_volume(track.light_path(OUTER_RING[3]), finger) > 1
    assert checks.shared_volume(track.light_path(OUTER_RING[3]), bar.solid) == 0


def test_the_build_writes_every_part_render_and_the_layout(built: Path) -> None:
    for name in whole.PRINTED:
        for suffix in (".stl", ".step"):
            assert (built / f"{name}{suffix}").stat().st_size > 1000
        assert (built / f"part-{name}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for name in ("assembled.png", "exploded.png"):
        assert (built / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (built / "assembly.step").read_text(errors="replace").startswith("ISO-10303-21")
    bom = (built / "BOM.md").read_text()
    assert all(f"`{name}.stl`" in bom for name in whole.PRINTED)


@pytest.mark.parametrize("name", list(whole.PRINTED))
def test_each_stl_is_one_closed_manifold_solid_that_fits_the_bed(built: Path, name: str) -> None:
    assert checks.stl_problems(built / f"{name}.stl", PARAMS.bed) == []


@pytest.mark.parametrize("name", list(whole.PRINTED))
def test_each_printed_part_has_walls_of_at_least_the_minimum(built: Path, name: str) -> None:
    tris = checks.read_stl(built / f"{name}.stl")
    assert checks.thinnest_wall(tris, samples=1500) >= PARAMS.min_wall - 0.01


def test_the_stl_checks_catch_an_open_mesh_and_a_thin_wall(tmp_path: Path) -> None:
    from build123d import Box, export_stl

    thin = tmp_path / "thin.stl"
    export_stl(Box(20, 20, 0.8), str(thin))
    tris = checks.read_stl(thin)
    assert checks.thinnest_wall(tris) == pytest.approx(0.8, abs=1e-3)
    assert checks.stl_problems(thin, PARAMS.bed) == []
    opened = tmp_path / "open.stl"
    data = thin.read_bytes()
    count = int.from_bytes(data[80:84], "little") - 1
    opened.write_bytes(data[:80] + count.to_bytes(4, "little") + data[84 + 50 :])
    assert any("not closed" in p for p in checks.stl_problems(opened, PARAMS.bed))
    big = tmp_path / "big.stl"
    export_stl(Box(230, 10, 10), str(big))
    assert any("does not fit" in p for p in checks.stl_problems(big, PARAMS.bed))


# --- the grid and the rings ---------------------------------------------------------------
def test_the_squares_sit_on_the_4x4_grid_at_the_stated_pitch(built: Path) -> None:
    data = json.loads((built / "layout.json").read_text())
    assert sorted(data) == ["bed", "cups", "squares"]
    assert data["bed"] == [220, 220, 250]
    squares = data["squares"]
    assert sorted(squares) == sorted(SQUARE_NAMES)
    xs = sorted({x for x, _ in squares.values()})
    ys = sorted({y for _, y in squares.values()})
    assert len(xs) == len(ys) == 4
    assert [b - a for a, b in pairwise(xs)] == [PARAMS.pitch] * 3
    assert [b - a for a, b in pairwise(ys)] == [PARAMS.pitch] * 3
    for name, (x, y) in squares.items():  # files left to right, ranks bottom to top
        assert xs.index(x) == "abcd".index(name[0]) and ys.index(y) == int(name[1]) - 1


# A pushed cup stops up to a finger's play short of its square's centre along the way it
# went, and keeps what it had across it from the side before: sqrt(2) x the play at most.
PLAY = layout.finger_play(PARAMS) * math.sqrt(2)


def test_every_cup_rests_where_the_rules_send_its_marble(built: Path) -> None:
    data = json.loads((built / "layout.json").read_text())
    assert sorted(data["cups"]) == sorted(SQUARE_NAMES)
    for cup, path in data["cups"].items():
        assert len(path) == 13
        on = parse_square(cup)
        for point in path:
            nearest = min(data["squares"], key=lambda k: math.dist(data["squares"][k], point))
            assert nearest == SQUARE_NAMES[on], (cup, point)
            assert math.dist(data["squares"][nearest], point) <= PLAY + 1e-4
            on = PRESS_TO[on]


SAMPLES = 48  # points sampled along each place


@pytest.mark.parametrize("start", list(OUTER_RING) + list(INNER_RING), ids=SQUARE_NAMES.__getitem__)
def test_each_cup_moves_one_square_per_place_and_back(start: int) -> None:
    """Driven forwards through 12 places and back again, sampled along every move: each
    place takes the cup from its square to the next (straight along a side for the outer
    ring, an arc about the centre for the inner one), never further, and a turn back undoes
    it."""
    forward = [n / SAMPLES for n in range(12 * SAMPLES + 1)]
    back = forward[::-1][1:]
    path = layout.cup_path(start, forward + back)
    pitch = PARAMS.pitch
    on = start
    for n in range(12):
        a, b = layout.square_centre(on), layout.square_centre(PRESS_TO[on])
        moves = path[n * SAMPLES : (n + 1) * SAMPLES + 1]
        assert math.dist(moves[0], a) <= PLAY + 1e-6 and math.dist(moves[-1], b) <= PLAY + 1e-6
        for p, q in pairwise(moves):
            assert math.dist(p, q) < pitch / 8  # no jump
        if start in OUTER_RING:
            # on the segment a-b, never back on itself
            along = [((x - a[0]) * (b[0] - a[0]) + (y - a[1]) * (b[1] - a[1])) / pitch**2
                     for x, y in moves]  # fmt: skip
            slack = PLAY / pitch + 1e-9
            assert all(-slack <= t <= 1 + slack for t in along)
            assert all(t1 >= t0 - 1e-9 for t0, t1 in pairwise(along))
            for (x, y), t in zip(moves, along, strict=True):
                line = (a[0] + t * (b[0] - a[0]), a[1] + t * (b[1] - a[1]))
                assert math.dist((x, y), line) <= PLAY + 1e-6
        else:
            assert all(abs(math.hypot(*m) - math.hypot(*a)) < 1e-6 for m in moves)
        on = PRESS_TO[on]
    returned = path[12 * SAMPLES :]  # from place 12 back to place 0
    for n in range(13):
        where = layout.square_centre(layout.after(start, 12 - n))
        assert math.dist(returned[n * SAMPLES], where) <= 2 * PLAY + 1e-6


def test_a_take_back_after_each_place_returns_every_cup() -> None:
    for start in OUTER_RING:
        for n in range(1, 13):
            there, back = layout.cup_path(start, [float(n), n - 1.0])
            near = PLAY + 1e-6
            assert math.dist(there, layout.square_centre(layout.after(start, n))) <= near
            assert math.dist(back, layout.square_centre(layout.after(start, n - 1))) <= 2 * near


def test_the_kinematics_catch_a_crank_of_the_wrong_throw(monkeypatch: pytest.MonkeyPatch) -> None:
    right = layout.bar_displacement
    monkeypatch.setattr(layout, "bar_displacement", lambda phi, p=PARAMS: 0.9 * right(phi, p))
    ((x, y),) = layout.cup_path(OUTER_RING[3], [1.0])
    assert math.dist((x, y), layout.square_centre(PRESS_TO[OUTER_RING[3]])) > 1


def test_one_place_is_the_configs_steps_per_place() -> None:
    p = PARAMS
    assert layout.steps_per_place(p) == EXAMPLE.drive.steps_per_place
    motor_turns = EXAMPLE.drive.steps_per_place / (p.motor_steps * p.microsteps)
    # the crank gears: one crank turn, one square for every outer cup
    assert motor_turns * p.central_teeth / p.crank_teeth == pytest.approx(1.0)
    # the disc on the motor shaft: a quarter turn, one square for every inner cup
    assert motor_turns * 360 == pytest.approx(360 / len(INNER_RING))
    # and the gears mesh: centre distance = the two pitch radii
    assert p.crank_distance == pytest.approx(p.gear_module * (p.central_teeth + p.crank_teeth) / 2)
    for side in layout.sides():
        assert math.hypot(*side.crank_axis(p)) == pytest.approx(p.crank_distance)


def test_without_the_extra_the_command_says_which_install(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    import importlib.util

    real = importlib.util.find_spec

    def hide(name: str, *args: Any) -> Any:
        return None if name == "build123d" else real(name, *args)

    monkeypatch.setattr(importlib.util, "find_spec", hide)
    with pytest.raises(SystemExit) as exit_:
        main(["cad", "build", str(tmp_path / "out")])
    assert exit_.value.code == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert "pip install" in err and "[cad]" in err and "build123d" in err
    assert not (tmp_path / "out").exists()


def test_the_committed_bom_and_renders_are_the_models(built: Path) -> None:
    hardware = ROOT / "hardware"
    assert (hardware / "BOM.md").read_text() == (built / "BOM.md").read_text(), (
        "hardware/BOM.md is stale: orbito-hw cad build DIR, then copy DIR/BOM.md"
    )
    for png in built.glob("*.png"):
        committed = hardware / "renders" / png.name
        assert committed.exists(), f"{committed} is missing: copy it from the build"


def test_the_renders_show_the_board_as_built(assembly: list[Placed], tmp_path: Path) -> None:
    """Issue 45: the renders a project page shows are path traced (Mitsuba 3, on the CPU) from
    the assembly: black and white marbles of a game in play, the lit LEDs glowing through
    their cups in their colours, at least 1600 px, under a megabyte; and they are committed."""
    needs.modules("mitsuba", "PIL", how=".ci/run installs the render extra")
    from orbito_cad.make import photo
    from PIL import Image

    view = photo.VIEWS[0]
    scene = photo.scene(assembly, tmp_path, view, spp=1)
    marbles = [scene[x.name] for x in assembly if x.part == "marble" and x.name in scene]
    colours = {tuple(m["bsdf"]["diffuse_reflectance"]["value"]) for m in marbles}
    assert colours == {photo.MATERIALS["black"][0], photo.MATERIALS["white"][0]}
    assert len(marbles) == len(photo.POSITION)
    glowing = {name: s["emitter"]["radiance"]["value"] for name, s in scene.items()
               if isinstance(s, dict) and "emitter" in s and name.startswith("cup_")}  # fmt: skip
    assert glowing == {f"cup_{sq}": [photo.GLOW * c for c in rgb] for sq, rgb in photo.LIT.items()}
    # a small picture, really traced: the lit cups show in their colour
    small = dataclasses.replace(view, size=(160, 120))
    pixels = photo.render(assembly, tmp_path, small, spp=4).astype(float)
    assert pixels.shape == (120, 160, 3)
    # the hints' orange glow (saturated to a warm yellow): nothing else on the board is warm
    warm = (pixels[..., 0] - pixels[..., 2] > 80) & (pixels[..., 1] - pixels[..., 2] > 60)
    assert warm.sum() > 20
    for v in photo.VIEWS:
        committed = ROOT / "hardware" / "renders" / f"{v.name}.png"
        assert committed.exists(), f"{committed}: python hardware/render.py"
        with Image.open(committed) as image:
            assert min(image.size) >= 1200 and max(image.size) >= 1600
        assert committed.stat().st_size < 1_000_000
