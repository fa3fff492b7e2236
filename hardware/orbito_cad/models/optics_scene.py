"""A square's optics as a Mitsuba 3 scene, from the CAD's parameters: what the detector gets.

The square's frame: its centre at the origin, x along its outward axis (away from the board's
centre), z up from the top of the floor the cups slide on. In the scene:

- the floor (the face's dark PETG, ``face_t - face_pocket`` thick), its two windows cut by
  build123d (``windows``) and tessellated, with a closed case under it;
- the cup (natural PETG, translucent: Mitsuba's ``principledthin`` with diffuse
  transmission), its seat a through hole of ``seat_d``;
- the marble, a sphere of ``marble_d`` resting on the seat's rim at a height and an offset
  the seat allows (``magnetics.marble_heights`` and ``offsets``), of a ``Material``
  (``roughplastic``: a diffuse body under a dielectric coat);
- the LED under its window: a Lambertian surface has one radiance every way, so the light
  that goes up the window is the package's radiance (its datasheet intensity over its
  opening) across the window's bottom, and the model puts it there, a disc across the
  window (no light path is lost to a sample under the floor, and the render converges);
- the detector under the other window, an ``irradiancemeter`` over its die;
- the room's light from above: a diffuse sky, a wide emitting plane normalised to the
  illuminance it gives an open face. The sun straight down adds its beam where the detector
  sees the sky through an empty seat (``Light.sun``); under a marble, what the cup lets
  through is diffuse whichever way the light came, so the sky stands for the sun there.

One render gives both lights at once, in the channels of ``scalar_rgb`` (the scene is linear
in its lights): red the LED, green the room; each material carries its red reflectance in
the first channel and its visible one in the others. The results are in lux at the
detector's die: per the LED's candela, per the room's lux.
"""

from __future__ import annotations

import atexit
import functools
import math
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import mitsuba as mi
import numpy as np
from build123d import Align, Box, Cylinder, Location, Part, Pos
from numpy.typing import NDArray

from orbito_cad.board.face import window_tops
from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models.magnetics import marble_heights
from orbito_cad.models.optics_params import OPTICS, Material, OpticsParams

mi.set_variant("scalar_rgb")  # runs on any CPU (the LLVM variants need a newer LLVM)

Vec = NDArray[np.float64]
LUX_PER_LM_MM2 = 1e6  # lumen per mm^2 to lux
SKY_HEIGHT = 200.0  # the sky's plane over the face (mm), and its half-width
SKY_HALF = 20_000.0
CELL = 60.0  # the floor and case modelled round the square: wider than the cup
CASE_DEPTH = 30.0


def floor_t(p: Params = PARAMS) -> float:
    return p.face_t - p.face_pocket


@dataclass(frozen=True, slots=True)
class Window:
    """A window through the floor: where it opens on the floor's top and its axis (a unit
    vector, up), and where that axis leaves the floor's underside (the part's place)."""

    top: Vec
    axis: Vec
    bottom: Vec


def spot(x: float, y: float, p: Params = PARAMS) -> Vec:
    """The point of a centred marble at its lowest seat over (x, y) of the floor."""
    r = p.marble_d / 2
    return np.array([x, y, marble_heights(p)[0] - math.sqrt(r * r - x * x - y * y)])


def windows(o: OpticsParams = OPTICS, p: Params = PARAMS) -> tuple[Window, Window]:
    """(the detector's, the LED's), where the board puts them (``face.window_tops``). The
    detector's is vertical; the LED's axis runs from its top to the spot of the marble the
    detector sees, so its light falls where it looks."""
    (dx, dy), (lx, ly) = window_tops(p)
    det_top = np.array([dx, dy, 0.0])
    led_top = np.array([lx, ly, 0.0])
    up = np.array([0.0, 0.0, 1.0])
    towards = spot(float(det_top[0]), float(det_top[1]), p) - led_top
    led_axis = towards / np.linalg.norm(towards)
    t = floor_t(p)
    return (
        Window(det_top, up, det_top - up * t),
        Window(led_top, led_axis, led_top - led_axis * t / led_axis[2]),
    )


def _cutter(w: Window, p: Params) -> Part:
    ry = math.degrees(math.atan2(w.axis[0], w.axis[2]))
    rx = -math.degrees(math.asin(w.axis[1]))
    top = (float(w.top[0]), float(w.top[1]), float(w.top[2]))
    return Location(top, (rx, ry, 0)) * Cylinder(p.window_d / 2, 30.0)


def floor_part(o: OpticsParams = OPTICS, p: Params = PARAMS) -> Part:
    part = Box(CELL, CELL, floor_t(p), align=(Align.CENTER, Align.CENTER, Align.MAX))
    for w in windows(o, p):
        part -= _cutter(w, p)
    return part


def case_part(p: Params = PARAMS) -> Part:
    """A closed box under the floor: no room light reaches the detector but through the
    windows (the floor's own translucency is ``floor_transmittance``, added by ``optics``)."""
    top = (Align.CENTER, Align.CENTER, Align.MAX)
    shell = Box(CELL + 2, CELL + 2, CASE_DEPTH + 2, align=top) - Box(CELL, CELL, CASE_DEPTH,
                                                                      align=top)  # fmt: skip
    return Pos(0, 0, -floor_t(p)) * shell


def cup_part(p: Params = PARAMS) -> Part:
    bottom = (Align.CENTER, Align.CENTER, Align.MIN)
    return Cylinder(p.cup_d / 2, p.cup_h, align=bottom) - Cylinder(p.seat_d / 2, 3 * p.cup_h)


def _write_ply(path: Path, part: Part) -> None:
    """``part`` tessellated into a binary PLY, Mitsuba's mesh format."""
    verts, tris = part.tessellate(0.01, 0.2)
    v = np.array([[q.X, q.Y, q.Z] for q in verts], "<f4")
    f = np.array(tris, "<i4")
    header = (
        f"ply\nformat binary_little_endian 1.0\nelement vertex {len(v)}\n"
        "property float x\nproperty float y\nproperty float z\n"
        f"element face {len(f)}\nproperty list uchar int vertex_indices\nend_header\n"
    )
    rows = np.zeros(len(f), dtype=[("n", "u1"), ("i", "<i4", 3)])
    rows["n"] = 3
    rows["i"] = f
    path.write_bytes(header.encode() + v.tobytes() + rows.tobytes())


@functools.cache
def meshes(o: OpticsParams = OPTICS, p: Params = PARAMS) -> dict[str, str]:
    """The floor, the case and the cup as PLY files in a directory of their own, removed
    when the process ends (Mitsuba loads its meshes from files)."""
    where = Path(tempfile.mkdtemp(prefix="orbito-optics-"))
    atexit.register(shutil.rmtree, where, True)
    out = {}
    for name, part in (("floor", floor_part(o, p)), ("case", case_part(p)),
                       ("cup", cup_part(p))):  # fmt: skip
        path = where / f"{name}.ply"
        _write_ply(path, part)
        out[name] = str(path)
    return out


def _rgb(red: float, visible: float) -> dict[str, Any]:
    return {"type": "rgb", "value": [red, visible, visible]}


def _matte(r: float) -> dict[str, Any]:
    return {"type": "twosided", "bsdf": {"type": "diffuse", "reflectance": _rgb(r, r)}}


def marble_bsdf(m: Material) -> dict[str, Any]:
    return {
        "type": "roughplastic",
        "diffuse_reflectance": _rgb(m.red, m.visible),
        "alpha": m.roughness,
        "int_ior": m.ior,
        "nonlinear": True,  # the coat's internal reflections darken the body, as on a marble
    }


def _at(xy: Vec, z: float, scale: float) -> mi.ScalarTransform4f:
    """A disc of radius ``scale`` at ``xy``'s x and y, at height ``z``, facing up."""
    t = mi.ScalarTransform4f()
    out: mi.ScalarTransform4f = t.translate([float(xy[0]), float(xy[1]), z]) @ t.scale(
        [scale, scale, scale]
    )
    return out


def led_disc_r(p: Params = PARAMS) -> float:
    """The LED's disc across its window: the window's radius, a hair inside its wall."""
    return p.window_d / 2 - 0.01


def _across(w: Window, r: float) -> mi.ScalarTransform4f:
    """A disc of radius ``r`` across window ``w`` at its bottom, facing up along it."""
    t = mi.ScalarTransform4f()
    bottom = [float(v) for v in w.bottom]
    tip = [float(v) for v in w.bottom + w.axis]
    up = [1.0, 0.0, 0.0] if abs(float(w.axis[0])) < 0.9 else [0.0, 1.0, 0.0]
    out: mi.ScalarTransform4f = t.look_at(origin=bottom, target=tip, up=up) @ t.scale([r, r, r])
    return out


def sky_share() -> float:
    """The share of a whole hemisphere's light the sky's square plane gives the face's
    centre (its view factor): the sky's radiance is divided by it."""
    a = SKY_HALF / SKY_HEIGHT
    corner = (a / math.sqrt(1 + a * a)) * math.atan(a / math.sqrt(1 + a * a))
    return 4 * 2 * corner / (2 * math.pi)


def scene_dict(marble: Material | None, centre: tuple[float, float, float], spp: int, seed: int,
               o: OpticsParams = OPTICS, p: Params = PARAMS) -> dict[str, Any]:  # fmt: skip
    """The scene of one pose: the LED at 1 cd in red, the sky at 1 lux in green (scene
    units: lumen and mm)."""
    files = meshes(o, p)
    det, led = windows(o, p)
    led_r = o.led_emitting_d / 2
    led_radiance = 1.0 / (math.pi * led_r * led_r)  # cd per mm^2: 1 cd on its axis
    sky = 1e-6 / math.pi / sky_share()  # 1 lux = 1e-6 lm/mm^2, Lambertian
    film = {"type": "hdrfilm", "width": 1, "height": 1, "rfilter": {"type": "box"},
            "pixel_format": "rgb"}  # fmt: skip
    d: dict[str, Any] = {
        "type": "scene",
        "integrator": {"type": "path", "max_depth": 16},
        "floor": {"type": "ply", "filename": files["floor"], "bsdf": _matte(o.floor_reflectance)},
        "case": {"type": "ply", "filename": files["case"], "bsdf": _matte(o.floor_reflectance)},
        "cup": {
            "type": "ply",
            "filename": files["cup"],
            "bsdf": {
                "type": "principledthin",
                "base_color": _rgb(o.cup_reflectance, o.cup_reflectance),
                "roughness": 1.0,
                "diff_trans": o.cup_diffuse_transmission,
                "eta": 1.57,
            },
        },
        "detector": {
            "type": "disk",
            "to_world": _at(det.bottom, -floor_t(p) - 0.01, o.pt_die_d / 2),
            "bsdf": _matte(o.floor_reflectance),
            "sensor": {
                "type": "irradiancemeter",
                "film": film,
                "sampler": {"type": "independent", "sample_count": spp, "seed": seed},
            },
        },
        "led": {
            "type": "disk",
            "to_world": _across(led, led_disc_r(p)),
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [led_radiance, 0, 0]}},
            "bsdf": _matte(0.8),  # the package's white body
        },
        "sky": {
            "type": "rectangle",
            "to_world": mi.ScalarTransform4f().translate([0, 0, SKY_HEIGHT])
            @ mi.ScalarTransform4f().rotate([1, 0, 0], 180)
            @ mi.ScalarTransform4f().scale([SKY_HALF, SKY_HALF, 1]),
            "emitter": {"type": "area", "radiance": {"type": "rgb", "value": [0, sky, 0]}},
        },
    }
    if marble is not None:
        d["marble"] = {"type": "sphere", "center": list(centre), "radius": p.marble_d / 2,
                       "bsdf": marble_bsdf(marble)}  # fmt: skip
    return d


@dataclass(frozen=True, slots=True)
class Light:
    """What the detector's die gets (lux) in one pose: from the LED per candela of its red,
    from the room per lux of diffuse light, and per lux of sun straight down: its beam
    falls on the die through an empty seat and the vertical window, and under a marble it
    does not (the marble covers the window's view: ``test_optics_model``)."""

    led: float
    sky: float
    sun: float


def render(marble: Material | None, centre: tuple[float, float, float], spp: int, seed: int = 0,
           o: OpticsParams = OPTICS, p: Params = PARAMS) -> Light:  # fmt: skip
    """One model reading: the scene of a pose rendered at ``spp`` paths from the detector."""
    scene = mi.load_dict(scene_dict(marble, centre, spp, seed, o, p))
    img = np.asarray(mi.render(scene, spp=spp, seed=mi.UInt32(seed)), dtype=np.float64).reshape(-1)
    sun = 1.0 if marble is None else 0.0
    return Light(float(img[0]) * LUX_PER_LM_MM2, float(img[1]) * LUX_PER_LM_MM2, sun)
