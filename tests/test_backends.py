"""Every board script gives the same controller events whichever drivers run it: the
simulated parts, the gpio/neopixel code on mock pins, the serial link to the Pico's
firmware logic on a pseudo-terminal, or the reference board's TMAG5273 backend on an
emulated I2C bus (each square's field from the magnetic model, a marble in a random pose)."""

from __future__ import annotations

import random

import pytest

from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command, parse_script

from .common.scripts import ILLEGAL, OPENING, game_script, random_game

BACKENDS = ["gpio", "serial", "tmag"]


def events_of(backend: str, commands: list[Command]) -> list[dict[str, object]]:
    run = MockRun(parts=backend)
    try:
        run.run_script(commands)
        return run.events
    finally:
        run.close()


def with_trouble(commands: list[Command]) -> list[Command]:
    """Power cut, lost steps and chatter at points spread over the game."""
    out = list(commands)
    out.insert(len(out) // 2, parse_script("power-cut")[0])
    out.insert(len(out) // 3, parse_script("slip 50")[0])
    out.insert(len(out) // 4, parse_script("bounce b2")[0])
    out.insert(2 * len(out) // 3, parse_script("slip 199")[0])
    return out


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("seed", range(4))
def test_random_games_give_identical_events(backend: str, seed: int) -> None:
    rng = random.Random(seed)
    first, turns = random_game(rng)
    commands = game_script(first, turns, rng)
    if seed % 2:
        commands = with_trouble(commands)
    expected = events_of("sim", commands)
    assert any(e["event"] == "result" for e in expected)
    assert events_of(backend, commands) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_refusals_and_their_fixes_give_identical_events(backend: str) -> None:
    for _, opening, turn, _, _, fix, _ in ILLEGAL:
        commands = parse_script(opening + turn + "press\n" + fix + "press\n")
        expected = events_of("sim", commands)
        assert any(e["event"] == "rejected" for e in expected)
        assert events_of(backend, commands) == expected


@pytest.mark.parametrize("backend", BACKENDS)
def test_hold_first_player_and_reset_give_identical_events(backend: str) -> None:
    commands = parse_script("press\nhold 2.5\n" + OPENING + "reset black\nput a1\npress\n")
    assert events_of(backend, commands) == events_of("sim", commands)
