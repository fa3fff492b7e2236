"""The archive's writes once the loop is next free (Recorder's ``defer``, issue 35): a press's
answer waits on no archive commit, and nothing heard is lost or written out of order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from orbito_hw.archive.recorder import Recorder
from orbito_hw.archive.store import Archive
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script


def archived(state: Path) -> list[tuple[str | None, list[str]]]:
    archive = Archive.read(state)
    try:
        return [(g.result, [t.turn for t in archive.turns(g.id)]) for g in archive.games()]
    finally:
        archive.close()


def deferred(state: Path) -> tuple[MockRun, Recorder, list[Callable[[], None]]]:
    later: list[Callable[[], None]] = []  # the loop's call_soon, run by hand
    recorder = Recorder(state, defer=later.append)
    run = MockRun(state, on_event=recorder, on_boot=recorder.boot)
    return run, recorder, later


def test_a_turn_is_archived_once_the_loop_is_free_not_inside_the_referee(tmp_path: Path) -> None:
    run, recorder, later = deferred(tmp_path)
    try:
        run.run_script(parse_script("put a1\npress\nput b2\npress\n"))
        assert archived(tmp_path) == [(None, [])]  # the game caught up at boot, no turn yet
        assert len(later) == 1  # one write for every event heard meanwhile
        later.pop()()
        assert archived(tmp_path) == [(None, ["a1", "b2"])]
    finally:
        run.close()
        recorder.close()


def test_what_waits_is_written_before_a_restarts_catch_up_and_at_the_close(
    tmp_path: Path,
) -> None:
    run, recorder, later = deferred(tmp_path)
    try:
        run.run_script(parse_script("put a1\npress\n"))
        run.power_cut()  # the loop never got to it: the next boot writes it first
        assert archived(tmp_path) == [(None, ["a1"])]
        run.run_script(parse_script("put b2\npress\n"))
    finally:
        run.close()
        recorder.close()
    assert archived(tmp_path) == [(None, ["a1", "b2"])]
    assert all(callback() is None for callback in later)  # late callbacks write nothing twice
    assert archived(tmp_path) == [(None, ["a1", "b2"])]
