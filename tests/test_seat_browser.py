"""A seat at home in a real browser (issue 37): ``run --mock --web`` in its own process, the
person at the board through the page's controls (the API the main page's clicks call), the
seat's player on a phone-sized Chromium page; a reload mid-game, and again while the seat's
turn waits at the board, comes back to the same seat and position."""

from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

from orbito_hw.rules.game import Colour, replay

from .common.browser import PHONE, WAIT_MS, axe_script, board, free_port
from .common.seat import GAME
from .common.wait import until


def _post(url: str, path: str, **fields: str) -> dict[str, Any]:
    request = urllib.request.Request(
        url.rstrip("/") + path,
        data=json.dumps(fields).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def _state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(url.rstrip("/") + "/state", timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def _person(url: str, square: str) -> None:
    """The person at the board puts a marble on ``square`` and presses; until it counts."""
    count = len(_state(url)["turns"])
    _post(url, f"/api/square/{square}")
    _post(url, "/api/press")
    until(lambda: len(_state(url)["turns"]) == count + 1, what=f"{square} counted")


def _turns_shown(seat: Any, count: int) -> None:
    seat.wait_for_function(
        f"() => document.querySelectorAll('#turns [data-turn]').length === {count}",
        timeout=WAIT_MS,
    )


def test_a_whole_game_against_a_seat_on_a_phone_with_reloads(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        invited = _post(url, "/api/seat/invite", colour="white")
        assert invited["link"].endswith(f"/seat/{invited['token']}")
        seat = browser.new_page(viewport=PHONE, locale="en-GB")
        seat.goto(invited["link"])
        seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
        assert seat.locator("#colour").get_attribute("data-colour") == "white"
        for number, token in enumerate(GAME, start=1):
            if number % 2:  # black: the person at the board
                _person(url, token)
                _turns_shown(seat, number)
                continue
            if number == 4:  # the phone slept: the same seat, the same position
                seat.reload()
                seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
                _turns_shown(seat, number - 1)
            if number == 6:  # by the keys: from a1, arrows to the square, Enter
                seat.focus("#board")
                for _ in range("abcd".index(token[0])):
                    seat.keyboard.press("ArrowRight")
                for _ in range(int(token[1]) - 1):
                    seat.keyboard.press("ArrowUp")
                seat.keyboard.press("Enter")
            else:
                seat.click(f'[data-square="{token}"]')
            seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
            # The board guides its person to the seat's turn before anything counts.
            now = _state(url)
            assert now["leds"].get(token), f"{token} not lit at the board: {now['leds']}"
            assert now["turns"] == GAME[: number - 1]
            if number == 2:  # reloaded while the turn waits at the board: still waiting
                seat.reload()
                seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
                # A click meanwhile is refused on the page: the turn is being made.
                seat.click('[data-square="d4"]')
                seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
            _person(url, token)
            seat.wait_for_selector('#instruction[data-waiting=""]', timeout=WAIT_MS)
            if number == 2:  # the player asks for it back; the person agrees, then undoes it
                _take_back_agreed(url, seat, token)
        seat.wait_for_selector('#result[data-result="black"]', timeout=WAIT_MS)
        final = _state(url)
        assert final["turns"] == GAME
        expected = replay(Colour.BLACK, GAME)
        assert final["result"] == expected.result.value  # type: ignore[union-attr]
        shown = [e.get_attribute("data-turn") for e in seat.locator("#turns [data-turn]").all()]
        assert shown == GAME
        seat.evaluate(axe_script())  # the page as a screen reader meets it: no violation
        found = seat.evaluate("axe.run(document, {resultTypes: ['violations']})")
        assert [v["id"] for v in found["violations"]] == []
        _post(url, "/api/seat/revoke", token=invited["token"])
        seat.reload()
        seat.wait_for_selector('body[data-seat="revoked"]', timeout=WAIT_MS)
        assert "closed" in seat.locator("#instruction").inner_text()
        seat.close()


def _take_back_agreed(url: str, seat: Any, token: str) -> None:
    """The seat's last turn ``token`` (a placement) taken back at its ask: asked on the
    page, agreed on the board's, undone by the person as the LEDs ask, played again."""
    count = len(_state(url)["turns"])
    seat.click('[data-action="seat-take-back"]')
    seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
    until(lambda: _state(url)["ask"] is not None, what="the ask on the board's page")
    _post(url, "/api/answer", agree="yes")
    until(lambda: bool(_state(url)["leds"].get(token)), what=f"{token} lit to undo")
    _post(url, f"/api/square/{token}")  # lifted off, as the LEDs ask
    until(lambda: len(_state(url)["turns"]) == count - 1, what=f"{token} taken back")
    seat.wait_for_selector('#ask-state[data-ask="agreed"]', timeout=WAIT_MS)
    _turns_shown(seat, count - 1)
    seat.click(f'[data-square="{token}"]')
    seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
    _person(url, token)
    seat.wait_for_selector('#instruction[data-waiting=""]', timeout=WAIT_MS)


def test_a_refused_turn_shows_its_reason_on_the_seat_page(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        invited = _post(url, "/api/seat/invite", colour="white")
        seat = browser.new_page(viewport=PHONE, locale="en-GB")
        seat.goto(invited["link"])
        seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
        seat.click('[data-square="a1"]')  # black's turn, not the seat's
        seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        _person(url, "b1")
        seat.wait_for_selector('#turns [data-turn="b1"]', state="attached", timeout=WAIT_MS)
        seat.click('[data-square="c1"]')  # its own marble? no: black's, to move: then a step
        seat.click('[data-square="a4"]')  # not next to c1: refused on the page, with why
        assert "c1" in seat.locator("#refusal").inner_text()
        seat.click('[data-square="c2"]')  # c1-c2, then the place
        seat.click('[data-square="c1"]')
        seat.wait_for_selector('#instruction[data-waiting="c1-c2:c1"]', timeout=WAIT_MS)
        assert _state(url)["turns"] == ["b1"]
        seat.close()


def test_draws_offered_both_ways_with_a_seat(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        invited = _post(url, "/api/seat/invite", colour="white")
        seat = browser.new_page(viewport=PHONE, locale="en-GB")
        seat.goto(invited["link"])
        seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
        _person(url, "b1")
        seat.click('[data-action="seat-draw"]')  # the phone offers; the board declines
        seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
        _post(url, "/api/answer", agree="no", reason="not yet")
        seat.wait_for_selector('#ask-state[data-ask="refused"]', timeout=WAIT_MS)
        assert "not yet" in seat.locator("#ask-state").inner_text()
        _post(url, "/api/draw")  # the board offers; the phone accepts
        seat.wait_for_selector("#offer:not([hidden])", timeout=WAIT_MS)
        seat.click('[data-action="seat-accept"]')
        seat.wait_for_selector('#ask-state[data-ask="agreed"]', timeout=WAIT_MS)
        until(lambda: _state(url)["game"] == 2, what="the drawn game over, the next begun")
        seat.wait_for_selector('body[data-seat="revoked"]', timeout=WAIT_MS)  # link closed
        seat.close()
