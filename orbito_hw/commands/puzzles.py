"""``puzzles``: puzzles from the solved game (SPEC.md's "Setting up a position, and puzzles").

- ``puzzles``: the shipped set (``--plies P`` keeps those won in P plies, ``--count N`` the
  first N of them);
- ``puzzles --seed S [--count N] [--plies P]``: N fresh puzzles (10 by default) from seed S,
  the same for the same arguments on any machine;
- ``puzzles --id ID``: the one puzzle an ID names, replayed and valued again (any ID the
  command printed, from any seed).

``--json``: one SPEC.md line per puzzle; else a line a person reads, which keeps the
solution back.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from orbito_hw.commands import UsageError

if TYPE_CHECKING:
    from orbito_hw.solver.puzzles import Puzzle

DEFAULT_COUNT = 10  # fresh puzzles from a seed when --count is not given


def register(sub: Any) -> None:
    p = sub.add_parser(
        "puzzles",
        help="puzzles from the solved game: the shipped set, fresh ones from --seed, or --id ID",
    )
    p.add_argument("--count", type=int, metavar="N", help="how many (default: 10 from a seed)")
    p.add_argument("--plies", type=int, metavar="P", help="only puzzles won in exactly P plies")
    p.add_argument("--seed", type=int, metavar="S", help="fresh puzzles from seed S")
    p.add_argument("--id", metavar="ID", help="the one puzzle ID names")
    p.add_argument("--json", action="store_true", help="JSON lines (SPEC.md)")
    p.set_defaults(func=cmd_puzzles)


def cmd_puzzles(args: argparse.Namespace) -> int:
    from orbito_hw.solver.puzzles import check_plies, find_puzzle, generate, shipped_puzzles

    show = _json_line if args.json else _words
    if args.id is not None:
        given = [name for name in ("count", "plies", "seed") if getattr(args, name) is not None]
        if given:
            raise UsageError(f"--id names one puzzle: no --{given[0]} with it")
        print(show(find_puzzle(args.id)), flush=True)
        return 0
    if args.count is not None and args.count < 0:
        raise UsageError(f"--count {args.count}: give 0 or more")
    check_plies(args.plies)
    if args.seed is None:
        chosen = [p for p in shipped_puzzles() if args.plies in (None, p.plies)]
        puzzles = iter(chosen[: args.count] if args.count is not None else chosen)
    else:
        count = DEFAULT_COUNT if args.count is None else args.count
        puzzles = generate(count, args.plies, args.seed)
    for puzzle in puzzles:  # each as soon as it is found
        print(show(puzzle), flush=True)
    return 0


def _json_line(puzzle: Puzzle) -> str:
    import json

    return json.dumps(puzzle.as_json())


def _words(puzzle: Puzzle) -> str:
    """``ID  grade  White to play and win in 3 turns, after black a1 b3 (board ...)``."""
    record = f"after {puzzle.first} {puzzle.moves}" if puzzle.moves else "on the empty board"
    board = puzzle.position().board()
    return f"{puzzle.id:<18} {puzzle.difficulty.grade:<6} {puzzle.goal()}, {record} ({board})"
