"""Helpers that write board scripts and run them through the whole controller."""

from __future__ import annotations

import random
from typing import TypeAlias

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, parse_script

Event: TypeAlias = dict[str, object]  # an event as run --mock --events prints it (JSON)


def random_game(rng: random.Random, first: Colour | None = None) -> tuple[Colour, list[Turn]]:
    first = first or rng.choice(list(Colour))
    position, turns = Position.start(first), []
    while position.result is None:
        turn = rng.choice(list(position.legal_turns()))
        turns.append(turn)
        position = position.play(turn)
    return first, turns


def game_script(
    first: Colour, turns: list[Turn], rng: random.Random, board: bool = False
) -> list[Command]:
    """A reset, then ``turns`` made by hand (as the board shows them, with ``board``)."""
    commands = [Command("reset", colour=first)]
    for turn in turns:
        commands += turn_commands(turn, rng, board)
    return commands


def script_text(commands: list[Command]) -> str:
    return "\n".join(c.text() for c in commands) + "\n"


def run_script(text_or_commands: str | list[Command], state_dir: str | None = None) -> list[Event]:
    commands = (
        parse_script(text_or_commands) if isinstance(text_or_commands, str) else text_or_commands
    )
    run = MockRun(state_dir)
    try:
        run.run_script(commands)
        return run.events
    finally:
        run.close()


def kinds(events: list[Event], *names: str) -> list[Event]:
    return [e for e in events if e["event"] in names]


def undo_commands(turn: Turn) -> list[Command]:
    """What a person does to undo ``turn`` once the rings have turned back: the placed marble
    off the board, the moved marble back where it came from (an extra press: nothing)."""
    commands = [Command("lift", square=turn.place)] if turn.place is not None else []
    if turn.move_from is not None and turn.move_to is not None:
        commands += [Command("lift", square=turn.move_to), Command("put", square=turn.move_from)]
    return commands


# The opening the referee's tests start from: white's b1, which the press turns to c1.
OPENING = """
reset white
put b1
press            # white b1 -> c1
"""


# Each illegal kind: the turn, the refusal's words and squares, then the fix that is accepted.
ILLEGAL = [
    (
        "own marble moved",
        "reset white\nput b1\npress\nput a2\npress\n",
        "lift d1\nput d2\nput d4\n",
        "holds your own marble",
        ["d1"],
        "lift d2\nput d1\n",
        "d4",
    ),
    (
        "diagonal move",
        OPENING,
        "lift c1\nput d2\nput a2\n",
        "orthogonally adjacent",
        ["c1", "d2"],
        "lift d2\nput c2\n",
        "c1-c2:a2",
    ),
    (
        "two-square move",
        OPENING,
        "lift c1\nput a1\nput a2\n",
        "orthogonally adjacent",
        ["a1", "c1"],
        "lift a1\nput b1\n",
        "c1-b1:a2",
    ),
    (
        "two placements",
        OPENING,
        "put a2\nput a3\n",
        "only one marble",
        ["a2", "a3"],
        "lift a3\n",
        "a2",
    ),
    ("no placement", OPENING, "", "place one of your own marbles", [], "put d4\n", "d4"),
    (
        "only a move",
        OPENING,
        "lift c1\nput c2\n",
        "place one of your own marbles",
        [],
        "put d4\n",
        "c1-c2:d4",
    ),
    (
        "marble not put back",
        OPENING,
        "put a2\nlift c1\n",
        "not back on the board",
        ["c1"],
        "put c1\n",
        "a2",
    ),
]
