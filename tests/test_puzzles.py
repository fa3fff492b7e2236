"""Puzzles (issue 28) checked against the solved game, apart from the code that made them.

Each puzzle's record is replayed by the independent model (tests/common/oracle.py), every legal
turn of its position is made there too, and each turn is valued from the table's value of
the position it leaves (``Solution.score``, one lookup, not the generator's ``turn_bytes``):
the quickest win must be the puzzle's plies and ``solution`` exactly the turns that win that
quickly. For wins in 1 or 2 plies the rules alone decide it, with no table at all.
"""

from __future__ import annotations

import json
import math
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.rules.game import Colour, Position
from orbito_hw.solver.layout import Value
from orbito_hw.solver.opponents import LEVELS, LevelOpponent, PerfectOpponent, RandomOpponent
from orbito_hw.solver.puzzle_grades import LOOK, grade_of
from orbito_hw.solver.puzzle_ids import ALPHABET, PuzzleError, decode, encode, ordered_turns
from orbito_hw.solver.puzzles import (
    PLIES,
    SHIPPED_COUNT,
    SHIPPED_SEED,
    Puzzle,
    find_puzzle,
    generate,
    puzzle_of,
    shipped_puzzles,
)
from orbito_hw.solver.table import Solution, shipped_solution

from .common import oracle

ROOT = Path(__file__).resolve().parent.parent
SHIPPED_FILE = ROOT / "orbito_hw" / "data" / "puzzles.jsonl"
LETTER = {"black": "B", "white": "W"}
FLIP = {Value.WIN: "loss", Value.LOSS: "win", Value.DRAW: "draw"}


@pytest.fixture(scope="module")
def table() -> Solution:
    return shipped_solution()


# --- the independent check ----------------------------------------------------------------
def oracle_position(first: str, moves: str) -> tuple[oracle.Board, str, int]:
    """The board, the side to move (B/W) and the extra presses after a record, by the model."""
    board: oracle.Board = {}
    mover, extra = LETTER[first], 0
    for token in moves.split():
        before = dict(oracle.turns(board, mover))[token]
        board = oracle.rotate(before)
        extra += token == "*"
        assert oracle.outcome(board, extra) is None, "the record ends the game"
        mover = "W" if mover == "B" else "B"
    return board, mover, extra


def worths(table: Solution, board: oracle.Board, mover: str, extra: int) -> dict[str, tuple]:
    """Each legal turn (by the model) and what it is worth to the mover: (value, plies)."""
    me = "black" if mover == "B" else "white"
    other = Colour("white" if mover == "B" else "black")
    out: dict[str, tuple] = {}
    for token, before in oracle.turns(board, mover):
        after = oracle.rotate(before)
        presses = extra + (token == "*")
        result = oracle.outcome(after, presses)
        if result is not None:
            out[token] = ("win" if result == me else "draw" if result == "draw" else "loss", 1)
            continue
        child = Position.from_board(oracle.to_string(after), other, presses)
        score = table.score(child)
        out[token] = (FLIP[score.value], score.plies + 1)
    return out


def check_against_the_solver(table: Solution, puzzle: Puzzle) -> None:
    board, mover, extra = oracle_position(puzzle.first.value, puzzle.moves)
    assert LETTER[puzzle.to_move.value] == mover
    turns = worths(table, board, mover, extra)
    wins = {token: plies for token, (value, plies) in turns.items() if value == "win"}
    assert wins, f"{puzzle.id}: no winning turn"
    assert min(wins.values()) == puzzle.plies, puzzle.id
    quickest = sorted(token for token, plies in wins.items() if plies == puzzle.plies)
    assert list(puzzle.solution) == quickest, puzzle.id
    assert puzzle.difficulty.legal == len(turns)
    if puzzle.plies <= 2:
        check_by_the_rules_alone(board, mover, extra, puzzle)


def forces(board: oracle.Board, to_move: str, me: str, extra: int, plies: int) -> bool:
    """Whether ``me`` wins within ``plies`` plies whatever the other side does, by the model's
    rules alone (no table): a search, for the short wins only."""
    if plies == 0:
        return False
    colour = "black" if me == "B" else "white"
    outcomes = []
    for token, before in oracle.turns(board, to_move):
        after = oracle.rotate(before)
        presses = extra + (token == "*")
        result = oracle.outcome(after, presses)
        other = "W" if to_move == "B" else "B"
        won = result == colour or (result is None and forces(after, other, me, presses, plies - 1))
        outcomes.append(won)
    return any(outcomes) if to_move == me else all(outcomes)


def check_by_the_rules_alone(board: oracle.Board, mover: str, extra: int, puzzle: Puzzle) -> None:
    other = "W" if mover == "B" else "B"
    colour = puzzle.to_move.value
    quickest = []
    for token, before in oracle.turns(board, mover):
        after = oracle.rotate(before)
        presses = extra + (token == "*")
        result = oracle.outcome(after, presses)
        if puzzle.plies == 1:
            won = result == colour
        else:
            assert result != colour, "a win in 1 where the puzzle says 2"
            won = result is None and forces(after, other, mover, presses, 1)
        if won:
            quickest.append(token)
    assert sorted(quickest) == list(puzzle.solution)


# --- the shipped set ----------------------------------------------------------------------
def test_the_shipped_set_is_a_few_hundred_puzzles_with_a_spread(table: Solution) -> None:
    puzzles = shipped_puzzles()
    assert len(puzzles) == SHIPPED_COUNT
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert len({p.position() for p in puzzles}) == len(puzzles)
    plies = {p.plies for p in puzzles}
    assert set(PLIES) <= plies
    grades = [p.difficulty.grade for p in puzzles]
    assert all(grades.count(g) >= 20 for g in ("easy", "medium", "hard", "expert")), grades
    assert sum(len(p.solution) == 1 for p in puzzles) >= 0.8 * len(puzzles)


def test_every_shipped_puzzle_is_what_the_solver_says(table: Solution) -> None:
    for puzzle in shipped_puzzles():
        check_against_the_solver(table, puzzle)


def test_every_shipped_line_is_its_record_valued_again(table: Solution) -> None:
    """One source of truth: each line is what the record gives now, ID and grade included."""
    for line in SHIPPED_FILE.read_text().splitlines():
        given = json.loads(line)
        again = puzzle_of(Colour(given["first"]), given["moves"], table)
        assert json.dumps(again.as_json()) == line
        assert find_puzzle(given["id"], table) == again


def test_the_shipped_set_is_what_the_generator_gives_from_its_seed(table: Solution) -> None:
    """The file starts as the generator does from SHIPPED_SEED (the whole of it: the build
    script's ``--check``)."""
    lines = SHIPPED_FILE.read_text().splitlines()
    made = [json.dumps(p.as_json()) for p in generate(12, None, SHIPPED_SEED, table)]
    assert made == lines[:12]


# --- generated puzzles ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("seed", "plies"), [(1, None), (2, None), (3, 1), (4, 2), (5, 3), (6, 4), (7, 5), (8, 8)]
)
def test_generated_puzzles_are_what_the_solver_says(
    table: Solution, seed: int, plies: int | None
) -> None:
    puzzles = list(generate(3, plies, seed, table))
    assert len(puzzles) == 3
    for puzzle in puzzles:
        if plies is not None:
            assert puzzle.plies == plies
        check_against_the_solver(table, puzzle)
        assert len(puzzle.solution) < puzzle.difficulty.legal  # a wrong turn to make
        assert find_puzzle(puzzle.id, table) == puzzle


def test_a_seed_gives_the_same_puzzles_and_another_seed_others(table: Solution) -> None:
    first = [p.as_json() for p in generate(4, None, 11, table)]
    assert first == [p.as_json() for p in generate(4, None, 11, table)]
    assert first != [p.as_json() for p in generate(4, None, 12, table)]
    assert first != [p.as_json() for p in generate(4, None, -11, table)]


def test_a_win_in_3_holds_by_the_rules_alone(table: Solution) -> None:
    """The first solution turn of a few wins in 3: every reply leaves a win at once."""
    for puzzle in generate(2, 3, 21, table):
        board, mover, extra = oracle_position(puzzle.first.value, puzzle.moves)
        before = dict(oracle.turns(board, mover))[puzzle.solution[0]]
        after = oracle.rotate(before)
        other = "W" if mover == "B" else "B"
        assert oracle.outcome(after, extra + (puzzle.solution[0] == "*")) is None
        assert forces(after, other, mover, extra + (puzzle.solution[0] == "*"), 2)


@pytest.mark.parametrize("plies", [0, -1, PLIES.stop, 99])
def test_plies_no_puzzle_has_are_refused(plies: int) -> None:
    with pytest.raises(PuzzleError, match=f"{plies} plies"):
        generate(1, plies, 1)


# --- the difficulty ---------------------------------------------------------------------------
def test_the_careful_players_bits_count_the_tempting_turns(table: Solution) -> None:
    """For a win in 3, the careful player finds one of s solutions among the u turns whose
    outcome lies beyond 2 plies, then the win in 1 at once: bits = log2(u / s)."""
    for puzzle in generate(3, 3, 31, table):
        board, mover, extra = oracle_position(puzzle.first.value, puzzle.moves)
        turns = worths(table, board, mover, extra)
        unseen = [token for token, (_, plies) in turns.items() if plies > LOOK]
        solutions = len(puzzle.solution)
        assert puzzle.difficulty.tempting == len(unseen) - solutions
        assert puzzle.difficulty.bits == pytest.approx(math.log2(len(unseen) / solutions), abs=0.01)
        assert puzzle.difficulty.grade == grade_of(puzzle.difficulty.bits)
    for puzzle in generate(3, 2, 32, table):
        assert puzzle.difficulty.bits == 0.0 and puzzle.difficulty.tempting == 0


def solves(table: Solution, puzzle: Puzzle, player: object, defender: PerfectOpponent) -> bool:
    position = puzzle.position()
    for _ in range(puzzle.plies):
        side = player if position.to_move is puzzle.to_move else defender
        position = position.play(side.choose(position))  # type: ignore[attr-defined]
        if position.result is not None:
            return position.result.winner is puzzle.to_move
    return False


@pytest.mark.parametrize("level", ["random", "1", "3", "5"])
def test_misses_are_what_seeded_games_against_the_perfect_defence_measure(
    table: Solution, level: str
) -> None:
    """The chance a level misses, read off the main line, against 400 seeded games of the
    level itself from the puzzle against the perfect defence (whatever line they take)."""
    tries = 400
    for puzzle in generate(2, 5, 41, table):
        expected = dict(puzzle.difficulty.misses)[level]
        failed = 0
        for seed in range(tries):
            defender = PerfectOpponent(table, seed)
            player: object = (
                RandomOpponent(seed + 10_000)
                if level == "random"
                else LevelOpponent(table, next(lv for lv in LEVELS if lv.name == level), seed)
            )
            failed += not solves(table, puzzle, player, defender)
        spread = 4 * math.sqrt(max(expected * (1 - expected), 0.01) / tries)
        assert abs(failed / tries - expected) <= spread, (puzzle.id, level, failed, expected)


# --- the ID -------------------------------------------------------------------------------
@st.composite
def records(draw: st.DrawFn) -> tuple[Colour, list[str]]:
    """A legal game record of any length, its turns drawn among the legal ones."""
    first = draw(st.sampled_from([Colour.BLACK, Colour.WHITE]))
    position = Position.start(first)
    tokens: list[str] = []
    for _ in range(draw(st.integers(0, 21))):
        legal = ordered_turns(position)
        if not legal:
            break
        turn = legal[draw(st.integers(0, len(legal) - 1))]
        tokens.append(turn.notation())
        position = position.play(turn)
    return first, tokens


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_an_id_spells_its_record_out(record: tuple[Colour, list[str]]) -> None:
    first, tokens = record
    puzzle_id = encode(first, tokens)
    assert decode(puzzle_id) == (first, tuple(tokens))
    assert decode(puzzle_id.lower()) == (first, tuple(tokens))
    assert encode(first, tokens) == puzzle_id
    assert puzzle_id[0] != "0" or len(puzzle_id) == 2


@settings(max_examples=60, deadline=None)
@given(records())
def test_any_generated_record_is_found_again_by_its_id(record: tuple[Colour, list[str]]) -> None:
    first, tokens = record
    table = shipped_solution()
    try:
        puzzle = puzzle_of(first, tokens, table)
    except PuzzleError:
        with pytest.raises(PuzzleError, match="names no puzzle"):
            find_puzzle(encode(first, tokens), table)
        return
    assert find_puzzle(puzzle.id, table) == puzzle
    assert puzzle.moves.split() == tokens


@settings(max_examples=150, deadline=None)
@given(records(), st.data())
def test_a_typo_in_an_id_is_refused(record: tuple[Colour, list[str]], data: st.DataObject) -> None:
    puzzle_id = encode(*record)
    where = data.draw(st.integers(0, len(puzzle_id) - 1))
    wrong = data.draw(st.sampled_from([c for c in ALPHABET if c != puzzle_id[where]]))
    typed = puzzle_id[:where] + wrong + puzzle_id[where + 1 :]
    with pytest.raises(PuzzleError):
        decode(typed)
    if len(puzzle_id) >= 2:
        i = data.draw(st.integers(0, len(puzzle_id) - 2))
        swapped = puzzle_id[:i] + puzzle_id[i + 1] + puzzle_id[i] + puzzle_id[i + 2 :]
        if swapped != puzzle_id:
            with pytest.raises(PuzzleError):
                decode(swapped)


def test_an_id_is_short() -> None:
    """The shipped set's IDs, typed by people: a few characters for a record."""
    lengths = [len(puzzle.id) for puzzle in shipped_puzzles()]
    assert max(lengths) <= 20, max(lengths)


# --- the command line -----------------------------------------------------------------------
def cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orbito_hw", "puzzles", *argv],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_the_command_prints_fresh_puzzles_and_finds_each_again(table: Solution) -> None:
    done = cli("--seed", "77", "--count", "3", "--plies", "3", "--json")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 3
    for line in lines:
        obj = json.loads(line)
        assert {"id", "first", "moves", "to_move", "plies", "solution"} <= set(obj)
        assert obj["plies"] == 3
        check_against_the_solver(table, Puzzle.from_json(obj))
        again = cli("--id", obj["id"].lower(), "--json")
        assert again.returncode == 0 and again.stdout == line + "\n"
    assert cli("--seed", "77", "--count", "3", "--plies", "3", "--json").stdout == done.stdout


def test_without_a_seed_the_command_prints_the_shipped_set() -> None:
    done = cli("--json")
    assert done.returncode == 0
    assert done.stdout == SHIPPED_FILE.read_text()
    three = cli("--plies", "3", "--count", "2", "--json").stdout.splitlines()
    assert len(three) == 2 and all(json.loads(line)["plies"] == 3 for line in three)


def test_the_words_say_who_plays_and_in_how_many_turns() -> None:
    first = shipped_puzzles()[0]
    done = cli("--id", first.id)
    assert done.returncode == 0
    words = f"{first.to_move.value.capitalize()} to play and win in {first.plies} turn"
    assert words in done.stdout and first.id in done.stdout
    assert first.solution[0] not in done.stdout.split(", after")[0]  # the answer is kept back


@pytest.mark.parametrize(
    "argv",
    [
        ("--plies", "0"),
        ("--plies", str(PLIES.stop)),
        ("--plies", "three"),
        ("--count", "-1"),
        ("--seed", "x"),
        ("--id", ""),
        ("--id", "!!"),
        ("--id", "Z" * 200),
        ("--id", "ZZZZZZ"),
        ("--id", "7", "--seed", "1"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(argv: tuple[str, ...]) -> None:
    done = cli(*argv)
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.startswith("orbito-hw: ") and done.stderr.count("\n") == 1, done.stderr
    assert len(done.stderr) < 200


def test_an_id_of_a_position_with_no_win_is_refused(table: Solution) -> None:
    """A well-formed ID whose record leaves no win (a draw or a loss for the side to move)."""
    position = Position.start(Colour.BLACK)
    tokens: list[str] = []
    rng = random.Random(3)
    while table.score(position).value is Value.WIN:
        turn = rng.choice([t for t in ordered_turns(position) if not position.play(t).is_over])
        tokens.append(turn.notation())
        position = position.play(turn)
    done = cli("--id", encode(Colour.BLACK, tokens), "--json")
    assert done.returncode == 2 and done.stdout == ""
    assert "names no puzzle" in done.stderr and done.stderr.count("\n") == 1


GRADE_ORDER = ["easy", "medium", "hard", "expert"]


def test_the_listing_has_a_header_and_is_sorted_by_grade() -> None:
    """Issue 36: ``puzzles`` printed 300 lines, no header, in the shipped order."""
    done = cli("--all")
    assert done.returncode == 0 and done.stderr == ""
    header, *rows = done.stdout.splitlines()
    assert header.split()[:2] == ["ID", "grade"]
    assert len(rows) == len(shipped_puzzles())
    grades = [row.split()[1] for row in rows]
    assert grades == sorted(grades, key=GRADE_ORDER.index)
    by_id = {p.id: p for p in shipped_puzzles()}
    for grade in GRADE_ORDER:  # the easiest first within a grade
        bits = [by_id[row.split()[0]].difficulty.bits for row in rows if row.split()[1] == grade]
        assert bits == sorted(bits)
    narrowed = cli("--plies", "5", "--count", "3").stdout.splitlines()
    assert narrowed[0] == header and len(narrowed) == 4


def test_the_bare_command_is_a_summary_that_says_how_to_list_all() -> None:
    done = cli()
    assert done.returncode == 0
    lines = done.stdout.splitlines()
    assert len(lines) < 20
    counts = {g: sum(p.difficulty.grade == g for p in shipped_puzzles()) for g in GRADE_ORDER}
    assert (
        lines[0] == "300 shipped puzzles (" + ", ".join(f"{g} {n}" for g, n in counts.items()) + ")"
    )
    assert lines[1].split()[:2] == ["ID", "grade"]
    assert "orbito-hw puzzles --all" in lines[-1]
    assert [line.split()[1] for line in lines[2:-1]] == [g for g in GRADE_ORDER for _ in range(3)]


def test_all_is_for_words_only() -> None:
    for argv in (("--all", "--json"), ("--all", "--seed", "1"), ("next", "--all")):
        done = cli(*argv)
        assert done.returncode == 2 and done.stdout == "" and "--all" in done.stderr
