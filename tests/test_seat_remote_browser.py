"""A seat across the internet in a real browser (issue 37): ``run --mock --remote ... --web``
in its own process, a mosquitto of the test's own with a WebSockets listener, and the seat's
static page (seat_remote.html) on a phone-sized Chromium page speaking the remote protocol
over MQTT over WebSockets. The person at the board plays through the page's controls; each
of the seat's turns is lit on the board's LEDs before it counts; the broker restarts and the
page reloads mid-game, and the seat comes back to the same seat and position."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from orbito_hw.remote.seat_link import PAGE, seat_link
from orbito_hw.rules.game import Colour

from .common.browser import PHONE, WAIT_MS, board, free_port
from .common.club_broker import club_broker
from .common.seat import (
    GAME,
    lit,
    open_seat,
    person,
    play_on_seat,
    play_the_game,
    post,
    remote_board,
    state,
    turns_shown,
)
from .common.two_boards import Broker
from .common.wait import until

REMOTE_GAME = "seat-night"


def _seat(browser: Any, url: str, ws_broker: Broker, first: str = "") -> tuple[Any, Any]:
    """A seat across the internet for white, its link to the board's own page: the link
    made, and its page live (after the person's ``first`` turn, if any, shown on it)."""
    made = seat_link(f"{url}{PAGE}", ws_broker.ws_url(), REMOTE_GAME, Colour.WHITE)
    seat = open_seat(browser, made.link)
    if first:
        person(url, first)
        turns_shown(seat, 1)
    return made, seat


def test_a_whole_game_against_a_seat_over_the_broker_with_a_restart_and_a_reload(
    browser: Any, ws_broker: Broker, tmp_path: Path
) -> None:
    with remote_board(ws_broker.port, tmp_path, REMOTE_GAME) as url:
        made, seat = _seat(browser, url, ws_broker)
        assert seat.locator("#colour").get_attribute("data-colour") == "white"

        def meanwhile(number: int, token: str) -> bool:
            if number == 4:  # the broker restarts (forgetting every retained record)
                ws_broker.stop()
                seat.wait_for_selector('#link[data-link="reconnecting"]', timeout=WAIT_MS)
                ws_broker.start()
                seat.wait_for_selector('#link[data-link="live"]', timeout=WAIT_MS)
            if number == 6:  # the phone reloads: the same seat, the same position
                seat.reload()
                seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
                turns_shown(seat, number - 1)
            return False

        play_the_game(url, seat, meanwhile)
        # The seat's own record (what it publishes, kept in the page) is the same game.
        key = f"orbito-hw-seat:{REMOTE_GAME}:white:{made.seat}"
        kept = json.loads(seat.evaluate(f"localStorage.getItem({json.dumps(key)})"))
        assert (kept["first"], kept["turns"], kept["round"]) == ("black", GAME, 1)
        seat.close()


def test_a_second_seat_for_a_taken_colour_stays_out(
    browser: Any, ws_broker: Broker, tmp_path: Path
) -> None:
    with remote_board(ws_broker.port, tmp_path, REMOTE_GAME) as url:
        first, seat = _seat(browser, url, ws_broker, first="b1")
        second = seat_link(f"{url}{PAGE}", ws_broker.ws_url(), REMOTE_GAME, Colour.WHITE)
        other = browser.new_page(viewport=PHONE, locale="en-GB")
        other.goto(second.link)
        other.wait_for_selector('body[data-seat="taken"]', timeout=WAIT_MS)
        assert "Another player" in other.locator("#instruction").inner_text()
        # The first link, opened again (another tab), is the same seat: it plays on.
        again = open_seat(browser, first.link)
        turns_shown(again, 1)
        again.click('[data-square="c4"]')
        again.wait_for_selector('#instruction[data-waiting="c4"]', timeout=WAIT_MS)
        lit(url, "c4")
        for opened in (seat, other, again):
            opened.close()


def _record(board_id: str, colour: str, turns: list[str], takebacks: int = 0, round_: int = 1,
            first: str = "black") -> bytes:  # fmt: skip
    return json.dumps({
        "v": 1, "game": REMOTE_GAME, "round": round_, "board": board_id, "colour": colour,
        "first": first, "number": len(turns), "turns": turns, "takebacks": takebacks,
    }).encode()  # fmt: skip


def test_the_seat_follows_the_boards_take_backs_and_new_rounds_and_no_other_board(
    browser: Any, ws_broker: Broker
) -> None:
    """The board's side played by a bare MQTT client (paho), to say exactly what a board
    says: the page takes the board's record as its own where it is newer (a take-back, a new
    round), publishes it, and ignores a second board for the board's colour."""
    import paho.mqtt.client as paho
    from paho.mqtt.enums import CallbackAPIVersion

    heard: list[dict[str, Any]] = []  # the seat's records, as the broker delivers them
    client = paho.Client(CallbackAPIVersion.VERSION2)
    client.on_message = lambda _c, _u, m: heard.append(json.loads(m.payload))
    client.connect("127.0.0.1", ws_broker.port)
    client.subscribe(f"orbito-hw/{REMOTE_GAME}/white/record", qos=1)
    client.loop_start()
    try:

        def board_says(payload: bytes) -> None:
            topic = f"orbito-hw/{REMOTE_GAME}/black/record"
            client.publish(topic, payload, qos=1, retain=True).wait_for_publish(10)

        def seat_said(turns: list[str], **fields: int) -> None:
            until(
                lambda: any(
                    r["turns"] == turns and all(r[k] == v for k, v in fields.items()) for r in heard
                ),
                what=f"the seat's record {turns} {fields}",
            )

        board_says(_record("black-board", "black", ["b1"]))
        made = seat_link("http://127.0.0.1/none", ws_broker.ws_url(), REMOTE_GAME, Colour.WHITE)
        # The page from the board's folder, served by no board at all: file:// will do.
        page = Path(__file__).parents[1] / "orbito_hw" / "web" / "static" / "seat_remote.html"
        seat = open_seat(browser, page.as_uri() + "#" + made.link.split("#", 1)[1])
        turns_shown(seat, 1)
        seat_said(["b1"])
        seat.click('[data-square="c4"]')
        seat_said(["b1", "c4"])
        board_says(_record("black-board", "black", ["b1", "c4", "a1"]))
        turns_shown(seat, 3)
        board_says(_record("impostor", "black", ["b1", "c4", "a1", "d1"]))  # not the board
        board_says(_record("black-board", "black", ["b1"], takebacks=1))  # two taken back
        turns_shown(seat, 1)
        seat_said(["b1"], takebacks=1)
        # Said in order: had the page taken the impostor's record, it would have said it first.
        assert not any(len(r["turns"]) == 4 for r in heard)
        assert seat.locator("#turns [data-turn]").all()[0].get_attribute("data-turn") == "b1"
        board_says(_record("black-board", "black", [], round_=2, first="white"))  # a new game
        turns_shown(seat, 0)
        seat_said([], round=2)
        seat.wait_for_selector("#instruction:has-text('Your turn')", timeout=WAIT_MS)
        seat.close()
    finally:
        client.loop_stop()
        client.disconnect()


def test_on_a_clubs_broker_the_seat_plays_with_its_password_and_stops_without(
    browser: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """docs/broker.md's broker (its WebSockets plain here: the browser trusts no test
    authority); a board of the game with its user, the seat's page with the white player's
    user: the seat plays; a link with a wrong password stops at the broker's refusal."""
    broker, ca = club_broker(tmp_path, wss=False)
    broker.start()
    try:
        remote = f"mqtts://club-night.black:b-secret@127.0.0.1:{broker.port}/club-night"
        argv = ("--state-dir", str(tmp_path / "board"), "--remote", remote, "--plays", "black")
        monkeypatch.setenv("SSL_CERT_FILE", str(ca))  # the board trusts the club's authority
        with board(free_port(), *argv) as url:
            page = f"{url}{PAGE}"
            ws = f"ws://127.0.0.1:{broker.ws_port}/mqtt"
            wrong = seat_link(page, ws, "club-night", Colour.WHITE, "club-night.white", "guess")
            refused = browser.new_page(viewport=PHONE, locale="en-GB")
            refused.goto(wrong.link)
            refused.wait_for_selector('body[data-seat="revoked"]', timeout=WAIT_MS)
            made = seat_link(page, ws, "club-night", Colour.WHITE, "club-night.white", "w-secret")
            seat = open_seat(browser, made.link)
            person(url, "b1")
            turns_shown(seat, 1)
            seat.click('[data-square="c4"]')
            lit(url, "c4")
            refused.close()
            seat.close()
    finally:
        broker.stop()


def test_draws_offered_both_ways_over_the_broker(
    browser: Any, ws_broker: Broker, tmp_path: Path
) -> None:
    with remote_board(ws_broker.port, tmp_path, REMOTE_GAME) as url:
        _, seat = _seat(browser, url, ws_broker, first="b1")
        seat.click('[data-action="seat-draw"]')  # the phone offers; the board declines
        until(lambda: (state(url)["ask"] or {}).get("what") == "draw", what="the offer")
        post(url, "/api/answer", agree="no", reason="not yet")
        seat.wait_for_selector('#ask-state[data-ask="refused"]', timeout=WAIT_MS)
        assert "not yet" in seat.locator("#ask-state").inner_text()
        play_on_seat(url, seat, "b4")
        post(url, "/api/draw")  # the board offers; the phone accepts
        seat.wait_for_selector("#offer:not([hidden])", timeout=WAIT_MS)
        seat.click('[data-action="seat-accept"]')
        until(lambda: state(url)["turns"] == [] and state(url)["game"] == 2, what="drawn")
        seat.wait_for_selector('#ask-state[data-ask="agreed"]', timeout=WAIT_MS)
        turns_shown(seat, 0)  # the next round, on both sides
        seat.close()
