"""The game's counts in words, in one place for every message (the log, the page, the CLI):
``counted(1, "turn")`` is "1 turn", ``counted(3, "turn")`` "3 turns"."""

from __future__ import annotations


def counted(n: int, noun: str) -> str:
    """A count and its noun, singular for one (the nouns here all take an "s")."""
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
