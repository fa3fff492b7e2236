"""docs/architecture.md's figures, counted from the package's own sources, so they cannot drift.

``python -m orbito_hw.app.architecture_figures --write`` rewrites the block between the page's
two markers; without ``--write`` it prints the block. tests/test_docs.py fails when the page's
block is not what this writes. The lines are rounded (a folder's to hundreds, a module's to
tens) so that a small change elsewhere leaves the page as it is.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent
PAGE = PACKAGE.parent / "docs" / "architecture.md"
# the mechanics' model beside the package, its floors from the bottom up (tests/test_layers.py)
MODEL = PACKAGE.parent / "hardware" / "orbito_cad"
MODEL_FLOORS = ("board", "parts", "assembly", "models", "make")
BEGIN = "<!-- figures: written by `python -m orbito_hw.app.architecture_figures --write` -->"
END = "<!-- end of figures -->"
REFEREE_PARTS = (
    "referee",
    "core",
    "machine",
    "snapshot",
    "players",
    "board_player",
    "hints",
    "takeback",
    "menu",
    "discard",
    "correction",
    "setup",
    "puzzle",
)


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def _round(n: int, to: int) -> str:
    return f"{round(n / to) * to:,}"


def protocols(folder: Path) -> list[str]:
    """The classes of ``folder`` that are a ``Protocol`` of the referee (a "Seat")."""
    found = []
    for path in sorted(folder.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                bases = {ast.unparse(base) for base in node.bases}
                if "Protocol" in bases and node.name in ("Seat", "Core"):
                    found.append(f"{path.stem}.{node.name}")
    return found


def block() -> str:
    sources = sorted(PACKAGE.rglob("*.py"))
    folders: dict[str, int] = {}
    for path in sources:
        part = path.relative_to(PACKAGE).parts[0].removesuffix(".py")
        folders[part] = folders.get(part, 0) + _lines(path)
    total = sum(folders.values())
    rows = [BEGIN, "", "| folder | lines | share |", "| --- | --- | --- |"]
    for name, n in sorted(folders.items(), key=lambda item: -item[1]):
        shown = f"`{name}/`" if (PACKAGE / name).is_dir() else f"`{name}.py`"
        rows.append(f"| {shown} | {_round(n, 100)} | {round(100 * n / total)}% |")
    rows.append(f"| the package | {_round(total, 100)} | |")
    control = PACKAGE / "control"
    rows += ["", "The referee and its parts, in `control/`:", ""]
    rows += ["| module | lines |", "| --- | --- |"]
    for stem in REFEREE_PARTS:
        rows.append(f"| `{stem}.py` | {_round(_lines(control / f'{stem}.py'), 10)} |")
    largest = max(sources, key=_lines)
    seats = protocols(control)
    rows += [
        "",
        f"The largest module: `{largest.relative_to(PACKAGE)}`, "
        f"{_round(_lines(largest), 10)} lines (the limit is 700).",
        f"Protocols of the referee for its parts: {len(seats)}"
        + (f" ({', '.join(seats)})." if seats else "."),
        *model_rows(),
        "",
        END,
    ]
    return "\n".join(rows) + "\n"


def model_rows() -> list[str]:
    """The mechanics' model's floors, from the bottom up: how many modules, how many lines."""
    rows = ["", "The mechanics' model, `hardware/orbito_cad/`, floor by floor from the bottom:", ""]
    rows += ["| floor | modules | lines |", "| --- | --- | --- |"]
    every = sorted(MODEL.rglob("*.py"))
    for floor in MODEL_FLOORS:
        files = sorted((MODEL / floor).glob("*.py"))
        modules = sum(path.name != "__init__.py" for path in files)
        rows.append(f"| `{floor}/` | {modules} | {_round(sum(map(_lines, files)), 100)} |")
    rows.append(f"| the model | | {_round(sum(map(_lines, every)), 100)} |")
    largest = max(every, key=_lines)
    rows += [
        "",
        f"Its largest module: `{largest.relative_to(MODEL)}`, {_round(_lines(largest), 10)} lines.",
    ]
    return rows


def written(page: str) -> str:
    """``page`` with its figures' block as ``block()`` writes it."""
    start, end = page.index(BEGIN), page.index(END) + len(END) + 1
    return page[:start] + block() + page[end:]


def main() -> int:
    if sys.argv[1:] == ["--write"]:
        PAGE.write_text(written(PAGE.read_text()))
    else:
        sys.stdout.write(block())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
