"""The solver against a plain minimax over the rules engine, and the table's own checks."""

from __future__ import annotations

import random

import pytest

from orbito_hw.rules.game import Colour, Position
from orbito_hw.solver.layout import BLOCK_OFFSETS, FULL_LAYER, TABLE_SIZE, position_index
from orbito_hw.solver.table import Solution, shipped_path, shipped_solution

Outcome = tuple[str, int]  # ("win" | "draw" | "loss", plies) for the side to move
FLIP = {"win": "loss", "loss": "win", "draw": "draw"}
VALUE_ORDER = {"loss": 0, "draw": 1, "win": 2}


def preference(outcome: Outcome) -> tuple[int, int]:
    """The quickest win, then the longest draw, then the longest loss."""
    value, plies = outcome
    return {"win": (2, -plies), "draw": (1, plies), "loss": (0, plies)}[value]


def turn_outcome(position: Position, child: Position, memo: dict[object, Outcome]) -> Outcome:
    """What playing into ``child`` is worth to ``position``'s side to move."""
    if child.result is not None:
        winner = child.result.winner
        return ("draw" if winner is None else "win" if winner is position.to_move else "loss", 1)
    value, plies = minimax(child, memo)
    return FLIP[value], plies + 1


def minimax(position: Position, memo: dict[object, Outcome]) -> Outcome:
    """Every turn played through the engine, memoised colour-free."""
    key = (
        position.marbles(position.to_move),
        position.marbles(position.to_move.other),
        position.extra_presses,
    )
    if key not in memo:
        outcomes = [
            turn_outcome(position, position.play_unchecked(turn), memo)
            for turn in position.legal_turns()
        ]
        memo[key] = max(outcomes, key=preference)
    return memo[key]


def random_position(rng: random.Random, placed: int, extra: int = 0) -> Position:
    """A position with ``placed`` marbles (and ``extra`` presses) reached by random play."""
    while True:
        position = Position.start(rng.choice(list(Colour)))
        while position.result is None and (
            position.placed < placed or position.extra_presses < extra
        ):
            position = position.play_unchecked(rng.choice(list(position.legal_turns())))
        if position.result is None:
            return position


def sample_positions() -> list[Position]:
    """300 positions with 10 or more marbles, fewer where minimax is dearer."""
    rng = random.Random(20261122)
    plan = {10: 4, 11: 16, 12: 40, 13: 70, 14: 70, 15: 60}
    positions = [random_position(rng, n) for n, count in plan.items() for _ in range(count)]
    positions += [random_position(rng, FULL_LAYER, rng.randrange(5)) for _ in range(40)]
    return positions


@pytest.fixture(scope="module")
def solution() -> Solution:
    return shipped_solution()


@pytest.fixture(scope="module")
def checked() -> tuple[list[Position], dict[object, Outcome]]:
    memo: dict[object, Outcome] = {}
    positions = sample_positions()
    for position in positions:
        minimax(position, memo)
    return positions, memo


def test_solver_values_agree_with_minimax_over_the_engine(
    solution: Solution, checked: tuple[list[Position], dict[object, Outcome]]
) -> None:
    positions, memo = checked
    assert len(positions) == 300
    assert all(p.placed >= 10 for p in positions)
    for position in positions:
        score = solution.score(position)
        assert (score.value.value, score.plies) == minimax(position, memo), position.board()


def test_best_turns_keep_the_value_and_every_other_turn_loses_it(
    solution: Solution, checked: tuple[list[Position], dict[object, Outcome]]
) -> None:
    positions, memo = checked
    kept = lost = 0
    for position in positions:
        analysis = solution.analyse(position)
        value = analysis.value.value
        for turn in position.legal_turns():
            outcome = turn_outcome(position, position.play_unchecked(turn), memo)
            if turn.notation() in analysis.best:
                assert outcome[0] == value, (position.board(), turn.notation())
                kept += 1
            else:
                assert VALUE_ORDER[outcome[0]] < VALUE_ORDER[value], (position.board(), turn)
                lost += 1
        assert turn_outcome(position, position.play(analysis.move), memo) == (
            value,
            analysis.plies,
        )
    assert kept and lost  # both kinds of turn were really checked


def test_the_first_player_wins(solution: Solution) -> None:
    for first in Colour:
        analysis = solution.analyse(Position.start(first))
        assert analysis.value.value == "win"
        assert analysis.to_move is first


def test_a_finished_game_has_nothing_to_analyse(solution: Solution) -> None:
    from orbito_hw.solver import SolutionError

    rng = random.Random(7)
    position = random_position(rng, 12)
    while position.result is None:
        position = position.play_unchecked(rng.choice(list(position.legal_turns())))
    with pytest.raises(SolutionError, match="the game is over"):
        solution.analyse(position)


def test_rebuilding_the_top_layers_gives_the_shipped_bytes(solution: Solution) -> None:
    from orbito_hw.solver.build import solve

    lowest = 11
    rebuilt = solve(lowest)
    shipped = Solution.load()._table[BLOCK_OFFSETS[lowest] :]
    assert len(rebuilt) == TABLE_SIZE - BLOCK_OFFSETS[lowest]
    assert rebuilt == shipped


def test_table_order_matches_the_index_of_every_position() -> None:
    from orbito_hw.solver.build import layer_pairs, table_order

    rng = random.Random(3)
    for placed in range(FULL_LAYER + 1):
        mover, other = (table_order(masks, placed) for masks in layer_pairs(placed))
        picks = range(len(mover)) if len(mover) < 5000 else rng.sample(range(len(mover)), 3000)
        for i in picks:
            index = position_index(int(mover[i]), int(other[i]))
            assert index == BLOCK_OFFSETS[placed] + i


def test_the_shipped_table_is_in_the_package() -> None:
    assert shipped_path().is_file()


def test_a_position_no_game_can_reach_is_refused_by_name(solution: Solution) -> None:
    from orbito_hw.solver import SolutionError

    lopsided = Position.from_board("BBB./..../..../W...", to_move=Colour.WHITE)
    with pytest.raises(SolutionError, match=r"BBB\./.*cannot arise in a game"):
        solution.analyse(lopsided)
