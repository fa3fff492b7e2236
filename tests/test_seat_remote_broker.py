"""A seat across the internet, as the broker carries it (issue 37): a seat's client is an
MQTT client over WebSockets speaking the remote protocol (what seat_remote.js sends, here
from Python), facing the real board's side of a remote game (RemoteMock) on a mosquitto of
the test's own. Hostile seats (a second seat for the taken colour, forged and replayed
records, a flood) are refused in the log and the game goes on; a club's broker (TLS, a
password file, an ACL giving each game's topics to its players: docs/broker.md) lets a board
and a seat in with their credentials over mqtts and wss, and keeps out a wrong password and
another game's player."""

from __future__ import annotations

import asyncio
import json
import logging
import ssl
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Literal

import aiomqtt
import pytest

from orbito_hw.control.events import BoardTurn, RemoteStatus, TurnPlayed
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.game import REFUSALS_TOLD
from orbito_hw.remote.link import Credentials
from orbito_hw.remote.protocol import BrokerUrl, parse_broker_url
from orbito_hw.rules.game import Colour

from .common import wait
from .common.club_broker import club_broker
from .common.two_boards import Broker

GAME = "seat-club"


def _record(seat: str, turns: list[str], takebacks: int = 0, game: str = GAME) -> bytes:
    """A seat's record as seat_remote.js writes it (``kind``: a field boards do not read)."""
    return json.dumps({
        "v": 1, "game": game, "round": 1, "board": seat, "colour": "white", "first": "black",
        "number": len(turns), "turns": turns, "takebacks": takebacks, "kind": "seat",
    }).encode()  # fmt: skip


@asynccontextmanager
async def _seat(
    port: int, ident: str, tls: ssl.SSLContext | None = None, **login: Any
) -> AsyncIterator[aiomqtt.Client]:
    """A seat's MQTT client over WebSockets, as the page's MQTT.js connects."""
    client = aiomqtt.Client("127.0.0.1", port, identifier=ident, transport="websockets",
                            websocket_path="/mqtt", tls_context=tls, **login)  # fmt: skip
    async with client:
        yield client


def _told(board: RemoteMock, kind: type, **fields: object) -> bool:
    return any(
        isinstance(e, kind) and all(getattr(e, k) == v for k, v in fields.items())
        for e in board.events
    )


async def _until(what: Any, board: RemoteMock, text: str) -> None:
    await wait.until_async(what, 15, text, step=lambda: board.run.advance(0.02), poll=0.01)


def _board(url: BrokerUrl, state: Path, credentials: Credentials | None = None) -> RemoteMock:
    board = RemoteMock(url, Colour.BLACK, state, board_id="black-board", retry=0.1,
                       credentials=credentials)  # fmt: skip
    board.connect()
    return board


async def _person(board: RemoteMock, square: str, number: int) -> None:
    board.do(f"put {square}")
    board.do("press")
    await _until(lambda: _told(board, TurnPlayed, number=number), board, f"turn {number}")


def test_hostile_seats_are_refused_and_the_game_goes_on(
    ws_broker: Broker, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async def body() -> None:
        board = _board(ws_broker.url(GAME), tmp_path)
        try:
            await _until(lambda: _told(board, RemoteStatus, state="connected"), board, "link")
            assert ws_broker.ws_port is not None
            async with _seat(ws_broker.ws_port, "good") as seat:
                await seat.publish(f"orbito-hw/{GAME}/white/record", _record("seat-good", []),
                                   qos=1, retain=True)  # fmt: skip
                await _until(lambda: board.game.opponent_online is not False
                             and board.game.last_record is not None, board, "the seat")  # fmt: skip
                await _person(board, "b1", 1)
                caplog.clear()
                async with _seat(ws_broker.ws_port, "evil") as evil:
                    topic = f"orbito-hw/{GAME}/white/record"
                    # A second seat for the taken colour, with a legal turn.
                    await evil.publish(topic, _record("seat-evil", ["b1", "a1"]), qos=1)
                    # Forged: the good seat's id with an illegal turn (the press took b1 to
                    # c1: c1 is taken).
                    await evil.publish(topic, _record("seat-good", ["b1", "c1"]), qos=1)
                    # Replayed: the good seat's first record again (behind: ignored).
                    await evil.publish(topic, _record("seat-good", []), qos=1)
                    for n in range(3 * REFUSALS_TOLD):  # a flood
                        await evil.publish(topic, _record(f"seat-{n}", ["b1", "d4"]), qos=0)
                # The good seat's real turn, after all of them: lit, made, counted.
                await seat.publish(
                    f"orbito-hw/{GAME}/white/record",
                    _record("seat-good", ["b1", "c4"]),
                    qos=1,
                    retain=True,
                )
                await _until(lambda: _told(board, BoardTurn, number=2), board, "the seat's turn")
                turn = board.run.referee.board_turn
                assert turn is not None and turn.notation() == "c4"  # not a1, b1 nor d4
                assert board.run.referee.saved.turns == ["b1"]  # nothing counted before made
                await _person(board, "c4", 2)
                assert board.run.referee.saved.turns == ["b1", "c4"]
            refused = [r for r in caplog.records if r.levelno >= logging.WARNING
                       and "refused" in r.getMessage()]  # fmt: skip
            said = " ".join(r.getMessage() for r in refused)
            assert "seat-evil" in said and "turn 2" in said  # the second seat, the forged turn
            assert len(refused) <= REFUSALS_TOLD + 1  # the flood is counted, not logged
        finally:
            await board.close()

    asyncio.run(asyncio.wait_for(body(), 60))


# --- a club's broker: TLS, a password file, an ACL (tests/common/club_broker.py) ------------
def test_a_clubs_broker_lets_its_players_in_over_tls_and_keeps_others_out(tmp_path: Path) -> None:
    broker, ca = club_broker(tmp_path)
    tls = ssl.create_default_context(cafile=str(ca))
    # The board's credentials in its URL (a command line with no config), the authority apart.
    url = parse_broker_url(f"mqtts://club-night.black:b-secret@127.0.0.1:{broker.port}/club-night")
    broker.start()

    async def body() -> None:
        board = _board(url, tmp_path / "board", Credentials(ca_file=ca))
        try:
            await _until(lambda: _told(board, RemoteStatus, state="connected"), board, "mqtts")
            assert broker.ws_port is not None
            # A wrong password, over mqtts and over wss: refused by the broker.
            ways: list[tuple[Literal["tcp", "websockets"], int]] = [
                ("tcp", broker.port),
                ("websockets", broker.ws_port),
            ]
            for transport, port in ways:
                with pytest.raises(aiomqtt.MqttError):
                    async with aiomqtt.Client(
                        "127.0.0.1",
                        port,
                        username="club-night.white",
                        password="guess",
                        tls_context=tls,
                        transport=transport,
                        websocket_path="/mqtt",
                    ):
                        pass
            # No certificate authority the broker's certificate is from: refused by TLS.
            with pytest.raises(aiomqtt.MqttError):
                async with aiomqtt.Client("127.0.0.1", broker.port, username="club-night.white",
                                          password="w-secret",
                                          tls_context=ssl.create_default_context()):  # fmt: skip
                    pass
            # Another game's player, let in, can neither read this game nor write into it.
            async with aiomqtt.Client("127.0.0.1", broker.port, username="other-game.black",
                                      password="o-secret", tls_context=tls) as other:  # fmt: skip
                await other.subscribe("orbito-hw/club-night/#", qos=1)
                forged = _record("intruder", ["a1"], game="club-night")
                await other.publish("orbito-hw/club-night/white/record", forged, qos=1,
                                    retain=True)  # fmt: skip
                await other.subscribe("orbito-hw/other-game/#", qos=1)
                await other.publish("orbito-hw/other-game/black/online", b"{}", qos=1)
                # Its own game's message comes back; nothing of club-night came before it
                # (the board's retained record would have, on the first subscription).
                first = await anext(other.messages)
                assert str(first.topic) == "orbito-hw/other-game/black/online"
            # The seat over wss with its credentials: the board hears it, not the intruder.
            async with _seat(broker.ws_port, "seat", tls, username="club-night.white",
                             password="w-secret") as seat:  # fmt: skip
                await seat.publish("orbito-hw/club-night/white/record",
                                   _record("seat-white", [], game="club-night"), qos=1,
                                   retain=True)  # fmt: skip
                await _until(lambda: board.game.kept.opponent is not None, board, "the seat")
                assert board.game.kept.opponent == "seat-white"  # not the intruder
        finally:
            await board.close()

    try:
        asyncio.run(asyncio.wait_for(body(), 60))
    finally:
        broker.stop()
