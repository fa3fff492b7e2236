"""Write N random complete games as `replay --batch` input (JSON lines) to stdout.

python benchmarks/random_games.py 10000 [SEED] > games.jsonl
"""

from __future__ import annotations

import json
import random
import sys

from orbito_hw import Colour, Position


def random_game(rng: random.Random) -> dict[str, str]:
    first = rng.choice(list(Colour))
    position, tokens = Position.start(first), []
    while position.result is None:
        turn = rng.choice(list(position.legal_turns()))
        tokens.append(turn.notation())
        position = position.play(turn)
    return {"first": first.value, "moves": " ".join(tokens)}


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 10000
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 1)
    for _ in range(count):
        print(json.dumps(random_game(rng)))


if __name__ == "__main__":
    main()
