"""The optical model's figures that the controller ships (orbito_hw/data/optics_table.json)
are the model's (orbito_cad/models/optics.py and the figures its benchmark wrote): the table
is written again from the model and compared figure by figure; one that drifted fails,
named. The reading's defaults are the model's too (its flash, its conversions)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from orbito_hw.hw.light_front import FLASH_MS, LightConfig, optics

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("mitsuba")  # the cad extra: fails under CI=true, skips elsewhere

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "optics_table.py"
TABLE = ROOT / "orbito_hw" / "data" / "optics_table.json"


def test_the_shipped_table_is_the_models() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_figure_that_drifted_is_named() -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import optics_table  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SCRIPT.parent))
    shipped = json.loads(TABLE.read_text())
    model = json.loads(TABLE.read_text())
    assert optics_table.drifted(shipped, model) == []
    model["threshold_mv"] = shipped["threshold_mv"] * 1.1
    model["rows"][3]["low_mv"] = shipped["rows"][3]["low_mv"] + 0.5
    problems = optics_table.drifted(shipped, model)
    assert any(p.startswith("threshold_mv: shipped") for p in problems)
    assert any(p.startswith(f"rows: {shipped['rows'][3]['room']}") for p in problems)


def test_the_readings_defaults_are_the_models_flash() -> None:
    from orbito_cad.models import optics as model

    o = optics()
    assert o.lit_s == pytest.approx(FLASH_MS / 1000, abs=1e-4)
    assert LightConfig().lit == model.Scheme().lit  # five conversions lit, as the model's
    assert o.dark == model.Scheme().dark
