"""Where each position lives in the solution table, and what its byte says. Pure Python.

A position with the side to move is a pair (mover's marbles, other side's marbles), colour
free. With ``n`` marbles placed the mover has ``n // 2`` of them and the other side the rest,
whoever started, so the positions fall into layers n = 0..16. Within a layer, a
position's index is the colex rank of the mover's marbles among the occupied squares times
C(16, n), plus the colex rank of the occupied mask among the n-marble masks. (That order, mover
pattern first, compresses a tenth smaller than occupied mask first.) The table holds
layers 0..16 in order (layer 16: full boards before any extra press), then four blocks of
full boards after 1, 2, 3 and 4 extra presses. After the 5th the game is over.

Each entry is one byte, ordered so that a larger byte is better for the mover:

- 0: not a position to move in (a line is on the board, so the game is over);
- loss in k plies: 64 + k (a longer loss is better);
- draw in k plies: 128 + k (perfect play keeps a draw going as long as it can);
- win in k plies: 192 + 63 - k (a quicker win is better).

``plies`` counts turns and extra presses to the end; a game has at most 16 + 5 of them.
"""

from __future__ import annotations

from enum import Enum
from math import comb
from typing import Final, NamedTuple

SQUARE_COUNT: Final = 16
FULL_LAYER: Final = 16
EXTRA_BLOCKS: Final = 4  # full boards after 1..4 extra presses

NO_POSITION: Final = 0
LOSS_BASE: Final = 64
DRAW_BASE: Final = 128
WIN_BASE: Final = 192
MAX_PLIES: Final = 63


class Value(Enum):
    LOSS = "loss"
    DRAW = "draw"
    WIN = "win"

    def __str__(self) -> str:
        return self.value


class Score(NamedTuple):
    """A position's worth for the side to move: the value and the plies to the end."""

    value: Value
    plies: int


def encode(value: Value, plies: int) -> int:
    """The table byte for ``value`` reached in ``plies`` plies."""
    if not 0 <= plies <= MAX_PLIES:
        raise ValueError(f"{plies} plies do not fit in a table byte")
    if value is Value.WIN:
        return WIN_BASE + MAX_PLIES - plies
    return (LOSS_BASE if value is Value.LOSS else DRAW_BASE) + plies


def decode(byte: int) -> Score:
    """The score a table byte stands for; ValueError for the no-position byte."""
    kind = byte >> 6
    if kind == 0:
        raise ValueError("the table has no value here: a line is already on the board")
    if kind == 3:
        return Score(Value.WIN, MAX_PLIES - (byte & 63))
    return Score(Value.LOSS if kind == 1 else Value.DRAW, byte & 63)


def parent_byte(child: int) -> int:
    """The byte a turn is worth to the player who made it, given the byte of the position it
    leaves for the opponent: their loss in k is our win in k + 1, and so on."""
    kind = child >> 6
    if kind == 0:
        return NO_POSITION
    if kind == 3:
        return LOSS_BASE + MAX_PLIES - (child & 63) + 1
    if kind == 1:
        return WIN_BASE + MAX_PLIES - (child & 63) - 1
    return child + 1


WIN_NOW: Final = encode(Value.WIN, 1)
LOSS_NOW: Final = encode(Value.LOSS, 1)
DRAW_NOW: Final = encode(Value.DRAW, 1)


def mover_count(placed: int) -> int:
    """How many marbles the side to move has with ``placed`` marbles on the board."""
    return placed // 2


def layer_size(placed: int) -> int:
    return comb(SQUARE_COUNT, placed) * comb(placed, mover_count(placed))


def _offsets() -> tuple[int, ...]:
    sizes = [layer_size(n) for n in range(FULL_LAYER + 1)]
    sizes += [layer_size(FULL_LAYER)] * EXTRA_BLOCKS
    offsets = [0]
    for size in sizes:
        offsets.append(offsets[-1] + size)
    return tuple(offsets)


BLOCK_OFFSETS: Final = _offsets()
"""Block b's entries start at ``BLOCK_OFFSETS[b]``: blocks 0..16 are layers, 17..20 extra
presses 1..4; the last item is the table's size."""
TABLE_SIZE: Final = BLOCK_OFFSETS[-1]
_BINOM: Final = tuple(tuple(comb(i, j) for j in range(SQUARE_COUNT + 1)) for i in range(17))


def block_of(placed: int, extra_presses: int) -> int:
    return placed if extra_presses == 0 else FULL_LAYER + extra_presses


def position_index(mover: int, other: int, extra_presses: int = 0) -> int:
    """The table index of the position; ValueError if no table entry can hold it."""
    occupied = mover | other
    placed = occupied.bit_count()
    if mover & other:
        raise ValueError("a square holds marbles of both sides")
    if mover.bit_count() != mover_count(placed):
        raise ValueError(
            f"with {placed} marbles placed the side to move has {mover_count(placed)} of them,"
            f" not {mover.bit_count()}"
        )
    if (extra_presses and placed != FULL_LAYER) or not 0 <= extra_presses <= EXTRA_BLOCKS:
        raise ValueError(f"no table entry for {extra_presses} extra presses with {placed} placed")
    occupied_rank = mover_rank = seen = seen_mover = 0
    for square in range(SQUARE_COUNT):
        if occupied >> square & 1:
            if mover >> square & 1:
                seen_mover += 1
                mover_rank += _BINOM[seen][seen_mover]
            seen += 1
            occupied_rank += _BINOM[square][seen]
    within = mover_rank * _BINOM[SQUARE_COUNT][placed] + occupied_rank
    return BLOCK_OFFSETS[block_of(placed, extra_presses)] + within
