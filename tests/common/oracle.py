"""An obviously-correct, slow model of Orbito, written apart from orbito_hw.

Squares are (file, rank) pairs 0..3; the board a dict from square to "B"/"W". The rings are
copied from the rulebook's figure as coordinate cycles, lines are enumerated by brute force,
and turns by trying every (from, to, place) triple. Nothing here imports the engine.
"""

from __future__ import annotations

from itertools import product

Square = tuple[int, int]
Board = dict[Square, str]

ALL = [(f, r) for r in range(4) for f in range(4)]
_OUTER = ["a4", "a3", "a2", "a1", "b1", "c1", "d1", "d2", "d3", "d4", "c4", "b4"]
_INNER = ["b2", "c2", "c3", "b3"]


def sq(name: str) -> Square:
    return ("abcd".index(name[0]), int(name[1]) - 1)


def name(s: Square) -> str:
    return "abcd"[s[0]] + str(s[1] + 1)


def rotate(board: Board) -> Board:
    out: Board = {}
    for ring in (_OUTER, _INNER):
        for i, n in enumerate(ring):
            if sq(n) in board:
                out[sq(ring[(i + 1) % len(ring)])] = board[sq(n)]
    return out


def lines() -> list[list[Square]]:
    found = []
    for r in range(4):
        found.append([(f, r) for f in range(4)])
    for f in range(4):
        found.append([(f, r) for r in range(4)])
    found.append([(i, i) for i in range(4)])
    found.append([(i, 3 - i) for i in range(4)])
    return found


def has_line(board: Board, colour: str) -> bool:
    return any(all(board.get(s) == colour for s in line) for line in lines())


def turns(board: Board, mover: str) -> list[tuple[str, Board]]:
    """Every legal (token, board before the press) for ``mover`` ("B" or "W")."""
    if len(board) == 16:
        return [("*", dict(board))]
    opponent = "W" if mover == "B" else "B"
    out = []
    for place in ALL:
        if place not in board:
            b = dict(board)
            b[place] = mover
            out.append((name(place), b))
    for src, dst, place in product(ALL, ALL, ALL):
        if board.get(src) != opponent or dst in board:
            continue
        if abs(src[0] - dst[0]) + abs(src[1] - dst[1]) != 1:
            continue
        b = dict(board)
        del b[src]
        b[dst] = opponent
        if place in b:
            continue
        b[place] = mover
        out.append((f"{name(src)}-{name(dst)}:{name(place)}", b))
    return out


def outcome(board: Board, extra_presses: int) -> str | None:
    """After a press: "black", "white", "draw" or None."""
    b, w = has_line(board, "B"), has_line(board, "W")
    if b and w:
        return "draw"
    if b:
        return "black"
    if w:
        return "white"
    if len(board) == 16 and extra_presses >= 5:
        return "draw"
    return None


def to_string(board: Board) -> str:
    return "/".join("".join(board.get((f, r), ".") for f in range(4)) for r in range(3, -1, -1))


def from_masks(black: int, white: int) -> Board:
    """A board from two 16-bit masks, bit ``rank * 4 + file``."""
    board: Board = {}
    for i, s in enumerate(ALL):
        if black >> i & 1:
            board[s] = "B"
        elif white >> i & 1:
            board[s] = "W"
    return board
