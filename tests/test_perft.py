import random

import pytest

from orbito_hw import Colour, Position
from orbito_hw.rules.perft import perft, perft_naive


@pytest.mark.parametrize(("depth", "count"), [(0, 1), (1, 16), (2, 960), (3, 50960)])
def test_golden_perft_counts_from_spec(depth: int, count: int) -> None:
    assert perft(depth) == count
    assert perft(depth, Position.start(Colour.WHITE)) == count


def test_naive_perft_agrees_on_the_golden_counts() -> None:
    assert [perft_naive(d) for d in range(4)] == [1, 16, 960, 50960]


def test_fast_perft_agrees_with_naive_from_random_positions_late_in_the_game() -> None:
    rng = random.Random(7)
    for _ in range(25):
        p = Position.start(Colour.BLACK)
        for _ in range(rng.randint(8, 20)):
            turns = list(p.legal_turns())
            if not turns:
                break
            p = p.play(rng.choice(turns))
        for depth in (1, 2):
            assert perft(depth, p) == perft_naive(depth, p)
