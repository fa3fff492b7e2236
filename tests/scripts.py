"""Helpers that write board scripts and run them through the whole controller."""

from __future__ import annotations

import random

from orbito_hw.control.referee import Event
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, parse_script


def random_game(rng: random.Random, first: Colour | None = None) -> tuple[Colour, list[Turn]]:
    first = first or rng.choice(list(Colour))
    position, turns = Position.start(first), []
    while position.result is None:
        turn = rng.choice(list(position.legal_turns()))
        turns.append(turn)
        position = position.play(turn)
    return first, turns


def game_script(first: Colour, turns: list[Turn], rng: random.Random) -> list[Command]:
    commands = [Command("reset", colour=first)]
    for turn in turns:
        commands += turn_commands(turn, rng)
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
