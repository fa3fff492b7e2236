"""Squares, masks and the tables of the press, built once at import.

A square is a plain int 0..15, ``rank * 4 + file``: a1 = 0, b1 = 1, ..., d4 = 15.
A set of squares is a 16-bit mask with bit ``square`` set for each member. Both stay plain
ints (as python-chess's squares and bitboards do): the aliases below name them in
signatures and cost nothing at run time.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final, TypeAlias

from orbito_hw.errors import shown
from orbito_hw.lang import R_

Square: TypeAlias = int
"""A square, 0..15: ``rank * 4 + file`` (a1 = 0, d4 = 15)."""
Mask: TypeAlias = int
"""A set of squares, 16 bits: bit ``square`` set for each member."""

FILE_NAMES: Final = "abcd"
RANK_NAMES: Final = "1234"
SQUARE_NAMES: Final[tuple[str, ...]] = tuple(f + r for r in RANK_NAMES for f in FILE_NAMES)
SQUARES: Final[tuple[Square, ...]] = tuple(range(16))
_SQUARE_INDEX: Final = {name: i for i, name in enumerate(SQUARE_NAMES)}

BB_ALL: Final[Mask] = 0xFFFF
BB_SQUARES: Final[tuple[Mask, ...]] = tuple(1 << s for s in SQUARES)


def square_file(square: Square) -> int:
    return square & 3


def square_rank(square: Square) -> int:
    return square >> 2


def square_name(square: Square) -> str:
    return SQUARE_NAMES[square]


NOT_A_SQUARE = R_("{word} is not a square (a1..d4)")
NOT_A_SQUARE_NAME = R_("{word} is not a square (files a-d, ranks 1-4)")


def parse_square(name: str) -> Square:
    """The square called ``name`` (``"a1"``..``"d4"``); ValueError naming it otherwise."""
    try:
        return _SQUARE_INDEX[name]
    except KeyError:
        raise ValueError(NOT_A_SQUARE_NAME.format(word=shown(name))) from None


def is_square_name(name: str) -> bool:
    return name in _SQUARE_INDEX


def squares_of(mask: Mask) -> list[Square]:
    """The squares in ``mask``, lowest first."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_of(squares: Iterable[Square]) -> Mask:
    mask = 0
    for s in squares:
        mask |= 1 << s
    return mask


def popcount(mask: Mask) -> int:
    return mask.bit_count()


# --- the press -------------------------------------------------------------
# Both rings turn one place counter-clockwise (seen from above, a1 bottom-left).
OUTER_RING: Final[tuple[Square, ...]] = tuple(
    parse_square(n) for n in "a4 a3 a2 a1 b1 c1 d1 d2 d3 d4 c4 b4".split()
)
INNER_RING: Final[tuple[Square, ...]] = tuple(parse_square(n) for n in "b2 c2 c3 b3".split())
BB_INNER_RING: Final[Mask] = mask_of(INNER_RING)
BB_OUTER_RING: Final[Mask] = BB_ALL & ~BB_INNER_RING


def _ring_successors() -> tuple[Square, ...]:
    after = [0] * 16
    for ring in (OUTER_RING, INNER_RING):
        for i, sq in enumerate(ring):
            after[sq] = ring[(i + 1) % len(ring)]
    return tuple(after)


PRESS_TO: Final[tuple[Square, ...]] = _ring_successors()
"""``PRESS_TO[sq]`` is where a marble on ``sq`` is after one press."""
PRESS_FROM: Final[tuple[Square, ...]] = tuple(PRESS_TO.index(s) for s in SQUARES)
"""``PRESS_FROM[sq]`` is where the marble that a press brings to ``sq`` came from."""


def _byte_table(offset: int, to: tuple[Square, ...] = PRESS_TO) -> tuple[Mask, ...]:
    # A press is a permutation of bits, so it splits over the two bytes of a mask:
    # two 256-entry tables beat one 65536-entry table on import time and cache.
    table = []
    for byte in range(256):
        moved = 0
        for bit in range(8):
            if byte >> bit & 1:
                moved |= 1 << to[bit + offset]
        table.append(moved)
    return tuple(table)


_PRESS_LO: Final = _byte_table(0)
_PRESS_HI: Final = _byte_table(8)


def press(mask: Mask) -> Mask:
    """The mask after one press of the Orbito button."""
    return _PRESS_LO[mask & 0xFF] | _PRESS_HI[mask >> 8]


# The rings turned back one place (clockwise): a take-back. A marble on ``sq`` goes to
# ``PRESS_FROM[sq]``, where the press had brought it from.
_UNPRESS_LO: Final = _byte_table(0, PRESS_FROM)
_UNPRESS_HI: Final = _byte_table(8, PRESS_FROM)


def unpress(mask: Mask) -> Mask:
    """The mask after the rings turn back one place (clockwise): the inverse of ``press``."""
    return _UNPRESS_LO[mask & 0xFF] | _UNPRESS_HI[mask >> 8]


# --- lines and neighbours --------------------------------------------------
def _lines() -> tuple[Mask, ...]:
    rows = [mask_of([r * 4 + f for f in range(4)]) for r in range(4)]
    cols = [mask_of([r * 4 + f for r in range(4)]) for f in range(4)]
    diagonals = [mask_of([i * 4 + i for i in range(4)]), mask_of([i * 4 + 3 - i for i in range(4)])]
    return tuple(rows + cols + diagonals)


LINES: Final[tuple[Mask, ...]] = _lines()
"""The 10 lines that win: 4 ranks, 4 files, 2 diagonals."""


def _adjacent() -> tuple[Mask, ...]:
    table = []
    for sq in SQUARES:
        f, r = square_file(sq), square_rank(sq)
        near = [(f + df, r + dr) for df, dr in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        table.append(mask_of([nr * 4 + nf for nf, nr in near if 0 <= nf < 4 and 0 <= nr < 4]))
    return tuple(table)


BB_ADJACENT: Final[tuple[Mask, ...]] = _adjacent()
"""``BB_ADJACENT[sq]``: the orthogonal neighbours of ``sq``."""


def lines_in(mask: Mask) -> list[Mask]:
    """Every line that ``mask`` fills completely."""
    return [line for line in LINES if mask & line == line]


def has_line(mask: Mask) -> bool:
    return any(mask & line == line for line in LINES)


def line_names(lines: Iterable[Mask]) -> list[list[str]]:
    """Lines as sorted lists of square names, the list sorted (SPEC.md's form)."""
    return sorted(sorted(square_name(s) for s in squares_of(line)) for line in lines)
