"""Counting turn sequences (perft), the engine's golden test.

The count walks raw masks with a transposition table: sequences that transpose into the same
position share their subtree. Three things keep it fast:

- the last two plies are counted by arithmetic, not generated;
- a quarter turn of the board commutes with the press and keeps lines and neighbours, so the
  four rotations of a position share one entry of the table;
- no game is longer than ``LONGEST_GAME`` turns (every square placed, then the extra
  presses), so a depth beyond what is left of the game counts 0 at once.

Even so the work grows two- to threefold per ply up to the middle of the game, so the
command line refuses depths beyond ``COUNTED_DEPTH``, whose count would take minutes.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import Final

from orbito_hw.rules.game import EXTRA_PRESSES, Colour, Position
from orbito_hw.rules.squares import (
    BB_ADJACENT,
    BB_ALL,
    BB_SQUARES,
    PRESS_TO,
    SQUARES,
    has_line,
    press,
    squares_of,
)

LONGEST_GAME: Final = len(SQUARES) + EXTRA_PRESSES
"""No game has more turns: each turn places a marble until the board is full, then only the
extra presses are left (a game-ending turn is a leaf, so perft is 0 beyond this)."""

COUNTED_DEPTH: Final = 9
"""The deepest count the command line makes: perft 9 takes 7 s and 37 MB on a desktop (and
perft 10 20 s and 75 MB, perft 11 44 s and 127 MB); a Raspberry Pi is several times slower."""

_FILE_A: Final = 0x1111
_FILE_D: Final = 0x8888


def turns_left(position: Position) -> int:
    """The most turns the game from ``position`` can still last."""
    if position.result is not None:
        return 0
    marbles = (position.marbles(Colour.BLACK) | position.marbles(Colour.WHITE)).bit_count()
    return len(SQUARES) - marbles + EXTRA_PRESSES - position.extra_presses


def perft(depth: int, position: Position | None = None) -> int:
    """The number of turn sequences of exactly ``depth`` turns (a game-ending turn is a leaf)."""
    if depth < 0:
        raise ValueError(f"perft depth {depth} is negative")
    position = position or Position.start(Colour.BLACK)
    if depth == 0:
        return 1
    if depth > turns_left(position):
        return 0
    own, other = position.marbles(position.to_move), position.marbles(position.to_move.other)
    return _count(own, other, position.extra_presses, depth, {})


def _neighbour_pairs(marbles: int, empty: int) -> int:
    """How many (marble, orthogonally adjacent empty square) pairs there are: each shift
    pairs every square with its neighbour on one side, so four popcounts count them all."""
    return (
        (((marbles & ~_FILE_D) << 1) & empty).bit_count()
        + (((marbles & ~_FILE_A) >> 1) & empty).bit_count()
        + ((marbles << 4) & empty).bit_count()
        + ((marbles >> 4) & empty).bit_count()
    )


def _count_turns(own: int, other: int) -> int:
    """The legal turns of the side with ``own`` to move: a placement on each empty square,
    each after no move or one of the opponent's steps (a step keeps the number of empties)."""
    empty = BB_ALL & ~(own | other)
    if not empty:
        return 1  # the one extra press
    return empty.bit_count() * (1 + _neighbour_pairs(other, empty))


def _moves(other: int, empty: int) -> list[tuple[int, int]]:
    """(the opponent's marbles, the empty squares) after no move and after each step."""
    out = [(other, empty)]
    for src in _squares(other):
        for dst in _squares(BB_ADJACENT[src] & empty):
            step = BB_SQUARES[src] | BB_SQUARES[dst]
            out.append((other ^ step, empty ^ step))
    return out


def _children(own: int, other: int) -> list[tuple[int, int]]:
    """(own, other) after each legal turn and its press; the board is not full."""
    out: list[tuple[int, int]] = []
    for moved, free in _moves(other, BB_ALL & ~(own | other)):
        after = press(moved)
        out.extend((press(own | BB_SQUARES[p]), after) for p in _squares(free))
    return out


def _count_two(own: int, other: int) -> int:
    """perft(2) of a position whose board is not full: for each turn that does not end the
    game, the opponent's turns by arithmetic (the empties are one fewer after any turn)."""
    lines = _line_table()
    pressed = press(own)
    total = 0
    for moved, free in _moves(other, BB_ALL & ~(own | other)):
        after = press(moved)
        if lines[after]:
            continue  # the opponent has a line whatever is placed: every such turn ends it
        empty = press(free)
        pairs = _neighbour_pairs(pressed, empty)
        for p in _squares(free):
            square = PRESS_TO[p]  # the press moves each marble on its own
            if lines[pressed | BB_SQUARES[square]]:
                continue
            # The placed marble joins our marbles and leaves the empties: its own neighbours
            # are the only pairs that change.
            near = BB_ADJACENT[square]
            total += 1 + pairs + (near & empty).bit_count() - (near & pressed).bit_count()
    return total * ((BB_ALL & ~(own | other)).bit_count() - 1 or 1)


def _count(own: int, other: int, extra: int, depth: int, memo: dict[int, int]) -> int:
    if depth == 1:
        return _count_turns(own, other)
    # Within one count the depth left follows from the marbles and presses made, so it is not
    # part of the key; the smallest rotation stands for all four.
    key = _canonical(own, other) << 3 | extra  # extra is 0..5
    cached = memo.get(key)
    if cached is not None:
        return cached
    full = own | other == BB_ALL
    if depth == 2 and not full:
        memo[key] = _count_two(own, other)
        return memo[key]
    if full:
        children = [(press(own), press(other))]
        extra += 1
    else:
        children = _children(own, other)
    total = 0
    lines = _line_table()
    for a, b in children:
        if lines[a] or lines[b] or (extra >= EXTRA_PRESSES and a | b == BB_ALL):
            continue  # the game ended: a leaf, so no sequence of this length passes through it
        total += _count(b, a, extra, depth - 1, memo)
    memo[key] = total
    return total


# --- tables ------------------------------------------------------------------------------
def _quarter_turn() -> tuple[int, ...]:
    """Where each square goes when the whole board turns a quarter counter-clockwise."""
    return tuple((3 - (sq >> 2)) | (sq & 3) << 2 for sq in SQUARES)


def _byte_tables(to: Sequence[int]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The permutation ``to`` of squares as two byte tables (low and high byte of a mask)."""

    def table(offset: int) -> tuple[int, ...]:
        return tuple(
            sum(1 << to[bit + offset] for bit in range(8) if byte >> bit & 1) for byte in range(256)
        )

    return table(0), table(8)


QUARTER_TURN: Final = _quarter_turn()
_SQUARES_LO: Final = tuple(tuple(squares_of(byte)) for byte in range(256))
_SQUARES_HI: Final = tuple(tuple(s + 8 for s in squares_of(byte)) for byte in range(256))
_TURN_LO, _TURN_HI = _byte_tables(QUARTER_TURN)


def quarter_turn(mask: int) -> int:
    """``mask`` with the board turned a quarter: it commutes with the press."""
    return _TURN_LO[mask & 0xFF] | _TURN_HI[mask >> 8]


def _canonical(own: int, other: int) -> int:
    """The smallest ``own << 16 | other`` of the four rotations (inlined: it runs per node)."""
    best = own << 16 | other
    for _ in range(3):
        own = _TURN_LO[own & 0xFF] | _TURN_HI[own >> 8]
        other = _TURN_LO[other & 0xFF] | _TURN_HI[other >> 8]
        key = own << 16 | other
        if key < best:
            best = key
    return best


def _squares(mask: int) -> tuple[int, ...]:
    """``squares_of`` by two byte tables: it runs for every node."""
    return _SQUARES_LO[mask & 0xFF] + _SQUARES_HI[mask >> 8]


@cache
def _line_table() -> bytes:
    """``has_line`` for every mask, built on the first count (about 0.1 s, 64 KB)."""
    return bytes(has_line(mask) for mask in range(BB_ALL + 1))


def perft_naive(depth: int, position: Position | None = None) -> int:
    """The same count by playing every turn through Position: slow, for cross-checks."""
    position = position or Position.start(Colour.BLACK)
    if depth == 0:
        return 1
    if position.result is not None:
        return 0
    return sum(perft_naive(depth - 1, position.play_unchecked(t)) for t in position.legal_turns())
