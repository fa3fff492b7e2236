"""How many touches a set-up by the LEDs takes, for random positions (issue 28).

    python benchmarks/setup_touches.py [POSITIONS] [SEED]

Each position is what a random record of 0 to 16 turns reaches (a game still going on). A
simulated person follows the LEDs on the simulated board, through the whole controller: the
bright squares first (the colour that placed first), then the others, lifting a marble that
blinks red; one in ten of their puts lands on a wrong square first (flagged, lifted, put
right). Two starts: the empty board (a game resumed after the board was cleared), and a
board holding another random position (set up over a game left on the board: the marbles
of the wrong colour on squares asked for are swapped, a lift and a put). Printed: touches
(puts and lifts) per set-up, and the simulated seconds to ``setup-done`` at a touch every
0.3 s, mean, median and worst; every set-up must end in ``setup-done`` on the right board.
"""

from __future__ import annotations

import random
import statistics
import sys

from orbito_hw.control.setup import squares_asked
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import SQUARES, squares_of
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command

MISTAKES = 0.1  # the share of puts that go on a wrong square first


def random_position(rng: random.Random) -> tuple[Colour, list[str], Position]:
    first = rng.choice(list(Colour))
    position, tokens = Position.start(first), []
    for _ in range(rng.randint(0, 16)):
        turns = [t for t in position.legal_turns() if position.play(t).result is None]
        if not turns:
            break
        turn = rng.choice(turns)
        tokens.append(turn.notation())
        position = position.play(turn)
    return first, tokens, position


def follow(run: MockRun, rng: random.Random) -> int:
    """A person following the LEDs until the set-up is done; the touches they made."""
    touches = 0
    while run.referee.state.name == "SETTING_UP":
        view = run.referee.view()
        if view.extra:
            square = rng.choice(view.extra)
            run.run(Command("lift", square=square))
        else:
            square, colour = rng.choice(view.missing)
            reading, target = run.physics.occupancy(), run.referee.position.occupied
            free = [sq for sq in SQUARES if not (reading | target) >> sq & 1]
            if rng.random() < MISTAKES and free:
                square = rng.choice(free)  # a slip of the hand: the LED says so next
            run.run(Command("put", square=square, colour=colour))
        touches += 1
    return touches


def one(rng: random.Random, over: bool) -> tuple[int, float]:
    run = MockRun()
    try:
        if over:  # another position on the board first, its marbles where that one has them
            _, _, before = random_position(rng)
            for sq, colour in squares_asked(before):
                run.physics.put(sq, colour)
            run.advance(1.0)
        first, tokens, target = random_position(rng)
        touches = 0
        for sq, colour in squares_asked(target):  # the wrong colour on a square asked for
            if run.physics.occupancy() >> sq & 1 and run.physics.colour_at(sq) is not colour:
                run.physics.lift(sq)
                run.physics.empty_hand()
                run.physics.put(sq, colour)
                touches += 2
        start = run.clock.now()
        run.run(Command("setup", colour=first, moves=tuple(tokens)), first_command=True)
        touches += follow(run, rng)
        seconds = run.clock.now() - start
        done = [e for e in run.events if e["event"] == "setup-done"]
        assert done and done[-1]["board"] == target.board() == run.physics.position_string()
        assert run.physics.occupancy() == target.occupied
        assert not set(squares_of(run.physics.occupancy() ^ target.occupied))
        return touches, seconds
    finally:
        run.close()


def report(name: str, figures: list[tuple[int, float]]) -> None:
    touches = [t for t, _ in figures]
    seconds = [s for _, s in figures]
    print(
        f"{name}: touches mean {statistics.mean(touches):.1f}, median "
        f"{statistics.median(touches):g}, worst {max(touches)}; seconds mean "
        f"{statistics.mean(seconds):.1f}, worst {max(seconds):.1f} ({len(figures)} set-ups)"
    )


def main() -> None:
    count = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    rng = random.Random(int(sys.argv[2]) if len(sys.argv) > 2 else 28)
    report("from the empty board", [one(rng, over=False) for _ in range(count)])
    report("over another position", [one(rng, over=True) for _ in range(count)])


if __name__ == "__main__":
    main()
