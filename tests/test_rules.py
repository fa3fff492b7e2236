"""Every rule of the rule sheets, each as a test."""

import pytest

from orbito_hw import (
    Colour,
    IllegalTurnError,
    NotationError,
    Position,
    ReplayError,
    Result,
    Turn,
    replay,
)
from orbito_hw.rules.squares import parse_square

from .common import oracle

B, W = Colour.BLACK, Colour.WHITE


def play(position: Position, *tokens: str) -> Position:
    for token in tokens:
        position = position.play(Turn.from_notation(token))
    return position


def test_game_starts_empty_with_the_agreed_player() -> None:
    for first in (B, W):
        p = Position.start(first)
        assert p.board() == "..../..../..../...." and p.to_move is first and p.result is None


def test_worked_example_from_the_rule_sheet() -> None:
    # White places b1, the press takes it to c1; Black moves c1-c2, places a2; press: c3 and a1.
    p = play(Position.start(W), "b1")
    assert p.board() == "..../..../..../..W."
    p = play(p, "c1-c2:a2")
    assert p.board() == "..../..W./..../B..."
    assert p.to_move is W and p.placed == 2


def test_first_turn_has_no_move_only_sixteen_placements() -> None:
    turns = list(Position.start(B).legal_turns())
    assert len(turns) == 16 and not any(t.has_move for t in turns)


def test_the_move_is_optional_and_only_of_an_opponent_marble() -> None:
    p = play(Position.start(W), "b1")  # white on c1, black to move
    tokens = {t.notation() for t in p.legal_turns()}
    assert "a2" in tokens and "c1-c2:a2" in tokens and "c1-b1:a2" in tokens and "c1-d1:a2" in tokens
    assert not any(t.startswith(("a", "b", "d")) and "-" in t for t in tokens)


def test_no_move_when_every_neighbour_of_the_opponent_is_occupied() -> None:
    # White's only marble on a1, with b1 and a2 taken: black can only place.
    p = Position.from_board("..../..../B.../WB..", to_move=B)
    assert not any(t.has_move for t in p.legal_turns())


def test_placing_on_the_square_just_vacated() -> None:
    p = play(Position.start(W), "b1")
    q = p.play(Turn.from_notation("c1-c2:c1"))
    # before the press black c1, white c2; the press takes c1 -> d1, c2 -> c3
    assert q.board() == "..../..W./..../...B"


def test_a_line_counts_only_after_the_press() -> None:
    # Black fills a2: rank 2 is complete before the press, but the press breaks it up.
    p = Position.from_board("..../..../.BBB/WWW.", to_move=B)
    q = p.play(Turn.from_notation("a2"))
    assert q.result is None and q.board() == "..../..BB/..B./BWWW"


def test_a_line_after_the_press_wins() -> None:
    # Black on a1, b1, c1 comes to b1, c1, d1; a2 placed comes to a1: rank 1 is black.
    p = Position.from_board("..../..W./..W./BBB.", to_move=B)
    q = p.play(Turn.from_notation("a2"))
    assert q.result is Result.BLACK and q.line_names() == [["a1", "b1", "c1", "d1"]]


def test_opponent_colour_win_whoever_pressed() -> None:
    # White to move; whatever white places on d4, black's a2 a1 b1 c1 turn into rank 1.
    p = Position.from_board(".W../..WW/B.../BBB.", to_move=W)
    q = p.play(Turn.from_notation("d4"))
    assert q.result is Result.BLACK
    assert oracle.outcome(oracle.rotate(_oracle_board(p, "d4", "W")), 0) == "black"


def test_opponent_colour_win_by_moving_the_opponent_marble() -> None:
    # White moves black's b2 to a2, completing black's pre-image of rank 1.
    p = Position.from_board("..../.W.W/.B../BBBW", to_move=W)
    q = p.play(Turn.from_notation("b2-a2:c4"))
    assert q.result is Result.BLACK


def test_both_colours_in_line_after_the_press_is_a_draw() -> None:
    # Black's a2 a1 b1 c1 become rank 1, white's b4 c4 d4 + d3 become rank 4.
    p = Position.from_board(".WWW/..../B.../BBB.", to_move=W)
    q = p.play(Turn.from_notation("d3"))
    assert q.result is Result.DRAW
    assert q.line_names() == [["a1", "b1", "c1", "d1"], ["a4", "b4", "c4", "d4"]]


def test_full_board_allows_only_extra_presses() -> None:
    p = Position.from_board("WBBW/BBBW/WWWB/WBBW", to_move=B)
    assert [t.notation() for t in p.legal_turns()] == ["*"]
    with pytest.raises(IllegalTurnError, match="full"):
        p.play(Turn.from_notation("a1"))


def test_win_on_the_third_extra_press() -> None:
    p = Position.from_board("WBWW/BBBW/WWBB/BBWW", to_move=B)
    for presses in (1, 2):
        p = p.play(Turn.from_notation("*"))
        assert p.result is None and p.extra_presses == presses
    p = p.play(Turn.from_notation("*"))
    assert p.result is Result.BLACK and p.extra_presses == 3


def test_draw_after_the_fifth_extra_press() -> None:
    p = Position.from_board("WBBW/BBBW/WWWB/WBBW", to_move=B)
    for presses in range(1, 5):
        p = p.play(Turn.from_notation("*"))
        assert p.result is None and p.extra_presses == presses
    p = p.play(Turn.from_notation("*"))
    assert p.result is Result.DRAW and p.extra_presses == 5 and p.lines() == []
    with pytest.raises(IllegalTurnError, match="over"):
        p.play(Turn.from_notation("*"))


def test_extra_press_needs_a_full_board() -> None:
    with pytest.raises(IllegalTurnError, match="full board"):
        Position.start(B).play(Turn.from_notation("*"))


# --- every kind of illegal turn names the squares at fault ----------------------------
ILLEGAL = [
    # (position, to move, token, words in the reason, squares at fault)
    ("..../..W./..../B...", W, "c3-c4:d4", "your own marble", ["c3"]),
    ("..../..W./..../B...", B, "a1-a2:d4", "your own marble", ["a1"]),
    ("..../..W./..../B...", W, "b2-b3:d4", "empty", ["b2"]),
    ("..../..W./..../B...", B, "c3-d4:a4", "orthogonally adjacent", ["c3", "d4"]),
    ("..../..W./..../B...", B, "c3-c1:a4", "orthogonally adjacent", ["c3", "c1"]),
    ("..../.BW./..../B...", B, "c3-b3:a4", "occupied", ["b3"]),
    ("..../..W./..../B...", B, "a1", "occupied", ["a1"]),
    ("..../..W./..../B...", B, "c3-c4:c3", "", []),  # legal: the vacated square
    ("..../..W./..../B...", B, "c3-c4:c4", "occupied", ["c4"]),
]


@pytest.mark.parametrize(("board", "to_move", "token", "words", "squares"), ILLEGAL)
def test_illegal_turns_are_refused_with_their_squares(
    board: str, to_move: Colour, token: str, words: str, squares: list[str]
) -> None:
    p = Position.from_board(board, to_move=to_move)
    turn = Turn.from_notation(token)
    if not words:
        assert p.is_legal(turn)
        return
    with pytest.raises(IllegalTurnError) as info:
        p.play(turn)
    assert words in info.value.reason
    assert list(info.value.squares) == [parse_square(s) for s in squares]
    assert token in str(info.value) and board in str(info.value)
    assert not p.is_legal(turn)


def test_move_or_placement_after_the_game_ended() -> None:
    won = Position.from_board("..../..W./..W./BBB.", to_move=B).play(Turn.from_notation("a2"))
    assert won.result is Result.BLACK
    for token in ("d4", "a1-a2:d4", "*"):
        with pytest.raises(IllegalTurnError, match="game is over"):
            won.play(Turn.from_notation(token))
    assert list(won.legal_turns()) == []


def test_replay_names_the_turn_number_and_token() -> None:
    with pytest.raises(ReplayError) as info:
        replay(W, "b1 c1-c3:a2")
    assert (
        str(info.value)
        == "turn 2 (c1-c3:a2): c1-c3 is not a step to an orthogonally adjacent square"
    )
    with pytest.raises(ReplayError, match=r"turn 1 \(zz\): malformed"):
        replay(B, "zz")


def test_malformed_notation_is_its_own_error_class() -> None:
    for bad in ("", "e1", "a5", "a1-", "a1-a2", "a1-a2:", "A1", "a1a2", "**", "a1-a2:a3 "):
        with pytest.raises(NotationError):
            Turn.from_notation(bad)
    with pytest.raises(NotationError):
        Colour.parse("red")
    with pytest.raises(NotationError):
        Position.from_board("..../..../....")


def _oracle_board(p: Position, token: str, mover: str) -> oracle.Board:
    for t, b in oracle.turns(oracle.from_masks(p.black, p.white), mover):
        if t == token:
            return b
    raise AssertionError(f"oracle has no turn {token}")
