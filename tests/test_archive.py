"""The game archive (archive/): every game the referee sees, written as it goes and kept
consistent with the journal through power cuts; take-backs; an older schema migrated; a
damaged or foreign file moved aside, reported, never deleted, and play going on."""

from __future__ import annotations

import os
import random
import shutil
import signal
import sqlite3
import tempfile
import threading
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.archive.recorder import Recorder
from orbito_hw.archive.store import APPLICATION_ID, CACHE_KIB, NAME, SCHEMA, Archive, GameRow
from orbito_hw.control.events import (
    Event,
    Fault,
    GameOver,
    NewGame,
    Rejected,
    TakeBack,
    TakenBack,
    TurnPlayed,
)
from orbito_hw.control.journal import Journal, Saved
from orbito_hw.control.settings import Settings
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour, Result, replay
from orbito_hw.rules.squares import line_names, square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import Command
from orbito_hw.solver.opponents import parse_level

from .common.scripts import game_script, random_game

BACKENDS: list[Backend] = ["sim", "gpio", "serial"]


class Listener:
    """The archive's listener, which can be made deaf (a power cut before it heard)."""

    def __init__(self, recorder: Recorder, events: list[Event]) -> None:
        self.recorder, self.events, self.deaf = recorder, events, False

    def __call__(self, event: Event) -> None:
        self.events.append(event)
        if not self.deaf:
            self.recorder(event)


def mock(
    state: Path, parts: Backend = "sim", settings: Settings | None = None
) -> tuple[MockRun, Listener]:
    events: list[Event] = []
    recorder = Recorder(state, report=events.append)
    listener = Listener(recorder, events)
    run = MockRun(state, settings, parts, on_event=listener, on_boot=recorder.boot)
    return run, listener


def play(state: Path, commands: list[Command], parts: Backend = "sim") -> list[Event]:
    run, listener = mock(state, parts)
    try:
        run.run_script(commands)
    finally:
        run.close()
        listener.recorder.close()
    return listener.events


def games(state: Path) -> list[tuple[GameRow, list[str]]]:
    """Each archived game and its standing turns."""
    archive = Archive.read(state)
    try:
        return [(g, [t.turn for t in archive.turns(g.id)]) for g in archive.games()]
    finally:
        archive.close()


def played(events: list[Event]) -> dict[int, list[str]]:
    """The turns the events told, by journal game (a turn told again counts once)."""
    turns: dict[int, dict[int, str]] = {}
    for event in events:
        if isinstance(event, NewGame):
            turns[event.game] = {}
        elif isinstance(event, TurnPlayed):
            turns.setdefault(event.game, {})[event.number] = event.turn.notation()
    return {game: [t[n] for n in sorted(t)] for game, t in turns.items()}


def seeded_game(seed: int) -> tuple[Colour, list[Turn], random.Random]:
    rng = random.Random(seed)
    first, turns = random_game(rng)
    return first, turns, rng


# --- games through the mock ------------------------------------------------------------------
@pytest.mark.parametrize("parts", BACKENDS)
def test_games_played_through_the_mock_are_archived_with_their_turns_and_result(
    tmp_path: Path, parts: Backend
) -> None:
    first_a, turns_a, rng = seeded_game(1)
    first_b, turns_b, _ = seeded_game(2)
    script = game_script(first_a, turns_a, rng) + game_script(first_b, turns_b, rng)
    half = game_script(Colour.WHITE, turns_b[:3], rng)  # left half-way for another reset
    script += [*half, Command("reset", colour=Colour.BLACK), Command("put", square=0)]
    events = play(tmp_path, script, parts)

    archived = games(tmp_path)
    assert [g.first for g, _ in archived] == [first_a.value, first_b.value, "white", "black"]
    assert [moves for _, moves in archived] == [
        [t.notation() for t in turns_a],
        [t.notation() for t in turns_b],
        [t.notation() for t in turns_b[:3]],
        [],  # a marble put, no turn pressed yet
    ]
    results = [e for e in events if isinstance(e, GameOver)]
    assert [g.result for g, _ in archived] == [r.result.value for r in results] + [None, None]
    assert [g.lines for g, _ in archived][:2] == [line_names(r.lines) for r in results]
    assert [g.turns for g, _ in archived] == [len(m) for _, m in archived]
    abandoned, in_progress = archived[2][0], archived[3][0]
    assert abandoned.ended is not None and abandoned.result is None  # kept as unfinished
    assert in_progress.ended is None
    assert all(g.black == g.white == "person" for g, _ in archived)
    assert not [e for e in events if isinstance(e, Fault)]


def test_each_refusal_is_kept_with_its_reason_and_squares(tmp_path: Path) -> None:
    script = [
        Command("reset", colour=Colour.BLACK),
        Command("put", square=0),
        Command("put", square=5),
        Command("press"),
    ]
    events = play(tmp_path, script)
    refused = [e for e in events if isinstance(e, Rejected)]
    assert refused
    archive = Archive.read(tmp_path)
    try:
        kept = archive.refusals(archive.games()[-1].id)
    finally:
        archive.close()
    assert [(r["reason"], r["squares"]) for r in kept] == [
        (e.reason, [square_name(sq) for sq in e.squares]) for e in refused
    ]


def test_who_played_is_the_board_at_its_level_for_its_colour(tmp_path: Path) -> None:
    settings = Settings(opponent=board_player(parse_level("random"), Colour.WHITE, 3))
    run, listener = mock(tmp_path, settings=settings)
    try:
        run.run(Command("reset", colour=Colour.BLACK), first_command=True)
        run.run(Command("put", square=0))
        run.run(Command("press"))
        run.finish()
    finally:
        run.close()
        listener.recorder.close()
    (game, moves), *_ = games(tmp_path)
    assert (game.black, game.white, moves) == ("person", "board:random", ["a1"])


def test_times_come_from_the_clock_given_as_iso_8601_with_the_offset(tmp_path: Path) -> None:
    zone = timezone(timedelta(hours=2))
    ticks = iter(datetime(2024, 5, 1, 20, 0, s, tzinfo=zone) for s in range(60))
    recorder = Recorder(tmp_path, now=lambda: next(ticks))
    with Journal(tmp_path) as journal:
        journal.load()
        recorder.boot(referee(Saved(game=1)))  # a blank game 1 at 20:00:00
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1"), turn(1, 2, "b3")])
    (game, _), *_ = games(tmp_path)
    archive = Archive.read(tmp_path)
    stamps = [t.at for t in archive.turns(game.id)]
    archive.close()
    assert game.started == "2024-05-01T20:00:01+02:00"  # the new game took the blank one
    assert stamps == ["2024-05-01T20:00:02+02:00", "2024-05-01T20:00:03+02:00"]


# --- power cuts --------------------------------------------------------------------------------
def check_against_journal(state: Path, events: list[Event]) -> None:
    with Journal(state) as journal:
        saved = journal.load()
    assert saved is not None
    archived = games(state)
    game, moves = archived[-1]
    assert (game.journal_game, game.first, moves) == (saved.game, saved.first.value, saved.turns)
    assert moves == played(events)[saved.game]
    over = [e for e in events if isinstance(e, GameOver) and e.game == saved.game]
    assert game.result == (over[0].result.value if over else None)
    position = saved.position()
    assert game.result == (position.result.value if position.result else None)


def cut_at(state: Path, commands: list[Command], at: int, parts: Backend, deaf: bool) -> None:
    """Run ``commands`` with a power cut after command ``at`` (and the ring move it began);
    ``deaf``: the archive hears nothing of that command (the cut came before it wrote)."""
    run, listener = mock(state, parts)
    try:
        for i, command in enumerate(commands):
            listener.deaf = deaf and i == at
            run.run(command, first_command=i == 0)
            if i == at:
                run.wait_for_rings()
                listener.deaf = False
                run.power_cut()
        run.finish()
    finally:
        run.close()
        listener.recorder.close()
    check_against_journal(state, listener.events)


@pytest.mark.parametrize("deaf", [False, True], ids=["heard", "missed"])
def test_a_power_cut_at_every_command_leaves_the_archive_as_the_journal(
    tmp_path: Path, deaf: bool
) -> None:
    first, turns, rng = seeded_game(23)  # a whole game, to its result, in 27 commands
    commands = game_script(first, turns, rng)
    assert replay(first, [t.notation() for t in turns]).result is not None
    for at in range(len(commands)):
        cut_at(tmp_path / f"cut-{at}", commands, at, "sim", deaf)


@pytest.mark.parametrize("parts", ["gpio", "serial"])
def test_a_power_cut_the_archive_missed_on_each_backend(tmp_path: Path, parts: Backend) -> None:
    first, turns, rng = seeded_game(6)
    commands = game_script(first, turns[:6], rng)
    for at in range(0, len(commands), 3):
        cut_at(tmp_path / f"cut-{at}", commands, at, parts, deaf=True)


def test_a_second_run_on_the_same_state_dir_keeps_the_games_apart(tmp_path: Path) -> None:
    """Both runs' games are journal game 1 (a script's first reset sets up game 1 again)."""
    first, turns, rng = seeded_game(9)
    play(tmp_path, game_script(first, turns[:4], rng))
    play(tmp_path, [*game_script(first.other, [], rng), Command("put", square=3)])
    archived = games(tmp_path)
    assert [g.journal_game for g, _ in archived] == [1, 1]
    assert [m for _, m in archived] == [[t.notation() for t in turns[:4]], []]
    assert archived[0][0].ended is not None  # left unfinished when the second run reset


# --- take-backs and the catch-up, from events made by hand -------------------------------------
def turn(game: int, number: int, token: str, first: Colour = Colour.BLACK) -> TurnPlayed:
    mover = first if number % 2 else first.other
    return TurnPlayed(game, number, mover, Turn.from_notation(token), "..../..../..../....")


def feed(recorder: Recorder, events: list[Event]) -> None:
    for event in events:
        recorder(event)


def referee(saved: Saved, opponent: object = None) -> Any:
    """What the recorder reads of a referee's snapshot: its journal's game and who it plays for."""
    return SimpleNamespace(snapshot=lambda: SimpleNamespace(saved=saved, opponent=opponent))


def booted(state: Path, saved: Saved, reports: list[Fault] | None = None) -> Recorder:
    recorder = Recorder(state, report=(reports if reports is not None else []).append)
    with Journal(state) as journal:  # the directory exists, as the journal made it
        journal.load()
    recorder.boot(referee(saved))
    return recorder


def taken_back(state: Path) -> list[tuple[int, str]]:
    archive = Archive.read(state)
    try:
        game = archive.games()[-1]
        return [(t.number, t.turn) for t in archive.turns(game.id, standing=False)]
    finally:
        archive.close()


def test_a_turn_taken_back_is_gone_from_the_game_and_kept_as_taken_back(tmp_path: Path) -> None:
    recorder = booted(tmp_path, Saved(game=1))
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1"), turn(1, 2, "b3"), turn(1, 3, "c2")])
    feed(recorder, [TakeBack(1, 3, Turn.from_notation("c2"))])
    assert games(tmp_path)[0][1] == ["a1", "b3", "c2"]  # a take-back under way: still stands
    feed(recorder, [TakenBack(1, 3, "..../..../..../....", Colour.BLACK), turn(1, 3, "d1")])
    recorder.close()
    assert games(tmp_path)[0][1] == ["a1", "b3", "d1"]
    assert games(tmp_path)[0][0].turns == 3
    assert taken_back(tmp_path) == [(3, "c2")]


def test_against_the_board_two_turns_go_and_a_result_with_them(tmp_path: Path) -> None:
    moves = "a1 b3 c2 d4 a3 a1".split()  # any legal game will do: it is only replayed at the end
    recorder = booted(tmp_path, Saved(game=1))
    feed(recorder, [NewGame(1, Colour.BLACK), *(turn(1, n, t) for n, t in enumerate(moves, 1))])
    feed(recorder, [GameOver(1, Result.BLACK, (0b1111,))])
    assert games(tmp_path)[0][0].result == "black"
    board = "..../..../..../...."
    feed(recorder, [TakenBack(1, 6, board, Colour.WHITE), TakenBack(1, 5, board, Colour.BLACK)])
    recorder.close()
    game, standing = games(tmp_path)[0]
    assert standing == moves[:4]
    assert (game.result, game.ended, game.lines) == (None, None, [])
    assert taken_back(tmp_path) == [(5, "a3"), (6, "a1")]


def test_the_catch_up_adds_missing_turns_and_takes_back_the_turns_beyond_the_journal(
    tmp_path: Path,
) -> None:
    recorder = booted(tmp_path, Saved(game=1))
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1"), turn(1, 2, "b3"), turn(1, 3, "c2")])
    recorder.boot(referee(Saved(game=1, turns=["a1", "b3"])))  # c2 was taken back in the cut
    assert games(tmp_path)[0][1] == ["a1", "b3"]
    recorder.boot(referee(Saved(game=1, turns=["a1", "b3", "d1", "a1"])))
    recorder.close()
    assert games(tmp_path)[0][1] == ["a1", "b3", "d1", "a1"]
    assert taken_back(tmp_path) == [(3, "c2")]
    assert len(games(tmp_path)) == 1


OPERATIONS = st.lists(st.tuples(st.sampled_from(["play", "back", "cut"]), st.booleans()))


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**16), OPERATIONS)
def test_after_any_turns_take_backs_and_missed_events_a_start_agrees_with_the_journal(
    seed: int, operations: list[tuple[str, bool]]
) -> None:
    """The journal is the truth; the archive hears each event or misses it (``heard``), and
    each start (``cut``) makes its game the journal's again, every turn that went kept."""
    rng = random.Random(seed)
    first = rng.choice(list(Colour))
    saved = Saved(game=1, first=first)  # what the referee journals, as it goes
    journal, played = saved.turns, set()
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        recorder = booted(state, saved)
        recorder(NewGame(1, first))
        for operation, heard in [*operations, ("cut", True)]:
            position = replay(first, journal)
            if operation == "play" and position.result is None:
                journal.append(rng.choice(list(position.legal_turns())).notation())
                played.add((len(journal), journal[-1]))
                if heard:
                    recorder(turn(1, len(journal), journal[-1], first))
            elif operation == "back" and journal:
                journal.pop()
                if heard:
                    recorder(TakenBack(1, len(journal) + 1, position.board(), first))
            elif operation == "cut":
                recorder.boot(referee(saved))
                ((game, standing),) = games(state)
                assert standing == journal
                result = replay(first, journal).result
                assert game.result == (result.value if result else None)
                # Only turns that were played are marked taken back (a turn heard after a
                # missed take-back went with the line it was played on, the same token or not).
                assert set(taken_back(state)) <= played
        recorder.close()


def test_a_journal_set_aside_restarts_its_numbers_and_the_games_stay_apart(
    tmp_path: Path,
) -> None:
    recorder = booted(tmp_path, Saved(game=1))
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1"), turn(1, 2, "b3")])
    # The journal was damaged and set aside: a fresh journal, game 1 again, other turns.
    (tmp_path / f"{Journal.NAME}.damaged-1").write_text("{")
    recorder.boot(referee(Saved(game=1, turns=["c2"])))
    recorder.close()
    archived = games(tmp_path)
    assert [(g.journal_game, m) for g, m in archived] == [(1, ["a1", "b3"]), (1, ["c2"])]
    assert archived[0][0].ended is not None and archived[0][0].result is None


def test_a_journal_set_aside_that_kept_its_turns_carries_the_same_game_on(tmp_path: Path) -> None:
    recorder = booted(tmp_path, Saved(game=1))
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1"), turn(1, 2, "b3")])
    (tmp_path / f"{Journal.NAME}.damaged-1").write_text("{")  # only the turn in progress lost
    recorder.boot(referee(Saved(game=1, turns=["a1", "b3", "c2"])))
    recorder.close()
    assert [m for _, m in games(tmp_path)] == [["a1", "b3", "c2"]]


def test_a_new_game_the_archive_missed_is_opened_from_the_journal(tmp_path: Path) -> None:
    recorder = booted(tmp_path, Saved(game=1))
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1")])
    recorder.boot(referee(Saved(game=2, first=Colour.WHITE, turns=["b2"])))
    recorder.close()
    archived = games(tmp_path)
    assert [(g.journal_game, g.first, m) for g, m in archived] == [
        (1, "black", ["a1"]),
        (2, "white", ["b2"]),
    ]


def test_a_finished_game_in_the_journal_gets_its_result_once(tmp_path: Path) -> None:
    first, turns, _ = seeded_game(4)
    moves = [t.notation() for t in turns]
    position = replay(first, moves)
    assert position.result is not None
    recorder = booted(tmp_path, Saved(game=3, first=first, turns=moves))
    recorder.boot(referee(Saved(game=3, first=first, turns=moves)))  # a second start
    recorder(GameOver(3, position.result, tuple(position.lines())))  # announced after all
    recorder.close()
    ((game, standing),) = games(tmp_path)
    assert (standing, game.result, game.lines) == (
        moves,
        position.result.value,
        position.line_names(),
    )


# --- schema versions -----------------------------------------------------------------------------
V1 = f"""
PRAGMA application_id = {APPLICATION_ID};
CREATE TABLE games (id INTEGER PRIMARY KEY AUTOINCREMENT, journal_game INTEGER NOT NULL,
    first TEXT NOT NULL, black TEXT NOT NULL, white TEXT NOT NULL, started TEXT NOT NULL,
    ended TEXT, result TEXT, lines TEXT NOT NULL DEFAULT '[]');
CREATE TABLE turns (game INTEGER NOT NULL, number INTEGER NOT NULL, colour TEXT NOT NULL,
    turn TEXT NOT NULL, at TEXT NOT NULL, PRIMARY KEY (game, number));
CREATE TABLE refusals (game INTEGER NOT NULL, at TEXT NOT NULL, reason TEXT NOT NULL,
    squares TEXT NOT NULL);
INSERT INTO games VALUES (1, 7, 'white', 'person', 'board:3', '2024-01-02T10:00:00+01:00',
    '2024-01-02T10:09:00+01:00', 'white', '[["a1", "a2", "a3", "a4"]]');
INSERT INTO turns VALUES (1, 1, 'white', 'a1', '2024-01-02T10:01:00+01:00'),
    (1, 2, 'black', 'b3', '2024-01-02T10:02:00+01:00');
INSERT INTO refusals VALUES (1, '2024-01-02T10:01:30+01:00', 'two marbles placed', '["b2"]');
PRAGMA user_version = 1;
"""


def test_an_archive_written_by_schema_version_1_is_migrated(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / NAME)
    db.executescript(V1)
    db.close()
    archive = Archive.open(tmp_path)
    try:
        assert archive.db.execute("PRAGMA user_version").fetchone()[0] == SCHEMA == 4
        (game,) = archive.games()
        assert (game.setup_turns, game.origin) == (0, None)  # version 3: started from empty
        assert archive.puzzle_tries() == []  # version 4: no puzzle tried yet
        assert (game.journal_game, game.first, game.white, game.result, game.turns) == (
            7,
            "white",
            "board:3",
            "white",
            2,
        )
        assert [(t.number, t.turn, t.at) for t in archive.turns(1)] == [
            (1, "a1", "2024-01-02T10:01:00+01:00"),
            (2, "b3", "2024-01-02T10:02:00+01:00"),
        ]
        assert archive.refusals(1)[0]["squares"] == ["b2"]
        with archive.write():  # version 2's take-backs work on the migrated turns
            archive.take_back(1, 2, "2024-01-02T10:10:00+01:00")
            archive.add_turn(1, 2, Colour.BLACK, "c2", "2024-01-02T10:11:00+01:00")
        assert [t.turn for t in archive.turns(1)] == ["a1", "c2"]
        assert [t.turn for t in archive.turns(1, standing=False)] == ["b3"]
    finally:
        archive.close()


def test_the_commands_read_a_version_1_archive_too(tmp_path: Path) -> None:
    db = sqlite3.connect(tmp_path / NAME)
    db.executescript(V1)
    db.close()
    assert [m for _, m in games(tmp_path)] == [["a1", "b3"]]


def test_a_fresh_archive_is_wal_with_full_sync_and_our_application_id(tmp_path: Path) -> None:
    archive = Archive.open(tmp_path)
    try:
        pragma = {
            name: archive.db.execute(f"PRAGMA {name}").fetchone()[0]
            for name in ("journal_mode", "synchronous", "application_id", "user_version")
        }
    finally:
        archive.close()
    assert pragma == {
        "journal_mode": "wal",
        "synchronous": 2,  # FULL
        "application_id": APPLICATION_ID,
        "user_version": SCHEMA,
    }


def test_the_controller_and_a_reader_keep_a_page_cache_that_does_not_grow_with_the_archive(
    tmp_path: Path,
) -> None:
    """SQLite's default cache (2000 KiB a connection) let the controller's connection grow
    with every game archived; both kinds of connection hold CACHE_KIB (a negative
    cache_size is KiB, a positive one pages)."""
    archive = Archive.open(tmp_path)
    try:
        assert archive.db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB
    finally:
        archive.close()
    with Archive.read(tmp_path) as reader:
        assert reader.db.execute("PRAGMA cache_size").fetchone()[0] == -CACHE_KIB


NOBODY = 65534


def test_the_archive_of_a_stopped_controller_reads_without_write_access() -> None:
    # A builder's own login may read /var/lib/orbito-hw but not write there; with the
    # controller stopped, SQLite has no -shm to read the WAL database through and cannot
    # make one. As root, the reading is done as nobody; otherwise the folder is made
    # read-only, its owner included. The reading makes nothing, as root either.
    first, turns, rng = seeded_game(3)
    folder = Path(tempfile.mkdtemp())  # in /tmp: pytest's own folders are the owner's alone
    try:
        play(folder, game_script(first, turns, rng))
        written = sorted(p.name for p in folder.iterdir())
        expected = [(g, moves) for g, moves in games(folder)]
        # As root, nothing made beside it either: a root -shm the controller could not write.
        assert sorted(p.name for p in folder.iterdir()) == written
        for path in [folder, *folder.iterdir()]:
            path.chmod(0o555 if path.is_dir() else 0o444)
        assert read_as_someone_else(folder) == repr(expected)
        assert sorted(p.name for p in folder.iterdir()) == written  # nothing made, nothing moved
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder)


def read_as_someone_else(folder: Path) -> str:
    """``games(folder)`` in a child process that may not write to ``folder``, as repr."""
    reading, writing = os.pipe()
    child = os.fork()
    if child == 0:  # the child: never back into pytest
        code = 1
        try:
            os.close(reading)
            if os.geteuid() == 0:
                os.setgid(NOBODY)
                os.setuid(NOBODY)
            try:
                answer = repr([(g, moves) for g, moves in games(folder)])
            except Exception as exc:
                answer = f"{type(exc).__name__}: {exc}"
            os.write(writing, answer.encode())
            code = 0
        finally:
            os._exit(code)
    os.close(writing)
    with os.fdopen(reading, "rb") as pipe:
        answer = pipe.read().decode()
    assert os.waitpid(child, 0)[1] == 0
    return answer


# --- a damaged or foreign file ----------------------------------------------------------------
def _text(path: Path) -> None:
    path.write_bytes(b"these are my notes, not a database\n" * 100)


def _foreign(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE photos (name TEXT); INSERT INTO photos VALUES ('cat.jpg');")
    db.close()


def _newer(path: Path) -> None:
    db = sqlite3.connect(path)
    db.executescript(f"PRAGMA application_id = {APPLICATION_ID}; PRAGMA user_version = 99;")
    db.executescript("CREATE TABLE games (id INTEGER PRIMARY KEY);")
    db.close()


def _corrupt(path: Path) -> None:
    archive = Archive.open(path.parent)
    with archive.write():
        for n in range(200):
            game = archive.new_game(n, Colour.BLACK, ("person", "person"), "2024-01-01T00:00:00")
            archive.add_turn(game, 1, Colour.BLACK, "a1", "2024-01-01T00:00:00")
    archive.close()
    data = bytearray(path.read_bytes())
    data[4096 + 100 : 4096 * 3] = b"\xa5" * (4096 * 2 - 100)  # pages 2 and 3 overwritten
    path.write_bytes(bytes(data))


DAMAGE: dict[str, Callable[[Path], None]] = {
    "not SQLite": _text,
    "another program's": _foreign,
    "a newer version": _newer,
    "damaged pages": _corrupt,
}


@pytest.mark.parametrize("make", DAMAGE.values(), ids=DAMAGE.keys())
def test_a_damaged_or_foreign_file_is_moved_aside_reported_and_play_goes_on(
    tmp_path: Path, make: Callable[[Path], None]
) -> None:
    first, turns, rng = seeded_game(11)
    commands = game_script(first, turns, rng)
    clean = play(tmp_path / "clean", commands)
    state = tmp_path / "state"
    state.mkdir()
    make(state / NAME)
    before = (state / NAME).read_bytes()
    events = play(state, commands)

    faults = [e for e in events if isinstance(e, Fault)]
    assert len(faults) == 1 and faults[0].game is None
    assert f"kept as {state / NAME}.damaged-1" in faults[0].reason
    assert (state / f"{NAME}.damaged-1").read_bytes() == before  # never deleted or changed
    assert [e for e in events if not isinstance(e, Fault)] == clean  # play went on the same
    assert [m for _, m in games(state)] == [[t.notation() for t in turns]]


def test_a_second_damaged_file_is_kept_beside_the_first(tmp_path: Path) -> None:
    for _ in range(2):
        _text(tmp_path / NAME)
        booted(tmp_path, Saved(game=1)).close()
    assert (tmp_path / f"{NAME}.damaged-1").exists() and (tmp_path / f"{NAME}.damaged-2").exists()
    assert games(tmp_path)  # the fresh archive


def test_a_file_found_damaged_while_playing_is_set_aside_and_the_game_rebuilt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports: list[Fault] = []
    recorder = booted(tmp_path, Saved(game=1), reports)
    feed(recorder, [NewGame(1, Colour.BLACK), turn(1, 1, "a1")])
    real_add = Archive.add_turn

    def malformed(self: Archive, *args: object) -> None:
        monkeypatch.setattr(Archive, "add_turn", real_add)  # the fresh file works
        error = sqlite3.DatabaseError("database disk image is malformed")
        error.sqlite_errorcode = 11  # type: ignore[attr-defined]
        raise error

    monkeypatch.setattr(Archive, "add_turn", malformed)
    recorder._referee = referee(Saved(game=1, turns=["a1", "b3"]))
    recorder(turn(1, 2, "b3"))
    recorder.close()
    assert len(reports) == 1 and "damaged-1" in reports[0].reason
    assert (tmp_path / f"{NAME}.damaged-1").exists()
    assert [m for _, m in games(tmp_path)] == [["a1", "b3"]]  # caught up from the journal


def test_a_write_that_fails_is_reported_once_and_caught_up_at_the_next_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    reports: list[Fault] = []
    recorder = booted(tmp_path, Saved(game=1), reports)
    feed(recorder, [NewGame(1, Colour.BLACK)])

    def full(self: Archive, *args: object) -> None:
        raise sqlite3.OperationalError("database or disk is full")

    with monkeypatch.context() as patch:
        patch.setattr(Archive, "add_turn", full)
        feed(recorder, [turn(1, 1, "a1"), turn(1, 2, "b3")])  # play goes on: nothing raised
    assert len(reports) == 1 and "disk is full" in reports[0].reason
    recorder.boot(referee(Saved(game=1, turns=["a1", "b3"])))
    recorder.close()
    assert [m for _, m in games(tmp_path)] == [["a1", "b3"]]


def test_an_archive_that_cannot_be_opened_is_reported_and_play_goes_on(tmp_path: Path) -> None:
    (tmp_path / NAME).mkdir()  # a directory at its name: SQLite cannot open it
    (tmp_path / NAME / "keep").write_text("mine")
    first, turns, rng = seeded_game(12)
    events = play(tmp_path, game_script(first, turns[:2], rng))
    faults = [e for e in events if isinstance(e, Fault)]
    assert len(faults) == 1
    assert f"cannot open the game archive {tmp_path / NAME}" in faults[0].reason
    assert [e.turn.notation() for e in events if isinstance(e, TurnPlayed)] == [
        t.notation() for t in turns[:2]
    ]
    assert (tmp_path / NAME / "keep").read_text() == "mine"  # left alone


# --- the real board's run loop --------------------------------------------------------------------


def test_the_real_boards_run_loop_archives_and_catches_up_at_its_start(
    tmp_path: Path, mock_pins: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from orbito_hw.app.config import BackendsConfig, GameConfig, load_config
    from orbito_hw.app.run import run_board

    config = load_config(Path(__file__).resolve().parent.parent / "config.example.toml")
    config = replace(
        config,
        board=replace(config.board, state_dir=tmp_path),
        backends=BackendsConfig(sensors="gpio", button="gpio", drive="gpio", lights="none"),
        game=GameConfig(opponent="random", board_colour=Colour.BLACK),
    )
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    with Journal(tmp_path) as journal:  # a game under way before the board was switched off
        journal.load()
        journal.save(Saved(game=2, first=Colour.WHITE, turns=["a1"]))
    stop = threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM))
    stop.start()
    assert run_board(config) == 0
    ((game, moves),) = games(tmp_path)
    assert (game.journal_game, game.first, moves) == (2, "white", ["a1"])
    assert (game.black, game.white) == ("board:random", "person")
