"""Asks across the board outlast a power cut (issue 37): an ask waiting (either direction) is
journaled with the game, shown again after the restart (the snapshot the pages read, the
LEDs) and answered as before; one the game went past before the cut stays lapsed. An agreed
take-back of two turns cut anywhere goes on to the second after the restart, the LEDs
guiding its undoing, or just finishes when the board already shows the position after both.
The whole controller on the simulated board, killed and booted again on the same state
directory (the marbles staying where they are); the journal's new fields on real files
(hypothesis where the input is data)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import Answered, GameOver, TakeBack, TakenBack
from orbito_hw.control.journal import Journal, JournalError, Saved, SavedAsk
from orbito_hw.control.lights import Palette
from orbito_hw.control.referee import State
from orbito_hw.rules.game import replay
from orbito_hw.rules.squares import parse_square
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.script import Command

from .common.asks import BLACK, WHITE, Table
from .common.scripts import undo_commands

P = Palette()


def journal(table: Table) -> dict[str, object]:
    """The journal on disk, as JSON."""
    data: dict[str, object] = json.loads((table.run.state_dir / Journal.NAME).read_bytes())
    return data


def rewrite(table: Table, **fields: object) -> None:
    """The journal as a cut at another moment would have left it (the running controller,
    about to lose power, writes nothing more)."""
    data = {**journal(table), **fields}
    (table.run.state_dir / Journal.NAME).write_text(json.dumps(data))


def pulsing(table: Table) -> set[int]:
    """The squares lit while the ask's frame shows (checked to pulse, not to blink off)."""
    lit: set[int] = set()
    for _ in range(5):
        squares, status = table.run.lights_frame()
        assert status is not None  # a pulse never goes dark
        lit |= {sq for sq, c in enumerate(squares) if c is not None}
        table.run.advance(0.1)
    return lit


# --- an ask waiting, then a power cut ---------------------------------------------------------
def test_a_take_back_asked_before_a_cut_is_shown_again_and_a_hold_agrees(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    table.run.advance(0.0)
    asked, lit = table.referee.snapshot().ask, pulsing(table)
    assert journal(table)["ask"] == {"what": "take-back", "colour": "white", "number": 2,
                                     "away": "white"}  # fmt: skip
    table.power_cut()  # the seat's page has not come back yet
    assert table.referee.snapshot().ask == asked  # the pages show it again
    assert table.referee.view().ask is not None and pulsing(table) == lit  # and the LEDs
    table.run.run(Command("hold", seconds=2.5))  # agreed at the board, as before the cut
    assert table.events(Answered)[-1] == Answered(1, "take-back", WHITE, True, "")
    table.undo(["b4"])
    assert table.turns == ["b1"] and len(table.events(Answered)) == 1
    assert "ask" not in journal(table)
    table.seat.sit(table.referee)  # the seat's page back: it plays its turn again
    table.play("d4")
    assert table.turns == ["b1", "d4"]


def test_a_take_back_asked_before_a_cut_is_refused_on_the_page_after_it(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    table.power_cut(sit=True)  # the seat's page came back first
    assert table.referee.asks.away() is WHITE
    table.referee.answer(BLACK, False, "no")
    table.run.advance(0.0)
    assert table.events(Answered)[-1] == Answered(1, "take-back", WHITE, False, "no")
    assert table.referee.snapshot().ask is None and table.referee.view().ask is None
    assert "ask" not in journal(table)


@pytest.mark.parametrize("by", ["seat", "person"])
def test_a_draw_offered_before_a_cut_is_accepted_after_it(table: Table, by: str) -> None:
    table.play("b1", "b4")
    if by == "seat":
        table.seat.ask(table.referee, "draw")
    else:
        table.referee.ask("draw", BLACK)
    table.run.advance(0.0)
    table.power_cut(sit=by == "person")  # the seat answers from its page: it is back
    ask = table.referee.snapshot().ask
    assert ask is not None and (ask.what, ask.colour) == ("draw", WHITE if by == "seat" else BLACK)
    assert pulsing(table) == {0, 3, 12, 15}  # the four corners
    if by == "seat":
        table.referee.answer(BLACK, True)  # the board's page: Agree
    else:
        table.seat.answer(table.referee, True)
    table.run.advance(0.0)
    over = table.events(GameOver)[-1]
    assert (over.game, over.result.value) == (1, "draw")


def test_an_ask_the_game_went_past_before_the_cut_stays_lapsed(table: Table) -> None:
    table.play("b1", "b4")
    table.seat.ask(table.referee, "take-back")
    table.run.advance(0.0)
    kept = journal(table)["ask"]
    table.play("c3")  # played on: the ask lapsed
    told = len(table.events(Answered))
    rewrite(table, ask=kept)  # a cut after turn 3 was kept, before the lapse was
    table.power_cut(sit=True)
    table.run.advance(0.1)
    lapsed = table.events(Answered)[told:]
    assert len(lapsed) == 1 and not lapsed[0].agreed
    assert "the game went on: turn 3 was played" in lapsed[0].reason
    assert table.referee.snapshot().ask is None and table.referee.view().ask is None
    assert "ask" not in journal(table)
    table.run.run(Command("hold", seconds=2.5))  # a hold is the board's own take-back again
    assert table.events(Answered)[told:] == lapsed


# --- an agreed take-back of two turns, cut ----------------------------------------------------
def _agreed_steps() -> list[Command]:
    """The hold that agrees to the seat's ask (after b1 b4 c3), then the person undoing c3,
    then b4, as the LEDs ask."""
    steps = [Command("hold", seconds=2.5)]
    for token in ("c3", "b4"):
        steps += undo_commands(Turn.from_notation(token))
    return steps


def _finished(table: Table) -> None:
    table.run.wait_for_rings()
    table.run.advance(0.5)
    assert table.turns == ["b1"] and table.referee.state is State.WAITING
    assert [e.number for e in table.events(TakenBack)] == [3, 2]  # each once, cut or not
    assert table.run.physics.position_string() == replay(BLACK, ["b1"]).board()
    assert "undo_to" not in journal(table) and "ask" not in journal(table)
    assert table.referee.position.to_move is WHITE  # the seat plays its turn again


@pytest.mark.parametrize("cut", range(len(_agreed_steps()) + 1))
def test_an_agreed_take_back_of_two_turns_cut_anywhere_goes_on_to_the_second(
    table: Table, cut: int
) -> None:
    table.play("b1", "b4", "c3")
    table.seat.ask(table.referee, "take-back")
    steps = _agreed_steps()
    for number, step in enumerate(steps):
        if number == cut:
            table.power_cut()
        table.run.run(step)
        if number == len(steps) - 2:  # c3 undone: the LEDs guide the undoing of b4
            table.run.wait_for_rings()
            view = table.referee.view()
            b4 = parse_square("b4")
            assert view.mode == "undo" and view.guide is not None
            assert b4 in view.guide.squares(("take-off",))
            assert table.run.lights_frame()[0][b4] in (P.undo, None)  # blinking cyan
    if cut == len(steps):
        table.power_cut()
    _finished(table)


def test_a_cut_between_the_two_turns_takes_the_second_back_after_the_restart(
    table: Table,
) -> None:
    table.play("b1", "b4")
    # As an agreed take-back of c3 and b4 leaves the journal once c3 is gone and the rings
    # have not yet turned back for b4: the agreement, no take-back under way.
    rewrite(table, undo_to=1)
    table.power_cut()
    table.run.wait_for_rings()
    assert [e.number for e in table.events(TakeBack)] == [2]  # the rings turned back for b4
    view = table.referee.view()
    assert view.mode == "undo" and view.guide is not None
    assert view.guide.squares(("take-off",)) == (parse_square("b4"),)
    table.undo(["b4"])
    assert table.turns == ["b1"] and table.referee.state is State.WAITING
    assert "undo_to" not in journal(table)


def test_a_board_knocked_during_the_cut_is_put_right_then_the_take_back_goes_on(
    table: Table,
) -> None:
    table.play("b1", "b4")
    rewrite(table, undo_to=1)
    knocked = next(sq for sq in range(16) if table.referee.position.colour_at(sq) is BLACK)
    table.run.physics.lift(knocked)  # while the board was off: nothing read it
    table.power_cut()
    table.run.advance(0.5)
    assert table.referee.state is State.CORRECTION
    table.run.run(Command("put", square=knocked))
    table.run.wait_for_rings()
    assert [e.number for e in table.events(TakeBack)] == [2]
    table.undo(["b4"])
    assert table.turns == ["b1"] and "undo_to" not in journal(table)


@pytest.mark.parametrize("undone", [["c3", "b4"], ["c3"]])
def test_turns_undone_by_hand_while_the_board_was_off_count(
    table: Table, undone: list[str]
) -> None:
    """The person undid what the LEDs asked while the board was off: after the restart the
    sensors say so, and the take-back finishes (both turns undone) or goes on (one)."""
    table.play("b1", "b4", "c3")
    table.seat.ask(table.referee, "take-back")
    table.run.run(Command("hold", seconds=2.5))
    if undone == ["c3", "b4"]:
        table.undo(["c3"])  # the rings then turn back for b4
    table.run.wait_for_rings()
    for command in undo_commands(Turn.from_notation(undone[-1])):
        assert command.square is not None
        if command.name == "lift":
            table.run.physics.lift(command.square)  # unseen: the power is off
        else:
            table.run.physics.put_from_hand(command.square)
    table.power_cut()
    table.run.wait_for_rings()
    if undone == ["c3"]:  # the board goes on to b4
        assert table.turns == ["b1", "b4"] and table.referee.view().mode == "undo"
        table.undo(["b4"])
    _finished(table)


# --- the journal's fields, on real files ------------------------------------------------------
def test_the_ask_and_the_take_backs_end_load_back_as_saved(tmp_path: Path) -> None:
    saved = Saved(turns=["b1", "b4", "c3"], ask=SavedAsk("take-back", WHITE, 3, WHITE), undo_to=1)
    with Journal(tmp_path) as kept:
        kept.load()
        kept.save(saved)
        assert kept.load() == saved
    plain = Saved(turns=["b1"])
    assert set(plain.to_json()) == {"format", "game", "first", "turns", "pending", "touches",
                                    "announced"}  # fmt: skip


GOOD = {"format": 1, "game": 2, "first": "black", "turns": ["b1", "b4", "c3"], "pending": None,
        "touches": []}  # fmt: skip


@pytest.mark.parametrize(
    ("fields", "why"),
    [
        ({"ask": {"what": "resign", "colour": "white", "number": 3, "away": "white"}}, "ask"),
        ({"ask": {"what": "draw", "colour": "red", "number": 3, "away": "white"}}, "ask"),
        ({"ask": {"what": "draw", "colour": "white", "number": 6, "away": "white"}}, "number 6"),
        ({"ask": {"what": "draw", "colour": "white", "number": True, "away": "white"}}, "true"),
        ({"ask": "take-back"}, "ask"),
        ({"undo_to": 3}, "undo_to 3"),
        ({"undo_to": -1}, "undo_to -1"),
        ({"undo_to": 0, "base": 1}, "undo_to 0"),
        ({"undo_to": 1, "setting_up": True}, "a set-up with a turn or a take-back"),
    ],
)
def test_a_damaged_ask_or_take_backs_end_is_set_aside_and_the_turns_go_on(
    tmp_path: Path, fields: dict[str, object], why: str
) -> None:
    (tmp_path / Journal.NAME).write_text(json.dumps({**GOOD, **fields}))
    with Journal(tmp_path) as kept, pytest.raises(JournalError) as caught:
        kept.load()
    assert why in str(caught.value)
    assert caught.value.recovered is not None and caught.value.recovered.turns == GOOD["turns"]
    assert caught.value.recovered.ask is None and caught.value.recovered.undo_to is None


VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 8) | st.sampled_from(
        ["take-back", "draw", "white", "black", "red", ""]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["what", "colour", "number", "away", "x"]), inner, max_size=5),
    max_leaves=8,
)  # fmt: skip


ASKS = st.fixed_dictionaries({"what": st.sampled_from(["take-back", "draw", "resign"]),
                              "colour": st.sampled_from(["white", "black", "red"]),
                              "number": st.integers(-1, 6),
                              "away": st.sampled_from(["white", "black"])})  # fmt: skip


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(ask=st.one_of(st.none(), ASKS, VALUES), undo_to=st.one_of(st.none(), VALUES))
def test_any_ask_or_take_backs_end_loads_whole_or_goes_aside_keeping_the_turns(
    ask: object, undo_to: object
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        state = Path(tmp)
        raw = json.dumps({**GOOD, "ask": ask, "undo_to": undo_to})
        (state / Journal.NAME).write_text(raw)
        with Journal(state) as kept:
            try:
                saved = kept.load()
            except JournalError as exc:
                assert exc.recovered is not None and exc.recovered.turns == GOOD["turns"]
                return
        assert saved is not None and saved.turns == GOOD["turns"]
        if saved.ask is not None:
            assert saved.ask.what in ("take-back", "draw") and 0 <= saved.ask.number <= 5
        assert saved.undo_to is None or 0 <= saved.undo_to < 3
        assert Saved.from_json(json.loads(json.dumps(saved.to_json()))) == saved


def test_a_restart_on_a_journal_with_an_ask_and_no_player_away_never_fails(
    table: Table,
) -> None:
    """An ask in the journal of a game whose seat never comes back: shown, answerable at
    the board, and lapsed by the game going on, as any ask."""
    table.play("b1", "b4")
    table.seat.leave(table.referee)  # two people at the board from now on
    rewrite(table, ask={"what": "draw", "colour": "white", "number": 2, "away": "white"})
    table.power_cut()
    assert table.referee.snapshot().ask is not None and table.referee.healthy
    table.play("c3")  # the person plays on (for both colours now)
    table.run.advance(0.0)
    assert "turn 3 was played" in table.events(Answered)[-1].reason
    assert table.referee.snapshot().ask is None and table.referee.healthy
