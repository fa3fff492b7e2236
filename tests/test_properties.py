"""Property tests of the engine against the independent oracle."""

from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw import Colour, Position, Turn
from orbito_hw.rules.squares import BB_ALL, press

from .common import oracle

masks = st.integers(min_value=0, max_value=BB_ALL)


@st.composite
def positions(draw: st.DrawFn, min_turns: int = 0, max_turns: int = 21) -> Position:
    """A position reached by random legal play from the empty board."""
    p = Position.start(draw(st.sampled_from(list(Colour))))
    for _ in range(draw(st.integers(min_turns, max_turns))):
        turns = list(p.legal_turns())
        if not turns:
            break
        p = p.play(turns[draw(st.integers(0, len(turns) - 1))])
    return p


@given(masks)
def test_twelve_presses_restore_every_board(mask: int) -> None:
    m = mask
    for _ in range(12):
        m = press(m)
    assert m == mask


@given(masks)
def test_a_press_preserves_marble_counts(mask: int) -> None:
    assert press(mask).bit_count() == mask.bit_count()


@given(masks, masks)
def test_a_press_keeps_colours_apart(a: int, b: int) -> None:
    assert press(a & ~b) & press(b & ~a) == 0


@given(positions())
def test_notation_round_trips_for_every_generated_turn(p: Position) -> None:
    for turn in p.legal_turns():
        assert Turn.from_notation(turn.notation()) == turn


@settings(max_examples=150)
@given(positions())
def test_legal_turns_agree_with_the_slow_oracle(p: Position) -> None:
    board = oracle.from_masks(p.black, p.white)
    mover = "B" if p.to_move is Colour.BLACK else "W"
    expected = {}
    if p.result is None:
        for token, before in oracle.turns(board, mover):
            after = oracle.rotate(before)
            extra = p.extra_presses + (token == "*")
            expected[token] = (oracle.to_string(after), oracle.outcome(after, extra))
    got = {}
    for turn in p.legal_turns():
        q = p.play(turn)
        got[turn.notation()] = (q.board(), None if q.result is None else q.result.value)
    assert got == expected
    assert p.count_legal_turns() == len(got)


@given(positions(min_turns=1), st.text(alphabet="abcde12345-:* ", max_size=9))
def test_any_token_is_either_refused_cleanly_or_agrees_with_the_oracle(
    p: Position, token: str
) -> None:
    from orbito_hw import IllegalTurnError, NotationError

    legal = {t.notation() for t in p.legal_turns()}
    try:
        turn = Turn.from_notation(token)
    except NotationError:
        return
    try:
        p.play(turn)
    except IllegalTurnError as exc:
        assert token not in legal and exc.reason
    else:
        assert token in legal
