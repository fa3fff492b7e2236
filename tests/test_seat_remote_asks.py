"""Asks over a real broker (issue 37): a seat's client over WebSockets (what seat_remote.js
sends, here from Python) asks the board (RemoteMock) on a mosquitto of the test's own to take
back its last turn, which the person agrees to with a hold; the board offers a draw, which
the seat accepts; a forged acceptance from the board's own colour is refused and the game
goes on; and between two boards a draw offered on one is accepted on the other, both games
ending drawn."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import aiomqtt

from orbito_hw.control.events import Asked, GameOver, NewGame, RemoteStatus, TakenBack, TurnPlayed
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.rules.game import Colour

from .common import wait
from .common.two_boards import Broker, playing, scenario, told, until

GAME = "seat-asks"
SEAT = "seat-a1b2c3d4e5f6"


def _record(turns: list[str], takebacks: int = 0, round_: int = 1) -> bytes:
    return json.dumps({
        "v": 1, "game": GAME, "round": round_, "board": SEAT, "colour": "white", "first": "black",
        "number": len(turns), "turns": turns, "takebacks": takebacks, "kind": "seat",
    }).encode()  # fmt: skip


def _offer(ask: dict[str, object] | None = None, answer: dict[str, object] | None = None,
           board: str = SEAT, colour: str = "white") -> bytes:  # fmt: skip
    return json.dumps({"v": 1, "game": GAME, "round": 1, "board": board, "colour": colour,
                       "ask": ask, "answer": answer}).encode()  # fmt: skip


async def _until(what: Any, board: RemoteMock, text: str) -> None:
    await wait.until_async(what, 15, text, step=lambda: board.run.advance(0.02), poll=0.01)


async def _heard(seat: aiomqtt.Client, topic: str, check: Any) -> dict[str, Any]:
    """The next message on ``topic`` that ``check`` accepts (the board's, as the page reads)."""
    async with asyncio.timeout(15):
        async for message in seat.messages:
            if str(message.topic) == topic:
                said: dict[str, Any] = json.loads(bytes(message.payload))
                if check(said):
                    return said
    raise AssertionError("never heard")


def test_a_seat_asks_a_take_back_and_accepts_a_draw_over_the_broker(
    ws_broker: Broker, tmp_path: Path
) -> None:
    async def body() -> None:
        board = RemoteMock(ws_broker.url(GAME), Colour.BLACK, tmp_path, board_id="black-board",
                           retry=0.1)  # fmt: skip
        board.connect()
        try:
            await _until(lambda: told(board, RemoteStatus, state="connected"), board, "link")
            assert ws_broker.ws_port is not None
            seat_client = aiomqtt.Client(
                "127.0.0.1", ws_broker.ws_port, identifier="seat", transport="websockets",
                websocket_path="/mqtt",
            )  # fmt: skip
            async with seat_client as seat:
                await seat.subscribe(f"orbito-hw/{GAME}/black/+", qos=1)
                white = f"orbito-hw/{GAME}/white"
                await seat.publish(f"{white}/record", _record([]), qos=1, retain=True)
                await _until(lambda: board.game.kept.opponent == SEAT, board, "the seat")
                board.do("put b1")
                board.do("press")
                await seat.publish(f"{white}/record", _record(["b1", "b4"]), qos=1, retain=True)
                await _until(lambda: board.run.referee.board_turn is not None, board, "b4 lit")
                board.do("put b4")
                board.do("press")
                await _until(lambda: told(board, TurnPlayed, number=2), board, "b4 made")
                ask = {"id": 1, "what": "take-back", "number": 2}
                await seat.publish(f"{white}/offer", _offer(ask), qos=1, retain=True)
                await _until(lambda: told(board, Asked, colour=Colour.WHITE), board, "asked")
                # A forged acceptance in the board's own colour changes nothing.
                await seat.publish(f"orbito-hw/{GAME}/black/offer", _offer(answer={
                    "id": 1, "what": "take-back", "agreed": True}, board="evil",
                    colour="black"), qos=1)  # fmt: skip
                board.do("hold 2.5")  # the person agrees: the board's take-back gesture
                board.do("lift b4")
                await _until(lambda: told(board, TakenBack, number=2), board, "b4 taken back")
                answered = await _heard(seat, f"orbito-hw/{GAME}/black/offer",
                                        lambda o: o["board"] == "black-board")  # fmt: skip
                assert answered["answer"] == {"id": 1, "what": "take-back", "agreed": True,
                                              "reason": ""}  # fmt: skip
                record = await _heard(seat, f"orbito-hw/{GAME}/black/record",
                                      lambda r: r["takebacks"] == 1)  # fmt: skip
                assert record["turns"] == ["b1"]
                await seat.publish(f"{white}/record", _record(["b1"], 1), qos=1, retain=True)
                board.run.referee.ask("draw", Colour.BLACK)  # the page's Offer a draw
                offered = await _heard(seat, f"orbito-hw/{GAME}/black/offer",
                                       lambda o: o["ask"] is not None)  # fmt: skip
                assert offered["ask"] == {"id": 1, "what": "draw", "number": 1}
                answer = {"id": 1, "what": "draw", "agreed": True, "reason": ""}
                await seat.publish(f"{white}/offer", _offer(ask, answer), qos=1, retain=True)
                await _until(lambda: told(board, GameOver), board, "drawn")
                over = [e for e in board.events if isinstance(e, GameOver)][-1]
                assert (over.result.value, over.lines) == ("draw", ())
                assert told(board, NewGame, game=2) and board.game.kept.round == 2
        finally:
            await board.close()

    asyncio.run(asyncio.wait_for(body(), 60))


def test_between_two_boards_a_draw_offered_on_one_is_accepted_on_the_other(
    broker: Broker, tmp_path: Path
) -> None:
    async def body() -> None:
        async with playing(broker, tmp_path, "asks-two") as both:
            black, white = both[Colour.BLACK], both[Colour.WHITE]
            black.do("put b1")
            black.do("press")
            await until(lambda: white.run.referee.board_turn is not None, both)
            white.do("put b1")
            white.do("press")
            await until(lambda: all(told(b, TurnPlayed, number=1) for b in (black, white)), both)
            black.run.referee.ask("draw", Colour.BLACK)  # offered on black's board
            await until(lambda: told(white, Asked, colour=Colour.BLACK), both)
            assert white.run.referee.snapshot().ask is not None  # white's page shows it
            white.run.referee.answer(Colour.WHITE, True)  # accepted on white's
            await until(lambda: all(told(b, GameOver) for b in (black, white)), both)
            for board in (black, white):
                over = [e for e in board.events if isinstance(e, GameOver)][-1]
                assert (over.game, over.result.value) == (1, "draw")  # each keeps a draw
            await until(lambda: black.game.kept.round == white.game.kept.round == 2, both)

    scenario(body)
