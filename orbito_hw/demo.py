"""A demo game drawn in the terminal (until the simulated board's controller takes over)."""

from __future__ import annotations

import random

from .game import Colour, Position


def draw(position: Position) -> str:
    rows = []
    for i, rank in enumerate(position.board().split("/")):
        rows.append(f"{4 - i} " + " ".join({"B": "●", "W": "○", ".": "·"}[c] for c in rank))
    rows.append("  a b c d")
    return "\n".join(rows)


def run_demo(seed: int | None = None) -> int:
    rng = random.Random(seed)
    position = Position.start(Colour.BLACK)
    number = 0
    while position.result is None:
        turns = list(position.legal_turns())
        turn = rng.choice(turns)
        mover = position.to_move
        position = position.play(turn)
        number += 1
        print(f"turn {number}: {mover} {turn.notation()}")
        print(draw(position))
    print(f"result: {position.result}")
    return 0
