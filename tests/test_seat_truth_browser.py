"""A seat's page says what is so at every moment (issue 46), in real Chromium on a phone
(390x844), against ``run --mock --web`` in its own process: it waits while the board takes
a turn back (a click then refused with that line, never "your turn"); a link revoked while
the page is open closes it at once; two pages on one link show the same turn handed in; the
loser reads that they lost, and a refused draw's line goes with the moment it was about."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from .common.browser import WAIT_MS, board, free_port
from .common.seat import (
    GAME,
    home_seat,
    lit,
    open_seat,
    person,
    play_on_seat,
    post,
    said,
    says,
    shot,
    state,
    turns_shown,
)
from .common.wait import until

TAKING_BACK = "Wait: the board is taking back a turn."


def test_the_seat_waits_while_the_board_takes_its_turn_back(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        _, seat = home_seat(browser, url)
        person(url, "b1")
        turns_shown(seat, 1)
        play_on_seat(url, seat, "b4")
        person(url, "c3")
        turns_shown(seat, 3)
        says(seat, "Your turn")
        seat.click('[data-action="seat-take-back"]')
        seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
        until(lambda: state(url)["ask"] is not None, what="the ask on the board's page")
        post(url, "/api/answer", agree="yes")
        # The rings turn back, then the person undoes the turns: the seat waits throughout.
        says(seat, TAKING_BACK)
        assert "Your turn" not in said(seat)
        seat.click('[data-square="d4"]')  # refused on the page, saying why: not "your turn"
        seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        assert said(seat, "#refusal") == TAKING_BACK
        assert seat.locator('[data-action="seat-take-back"]').is_hidden()  # nothing to ask now
        assert state(url)["state"] in (
            "turning the rings back",
            "waiting for the turn to be undone",
        )
        shot(seat, "seat-during-take-back")
        for square in ("c3", "b4"):  # the person's turn, then the seat's, as the LEDs ask
            lit(url, square)
            post(url, f"/api/square/{square}")
            until(lambda at=square: at not in state(url)["leds"], what=f"{square} undone")
        until(lambda: state(url)["turns"] == ["b1"], what="back to the seat's turn")
        says(seat, "Your turn")
        assert TAKING_BACK not in said(seat)
        seat.close()


def test_a_link_revoked_while_its_page_is_open_closes_the_page(
    browser: Any, tmp_path: Path
) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        invited, seat = home_seat(browser, url)
        person(url, "b1")
        says(seat, "Your turn")
        post(url, "/api/seat/revoke", token=invited["token"])
        seat.wait_for_selector('body[data-seat="revoked"]', timeout=WAIT_MS)  # no reload
        assert "revoked" in said(seat) and "Your turn" not in said(seat)
        assert seat.locator("#board").is_hidden()  # a closed seat plays nothing
        assert seat.locator('[data-action="seat-take-back"]').is_hidden()
        assert state(url)["turns"] == ["b1"] and not state(url)["leds"].get("b4")
        seat.close()


def test_two_pages_on_one_link_show_the_same_turn(browser: Any, tmp_path: Path) -> None:
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        invited, first = home_seat(browser, url)
        second = open_seat(browser, invited["link"])
        person(url, "b1")
        turns_shown(first, 1)
        second.click('[data-square="b4"]')  # the other phone plays
        for page in (first, second):
            page.wait_for_selector('#instruction[data-waiting="b4"]', timeout=WAIT_MS)
            says(page, "Your turn b4 is on the board's lights")
        first.click('[data-square="d4"]')  # the first phone knows: its turn is being made
        first.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        assert said(first, "#refusal") == "Your turn is being made at the board."
        lit(url, "b4")
        person(url, "b4")
        for page in (first, second):
            page.wait_for_selector('#instruction[data-waiting=""]', timeout=WAIT_MS)
            turns_shown(page, 2)
        first.close()
        second.close()


def test_the_loser_reads_that_they_lost_and_old_lines_go(browser: Any, tmp_path: Path) -> None:
    """GAME: black (the person at the board) wins; the seat plays white. A draw offered by the
    seat and declined shows its red line until the game ends; the link then closes with its
    game, the result kept."""
    with board(free_port(), "--state-dir", str(tmp_path)) as url:
        _, seat = home_seat(browser, url)
        for number, token in enumerate(GAME, start=1):
            if number == len(GAME):  # before black's winning turn: a draw offered, declined
                seat.click('[data-action="seat-draw"]')
                seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
                post(url, "/api/answer", agree="no", reason="not now")
                seat.wait_for_selector('#ask-state[data-ask="refused"]', timeout=WAIT_MS)
                assert "not now" in said(seat, "#ask-state")
            if number % 2:
                person(url, token)
                turns_shown(seat, number)
            else:
                play_on_seat(url, seat, token)
        seat.wait_for_selector('#result[data-outcome="lost"]', timeout=WAIT_MS)
        assert said(seat, "#result").startswith("You lost")
        says(seat, "The game is over: you lost.")
        assert seat.locator("#ask-state").get_attribute("data-ask") == ""  # its moment passed
        assert said(seat, "#ask-state") == ""
        assert "wins" not in said(seat, "#result")
        shot(seat, "seat-lost-game")
        post(url, "/api/new-game", first="black")  # the board goes on: the link closes
        seat.wait_for_selector('body[data-seat="ended"]', timeout=WAIT_MS)
        assert "its game is over" in said(seat)
        assert said(seat, "#result").startswith("You lost")  # the game it played, kept
        turns_shown(seat, len(GAME))
        assert seat.locator("#result").is_visible() and seat.locator("#board").is_visible()
        assert seat.locator('[data-action="seat-draw"]').is_hidden()
        assert seat.locator("#refusal").get_attribute("data-refusal") == ""
        seat.close()
