"""Counts in words (rules/words.py), the one source of every "1 turn" and "3 turns"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.rules.words import counted


def test_one_is_singular_and_every_other_count_plural() -> None:
    assert counted(1, "turn") == "1 turn"
    assert counted(0, "game") == "0 games"
    assert counted(2, "problem") == "2 problems"


@given(st.integers(min_value=0, max_value=10**6), st.sampled_from(["turn", "game", "mistake"]))
def test_the_count_leads_and_the_noun_follows(n: int, noun: str) -> None:
    number, word = counted(n, noun).split(" ")
    assert int(number) == n and word == (noun if n == 1 else noun + "s")
