"""A table a model's figures are shipped in (orbito_hw/data/): written from the model, or
(``--check``) compared with it, each drifted figure named. The shared ``main`` of
scripts/tmag_fields.py (the magnetic model's fields) and scripts/optics_table.py (the optical
model's readings): orbito_hw may not import orbito_cad, so the controller reads the table."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any


def write_or_check(
    argv: list[str],
    table: Path,
    model: dict[str, Any],
    drifted: Callable[[dict[str, Any], dict[str, Any]], list[str]],
    script: str,
) -> int:
    """Exit status: with ``--check`` 1 when the shipped ``table`` has drifted from ``model``
    (each problem said on stderr, with the ``script`` that writes it again), else 0."""
    if "--check" in argv:
        problems = drifted(json.loads(table.read_text()), model)
        for problem in problems:
            print(f"{table.name}: {problem} (python {script})", file=sys.stderr)
        return 1 if problems else 0
    table.write_text(json.dumps(model, indent=1) + "\n")
    print(f"wrote {table}")
    return 0
