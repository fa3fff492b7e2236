"""The pages as a player's screen, in a real browser (Debian's chromium driven by Playwright,
as tests/test_web_browser.py), at a phone's size (390x844) and a desktop's (1280x800).

The instruction line through a game against the board (the board's turn, a refused press,
a take-back, the person's turn, a hint, the result), kept across a reload; the squares and
the button with the keyboard alone; no page scrolls sideways; axe-core (the copy the
``axe-playwright-python`` package ships, in the test extra) finds no violation on any page.
Under CI=true a missing browser or axe fails, never skips."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from scripts.page_game import (
    WATCHED,
    a_turn,
    api,
    asked,
    play_to_end,
    position_of,
    state,
    wait_for,
)

from .common.browser import DESKTOP, PHONE, WAIT_MS, axe_script, board, free_port

SIZES = [pytest.param(PHONE, id="phone"), pytest.param(DESKTOP, id="desktop")]

# Each change of the line, recorded in the page: the phases a test could not catch between
# two of its own looks (the rings' move).
RECORD_PHASES = """() => {
  window.phases = [];
  const line = document.getElementById('instruction');
  new MutationObserver(() => {
    const phase = line.dataset.phase;
    if (window.phases[window.phases.length - 1] !== phase) window.phases.push(phase);
  }).observe(line, { attributes: true, attributeFilter: ['data-phase'] });
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    return axe_script()


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A board against level 3 (black) with one game played to its end, and a second begun:
    one for the module (its board's start and its game take seconds), which the tests below
    only look at (each in pages of its own: nothing they do is kept by the board)."""
    folder = tmp_path_factory.mktemp("played")
    with board(free_port(), "--opponent", "3:black", "--state-dir", str(folder)) as url:
        play_to_end(url, seed=5)
        api(url, "new-game", {"first": "black"})
        wait_for(url, lambda s: s["phase"] == "board-turn", "the board's turn")
        yield url


def line_of(page: Any) -> tuple[str, str]:
    """The instruction line: its phase and its sentence (the attribute and the text agree)."""
    element = page.locator("#instruction")
    text = element.inner_text()
    assert element.get_attribute("data-instruction") == text
    return str(element.get_attribute("data-phase")), text


def wait_phase(page: Any, phase: str) -> str:
    page.wait_for_selector(f'#instruction[data-phase="{phase}"]', timeout=WAIT_MS)
    return line_of(page)[1]


def open_page(browser: Any, url: str, size: dict[str, int]) -> Any:
    page = browser.new_page(viewport=size)
    page.goto(url)
    page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
    return page


def click(page: Any, squares: list[str]) -> None:
    for name in squares:
        page.click(f'[data-square="{name}"]')


def squares_of_turn(token: str) -> list[str]:
    from orbito_hw.rules.turn import Turn
    from scripts.page_game import squares_of

    return squares_of(Turn.from_notation(token))


@pytest.mark.parametrize("size", SIZES)
def test_the_instruction_line_through_a_game_against_the_board(
    browser: Any, tmp_path: Path, size: dict[str, int]
) -> None:
    with board(free_port(), "--opponent", "3:black", "--state-dir", str(tmp_path)) as url:
        page = open_page(browser, url, size)
        page.evaluate(RECORD_PHASES)
        who = page.locator("#who").inner_text()
        assert who == "White: you · Black: the board (level 3), to move"
        assert page.locator("#instruction").get_attribute("aria-live") == "polite"
        # The board's turn, in words.
        text = wait_phase(page, "board-turn")
        wanted = asked(state(url))
        assert text == f"The board's turn: place a black marble on {wanted.notation()}, then press"
        # A wrong press: why, and which squares; kept across a reload.
        wrong = next(n for n in ("a1", "b1", "c1", "d1") if n != wanted.notation())
        click(page, [wrong])
        page.click('[data-action="press"]')
        text = wait_phase(page, "refused")
        assert text.startswith(
            f"Not accepted: the board's turn is {wanted.notation()}, not {wrong}"
        )
        page.reload()
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        assert line_of(page) == ("refused", text)
        page.evaluate(RECORD_PHASES)
        # Put right, and the board's turn made: the person's turn.
        click(page, [wrong])  # lifted back into the hand
        click(page, squares_of_turn(wanted.notation()))
        page.click('[data-action="press"]')
        assert wait_phase(page, "your-turn") == "White to move: place a marble, then press"
        # A take-back (the page's control): what to undo, in words.
        page.click("#controls summary")
        page.click('[data-control="take-back"]')
        text = wait_phase(page, "undo")
        assert text.startswith(f"Undo turn 1 ({wanted.notation()}): take the marble off ")
        for name, glow in state(url)["glows"].items():
            if glow["kind"] == "undo":
                click(page, [name])
        wait_phase(page, "board-turn")
        # The rest of the game, each turn as the line asks; then the result, kept on reload.
        rng = random.Random(3)
        while (snapshot := state(url))["result"] is None:
            text = wait_phase(page, str(snapshot["phase"]))  # the page may be a moment behind
            count = len(snapshot["turns"])
            if snapshot["phase"] == "board-turn":
                assert text.startswith("The board's turn: ")
                turn = asked(snapshot)
            else:
                assert text.startswith("White to move: ")
                turn = a_turn(position_of(snapshot), rng)
            click(page, squares_of_turn(turn.notation()) if not turn.is_extra_press else [])
            page.click('[data-action="press"]')
            wait_for(url, lambda s, n=count: len(s["turns"]) > n, "the turn")  # type: ignore[misc]
        text = wait_phase(page, "result")
        result = snapshot["result"]
        if result == "draw":
            assert text.startswith("Draw")
        else:
            lines = " ".join(snapshot["lines"][0])
            assert text.startswith(f"{result.capitalize()} wins: {lines}")
        assert page.locator("[data-result]").get_attribute("data-result") == result
        page.reload()
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        assert line_of(page) == ("result", text)
        page.close()


def test_a_hint_and_the_keyboard_alone(browser: Any) -> None:
    """A hint in words; the squares and the button reached with Tab and played with Enter
    and Space, the arrow keys going from square to square, the focus visible."""
    with board(free_port(), "--hints") as url:
        page = open_page(browser, url, PHONE)
        assert wait_phase(page, "your-turn") == "Black to move: place a marble, then press"
        page.focus('[data-action="press"]')
        page.keyboard.press("Enter")
        assert wait_phase(page, "hint").startswith("Hint for black: place a black marble on ")
        page.focus('[data-square="a4"]')
        outline = page.evaluate("getComputedStyle(document.activeElement).outlineStyle")
        assert outline != "none", "the focus is visible"
        page.keyboard.press("ArrowDown")
        page.keyboard.press("ArrowRight")
        assert page.evaluate("document.activeElement.dataset.square") == "b3"
        page.keyboard.press("Enter")
        page.wait_for_selector('[data-square="b3"][data-marble="black"]', timeout=WAIT_MS)
        label = page.get_attribute('[data-square="b3"]', "aria-label")
        assert label is not None and label.startswith("b3: black marble")
        page.focus('[data-action="press"]')
        page.keyboard.press(" ")
        page.wait_for_selector('[data-turn="b3"]', timeout=WAIT_MS)
        assert wait_phase(page, "your-turn").startswith("White to move")
        page.close()


def pages_of(url: str) -> list[str]:
    return [url, url + "games", url + "games/1", url + "watch"]


@pytest.mark.parametrize("size", SIZES)
def test_no_page_scrolls_sideways_and_axe_finds_no_violation(
    browser: Any, axe_source: str, played: str, size: dict[str, int]
) -> None:
    for address in [*pages_of(played), played + "watch?with-games"]:
        page = browser.new_page(viewport=size)
        if address.endswith("?with-games"):
            page.route("**/api/watch", lambda route: route.fulfill(
                status=200, content_type="application/json", body=json.dumps(WATCHED)))  # fmt: skip
        page.goto(address)
        page.wait_for_load_state("networkidle")
        page.wait_for_function(
            "() => !document.body.innerText.includes('loading')", timeout=WAIT_MS
        )
        width = page.evaluate("[document.documentElement.scrollWidth, innerWidth]")
        assert width[0] <= width[1], f"{address} is {width[0]} px wide in {width[1]}"
        page.evaluate(axe_source)
        results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
        found = [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"]]
        assert found == [], f"{address}: {found}"
        page.close()


def test_the_archive_and_watch_pages_say_it_in_words(browser: Any, played: str) -> None:
    page = browser.new_page(viewport=PHONE)
    page.goto(played + "games")
    time = page.wait_for_selector("#games time", timeout=WAIT_MS)
    assert time.get_attribute("datetime").endswith(("Z", "+00:00"))  # type: ignore[union-attr]
    assert "T" not in time.inner_text(), "shown in local time, not as ISO"
    page.goto(played + "games/1")
    page.wait_for_selector("#result:not([data-result=''])", timeout=WAIT_MS)
    assert page.locator("#board .square .name").count() == 16
    assert "Black: the board (level 3)" in page.locator("#game-players").inner_text()
    assert page.locator("#game-date time").count() == 2
    assert page.locator('[data-glow="line"]').count() >= 4, "the winning line is marked"
    values = page.locator("#turns .value").all_inner_texts()
    assert values and all(v.strip() for v in values), "each turn's value is text"
    page.route("**/api/watch", lambda route: route.fulfill(
        status=200, content_type="application/json", body=json.dumps(WATCHED)))  # fmt: skip
    page.goto(played + "watch")
    cards = page.wait_for_selector("#watched li", timeout=WAIT_MS)
    assert cards is not None
    text = page.locator("#watched").inner_text()
    assert "Black to move" in text and "Black wins: a4 b4 c4 d4" in text
    assert "White: white's board, offline" in text
    kitchen = page.locator('[data-game="kitchen"]')
    assert kitchen.locator('[data-square="b2"][data-marble="black"]').count() == 1
    page.close()
