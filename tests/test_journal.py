"""The journal never loses an accepted turn and never stops the board from starting.

Damage of any kind moves the file aside with its exact bytes (a fault, then a fresh game);
a journal that cannot be moved aside stops the controller with one line and stays as it
was; one controller per state directory.

We run as root, and root ignores file modes: "cannot be read" is a directory, a FIFO or a
symlink loop standing at the journal's name (real, no patching), or ``os.open`` patched to
raise EACCES for the journal; "cannot be moved aside" is ``os.rename`` patched to raise
EACCES, and a state directory that is a file.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.cli import main
from orbito_hw.control.journal import (
    MAX_BYTES,
    Journal,
    JournalError,
    JournalUnavailableError,
    Saved,
    StateDirBusyError,
)
from orbito_hw.errors import OrbitoError
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import BB_SQUARES, square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun

GOOD = b'{"format":1,"game":3,"first":"black","turns":["a1","b2"],"pending":null,"touches":[]}'
KEPT = "game.json.damaged-1"


def fault_reasons(run: MockRun) -> list[str]:
    return [str(e["reason"]) for e in run.events if e["event"] == "fault"]


def journal_of(payload: dict[str, object]) -> bytes:
    base: dict[str, object] = {
        "format": 1,
        "game": 1,
        "first": "black",
        "turns": [],
        "pending": None,
        "touches": [],
    }
    return json.dumps({**base, **payload}).encode()


def load_damaged(state: Path, raw: bytes) -> str:
    """Write ``raw`` as the journal, load it: the JournalError's message, having checked
    that the file went aside whole."""
    (state / Journal.NAME).write_bytes(raw)
    with Journal(state) as journal, pytest.raises(JournalError) as caught:
        journal.load()
    assert (state / KEPT).read_bytes() == raw
    assert not (state / Journal.NAME).exists()
    assert f"kept as {state / KEPT}" in str(caught.value)
    return str(caught.value)


def test_a_good_journal_loads_and_stays_as_it_was(tmp_path: Path) -> None:
    (tmp_path / Journal.NAME).write_bytes(GOOD)
    with Journal(tmp_path) as journal:
        saved = journal.load()
    assert saved == Saved(game=3, first=Colour.BLACK, turns=["a1", "b2"])
    assert (tmp_path / Journal.NAME).read_bytes() == GOOD


def test_what_the_journal_saves_loads_back(tmp_path: Path) -> None:
    # ..../.B../..../.W.. after the two turns: black lifts b3, puts it on a3
    saved = Saved(2, Colour.WHITE, ["a1", "b1-a1:c3"], "d4", [("lift", "b3"), ("put", "a3")])
    with Journal(tmp_path) as journal:
        assert journal.load() is None
        journal.save(saved)
        assert journal.load() == saved


# --- defect 1: not UTF-8 ------------------------------------------------------------------
def test_a_flipped_bit_that_breaks_utf8_moves_the_journal_aside(tmp_path: Path) -> None:
    raw = GOOD.replace(b'"b2"', b'"\xe22"')
    assert "not UTF-8: byte 0xe2" in load_damaged(tmp_path, raw)


def test_the_controller_starts_over_a_journal_that_is_not_utf8(tmp_path: Path) -> None:
    raw = b"\xff\xfe" + GOOD
    (tmp_path / Journal.NAME).write_bytes(raw)
    run = MockRun(tmp_path)
    try:
        (fault,) = fault_reasons(run)
        assert "not UTF-8" in fault and KEPT in fault
        run.run_script([])  # the board referees a fresh game
    finally:
        run.close()
    assert (tmp_path / KEPT).read_bytes() == raw


# --- defect 2: the turn in progress -----------------------------------------------------------
@pytest.mark.parametrize(
    ("pending", "why"),
    [
        ("zz", '"zz" is malformed'),
        ("b1", "b1 is occupied"),  # a legal token, not on this board (a1 went to b1)
        ("*", "an extra press (*) needs a full board"),
        ("c1-c2:a2", "does not fit the board"),
        (7, "7 is not a turn"),
    ],
)
def test_a_turn_in_progress_that_does_not_fit_is_damage(
    tmp_path: Path, pending: object, why: str
) -> None:
    raw = journal_of({"turns": ["a1"], "pending": pending})
    assert why in load_damaged(tmp_path, raw)


def test_the_controller_starts_over_an_extra_press_on_a_board_that_is_not_full(
    tmp_path: Path,
) -> None:
    (tmp_path / Journal.NAME).write_bytes(journal_of({"turns": ["a1"], "pending": "*"}))
    run = MockRun(tmp_path)  # exited 2 on every start before
    try:
        assert len(fault_reasons(run)) == 1
    finally:
        run.close()


def test_a_legal_turn_in_progress_is_carried_on(tmp_path: Path) -> None:
    raw = journal_of({"turns": ["a1"], "pending": "b1-c1:a1", "touches": [["lift", "b1"]]})
    (tmp_path / Journal.NAME).write_bytes(raw)
    with Journal(tmp_path) as journal:
        saved = journal.load()
    assert saved is not None and saved.pending == "b1-c1:a1"


# --- every other way to damage it -------------------------------------------------------------
DAMAGE = [
    (b"", "not JSON"),
    (GOOD[:-1], "not JSON"),
    (b"\xef\xbb\xbf" + GOOD, "not JSON"),  # a byte-order mark: never written by us
    (b"[" * 100_000 + b"]" * 100_000, "nested too deeply"),
    (b'{"format": 1, "game": ' + b"9" * 5000 + b"}", "not JSON this program reads"),
    (b"[]", "is not a JSON object"),
    (journal_of({"format": 2}), "written by a newer orbito-hw (format 2; this one reads 1)"),
    (journal_of({"format": 10**999}), "written by a newer orbito-hw (format 1000000"),
    (journal_of({"format": True}), "format true"),
    (journal_of({"format": 0}), "format 0 is not format 1"),
    (journal_of({"game": 0}), "game 0 is not a game number"),
    (journal_of({"game": True}), "game true is not a game number"),
    (journal_of({"game": "1"}), 'game "1"'),
    (journal_of({"first": "red"}), 'first "red" is not black or white'),
    (journal_of({"first": None}), "first null"),
    (journal_of({"turns": "a1"}), 'turns is "a1", not a list'),
    (journal_of({"turns": [1]}), "turns item 1 is 1, not a string"),
    (journal_of({"turns": ["a1", "b1"]}), 'turn 2 "b1" cannot be played: b1 is occupied'),
    (journal_of({"turns": ["a1", "x" * 100_000]}), 'turn 2 "xxxxx'),
    (journal_of({"touches": None}), "touches is null"),
    (journal_of({"touches": [["lift", "e5"]]}), "touch 1 a list is not a lift or put"),
    (journal_of({"touches": [["poke", "a1"]]}), "not a lift or put"),
    (journal_of({"turns": ["a1"], "touches": [["lift", "a1"]]}), "a1 is empty"),
    (journal_of({"turns": ["a1"], "touches": [["put", "b1"]]}), "b1 is occupied"),
    (journal_of({"turns": ["a1"], "touches": [["lift", "b1"], ["lift", "b1"]]}), "b1 is empty"),
]


@pytest.mark.parametrize(("raw", "why"), DAMAGE, ids=[why for _, why in DAMAGE])
def test_each_kind_of_damage_moves_the_journal_aside_and_says_why(
    tmp_path: Path, raw: bytes, why: str
) -> None:
    message = load_damaged(tmp_path, raw)
    assert why in message
    assert message.isascii() and len(message) < 400 + 2 * len(str(tmp_path))


def test_a_journal_too_big_to_be_one_is_damage(tmp_path: Path) -> None:
    raw = GOOD + b" " * MAX_BYTES
    assert "more than a journal holds" in load_damaged(tmp_path, raw)


def test_touches_at_the_start_of_a_game_need_not_fit(tmp_path: Path) -> None:
    """A new game may begin on a board not yet cleared: its first lifts are of marbles the
    game does not know, so they are journaled as they came."""
    raw = journal_of({"touches": [["lift", "c3"], ["put", "c3"], ["put", "c3"]]})
    (tmp_path / Journal.NAME).write_bytes(raw)
    with Journal(tmp_path) as journal:
        saved = journal.load()
    assert saved is not None and len(saved.touches) == 3


def test_moved_aside_journals_are_numbered_never_overwritten(tmp_path: Path) -> None:
    load_damaged(tmp_path, b"one")
    (tmp_path / KEPT).rename(tmp_path / "keep")  # load_damaged expects damaged-1 each time
    (tmp_path / KEPT).symlink_to("nowhere")  # a dangling link still holds the name
    (tmp_path / Journal.NAME).write_bytes(b"two")
    with Journal(tmp_path) as journal, pytest.raises(JournalError, match="damaged-2"):
        journal.load()
    assert (tmp_path / "game.json.damaged-2").read_bytes() == b"two"
    assert os.readlink(tmp_path / KEPT) == "nowhere"


# --- defect 3: what cannot be read, and what cannot be moved ----------------------------------
def test_a_directory_at_the_journals_name_is_moved_aside(tmp_path: Path) -> None:
    (tmp_path / Journal.NAME).mkdir()
    (tmp_path / Journal.NAME / "inside").write_text("kept")
    with Journal(tmp_path) as journal:
        with pytest.raises(JournalError, match="a directory, not a file"):
            journal.load()
        journal.save(Saved())  # a fresh game is saved beside it
    assert (tmp_path / KEPT / "inside").read_text() == "kept"


@pytest.mark.parametrize("kind", ["loop", "dangling", "fifo"])
def test_links_and_fifos_at_the_journals_name_are_moved_aside(tmp_path: Path, kind: str) -> None:
    path, target = tmp_path / Journal.NAME, {"loop": Journal.NAME, "dangling": "nowhere"}
    if kind in target:
        path.symlink_to(target[kind])
    else:
        os.mkfifo(path)
    with Journal(tmp_path) as journal, pytest.raises(JournalError):
        journal.load()  # a FIFO must not hang it
    kept = tmp_path / KEPT
    assert kept.is_fifo() if kind == "fifo" else os.readlink(kept) == target[kind]


def refuse(path: object, *args: object, **kwargs: object) -> None:
    """``os.rename`` on a directory the service may not write (root ignores modes)."""
    raise PermissionError(errno.EACCES, "Permission denied", str(path))


def test_a_journal_the_service_cannot_read_is_moved_aside_not_saved_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / Journal.NAME).write_bytes(GOOD)
    real_open = os.open

    def unreadable(path: object, *args: int, **kwargs: int) -> int:
        if Path(str(path)).name == Journal.NAME:
            raise PermissionError(errno.EACCES, "Permission denied", str(path))
        return real_open(path, *args, **kwargs)  # type: ignore[arg-type]

    with monkeypatch.context() as patch:
        patch.setattr(os, "open", unreadable)
        with (
            Journal(tmp_path) as journal,
            pytest.raises(JournalError, match="cannot be read: Permission denied"),
        ):
            journal.load()
    run = MockRun(tmp_path)
    try:
        run.run_script([])
    finally:
        run.close()
    assert (tmp_path / KEPT).read_bytes() == GOOD  # the accepted turns are still there


def test_a_journal_that_cannot_be_moved_aside_stops_the_start_and_stays(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    raw = b"\xff" + GOOD
    (tmp_path / Journal.NAME).write_bytes(raw)
    monkeypatch.setattr(os, "rename", refuse)
    with Journal(tmp_path) as journal:
        with pytest.raises(JournalUnavailableError) as caught:
            journal.load()
        error = caught.value
        assert not isinstance(error, JournalError)  # the referee's fresh-game path
        assert isinstance(error, OrbitoError) and isinstance(error, OSError)
        assert str(tmp_path / Journal.NAME) in str(error) and "Permission denied" in str(error)
        with pytest.raises(JournalUnavailableError, match="will not write over"):
            journal.save(Saved())
    assert (tmp_path / Journal.NAME).read_bytes() == raw
    assert sorted(p.name for p in tmp_path.iterdir()) == [".lock", Journal.NAME]


def test_run_refuses_with_one_line_over_a_journal_it_cannot_move(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = b"\xff" + GOOD
    (tmp_path / Journal.NAME).write_bytes(raw)
    script = tmp_path / "game.txt"
    script.write_text("put a1\npress\n")
    monkeypatch.setattr(os, "rename", refuse)
    with pytest.raises(SystemExit) as caught:
        main(["run", "--mock", "--events", str(script), "--state-dir", str(tmp_path)])
    out, err = capsys.readouterr()
    assert caught.value.code == 2 and out == ""
    assert err.startswith("orbito-hw: the journal ") and err.count("\n") == 1
    assert (tmp_path / Journal.NAME).read_bytes() == raw


def test_a_journal_never_read_is_never_written_over(tmp_path: Path) -> None:
    (tmp_path / Journal.NAME).write_bytes(GOOD)
    with (
        Journal(tmp_path) as journal,
        pytest.raises(JournalUnavailableError, match="not read first"),
    ):
        journal.save(Saved())
    assert (tmp_path / Journal.NAME).read_bytes() == GOOD


def test_a_state_directory_that_is_a_file_stops_the_start_with_one_line(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.write_text("not a directory")
    script = tmp_path / "game.txt"
    script.write_text("put a1\n")
    out = cli("run", "--mock", "--events", str(script), "--state-dir", str(state))
    assert out.returncode == 2 and out.stdout == ""
    assert (
        out.stderr == f"orbito-hw: cannot lock the state directory {state}: it is not a directory\n"
    )


# --- defect 7: one controller per state directory -----------------------------------------
def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orbito_hw", *args], capture_output=True, text=True, timeout=60
    )


def test_a_second_journal_on_the_directory_says_who_holds_it(tmp_path: Path) -> None:
    first = Journal(tmp_path)
    with pytest.raises(StateDirBusyError) as caught:
        Journal(tmp_path)
    assert f"in use by another controller (pid {os.getpid()}: " in str(caught.value)
    assert isinstance(caught.value, JournalUnavailableError)
    first.close()
    first.close()  # idempotent
    with pytest.raises(JournalUnavailableError, match="closed"):
        first.save(Saved())
    with Journal(tmp_path) as second:  # the lock went with close()
        assert second.load() is None
    assert second.closed


@pytest.fixture
def controller(tmp_path: Path) -> Iterator[subprocess.Popen[str]]:
    """``run --mock --interactive`` on tmp_path, held open on its stdin."""
    command = ["run", "--mock", "--interactive", "--state-dir", str(tmp_path)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", *command],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    lock = tmp_path / Journal.LOCK
    while not (lock.exists() and f"pid {proc.pid}:" in lock.read_text()):
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr
        time.sleep(0.05)
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_a_second_controller_on_the_directory_exits_2_naming_the_first(
    tmp_path: Path, controller: subprocess.Popen[str]
) -> None:
    script = tmp_path.parent / "game.txt"
    script.write_text("put a1\npress\n")
    second = cli("run", "--mock", "--events", str(script), "--state-dir", str(tmp_path))
    assert second.returncode == 2 and second.stdout == ""
    assert second.stderr.count("\n") == 1
    assert f"is in use by another controller (pid {controller.pid}: " in second.stderr
    assert "run --mock --interactive" in second.stderr
    out, err = controller.communicate("put a1\npress\n", timeout=60)
    assert controller.returncode == 0 and '"turn": "a1"' in out, err
    third = cli("run", "--mock", "--events", str(script), "--state-dir", str(tmp_path))
    assert third.returncode == 0, third.stderr  # the first let go when it exited


def test_a_power_cut_hands_the_lock_to_the_next_controller(tmp_path: Path) -> None:
    run = MockRun(tmp_path)
    try:
        first = run.referee.journal
        run.run_script([])
        run.power_cut()
        assert first.closed and not run.referee.journal.closed
        with pytest.raises(StateDirBusyError):
            Journal(tmp_path)
    finally:
        run.close()
    assert run.referee.journal.closed
    Journal(tmp_path).close()


# --- fuzz: arbitrary bytes, and mutations of good journals ----------------------------------
@st.composite
def good_journals(draw: st.DrawFn) -> bytes:
    """A journal the referee could have written: legal turns, maybe a legal turn in
    progress, lifts and puts that fit the board."""
    first = draw(st.sampled_from(list(Colour)))
    position, turns = Position.start(first), list[str]()
    for _ in range(draw(st.integers(0, 21))):
        legal = list(position.legal_turns())
        if position.is_over or not legal:
            break
        turn = draw(st.sampled_from(legal))
        position, turns = position.play(turn), [*turns, turn.notation()]
    pending: str | None = None
    if not position.is_over and draw(st.booleans()):
        pending = draw(st.sampled_from(list(position.legal_turns()))).notation()
    touches: list[list[str]] = []
    occupied = position.occupied
    for square in draw(st.lists(st.integers(0, 15), max_size=8)):
        lift = bool(occupied & BB_SQUARES[square])
        touches.append(["lift" if lift else "put", square_name(square)])
        occupied ^= BB_SQUARES[square]
    saved = {"game": draw(st.integers(1, 10**6)), "first": first.value, "turns": turns}
    announced = position.is_over and draw(st.booleans())
    return journal_of({**saved, "pending": pending, "touches": touches, "announced": announced})


@st.composite
def mutated(draw: st.DrawFn) -> bytes:
    raw = bytearray(draw(good_journals()))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(raw)))
        how = draw(st.sampled_from(["flip", "cut", "insert", "delete"]))
        if how == "flip" and at < len(raw):
            raw[at] ^= 1 << draw(st.integers(0, 7))
        elif how == "cut":
            del raw[at:]
        elif how == "insert":
            raw[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif at < len(raw):
            del raw[at]
    return bytes(raw)


def check_load(raw: bytes) -> None:
    """Never a traceback: a Saved that replays through the engine and a file left as it was,
    or a JournalError and the file moved aside whole."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        (state / Journal.NAME).write_bytes(raw)
        with Journal(state) as journal:
            try:
                saved = journal.load()
            except JournalError as exc:
                assert (state / KEPT).read_bytes() == raw
                assert not (state / Journal.NAME).exists()
                assert str(exc).isascii() or not str(state).isascii()
                journal.save(Saved())
                assert (state / KEPT).read_bytes() == raw
                return
        assert saved is not None
        position = saved.position()
        if saved.pending is not None:
            position.check(Turn.from_notation(saved.pending))
        assert (state / Journal.NAME).read_bytes() == raw


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_load_or_go_aside_whole(raw: bytes) -> None:
    check_load(raw)


@settings(max_examples=300, deadline=None)
@given(good_journals())
def test_good_journals_load(raw: bytes) -> None:
    check_load(raw)
    assert Saved.from_json(json.loads(raw)).to_json() == json.loads(raw)


@settings(max_examples=500, deadline=None)
@given(mutated())
def test_mutated_journals_load_or_go_aside_whole(raw: bytes) -> None:
    check_load(raw)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(mutated(), st.binary(max_size=100)))
def test_the_controller_starts_over_any_journal(raw: bytes) -> None:
    """End to end: whatever the journal holds, the board starts, a damaged journal is a
    fault event, and the moved-aside file holds the original bytes."""
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        (state / Journal.NAME).write_bytes(raw)
        run = MockRun(state)
        try:
            faults = fault_reasons(run)
            run.run_script([])
        finally:
            run.close()
        if (state / KEPT).exists():
            assert (state / KEPT).read_bytes() == raw
            assert any("damaged" in f and KEPT in f for f in faults)
        else:
            assert not any("damaged" in f for f in faults)
