"""The optical model's figures that the controller ships (orbito_hw/data/optics_table.json),
written from the model (hardware/orbito_cad/models/optics.py and the figures its benchmark
wrote, optics_figures.json).

    python scripts/optics_table.py          write the table again (the cad extra)
    python scripts/optics_table.py --check  exit 1, naming the figure, if the shipped table
                                            has drifted from the model (tests/test_light_model.py)

orbito_hw may not import orbito_cad (tests/test_layers.py: the CAD sits above it), so the
colour reading (hw/light_front.py) and the simulated board's light read these figures from
the table: the reading's timing, the phototransistor's ceiling, each room light's and
marble's reading at a typical square and the room's own light at the load, the parts'
spread, and the uncalibrated board's threshold between white and black.
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

from shipped_table import write_or_check  # scripts/, beside this one

TABLE = Path(__file__).resolve().parent.parent / "orbito_hw" / "data" / "optics_table.json"
TOLERANCE = 1e-3  # relative: a figure further than this from the model's has drifted


def table() -> dict[str, Any]:
    from orbito_cad.models import optics as model
    from orbito_cad.models.optics_params import OPTICS

    figures: dict[str, Any] = model.read_table()
    scheme = model.Scheme()
    rows = figures["rows"]
    white = [r["low_mv"] * r["scale_low"] for r in rows
             if r["marble"].startswith("white") and r["low_mv"] is not None]  # fmt: skip
    black = [r["high_mv"] * r["scale_high"] for r in rows
             if r["marble"].startswith("black") and r["high_mv"] is not None]  # fmt: skip
    return {
        "about": "written by scripts/optics_table.py from hardware/orbito_cad/models/optics.py "
        "(its figures, optics_figures.json): the colour reading's timing and the model's "
        "readings (mV at the phototransistor's load, LED lit less dark) for the simulated board",
        "data_rate": int(OPTICS.adc_sps),
        "dark": scheme.dark,
        "lit_s": figures["lit_s"],
        "reading_s": figures["reading_s"],
        "frame_s": round(OPTICS.frame_s, 7),
        "settle_s": round(OPTICS.settle_s, 7),
        "harmonics": scheme.harmonics,
        "ceiling_v": round(model.TOO_BRIGHT * model.ceiling(OPTICS), 4),
        "adc_noise_codes": OPTICS.adc_noise_codes,
        "scale_low": rows[0]["scale_low"],
        "scale_high": rows[0]["scale_high"],
        "led_spread": OPTICS.led_spread,
        "threshold_mv": round(math.sqrt(min(white) * max(black)), 4),
        "too_bright_from_lux": figures["too_bright_from_lux"],
        "rows": [
            {k: r[k] for k in ("room", "lux", "marble", "low_mv", "high_mv", "room_mv", "noise_mv")}
            for r in rows
        ],
    }


def drifted(shipped: dict[str, Any], model: dict[str, Any]) -> list[str]:
    """The figures of ``shipped`` that are no longer the model's, each named."""
    out = []
    for key, value in model.items():
        have = shipped.get(key)
        if key == "rows":
            if not isinstance(have, list) or len(have) != len(value):
                out.append(f"rows: shipped {len(have or [])}, the model gives {len(value)}")
                continue
            for mine, theirs in zip(have, value, strict=True):
                if _off(mine, theirs):
                    out.append(f"rows: {theirs['room']}, {theirs['marble']}: shipped {mine!r}, "
                               f"the model gives {theirs!r}")  # fmt: skip
        elif _off(have, value):
            out.append(f"{key}: shipped {have!r}, the model gives {value!r}")
    return out


def _off(have: Any, value: Any) -> bool:
    if isinstance(value, dict):
        return not isinstance(have, dict) or any(_off(have.get(k), v) for k, v in value.items())
    if isinstance(value, float) and not isinstance(value, bool):
        return not isinstance(have, (int, float)) or abs(have - value) > TOLERANCE * max(
            1.0, abs(value)
        )
    return bool(have != value)


def main(argv: list[str]) -> int:
    return write_or_check(argv, TABLE, table(), drifted, "scripts/optics_table.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
