"""Issue 28: puzzles played on the board (``run --mock --puzzle ID``), their progress in the
archive, and the next puzzle chosen from it.

Scenarios go through ``run --mock --events`` on each simulated backend: a board script sets
the puzzle up (it puts the marbles the ``setup`` event asks for), then plays; the board
defends with ``analyse``'s ``move``, so the script knows its replies in advance.
"""

from __future__ import annotations

import json
import random
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.archive.progress import AGAIN_AFTER, choose_next
from orbito_hw.archive.store import PuzzleTry
from orbito_hw.cli import main
from orbito_hw.control.events import PuzzleDone
from orbito_hw.control.journal import Saved
from orbito_hw.control.puzzle import defend, ended_try, origin_of
from orbito_hw.control.requests import SetupRequest, write_request
from orbito_hw.control.setup import squares_asked
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Position
from orbito_hw.rules.squares import square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script
from orbito_hw.solver.puzzles import Puzzle, find_puzzle, shipped_puzzles
from orbito_hw.solver.table import shipped_solution

from .common.scripts import undo_commands

BACKENDS: list[Backend] = ["sim", "gpio", "serial"]


@pytest.fixture(autouse=True)
def own_state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Each test's own user state directory: ``run --mock --puzzle`` without --state-dir
    keeps its tries there (issue 36), never in the home of whoever runs the tests."""
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    return tmp_path / "xdg" / "orbito-hw"


def shipped(plies: int, index: int = 0) -> Puzzle:
    return [p for p in shipped_puzzles() if p.plies == plies][index]


def setup_lines(puzzle: Puzzle) -> list[str]:
    """The marbles the set-up asks for, each of its colour."""
    return [f"put {square_name(sq)} {c}" for sq, c in squares_asked(puzzle.position())]


def turn_lines(turn: Turn, rng: random.Random, board: bool) -> list[str]:
    return [c.text() for c in turn_commands(turn, rng, board)]


def to_the_end(puzzle: Puzzle, position: Position, rng: random.Random) -> list[str]:
    """The person keeps winning (``analyse``'s move), the board defends, to the end."""
    lines, table = [], shipped_solution()
    while position.result is None:
        mine = position.to_move is puzzle.to_move
        turn = table.analyse(position).move if mine else defend(position)
        lines += turn_lines(turn, rng, board=not mine)
        position = position.play(turn)
    return lines


def wrong_turn(puzzle: Puzzle) -> Turn:
    """A turn that is no solution, after which neither it nor the board's reply ends the game."""
    position = puzzle.position()
    for turn in sorted(position.legal_turns(), key=Turn.notation):
        after = position.play(turn)
        if turn.notation() in puzzle.solution or after.result is not None:
            continue
        if after.play(defend(after)).result is None:
            return turn
    raise AssertionError(f"no quiet wrong turn in {puzzle.id}")


def run_events(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], puzzle: str, lines: list[str], *more: str
) -> list[dict[str, object]]:
    script = tmp_path / "puzzle.txt"
    script.write_text("\n".join(lines) + "\n")
    status = main(["run", "--mock", "--puzzle", puzzle, "--events", str(script), *more])
    out = capsys.readouterr().out
    assert status == 0
    return [json.loads(line) for line in out.splitlines()]


def puzzle_events(events: list[dict[str, object]]) -> list[dict[str, object]]:
    return [e for e in events if e["event"] == "puzzle"]


@pytest.mark.parametrize("parts", BACKENDS)
def test_a_puzzle_solved_on_each_backend(
    parts: Backend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    puzzle = shipped(3)
    rng = random.Random(3)
    lines = setup_lines(puzzle) + to_the_end(puzzle, puzzle.position(), rng)
    events = run_events(tmp_path, capsys, puzzle.id, lines, "--backend", parts)
    assert events[0] == {
        "event": "setup",
        "game": 1,
        "squares": {square_name(sq): c.value for sq, c in squares_asked(puzzle.position())},
        "to_move": puzzle.to_move.value,
    }
    assert [e["event"] for e in events[-2:]] == ["result", "puzzle"]
    assert events[-1] == {
        "event": "puzzle", "game": 1, "id": puzzle.id, "solved": True, "plies": puzzle.plies
    }  # fmt: skip
    assert events[-2]["result"] == puzzle.to_move.value
    boards = [e for e in events if e["event"] == "board-turn"]
    assert boards and all(e["colour"] == puzzle.to_move.other.value for e in boards)
    assert len(puzzle_events(events)) == 1


@pytest.mark.parametrize("parts", BACKENDS)
def test_a_puzzle_failed_then_taken_back_and_solved(
    parts: Backend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    puzzle = shipped(5)
    rng = random.Random(5)
    wrong = wrong_turn(puzzle)
    position = puzzle.position().play(wrong)
    reply = defend(position)
    lines = setup_lines(puzzle) + turn_lines(wrong, rng, False) + turn_lines(reply, rng, True)
    lines += ["hold 2.5", "wait 5"]  # the board's reply and the wrong turn, taken back
    for turn in (reply, wrong):
        lines += [c.text() for c in undo_commands(turn)] + ["wait 5"]
    lines += to_the_end(puzzle, puzzle.position(), rng)
    events = run_events(tmp_path, capsys, puzzle.id, lines, "--backend", parts)
    told = puzzle_events(events)
    assert told == [
        {"event": "puzzle", "game": 1, "id": puzzle.id, "solved": False, "plies": 1},
        {"event": "puzzle", "game": 1, "id": puzzle.id, "solved": True, "plies": puzzle.plies},
    ]
    kinds = [e["event"] for e in events]
    failed_at = kinds.index("puzzle")
    assert kinds[failed_at - 1] == "turn" and events[failed_at - 1]["turn"] == wrong.notation()
    assert kinds.count("taken-back") == 2
    assert kinds[-2:] == ["result", "puzzle"]


def test_a_bad_or_unknown_id_is_one_line_and_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    good = shipped(3).id
    for bad, said in (
        ("BADID", "mistyped"),
        (good[:-1] + ("0" if good[-1] != "0" else "1"), "mistyped"),
        ("", "puzzle ID"),
        ("ab\x00c", "puzzle ID"),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(["run", "--mock", "--puzzle", bad, "--events", "-"])
        err = capsys.readouterr()
        assert exit_.value.code == 2 and err.out == ""
        assert err.err.count("\n") == 1 and said in err.err, err.err


def test_puzzle_goes_with_a_mock_world_and_not_with_another_opponent(
    capsys: pytest.CaptureFixture[str],
) -> None:
    good = shipped(3).id
    for argv, said in (
        (["run", "--puzzle", good], "goes with --mock"),
        (
            ["run", "--mock", "--puzzle", good, "--opponent", "perfect:white", "--events", "-"],
            "--opponent",
        ),
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and said in err and err.count("\n") == 1


# --- the property: the solution line solves, a wrong first turn never does ---------------


def first_try(puzzle: Puzzle, first: Turn, seed: int) -> dict[str, object]:
    """The puzzle set up in-process, ``first`` played, then the person keeps to
    ``analyse``'s move (the board defending) to the end: the first ``puzzle`` event."""
    run = MockRun(seed=seed)
    try:
        request = SetupRequest(puzzle.first, tuple(puzzle.moves.split()), origin_of(puzzle))
        write_request(run.state_dir, request)
        run.power_cut()  # the controller starts again and takes the request, as at a start
        rng = random.Random(seed)
        position = puzzle.position().play(first)
        lines = setup_lines(puzzle) + turn_lines(first, rng, False)
        lines += to_the_end(puzzle, position, rng)
        run.run_script(parse_script("\n".join(lines) + "\n"))
        told = [e for e in run.events if e["event"] == "puzzle"]
        assert len(told) == 1, told
        return told[0]
    finally:
        run.close()


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, len(shipped_puzzles()) - 1), st.data())
def test_the_solution_solves_and_a_wrong_first_turn_never_does(
    index: int, data: st.DataObject
) -> None:
    puzzle = shipped_puzzles()[index]
    position = puzzle.position()
    if data.draw(st.booleans(), label="a solution"):
        token = data.draw(st.sampled_from(puzzle.solution), label="first")
        told = first_try(puzzle, Turn.from_notation(token), index)
        assert told["solved"] is True and told["plies"] == puzzle.plies
    else:
        wrong = sorted(
            (t for t in position.legal_turns() if t.notation() not in puzzle.solution),
            key=Turn.notation,
        )
        turn = data.draw(st.sampled_from(wrong), label="first")
        told = first_try(puzzle, turn, index)
        assert told["solved"] is False
        assert int(told["plies"]) >= 1  # type: ignore[call-overload]


def test_the_puzzle_is_the_one_its_id_names() -> None:  # the origin carries the ID as given
    puzzle = shipped(3)
    assert origin_of(puzzle) == f"puzzle:{puzzle.id}" == origin_of(puzzle.id)
    assert find_puzzle(puzzle.id.lower()) == puzzle


# --- progress in the archive, and the next puzzle ---------------------------------------------


def test_progress_is_recorded_and_read_back(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    puzzle = shipped(5)
    rng = random.Random(8)
    wrong = wrong_turn(puzzle)
    reply = defend(puzzle.position().play(wrong))
    lines = setup_lines(puzzle) + turn_lines(wrong, rng, False) + turn_lines(reply, rng, True)
    lines += ["hold 2.5", "wait 5"]
    for turn in (reply, wrong):
        lines += [c.text() for c in undo_commands(turn)] + ["wait 5"]
    lines += to_the_end(puzzle, puzzle.position(), rng)
    state = tmp_path / "state"
    state.mkdir()
    run_events(tmp_path, capsys, puzzle.id, lines, "--state-dir", str(state))
    assert main(["puzzles", "progress", "--json", "--state-dir", str(state)]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {k: row[k] for k in ("id", "status", "tries", "solved", "failed", "games")} == {
        "id": puzzle.id, "status": "solved", "tries": 2, "solved": 1, "failed": 1, "games": [1]
    }  # fmt: skip
    assert row["grade"] == puzzle.difficulty.grade and row["plies"] == puzzle.plies
    assert main(["games", "list", "--json", "--state-dir", str(state)]) == 0
    (game,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert game["from"] == f"puzzle:{puzzle.id}" and game["result"] == puzzle.to_move.value
    assert game[puzzle.to_move.value] == "person"
    assert game[puzzle.to_move.other.value] == "board:perfect"
    # The next one is another puzzle (this one is solved), and --puzzle next plays it.
    assert main(["puzzles", "next", "--json", "--state-dir", str(state)]) == 0
    chosen = json.loads(capsys.readouterr().out)
    assert chosen["id"] != puzzle.id and chosen["why"] == "new"
    (tmp_path / "empty.txt").write_text("")
    status = main(["run", "--mock", "--puzzle", "next", "--events", str(tmp_path / "empty.txt"),
                   "--state-dir", str(state)])  # fmt: skip
    told = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    # (The fresh simulated board is empty, the old game's position is not: a correction.)
    asked = [e for e in told if e["event"] == "setup"]
    assert status == 0 and len(asked) == 1 and asked[0]["game"] == 2
    assert asked[0]["to_move"] == chosen["to_move"]


def test_the_journal_tells_where_a_try_ended_as_the_puzzle_event_did() -> None:
    puzzle = shipped(5)
    record = puzzle.moves.split()
    wrong = wrong_turn(puzzle)
    after = puzzle.position().play(wrong)
    played_on = [wrong.notation(), defend(after).notation()]  # the game goes on after a miss

    def saved(turns: list[str], **more: object) -> Saved:
        origin = origin_of(puzzle)
        return Saved(first=puzzle.first, turns=record + turns, base=len(record), origin=origin,
                     **more)  # type: ignore[arg-type]  # fmt: skip

    assert ended_try(saved([])) is None  # the try is on
    assert ended_try(saved(played_on)) == PuzzleDone(1, puzzle.id, False, 1)
    assert ended_try(saved(played_on, setting_up=True)) is None
    assert ended_try(replace(saved(played_on), origin="journal")) is None  # no puzzle's game
    position, solved = puzzle.position(), []
    table = shipped_solution()
    while position.result is None:
        turn = (
            table.analyse(position).move if position.to_move is puzzle.to_move else defend(position)
        )
        solved.append(turn.notation())
        position = position.play(turn)
    assert ended_try(saved(solved)) == PuzzleDone(1, puzzle.id, True, len(solved))


def test_a_try_lost_to_a_power_cut_is_recorded_at_the_next_start_once(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The power cut between the winning turn's journal entry and the archive's record of
    the try: the next start finds the try's end in the journal and records it, once."""
    import sqlite3

    puzzle = shipped(3)
    lines = setup_lines(puzzle) + to_the_end(puzzle, puzzle.position(), random.Random(4))
    state = tmp_path / "state"
    state.mkdir()
    run_events(tmp_path, capsys, puzzle.id, lines, "--state-dir", str(state))

    def recorded() -> list[tuple[str, int, int]]:
        with sqlite3.connect(state / "games.sqlite3") as db:
            return list(db.execute("SELECT puzzle, solved, plies FROM puzzle_tries"))

    assert recorded() == [(puzzle.id, 1, puzzle.plies)]
    with sqlite3.connect(state / "games.sqlite3") as db:
        db.execute("DELETE FROM puzzle_tries")  # what the cut lost
    (tmp_path / "empty.txt").write_text("")
    for _ in range(2):  # the start after the cut, then one more: the try is there once
        again = [
            "run",
            "--mock",
            "--events",
            str(tmp_path / "empty.txt"),
            "--state-dir",
            str(state),
        ]
        assert main(again) == 0
        capsys.readouterr()
        assert recorded() == [(puzzle.id, 1, puzzle.plies)]


def tries(*done: tuple[Puzzle, bool]) -> list[PuzzleTry]:
    return [PuzzleTry(p.id, None, solved, p.plies, f"t{i}") for i, (p, solved) in enumerate(done)]


def by_bits() -> list[Puzzle]:
    return sorted(shipped_puzzles(), key=lambda p: p.difficulty.bits)


def test_the_first_puzzle_is_an_easy_one_and_a_solve_brings_a_harder_one() -> None:
    first, why = choose_next([])
    assert why == "new" and first.difficulty.bits == by_bits()[0].difficulty.bits
    ladder = [first]
    for _ in range(6):  # every one solved: each next one at least as hard, never one seen
        chosen, why = choose_next(tries(*((p, True) for p in ladder)))
        assert why == "new" and chosen not in ladder
        assert chosen.difficulty.bits >= ladder[-1].difficulty.bits
        ladder.append(chosen)
    assert ladder[-1].difficulty.bits > ladder[0].difficulty.bits


def test_a_miss_brings_an_easier_one_then_the_missed_one_again_later() -> None:
    hard = by_bits()[200]
    after_miss, why = choose_next(tries((hard, False)))
    assert why == "new" and after_miss.difficulty.bits < hard.difficulty.bits
    done = [(hard, False)]
    for _ in range(AGAIN_AFTER - 1):  # not yet due: other puzzles come first
        chosen, why = choose_next(tries(*done))
        assert chosen != hard and why == "new"
        done.append((chosen, True))
    chosen, why = choose_next(tries(*done, (choose_next(tries(*done))[0], True)))
    assert (chosen, why) == (hard, "again")
    # Solved at last: it is not offered again while new ones remain.
    done += [(hard, True)]
    assert choose_next(tries(*done))[0] != hard


def test_when_every_puzzle_is_tried_the_misses_then_the_oldest_solve_come_back() -> None:
    few = list(shipped_puzzles()[:3])
    assert choose_next(tries((few[0], True), (few[1], False), (few[2], True)), few) == (
        few[1],
        "again",
    )
    assert choose_next(tries((few[0], True), (few[1], True), (few[2], True)), few) == (
        few[0],
        "review",
    )


def test_an_older_archive_is_migrated_with_no_puzzle_tried(tmp_path: Path) -> None:
    import sqlite3

    from orbito_hw.archive.store import MIGRATIONS, NAME, SCHEMA, Archive

    db = sqlite3.connect(tmp_path / NAME)
    for script in MIGRATIONS[:3]:  # an archive as schema 3 left it, with one game
        db.executescript(script)
    db.execute("INSERT INTO games (journal_game, first, black, white, started) "
               "VALUES (1, 'black', 'person', 'person', 't')")  # fmt: skip
    db.execute("PRAGMA user_version = 3")
    db.commit()
    db.close()
    with Archive.read(tmp_path) as archive:  # read through a migrated copy: the file unchanged
        assert archive.puzzle_tries() == [] and len(archive.games()) == 1
    with Archive.open(tmp_path) as archive:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA == 4
        assert len(archive.games()) == 1
        with archive.write():
            archive.add_puzzle_try("X", 1, True, 3, "t")
        assert archive.puzzle_tries() == [PuzzleTry("X", 1, True, 3, "t")]


def test_progress_and_next_say_bad_input_in_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "games.sqlite3").write_bytes(b"not a database at all" * 100)
    for argv in (
        ["puzzles", "progress", "--state-dir", str(tmp_path)],
        ["puzzles", "next", "--state-dir", str(tmp_path)],
        ["puzzles", "next", "--plies", "3"],
        ["puzzles", "--state-dir", str(tmp_path)],
    ):
        with pytest.raises(SystemExit) as exit_:
            main(argv)
        err = capsys.readouterr().err
        assert exit_.value.code == 2 and err.count("\n") == 1, err
    assert main(["puzzles", "progress", "--state-dir", str(tmp_path / "none")]) == 0
    assert "no puzzle tried yet" in capsys.readouterr().out


def test_the_demo_sets_the_puzzle_up_and_plays_its_solution(
    capsys: pytest.CaptureFixture[str],
) -> None:
    puzzle = shipped(3, 1)
    assert main(["run", "--mock", "--puzzle", puzzle.id, "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert f"the board asks for {puzzle.position().board()} to be set up" in out
    assert f"result: {puzzle.to_move} (the person (perfect play)) wins" in out
    assert out.count("\nturn ") == puzzle.plies


def test_puzzles_play_asks_the_board_on_its_state_directory(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``puzzles play`` (a real board's way in): the set-up request carrying the puzzle, left
    in the state directory; the controller that starts on it sets the puzzle up, defends, and
    tells the puzzle solved. Without --id, the next puzzle of the archive's progress."""
    puzzle = shipped(3, 1)
    state = tmp_path / "state"
    state.mkdir()
    assert main(["puzzles", "play", "--id", puzzle.id, "--state-dir", str(state)]) == 0
    assert f"sets up puzzle {puzzle.id} when it starts" in capsys.readouterr().out
    script = tmp_path / "play.txt"
    lines = setup_lines(puzzle) + to_the_end(puzzle, puzzle.position(), random.Random(5))
    script.write_text("\n".join(lines) + "\n")
    assert main(["run", "--mock", "--state-dir", str(state), "--events", str(script)]) == 0
    events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert events[0]["event"] == "setup"
    assert puzzle_events(events) == [
        {"event": "puzzle", "game": 1, "id": puzzle.id, "solved": True, "plies": puzzle.plies}
    ]
    assert main(["puzzles", "play", "--state-dir", str(state), "--json"]) == 0
    asked = json.loads(capsys.readouterr().out)
    assert asked["id"] != puzzle.id and asked["running"] is False  # solved: another one next
    with pytest.raises(SystemExit) as refused:
        main(["puzzles", "play", "--seed", "3", "--state-dir", str(state)])
    assert refused.value.code == 2
    assert capsys.readouterr().err == "orbito-hw: puzzles play takes no --seed\n"


def test_without_a_state_dir_the_tries_are_kept_and_next_moves_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], own_state_dir: Path
) -> None:
    """Issue 36: without --state-dir nothing was kept (a temporary directory), so ``puzzles
    next`` named the same puzzle after it was solved."""
    assert main(["puzzles", "next", "--json"]) == 0
    first = Puzzle.from_json(json.loads(capsys.readouterr().out))
    lines = setup_lines(first) + to_the_end(first, first.position(), random.Random(1))
    events = run_events(tmp_path, capsys, "next", lines)
    assert puzzle_events(events)[0]["solved"] is True
    assert (own_state_dir / "games.sqlite3").is_file()
    assert main(["puzzles", "next", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["id"] != first.id


@pytest.mark.parametrize(
    ("xdg", "expected"),
    [("/srv/state", "/srv/state/orbito-hw"), ("", "HOME/.local/state/orbito-hw"),
     ("relative/path", "HOME/.local/state/orbito-hw")],
)  # fmt: skip
def test_the_user_state_dir_follows_xdg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, xdg: str, expected: str
) -> None:
    from orbito_hw.commands.puzzles import user_state_dir

    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_STATE_HOME", xdg)
    assert user_state_dir() == Path(expected.replace("HOME", str(tmp_path)))
    assert not user_state_dir().exists()


def test_every_command_that_writes_there_makes_a_missing_state_dir(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 36: a new --state-dir (nested, none of it there) is made, not a crash."""
    puzzle = shipped(1)
    played = tmp_path / "new" / "run"
    run_events(tmp_path, capsys, puzzle.id, setup_lines(puzzle), "--state-dir", str(played))
    assert (played / "games.sqlite3").is_file()
    asked = tmp_path / "new" / "play"
    assert main(["puzzles", "play", "--id", puzzle.id, "--state-dir", str(asked)]) == 0
    assert f"sets up puzzle {puzzle.id} when it starts" in capsys.readouterr().out
    assert (asked / "setup-request.json").is_file()
