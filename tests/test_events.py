"""The referee's events as values: SPEC.md's JSON, key order included, and back."""

from __future__ import annotations

import json
import random
import typing

import pytest
from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.control.events import (
    Answered,
    Asked,
    BlunderWarning,
    BoardTurn,
    Corrected,
    Correction,
    Discard,
    Event,
    Fault,
    FirstChosen,
    GameOver,
    Hint,
    NewGame,
    OpponentChosen,
    PuzzleDone,
    Rejected,
    RemoteStatus,
    SetupAsked,
    SetupDone,
    TakeBack,
    TakenBack,
    TurnPlayed,
    from_json,
    result_leds,
)
from orbito_hw.control.lights import Palette
from orbito_hw.rules.game import Colour, Position, Result, replay
from orbito_hw.rules.squares import LINES, SQUARES, parse_square, squares_of
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun

from .common.scripts import game_script


def sq(*names: str) -> tuple[int, ...]:
    return tuple(parse_square(n) for n in names)


A1_D4 = LINES[[sorted(squares_of(line)) for line in LINES].index([0, 5, 10, 15])]

# Each kind as the referee builds it, and its line of ``run --mock --events`` byte for byte.
WIRE: list[tuple[Event, str]] = [
    (
        TurnPlayed(1, 2, Colour.BLACK, Turn.from_notation("c1-c2:a2"), "..../..W./..../B..."),
        '{"event": "turn", "game": 1, "number": 2, "colour": "black", "turn": "c1-c2:a2", '
        '"board": "..../..W./..../B..."}',
    ),
    (
        TurnPlayed(3, 17, Colour.WHITE, Turn(None), "BBWW/WWBB/BBWW/WWBB"),
        '{"event": "turn", "game": 3, "number": 17, "colour": "white", "turn": "*", '
        '"board": "BBWW/WWBB/BBWW/WWBB"}',
    ),
    (
        Rejected(1, "c1-c3 is not a step", sq("c1", "c3")),
        '{"event": "rejected", "game": 1, "reason": "c1-c3 is not a step", '
        '"squares": ["c1", "c3"]}',
    ),
    (
        Rejected(2, "place one", ()),
        '{"event": "rejected", "game": 2, "reason": "place one", "squares": []}',
    ),
    (
        Correction(2, sq("b2", "d4")),
        '{"event": "correction", "game": 2, "squares": ["b2", "d4"]}',
    ),
    (Corrected(2), '{"event": "corrected", "game": 2}'),
    (
        GameOver.of(1, Result.BLACK, (A1_D4,), Palette()),
        '{"event": "result", "game": 1, "result": "black", '
        '"lines": [["a1", "b2", "c3", "d4"]], '
        '"leds": {"a1": "#005aff", "b2": "#005aff", "c3": "#005aff", "d4": "#005aff"}}',
    ),
    (NewGame(4, Colour.WHITE), '{"event": "new-game", "game": 4, "first": "white"}'),
    (
        SetupAsked(3, ((0, Colour.BLACK), (10, Colour.WHITE)), Colour.WHITE),
        '{"event": "setup", "game": 3, "squares": {"a1": "black", "c3": "white"}, '
        '"to_move": "white"}',
    ),
    (
        SetupDone(3, "..../..W./..../B...", Colour.WHITE, 3),
        '{"event": "setup-done", "game": 3, "board": "..../..W./..../B...", "to_move": "white", '
        '"number": 3}',
    ),
    (
        PuzzleDone(3, "3WBAFZ15ZCZ7", True, 3),
        '{"event": "puzzle", "game": 3, "id": "3WBAFZ15ZCZ7", "solved": true, "plies": 3}',
    ),
    (Discard(2, "asked", 3), '{"event": "discard", "game": 2, "state": "asked", "number": 3}'),
    (
        Discard(2, "cancelled", 3, "press"),
        '{"event": "discard", "game": 2, "state": "cancelled", "number": 3, "reason": "press"}',
    ),
    (FirstChosen(1, Colour.WHITE), '{"event": "first", "game": 1, "colour": "white"}'),
    (
        BoardTurn(1, 3, Colour.WHITE, Turn.from_notation("b2-b3:c2")),
        '{"event": "board-turn", "game": 1, "number": 3, "colour": "white", "turn": "b2-b3:c2", '
        '"by": "board"}',
    ),
    (
        Hint(2, Colour.BLACK, Turn.from_notation("a2"), "win"),
        '{"event": "hint", "game": 2, "colour": "black", "turn": "a2", "value": "win"}',
    ),
    (
        BlunderWarning(2, Turn.from_notation("d1"), "loss"),
        '{"event": "warning", "game": 2, "turn": "d1", "value": "loss"}',
    ),
    (
        TakeBack(1, 4, Turn.from_notation("c1-c2:a2")),
        '{"event": "takeback", "game": 1, "number": 4, "turn": "c1-c2:a2"}',
    ),
    (
        TakenBack(1, 4, "..../..W./..../B...", Colour.WHITE),
        '{"event": "taken-back", "game": 1, "number": 4, "board": "..../..W./..../B...", '
        '"to_move": "white"}',
    ),
    (
        Asked(1, "take-back", Colour.WHITE, 4),
        '{"event": "ask", "game": 1, "what": "take-back", "colour": "white", "number": 4}',
    ),
    (
        Answered(1, "draw", Colour.BLACK, False, "declined by the player away"),
        '{"event": "answer", "game": 1, "what": "draw", "colour": "black", "agreed": false, '
        '"reason": "declined by the player away"}',
    ),
    (
        OpponentChosen(2, "board:5", Colour.WHITE),
        '{"event": "opponent", "game": 2, "player": "board:5", "colour": "white"}',
    ),
    (
        OpponentChosen(2, "person"),
        '{"event": "opponent", "game": 2, "player": "person", "colour": null}',
    ),
    (Fault(1, "homing timed out"), '{"event": "fault", "game": 1, "reason": "homing timed out"}'),
    (Fault(None, "no journal"), '{"event": "fault", "reason": "no journal"}'),
    (
        RemoteStatus(3, "opponent-offline"),
        '{"event": "remote", "game": 3, "state": "opponent-offline"}',
    ),
]


@pytest.mark.parametrize(("event", "line"), WIRE, ids=[type(e).__name__ for e, _ in WIRE])
def test_each_event_writes_spec_json_in_spec_order(event: Event, line: str) -> None:
    assert json.dumps(event.to_json()) == line
    assert from_json(json.loads(line)) == event


def test_every_kind_the_referee_emits_has_a_wire_line() -> None:
    kinds = {type(event) for event, _ in WIRE}
    assert kinds == set(typing.get_args(Event))  # a new kind needs its line here


# --- the result's LEDs: from the palette and the lines, nothing drawn -------------------


def test_a_win_lights_its_lines_in_the_winners_colour() -> None:
    palette = Palette(white=(1, 2, 3))
    two = (LINES[0], LINES[4])  # a rank and a file: they share a square
    lit = result_leds(Result.WHITE, two, palette)
    assert set(lit) == set(squares_of(two[0] | two[1])) and len(lit) == 7
    assert set(lit.values()) == {(1, 2, 3)}


def test_a_draw_lights_the_whole_board_in_the_draw_colour() -> None:
    palette = Palette(draw=(9, 8, 7))
    assert result_leds(Result.DRAW, (LINES[0], LINES[1]), palette) == dict.fromkeys(
        SQUARES, (9, 8, 7)
    )
    event = GameOver.of(5, Result.DRAW, (LINES[0], LINES[1]), palette)
    leds = event.to_json()["leds"]
    assert isinstance(leds, dict) and len(leds) == 16 and set(leds.values()) == {"#090807"}


def test_a_real_game_emits_typed_events_and_the_result_its_lines_leds() -> None:
    moves = (
        "a3 a2-a1:c4 b4-b3:b2 c1-b1:b3 b2-b3:a1 d1-c1:a4 c2-d2:b4 c2-c3:b4 b2 c2-c1:a4 "
        "b3-c3:b2 b1-b2:d4 c4-d4:a2"
    )
    final = replay(Colour.BLACK, moves)
    turns = [Turn.from_notation(t) for t in moves.split()]
    run = MockRun()
    try:
        run.run_script(game_script(Colour.BLACK, turns, random.Random(0)))
        played = [e for e in run.typed_events if isinstance(e, TurnPlayed)]
        assert [e.turn for e in played] == turns
        assert [e.number for e in played] == list(range(1, len(turns) + 1))
        assert played[-1].board == final.board() and played[0].colour is Colour.BLACK
        (over,) = [e for e in run.typed_events if isinstance(e, GameOver)]
        assert over.result is Result.BLACK and set(over.lines) == set(final.lines())
        assert dict(over.leds) == result_leds(Result.BLACK, over.lines, run.settings.palette)
        assert run.events == [e.to_json() for e in run.typed_events]
    finally:
        run.close()


# --- reading JSON back --------------------------------------------------------------------

colours = st.sampled_from(list(Colour))
games = st.integers(1, 10_000)
square_sets = st.lists(st.sampled_from(SQUARES), unique=True, max_size=16).map(
    lambda s: tuple(sorted(s))
)
text = st.text(min_size=1, max_size=40)


@st.composite
def turns(draw: st.DrawFn) -> Turn:
    position = Position.start(draw(colours))
    for _ in range(draw(st.integers(0, 6))):
        position = position.play(draw(st.sampled_from(list(position.legal_turns()))))
        if position.is_over:
            break
    if position.is_over:
        return Turn(0)
    return draw(st.sampled_from(list(position.legal_turns())))


@st.composite
def game_overs(draw: st.DrawFn) -> GameOver:
    result = draw(st.sampled_from(list(Result)))
    lines = tuple(draw(st.lists(st.sampled_from(LINES), unique=True, max_size=3)))
    rgb = st.tuples(*[st.integers(0, 255)] * 3)
    palette = Palette(black=draw(rgb), white=draw(rgb), draw=draw(rgb))
    return GameOver.of(draw(games), result, lines, palette)


events = st.one_of(
    st.builds(
        TurnPlayed, games, st.integers(1, 200), colours, turns(), st.just("..../..../..../....")
    ),
    st.builds(Rejected, games, text, square_sets),
    st.builds(Correction, games, square_sets),
    st.builds(Corrected, games),
    game_overs(),
    st.builds(NewGame, games, colours),
    st.builds(FirstChosen, games, colours),
    st.builds(BoardTurn, games, st.integers(1, 200), colours, turns(), st.just("remote")),
    st.builds(Hint, games, colours, turns(), st.sampled_from(["win", "draw", "loss"])),
    st.builds(BlunderWarning, games, turns(), st.sampled_from(["draw", "loss"])),
    st.builds(TakeBack, games, st.integers(1, 200), turns()),
    st.builds(OpponentChosen, games, st.sampled_from(["person", "board:3"]), st.none() | colours),
    st.builds(TakenBack, games, st.integers(1, 200), st.just("..../..../..../B..."), colours),
    st.builds(Fault, st.none() | games, text),
)


@given(events)
def test_json_reads_back_as_the_same_event(event: Event) -> None:
    wire = json.dumps(event.to_json())
    back = json.loads(wire)
    assert list(back)[:2] == ["event", "game"] or isinstance(event, Fault)
    assert from_json(back) == event


def test_unknown_kinds_read_as_none_and_missing_or_bad_fields_are_named() -> None:
    assert from_json({"event": "ring-song", "game": 1, "turn": "a2"}) is None
    assert from_json({}) is None
    with pytest.raises(KeyError, match="number"):
        from_json({"event": "turn", "game": 1})
    with pytest.raises(ValueError, match="purple"):
        from_json({"event": "new-game", "game": 1, "first": "purple"})
    with pytest.raises(ValueError, match="z9"):
        from_json({"event": "correction", "game": 1, "squares": ["z9"]})
    with pytest.raises(ValueError, match="game"):
        from_json({"event": "corrected", "game": "1"})


def test_a_result_without_leds_reads_as_none_lit() -> None:
    event = from_json({"event": "result", "game": 3, "result": "draw", "lines": []})
    assert event == GameOver(3, Result.DRAW, (), ())


def test_events_are_frozen_values() -> None:
    event = NewGame(1, Colour.BLACK)
    with pytest.raises(AttributeError):
        event.game = 2  # type: ignore[misc]
    assert event == NewGame(1, Colour.BLACK) and hash(event) == hash(NewGame(1, Colour.BLACK))
