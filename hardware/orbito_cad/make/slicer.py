"""Print time and filament per part, measured by a real slicer (PrusaSlicer, headless).

``python hardware/slice.py DIR`` slices every STL that ``orbito-hw cad build DIR`` wrote with
the project's settings (``profile``) and writes ``print_figures.json`` beside this file: per
part the slicer's own summary (the G-code's "estimated printing time (normal mode)" and
"filament used [g]"), with what they were measured on: the STL's SHA-256, the part's
geometry as it lies (``fingerprint``: volume, area, size; the same on any OpenCascade that
tessellates a little differently) and the profile's SHA-256. A figure whose fingerprint or
profile is not the built part's is stale: the BOM says so and tests/test_printing.py fails.

**Settings** per part (walls, infill) in ``SETTINGS``, with a default; the layer height,
nozzle and material are the project's (``params``, ``MATERIAL``).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from orbito_cad.board.params import PARAMS, Params

FIGURES = Path(__file__).resolve().parent / "print_figures.json"
SLICER = "prusa-slicer"

MATERIAL = "PETG"


@dataclass(frozen=True, slots=True)
class Settings:
    walls: int = 3
    infill: int = 20  # per cent
    note: str = ""
    layer: float | None = None  # mm; None: the project's (``params.layer_h``)

    @property
    def draft(self) -> bool:
        """Printed at 0.3 mm layers, with PrusaSlicer's own profile for them (``DRAFT``)."""
        return self.layer is not None and self.layer >= 0.3


# Issue 45: one board in a weekend (at most 40 h on one printer). Every part but the disc
# prints at 0.3 mm layers: what matters on them lies in the layer's plane (the gears' teeth,
# the collar's round, the finger holes and the fingers, the face's slots and channel), and
# the face's and plate's tops are one flat skin either way. The tolerance test prints as the
# cups and bars do, so the fit read on it is the fit printed. The disc keeps 0.2 mm: its
# seats are lit from below, and the translucent layers show.
SETTINGS: dict[str, Settings] = {
    # 88 mm of 3 mm walls: its time goes into perimeters, layer by layer; nothing on it is
    # finer than 0.3 mm; its floor a grid of ribs (case.floor_windows)
    "case": Settings(2, 10, "0.3 mm layers: a tall box", 0.3),
    "motor_mount": Settings(3, 20, "0.3 mm layers", 0.3),
    # the gears' teeth and hubs carry the drive's torque
    "central_gear": Settings(4, 30, "0.3 mm layers", 0.3),
    "crank_gear": Settings(4, 100, "solid: the crank pin bends; 0.3 mm layers", 0.3),
    "transfer_bar": Settings(4, 25, "0.3 mm layers", 0.3),
    "cup": Settings(3, 20, "0.3 mm layers", 0.3),
    "tolerance_test": Settings(3, 20, "0.3 mm layers, as the cups and bars", 0.3),
    "face": Settings(3, 10, "0.3 mm layers", 0.3),
    "centre_plate": Settings(3, 10, "0.3 mm layers", 0.3),
    # marble.py's halves: a marble must weigh what a glass one does
    "marble_half": Settings(3, 100, "solid: a marble's weight"),
}


def settings(name: str) -> Settings:
    return SETTINGS.get(name, Settings())


# The speeds and accelerations of PrusaSlicer's "0.20mm QUALITY @MK3" profile (a common
# bed-slinger; the command line's own defaults print solid layers at 15-20 mm/s, half as
# fast as any printer's profile), and PETG's flow cap of 8 mm^3/s
PRINTER = {
    "perimeter_speed": "45",
    "small_perimeter_speed": "25",
    "external_perimeter_speed": "25",
    "infill_speed": "80",
    "solid_infill_speed": "80",
    "top_solid_infill_speed": "40",
    "support_material_speed": "50",
    "bridge_speed": "25",
    "gap_fill_speed": "40",
    "travel_speed": "180",
    "first_layer_speed": "20",
    "default_acceleration": "1000",
    "perimeter_acceleration": "800",
    "infill_acceleration": "1250",
    "machine_max_acceleration_extruding": "1250",
    "machine_max_acceleration_x": "1000",
    "machine_max_acceleration_y": "1000",
    "max_volumetric_speed": "8",
}
# A part at 0.3 mm layers prints with PrusaSlicer's "0.30mm DRAFT @MK3" profile as its own
# bundle gives it (PrusaResearch.ini: its speeds and extrusion widths, 3 bottom and 4 top
# solid layers), as a maker choosing 0.3 mm in the slicer would
DRAFT = {
    "perimeter_speed": "50",
    "small_perimeter_speed": "30",
    "external_perimeter_speed": "35",
    "infill_speed": "85",
    "solid_infill_speed": "80",
    "top_solid_infill_speed": "40",
    "support_material_speed": "45",
    "infill_acceleration": "1000",
    "external_perimeter_extrusion_width": "0.6",
    "extrusion_width": "0.5",
    "first_layer_extrusion_width": "0.42",
    "infill_extrusion_width": "0.5",
    "perimeter_extrusion_width": "0.5",
    "solid_infill_extrusion_width": "0.5",
    "top_infill_extrusion_width": "0.45",
    "top_solid_layers": "4",
    "bottom_solid_layers": "3",
}
PETG = {
    "filament_type": "PETG",
    "filament_diameter": "1.75",
    "filament_density": "1.27",
    "temperature": "240",
    "first_layer_temperature": "240",
    "bed_temperature": "80",
    "first_layer_bed_temperature": "80",
}


@dataclass(frozen=True, slots=True)
class Figures:
    seconds: int
    grams: float


def profile(name: str, supports: bool, p: Params = PARAMS) -> str:
    """The slicer's config for part ``name``: the project's layer, nozzle and bed, the
    part's walls and infill, supports where its overhangs need them."""
    s = settings(name)
    layer = s.layer or p.layer_h
    bed_x, bed_y, bed_z = p.bed
    lines = {
        "layer_height": f"{layer:g}",
        "first_layer_height": f"{p.layer_h:g}",
        "nozzle_diameter": f"{p.nozzle_d:g}",
        "perimeters": str(s.walls),
        "top_solid_layers": "5",
        "bottom_solid_layers": "4",
        "fill_density": f"{s.infill}%",
        # gyroid is stiff every way; PrusaSlicer fills a solid part in lines
        "fill_pattern": "gyroid" if s.infill < 100 else "rectilinear",
        "support_material": "1" if supports else "0",
        "support_material_auto": "1",
        "support_material_threshold": "45",
        "bed_shape": f"0x0,{bed_x:g}x0,{bed_x:g}x{bed_y:g},0x{bed_y:g}",
        "max_print_height": f"{bed_z:g}",
        "gcode_flavor": "marlin2",
        **PRINTER,
        **(DRAFT if s.draft else {}),
        **PETG,
    }
    assert lines["filament_type"] == MATERIAL
    return "".join(f"{k} = {v}\n" for k, v in lines.items())


def summary(gcode: str) -> Figures:
    """The print time and filament from a PrusaSlicer G-code's closing summary."""
    time = re.search(r"^; estimated printing time \(normal mode\) = (.+)$", gcode, re.M)
    grams = re.search(r"^; total filament used \[g\] = ([0-9.]+)$", gcode, re.M)
    if time is None or grams is None:
        raise ValueError("the G-code has no print time or filament summary")
    seconds = 0
    for value, unit in re.findall(r"(\d+)([dhms])", time.group(1)):
        seconds += int(value) * {"d": 86400, "h": 3600, "m": 60, "s": 1}[unit]
    return Figures(seconds, float(grams.group(1)))


def installed() -> bool:
    return shutil.which(SLICER) is not None


def version() -> str:
    out = subprocess.run([SLICER, "--help"], capture_output=True, text=True, check=False)
    found = re.search(r"PrusaSlicer-([0-9.]+)", out.stdout)
    return f"PrusaSlicer {found.group(1)}" if found else SLICER


def slice_stl(stl: Path, ini: str, work: Path) -> Figures:
    """Slice ``stl`` with the config ``ini`` in the folder ``work``."""
    config = work / f"{stl.stem}.ini"
    config.write_text(ini)
    gcode = work / f"{stl.stem}.gcode"
    done = subprocess.run(
        [SLICER, "--export-gcode", "--load", str(config), "--center", _centre(ini), str(stl),
         "--output", str(gcode)],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    if done.returncode != 0 or not gcode.exists():
        tail = (done.stderr or done.stdout).strip().splitlines()[-3:]
        raise RuntimeError(f"{SLICER} failed on {stl.name}: {' / '.join(tail)}")
    return summary(gcode.read_text(errors="replace"))


def _centre(ini: str) -> str:
    shape = re.search(r"^bed_shape = .*,(\S+)x(\S+),0x", ini, re.M)
    assert shape is not None
    return f"{float(shape.group(1)) / 2:g},{float(shape.group(2)) / 2:g}"


def sha256(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def fingerprint(solid: Any) -> str:
    """A part's geometry as it lies on the bed, in words a slightly different tessellation
    does not change."""
    box = solid.bounding_box().size
    return (
        f"volume {solid.volume:.0f} mm3, area {solid.area:.0f} mm2, "
        f"{box.X:.1f} x {box.Y:.1f} x {box.Z:.1f} mm"
    )


def load(path: Path = FIGURES) -> dict[str, Any]:
    if not path.exists():
        return {"parts": {}}
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def fresh(entry: dict[str, Any] | None, print_: Any) -> Figures | None:
    """The slicer's figures for a part if they were measured on it as it is now built
    (``print_``: a ``printing.Print``), else None."""
    if entry is None:
        return None
    if entry.get("fingerprint") != print_.fingerprint or entry.get("profile") != sha256(
        print_.profile
    ):
        return None
    return Figures(int(entry["seconds"]), float(entry["grams"]))


def hms(seconds: int) -> str:
    h, m = divmod(round(seconds / 60), 60)
    return f"{h} h {m:02d} min" if h else f"{m} min"
