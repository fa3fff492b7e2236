"""A game is never lost: a game recovered from a damaged journal is journaled again at once,
and a journal the system refuses to write (a full disk) is a fault told in words, not an
internal error naming the code."""

from __future__ import annotations

import errno
import json
import random
from pathlib import Path
from unittest import mock

import pytest

from orbito_hw.control.journal import Journal
from orbito_hw.sim.harness import ControllerFailedError, MockRun
from orbito_hw.sim.script import parse_script

from .common.scripts import game_script, random_game


def four_turns(state: Path) -> list[str]:
    """Four turns of a random game played into ``state``; their notation."""
    first, turns = random_game(random.Random(11))
    run = MockRun(state)
    try:
        run.run_script(game_script(first, turns[:4], random.Random(1)))
        return list(run.referee.saved.turns)
    finally:
        run.close()


@pytest.mark.parametrize("pending", ["zz", "*", 7, ["a1"], "a1-a1:a1", "b4-z9:c3"])
def test_a_recovered_game_is_journaled_at_once(tmp_path: Path, pending: object) -> None:
    played = four_turns(tmp_path)
    journal = tmp_path / Journal.NAME
    data = json.loads(journal.read_bytes())
    journal.write_text(json.dumps({**data, "pending": pending}))
    run = MockRun(tmp_path)  # the start sets the damaged file aside, and goes on
    try:
        assert any(e["event"] == "fault" for e in run.events)
        assert json.loads(journal.read_bytes())["turns"] == played  # on the disk already
    finally:
        run.close()  # a power cut now
    again = MockRun(tmp_path)
    try:
        assert again.referee.saved.turns == played
        assert not any(e["event"] == "fault" for e in again.events)
    finally:
        again.close()


def test_a_full_disk_is_a_fault_in_words(tmp_path: Path) -> None:
    run = MockRun(tmp_path)
    full = OSError(errno.ENOSPC, "No space left on device")
    try:
        with (
            mock.patch("orbito_hw.control.journal.os.fsync", side_effect=full),
            pytest.raises(ControllerFailedError) as caught,
        ):
            run.run_script(parse_script("put a1\n"))
        reason = str(caught.value)
        assert "No space left on device" in reason and "cannot save the journal" in reason
        assert "internal error" not in reason and ".py:" not in reason and "Error" not in reason
    finally:
        run.close()
