"""A link made at the board's button (issue 37), shown on the board's page in real Chromium:
``run --mock --web`` in its own process, the person at the board holding and pressing the
button (the page's press control: the simulated button, in real time) through the opponent
menu to its last item, "invite a player"; the page with the access code shows the link and
its QR code without being asked, a page without the code shows nothing of it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common.browser import WAIT_MS, board, free_port
from .common.seat import CODE, coded_config, main_page, post, qr_shown, state, status_of
from .common.wait import until


def _press(url: str, action: str) -> None:
    post(url, "/api/press", action=action)


def _said(url: str) -> str:
    instruction: str = state(url)["instruction"]
    return instruction


def _hold_until(url: str, said: str) -> None:
    """The button held down until the instruction line says ``said``, then let go."""
    _press(url, "down")
    until(lambda: _said(url).startswith(said), 20, f"the line to say {said!r}", poll=0.1)
    _press(url, "up")


def test_a_link_made_at_the_boards_button_is_shown_on_the_page(
    browser: Any, tmp_path: Path
) -> None:
    with board(free_port(), "--config", str(coded_config(tmp_path))) as url:
        page = main_page(browser, url)
        page.fill("#code", CODE)
        stranger = main_page(browser, url)  # a page without the code
        # The person at the board: a hold on the empty board opens the opponent menu; short
        # presses to its last item; a hold takes it.
        _hold_until(url, "Opponent menu:")
        for _ in range(20):
            if _said(url).startswith("Opponent menu: invite a player on a phone for white"):
                break
            _press(url, "click")
        _hold_until(url, "A player is invited to play white")
        page.wait_for_selector('#invitation[data-invitation="live"]', timeout=WAIT_MS)
        link = page.get_attribute("#seat-link", "href")
        assert link is not None and "/seat/" in link
        assert "white" in page.inner_text("#invitation-text")
        qr_shown(page)
        token = link.rsplit("/", 1)[1]
        assert status_of(f"{url}seat/{token}") == 200  # the link opens for the player
        assert stranger.is_hidden("#invitation")  # no code, no link: the snapshot has no token
        assert token not in stranger.content()
        # Revoked from the page: the link closes.
        page.click('[data-control="revoke"]')
        page.wait_for_selector('#invitation[data-invitation="revoked"]', timeout=WAIT_MS)
        assert status_of(f"{url}seat/{token}") == 410
        page.close()
        stranger.close()
