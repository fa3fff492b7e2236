"""The page as a player meets it, in real Chromium (issue 36): the Orbito button in view at a
phone's size and a desktop's, the press previewed (where each marble goes), the result in the
player's words with New game and the review link beside it (also after a restart without
``--opponent``), resign against the board kept in the archive, the theme and the sounds kept
across a reload, axe-core in both themes, English and French."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from scripts.page_game import api, asked, make, play_to_end, state, wait_for

from .common.browser import DESKTOP, PHONE, WAIT_MS, axe_script, board, free_port

RESULT_WORDS = {
    "en": {"black": "The board wins", "white": "You win", "draw": "Draw"},
    "fr": {"black": "Le plateau gagne", "white": "Vous gagnez", "draw": "Match nul"},
}


# The most animations running just after the page drew a marble somewhere new (the slides
# start as the snapshot is drawn, before the observer's callback).
SLIDES_SEEN = """() => {
  window.slides = 0;
  new MutationObserver(() => {
    window.slides = Math.max(window.slides, document.getAnimations().length);
  }).observe(document.getElementById('board'), { attributes: true, subtree: true,
                                                 attributeFilter: ['data-marble'] });
}"""


@pytest.fixture(scope="module")
def axe_source() -> str:
    return axe_script()


def open_page(browser: Any, url: str, size: dict[str, int], scheme: str, locale: str) -> Any:
    page = browser.new_page(viewport=size, color_scheme=scheme, locale=locale)
    page.goto(url)
    page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
    return page


def in_view(page: Any, selector: str) -> bool:
    box = page.locator(selector).bounding_box()
    viewport = page.viewport_size
    return bool(box) and box["y"] >= 0 and box["y"] + box["height"] <= viewport["height"]


def no_violations(page: Any, axe: str) -> list[Any]:
    page.evaluate(axe)
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"]]


def previews(page: Any) -> dict[str, str]:
    return dict(
        page.eval_on_selector_all(
            '[data-square]:not([data-preview=""])',
            "all => all.map(e => [e.dataset.square, e.dataset.preview])",
        )
    )


def test_a_game_against_the_board_as_its_player_sees_it(
    browser: Any,
    axe_source: str,
    tmp_path: Path,
) -> None:
    state_dir = str(tmp_path / "s")
    with board(free_port(), "--opponent", "3:black", "--state-dir", state_dir) as url:
        make(url, asked(wait_for(url, lambda s: s["phase"] == "board-turn", "the board's turn")))
        now = wait_for(url, lambda s: s["phase"] == "your-turn", "the person's turn")
        pages = {
            ("phone", "dark", "en"): open_page(browser, url, PHONE, "dark", "en-GB"),
            ("desktop", "light", "fr"): open_page(browser, url, DESKTOP, "light", "fr-FR"),
        }
        for (size, scheme, lang), page in pages.items():
            assert in_view(page, '[data-action="press"]'), f"the button below the fold ({size})"
            assert page.evaluate("document.documentElement.lang") == lang
            button = page.locator('[data-action="press"]').inner_text()
            assert button == {"en": "Orbito button", "fr": "Bouton Orbito"}[lang]
            assert page.locator(".rings .way").count() == 16, "each square's way round drawn"
            # The press previewed while the button is pointed at: each marble's next square.
            assert previews(page) == {}
            page.hover('[data-action="press"]')
            wanted = {now["rings"][sq]: colour for sq, colour in now["marbles"].items()}
            page.wait_for_function(
                f"() => document.querySelectorAll('[data-square]:not([data-preview=\"\"])')"
                f".length === {len(wanted)}",
                timeout=WAIT_MS,
            )
            assert previews(page) == wanted
            page.mouse.move(0, 0)
            page.wait_for_selector('#board[data-preview="false"]', timeout=WAIT_MS)
            assert no_violations(page, axe_source) == [], f"{size} {scheme}"
        # A turn made (a marble placed, the hand empty): previewed without pointing at it.
        page = pages[("phone", "dark", "en")]
        empty = next(f"{f}{r}" for r in "1234" for f in "abcd" if f"{f}{r}" not in now["marbles"])
        page.click(f'[data-square="{empty}"]')
        page.wait_for_selector(f'[data-square="{now["rings"][empty]}"][data-preview="white"]',
                               timeout=WAIT_MS)  # fmt: skip
        page.click('[data-action="press"]')
        final = play_to_end(url, seed=5)
        for (size, _scheme, lang), page in pages.items():
            words = RESULT_WORDS[lang][final["result"]]
            page.wait_for_selector(f'#result[data-words="{words}"]', timeout=WAIT_MS)
            page.wait_for_selector("#review:not([hidden])", timeout=WAIT_MS)
            assert page.locator("#review").get_attribute("href") == "/games/1"
            assert in_view(page, "#again") and in_view(page, "#review"), size
            assert page.locator("[data-result]").get_attribute("data-result") == final["result"]
        assert no_violations(pages[("desktop", "light", "fr")], axe_source) == []
        for page in pages.values():
            page.close()
    # The board started again without --opponent: the finished game was still the board's.
    with board(free_port(), "--state-dir", state_dir) as url:
        page = open_page(browser, url, PHONE, "dark", "en-GB")
        words = RESULT_WORDS["en"][final["result"]]
        page.wait_for_selector(f'#result[data-words="{words}"]', timeout=WAIT_MS)
        page.wait_for_function(
            "() => document.getElementById('who').innerText.includes('the board (level 3)')",
            timeout=WAIT_MS,
        )
        page.close()


def test_resign_ends_the_game_in_the_archive_and_the_settings_stay(
    browser: Any, tmp_path: Path
) -> None:
    with board(free_port(), "--opponent", "3:black", "--state-dir", str(tmp_path)) as url:
        make(url, asked(wait_for(url, lambda s: s["phase"] == "board-turn", "the board's turn")))
        wait_for(url, lambda s: s["phase"] == "your-turn", "the person's turn")
        page = open_page(browser, url, DESKTOP, "dark", "en-GB")
        page.click("#resign")
        page.wait_for_selector('#result[data-words="The board wins"]', timeout=WAIT_MS)
        assert "resigned" in page.locator("#result").inner_text()
        page.wait_for_selector("#review:not([hidden])", timeout=WAIT_MS)
        with urllib.request.urlopen(url + "api/games", timeout=10) as answer:
            games = json.loads(answer.read())["games"]
        assert [(g["id"], g["result"], g["turns"]) for g in games if g["result"]] == [
            (1, "black", 1)
        ]
        assert state(url)["game"] == 2
        # The theme and the sounds: chosen, kept across a reload.
        assert page.evaluate("document.documentElement.dataset.theme") is None
        background = page.evaluate("getComputedStyle(document.body).backgroundColor")
        page.select_option("#theme", "light")
        page.check("#sounds")
        assert page.evaluate("getComputedStyle(document.body).backgroundColor") != background
        page.reload()
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        assert page.evaluate("document.documentElement.dataset.theme") == "light"
        assert page.is_checked("#sounds") and page.input_value("#theme") == "light"
        # The language chosen on the page wins over the browser's.
        page.select_option("#language", "fr")
        page.wait_for_selector('#press:text("Bouton Orbito")', timeout=WAIT_MS)
        page.reload()
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        assert page.locator("#new-game").text_content() == "Nouvelle partie"
        page.close()
        api(url, "new-game", {"first": "black"})


def test_two_people_flip_the_board_agree_a_draw_and_go_on_to_a_puzzle(browser: Any) -> None:
    with board(free_port()) as url:
        page = browser.new_page(viewport=DESKTOP, reduced_motion="reduce", locale="en-GB")
        page.goto(url)
        page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        # The result's words for each viewer (the page's own function).
        words = page.evaluate("""() => [
            resultWords('white', {black: 'person', white: 'remote'}),
            resultWords('black', {black: 'person', white: 'remote'}),
            resultWords('black', {black: 'person', white: 'person'}),
            resultWords('draw', {black: 'person', white: 'board:3'})]""")
        assert words == ["White's board wins", "You win", "Black wins", "Draw"]
        # Sounds on: a refused press (two marbles placed) is heard.
        page.check("#sounds")
        page.click('[data-square="b2"]')
        page.click('[data-square="c3"]')
        page.click('[data-action="press"]')
        page.wait_for_selector('body[data-sound="refused"]', timeout=WAIT_MS)
        # Put right (c3 lifted off), a turn with fewer motions asked for: the marbles are
        # drawn at once, not slid.
        page.click('[data-square="c3"]')
        page.evaluate(SLIDES_SEEN)
        page.click('[data-action="press"]')
        page.wait_for_selector('[data-turn="b2"]', timeout=WAIT_MS)
        page.wait_for_selector('[data-square="c2"][data-marble="black"]', timeout=WAIT_MS)
        assert page.evaluate("window.slides") == 0
        # Flipped: rank 1 at the top, file d at the left; the board itself unchanged.
        a1, d4 = (page.locator(f'[data-square="{n}"]').bounding_box() for n in ("a1", "d4"))
        assert a1 and d4 and a1["y"] > d4["y"] and a1["x"] < d4["x"]
        page.click("#flip")
        a1, d4 = (page.locator(f'[data-square="{n}"]').bounding_box() for n in ("a1", "d4"))
        assert a1 and d4 and a1["y"] < d4["y"] and a1["x"] > d4["x"]
        assert page.locator("#board").get_attribute("data-flipped") == "true"
        assert state(url)["marbles"] == {"c2": "black"}
        # A draw offered by the side to move, accepted by the other: kept, the next game on.
        page.click("#offer-draw")
        assert "White offers a draw" in page.locator("#draw-offer").inner_text()
        page.click("#accept-draw")
        page.wait_for_selector('#result[data-words="Draw"]', timeout=WAIT_MS)
        assert state(url)["game"] == 2
        # The next puzzle: its goal on the page.
        page.click("#controls summary")
        page.click("#next-puzzle")
        page.wait_for_selector('#puzzle[data-puzzle="on"]', timeout=WAIT_MS)
        assert "to play and win in" in page.locator("#puzzle").inner_text()
        page.close()
