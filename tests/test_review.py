"""The review marks each mistake exactly: checked against a plain minimax over the engine (no
table) on late positions, and against itself (each turn's value after is the next turn's
value before, seen from the other side)."""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from orbito_hw.errors import IllegalTurnError
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.solver.layout import Value
from orbito_hw.solver.review import RANK, review

from .common.scripts import random_game

LATE = 12
"""Marbles placed from which the minimax searches to the end (4 empty squares at most)."""
FLIP = {Value.WIN: Value.LOSS, Value.DRAW: Value.DRAW, Value.LOSS: Value.WIN}


def _key(value: Value, plies: int) -> tuple[int, int]:
    """How good (value, plies) is for its player: a quicker win, a longer draw or loss."""
    return RANK[value], -plies if value is Value.WIN else plies


def _outcome(position: Position, mover: Colour) -> Value:
    assert position.result is not None
    winner = position.result.winner
    return Value.DRAW if winner is None else Value.WIN if winner is mover else Value.LOSS


def worth(position: Position, turn_to: Position) -> tuple[Value, int]:
    """What the turn that led from ``position`` to ``turn_to`` is worth to its player."""
    if turn_to.result is not None:
        return _outcome(turn_to, position.to_move), 1
    value, plies = minimax(turn_to)
    return FLIP[value], plies + 1


@cache
def minimax(position: Position) -> tuple[Value, int]:
    """The value and plies to the end for the side to move, by searching every turn."""
    return max(
        (worth(position, position.play(turn)) for turn in position.legal_turns()),
        key=lambda vp: _key(*vp),
    )


def late_game(seed: int) -> tuple[Colour, list[str]]:
    first, turns = random_game(random.Random(seed))
    return first, [t.notation() for t in turns]


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32))
def test_the_review_agrees_with_a_minimax_over_the_engine_on_late_positions(seed: int) -> None:
    first, moves = late_game(seed)
    assume(replay(first, moves).placed > LATE)  # at least one turn from a late position
    reviewed = review(first, moves)
    position = Position.start(first)
    for turn, token in zip(reviewed.turns, moves, strict=True):
        if position.placed >= LATE:
            value, plies = minimax(position)
            assert (turn.before, turn.before_plies) == (value, plies), (moves, turn.number)
            after = position.push_notation(token)
            kept = worth(position, after)
            assert turn.after == kept[0]
            assert turn.mistake == (RANK[kept[0]] < RANK[value])
            best = sorted(
                t.notation()
                for t in position.legal_turns()
                if worth(position, position.play(t))[0] is value
            )
            assert list(turn.best) == best
        position = position.push_notation(token)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_each_turns_after_is_the_next_turns_before_from_the_other_side(seed: int) -> None:
    first, moves = late_game(seed)
    turns = review(first, moves).turns
    for turn, following in itertools.pairwise(turns):
        assert following.colour is turn.colour.other
        assert (FLIP[turn.after], turn.after_plies) == (following.before, following.before_plies)
    last = turns[-1]
    assert last.after_plies == 0  # the game is over after its last turn
    assert last.after is _outcome(replay(first, moves), last.colour)


@settings(max_examples=40, deadline=None)
@given(st.integers(0, 2**32))
def test_the_game_was_decided_at_the_last_mistake_and_went_as_perfect_play_from_there(
    seed: int,
) -> None:
    first, moves = late_game(seed)
    reviewed = review(first, moves)
    final = replay(first, moves)
    mistakes = [t for t in reviewed.turns if t.mistake]
    assert sorted(reviewed.mistakes(Colour.BLACK) + reviewed.mistakes(Colour.WHITE)) == [
        t.number for t in mistakes
    ]
    if not mistakes:
        assert reviewed.decided is None
        # Black or white, the first player's value at the start is the result.
        assert reviewed.turns[0].before is _outcome(final, first)
        return
    decided = mistakes[-1]
    assert reviewed.decided == decided.number
    assert decided.after is _outcome(final, decided.colour)
    assert reviewed.summary() == {
        "mistakes": {c.value: list(reviewed.mistakes(c)) for c in Colour},
        "decided": decided.number,
    }


def test_extra_presses_are_listed_with_the_press_as_best_and_never_a_mistake() -> None:
    seen = 0  # random games fill the board now and then
    for seed in range(400):
        first, moves = late_game(seed)
        for turn in review(first, moves).turns:
            if turn.turn == "*":
                seen += 1
                assert turn.best == ("*",)
                assert not turn.mistake
                assert turn.after is turn.before
    assert seen > 0


def test_a_throw_away_is_a_mistake_and_a_kept_value_is_not() -> None:
    # Black wins Orbito with perfect play; c2 on turn 3 throws the win to a draw.
    turns = review(Colour.BLACK, ["a1", "b3", "c2"]).turns
    assert [t.before for t in turns] == [Value.WIN, Value.LOSS, Value.WIN]
    assert [t.mistake for t in turns] == [False, False, True]
    assert turns[2].after is Value.DRAW
    assert "c2" not in turns[2].best and "d1" in turns[2].best
    assert turns[2].as_json() == {
        "number": 3,
        "colour": "black",
        "turn": "c2",
        "before": "win",
        "after": "draw",
        "best": list(turns[2].best),
        "mistake": True,
        "before_plies": turns[2].before_plies,
        "after_plies": turns[2].after_plies,
    }


def test_an_illegal_turn_is_refused_by_the_rules() -> None:
    with pytest.raises(IllegalTurnError):
        review(Colour.WHITE, ["a1", "b1"])  # the press took a1 to b1
