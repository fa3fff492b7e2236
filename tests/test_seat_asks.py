"""A seat at home asks across the board (issue 37): a take-back asked from the seat's page and
agreed (or refused, with its reason) on the board's page behind the access code, then made
as any take-back, the LEDs guiding the undoing; a draw offered by the seat or by the person
at the board, accepted or declined by the other. Against the page's server on a simulated
board, in this process (aiohttp's test client). Hostile asks and answers (nothing to take
back, twice, after the game ended, the seat accepting its own offer, made-up values, a flood)
are refused with a reason and one line in the log, the game unharmed."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import Answered, GameOver, TakeBack, TakenBack
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.seat import BURST

from .common.seat import GAME, Board, open_board
from .common.wait import until_async


@pytest.fixture
def board(tmp_path: Path) -> Iterator[Board]:
    with open_board(asyncio.new_event_loop(), tmp_path) as made:
        yield made


async def _seated(board: Board, moves: list[str]) -> str:
    """A seat for white, opened, and ``moves`` played (white's through the seat): its path."""
    _, invited = await board.post("/api/seat/invite", colour="white")
    seat = f"/api/seat/{invited['token']}"
    assert (await board.get(seat))[0] == 200
    for number, token in enumerate(moves, start=1):
        if number % 2 == 0:
            status, _ = await board.post(f"{seat}/turn", number=str(number), turn=token)
            assert status == 200
        await board.person(token)
    return seat


async def _undo(board: Board, squares: list[str]) -> None:
    """The person undoes a turn as the LEDs ask: a click lifts each placed marble (the
    simulated hand waits for the rings to turn back first)."""
    before = len(board.turns)
    for square in squares:
        assert (await board.post(f"/api/square/{square}"))[0] == 200
    await until_async(lambda: len(board.turns) < before, what=f"{squares} undone")


def _told(board: Board, kind: type) -> list[Any]:
    return [e for e in board.events if isinstance(e, kind)]


def test_a_take_back_asked_on_the_seats_page_and_agreed_on_the_boards(board: Board) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        status, asked = await board.post(f"{seat}/ask", what="take-back")
        assert (status, asked["state"]) == (200, "asked")
        assert asked["ask"] == {"what": "take-back", "colour": "white", "number": 2}
        assert board.snapshot()["ask"] == asked["ask"]  # the board's page shows it
        assert (await board.get(seat))[1]["ask"] == asked["ask"]  # a reload sees it
        assert board.turns == ["b1", "b4"]  # nothing until the person agrees
        assert (await board.post("/api/answer", agree="yes"))[0] == 200
        await until_async(lambda: bool(_told(board, TakeBack)), what="the rings turn back")
        # The LEDs guide the undoing: the seat's marble, back on b4, blinks to come off.
        await until_async(lambda: "b4" in board.snapshot()["leds"], what="b4 lit to undo")
        await _undo(board, ["b4"])
        assert board.turns == ["b1"]
        state = (await board.get(seat))[1]
        assert (state["number"], state["to_move"], state["ask"]) == (2, "white", None)
        assert state["answer"] == {"what": "take-back", "colour": "white", "number": 2,
                                   "agreed": True, "reason": ""}  # fmt: skip
        status, again = await board.post(f"{seat}/turn", number="2", turn="d4")
        assert (status, again["state"]) == (200, "shown")  # the seat plays its turn again
        await board.person("d4")
        assert board.turns == ["b1", "d4"]

    board.do(game())


def test_an_ask_waiting_at_a_power_cut_is_on_the_pages_and_leds_again(board: Board) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        _, asked = await board.post(f"{seat}/ask", what="take-back")
        board.run.power_cut()  # the board boots again on its state directory
        board.server.feed.watch()
        await until_async(lambda: board.snapshot()["ask"] == asked["ask"], what="shown again")
        glows = board.snapshot()["glows"]
        assert [g["kind"] for g in glows.values()] == ["ask"]  # the seat's marble, pulsing
        # The person agrees on the board's page before the seat's page is back.
        assert (await board.post("/api/answer", agree="yes"))[0] == 200
        await until_async(lambda: bool(_told(board, TakeBack)), what="the rings turn back")
        await until_async(lambda: "b4" in board.snapshot()["leds"], what="b4 lit to undo")
        await _undo(board, ["b4"])
        state = (await board.get(seat))[1]  # the seat's page back: told, and to play again
        assert (state["turns"], state["to_move"], state["ask"]) == (["b1"], "white", None)
        assert state["answer"]["agreed"] is True and state["shown"] is None
        assert (await board.post(f"{seat}/turn", number="2", turn="d4"))[0] == 200

    board.do(game())


def test_on_the_seats_own_turn_the_persons_turn_goes_too(board: Board) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4", "c3"])
        await board.post(f"{seat}/ask", what="take-back")
        await board.post("/api/answer", agree="yes")
        await _undo(board, ["c3"])
        await _undo(board, ["b4"])
        assert board.turns == ["b1"]
        assert [e.number for e in _told(board, TakenBack)] == [3, 2]

    board.do(game())


def test_a_refusal_says_its_reason_on_the_seats_page(board: Board) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        await board.post(f"{seat}/ask", what="take-back")
        status, _ = await board.post("/api/answer", agree="no", reason="play on, grandpa")
        assert status == 200
        answer = (await board.get(seat))[1]["answer"]
        assert (answer["agreed"], answer["reason"]) == (False, "play on, grandpa")
        assert board.turns == ["b1", "b4"] and board.snapshot()["ask"] is None
        status, body = await board.post(f"{seat}/ask", what="take-back")
        assert status == 409 and "already" in body["error"]  # once a position
        await board.person("c3")
        assert (await board.post(f"{seat}/ask", what="take-back"))[0] == 200  # a new one

    board.do(game())


def test_a_draw_offered_by_the_seat_and_accepted_at_the_board(board: Board) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        status, asked = await board.post(f"{seat}/ask", what="draw")
        assert (status, asked["ask"]["what"]) == (200, "draw")
        status, agreed = await board.post("/api/draw")  # the board's Offer a draw: accepts
        assert (status, agreed["state"]) == (200, "agreed")
        over = _told(board, GameOver)[-1]
        assert (over.result.value, over.lines) == ("draw", ())
        await until_async(lambda: board.run.referee.opponent is None, what="the seat stood up")
        assert (await board.get(seat))[0] == 410  # its game is over: the link closes

    board.do(game())


def test_a_draw_offered_at_the_board_and_declined_then_accepted_by_the_seat(
    board: Board,
) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        status, offered = await board.post("/api/draw")
        assert (status, offered["state"]) == (200, "offered")
        ask = (await board.get(seat))[1]["ask"]
        assert ask == {"what": "draw", "colour": "black", "number": 2}
        status, answered = await board.post(f"{seat}/answer", agree="no")
        assert (status, answered["answer"]["agreed"]) == (200, False)
        assert not _told(board, GameOver)
        await board.person("c3")
        await board.post("/api/draw")
        status, answered = await board.post(f"{seat}/answer", agree="yes")
        assert status == 200 and _told(board, GameOver)[-1].result.value == "draw"

    board.do(game())


# --- hostile asks and answers ----------------------------------------------------------------
@pytest.mark.parametrize(
    ("moves", "path", "fields", "status", "why"),
    [
        ([], "ask", {"what": "take-back"}, 409, "no turn to take back"),
        (["b1"], "ask", {"what": "take-back"}, 409, "no turn to take back"),
        (GAME, "ask", {"what": "take-back"}, 409, "the game is over"),
        (GAME, "ask", {"what": "draw"}, 409, "the game is over"),
        (["b1", "b4"], "ask", {"what": "resign"}, 409, "is not one of"),
        (["b1", "b4"], "answer", {"agree": "yes"}, 409, "nothing is asked"),
        (["b1", "b4"], "answer", {"agree": "maybe"}, 400, "yes or no"),
    ],
)
def test_an_ask_or_answer_the_game_cannot_take_is_refused_with_one_line(
    board: Board,
    caplog: pytest.LogCaptureFixture,
    moves: list[str],
    path: str,
    fields: dict[str, str],
    status: int,
    why: str,
) -> None:
    async def game() -> None:
        seat = await _seated(board, moves)
        before = board.turns
        with caplog.at_level(logging.WARNING, logger="orbito_hw.web.seat"):
            got, body = await board.post(f"{seat}/{path}", **fields)
        assert got == status and why in body["error"]
        lines = [r for r in caplog.records if "seat: refused" in r.getMessage()]
        assert len(lines) == 1
        assert board.turns == before and board.snapshot()["ask"] is None

    board.do(game())


def test_a_second_ask_and_the_seat_accepting_its_own_offer_are_refused(board: Board) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        await board.post(f"{seat}/ask", what="draw")
        status, body = await board.post(f"{seat}/ask", what="take-back")
        assert status == 409 and "one ask at a time" in body["error"]
        status, body = await board.post(f"{seat}/answer", agree="yes")  # its own offer
        assert status == 409 and "black answers it" in body["error"]
        assert not _told(board, GameOver) and board.snapshot()["ask"]["what"] == "draw"
        assert board.run.referee.healthy

    board.do(game())


def test_a_flood_of_asks_is_cut_at_the_rate_and_logs_no_flood(
    board: Board, caplog: pytest.LogCaptureFixture
) -> None:
    async def game() -> None:
        seat = await _seated(board, ["b1", "b4"])
        assert (await board.post(f"{seat}/ask", what="take-back"))[0] == 200
        with caplog.at_level(logging.WARNING, logger="orbito_hw.web.seat"):
            statuses = [(await board.post(f"{seat}/ask", what="take-back"))[0]
                        for _ in range(BURST + 10)]  # fmt: skip
        assert set(statuses) == {409, 429} and statuses[-1] == 429
        assert len([r for r in caplog.records if "refused" in r.getMessage()]) <= 11
        assert len([e for e in board.events if type(e).__name__ == "Asked"]) == 1
        assert board.turns == ["b1", "b4"]

    board.do(game())


def test_the_boards_answer_needs_the_access_code(tmp_path: Path) -> None:
    from .common.page import serve

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        assert (await client.post("/api/answer", json={"agree": "yes"})).status == 403
        answer = await client.post("/api/answer", json={"agree": "yes", "code": "secret123"})
        assert answer.status == 409  # no player away: nothing asked
        assert "nothing asked" in (await answer.json())["error"]

    serve(test, code="secret123", state_dir=tmp_path)


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Board]:
    """One board for every example: b1 and the seat's b4 played, black (the person) to move."""
    with open_board(asyncio.new_event_loop(), tmp_path_factory.mktemp("asks")) as made:
        made.token = made.do(_seated(made, ["b1", "b4"])).rsplit("/", 1)[-1]
        yield made


REQUESTS = st.lists(
    st.tuples(
        st.sampled_from(["ask", "answer"]),
        st.sampled_from(["what", "agree", "number", ""]),
        st.one_of(st.sampled_from(["take-back", "draw", "yes", "no", ""]), st.text(max_size=12)),
    ),
    max_size=10,
)


@settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
@given(requests=REQUESTS)
def test_any_asks_and_answers_from_a_seat_leave_the_game_whole(
    hostile: Board, requests: list[tuple[str, str, str]]
) -> None:
    seats = hostile.server.seats
    seats.clock = lambda: 0.0  # a fixed clock: the examples' rate is not the point here
    seats._buckets.clear()

    async def example() -> None:
        for path, key, value in requests:
            response = await hostile.client.post(
                f"/api/seat/{hostile.token}/{path}", json={key: value} if key else {}
            )
            body = await response.json()
            assert response.status in (200, 400, 409, 429), body
            if response.status != 200:
                assert body["error"]
            elif path == "answer":  # only the person's offer is the seat's to answer
                raise AssertionError(f"answered with nothing asked of it: {body}")
        # The seat alone agrees nothing: the game stands, an ask at most waits.
        assert hostile.turns == ["b1", "b4"] and not _told(hostile, GameOver)
        assert not [e for e in _told(hostile, Answered) if e.agreed]
        assert hostile.run.referee.healthy
        if hostile.snapshot()["ask"] is not None:  # refused at the board, for the next
            assert (await hostile.post("/api/answer", agree="no"))[0] == 200

    hostile.do(example())
