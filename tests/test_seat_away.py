"""A seat across the internet, at the board (issue 37): the board names it by its hello
("the player on the phone", not "white's board") on the page's line and in the log;
``seat list`` shows it (its game, colour, broker, whether its page is online as the board
heard it) and ``seat revoke`` withdraws it (the board refuses its messages from then on).
No broker is needed to deliver the seat's messages: the board's side of the remote game is
the real one (RemoteMock), handed the bytes the seat's page publishes (seat_remote.js)."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from orbito_hw.app.logs import EventLogger, describe
from orbito_hw.control.events import BoardTurn, RemoteStatus
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.protocol import BrokerUrl, parse_message, topic
from orbito_hw.remote.seat_link import AwaySeats
from orbito_hw.rules.game import Colour
from orbito_hw.rules.turn import Turn
from orbito_hw.web.instruction import Memory, instruction, read

from .common.cli import run as cli

GAME = "club-night"
BROKER = "wss://club.example.org:8081/mqtt"


def _said(seat: str, turns: list[str], kind: str | None = "seat") -> bytes:
    """The white side's record, as a seat's page writes it (``kind`` None: a board's)."""
    record = {"v": 1, "game": GAME, "round": 1, "board": seat, "colour": "white",
              "first": "black", "number": len(turns), "turns": turns, "takebacks": 0}  # fmt: skip
    return json.dumps(record if kind is None else {**record, "kind": kind}).encode()


def _hello(seat: str, online: bool, kind: str | None = "seat") -> bytes:
    presence: dict[str, object] = {"v": 1, "board": seat, "online": online}
    return json.dumps(presence if kind is None else {**presence, "kind": kind}).encode()


@pytest.fixture
def board(tmp_path: Path) -> Iterator[RemoteMock]:
    """The board at home, playing black in the remote game; white is away."""
    made = RemoteMock(BrokerUrl("127.0.0.1", 1883, False, GAME), Colour.BLACK, tmp_path,
                      board_id="black-board")  # fmt: skip
    made.game.set_connected(True)  # as after its hello: the link's events are told
    try:
        yield made
    finally:
        made.run.close()


def _line(board: RemoteMock) -> tuple[str, str]:
    """The page's instruction line now (phase, sentence), as web/feed.py reads it."""
    memory = Memory()
    for event in board.events:
        memory.hear(event)
    return instruction(read(board.run.referee.snapshot(), memory))


def _white_says(board: RemoteMock, kind: str, payload: bytes) -> None:
    board.game.on_message(topic(GAME, Colour.WHITE, kind), payload)  # type: ignore[arg-type]
    board.run.advance(0.2)


# --- the words -------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("kind", "line", "logged"),
    [
        ("seat", "The player on the phone plays b4: place a white marble on b4, then press",
         "the player on the phone plays white b4: make it on this board and press"),
        (None, "White's board plays b4: place a white marble on b4, then press",
         "white's board plays b4: make it on this board and press"),
    ],
)  # fmt: skip
def test_the_line_names_a_seat_by_its_hello_and_a_board_as_a_board(
    board: RemoteMock, kind: str | None, line: str, logged: str, caplog: pytest.LogCaptureFixture
) -> None:
    logger = logging.getLogger("test.seat_away")
    opponent = board.run.referee.opponent
    assert opponent is not None
    heard = EventLogger(logger, seated=opponent.seat)  # as app/run.py wires it
    board.do("put b1")
    board.do("press")
    board.run.wait_for_rings()
    _white_says(board, "online", _hello("seat-4f1c09a2b7e3", True, kind))
    with caplog.at_level(logging.INFO, logger="test.seat_away"):
        _white_says(board, "record", _said("seat-4f1c09a2b7e3", ["b1", "b4"], kind))
        (shown,) = [e for e in board.events if isinstance(e, BoardTurn)]
        heard(shown)
    assert board.run.referee.board_turn == Turn.from_notation("b4")
    assert _line(board) == ("board-turn", line)
    assert caplog.messages == [f"game 1 turn 2: {logged}"]


def test_the_wait_for_a_seat_says_when_its_page_is_offline(board: RemoteMock) -> None:
    board.do("put b1")
    board.do("press")
    board.run.wait_for_rings()
    _white_says(board, "online", _hello("seat-4f1c09a2b7e3", True))
    _white_says(board, "record", _said("seat-4f1c09a2b7e3", ["b1"]))
    waiting = ("waiting-remote", "Waiting for the player on the phone (white): choosing a turn")
    assert _line(board) == waiting
    _white_says(board, "online", _hello("seat-4f1c09a2b7e3", False))  # its last will
    assert board.events[-1] == RemoteStatus(1, "opponent-offline")
    assert _line(board)[1] == "Waiting for the player on the phone (white): their page is offline"


def test_the_log_line_of_a_seats_turn_is_in_the_boards_language() -> None:
    from orbito_hw.lang import speaking

    event = BoardTurn(3, 4, Colour.WHITE, Turn.from_notation("c1-c2:a2"), "remote")
    with speaking("fr"):
        french = describe(event, seat=True)[1]
    english = describe(event, seat=True)[1]
    assert "the player on the phone plays white" in english
    assert "the player on the phone" not in french and "c1-c2:a2" in french


def test_a_seats_hello_says_its_kind_and_a_boards_says_none() -> None:
    seat = parse_message(topic(GAME, Colour.WHITE, "record"), _said("seat-1", ["b1"]))
    plain = parse_message(topic(GAME, Colour.WHITE, "record"), _said("seat-1", ["b1"], None))
    odd = parse_message(topic(GAME, Colour.WHITE, "online"), _hello("x-1", True, "toaster"))
    assert seat == plain  # to the protocol a seat's record is a board's
    assert (seat.kind, plain.kind, getattr(odd, "kind", None)) == ("seat", "board", "board")


# --- seat list, seat revoke ------------------------------------------------------------------
def _invite(capsys: pytest.CaptureFixture[str], state: Path, *extra: str) -> dict[str, str]:
    status, out, err = cli(capsys, "seat", "invite", "--state-dir", str(state), "--broker",
                           BROKER, "--game", GAME, "--colour", "white", "--url",
                           "http://board:8080", "--json", *extra)  # fmt: skip
    assert status == 0, err
    made: dict[str, str] = json.loads(out)
    return made


def test_seat_list_shows_a_seat_across_the_internet_and_its_page_as_the_board_heard_it(
    board: RemoteMock, capsys: pytest.CaptureFixture[str]
) -> None:
    state = board.run.state_dir
    made = _invite(capsys, state, "--user", "club-night.white", "--password", "hunter2")
    seat = made["seat"]
    kept = state / "remote-seats.json"
    assert "hunter2" not in kept.read_text()  # never the password
    assert kept.stat().st_mode & 0o777 == 0o600  # the board's user's alone
    status, out, _err = cli(capsys, "seat", "list", "--state-dir", str(state))
    assert status == 0
    assert f"{seat}  white   remote game {GAME}" in out
    assert f"broker {BROKER} as club-night.white; its page not heard by this board yet" in out
    assert "orbito-hw seat revoke SEAT" in out
    _white_says(board, "online", _hello(seat, True))  # the page's hello, heard by the board
    status, out, _err = cli(capsys, "seat", "list", "--state-dir", str(state), "--json")
    (listed,) = [json.loads(line) for line in out.splitlines()]
    assert {k: listed[k] for k in ("seat", "colour", "game", "broker", "user", "state", "page",
                                   "where")} == {
        "seat": seat, "colour": "white", "game": GAME, "broker": BROKER,
        "user": "club-night.white", "state": "live", "page": "online", "where": "broker",
    }  # fmt: skip
    _white_says(board, "online", _hello(seat, False))  # its last will: the phone slept
    status, out, _err = cli(capsys, "seat", "list", "--state-dir", str(state))
    assert "its page offline (since " in out


def test_a_revoked_seat_across_the_internet_is_refused_at_the_board(
    board: RemoteMock, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    state = board.run.state_dir
    seat = _invite(capsys, state)["seat"]
    board.do("put b1")
    board.do("press")
    board.run.wait_for_rings()
    status, out, err = cli(capsys, "seat", "revoke", seat[:9], "--state-dir", str(state))
    assert status == 0, err
    assert "this board refuses its turns from now on" in out
    assert "asks it no password" in out  # no user: the broker cannot withdraw it, say so
    with caplog.at_level(logging.WARNING, logger="orbito_hw.remote.game"):
        _white_says(board, "record", _said(seat, ["b1", "b4"]))
    assert board.run.referee.board_turn is None  # its turn is not shown: refused
    assert any(f"seat {seat} was revoked at this board" in m for m in caplog.messages)
    (kept,) = AwaySeats(state).read()
    assert kept.state() == "revoked"
    status, out, _err = cli(capsys, "seat", "list", "--state-dir", str(state))
    assert f"{seat}  white   remote game {GAME}" in out and "revoked" in out
    assert "orbito-hw seat revoke SEAT" not in out  # nothing live to withdraw


def test_seat_revoke_names_what_it_cannot_find(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _invite(capsys, tmp_path)
    _invite(capsys, tmp_path)
    status, _out, err = cli(capsys, "seat", "revoke", "seat-", "--state-dir", str(tmp_path))
    assert status == 2 and "more than one seat starts with 'seat-'" in err
    status, _out, err = cli(capsys, "seat", "revoke", "nothing", "--state-dir", str(tmp_path))
    assert status == 2 and "no seat's link starts with" in err
