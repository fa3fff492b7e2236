"""The page in a real browser: Debian's chromium (``/usr/bin/chromium``, which ``.ci/run``
installs) driven by Playwright (the ``browser`` fixture in conftest.py), against ``orbito-hw
run --mock --web`` in its own process (``board``)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import square_name
from orbito_hw.rules.turn import Turn

from .needs import free_port, missing

__all__ = [
    "DESKTOP",
    "PHONE",
    "WAIT_MS",
    "axe_script",
    "board",
    "click_turn",
    "free_port",
    "marbles_of",
    "missing",
    "random_game",
    "turns_on",
]

WAIT_MS = 10_000
"""How long the browser waits for the page to show something (Playwright's timeouts)."""
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1280, "height": 800}
"""The two sizes every page is tried at: a phone's and a desktop's (Playwright viewports)."""


def axe_script() -> str:
    """axe-core's script, the copy the ``axe-playwright-python`` package ships (the test
    extra); a missing one is ``missing`` (a failure under CI=true)."""
    try:
        import axe_playwright_python
    except ImportError:
        missing("axe-playwright-python (the test extra)")
    path = Path(axe_playwright_python.__file__).with_name("axe.min.js")
    if not path.exists():
        missing(f"axe-core in {path.parent}")
    return path.read_text(encoding="utf-8")


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


def turns_on(page: Any) -> list[str]:
    tokens: list[str] = page.eval_on_selector_all("[data-turn]", "e => e.map(x => x.dataset.turn)")
    return tokens


def click_turn(page: Any, token: str) -> None:
    """Make the turn ``token`` with the page's clicks: the move (lift, put), the place, press."""
    turn = Turn.from_notation(token)
    squares = [] if turn.is_extra_press else [turn.move_from, turn.move_to, turn.place]
    for square in squares:
        if square is not None:
            page.click(f'[data-square="{square_name(square)}"]')
    page.click('[data-action="press"]')


def random_game(seed: int) -> tuple[list[str], Position]:
    rng = random.Random(seed)
    position = Position.start(Colour.BLACK)
    tokens = []
    while not position.is_over:
        turn = rng.choice(sorted(position.legal_turns(), key=lambda t: t.notation()))
        tokens.append(turn.notation())
        position = position.play(turn)
    return tokens, position
