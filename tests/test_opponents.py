"""Opponents: one interface, seeded, and each as strong as it says."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest

from orbito_hw.errors import ConfigError
from orbito_hw.rules.game import Colour, Position
from orbito_hw.solver.opponents import Opponent, make_opponent
from orbito_hw.solver.table import shipped_solution


def play(first: Opponent, second: Opponent, start: Colour = Colour.BLACK) -> list[str]:
    position, moves = Position.start(start), []
    players = {start: first, start.other: second}
    while position.result is None:
        turn = players[position.to_move].choose(position)
        moves.append(turn.notation())
        position = position.play(turn)
    moves.append(str(position.result))
    return moves


def test_perfect_play_against_itself_wins_for_the_first_player_as_quickly_as_the_table_says() -> (
    None
):
    plies = shipped_solution().analyse(Position.start()).plies
    for seed in range(3):
        game = play(make_opponent("perfect", seed), make_opponent("perfect", seed + 10))
        assert game[-1] == "black" and len(game) - 1 == plies


@pytest.mark.parametrize("name", ["perfect", "strong"])
def test_a_table_opponent_moving_first_always_beats_random(name: str) -> None:
    for seed in range(6):
        game = play(make_opponent(name, seed), make_opponent("random", seed), Colour.WHITE)
        assert game[-1] == "white", game


def test_the_same_seed_plays_the_same_game() -> None:
    for name in ["perfect", "strong", "casual", "random"]:
        games = [play(make_opponent(name, 5), make_opponent("random", 6)) for _ in range(2)]
        assert games[0] == games[1], name
    differ = {tuple(play(make_opponent("strong", s), make_opponent("random", 1))) for s in range(4)}
    assert len(differ) > 1


def positions(count: int) -> list[Position]:
    rng, out = random.Random(11), []
    while len(out) < count:
        position = Position.start()
        for _ in range(rng.randrange(12)):
            if position.result is None:
                position = position.play(rng.choice(list(position.legal_turns())))
        if position.result is None:
            out.append(position)
    return out


def test_strong_keeps_the_value_and_perfect_takes_the_quickest_win() -> None:
    solution = shipped_solution()
    perfect, strong = make_opponent("perfect", 1), make_opponent("strong", 1)
    for position in positions(60):
        analysis = solution.analyse(position)
        assert strong.choose(position).notation() in analysis.best
        chosen = perfect.choose(position)
        after = position.play(chosen)
        if after.result is None:
            assert solution.score(after).plies == analysis.plies - 1
        else:
            assert analysis.plies == 1


def test_casual_skill_sets_how_often_it_keeps_the_value() -> None:
    solution = shipped_solution()
    sample = positions(80)
    best = [set(solution.analyse(p).best) for p in sample]
    always = make_opponent("casual", 3, skill=1.0)
    assert all(always.choose(p).notation() in b for p, b in zip(sample, best, strict=True))
    never = make_opponent("casual", 3, skill=0.0)
    missed = sum(never.choose(p).notation() not in b for p, b in zip(sample, best, strict=True))
    assert missed > 10


def test_bad_opponent_settings_are_refused_by_name() -> None:
    with pytest.raises(ConfigError, match="unknown opponent 'genius'"):
        make_opponent("genius")
    with pytest.raises(ConfigError, match="no option 'skill'"):
        make_opponent("random", skill=0.3)
    with pytest.raises(ConfigError, match="skill 2"):
        make_opponent("casual", skill=2)


def test_opponents_need_no_numpy() -> None:
    code = (
        "import sys\n"
        "from orbito_hw.rules.game import Position\n"
        "from orbito_hw.solver.opponents import make_opponent\n"
        "for name in ('random', 'perfect'):\n"
        "    make_opponent(name, seed=1).choose(Position.start())\n"
        "print('numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_an_opponent_has_no_turn_in_a_finished_game() -> None:
    from orbito_hw.errors import OrbitoError

    won = Position.from_board("BBBB/W.W./..W./....", to_move=Colour.WHITE)
    for name in ["perfect", "strong", "casual", "random"]:
        with pytest.raises(OrbitoError, match="the game is over"):
            make_opponent(name, 1).choose(won)
