"""The TMAG5273 board's figures that the controller ships (orbito_hw/data/tmag_fields.json)
are the magnetic model's (orbito_cad/models/magnetics.py): the table is written again from
the model and compared figure by figure; one that drifted fails, named."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from .common import needs

pytestmark = pytest.mark.cad
needs.modules("magpylib")  # the cad extra: fails under CI=true, skips elsewhere

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "tmag_fields.py"
TABLE = ROOT / "orbito_hw" / "data" / "tmag_fields.json"


def test_the_shipped_table_is_the_models() -> None:
    done = subprocess.run([sys.executable, str(SCRIPT), "--check"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_a_figure_that_drifted_is_named(tmp_path: Path) -> None:
    sys.path.insert(0, str(SCRIPT.parent))
    try:
        import tmag_fields  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(SCRIPT.parent))
    shipped = json.loads(TABLE.read_text())
    model = dict(shipped)
    assert tmag_fields.drifted(shipped, model) == []
    model["weakest_g"] = shipped["weakest_g"] + 1.0
    model["poses_black_g"] = [[v + 0.5 for v in row] for row in shipped["poses_black_g"]]
    problems = tmag_fields.drifted(shipped, model)
    assert any(p.startswith("weakest_g: shipped") for p in problems)
    assert any(p.startswith("poses_black_g: a pose's field is 0.50 G off") for p in problems)
