"""A seat at home in a real browser (issue 37): ``run --mock --web`` in its own process, the
person at the board through the page's controls (the API the main page's clicks call), the
seat's player on a phone-sized Chromium page; a reload mid-game, and again while the seat's
turn waits at the board, comes back to the same seat and position."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common.browser import WAIT_MS, board, free_port
from .common.seat import home_seat, person, play_the_game, post, state, turns_shown
from .common.wait import until


def test_a_whole_game_against_a_seat_on_a_phone_with_reloads(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        invited, seat = home_seat(browser, url)
        assert invited["link"].endswith(f"/seat/{invited['token']}")
        assert seat.locator("#colour").get_attribute("data-colour") == "white"

        def meanwhile(number: int, token: str) -> bool:
            if number == 4:  # the phone slept: the same seat, the same position
                seat.reload()
                seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
                turns_shown(seat, number - 1)
            if number == 6:  # by the keys: from a1, arrows to the square, Enter
                seat.focus("#board")
                for _ in range("abcd".index(token[0])):
                    seat.keyboard.press("ArrowRight")
                for _ in range(int(token[1]) - 1):
                    seat.keyboard.press("ArrowUp")
                seat.keyboard.press("Enter")
                return True
            return False

        play_the_game(url, seat, meanwhile)
        post(url, "/api/seat/revoke", token=invited["token"])
        seat.reload()
        seat.wait_for_selector('body[data-seat="revoked"]', timeout=WAIT_MS)
        assert "closed" in seat.locator("#instruction").inner_text()
        seat.close()


def test_a_refused_turn_shows_its_reason_on_the_seat_page(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        _, seat = home_seat(browser, url)
        seat.click('[data-square="a1"]')  # black's turn, not the seat's
        seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        person(url, "b1")
        seat.wait_for_selector('#turns [data-turn="b1"]', state="attached", timeout=WAIT_MS)
        seat.click('[data-square="c1"]')  # its own marble? no: black's, to move: then a step
        seat.click('[data-square="a4"]')  # not next to c1: refused on the page, with why
        assert "c1" in seat.locator("#refusal").inner_text()
        seat.click('[data-square="c2"]')  # c1-c2, then the place
        seat.click('[data-square="c1"]')
        seat.wait_for_selector('#instruction[data-waiting="c1-c2:c1"]', timeout=WAIT_MS)
        assert state(url)["turns"] == ["b1"]
        seat.close()


def test_draws_offered_both_ways_with_a_seat(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        _, seat = home_seat(browser, url)
        person(url, "b1")
        seat.click('[data-action="seat-draw"]')  # the phone offers; the board declines
        seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
        post(url, "/api/answer", agree="no", reason="not yet")
        seat.wait_for_selector('#ask-state[data-ask="refused"]', timeout=WAIT_MS)
        assert "not yet" in seat.locator("#ask-state").inner_text()
        post(url, "/api/draw")  # the board offers; the phone accepts
        seat.wait_for_selector("#offer:not([hidden])", timeout=WAIT_MS)
        seat.click('[data-action="seat-accept"]')
        seat.wait_for_selector('#ask-state[data-ask="agreed"]', timeout=WAIT_MS)
        until(lambda: state(url)["game"] == 2, what="the drawn game over, the next begun")
        seat.wait_for_selector('body[data-seat="ended"]', timeout=WAIT_MS)  # link closed
        seat.close()
