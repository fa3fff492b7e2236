"""A seat at home (issue 37): a link plays one colour of the board's game from a page.

Against the page's server on a simulated board, in this process (aiohttp's test client):
the seat's turns are checked with the rules and shown on the LEDs for the person at the
board, counting only once made and pressed; hostile seats (forged, replayed, flooding,
revoked, unknown) are refused and the game is unharmed (hypothesis where the input is
data); the links survive a restart and ``orbito-hw seat`` keeps them.
"""

from __future__ import annotations

import asyncio
import json
import logging
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import BoardTurn
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.seat import BURST
from orbito_hw.web.seat_book import SeatBook

from .common.seat import GAME, Board, open_board
from .common.wait import until_async


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Board]:
    with open_board(asyncio.new_event_loop(), tmp_path) as made:
        yield made


def test_the_game_is_a_short_win_for_black() -> None:
    assert replay(Colour.BLACK, GAME).result is not None
    assert replay(Colour.BLACK, GAME).result.value == "black"  # type: ignore[union-attr]
    assert replay(Colour.BLACK, GAME[:-1]).result is None


def test_a_whole_game_with_a_seat_each_turn_shown_on_the_leds_before_it_counts(
    board: Board,
) -> None:
    async def game() -> None:
        status, invited = await board.post("/api/seat/invite", colour="white")
        assert status == 200 and invited["colour"] == "white"
        seat = f"/api/seat/{invited['token']}"
        status, state = await board.get(seat)
        assert (status, state["colour"], state["number"]) == (200, "white", 1)
        for number, token in enumerate(GAME, start=1):
            if number % 2:  # black: the person at the board
                await board.person(token)
                continue
            status, answer = await board.post(f"{seat}/turn", number=str(number), turn=token)
            assert (status, answer["state"]) == (200, "shown")
            # Shown, not played: the LEDs guide the person to it, as the board's own turns.
            told = [e for e in board.events if isinstance(e, BoardTurn)]
            assert told[-1].turn == Turn.from_notation(token) and told[-1].by == "remote"
            assert board.turns == GAME[: number - 1]
            assert token in board.snapshot()["leds"]
            assert (await board.get(seat))[1]["shown"] == token  # a reload sees it still
            await board.person(token)
            assert (await board.get(seat))[1]["shown"] is None  # made: nothing waits
        assert board.turns == GAME
        assert board.snapshot()["result"] == "black"
        assert replay(Colour.BLACK, board.turns).result == replay(Colour.BLACK, GAME).result

    board.do(game())


def test_the_person_may_not_play_the_seats_colour(board: Board) -> None:
    async def game() -> None:
        _, invited = await board.post("/api/seat/invite", colour="white")
        await board.get(f"/api/seat/{invited['token']}")  # opened: the seat sits
        await board.person("b1")
        await board.post("/api/square/b4")
        await board.post("/api/press")
        await until_async(lambda: board.snapshot()["instruction"] != "", what="a refusal")
        assert board.turns == ["b1"]  # white is the seat's: nothing counted

    board.do(game())


def test_a_replay_is_answered_as_played_and_a_forged_number_is_refused(board: Board) -> None:
    async def game() -> None:
        _, invited = await board.post("/api/seat/invite", colour="white")
        seat = f"/api/seat/{invited['token']}"
        await board.get(seat)
        await board.person("b1")
        assert (await board.post(f"{seat}/turn", number="2", turn="b4"))[1]["state"] == "shown"
        assert (await board.post(f"{seat}/turn", number="2", turn="b4"))[1]["state"] == "shown"
        status, refused = await board.post(f"{seat}/turn", number="2", turn="d4")
        assert status == 409 and "b4" in refused["error"]
        await board.person("b4")
        assert (await board.post(f"{seat}/turn", number="2", turn="b4"))[1]["state"] == "played"
        status, refused = await board.post(f"{seat}/turn", number="2", turn="d4")
        assert status == 409 and "turn 2 was b4" in refused["error"]
        assert board.turns == ["b1", "b4"]

    board.do(game())


# --- hostile seats ----------------------------------------------------------------------------
TOKENS = st.one_of(
    st.sampled_from(["a1", "b1", "d4", "*", "b1-b2:a1", "b1-c1:b1", "c1-c2:a2", "z9", ""]),
    st.text(max_size=30),
)
REQUESTS = st.lists(
    st.tuples(st.integers(min_value=-3, max_value=40).map(str) | st.text(max_size=5), TOKENS),
    max_size=12,
)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Board]:
    """One board for every example: black has played b1, the seat (white) is to move."""
    with open_board(asyncio.new_event_loop(), tmp_path_factory.mktemp("hostile")) as made:

        async def set_up() -> None:
            _, invited = await made.post("/api/seat/invite", colour="white")
            made.token = invited["token"]
            await made.get(f"/api/seat/{invited['token']}")
            await made.person("b1")

        made.do(set_up())
        yield made


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(requests=REQUESTS)
def test_forged_turns_are_refused_with_a_reason_and_the_game_is_unharmed(
    hostile: Board, requests: list[tuple[str, str]]
) -> None:
    token = hostile.token
    seats = hostile.server.seats
    seats.clock = lambda: 0.0  # a fixed clock: the examples' rate is not the point here
    seats._buckets.clear()
    position = replay(Colour.BLACK, ["b1"])

    async def example() -> None:
        for number, turn in requests:
            shown_before = seats.seat.shown(position) if seats.seat else None
            response = await hostile.client.post(
                f"/api/seat/{token}/turn", json={"number": number, "turn": turn}
            )
            body = await response.json()
            legal = _legal(position, turn)
            whole = number.isascii() and number.isdigit() and len(number) <= 3
            n = int(number) if whole else None
            if response.status == 200 and body["state"] == "played":  # a replay of turn 1
                assert (n, turn) == (1, "b1")
            elif response.status == 200:  # the next turn, legal, none shown or the same
                assert n == 2 and legal and body["state"] == "shown"
                assert shown_before in (None, Turn.from_notation(turn))
            else:
                assert response.status in (400, 409, 429), body
                assert body["error"]
        assert hostile.turns == ["b1"]  # nothing counts until made at the board
        assert hostile.run.referee.healthy

    hostile.do(example())


def _legal(position: Any, token: str) -> bool:
    try:
        return bool(position.is_legal(Turn.from_notation(token)))
    except ValueError:
        return False


def test_unknown_and_revoked_tokens_get_a_clear_refusal(board: Board) -> None:
    async def game() -> None:
        _, invited = await board.post("/api/seat/invite", colour="white")
        token = invited["token"]
        assert (await board.get(f"/seat/{token}"))[0] == 200
        assert (await board.get("/seat/not-a-token"))[0] == 404
        assert (await board.get("/api/seat/not-a-token"))[0] == 404
        status, revoked = await board.post("/api/seat/revoke", token=token[:8])
        assert (status, revoked["state"]) == (200, "revoked")
        assert (await board.get(f"/seat/{token}"))[0] == 410
        status, body = await board.get(f"/api/seat/{token}")
        assert status == 410 and "revoked" in body["error"]
        status, _ = await board.post(f"/api/seat/{token}/turn", number="1", turn="a1")
        assert status == 410
        assert board.run.referee.opponent is None  # the colour is the board's person's again
        await board.person("a1")  # and the game goes on

    board.do(game())


@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
@given(token=st.text(min_size=1, max_size=80).filter(lambda t: "/" not in t and t not in ".."))
def test_any_made_up_token_is_unknown_never_a_seat(hostile: Board, token: str) -> None:
    hostile.server.seats._buckets.clear()
    real = hostile.token

    async def example() -> None:
        from urllib.parse import quote

        response = await hostile.client.get(f"/api/seat/{quote(token, safe='')}")
        assert response.status == (200 if token == real else 404)
        assert hostile.turns == ["b1"]

    hostile.do(example())


def test_a_flood_is_cut_at_the_rate_and_the_seat_plays_on_after(board: Board) -> None:
    now = [0.0]
    board.server.seats.clock = lambda: now[0]

    async def game() -> None:
        _, invited = await board.post("/api/seat/invite", colour="white")
        seat = f"/api/seat/{invited['token']}"
        await board.person("b1")
        statuses = [(await board.client.get(seat)).status for _ in range(BURST + 30)]
        assert statuses.count(200) == BURST and set(statuses[BURST:]) == {429}
        now[0] += 2.0  # the bucket refills
        status, answer = await board.post(f"{seat}/turn", number="2", turn="b4")
        assert (status, answer["state"]) == (200, "shown")
        await board.person("b4")
        assert board.turns == ["b1", "b4"]

    board.do(game())


def test_the_refusals_log_one_line_each_and_no_flood(
    board: Board, caplog: pytest.LogCaptureFixture
) -> None:
    async def game() -> None:
        _, invited = await board.post("/api/seat/invite", colour="white")
        seat = f"/api/seat/{invited['token']}"
        with caplog.at_level(logging.WARNING, logger="orbito_hw.web.seat"):
            status, body = await board.post(f"{seat}/turn", number="1", turn="a1")
            assert status == 409 and "black" in body["error"]  # not its turn
            lines = [r for r in caplog.records if "refused" in r.getMessage()]
            assert len(lines) == 1 and "black's turn" in lines[0].getMessage()
            for _ in range(BURST):
                await board.post(f"{seat}/turn", number="1", turn="a1")
        assert len([r for r in caplog.records if "refused" in r.getMessage()]) <= 12

    board.do(game())


def test_a_new_game_closes_the_link_and_gives_the_colour_back(board: Board) -> None:
    async def game() -> None:
        _, invited = await board.post("/api/seat/invite", colour="white")
        seat = f"/api/seat/{invited['token']}"
        await board.get(seat)
        await board.person("b1")
        assert board.run.referee.opponent is not None
        assert (await board.post("/api/new-game", first="black"))[0] == 200
        await until_async(lambda: board.run.referee.opponent is None, what="the seat stood up")
        assert SeatBook(board.run.state_dir).read()[0].state() == "ended"
        status, body = await board.get(seat)
        assert status == 410 and "game 1" in body["error"]
        await board.person("a1")
        await board.person("b2")  # white is the person's again: two people at the board
        assert board.turns == ["a1", "b2"]
        # A link made and never opened ends with its game too: the seat is free again.
        assert (await board.post("/api/seat/invite", colour="black"))[0] == 200
        assert (await board.post("/api/new-game", first="white"))[0] == 200
        await until_async(lambda: SeatBook(board.run.state_dir).read()[-1].state() == "ended",
                          what="the unopened link ended")  # fmt: skip
        assert (await board.post("/api/seat/invite", colour="black"))[0] == 200

    board.do(game())


def test_a_second_seat_is_refused_while_one_is_live(board: Board) -> None:
    async def game() -> None:
        assert (await board.post("/api/seat/invite", colour="white"))[0] == 200
        status, body = await board.post("/api/seat/invite", colour="black")
        assert status == 409 and "white has a seat" in body["error"]
        assert (await board.post("/api/seat/invite", colour="white"))[0] == 409

    board.do(game())


def test_the_same_link_twice_is_the_same_seat_and_a_restart_keeps_it(tmp_path: Path) -> None:
    with open_board(asyncio.new_event_loop(), tmp_path) as first:

        async def play() -> str:
            _, invited = await first.post("/api/seat/invite", colour="white")
            seat = f"/api/seat/{invited['token']}"
            await first.get(seat)
            player = first.run.referee.opponent
            await first.get(seat)  # a second tab, a reload: the same seat
            assert first.run.referee.opponent is player
            await first.person("b1")
            return str(invited["token"])

        token = first.do(play())
    # The board restarts on the same state directory.
    with open_board(asyncio.new_event_loop(), tmp_path) as again:

        async def after() -> None:
            status, state = await again.get(f"/api/seat/{token}")
            assert (status, state["colour"], state["turns"]) == (200, "white", ["b1"])
            status, answer = await again.post(f"/api/seat/{token}/turn", number="2", turn="b4")
            assert (status, answer["state"]) == (200, "shown")

        again.do(after())


def test_a_link_from_the_command_line_is_for_the_game_on_the_board_when_opened(
    board: Board,
) -> None:
    async def game() -> None:
        await board.person("b1")
        made = SeatBook(board.run.state_dir).invite(Colour.WHITE)  # as `seat invite` does
        assert made.game is None
        status, state = await board.get(f"/api/seat/{made.token}")  # the running board reads it
        assert (status, state["colour"], state["number"]) == (200, "white", 2)
        assert SeatBook(board.run.state_dir).read()[0].game == 1
        status, answer = await board.post(f"/api/seat/{made.token}/turn", number="2", turn="b4")
        assert (status, answer["state"]) == (200, "shown")

    board.do(game())


def test_the_qr_code_is_an_svg_of_the_link(board: Board) -> None:
    async def game() -> None:
        _, invited = await board.post("/api/seat/invite")
        status, svg = await board.get(invited["qr"])
        assert status == 200 and svg.startswith(b"<svg") and b"<path" in svg

    board.do(game())


def test_invite_and_revoke_need_the_access_code(tmp_path: Path) -> None:
    from .common.page import serve

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        assert (await client.post("/api/seat/invite", json={})).status == 403
        answer = await client.post("/api/seat/invite", json={"code": "secret123"})
        assert answer.status == 200
        token = (await answer.json())["token"]
        assert (await client.post("/api/seat/revoke", json={"token": token})).status == 403

    serve(test, code="secret123", state_dir=tmp_path)


# --- the command line -------------------------------------------------------------------------
def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "orbito_hw", "seat", *argv],
                          capture_output=True, text=True, timeout=60)  # fmt: skip


def test_seat_invite_list_revoke_on_the_command_line(tmp_path: Path) -> None:
    where = ("--state-dir", str(tmp_path))
    made = _cli("invite", "--colour", "black", "--url", "http://board:8080", *where)
    assert made.returncode == 0, made.stderr
    assert "█" in made.stdout or "▀" in made.stdout  # the QR code, drawn in the terminal
    (seat,) = SeatBook(tmp_path).read()
    assert f"http://board:8080/seat/{seat.token}" in made.stdout
    assert SeatBook(tmp_path).path.stat().st_mode & 0o777 == 0o600  # its tokens are keys
    assert (seat.colour, seat.game, seat.live) == ("black", None, True)
    second = _cli("invite", *where)
    assert second.returncode == 2 and "black has a seat already" in second.stderr
    listed = _cli("list", "--json", *where)
    assert json.loads(listed.stdout)["state"] == "live"
    assert _cli("revoke", "nothing", *where).returncode == 2
    gone = _cli("revoke", seat.token[:8], *where)
    assert gone.returncode == 0, gone.stderr
    assert SeatBook(tmp_path).read()[0].state() == "revoked"
    assert _cli("invite", "--json", *where).returncode == 0  # a new one, now
