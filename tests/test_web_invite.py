"""The main page's "Invite a player" control (issue 36, docs/seat.md), in real Chromium at a
phone's size: behind the access code like the other controls; with it, the link and its QR
code shown, then revoked (the link's page closed); axe-core clean with the invitation shown;
and the page's sentences in the viewer's language while the board speaks English."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .common.browser import PHONE, WAIT_MS, axe_script, board, free_port
from .common.seat import CODE, coded_config, main_page, qr_shown, status_of


def no_violations(page: Any, axe: str) -> list[Any]:
    page.evaluate(axe)
    results = page.evaluate("axe.run(document, {resultTypes: ['violations']})")
    return [(v["id"], [n["target"] for n in v["nodes"]][:3]) for v in results["violations"]]


@pytest.fixture(scope="module")
def axe_source() -> str:
    return axe_script()


def test_invite_a_player_shows_the_link_and_its_qr_then_revokes_it(
    browser: Any, axe_source: str, tmp_path: Path
) -> None:
    with board(free_port(), "--config", str(coded_config(tmp_path))) as url:
        page = main_page(browser, url)
        # Without the code: refused, and nothing shown.
        page.click('[data-control="invite"]')
        page.wait_for_selector('body[data-refused="403"]', timeout=WAIT_MS)
        assert page.is_hidden("#invitation")
        page.fill("#code", CODE)
        page.select_option("#seat-colour", "white")
        page.click('[data-control="invite"]')
        page.wait_for_selector('#invitation[data-invitation="live"]', timeout=WAIT_MS)
        link = page.get_attribute("#seat-link", "href")
        assert link is not None and "/seat/" in link
        assert page.inner_text("#seat-link") == link
        assert "white" in page.inner_text("#invitation-text")
        qr_shown(page)  # loaded (an SVG of the link), and on screen at the phone's width:
        assert "/qr.svg" in (page.get_attribute("#seat-qr", "src") or "")
        box = page.locator("#seat-qr").bounding_box()
        assert box is not None and box["width"] >= 150 and box["x"] + box["width"] <= 390
        assert page.get_attribute("#seat-qr", "alt")
        assert no_violations(page, axe_source) == []
        token = link.rsplit("/", 1)[1]
        assert status_of(f"{url}seat/{token}") == 200  # the link opens for the player
        page.click('[data-control="revoke"]')
        page.wait_for_selector('#invitation[data-invitation="revoked"]', timeout=WAIT_MS)
        assert page.is_hidden("#seat-qr") and page.is_hidden("#revoke")
        assert "revoked" in page.inner_text("#invitation-text")
        assert status_of(f"{url}seat/{token}") == 410  # closed
        assert page.get_attribute("body", "data-refused") is None
        assert no_violations(page, axe_source) == []
        page.close()


def test_two_pages_read_an_english_board_each_in_its_language(browser: Any) -> None:
    # English by default, not chosen: each browser's language (``--lang en`` would be every
    # page's too, unless its viewer picks another: test_lang_game.py).
    with board(free_port()) as url:
        pages = {}
        for locale in ("en-GB", "fr-FR"):
            pages[locale] = browser.new_page(viewport=PHONE, locale=locale)
            pages[locale].goto(url)
            pages[locale].wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
        english, french = pages["en-GB"], pages["fr-FR"]
        # The legend's rows are made on the board: each page has them in its language.
        english.wait_for_selector("#legend li", timeout=WAIT_MS)
        french.wait_for_selector("#legend li", timeout=WAIT_MS)
        with urllib.request.urlopen(f"{url}state?lang=fr", timeout=10) as answer:
            told = json.load(answer)
        rows = french.eval_on_selector_all("#legend li", "all => all.map(e => e.textContent)")
        assert any(row["text"] in " ".join(rows) for row in told["legend"])
        assert "fix this square: it is wrong" in " ".join(
            english.eval_on_selector_all("#legend li", "all => all.map(e => e.textContent)")
        )
        assert "fix this square: it is wrong" not in " ".join(rows)
        # The instruction line: the same on both, each in its viewer's language.
        with urllib.request.urlopen(f"{url}state?lang=en", timeout=10) as answer:
            told_en = json.load(answer)
        assert told["phase"] == told_en["phase"] == "your-turn"
        assert told["instruction"] != told_en["instruction"]
        for page, said in ((english, told_en), (french, told)):
            page.wait_for_selector(
                f'#instruction[data-instruction="{said["instruction"]}"]', timeout=WAIT_MS
            )
        # French chosen on the English page: its stream opens again, in French.
        english.click("#controls summary")
        english.select_option("#language", "fr")
        english.wait_for_function(
            "() => document.documentElement.lang === 'fr' && ![...document.querySelectorAll("
            "'#legend li')].some(e => e.textContent.includes('fix this square'))",
            timeout=WAIT_MS,
        )
        for page in pages.values():
            page.close()
