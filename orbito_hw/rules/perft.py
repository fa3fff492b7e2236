"""Counting turn sequences (perft), the engine's golden test.

The count walks raw masks with a transposition table keyed by (side to move's marbles,
the other side's marbles, extra presses, depth): sequences that transpose into the same
position share their subtree, and the last ply is counted by arithmetic, not generated.
"""

from __future__ import annotations

from orbito_hw.rules.game import EXTRA_PRESSES, Colour, Position
from orbito_hw.rules.squares import BB_ADJACENT, BB_ALL, BB_SQUARES, has_line, press, squares_of


def perft(depth: int, position: Position | None = None) -> int:
    """The number of turn sequences of exactly ``depth`` turns (a game-ending turn is a leaf)."""
    if depth < 0:
        raise ValueError(f"perft depth {depth} is negative")
    position = position or Position.start(Colour.BLACK)
    if position.result is not None:
        return 1 if depth == 0 else 0
    own, other = position.marbles(position.to_move), position.marbles(position.to_move.other)
    return _count(own, other, position.extra_presses, depth, {})


def _count_turns(own: int, other: int) -> int:
    empty = BB_ALL & ~(own | other)
    if not empty:
        return 1
    moves = sum((BB_ADJACENT[s] & empty).bit_count() for s in squares_of(other))
    return empty.bit_count() * (1 + moves)


def _children(own: int, other: int) -> list[tuple[int, int]]:
    """(own, other) after each legal turn and its press; the board is not full."""
    empty = BB_ALL & ~(own | other)
    out = [(own | BB_SQUARES[p], other) for p in squares_of(empty)]
    for src in squares_of(other):
        for dst in squares_of(BB_ADJACENT[src] & empty):
            moved = other ^ BB_SQUARES[src] ^ BB_SQUARES[dst]
            free = empty ^ BB_SQUARES[src] ^ BB_SQUARES[dst]
            out.extend((own | BB_SQUARES[p], moved) for p in squares_of(free))
    return [(press(a), press(b)) for a, b in out]


def _count(
    own: int, other: int, extra: int, depth: int, memo: dict[tuple[int, int, int, int], int]
) -> int:
    if depth == 0:
        return 1
    if depth == 1:
        return _count_turns(own, other)
    key = (own, other, extra, depth)
    cached = memo.get(key)
    if cached is not None:
        return cached
    if own | other == BB_ALL:
        children = [(press(own), press(other))]
        extra += 1
    else:
        children = _children(own, other)
    total = 0
    for a, b in children:
        if has_line(a) or has_line(b) or (extra >= EXTRA_PRESSES and a | b == BB_ALL):
            continue  # the game ended: a leaf, so no sequence of this length passes through it
        total += _count(b, a, extra, depth - 1, memo)
    memo[key] = total
    return total


def perft_naive(depth: int, position: Position | None = None) -> int:
    """The same count by playing every turn through Position: slow, for cross-checks."""
    position = position or Position.start(Colour.BLACK)
    if depth == 0:
        return 1
    if position.result is not None:
        return 0
    return sum(perft_naive(depth - 1, position.play_unchecked(t)) for t in position.legal_turns())
