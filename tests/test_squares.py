from hypothesis import given
from hypothesis import strategies as st

from orbito_hw.rules.squares import (
    BB_ADJACENT,
    BB_ALL,
    INNER_RING,
    LINES,
    OUTER_RING,
    PRESS_FROM,
    PRESS_TO,
    SQUARE_NAMES,
    has_line,
    mask_of,
    parse_square,
    press,
    square_name,
    squares_of,
    unpress,
)

masks = st.integers(min_value=0, max_value=BB_ALL)


def test_square_names_run_files_then_ranks_from_a1() -> None:
    assert SQUARE_NAMES[0] == "a1" and SQUARE_NAMES[3] == "d1" and SQUARE_NAMES[15] == "d4"
    assert all(parse_square(square_name(s)) == s for s in range(16))


def test_rings_partition_the_board() -> None:
    assert sorted(OUTER_RING + INNER_RING) == list(range(16))
    assert len(OUTER_RING) == 12 and len(INNER_RING) == 4


def test_press_follows_spec_rings_counter_clockwise() -> None:
    outer = "a4 a3 a2 a1 b1 c1 d1 d2 d3 d4 c4 b4".split()
    inner = "b2 c2 c3 b3".split()
    for ring in (outer, inner):
        for i, n in enumerate(ring):
            assert square_name(PRESS_TO[parse_square(n)]) == ring[(i + 1) % len(ring)]
    assert all(PRESS_FROM[PRESS_TO[s]] == s for s in range(16))


def test_press_of_a_mask_moves_every_bit() -> None:
    for s in range(16):
        assert press(1 << s) == 1 << PRESS_TO[s]
    assert press(0xFFFF) == 0xFFFF and press(0) == 0


@given(masks)
def test_unpress_is_the_inverse_of_press(mask: int) -> None:
    assert unpress(press(mask)) == mask == press(unpress(mask))


def test_unpress_turns_the_rings_back_clockwise_for_every_mask() -> None:
    outer = "a4 a3 a2 a1 b1 c1 d1 d2 d3 d4 c4 b4".split()  # counter-clockwise, as SPEC.md
    inner = "b2 c2 c3 b3".split()
    for ring in (outer, inner):
        for i, n in enumerate(ring):
            back = 1 << parse_square(ring[i - 1])  # the square before it, counter-clockwise
            assert unpress(1 << parse_square(n)) == back
    assert all(unpress(press(m)) == m for m in range(BB_ALL + 1))


def test_ten_lines_of_four() -> None:
    assert len(LINES) == 10 and len(set(LINES)) == 10
    assert all(bin(line).count("1") == 4 for line in LINES)
    assert has_line(mask_of([parse_square(n) for n in "a1 b2 c3 d4".split()]))
    assert not has_line(mask_of([parse_square(n) for n in "a1 b2 c3 d3".split()]))


def test_adjacency_is_orthogonal_and_symmetric() -> None:
    assert squares_of(BB_ADJACENT[parse_square("a1")]) == [parse_square("b1"), parse_square("a2")]
    assert len(squares_of(BB_ADJACENT[parse_square("b2")])) == 4
    for a in range(16):
        for b in squares_of(BB_ADJACENT[a]):
            assert BB_ADJACENT[b] >> a & 1
