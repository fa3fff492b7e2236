"""The page in a real browser: Debian's chromium (``/usr/bin/chromium``, which ``.ci/run``
installs) driven by Playwright (the ``browser`` fixture in conftest.py), against ``orbito-hw
run --mock --web`` in its own process (``board``)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager

from orbito_hw.rules.game import Position
from orbito_hw.rules.squares import square_name

from .needs import free_port, missing

__all__ = ["WAIT_MS", "board", "free_port", "marbles_of", "missing"]

WAIT_MS = 10_000
"""How long the browser waits for the page to show something (Playwright's timeouts)."""


@contextmanager
def board(port: int, *argv: str) -> Iterator[str]:
    """``run --mock --web`` on ``port`` (0: any free one) until the block ends; its address on
    this machine, at the port it says it serves."""
    process = subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--web", "--port", str(port), *argv],
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        assert "http://" in line, line + process.stderr.read()
        served = line.split("http://", 1)[1].split("/", 1)[0]  # its bind address: the config's
        yield f"http://127.0.0.1:{served.rsplit(':', 1)[1]}/"
    finally:
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=20) == 0


def marbles_of(position: Position) -> dict[str, str]:
    return {square_name(sq): c.value for sq in range(16) if (c := position.colour_at(sq))}
