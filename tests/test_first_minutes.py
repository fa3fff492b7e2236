"""The first minutes, as a new user meets them: a reader that closes the pipe early, a
``web code`` asked on a machine that is not a board, the installer's help, the pins a
config may not use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

GOLDEN = os.path.join(os.path.dirname(__file__), "golden", "draws.txt")


@pytest.mark.parametrize(
    "argv",
    [["run", "--mock"], ["run", "--mock", "--events", GOLDEN], ["replay", "--batch"]],
    ids=["demo", "events", "replay --batch"],
)
def test_a_reader_that_goes_away_early_is_a_quiet_end(argv: list[str], tmp_path: Path) -> None:
    """``orbito-hw ... | head -1``: exit 0, nothing on stderr, every time."""
    lines = tmp_path / "games.jsonl"
    lines.write_bytes(b'{"first": "black", "moves": "a1"}\n' * 5000)
    for _ in range(8):
        with lines.open("rb") as games:
            process = subprocess.Popen(
                [sys.executable, "-m", "orbito_hw", *argv],
                stdin=games, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            )  # fmt: skip
        assert process.stdout is not None
        assert process.stdout.readline()
        process.stdout.close()  # head -1 has read its line and gone
        assert process.wait(timeout=60) == 0
        assert process.stderr is not None and process.stderr.read() == b""
