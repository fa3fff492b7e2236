"""A seat across the internet says what is so (issue 46), in real Chromium on a phone, against
``run --mock --remote ... --web`` and a mosquitto of the test's own: a turn made while the
broker is down is queued on the page, said so (never "on the board's lights"), and goes to
the board once the broker is back; two pages on one link show the same game; while the board
takes a turn back at the seat's ask, the page waits (the board's record says it is busy) and
refuses a click in its player's language, never "your turn"."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from orbito_hw import lang
from orbito_hw.remote.seat_link import PAGE, seat_link
from orbito_hw.rules.game import Colour

from .common.browser import WAIT_MS
from .common.seat import (
    lit,
    open_seat,
    person,
    play_on_seat,
    post,
    remote_board,
    said,
    says,
    shot,
    state,
    turns_shown,
)
from .common.two_boards import Broker
from .common.wait import until

REMOTE_GAME = "seat-truth"
QUEUED = "Your turn b4 is queued: it goes to the board when the link is back."
SHOWN = "Your turn b4 is on the board's lights"
TAKING_BACK = "Wait: the board is taking back a turn."
YOUR_TURN = (
    "Your turn: click an empty square to place your marble, or one of the other colour's "
    "marbles to move it first."
)


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


def test_a_seat_over_the_broker_waits_while_the_board_takes_its_turn_back(
    browser: Any, ws_broker: Broker, tmp_path: Path
) -> None:
    """In French (the link made by a French board carries ``lang=fr``): the seat asks to take
    back its last turn, the person at the board agrees; while the rings turn back and the
    person undoes the turns by the LEDs, the page says the board is taking a turn back, a
    click is refused with that line, nothing can be asked; then it is the seat's turn again."""
    french = lang.page_words("fr")
    taking_back, your_turn = french[TAKING_BACK], french[YOUR_TURN]
    with remote_board(ws_broker.port, tmp_path, REMOTE_GAME) as url:
        made = seat_link(f"{url}{PAGE}", ws_broker.ws_url(), REMOTE_GAME, Colour.WHITE)
        seat = open_seat(browser, f"{made.link}&lang=fr")
        person(url, "b1")
        turns_shown(seat, 1)
        play_on_seat(url, seat, "b4")
        person(url, "c3")
        turns_shown(seat, 3)
        says(seat, your_turn)
        seat.click('[data-action="seat-take-back"]')
        seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
        until(lambda: state(url)["ask"] is not None, what="the ask on the board's page")
        post(url, "/api/answer", agree="yes")
        says(seat, taking_back)  # the board's record says "busy": "take-back"
        assert your_turn not in said(seat)
        seat.click('[data-square="d4"]')  # refused on the page, in French, saying why
        seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        assert said(seat, "#refusal") == taking_back
        assert seat.locator('[data-action="seat-take-back"]').is_hidden()  # nothing to ask now
        assert state(url)["state"] in (
            "turning the rings back",
            "waiting for the turn to be undone",
        )
        assert not state(url)["leds"].get("d4")  # nothing went to the board
        shot(seat, "seat-remote-during-take-back")
        for square in ("c3", "b4"):  # the person's turn, then the seat's, as the LEDs ask
            lit(url, square)
            post(url, f"/api/square/{square}")
            until(lambda at=square: at not in state(url)["leds"], what=f"{square} undone")
        until(lambda: state(url)["turns"] == ["b1"], what="back to the seat's turn")
        says(seat, your_turn)  # the record says busy no more
        assert taking_back not in said(seat)
        play_on_seat(url, seat, "b4")  # and the seat plays again
        seat.close()
