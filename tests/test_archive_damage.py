"""A damaged archive, against every ``games`` command and the page's reads: one line and
exit 2 (or the games, where the damage missed what a command reads), never a traceback,
and the file left exactly as it was, nothing made beside it.

The damage is what a power cut, a failing SD card or a hand with ``sqlite3`` leaves:
truncation, pages overwritten with noise, another program's database, values of the wrong
kind in the columns SQLite does not type."""

from __future__ import annotations

import contextlib
import hashlib
import io
import random
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.archive.store import NAME
from orbito_hw.cli import main

from .common.scripts import game_script, random_game, script_text

COMMANDS = [["list"], ["show", "1"], ["show", "2"], ["review", "1"], ["export"], ["stats"]]
PAGE = 4096
FIXTURE = [HealthCheck.function_scoped_fixture]  # each example copies the archive anew


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real archive: two games played through ``run --mock --events``."""
    directory = tmp_path_factory.mktemp("played")
    rng = random.Random(7)
    commands = game_script(*random_game(rng), rng) + game_script(*random_game(rng), rng)
    script = directory / "games.txt"
    script.write_text(script_text(commands))
    with contextlib.redirect_stdout(io.StringIO()):
        state = directory / "state"
        assert main(["run", "--mock", "--events", str(script), "--state-dir", str(state)]) == 0
    return state / NAME


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run_games(argv: list[str], state: Path) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = main(["games", *argv, "--state-dir", str(state)])
        except SystemExit as exit:
            status = int(exit.code or 0)
    return status, out.getvalue(), err.getvalue()


def assert_told_or_read(state: Path) -> None:
    """Every command on the archive in ``state``: read, or refused in one line; the page's
    reads answer or say there is nothing; the file and its folder are as they were."""
    path = state / NAME
    before, names = digest(path), sorted(p.name for p in state.iterdir())
    for argv in COMMANDS:
        status, out, err = run_games(argv, state)
        assert "Traceback" not in out + err, (argv, err)
        if status != 0:
            assert status == 2, (argv, status, err)
            assert err.count("\n") == 1 and err.startswith("orbito-hw: "), (argv, err)
    reads = ArchiveReads(state)
    assert reads.games() is None or isinstance(reads.games(), list)
    for game_id in ("1", "2", "9223372036854775808", "9" * 5000):
        assert reads.game(game_id) is None or "game" in (reads.game(game_id) or {})
    assert digest(path) == before, "the damaged file was changed"
    assert sorted(p.name for p in state.iterdir()) == names, "something was made beside it"


def damaged_copy(archive: Path, where: Path) -> Path:
    state = where / "state"
    shutil.rmtree(state, ignore_errors=True)
    state.mkdir(parents=True)
    shutil.copy(archive, state / NAME)
    return state


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cut=st.floats(0.0, 1.0))
def test_a_truncated_archive(archive: Path, tmp_path: Path, cut: float) -> None:
    state = damaged_copy(archive, tmp_path)
    data = (state / NAME).read_bytes()
    (state / NAME).write_bytes(data[: int(len(data) * cut)])
    assert_told_or_read(state)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(data=st.data())
def test_pages_overwritten_with_noise(archive: Path, tmp_path: Path, data: st.DataObject) -> None:
    state = damaged_copy(archive, tmp_path)
    raw = bytearray((state / NAME).read_bytes())
    pages = len(raw) // PAGE
    for page in data.draw(st.sets(st.integers(0, pages - 1), min_size=1, max_size=3)):
        start = page * PAGE + data.draw(st.integers(0, PAGE - 16))
        noise = data.draw(st.binary(min_size=1, max_size=PAGE))
        raw[start : start + len(noise)] = noise[: len(raw) - start]
    (state / NAME).write_bytes(bytes(raw))
    assert_told_or_read(state)


COLUMNS = {
    "games": ["journal_game", "first", "black", "white", "started", "ended", "result", "lines"],
    "turns": ["number", "colour", "turn", "at"],
}
VALUES = st.one_of(
    st.none(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=True),
    st.text(max_size=30),
    st.binary(max_size=30),
    st.sampled_from(["[[", "[1, 2]", '[["a1", 3]]', "null", "{}", "zz", "-", "white", "*"]),
)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(table=st.sampled_from(sorted(COLUMNS)), data=st.data())
def test_values_no_orbito_hw_wrote(
    archive: Path, tmp_path: Path, table: str, data: st.DataObject
) -> None:
    state = damaged_copy(archive, tmp_path)
    column = data.draw(st.sampled_from(COLUMNS[table]))
    value = data.draw(VALUES)
    with contextlib.closing(sqlite3.connect(state / NAME)) as db, db:
        db.execute("PRAGMA journal_mode = DELETE")  # nothing left beside the file
        try:
            db.execute(f"UPDATE {table} SET {column} = ? WHERE rowid = 1", (value,))
        except sqlite3.IntegrityError:
            return  # a constraint of the schema refuses it: no such archive can exist
    assert_told_or_read(state)


@pytest.mark.parametrize(
    "schema",
    [
        "CREATE TABLE games (id INTEGER PRIMARY KEY, name TEXT)",
        "PRAGMA application_id = 1330790985; CREATE TABLE other (x)",
        "PRAGMA application_id = 1330790985; PRAGMA user_version = 99; CREATE TABLE t (x)",
    ],
    ids=["another program's", "ours without tables", "a newer orbito-hw's"],
)
def test_a_foreign_database(tmp_path: Path, schema: str) -> None:
    state = tmp_path / "state"
    state.mkdir()
    with contextlib.closing(sqlite3.connect(state / NAME)) as db:
        db.executescript(schema)
    assert_told_or_read(state)


@pytest.mark.parametrize("game_id", ["9223372036854775808", "9" * 5000, "0" * 30 + "1"])
def test_an_id_too_long_for_sqlite_is_no_game(archive: Path, tmp_path: Path, game_id: str) -> None:
    state = damaged_copy(archive, tmp_path)
    for command in ("show", "review"):
        status, _, err = run_games([command, game_id], state)
        if game_id.lstrip("0") == "1":
            assert status == 0 and err == ""
        else:
            assert status == 2 and err.count("\n") == 1 and "no game" in err, err
