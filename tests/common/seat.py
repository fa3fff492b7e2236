"""What the seat's tests share (tests/test_seat*.py): a short game to play against a seat."""

from __future__ import annotations

GAME = "b1 b4 c3 a1 c2 c4 a1".split()
"""A short game, black (the person at the board) first; white (the seat) plays b4, a1, c4;
black wins on turn 7 (found with the rules; test_seat.py checks it)."""
