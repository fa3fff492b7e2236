"""``puzzles``: puzzles from the solved game (SPEC.md's "Setting up a position, and puzzles").

- ``puzzles``: the shipped set (``--plies P`` keeps those won in P plies, ``--count N`` the
  first N of them);
- ``puzzles --seed S [--count N] [--plies P]``: N fresh puzzles (10 by default) from seed S,
  the same for the same arguments on any machine;
- ``puzzles --id ID``: the one puzzle an ID names, replayed and valued again (any ID the
  command printed, from any seed).

``--json``: one SPEC.md line per puzzle; else a line a person reads, which keeps the
solution back.

- ``puzzles next [--state-dir DIR]``: the puzzle to play next, chosen from the progress in
  the archive (``archive/progress.py``); ``run --mock --puzzle next`` plays it;
- ``puzzles progress [--state-dir DIR]``: each puzzle tried, solved or failed, its tries;
- ``puzzles play [--id ID] [--state-dir DIR]``: on a real board, the puzzle ID (else the next
  one) set up by its LEDs and played: the same set-up request ``games resume`` leaves
  (control/requests.py), carrying the puzzle (``puzzle:ID``) for the board to watch.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from orbito_hw.commands import UsageError
from orbito_hw.lang import N_, R_, _, ngettext, reworded
from orbito_hw.rules.game import Colour

if TYPE_CHECKING:
    from orbito_hw.archive.store import PuzzleTry
    from orbito_hw.solver.puzzles import Puzzle

DEFAULT_COUNT = 10  # fresh puzzles from a seed when --count is not given
_WHY = {"new": N_("new"), "again": N_("again"), "review": N_("review")}
"""Why ``puzzles next`` chose its puzzle (archive/progress.py's choose_next), in words."""


def register(sub: Any) -> None:
    p = sub.add_parser(
        "puzzles",
        help=_("puzzles from the solved game: the shipped set, fresh ones from --seed, or --id ID"),
    )
    p.add_argument(
        "action",
        nargs="?",
        choices=["next", "progress", "play"],
        help=_(
            "next: the puzzle to play next, from the archive's progress; progress: each "
            "puzzle tried; play: set the puzzle (--id, else the next) up on the board and play it"
        ),
    )
    p.add_argument("--count", type=int, metavar="N", help=_("how many (default: 10 from a seed)"))
    p.add_argument("--plies", type=int, metavar="P", help=_("only puzzles won in exactly P plies"))
    p.add_argument("--seed", type=int, metavar="S", help=_("fresh puzzles from seed S"))
    p.add_argument("--id", metavar="ID", help=_("the one puzzle ID names"))
    p.add_argument("--json", action="store_true", help=_("JSON lines (SPEC.md)"))
    p.add_argument(
        "--all",
        action="store_true",
        help=_("every shipped puzzle, sorted by grade (without it: a summary of the set)"),
    )
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help=_("with next, progress, play: the board's state directory"),
    )
    p.add_argument(
        "--config", metavar="PATH", help=_("the board's config, for its state directory")
    )
    p.set_defaults(func=cmd_puzzles)


def cmd_puzzles(args: argparse.Namespace) -> int:
    from orbito_hw.solver.puzzles import check_plies, find_puzzle, generate, shipped_puzzles

    show = _json_line if args.json else _words
    if args.action == "play":
        given = [name for name in ("count", "plies", "seed") if getattr(args, name) is not None]
        given += ["all"] if args.all else []
        if given:
            raise UsageError(_("puzzles play takes no --{option}").format(option=given[0]))
        return _play(args)
    if args.action is not None:
        given = [
            name for name in ("count", "plies", "seed", "id") if getattr(args, name) is not None
        ]
        given += ["all"] if args.all else []
        if given:
            text = _("puzzles {action} takes no --{option}")
            raise UsageError(text.format(action=args.action, option=given[0]))
        return _next(args) if args.action == "next" else _progress(args)
    if args.state_dir is not None or args.config is not None:
        raise UsageError(_("--state-dir and --config go with puzzles next, progress or play"))
    if args.id is not None:
        given = [name for name in ("count", "plies", "seed") if getattr(args, name) is not None]
        given += ["all"] if args.all else []
        if given:
            raise UsageError(
                _("--id names one puzzle: no --{option} with it").format(option=given[0])
            )
        print(show(find_puzzle(args.id)), flush=True)
        return 0
    if args.count is not None and args.count < 0:
        raise UsageError(_("--count {n}: give 0 or more").format(n=args.count))
    check_plies(args.plies)
    if args.all and (args.json or args.seed is not None):
        raise UsageError(_("--all is the shipped set in words: not with --json or --seed"))
    if args.seed is None:
        chosen = [p for p in shipped_puzzles() if args.plies in (None, p.plies)]
        chosen = chosen[: args.count] if args.count is not None else chosen
        if args.json:  # SPEC.md's lines, in the shipped order
            for puzzle in chosen:
                print(show(puzzle), flush=True)
            return 0
        if args.all or args.plies is not None or args.count is not None:
            return _listed(chosen)
        return _summary(chosen)
    count = DEFAULT_COUNT if args.count is None else args.count
    if not args.json:
        print(_header(), flush=True)
    for puzzle in generate(count, args.plies, args.seed):  # each as soon as it is found
        print(show(puzzle), flush=True)
    return 0


SAMPLE = 3
"""Puzzles of each grade the summary shows (the easiest of the grade)."""


def _by_grade(puzzles: list[Puzzle]) -> list[Puzzle]:
    """Easy to expert, the easiest first within a grade (the shipped order among equals)."""
    from orbito_hw.solver.puzzle_grades import GRADES

    rank = {name: index for index, (name, _lowest) in enumerate(GRADES)}
    return sorted(puzzles, key=lambda p: (rank[p.difficulty.grade], p.difficulty.bits))


def _header() -> str:
    # each word marked outside the f-string: Babel reads no call inside one (Python < 3.12)
    ident, grade = _("ID"), _("grade")
    return f"{ident:<18} {grade:<6} " + _("goal, record (the position it reaches)")


def _listed(puzzles: list[Puzzle]) -> int:
    """Every puzzle chosen, a header first, sorted by grade."""
    print(_header())
    for puzzle in _by_grade(puzzles):
        print(_words(puzzle), flush=True)
    return 0


def _summary(puzzles: list[Puzzle]) -> int:
    """The shipped set in a few lines: how many of each grade, the easiest few of each,
    and how to list them all (300 lines are no list a person reads)."""
    from orbito_hw.solver.puzzle_grades import GRADES

    ranked = _by_grade(puzzles)
    counts = ", ".join(
        f"{name} {sum(p.difficulty.grade == name for p in ranked)}" for name, _lowest in GRADES
    )
    print(ngettext("{n} shipped puzzle ({counts})", "{n} shipped puzzles ({counts})",
                   len(ranked)).format(n=len(ranked), counts=counts))  # fmt: skip
    print(_header())
    for name, _lowest in GRADES:
        for puzzle in [p for p in ranked if p.difficulty.grade == name][:SAMPLE]:
            print(_words(puzzle))
    print(_("the easiest {n} of each grade; all of them: orbito-hw puzzles --all (or "
            "--plies P); to play: orbito-hw run --mock --interactive --puzzle next").format(
                n=SAMPLE))  # fmt: skip
    return 0


def _json_line(puzzle: Puzzle) -> str:
    import json

    return json.dumps(puzzle.as_json())


def _words(puzzle: Puzzle) -> str:
    """``ID  grade  White to play and win in 3 turns, after black a1 b3 (board ...)``."""
    if not puzzle.moves:
        record = _("on the empty board")
    elif puzzle.first is Colour.BLACK:
        record = _("after black {moves}").format(moves=puzzle.moves)
    else:
        record = _("after white {moves}").format(moves=puzzle.moves)
    board, goal = puzzle.position().board(), reworded(puzzle.goal())
    return f"{puzzle.id:<18} {puzzle.difficulty.grade:<6} {goal}, {record} ({board})"


# --- progress, and the next puzzle ----------------------------------------------------------
def read_tries(directory: Path) -> list[PuzzleTry]:
    """Every puzzle try the archive in ``directory`` holds (none without an archive);
    ArchiveError (one line) for one that cannot be read."""
    from orbito_hw.archive.store import NAME, Archive, damage_told

    if not (directory / NAME).exists():
        return []
    with Archive.read(directory) as archive, damage_told(archive.path):
        return archive.puzzle_tries()


def next_puzzle(directory: Path) -> Puzzle:
    """The puzzle to play next from the progress in ``directory``'s archive."""
    from orbito_hw.archive.progress import choose_next

    return choose_next(read_tries(directory))[0]


def user_state_dir(make: bool = False) -> Path:
    """The user's own state directory, where puzzles tried without ``--state-dir`` are kept
    (the XDG base directory rule): ``$XDG_STATE_HOME/orbito-hw``, else
    ``~/.local/state/orbito-hw``; made when ``make``."""
    import os

    base = os.environ.get("XDG_STATE_HOME", "")
    # The XDG rule: a relative path in the variable is ignored, as if it were not set.
    root = Path(base) if Path(base).is_absolute() else Path.home() / ".local" / "state"
    directory = root / "orbito-hw"
    if make:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise UsageError(_("cannot make the state directory {path}: {reason}").format(
                path=directory, reason=exc.strerror or exc)) from None  # fmt: skip
    return directory


def _state_dir(args: argparse.Namespace) -> Path:
    """``--state-dir``; else the board's (``--config``, or the board's config when this
    machine has one); else the user's own (``user_state_dir``), where ``run --mock
    --puzzle`` keeps the tries."""
    from orbito_hw.app.config import DEFAULT_PATH
    from orbito_hw.commands.games import state_dir

    if args.state_dir or args.config or DEFAULT_PATH.exists():
        return state_dir(args)
    return user_state_dir()


def _next(args: argparse.Namespace) -> int:
    import json

    from orbito_hw.archive.progress import choose_next

    puzzle, why = choose_next(read_tries(_state_dir(args)))
    if args.json:
        print(json.dumps({**puzzle.as_json(), "why": why}), flush=True)
    else:
        print(f"{_words(puzzle)}  [{_(_WHY[why]) if why in _WHY else why}]", flush=True)
    return 0


def _progress(args: argparse.Namespace) -> int:
    import json

    from orbito_hw.archive.progress import known, progress

    rows = progress(read_tries(_state_dir(args)))
    if not args.json and not rows:
        print(_("no puzzle tried yet: `orbito-hw puzzles next` names one to start with"))
    for row in rows:
        puzzle = known(row.puzzle)
        if args.json:
            print(json.dumps(row.as_json(puzzle)), flush=True)
            continue
        grade = puzzle.difficulty.grade if puzzle is not None else "?"
        status = _("solved") if row.last_solved else _("failed")
        tries = ngettext("{n} try ({solved} solved), last {last}",
                         "{n} tries ({solved} solved), last {last}", row.tries)  # fmt: skip
        said = tries.format(n=row.tries, solved=row.solved, last=row.last)
        print(f"{row.puzzle:<18} {grade:<6} {status:<6} {said}", flush=True)
    return 0


def _play(args: argparse.Namespace) -> int:
    """The puzzle asked for on the board running on the state directory: its set-up request
    (``games resume``'s channel), the puzzle watched by the board from its origin."""
    import json

    from orbito_hw.commands.resume import leave_request, superseded
    from orbito_hw.control.puzzle import origin_of
    from orbito_hw.control.requests import SetupRequest
    from orbito_hw.solver.puzzles import find_puzzle

    directory = _state_dir(args)
    puzzle = find_puzzle(args.id) if args.id is not None else next_puzzle(directory)
    request = SetupRequest(puzzle.first, tuple(puzzle.moves.split()), origin_of(puzzle))
    left, holder = leave_request(directory, request)
    what = R_("puzzle {puzzle}").format(puzzle=puzzle.id)
    if args.json:
        out = {**puzzle.as_json(), "request": str(left.path), "running": holder is not None,
               "stands": left.stands, "replaced": left.in_place_of()}  # fmt: skip
        if superseded(left, what, out):
            return 1
        print(json.dumps(out))
        return 0
    superseded(left, what)
    said, goal, note = reworded(what), reworded(puzzle.goal()), left.note()
    if holder is not None:
        text = _("asked the board ({holder}) to set up {request}: {goal}{note}; follow its LEDs")
        print(text.format(holder=holder, request=said, goal=goal, note=note))
    else:
        text = _("no controller runs on {path} now: it sets up {request} when it starts "
                 "({goal}){note}")  # fmt: skip
        print(text.format(path=directory, request=said, goal=goal, note=note))
    return 0
