"""The board's levels: named by one parser, seeded, and each as strong as its docstring says."""

from __future__ import annotations

import random
import subprocess
import sys

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from orbito_hw.errors import ECHO_LIMIT, ConfigError, echo
from orbito_hw.rules.game import Colour, Position
from orbito_hw.solver import opponents
from orbito_hw.solver.layout import Value
from orbito_hw.solver.opponents import KEEP, LEVELS, Level, Opponent, make_opponent, parse_level
from orbito_hw.solver.table import shipped_solution

NAMES = [level.name for level in LEVELS]


def play(players: dict[Colour, Opponent], position: Position) -> tuple[list[str], Position]:
    """Play ``position`` out; the tokens of the turns and the final position."""
    tokens = []
    while position.result is None:
        turn = players[position.to_move].choose(position)
        tokens.append(turn.notation())
        position = position.play(turn)
    return tokens, position


def random_position(rng: random.Random, plies: int, first: Colour = Colour.BLACK) -> Position:
    """The position after up to ``plies`` random turns (fewer if the game ends sooner)."""
    position = Position.start(first)
    for _ in range(plies):
        after = position.play(rng.choice(list(position.legal_turns())))
        if after.result is not None:
            break
        position = after
    return position


# --- the parser -------------------------------------------------------------------------------
def test_the_levels_are_perfect_five_to_one_and_random_in_order_of_strength() -> None:
    assert NAMES == ["perfect", "5", "4", "3", "2", "1", "random"]
    keeps = [level.keep for level in LEVELS if level.keep is not None]
    assert keeps == sorted(keeps, reverse=True) and len(set(keeps)) == len(keeps)
    assert keeps[0] == 1.0 and all(0 < keep < 1 for keep in keeps[1:])


@pytest.mark.parametrize("name", NAMES)
def test_every_level_parses_by_its_name_in_any_case_and_blanks(name: str) -> None:
    level = parse_level(name)
    assert isinstance(level, Level) and level.name == name
    assert parse_level(f"  {name.upper()}\t") == level
    assert level.keep == {"perfect": 1.0, "random": None}.get(name, KEEP.get(name))
    if name in KEEP:
        assert f"probability {KEEP[name]:g}," in level.meaning
    else:
        assert "probability" not in level.meaning


@pytest.mark.parametrize("text", ["", "0", "6", "strong", "casual", "perfect:black", "\uff11"])
def test_a_bad_level_is_refused_naming_it_and_every_valid_level(text: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_level(text)
    message = str(caught.value)
    assert message == f"unknown level {text!r}: choose one of perfect, 5, 4, 3, 2, 1, random"


@settings(max_examples=200, deadline=None)
@given(st.text())
def test_any_text_is_a_level_or_one_bounded_line_naming_it(text: str) -> None:
    try:
        level = parse_level(text)
    except ConfigError as exc:
        message = str(exc)
        assert "\n" not in message and len(message) < 2 * ECHO_LIMIT + 120
        assert message.startswith(f"unknown level {echo(text)}: choose one of perfect, 5,")
        assert text.strip().lower() not in NAMES
    else:
        assert level.name == text.strip().lower()


def test_the_docstring_states_what_each_level_keeps() -> None:
    doc = opponents.__doc__ or ""
    for name, keep in KEEP.items():
        assert f"{name}: {keep:g}" in doc
    assert ", ".join(f"{n}: {k:g}" for n, k in KEEP.items()) in " ".join(doc.split())


def test_levels_are_opponents_by_name_and_a_bad_name_is_echoed_bounded() -> None:
    for level in LEVELS:
        assert make_opponent(level.name, seed=1).name == level.name
        assert opponents.level_opponent(level, seed=1).name == level.name
    with pytest.raises(ConfigError, match=r"unknown opponent 'xxxx.*\(5000 characters\)"):
        make_opponent("x" * 5000)
    with pytest.raises(ConfigError, match="no option 'skill'"):
        make_opponent("3", skill=0.5)


def test_levels_need_no_numpy() -> None:
    code = (
        "import sys\n"
        "from orbito_hw.rules.game import Position\n"
        "from orbito_hw.solver.opponents import make_opponent, parse_level\n"
        "make_opponent(parse_level('3').name, seed=1).choose(Position.start())\n"
        "print('numpy' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# --- seeds ------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_the_same_seed_plays_the_same_game_and_seeds_differ(name: str) -> None:
    def game(seed: int) -> list[str]:
        players = {Colour.BLACK: make_opponent(name, seed), Colour.WHITE: make_opponent("3", 99)}
        return play(players, Position.start())[0]

    assert game(7) == game(7)
    if name != "perfect":  # perfect only varies among equally quick wins
        assert len({tuple(game(seed)) for seed in range(6)}) > 1


# --- how often each level keeps the value -----------------------------------------------------
def positions_allowing_a_mistake(count: int) -> list[tuple[Position, dict[str, int]]]:
    """Positions from random games where some turn throws the value away, each with every
    turn's table byte (by notation)."""
    solution, rng, out = shipped_solution(), random.Random(2024), []
    while len(out) < count:
        position = random_position(rng, rng.randrange(20), rng.choice(list(Colour)))
        if position.result is not None:
            continue
        worths = {turn.notation(): byte for turn, byte in solution.turn_bytes(position)}
        if len({byte >> 6 for byte in worths.values()}) > 1:
            out.append((position, worths))
    return out


@pytest.fixture(scope="module")
def sample() -> list[tuple[Position, dict[str, int]]]:
    return positions_allowing_a_mistake(800)


@pytest.mark.parametrize("name", list(KEEP))
def test_a_level_keeps_the_value_as_often_as_it_says_and_otherwise_makes_a_mistake(
    name: str, sample: list[tuple[Position, dict[str, int]]]
) -> None:
    board, kept = make_opponent(name, seed=5), 0
    for position, worths in sample:
        byte = worths[board.choose(position).notation()]
        top = max(worths.values())
        # Either the perfect turn or a real mistake: never a weaker turn that keeps the value.
        assert byte == top or byte >> 6 != top >> 6
        kept += byte == top
    # 800 draws with a fixed seed: the share is a fixed number; 0.05 is over 3 standard
    # deviations, so a change of KEEP or of the rule shows, and a change of seed would not.
    assert abs(kept / len(sample) - KEEP[name]) < 0.05, kept / len(sample)


def test_random_keeps_the_value_less_often_than_the_weakest_level(
    sample: list[tuple[Position, dict[str, int]]],
) -> None:
    board = make_opponent("random", seed=5)
    kept = 0
    for position, worths in sample:
        byte = worths[board.choose(position).notation()]
        kept += byte >> 6 == max(worths.values()) >> 6
    assert kept / len(sample) < min(KEEP.values()) - 0.15


def test_where_no_mistake_is_possible_a_level_plays_perfect_at_least_as_often() -> None:
    # Lost positions: every turn loses, so level 1 plays the longest loss with probability
    # 0.5, else any legal turn (which may be a longest loss too).
    solution, rng, lost = shipped_solution(), random.Random(3), []
    while len(lost) < 300:
        position = random_position(rng, rng.randrange(4, 20), rng.choice(list(Colour)))
        if position.result is None and solution.score(position).value is Value.LOSS:
            lost.append(position)
    board, perfect = make_opponent("1", seed=8), 0
    for position in lost:
        worths = {turn.notation(): byte for turn, byte in solution.turn_bytes(position)}
        perfect += worths[board.choose(position).notation()] == max(worths.values())
    assert KEEP["1"] - 0.06 < perfect / len(lost) < 0.9


# --- perfect never throws a win ---------------------------------------------------------------
@settings(max_examples=120, deadline=None)
@given(
    prefix=st.integers(0, 2**32),
    plies=st.integers(0, 16),
    first=st.sampled_from(list(Colour)),
    other=st.sampled_from(["random", "perfect", "1"]),
    seed=st.integers(0, 2**32),
)
def test_perfect_wins_every_won_position_as_quickly_as_the_table_says(
    prefix: int, plies: int, first: Colour, other: str, seed: int
) -> None:
    position = random_position(random.Random(prefix), plies, first)
    assume(position.result is None)
    score = shipped_solution().score(position)
    assume(score.value is Value.WIN)
    board = position.to_move
    players = {board: make_opponent("perfect", seed), board.other: make_opponent(other, seed + 1)}
    tokens, end = play(players, position)
    assert end.result is not None and end.result.winner is board, tokens
    assert len(tokens) <= score.plies, tokens


@pytest.mark.parametrize("first", list(Colour))
@pytest.mark.parametrize("other", ["random", "perfect"])
def test_perfect_moving_first_always_wins_a_whole_game(first: Colour, other: str) -> None:
    for seed in range(40):
        players = {first: make_opponent("perfect", seed), first.other: make_opponent(other, seed)}
        tokens, end = play(players, Position.start(first))
        assert end.result is not None and end.result.winner is first, tokens
