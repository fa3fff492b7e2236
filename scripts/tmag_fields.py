"""The magnetic model's figures that the TMAG5273 board's controller ships with
(orbito_hw/data/tmag_fields.json), written from the model (hardware/orbito_cad/models/magnetics.py).

    python scripts/tmag_fields.py          write the table again (the cad extra: magpylib)
    python scripts/tmag_fields.py --check  exit 1, naming the figure, if the shipped table
                                           has drifted from the model (tests/test_tmag_model.py)

orbito_hw may not import orbito_cad (tests/test_layers.py: the CAD sits above it), so the
controller's simulated board and its default thresholds read these figures from the table:
the printed marble's field at its square's TMAG5273 in a spread of poses (black; a white
marble's is the same turned round: every disc the other way), and the margins the model
finds for the whole board (weakest marble, strongest empty square, threshold, operate and
release points, the sensor's offset, drift and noise).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from shipped_table import write_or_check  # scripts/, beside this one

TABLE = Path(__file__).resolve().parent.parent / "orbito_hw" / "data" / "tmag_fields.json"
MARGIN_SAMPLING = (300, 8)  # as mechanics.md's figures: marble directions x turns
POSE_SAMPLING = (32, 4)  # the poses the simulated board draws from
TOLERANCE_G = 0.05  # a figure further than this from the model's has drifted


def table() -> dict[str, Any]:
    import numpy as np
    from orbito_cad.board.params import PARAMS
    from orbito_cad.models import magnetics as mag

    marble = mag.printed()
    m = mag.margins(marble, "vector", *MARGIN_SAMPLING)
    rots = mag.rotations(*POSE_SAMPLING)
    z = mag.element_z("vector")
    poses = []
    for h in mag.marble_heights():
        b = mag.field(marble, "black", rots, (0.0, 0.0, h), (0.0, 0.0, z))
        poses.extend(b.tolist())
    offset, drift, noise = PARAMS.vector_offset_g, PARAMS.vector_drift_g, PARAMS.vector_noise_g
    return {
        "about": "written by scripts/tmag_fields.py from hardware/orbito_cad/models/magnetics.py",
        "marble": marble.name,
        "sampling": {"margins": list(MARGIN_SAMPLING), "poses": list(POSE_SAMPLING)},
        "weakest_g": round(m.weakest, 2),
        "strongest_g": round(m.strongest, 2),
        "empty_g": round(m.empty, 2),
        "operate_g": round(m.operate, 2),
        "release_g": round(m.release, 2),
        "threshold_g": round((m.operate + m.release) / 2, 2),
        "offset_g": offset,
        "drift_g": drift,
        "noise_rms_g": noise,
        "poses_black_g": [[round(float(v), 2) for v in row] for row in np.asarray(poses)],
    }


def drifted(shipped: dict[str, Any], model: dict[str, Any]) -> list[str]:
    """The figures of ``shipped`` that are no longer the model's, each named."""
    out = []
    for key, value in model.items():
        have = shipped.get(key)
        if isinstance(value, float):
            if not isinstance(have, (int, float)) or abs(have - value) > TOLERANCE_G:
                out.append(f"{key}: shipped {have!r}, the model gives {value!r}")
        elif key == "poses_black_g":
            if not isinstance(have, list) or len(have) != len(value):
                out.append(f"{key}: shipped {len(have or [])} poses, the model gives {len(value)}")
                continue
            worst = max(
                abs(a - b)
                for ra, rb in zip(have, value, strict=True)
                for a, b in zip(ra, rb, strict=True)
            )
            if worst > TOLERANCE_G:
                out.append(f"{key}: a pose's field is {worst:.2f} G off the model's")
        elif have != value:
            out.append(f"{key}: shipped {have!r}, the model gives {value!r}")
    return out


def main(argv: list[str]) -> int:
    return write_or_check(argv, TABLE, table(), drifted, "scripts/tmag_fields.py")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
