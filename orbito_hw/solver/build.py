"""The full solve, layer by layer from full boards down to the empty one, with NumPy.

Every step works on whole layers at once (NumPy arrays): no Python loop ever runs per
position. Work is addressed by base-3 codes (a square's digit is 0 empty, 1 the first mask's,
2 the second's), because a turn is then plain arithmetic on a code: placing on p adds
2 * 3**p, moving a marble from s to d adds (3**d - 3**s) times its digit. Two scratch arrays
of 3**16 bytes hold values by code; each layer's values are then put in the table's own
order (``layout``), which holds only the positions of the layer, so the table stays small.

For a layer-n position (own, other), a child before its press is (other', own | p) from the
opponent's side: the opponent's marbles (maybe one moved) and ours plus the new one. So:

1. ``_fill_after_turn``: for every pair (a, b) of layer n + 1, what the turn that left a, b
   before the press is worth to the player who made it (b's owner): a line after the press,
   or else the layer n + 1 value of (press a, press b), seen from the other side.
2. ``_best_placement``: for every pair of layer n, the best turn that only places.
3. ``layer``: the best of that over the pair itself and every pair that a one-step move of an
   opponent marble leads to (a pair of the same layer).

Full boards come first: their extra presses form a fixed chain, valued from the 5th press back.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from math import comb
from typing import Any

import numpy as np
import numpy.typing as npt

from orbito_hw.rules.squares import BB_ADJACENT, LINES, PRESS_TO
from orbito_hw.solver.layout import (
    DRAW_NOW,
    EXTRA_BLOCKS,
    FULL_LAYER,
    LOSS_NOW,
    NO_POSITION,
    SQUARE_COUNT,
    WIN_NOW,
    Value,
    encode,
    mover_count,
    parent_byte,
)

Bytes = npt.NDArray[np.uint8]
Ints = npt.NDArray[np.int32]
Progress = Callable[[str], None]

CODES = 3**SQUARE_COUNT
POW3 = 3 ** np.arange(SQUARE_COUNT, dtype=np.int32)
STEPS = [
    (src, dst)
    for src in range(SQUARE_COUNT)
    for dst in range(SQUARE_COUNT)
    if BB_ADJACENT[src] >> dst & 1
]


def _mask_tables() -> tuple[Ints, Ints, npt.NDArray[np.bool_], Ints]:
    """By 16-bit mask: its base-3 code with digit 1, its press, whether it holds a line,
    and its popcount."""
    masks = np.arange(1 << SQUARE_COUNT, dtype=np.int32)
    bits = (masks[:, None] >> np.arange(SQUARE_COUNT, dtype=np.int32)) & 1
    trits = bits @ POW3
    pressed = bits @ (1 << np.array(PRESS_TO, dtype=np.int32))
    line = np.zeros(masks.shape, dtype=np.bool_)
    for mask in LINES:
        line |= masks & mask == mask
    return trits, pressed, line, bits.sum(axis=1, dtype=np.int32)


TRITS, PRESSED, HAS_LINE, POPCOUNT = _mask_tables()
PARENT = np.array([parent_byte(b) for b in range(256)], dtype=np.uint8)


def layer_pairs(placed: int) -> tuple[Ints, Ints]:
    """Every (mover, other) pair of the layer, occupied mask first: each occupied mask's
    pairs are a contiguous row, which keeps the solve's memory access local. ``table_order``
    turns this order into the table's."""
    movers = mover_count(placed)
    occupied = np.flatnonzero(np.equal(POPCOUNT, placed)).astype(np.int32)  # colex order
    patterns = np.flatnonzero(np.equal(POPCOUNT[: 1 << placed], movers)).astype(np.int32)
    squares = np.nonzero((occupied[:, None] >> np.arange(SQUARE_COUNT)) & 1)[1].reshape(
        len(occupied), placed
    )
    grid = np.zeros((len(occupied), len(patterns)), dtype=np.int32)
    for j in range(placed):  # scatter bit j of each pattern onto the j-th occupied square
        grid |= ((patterns >> j) & 1)[None, :] << squares[:, j][:, None]
    mover: Ints = grid.ravel()
    return mover, np.repeat(occupied, len(patterns)) ^ mover


def table_order(values: npt.NDArray[Any], placed: int) -> npt.NDArray[Any]:
    """A layer's entries from ``layer_pairs`` order into the table's (mover pattern first)."""
    rows = comb(SQUARE_COUNT, placed)
    return np.ascontiguousarray(values.reshape(rows, -1).T).ravel()


def code(first: Ints, second: Ints) -> Ints:
    return TRITS[first] + 2 * TRITS[second]


def _after_press(mover: Ints, other: Ints, then: Bytes) -> Bytes:
    """What a press is worth to ``other``'s owner, who pressed: a line of either side ends the
    game, else ``then`` (the value of the pressed position, ``mover`` to move)."""
    mover_line, other_line = HAS_LINE[PRESSED[mover]], HAS_LINE[PRESSED[other]]
    worth = np.where(other_line, WIN_NOW, PARENT[then]).astype(np.uint8)
    worth[mover_line] = LOSS_NOW
    worth[mover_line & other_line] = DRAW_NOW
    return worth


class Solver:
    """Values layer by layer; ``value`` and ``scratch`` are indexed by base-3 code."""

    def __init__(self, progress: Progress | None = None) -> None:
        self.value = np.zeros(CODES, dtype=np.uint8)
        self.scratch = np.zeros(CODES, dtype=np.uint8)
        self.progress = progress or (lambda _label: None)

    def full_boards(self) -> list[Bytes]:
        """The full layer before any extra press, then after 1..4 of them (``layer_pairs``
        order)."""
        mover, other = layer_pairs(FULL_LAYER)
        over = HAS_LINE[mover] | HAS_LINE[other]
        pressed_code = code(PRESSED[other], PRESSED[mover])  # opponent's view after the press
        blocks: list[Bytes] = []
        # After the 5th extra press the game is drawn with nothing left to play.
        then = np.full(len(mover), encode(Value.DRAW, 0), dtype=np.uint8)
        for extra in range(EXTRA_BLOCKS, -1, -1):
            # The mover presses: in _after_press's terms the presser is the second mask.
            values = _after_press(other, mover, then)
            values[over] = NO_POSITION
            blocks.insert(0, values)
            self.scratch[code(mover, other)] = values
            then = self.scratch[pressed_code]
            self.progress(f"full board, {extra} extra presses")
        self.value[code(mover, other)] = blocks[0]
        return blocks

    def layer(self, placed: int) -> Bytes:
        """Value layer ``placed`` from the values of layer ``placed + 1``."""
        self._fill_after_turn(placed + 1)
        own, other = layer_pairs(placed)
        own_code = code(own, other)
        empty = 0xFFFF ^ (own | other)
        best_place = self._best_placement(placed, code(other, own), empty)
        self.scratch[own_code] = best_place
        values = best_place.copy()
        for src, dst in STEPS:  # move an opponent marble src -> dst, then place at best
            at = np.flatnonzero((other >> src) & (empty >> dst) & 1)
            moved = self.scratch[own_code[at] + 2 * (POW3[dst] - POW3[src])]
            values[at] = np.maximum(values[at], moved)
        values[HAS_LINE[own] | HAS_LINE[other]] = NO_POSITION
        self.value[own_code] = values
        self.progress(f"{placed} marbles")
        return values

    def _best_placement(self, placed: int, swapped: Ints, empty: Ints) -> Bytes:
        """For each pair, the best turn that only places (``swapped``: the pair's code from
        the opponent's side, to which a placement on p adds 2 * 3**p)."""
        # A whole row of pairs (one occupied mask) has the same empty squares.
        rows = comb(SQUARE_COUNT, placed)
        row_empty, row_swapped = empty[:: len(empty) // rows], swapped.reshape(rows, -1)
        best = np.zeros(row_swapped.shape, dtype=np.uint8)
        for square in range(SQUARE_COUNT):
            at = np.flatnonzero((row_empty >> square) & 1)
            child = self.scratch[row_swapped[at] + 2 * POW3[square]]
            best[at] = np.maximum(best[at], child)
        flat: Bytes = best.ravel()
        return flat

    def _fill_after_turn(self, placed: int) -> None:
        """``scratch`` by pre-press code of layer ``placed``: what the turn is worth to its
        maker, whose marbles are the second mask."""
        first, second = layer_pairs(placed)
        then = self.value[code(PRESSED[first], PRESSED[second])]
        self.scratch[code(first, second)] = _after_press(first, second, then)


def solve_blocks(lowest: int = 0, progress: Progress | None = None) -> Iterator[Bytes]:
    """The table's blocks from layer ``lowest`` to the last extra-press block, in table
    order (built from the top down, so they are yielded once all are done)."""
    solver = Solver(progress)
    full = solver.full_boards()
    layers = [solver.layer(n) for n in range(FULL_LAYER - 1, lowest - 1, -1)]
    for placed, values in zip(range(lowest, FULL_LAYER), reversed(layers), strict=True):
        yield table_order(values, placed)
    for values in full:
        yield table_order(values, FULL_LAYER)


def solve(lowest: int = 0, progress: Progress | None = None) -> bytes:
    """The table bytes from layer ``lowest`` to the end (all of it for ``lowest`` = 0)."""
    return b"".join(block.tobytes() for block in solve_blocks(lowest, progress))


def step_count(lowest: int = 0) -> int:
    """How many progress steps ``solve(lowest)`` reports."""
    return EXTRA_BLOCKS + 1 + FULL_LAYER - lowest
