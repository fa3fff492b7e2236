"""Issue 34: a set-up request channel that cannot lose or wedge. Each case of the issue, as
it was found: a request waiting at a real board's start, one landing while the rings turn,
a FIFO at the request's path, writers racing, an overflowing inotify queue, a refused
``run --mock --resume/--puzzle``, and control characters in a request's turns."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sqlite3
import stat
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from gpiozero.pins.mock import MockFactory

from orbito_hw.app.inbox import EVENT, IN_Q_OVERFLOW, Inbox, wanted
from orbito_hw.control.journal import Journal
from orbito_hw.control.referee import State
from orbito_hw.control.requests import NAME, SetupRequest, take_request, write_request
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command

from .common.boards import RealBoard
from .common.players import Watch, press, settled, turning
from .common.scripts import kinds
from .common.wait import until

PUZZLE = "3WBAFZ15ZCZ7"  # the puzzle
REQUESTS = "orbito_hw.control.requests"


def cli(*args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orbito_hw", *args], capture_output=True,
                          text=True, timeout=timeout)  # fmt: skip


def leftovers(state: Path) -> list[str]:
    """The request's files in ``state``: the request itself, claimed, temporary or aside."""
    return sorted(p.name for p in state.iterdir() if p.name.startswith(NAME))


# --- 1. a request waiting when the real board starts ---------------------------------------------
def test_a_request_waiting_at_the_real_boards_start_is_taken_once_the_rings_home(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """``puzzles play`` with no controller on D, then the service starts on D: the puzzle is
    set up once the rings have homed (before, only ``--mock`` looked at its start)."""
    state = tmp_path / "state"
    state.mkdir()
    asked = cli("puzzles", "play", "--id", PUZZLE, "--state-dir", str(state))
    assert asked.returncode == 0, asked.stderr
    assert f"no controller runs on {state} now" in asked.stdout
    board = RealBoard(tmp_path, mock_pins, monkeypatch)
    watch = Watch(caplog)

    def player() -> None:
        until(lambda: "READY=1" in board.systemd.texts(), what="READY")
        board.index.drive_low()  # homing finds the index magnet: the referee is free
        watch.entered("setting up")

    board.run(player)
    saved = Journal(state).load()
    assert saved is not None and saved.setting_up and saved.origin == f"puzzle:{PUZZLE}"
    assert leftovers(state) == []


# --- 2. a request landing while the rings turn ------------------------------------------------
def test_a_request_landing_while_the_rings_turn_is_taken_when_they_stop(
    tmp_path: Path,
    mock_pins: MockFactory,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The kernel says the request came while the referee is busy: it is put off, and taken
    as the ring move's check ends (before, nothing looked again)."""
    board = RealBoard(tmp_path, mock_pins, monkeypatch)
    state, a1, b1, index, step = board.state, board.a1, board.b1, board.index, board.step
    watch = Watch(caplog)
    caplog.set_level("DEBUG", logger=REQUESTS)

    def player() -> None:
        until(lambda: "READY=1" in board.systemd.texts(), what="READY")
        index.drive_low()
        watch.entered("waiting for a turn")
        settled(step)
        a1.drive_low()
        watch.entered("turn in progress")
        rings = turning(step)
        press(board.button)
        until(rings, what="the rings turn")
        write_request(state, SetupRequest(Colour.WHITE, ("a1", "b2"), origin="archive:1:2"))
        watch.see("while the rings turn", logger=REQUESTS)  # heard, and put off
        assert (state / NAME).exists()
        a1.drive_high()  # the rings carry the marble from a1 to b1
        b1.drive_low()
        watch.see("game 1 turn 1")  # the turn stands, then the request is taken
        watch.entered("setting up")

    board.run(player)
    saved = Journal(state).load()
    assert saved is not None and saved.setting_up and saved.origin == "archive:1:2"
    assert leftovers(state) == []


def test_on_the_simulated_board_a_request_put_off_by_the_rings_is_taken_after_them() -> None:
    run = MockRun()
    try:
        run.run(Command("put", square=0))
        run.finger(True)  # the press, step by step: the rings turn within its 0.1 s
        for _ in range(100):
            run.advance(0.002)
            if run.referee.busy:
                break
        assert run.referee.busy
        write_request(run.state_dir, SetupRequest(Colour.WHITE, ("b1",), origin="archive:7:1"))
        run.desk.look()  # the watch says it came: put off
        assert (run.state_dir / NAME).exists() and run.desk.wanted
        run.finger(False)
        run.wait_for_rings()
        kinds_seen = [e["event"] for e in run.events]
        assert kinds_seen.index("turn") < kinds_seen.index("setup")  # the turn stood first
        assert not (run.state_dir / NAME).exists() and run.referee.state is State.SETTING_UP
        assert run.referee.saved.origin == "archive:7:1"
    finally:
        run.close()


# --- 3. a FIFO at the request's path --------------------------------------------------------
def test_a_fifo_at_the_requests_path_is_moved_aside_and_named_not_waited_on(
    tmp_path: Path,
) -> None:
    state = tmp_path / "st"
    state.mkdir()
    os.mkfifo(state / NAME)
    script = tmp_path / "s.txt"
    script.write_text("put a1\npress\n")
    out = cli("run", "--mock", "--events", str(script), "--state-dir", str(state), timeout=60)
    assert out.returncode == 0, out.stderr
    events = [json.loads(line) for line in out.stdout.splitlines()]
    (fault,) = kinds(events, "fault")
    kept = state / f"{NAME}.damaged-1"
    assert str(fault["reason"]) == (
        f"the set-up request {state / NAME} was ignored: not a regular file (a FIFO); "
        f"kept as {kept}"
    )
    assert stat.S_ISFIFO(os.lstat(kept).st_mode) and not os.path.lexists(state / NAME)
    assert kinds(events, "turn")  # and play went on


def test_taking_never_blocks_on_a_fifo_even_with_a_writer_holding_it_open(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / NAME)
    fd = os.open(tmp_path / NAME, os.O_RDWR | os.O_NONBLOCK)  # a writer that never writes
    try:
        done: list[str] = []
        taker = threading.Thread(target=lambda: done.append(_taken(tmp_path)), daemon=True)
        taker.start()
        taker.join(10)
        assert done and "not a regular file (a FIFO)" in done[0]
    finally:
        os.close(fd)


def _taken(directory: Path) -> str:
    try:
        return repr(take_request(directory))
    except ValueError as exc:
        return str(exc)


# --- 4. writers at once ------------------------------------------------------------------------
def test_twelve_writers_at_once_never_tear_and_each_is_told_where_it_stands(
    tmp_path: Path,
) -> None:
    """Six ``puzzles play`` and six ``games resume`` at once on a directory with no
    controller: none fails, the last complete request stands, and every one superseded is
    named by the writer that took its place (or says itself that it was)."""
    state = tmp_path / "D"
    script = tmp_path / "game.txt"
    script.write_text("reset black\nput a1\npress\nput c1\npress\n")
    assert cli("run", "--mock", "--events", str(script), "--state-dir", str(state)).returncode == 0
    commands = [
        ["puzzles", "play", "--id", PUZZLE, "--json", "--state-dir", str(state)],
        ["games", "resume", "1", "--at", "1", "--json", "--state-dir", str(state)],
    ] * 6
    writers = [
        subprocess.Popen(
            [sys.executable, "-m", "orbito_hw", *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    answers = [(w.wait(120), *w.communicate()) for w in writers]
    for status, _, err in answers:
        assert status in (0, 1) and "No such file" not in err, err
    told = [json.loads(out) for _, out, _ in answers]
    standing = [t for t in told if t["stands"]]
    assert len(standing) >= 1
    # every request but the last was displaced by a later writer, which said so
    assert sum(t["replaced"] is not None for t in told) == len(commands) - 1
    last = take_request(state)
    assert last is not None and last.origin in (f"puzzle:{PUZZLE}", "archive:1:1")
    assert leftovers(state) == []


# --- 5. an overflowing inotify queue ------------------------------------------------------------
def test_an_overflowing_watch_still_takes_the_request(tmp_path: Path) -> None:
    """The board's loop stopped while more files are written in the directory than the
    kernel queues, then a request: the one event left is the overflow, and it is a look."""
    limit = int(Path("/proc/sys/fs/inotify/max_queued_events").read_text())
    if limit > 100_000:
        pytest.skip(f"max_queued_events is {limit}: too many files to write")

    async def body() -> None:
        loop = asyncio.get_running_loop()
        taken: list[bool] = []
        inbox = Inbox(loop, tmp_path, lambda: taken.append(True))
        inbox.start()
        try:
            assert inbox.watching
            for n in range(limit + 10):  # the loop runs none of this: the board is stopped
                (tmp_path / f"f{n}").write_bytes(b"")
            write_request(tmp_path, SetupRequest(Colour.WHITE, ("a1",)))
            for _ in range(500):
                await asyncio.sleep(0.01)
                if taken:
                    break
            assert taken
        finally:
            inbox.close()

    asyncio.run(body())


def test_an_overflow_names_no_file_and_is_a_look() -> None:
    overflow = EVENT.pack(-1, IN_Q_OVERFLOW, 0, 0)
    other = EVENT.pack(1, 0x8, 0, 16) + b"game.json".ljust(16, b"\0")
    assert wanted(overflow) and wanted(other + overflow)
    assert not wanted(other)


# --- 6. a refused run --mock leaves no request --------------------------------------------------
def test_a_refused_mock_run_leaves_no_request_behind(tmp_path: Path) -> None:
    state = tmp_path / "D"
    script = tmp_path / "game.txt"
    script.write_text("reset black\nput a1\npress\nput c1\npress\n")
    assert cli("run", "--mock", "--events", str(script), "--state-dir", str(state)).returncode == 0
    missing = str(tmp_path / "missing.txt")
    out = cli("run", "--mock", "--resume", "1@1", "--events", missing, "--state-dir", str(state))
    assert out.returncode == 2 and "cannot read board script" in out.stderr
    assert leftovers(state) == []
    journal = Journal(state)  # another controller holds the directory
    try:
        for asked in (["--resume", "1@1"], ["--puzzle", PUZZLE]):
            out = cli("run", "--mock", *asked, "--events", str(script), "--state-dir", str(state))
            assert out.returncode == 2 and "in use by another controller" in out.stderr
            assert leftovers(state) == []
    finally:
        journal.close()
    out = cli("run", "--mock", "--events", str(script), "--state-dir", str(state))
    assert out.returncode == 0 and '"setup"' not in out.stdout  # nobody asked for one


# --- 7. control characters -----------------------------------------------------------------------
def test_a_requests_turns_are_quoted_escaped_in_the_fault(tmp_path: Path) -> None:
    (tmp_path / NAME).write_text(json.dumps({"first": "black", "moves": "a1 \x1b[31mEVIL"}))
    run = MockRun(tmp_path)
    try:
        (fault,) = kinds(run.events, "fault")
    finally:
        run.close()
    reason = str(fault["reason"])
    assert "turn 2 ('\\x1b[31mEVIL')" in reason
    assert reason.isprintable() and "\x1b" not in reason


def test_games_resume_quotes_a_tampered_archives_turns_and_names_game_0(tmp_path: Path) -> None:
    script = tmp_path / "game.txt"
    script.write_text("reset black\nput a1\npress\nput c1\npress\n")
    assert (
        cli("run", "--mock", "--events", str(script), "--state-dir", str(tmp_path)).returncode == 0
    )
    with contextlib.closing(sqlite3.connect(tmp_path / "games.sqlite3")) as db, db:
        db.execute("UPDATE turns SET turn = ? WHERE game = 1 AND number = 2", ("\x1b[31mEVIL",))
    out = cli("games", "resume", "1", "--state-dir", str(tmp_path))
    assert out.returncode == 2 and "\x1b" not in out.stderr, out.stderr
    assert "turn 2 ('\\x1b[31mEVIL')" in out.stderr
    assert not (tmp_path / NAME).exists()
    out = cli("games", "resume", "0", "--state-dir", str(tmp_path))
    assert out.returncode == 2 and "no game 0 in the archive" in out.stderr
