"""The simulated person behind the board scripts: they wait for the rings before acting."""

from __future__ import annotations

import random

from orbito_hw.rules.game import Colour, Position
from orbito_hw.sim.script import parse_script

from .common.scripts import game_script, kinds, run_script


def test_a_press_after_lost_steps_waits_for_the_rings_so_no_extra_press_is_lost() -> None:
    # A game that runs to the extra presses: after a slip the rings home for longer than a
    # person's pause, and a press while they turn would be ignored by the referee.
    rng = random.Random(0)
    while True:
        first = rng.choice(list(Colour))
        position, turns = Position.start(first), []
        while position.result is None:
            turn = rng.choice(list(position.legal_turns()))
            turns.append(turn)
            position = position.play(turn)
        if turns[-1].notation() == "*" and turns[-2].notation() == "*":
            break
    commands = game_script(first, turns, rng)
    presses = [i for i, c in enumerate(commands) if c.name == "press"]
    last_press = presses[-2]  # lost steps on the second-last press: the last comes early
    commands.insert(last_press, parse_script("slip 199")[0])
    events = run_script(commands)
    assert [e["turn"] for e in kinds(events, "turn")] == [t.notation() for t in turns]
    assert position.result is not None
    assert [e["result"] for e in kinds(events, "result")] == [position.result.value]
