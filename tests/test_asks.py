"""Asks across the board (control/asks.py, issue 37): a seat asks to take back its last turn
and the person at the board agrees (the page's answer, or a hold of the button) or refuses;
a draw offered by either side, accepted or declined by the other. The whole controller on
the simulated board, the seat as control/seat.py plays it; hostile asks and answers (nothing
to take back, twice, after the game ended, the wrong colour answering) are refused with a
reason and the game is unharmed (hypothesis where the input is data)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.asks import REFUSED
from orbito_hw.control.events import Answered, Asked, GameOver, NewGame, TakeBack, TakenBack
from orbito_hw.control.seat import DECLINED, SeatRefusedError
from orbito_hw.sim.script import Command

from .common.asks import BLACK, WHITE, Table
from .common.seat import GAME


def test_a_take_back_asked_after_the_seats_turn_takes_that_turn_back_once_agreed(
    table: Table,
) -> None:
    table.play("b1", "b4")
    assert table.seat.ask(table.referee, "take-back") == "asked"
    assert table.events(Asked)[-1] == Asked(1, "take-back", WHITE, 2)
    asked = table.referee.snapshot().ask
    assert asked is not None and (asked.what, asked.colour, asked.number) == ("take-back", WHITE, 2)
    assert table.turns == ["b1", "b4"]  # nothing until the person at the board agrees
    assert table.referee.asks.answer_refusal(BLACK, True) == ""
    table.referee.answer(BLACK, True)
    table.run.advance(0.0)
    assert table.events(Answered)[-1] == Answered(1, "take-back", WHITE, True, "")
    assert [e.number for e in table.events(TakeBack)] == [2]
    table.undo(["b4"])  # the LEDs guide the undoing, as for any take-back
    assert table.turns == ["b1"]
    assert [e.number for e in table.events(TakenBack)] == [2]
    assert table.referee.position.to_move is WHITE  # the seat plays its turn again
    assert table.referee.snapshot().ask is None
    table.play("d4")
    assert table.turns == ["b1", "d4"]


def test_a_hold_agrees_and_takes_back_the_persons_turn_and_the_seats_before_it(
    table: Table,
) -> None:
    table.play("b1", "b4", "c3")  # the seat asks on its own turn: the person's c3 goes too
    table.seat.ask(table.referee, "take-back")
    table.run.run(Command("hold", seconds=2.5))  # the board's own take-back gesture agrees
    assert table.events(Answered)[-1].agreed
    table.undo(["c3", "b4"])
    assert table.turns == ["b1"]
    assert [e.number for e in table.events(TakenBack)] == [3, 2]
    assert table.referee.position.to_move is WHITE


def test_a_hold_with_no_ask_is_the_boards_own_take_back(table: Table) -> None:
    table.play("b1", "b4")
    table.run.run(Command("hold", seconds=2.5))
    table.undo(["b4", "b1"])  # against a player away, the person's own turn goes too
    assert table.turns == []
    assert table.events(Asked) == [] and table.events(Answered) == []


def test_a_refusal_carries_its_reason_and_stands_until_the_next_turn(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    table.referee.answer(BLACK, False, "no: play on")
    table.run.advance(0.0)
    assert table.events(Answered)[-1] == Answered(1, "take-back", WHITE, False, "no: play on")
    assert table.turns == ["b1", "b4"]
    with pytest.raises(SeatRefusedError, match="already"):
        table.seat.ask(table.referee, "take-back")
    table.play("c3")
    assert table.seat.ask(table.referee, "take-back") == "asked"  # a new position
    table.referee.answer(BLACK, False)
    assert table.events(Answered)[-1].reason == REFUSED


def test_the_person_playing_on_lapses_the_ask_and_says_so_after_the_turn(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    table.play("c3")  # no answer: the person played on
    table.run.advance(0.0)
    kinds = [type(e).__name__ for e in table.run.typed_events]
    assert kinds.index("Answered") > len(kinds) - 1 - kinds[::-1].index("TurnPlayed")
    answered = table.events(Answered)[-1]
    assert not answered.agreed and "turn 3 was played" in answered.reason
    assert table.referee.snapshot().ask is None


@pytest.mark.parametrize(
    ("moves", "what", "why"),
    [
        ([], "take-back", "no turn to take back"),
        (["b1"], "take-back", "no turn to take back"),
        (GAME, "take-back", "the game is over"),
        (GAME, "draw", "the game is over"),
        (["b1"], "resign", "is not one of"),
    ],
)
def test_an_ask_the_game_cannot_take_is_refused_with_a_reason(
    table: Table, moves: list[str], what: str, why: str
) -> None:
    table.play(*moves)
    before = table.referee.snapshot()
    with pytest.raises(SeatRefusedError, match=why):
        table.seat.ask(table.referee, what)
    assert table.turns == list(before.turns) and table.referee.snapshot().ask is None
    assert table.events(Asked) == []


def test_a_second_ask_while_one_waits_is_refused(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    for what in ("take-back", "draw"):
        with pytest.raises(SeatRefusedError, match="one ask at a time"):
            table.seat.ask(table.referee, what)
    assert len(table.events(Asked)) == 1


def test_a_take_back_may_not_be_asked_while_the_seats_turn_waits_at_the_board(
    table: Table,
) -> None:
    table.play("b1", "b4", "c3")
    table.seat.hand_in(table.referee, 4, "d4")
    with pytest.raises(SeatRefusedError, match="on the board's lights"):
        table.seat.ask(table.referee, "take-back")


def test_the_person_takes_back_with_a_hold_not_an_ask(table: Table) -> None:
    table.play("b1", "b4")
    assert "hold of the button" in table.referee.asks.refusal("take-back", BLACK)


def test_a_draw_offered_by_the_seat_and_accepted_ends_the_game_drawn(table: Table) -> None:
    table.play("b1", "b4")
    assert table.seat.ask(table.referee, "draw") == "asked"
    table.referee.answer(BLACK, True)
    table.run.advance(0.0)
    over = table.events(GameOver)[-1]
    assert (over.game, over.result.value, over.lines) == (1, "draw", ())
    assert table.events(NewGame)[-1].game == 2  # the next game, as an agreed draw at one board
    assert table.events(Answered)[-1] == Answered(1, "draw", WHITE, True, "")


def test_a_draw_offered_by_the_person_is_declined_or_accepted_by_the_seat(table: Table) -> None:
    table.play("b1", "b4")
    assert table.referee.asks.refusal("draw", BLACK) == ""
    table.referee.ask("draw", BLACK)
    table.seat.answer(table.referee, False)
    assert table.events(Answered)[-1] == Answered(1, "draw", BLACK, False, DECLINED)
    table.play("c3")
    table.referee.ask("draw", BLACK)
    assert table.seat.ask(table.referee, "draw") == "agreed"  # a draw offered against one
    table.run.advance(0.0)
    assert table.events(GameOver)[-1].result.value == "draw"


def test_an_answer_from_the_wrong_colour_is_refused_and_the_game_goes_on(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "draw")
    with pytest.raises(SeatRefusedError, match="asked by white: black answers it"):
        table.seat.answer(table.referee, True)  # its own offer, accepted by itself
    table.referee.answer(WHITE, True)  # the referee's own check: nothing happens
    table.run.advance(0.0)
    assert table.events(GameOver) == [] and table.events(Answered) == []
    assert table.referee.snapshot().ask is not None and table.referee.healthy
    table.referee.answer(BLACK, False, "no")  # declined at the board
    with pytest.raises(SeatRefusedError, match="nothing is asked"):
        table.seat.answer(table.referee, True)  # a late acceptance of nothing
    assert table.events(GameOver) == [] and table.turns == ["b1", "b4"]


def test_two_people_at_the_board_ask_nothing_across_it(table: Table) -> None:
    table.seat.leave(table.referee)
    assert "no player away" in table.referee.asks.refusal("draw", BLACK)


# --- hostile asks and answers, as data ---------------------------------------------------------
ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(["seat-ask", "seat-answer", "person-ask", "person-answer"]),
        st.sampled_from(["take-back", "draw", "resign", "", "take-back "]),
        st.booleans(),
    ),
    max_size=8,
)


@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
@given(moves=st.integers(min_value=0, max_value=len(GAME)), actions=ACTIONS)
def test_any_asks_and_answers_leave_the_game_whole(
    moves: int, actions: list[tuple[str, str, bool]]
) -> None:
    table = Table()
    try:
        table.play(*GAME[:moves])
        for who, what, agreed in actions:
            before = table.turns
            told = len(table.events(Answered))
            try:
                if who == "seat-ask":
                    table.seat.ask(table.referee, what)
                elif who == "seat-answer":
                    table.seat.answer(table.referee, agreed)
                elif who == "person-ask":  # the page's checks, then the referee's
                    why = table.referee.asks.refusal(what, BLACK)  # type: ignore[arg-type]
                    if not why and what in ("take-back", "draw"):
                        table.referee.ask(what, BLACK)  # type: ignore[arg-type]
                else:
                    table.referee.answer(BLACK, agreed, "no")
            except SeatRefusedError as exc:
                assert str(exc)  # a reason, never empty
            table.run.advance(0.0)
            assert table.referee.healthy
            agreed_now = [e for e in table.events(Answered)[told:] if e.agreed]
            if not agreed_now:  # the turns change only by an agreed ask
                assert table.turns == before
            pending = table.referee.snapshot().ask
            assert pending is None or pending.number == len(table.turns)
    finally:
        table.close()
