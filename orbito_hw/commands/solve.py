"""``solve`` and ``analyse``: the solved game on the command line.

``analyse`` of a finished game has nothing to value: it exits 2 with a one-line reason
(``{"error": ...}`` for that line in ``--batch``).
"""

from __future__ import annotations

import argparse
import hashlib
import time
from pathlib import Path
from typing import Any

from orbito_hw.commands import fail, game_command
from orbito_hw.lang import _


def register(sub: Any) -> None:
    p = sub.add_parser("solve", help=_("solve Orbito and write the solution table"))
    p.add_argument(
        "--output", type=Path, help=_("where to write the table (default: the package's own)")
    )
    p.add_argument(
        "--check",
        action="store_true",
        help=_("rebuild and compare with the table file, do not write (exit 1 if they differ)"),
    )
    p.add_argument("--quiet", action="store_true", help=_("no progress bar"))
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("analyse", help=_("value a game record with perfect play (JSON)"))
    p.add_argument("--first", help=_("who moved first: black or white"))
    p.add_argument(
        "--batch", action="store_true", help=_("JSON lines on stdin, one result per line")
    )
    p.add_argument("--table", type=Path, help=_("a solution table other than the shipped one"))
    p.add_argument("moves", nargs="*", help=_("turn tokens, e.g. b1 c1-c2:a2"))
    p.set_defaults(func=cmd_analyse)


def cmd_solve(args: argparse.Namespace) -> int:
    try:  # NumPy is the solve's only: a board's plain install has none
        from orbito_hw.solver.build import solve, step_count
    except ModuleNotFoundError as exc:
        if exc.name != "numpy":
            raise
        fail(_("solve needs NumPy: pip install 'orbito-hw[solve]' (analyse and the levels do not)"))
    from orbito_hw.solver.progress import ProgressBar
    from orbito_hw.solver.table import pack, shipped_path

    output: Path = args.output or shipped_path()
    bar = ProgressBar(step_count(), "solving", quiet=args.quiet)
    start = time.perf_counter()
    data = pack(solve(progress=bar.step))
    seconds = time.perf_counter() - start
    digest = hashlib.sha256(data).hexdigest()
    if args.check:
        return _compare(data, output, digest)
    try:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_bytes(data)
    except OSError as exc:
        fail(
            _("cannot write solution table {path}: {reason}").format(
                path=output, reason=exc.strerror
            )
        )
    text = _("wrote {path} ({size} bytes, sha256 {digest}) in {seconds} s")
    print(text.format(path=output, size=len(data), digest=digest, seconds=f"{seconds:.1f}"))
    return 0


def _compare(data: bytes, path: Path, digest: str) -> int:
    try:
        same = path.read_bytes() == data
    except OSError as exc:
        fail(
            _("cannot read solution table {path}: {reason}").format(path=path, reason=exc.strerror)
        )
    if same:
        text = _("the rebuilt table (sha256 {digest}) is identical to {path}")
    else:
        text = _("the rebuilt table (sha256 {digest}) DIFFERS from {path}")
    print(text.format(digest=digest, path=path))
    return 0 if same else 1


def cmd_analyse(args: argparse.Namespace) -> int:
    from orbito_hw.commands.engine import replay_record
    from orbito_hw.solver.table import Solution, shipped_solution

    solution = Solution.load(args.table) if args.table else shipped_solution()

    def analyse_one(first: str, moves: str) -> dict[str, object]:
        return solution.analyse(replay_record(first, moves)).as_json()

    return game_command(args, "analyse", analyse_one)
