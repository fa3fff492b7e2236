"""A seat across the internet says what is so (issue 46), in real Chromium on a phone, against
``run --mock --remote ... --web`` and a mosquitto of the test's own: a turn made while the
broker is down is queued on the page, said so (never "on the board's lights"), and goes to
the board once the broker is back; two pages on one link show the same game."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orbito_hw.remote.seat_link import PAGE, seat_link
from orbito_hw.rules.game import Colour

from .common.browser import WAIT_MS
from .common.seat import lit, open_seat, person, remote_board, said, says, shot, state, turns_shown
from .common.two_boards import Broker
from .common.wait import until

REMOTE_GAME = "seat-truth"
QUEUED = "Your turn b4 is queued: it goes to the board when the link is back."
SHOWN = "Your turn b4 is on the board's lights"


def test_a_turn_made_while_the_broker_is_down_is_queued_then_shown(
    browser: Any, ws_broker: Broker, tmp_path: Path
) -> None:
    with remote_board(ws_broker.port, tmp_path, REMOTE_GAME) as url:
        made = seat_link(f"{url}{PAGE}", ws_broker.ws_url(), REMOTE_GAME, Colour.WHITE)
        seat = open_seat(browser, made.link)
        person(url, "b1")
        turns_shown(seat, 1)
        ws_broker.stop()
        seat.wait_for_selector('#link[data-link="reconnecting"]', timeout=WAIT_MS)
        seat.click('[data-square="b4"]')
        seat.wait_for_selector('#instruction[data-waiting="b4"]', timeout=WAIT_MS)
        assert said(seat) == QUEUED
        shot(seat, "seat-broker-down")
        assert not state(url)["leds"].get("b4")  # the board has not heard it
        ws_broker.start()
        seat.wait_for_selector('#link[data-link="live"]', timeout=WAIT_MS)
        lit(url, "b4")  # sent once the broker is back: on the board's lights now
        says(seat, SHOWN)
        person(url, "b4")
        turns_shown(seat, 2)
        seat.wait_for_selector('#instruction[data-waiting=""]', timeout=WAIT_MS)
        seat.close()


def test_two_pages_on_one_link_across_the_internet_see_the_same_game(
    browser: Any, ws_broker: Broker, tmp_path: Path
) -> None:
    with remote_board(ws_broker.port, tmp_path, REMOTE_GAME) as url:
        made = seat_link(f"{url}{PAGE}", ws_broker.ws_url(), REMOTE_GAME, Colour.WHITE)
        first = open_seat(browser, made.link)
        person(url, "b1")
        turns_shown(first, 1)
        second = browser.new_context(viewport={"width": 390, "height": 844}).new_page()
        second.goto(made.link)  # another phone: its own storage, the same link
        second.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
        turns_shown(second, 1)
        second.click('[data-square="b4"]')
        lit(url, "b4")
        for page in (first, second):  # the first phone hears its seat's turn too
            page.wait_for_selector('#instruction[data-waiting="b4"]', timeout=WAIT_MS)
            says(page, SHOWN)
        person(url, "b4")
        for page in (first, second):
            turns_shown(page, 2)
        until(lambda: state(url)["turns"] == ["b1", "b4"], what="b4 counted once")
        first.close()
        second.close()
