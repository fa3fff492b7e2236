"""Inviting a player from the button's menu (issue 37): with the board's page on, the
opponent menu's last item invites a player on a phone, for the colour the page's control
would choose; a hold takes it, the app makes the link (the control layer knows no page),
and the LEDs confirm it for a moment, or refuse it in red with the reason."""

from __future__ import annotations

import asyncio
import json
import logging
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient, TestServer

from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.control.events import OpponentChosen, Rejected
from orbito_hw.control.lights import Palette
from orbito_hw.control.menu import CHOICES, CORNERS, INVITED_S, Choice
from orbito_hw.control.settings import Settings
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_script
from orbito_hw.web.seat_book import BoardInvites, SeatBook
from orbito_hw.web.server import WebServer

P = Palette()
OPPONENTS = sum(1 for c in CHOICES if not c.seat)  # two people, then each level and colour


class Invites:
    """The app's side, as app/run.py wires it: the colours asked for; ``why`` refuses."""

    def __init__(self, why: str | None = None) -> None:
        self.asked: list[Colour] = []
        self.why = why

    def __call__(self, colour: Colour) -> str | None:
        self.asked.append(colour)
        return self.why


def _run(invites: Invites | None, script: str = "") -> MockRun:
    run = MockRun(settings=Settings(invite_seat=invites), seed=3)
    run.run_script(parse_script(f"{script}reset black\nhold 5.5\n"))
    return run


def _to_the_invitation(run: MockRun) -> None:
    """From the choice the menu opened on, presses to its last item."""
    while run.referee.menu is not None and not CHOICES[run.referee.menu].seat:
        run.run_script(parse_script("press\n"))


def test_the_menus_last_item_invites_a_player_and_the_leds_confirm_it() -> None:
    invites = Invites()
    run = _run(invites)
    try:
        assert run.referee.menu == 0  # opens on two people, as before
        run.run_script(parse_script("press\n" * (OPPONENTS - 1)))  # to random, black
        assert CHOICES[run.referee.menu or 0] == Choice("random", Colour.BLACK)
        run.run_script(parse_script("press\n"))
        assert CHOICES[run.referee.menu or 0] == Choice(colour=Colour.WHITE, seat=True)
        frame, status = run.lights_frame()
        assert [sq for sq, c in enumerate(frame) if c] == list(CORNERS)  # a1 d1 a4 d4
        assert {frame[sq] for sq in CORNERS} == {P.white} and status in (P.board, None)
        run.run_script(parse_script("hold 2.5\n"))
        assert invites.asked == [Colour.WHITE]  # nobody plays: white, as the page's control
        assert run.referee.menu is None and run.referee.opponent is None  # until it sits
        assert not any(isinstance(e, OpponentChosen) for e in run.typed_events)
        view = run.referee.view()
        assert view.mode == "menu" and view.menu == Choice(colour=Colour.WHITE, seat=True,
                                                           made=True)  # fmt: skip
        frame, status = run.lights_frame()
        lit = [sq for sq, c in enumerate(frame) if c]
        assert lit in ([], list(CORNERS)) and status in (P.white, None)  # blinking, in white
        run.run_script(parse_script(f"wait {INVITED_S + 0.5}\n"))
        assert run.referee.view().mode == "play"  # then the board as before: black to move
        assert run.lights_frame()[1] == P.black
        run.run_script(parse_script("hold 5.5\n"))
        run.run_script(parse_script("press\n" * OPPONENTS))
        assert CHOICES[run.referee.menu or 0].seat  # the invitation, offered again
        run.run_script(parse_script("press\n"))
        assert run.referee.menu == 0  # then two people: round
    finally:
        run.close()


def test_the_invitation_is_for_the_colour_the_board_plays() -> None:
    invites = Invites()
    run = _run(invites, "opponent 3 black\n")
    try:
        assert CHOICES[run.referee.menu or 0] == Choice("3", Colour.BLACK)  # who plays now
        _to_the_invitation(run)
        assert CHOICES[run.referee.menu or 0] == Choice(colour=Colour.BLACK, seat=True)
        run.run_script(parse_script("hold 2.5\n"))
        assert invites.asked == [Colour.BLACK]
        opponent = run.referee.opponent
        assert opponent is not None and opponent.player == "board:3"  # until the seat sits
    finally:
        run.close()


def test_a_refused_invitation_is_red_with_the_reason() -> None:
    invites = Invites("white has a seat already (link 2bEiH1...): revoke it first")
    run = _run(invites)
    try:
        _to_the_invitation(run)
        run.run_script(parse_script("hold 2.5\n"))
        refused = run.typed_events[-1]
        assert isinstance(refused, Rejected) and refused.squares == ()
        assert refused.reason == (
            "no seat's link for white: white has a seat already (link 2bEiH1...): revoke it first"
        )
        assert run.referee.view().mode == "refused" and run.lights_frame()[1] == P.error
    finally:
        run.close()


@pytest.mark.parametrize("script", ["", "opponent perfect white\n"])
def test_without_the_page_the_menu_offers_no_invitation(script: str) -> None:
    run = _run(None, script)
    try:
        start = run.referee.menu
        run.run_script(parse_script("press\n" * OPPONENTS))
        assert run.referee.menu == start  # round in as many presses as there are opponents
    finally:
        run.close()


# --- with the board's page: the link made, logged, shown -------------------------------------
def test_the_menus_invitation_is_a_link_in_the_log_and_on_the_page(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    loop = asyncio.new_event_loop()
    asyncio.set_event_loop(loop)
    invites = BoardInvites()  # as app/run.py and mock/worlds.py wire it
    run = MockRun(tmp_path, Settings(invite_seat=invites), seed=3)
    clock = RealTime(run, loop)
    server = WebServer(MockControls(run, clock), "secret123", ArchiveReads(run.state_dir))
    clients: list[TestClient[Any, Any]] = []

    async def menu_invites() -> None:
        run.run_script(parse_script("reset black\nhold 5.5\n"))
        _to_the_invitation(run)
        run.run_script(parse_script("hold 2.5\n"))

    async def body() -> None:
        client: TestClient[Any, Any] = TestClient(TestServer(server.app()))
        clients.append(client)
        invites.to = server.seats.invite_at_board
        await client.start_server()
        server.feed.watch()
        clock.wake()
        assert server.feed.snapshot()["invitation"] is None
        with caplog.at_level(logging.INFO, logger="orbito_hw.web.seat"):
            await menu_invites()
        (made,) = SeatBook(tmp_path).read()
        assert (made.colour, made.game, made.live) == ("white", 1, True)
        assert any(f"/seat/{made.token}" in m for m in caplog.messages)  # in the board's log
        snapshot = server.feed.snapshot()
        assert snapshot["invitation"] == {"colour": "white", "made": made.made, "waiting": None}
        assert made.token not in json.dumps(snapshot)  # the snapshot never says the key
        assert snapshot["instruction"].startswith("A player is invited to play white")
        # The page with the access code fetches the link and its QR code to show them.
        assert (await client.post("/api/seat/invitation", json={})).status == 403
        answer = await client.post("/api/seat/invitation", json={"code": "secret123"})
        shown = await answer.json()
        assert shown["token"] == made.token and shown["link"].endswith(f"/seat/{made.token}")
        assert (await client.get(shown["qr"])).status == 200
        # One seat at a time: the menu's second invitation is refused, in red, saying why.
        await menu_invites()
        refused = run.typed_events[-1]
        assert isinstance(refused, Rejected) and "white has a seat already" in refused.reason
        # The player opens it: the seat plays white; revoked, the page shows no link.
        assert (await client.get(f"/api/seat/{made.token}")).status == 200
        opponent = run.referee.opponent
        assert opponent is not None and opponent.colour is Colour.WHITE and opponent.seat()
        gone = await client.post("/api/seat/revoke", json={"token": made.token,
                                                            "code": "secret123"})  # fmt: skip
        assert gone.status == 200
        assert server.feed.snapshot()["invitation"] is None
        assert (await client.post("/api/seat/invitation", json={"code": "secret123"})).status == 404

    try:
        loop.run_until_complete(body())
    finally:
        for client in clients:
            loop.run_until_complete(client.close())
        server.feed.close()
        clock.stop()
        run.close()
        loop.close()
