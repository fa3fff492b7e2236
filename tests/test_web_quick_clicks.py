"""Whole games by clicks on the main page as fast as the page allows, the machine loaded
(issue 48): Debian's chromium under Playwright against ``run --mock --web``, at a desktop's
size, beside CPU hogs (busy loops this test starts and stops). The next turn is clicked as
soon as the page shows the previous one, while its marbles still slide: every turn recorded
is the turn clicked. A click on a page that has not shown the rings' last move is refused,
and the page says why."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .common.browser import DESKTOP, WAIT_MS, board, click_turn, free_port, random_game, turns_on

GAMES = 3
HOGS = 2  # one busy loop a core of a two-core machine: the load the issue saw, and more


@contextmanager
def cpu_hogs(count: int) -> Iterator[None]:
    """``count`` processes spinning on a core each, until the block ends."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()


def test_quick_clicks_under_load_record_every_turn_as_clicked(browser: Any) -> None:
    with cpu_hogs(HOGS), board(free_port()) as url:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        for game in range(GAMES):
            tokens, end = random_game(seed=48 + game)
            if game:
                page.click("#again")
                page.wait_for_function(
                    "() => !document.querySelector('[data-turn]')", timeout=WAIT_MS
                )
            for number, token in enumerate(tokens, 1):
                click_turn(page, token)  # no wait for the slide: as soon as the page shows it
                page.wait_for_function(
                    "n => document.querySelectorAll('[data-turn]').length >= n",
                    arg=number,
                    timeout=WAIT_MS,
                )
                assert turns_on(page) == tokens[:number], f"game {game + 1}, turn {number}"
            assert end.result is not None
            page.wait_for_selector(f'[data-result="{end.result.value}"]', timeout=WAIT_MS)


def test_a_click_on_a_board_the_rings_have_turned_since_is_refused_and_said(
    browser: Any,
) -> None:
    with board(free_port()) as url:
        page = browser.new_page(viewport=DESKTOP)
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        stale = page.evaluate("() => last.view")
        click_turn(page, "a1")
        page.wait_for_selector('[data-turn="a1"]', timeout=WAIT_MS)
        # A click sent from the board before the move, as a page that lagged sends it.
        page.evaluate("seen => post('/api/square/b1', { seen })", stale)
        page.wait_for_function(
            "() => document.getElementById('notice').textContent.includes('moved on')",
            timeout=WAIT_MS,
        )
        assert page.get_attribute('[data-square="b1"]', "data-marble") == "black"  # the a1 one
        assert page.get_attribute('[data-square="a1"]', "data-marble") == ""
        assert turns_on(page) == ["a1"]
