"""Asks over the broker (remote/offers.py, issue 37): a seat across the internet asks the board
to take back its last turn, or offers a draw; the board offers one. The board's side of the
game is the real one (RemoteMock: the simulated board, its referee and its RemoteGame), the
seat's messages handed to it as the broker would deliver them, what the board publishes
caught. Hostile offers (a forged acceptance from the wrong colour, another id, a replay, a
second ask, nothing to take back, the game over, any bytes) are refused, the game unharmed."""

from __future__ import annotations

import asyncio
import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import Answered, Asked, GameOver, NewGame, TakenBack
from orbito_hw.mock.remote import RemoteMock
from orbito_hw.remote.game import REFUSALS_TOLD
from orbito_hw.remote.offers import ASKS_TAKEN, MAX_ID, offer_topic
from orbito_hw.remote.protocol import BrokerUrl, Record
from orbito_hw.rules.game import Colour

from .common.seat import GAME as SHORT_GAME

GAME = "offers"
SEAT = "seat-0123456789ab"
BLACK, WHITE = Colour.BLACK, Colour.WHITE


class Away:
    """The black board (the person at it) and a seat playing white, through its messages."""

    def __init__(self, state: Path) -> None:
        self.board = RemoteMock(BrokerUrl("127.0.0.1", 1883, False, GAME), BLACK, state,
                                board_id="black-board")  # fmt: skip
        self.sent: list[tuple[str, bytes]] = []
        self.board.game.publish = lambda t, p, retained: self.sent.append((t, p))
        self.turns: list[str] = []
        self.takebacks = 0
        self.say_record()

    @property
    def referee(self) -> Any:
        return self.board.run.referee

    def say(self, kind: str, obj: dict[str, object], colour: str = "white") -> None:
        self.board.game.on_message(f"orbito-hw/{GAME}/{colour}/{kind}", json.dumps(obj).encode())
        self.board.run.advance(0.0)

    def say_record(self) -> None:
        record = Record(GAME, self.board.game.kept.round, SEAT, WHITE, BLACK, tuple(self.turns),
                        self.takebacks)  # fmt: skip
        self.say("record", {**json.loads(record.to_bytes()), "kind": "seat"})

    def offer(self, ask: dict[str, object] | None = None, answer: dict[str, object] | None = None,
              board: str = SEAT, colour: str = "white") -> None:  # fmt: skip
        self.say("offer", {"v": 1, "game": GAME, "round": self.board.game.kept.round,
                           "board": board, "colour": colour, "ask": ask,
                           "answer": answer}, colour)  # fmt: skip

    def play(self, *tokens: str) -> None:
        """Black's turns made by the person; white's said by the seat, then made at the board."""
        for token in tokens:
            if self.referee.position.to_move is WHITE:
                self.turns.append(token)
                self.say_record()
                assert self.referee.board_turn is not None, f"{token} not shown"
            self.board.do(f"put {token}")
            self.board.do("press")
            self.board.run.wait_for_rings()
            assert self.referee.saved.turns[-1:] == [token]
            self.turns = list(self.referee.saved.turns)

    def published(self, kind: str = "offer") -> list[dict[str, Any]]:
        return [json.loads(p) for t, p in self.sent if t == f"orbito-hw/{GAME}/black/{kind}"]

    def told(self, kind: type) -> list[Any]:
        return [e for e in self.board.events if isinstance(e, kind)]


@pytest.fixture
def away(tmp_path: Path) -> Iterator[Away]:
    made = Away(tmp_path)
    try:
        yield made
    finally:
        made.board.run.close()


def test_a_take_back_asked_over_the_broker_is_agreed_at_the_board(away: Away) -> None:
    away.play("b1", "b4")
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})
    assert away.told(Asked)[-1] == Asked(1, "take-back", WHITE, 2)
    away.board.do("hold 2.5")  # the person agrees by the board's own take-back gesture
    away.board.do("lift b4")  # as the LEDs ask, once the rings turned back
    away.board.run.advance(0.5)
    assert away.referee.saved.turns == ["b1"] and away.told(TakenBack)
    said = away.published()[-1]
    assert said["answer"] == {"id": 1, "what": "take-back", "agreed": True, "reason": ""}
    record = away.published("record")[-1]
    assert (record["turns"], record["takebacks"]) == (["b1"], 1)  # the seat follows it
    away.turns, away.takebacks = ["b1"], 1
    away.say_record()
    away.play("d4")  # the seat plays its turn again
    assert away.referee.saved.turns == ["b1", "d4"]


def test_an_agreed_take_back_cut_by_a_power_cut_is_still_counted_after_it(away: Away) -> None:
    away.play("b1", "b4")
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})
    away.referee.answer(BLACK, True)
    away.board.run.wait_for_rings()  # turned back: the undoing by hand is left
    asyncio.run(away.board.power_cut(back=False))
    away.board.game.publish = lambda t, p, retained: away.sent.append((t, p))
    away.board.do("lift b4")  # the undoing, finished after the restart
    away.board.run.advance(0.5)
    assert away.referee.saved.turns == ["b1"]
    record = away.published("record")[-1]
    assert (record["turns"], record["takebacks"]) == (["b1"], 1)  # the seat follows it
    assert not away.board.game.offers.kept.taking_back


def _cut(away: Away) -> None:
    """A power cut at the board: the controller and the remote game boot again on the same
    state directory (and the marbles stay where they are)."""
    asyncio.run(away.board.power_cut(back=False))
    away.board.game.publish = lambda t, p, retained: away.sent.append((t, p))
    away.board.run.advance(0.0)


def test_the_seats_ask_waiting_at_a_cut_waits_after_it_and_a_hold_agrees(away: Away) -> None:
    away.play("b1", "b4")
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})
    asked = away.referee.snapshot().ask
    _cut(away)
    assert away.referee.snapshot().ask == asked  # the board's page shows it again
    assert away.referee.view().ask is not None  # and the LEDs
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})  # the broker's, retained
    assert len(away.told(Asked)) == 1  # taken once
    away.board.do("hold 2.5")
    away.board.do("lift b4")
    away.board.run.advance(0.5)
    assert away.referee.saved.turns == ["b1"]
    assert away.published()[-1]["answer"] == {"id": 1, "what": "take-back", "agreed": True,
                                              "reason": ""}  # fmt: skip
    assert away.published("record")[-1]["takebacks"] == 1


def test_the_boards_draw_offer_waiting_at_a_cut_is_accepted_after_it(away: Away) -> None:
    away.play("b1", "b4")
    away.referee.ask("draw", BLACK)
    away.board.run.advance(0.0)
    _cut(away)
    assert away.referee.snapshot().ask is not None
    away.offer(answer={"id": 1, "what": "draw", "agreed": True, "reason": ""})
    assert away.told(GameOver)[-1].result.value == "draw"


def test_an_agreed_take_back_of_two_turns_cut_between_them_goes_on(away: Away) -> None:
    away.play("b1", "b4", "c3")
    away.offer(ask={"id": 1, "what": "take-back", "number": 3})
    away.referee.answer(BLACK, True)
    away.board.run.wait_for_rings()  # turned back for c3: the cut comes here
    _cut(away)
    away.board.do("lift c3")  # as the LEDs ask
    away.board.run.wait_for_rings()  # and the rings turn back again, for b4
    assert away.referee.view().mode == "undo"
    away.board.do("lift b4")
    away.board.run.advance(0.5)
    assert away.referee.saved.turns == ["b1"]
    assert [e.number for e in away.told(TakenBack)] == [3, 2]
    record = away.published("record")[-1]
    assert (record["turns"], record["takebacks"]) == (["b1"], 2)  # the seat follows both
    assert not away.board.game.offers.kept.taking_back


def test_a_refusal_goes_back_with_its_reason(away: Away) -> None:
    away.play("b1", "b4")
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})
    away.referee.answer(BLACK, False, "play on")
    away.board.run.advance(0.0)
    assert away.published()[-1]["answer"] == {"id": 1, "what": "take-back", "agreed": False,
                                              "reason": "play on"}  # fmt: skip
    assert away.referee.saved.turns == ["b1", "b4"]


def test_a_draw_offered_at_the_board_and_accepted_by_the_seat(away: Away) -> None:
    away.play("b1", "b4")
    away.referee.ask("draw", BLACK)
    away.board.run.advance(0.0)
    assert away.published()[-1]["ask"] == {"id": 1, "what": "draw", "number": 2}
    away.offer(answer={"id": 1, "what": "draw", "agreed": True, "reason": ""})
    over = away.told(GameOver)[-1]
    assert (over.result.value, over.lines) == ("draw", ())
    assert away.told(NewGame)[-1].game == 2
    assert away.published("record")[-1]["round"] == 2  # the seat follows to the next round
    assert away.published()[-1]["round"] == 1  # of the last round: read by nobody now
    assert away.board.game.offers.message() is None  # and said no more


def test_a_draw_offered_by_the_seat_and_accepted_at_the_board(away: Away) -> None:
    away.play("b1", "b4")
    away.offer(ask={"id": 1, "what": "draw", "number": 2})
    away.referee.answer(BLACK, True)
    away.board.run.advance(0.0)
    assert away.told(GameOver)[-1].result.value == "draw"
    answers = [o["answer"] for o in away.published() if o["answer"]]
    assert answers[0] == {"id": 1, "what": "draw", "agreed": True, "reason": ""}


# --- hostile offers -------------------------------------------------------------------------------
def test_a_forged_acceptance_from_the_wrong_colour_or_another_id_is_refused(
    away: Away, caplog: pytest.LogCaptureFixture
) -> None:
    away.play("b1", "b4")
    away.referee.ask("draw", BLACK)
    agreed = {"id": 1, "what": "draw", "agreed": True, "reason": ""}
    away.offer(answer=agreed, board="evil", colour="black")  # as the board's own colour
    away.offer(answer=agreed, board="seat-evil")  # white, but not the seat of the game
    away.offer(answer={**agreed, "id": 7})  # the seat, to an ask never made
    assert away.told(GameOver) == [] and away.referee.snapshot().ask is not None
    said = " ".join(r.getMessage() for r in caplog.records if "refused" in r.getMessage())
    assert "this board's colour" in said and "seat-evil" in said and "never made" in said
    away.offer(answer={**agreed, "agreed": False, "reason": "x" * 1000})
    assert away.told(Answered)[-1].reason.startswith("x") and not away.told(GameOver)
    assert len(away.told(Answered)[-1].reason) == 200  # cut short, with an ellipsis
    assert away.referee.healthy and away.referee.saved.turns == ["b1", "b4"]


@pytest.mark.parametrize(
    ("moves", "ask", "why"),
    [
        (["b1"], {"what": "take-back", "number": 1}, "no turn to take back"),
        (SHORT_GAME, {"what": "take-back", "number": 7}, "the game is over"),
        (SHORT_GAME, {"what": "draw", "number": 7}, "the game is over"),
        (["b1", "b4"], {"what": "take-back", "number": 5}, "asked after turn 5"),
    ],
)
def test_an_ask_the_game_cannot_take_is_answered_refused_with_the_reason(
    away: Away, moves: list[str], ask: dict[str, object], why: str
) -> None:
    away.play(*moves)
    away.offer(ask={"id": 1, **ask})
    answer = away.published()[-1]["answer"]
    assert answer["id"] == 1 and not answer["agreed"] and why in answer["reason"]
    assert away.told(Asked) == [] and away.referee.saved.turns == moves


def test_a_second_ask_and_a_replay_are_refused_or_ignored(away: Away) -> None:
    away.play("b1", "b4")
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})
    away.offer(ask={"id": 2, "what": "draw", "number": 2})
    answer = away.published()[-1]["answer"]
    assert (answer["id"], answer["agreed"]) == (2, False) and "one ask" in answer["reason"]
    away.referee.answer(BLACK, False, "no")
    away.board.run.advance(0.0)
    told = len(away.told(Asked))
    away.offer(ask={"id": 1, "what": "take-back", "number": 2})  # replayed: taken once
    away.offer(ask={"id": 2, "what": "draw", "number": 2})
    assert len(away.told(Asked)) == told == 1


def test_a_flood_of_asks_is_answered_a_bounded_number_of_times(
    away: Away, caplog: pytest.LogCaptureFixture
) -> None:
    away.play("b1", "b4")
    before = len(away.sent)
    for n in range(1, 60):
        away.offer(ask={"id": n, "what": "take-back", "number": 2})
    assert len(away.sent) - before <= ASKS_TAKEN  # answers published: bounded
    assert len(away.told(Asked)) == 1  # the first, waiting; the rest refused or dropped
    refused = [r for r in caplog.records if "refused" in r.getMessage()]
    assert len(refused) <= REFUSALS_TOLD + 1  # the refusals' log is throttled too
    assert away.referee.healthy and away.referee.saved.turns == ["b1", "b4"]


def test_what_was_said_and_heard_outlasts_a_restart(tmp_path: Path) -> None:
    first = Away(tmp_path)
    first.play("b1", "b4")
    first.offer(ask={"id": 1, "what": "take-back", "number": 2})
    first.referee.answer(BLACK, False, "no")
    first.board.run.advance(0.0)
    first.board.run.close()
    again = Away(tmp_path)  # the same state directory: the same board, restarted
    try:
        again.offer(ask={"id": 1, "what": "take-back", "number": 2})  # the broker's, kept
        assert again.told(Asked) == []  # taken before the restart: not asked again
        said = again.board.game.hello()
        assert any(t == offer_topic(GAME, BLACK) for t, _ in said)  # its answer said again
    finally:
        again.board.run.close()


JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=10),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=12,
)
FIELDS = ["v", "game", "round", "board", "colour", "ask", "answer", "id", "what", "number"]
PAYLOADS = st.one_of(
    st.binary(max_size=200),
    st.builds(lambda v: json.dumps(v).encode(), JSON),
    st.builds(
        lambda d: json.dumps({"v": 1, "game": GAME, "round": 1, "board": SEAT, **d}).encode(),
        st.dictionaries(st.sampled_from(FIELDS), JSON),
    ),
)


@settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
@given(messages=st.lists(st.tuples(st.sampled_from(["black", "white", "red"]), PAYLOADS),
                         max_size=8))  # fmt: skip
def test_any_offer_messages_leave_the_game_whole(messages: list[tuple[str, bytes]]) -> None:
    with tempfile.TemporaryDirectory() as state:
        away = Away(Path(state))
        try:
            away.play("b1", "b4")
            for colour, payload in messages:
                away.board.game.on_message(f"orbito-hw/{GAME}/{colour}/offer", payload)
                away.board.run.advance(0.0)
            assert away.referee.healthy and away.referee.saved.turns == ["b1", "b4"]
            assert not away.told(GameOver)
            away.referee.answer(BLACK, False)  # whatever was asked: refused
            away.board.run.advance(0.0)
            away.offer(ask={"id": MAX_ID, "what": "take-back", "number": 2})
            assert away.referee.snapshot().ask is not None  # the real ask is still taken
        finally:
            away.board.run.close()
