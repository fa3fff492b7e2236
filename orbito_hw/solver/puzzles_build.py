"""Write the shipped puzzles: ``python -m orbito_hw.solver.puzzles_build [--check] [PATH]``.

The set is the generator's first ``SHIPPED_COUNT`` puzzles from ``SHIPPED_SEED``, one JSON
line each, exactly as ``orbito-hw puzzles --seed SHIPPED_SEED --json`` prints them: the file
is never edited by hand, so it cannot drift from the code that checks it. ``--check``
rebuilds it and compares (exit 1 if they differ) instead of writing. Run it after a change
to the generator or the grading.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path

from orbito_hw.solver.puzzles import SHIPPED_COUNT, SHIPPED_SEED, generate, shipped_path


def build() -> str:
    """The shipped file's text."""
    lines = (json.dumps(p.as_json()) for p in generate(SHIPPED_COUNT, None, SHIPPED_SEED))
    return "".join(f"{line}\n" for line in lines)


def main(argv: Sequence[str]) -> int:
    check = "--check" in argv
    paths = [arg for arg in argv if arg != "--check"]
    path = Path(paths[0] if paths else shipped_path())
    text = build()
    if check:
        same = path.exists() and path.read_text(encoding="utf-8") == text
        print(f"the rebuilt puzzles {'are identical to' if same else 'DIFFER from'} {path}")
        return 0 if same else 1
    path.write_text(text, encoding="utf-8")
    print(f"wrote {SHIPPED_COUNT} puzzles from seed {SHIPPED_SEED} to {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
