"""``orbito-hw games``: SPEC.md's JSON lines, readable tables, and one line and exit 2 for
bad input."""

from __future__ import annotations

import contextlib
import io
import json
import random
import sqlite3
from pathlib import Path

import pytest

from orbito_hw.archive.store import APPLICATION_ID, NAME
from orbito_hw.cli import main
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour

from .common.scripts import game_script, random_game, script_text


@pytest.fixture(scope="module")
def state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive of games played through ``run --mock --events``: two finished (one of
    them with every extra press), one left half-way, one started."""
    directory = tmp_path_factory.mktemp("state")
    rng = random.Random(2)
    commands = game_script(*random_game(rng), rng)
    seed = next(s for s in range(500) if len(random_game(random.Random(s))[1]) == 21)
    commands += game_script(*random_game(random.Random(seed)), rng)
    first, turns = random_game(rng, Colour.WHITE)
    commands += game_script(first, turns[:3], rng) + game_script(Colour.BLACK, [], rng)
    script = directory / "games.txt"
    script.write_text(script_text(commands))
    run_mock(script, directory / "archive")
    return directory


def run_mock(script: Path, state_dir: Path, backend: Backend = "sim") -> list[dict[str, object]]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        argv = ["run", "--mock", "--events", str(script), "--state-dir", str(state_dir)]
        assert main([*argv, "--backend", backend]) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def games(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["games", *argv]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    return captured.out


def json_lines(capsys: pytest.CaptureFixture[str], *argv: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in games(capsys, *argv, "--json").splitlines()]


def refused(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    with pytest.raises(SystemExit) as exit:
        main(["games", *argv])
    captured = capsys.readouterr()
    assert exit.value.code == 2
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("orbito-hw: ")
    return captured.err


# --- SPEC.md's JSON ------------------------------------------------------------------------
def test_list_is_one_line_per_game_oldest_first_with_specs_keys(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    listed = json_lines(capsys, "list", "--state-dir", str(state / "archive"))
    keys = ["id", "started", "ended", "first", "black", "white", "result", "turns"]
    assert all(list(game) == keys for game in listed)
    assert [g["id"] for g in listed] == sorted(g["id"] for g in listed)  # type: ignore[type-var]
    assert [g["result"] is None for g in listed] == [False, False, True, True]
    assert [g["ended"] is None for g in listed] == [False, False, False, True]
    assert listed[1]["turns"] == 21  # 16 turns and 5 extra presses
    assert listed[2]["turns"] == 3 and listed[3]["turns"] == 0
    assert {g["black"] for g in listed} == {g["white"] for g in listed} == {"person"}


def test_show_is_the_game_with_its_turns_and_times(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = str(state / "archive")
    listed = json_lines(capsys, "list", "--state-dir", directory)
    (shown,) = json_lines(capsys, "show", str(listed[0]["id"]), "--state-dir", directory)
    assert list(shown)[:6] == ["id", "first", "moves", "result", "lines", "turns"]
    assert shown["result"] == listed[0]["result"]
    turns = shown["turns"]
    assert isinstance(turns, list) and len(turns) == listed[0]["turns"]
    assert [list(t) for t in turns] == [["number", "colour", "turn", "at"]] * len(turns)
    assert " ".join(t["turn"] for t in turns) == shown["moves"]
    assert [t["number"] for t in turns] == list(range(1, len(turns) + 1))


def test_export_and_replay_batch_reproduce_every_finished_game(
    state: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    directory = str(state / "archive")
    exported = games(capsys, "export", "--state-dir", directory)
    lines = [json.loads(line) for line in exported.splitlines()]
    assert all(list(line) == ["id", "first", "moves", "result"] for line in lines)
    monkeypatch.setattr("sys.stdin", io.StringIO(exported))  # games export | replay --batch
    assert main(["replay", "--batch"]) == 0
    answers = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert len(answers) == len(lines)
    finished = [
        (line, answer) for line, answer in zip(lines, answers, strict=True) if line["result"]
    ]
    assert len(finished) == 2
    for line, answer in finished:
        assert answer["result"] == line["result"]
        (shown,) = json_lines(capsys, "show", str(line["id"]), "--state-dir", directory)
        assert answer["lines"] == shown["lines"]


def test_review_marks_each_turn_and_extra_presses_as_spec_says(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = str(state / "archive")
    listed = json_lines(capsys, "list", "--state-dir", directory)
    (reviewed,) = json_lines(capsys, "review", str(listed[1]["id"]), "--state-dir", directory)
    assert list(reviewed)[:2] == ["id", "turns"]
    turns = reviewed["turns"]
    assert isinstance(turns, list) and len(turns) == 21
    spec = ["number", "colour", "turn", "before", "after", "best", "mistake"]
    assert all(list(t)[:7] == spec for t in turns)
    presses = [t for t in turns if t["turn"] == "*"]
    assert len(presses) == 5
    assert all(t["best"] == ["*"] and t["mistake"] is False for t in presses)
    assert all(t["mistake"] == ((t["before"], t["after"]) in _WORSE) for t in turns)
    assert turns[-1]["after"] in ("win", "draw", "loss")


_WORSE = {("win", "draw"), ("win", "loss"), ("draw", "loss")}


def test_stats_counts_results_per_player_games_per_day_and_the_longest(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = str(state / "archive")
    listed = json_lines(capsys, "list", "--state-dir", directory)
    (stats,) = json_lines(capsys, "stats", "--state-dir", directory)
    assert stats["games"] == 4 and stats["finished"] == 2
    person = stats["players"]["person"]  # type: ignore[index]
    assert person["games"] == 8 and person["unfinished"] == 4
    assert person["won"] == person["lost"]  # two people: each win is the other's loss
    assert sum(stats["per_day"].values()) == 4  # type: ignore[attr-defined]
    assert stats["longest"] == {"id": listed[1]["id"], "turns": 21}


# --- in a terminal -------------------------------------------------------------------------
def test_the_tables_a_person_reads(state: Path, capsys: pytest.CaptureFixture[str]) -> None:
    directory = str(state / "archive")
    listed = games(capsys, "list", "--state-dir", directory).splitlines()
    assert listed[0].split() == [
        "id",
        "started",
        "ended",
        "first",
        "black",
        "white",
        "result",
        "turns",
    ]
    assert len(listed) == 5 and "in progress" in listed[-1] and "unfinished" in listed[-2]
    shown = games(capsys, "show", "1", "--state-dir", directory)
    assert "     a  b  c  d" in shown  # the board as the demo draws it
    assert "LEDs: " in shown  # the result lit as the board shows it
    reviewed = games(capsys, "review", "1", "--state-dir", directory)
    assert "mistakes" in reviewed and ("decided at turn" in reviewed or "no mistake" in reviewed)
    assert "player" in games(capsys, "stats", "--state-dir", directory)


def test_the_config_names_the_state_dir_by_default(
    state: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    config = tmp_path / "config.toml"
    sim = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'
    config.write_text(f'{sim}[board]\nstate_dir = "{state / "archive"}"\n')
    listed = json_lines(capsys, "list", "--config", str(config))
    assert len(listed) == 4


# --- bad input -----------------------------------------------------------------------------
def test_an_unknown_game_is_one_line_and_exit_2(
    state: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = str(state / "archive")
    for command in ("show", "review"):
        assert "no game 999" in refused(capsys, command, "999", "--state-dir", directory)
        assert "'x1' is not a number" in refused(capsys, command, "x1", "--state-dir", directory)


@pytest.mark.parametrize(
    "command", [["list"], ["show", "1"], ["review", "1"], ["export"], ["stats"]]
)
def test_a_state_dir_with_no_archive_is_one_line_and_exit_2(
    command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert f"no game archive in {tmp_path}" in refused(
        capsys, *command, "--state-dir", str(tmp_path)
    )


def _newer(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 9;")
    db.executescript("CREATE TABLE games (id INTEGER PRIMARY KEY);")
    db.close()


@pytest.mark.parametrize(
    ("make", "said"),
    [
        (lambda p: p.write_bytes(b"\x00\xffnot sqlite" * 50), "not an SQLite database"),
        (lambda p: p.mkdir(), "not a file"),
        (_newer, "written by a newer orbito-hw"),
    ],
    ids=["not SQLite", "a directory", "newer"],
)
def test_an_unreadable_archive_is_one_line_and_exit_2_and_left_alone(
    make: object, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / NAME
    make(path)  # type: ignore[operator]
    before = path.read_bytes() if path.is_file() else None
    assert said in refused(capsys, "list", "--state-dir", str(tmp_path))
    assert (path.read_bytes() if path.is_file() else None) == before
    assert not list(tmp_path.glob("*.damaged-*"))  # a reader moves nothing


@pytest.mark.parametrize("backend", ["gpio", "serial"])
def test_games_played_on_each_backend_are_listed(
    backend: Backend, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rng = random.Random(4)
    first, turns = random_game(rng)
    script = tmp_path / "game.txt"
    script.write_text(script_text(game_script(first, turns, rng)))
    events = run_mock(script, tmp_path / "state", backend)
    (listed,) = json_lines(capsys, "list", "--state-dir", str(tmp_path / "state"))
    result = next(e for e in events if e["event"] == "result")
    assert (listed["turns"], listed["result"]) == (len(turns), result["result"])
    (shown,) = json_lines(capsys, "show", str(listed["id"]), "--state-dir", str(tmp_path / "state"))
    assert shown["moves"] == " ".join(str(e["turn"]) for e in events if e["event"] == "turn")
