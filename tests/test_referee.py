"""The referee on the simulated board, driven by board scripts."""

from __future__ import annotations

import random

import pytest

from orbito_hw.control.referee import TRANSITIONS, State
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.sim.harness import PRESS_TIME, MockRun
from orbito_hw.sim.script import Command, parse_script

from .common.scripts import ILLEGAL, OPENING, game_script, kinds, random_game, run_script


def turns_of(events: list[dict[str, object]]) -> list[str]:
    return [str(e["turn"]) for e in kinds(events, "turn")]


def test_the_worked_example_through_the_whole_controller() -> None:
    events = run_script(OPENING + "lift c1\nput c2\nput a2\npress\n")
    assert turns_of(events) == ["b1", "c1-c2:a2"]
    assert kinds(events, "turn")[-1]["board"] == "..../..W./..../B..."
    assert kinds(events, "rejected", "correction") == []


def test_placement_before_the_move_is_the_same_turn() -> None:
    events = run_script(OPENING + "put a2\nlift c1\nput c2\npress\n")
    assert turns_of(events) == ["b1", "c1-c2:a2"]


def test_move_then_place_on_the_vacated_square_is_not_a_placement_on_the_new_square() -> None:
    # Same occupancy as "place c2", but the order of lifts and puts says otherwise.
    events = run_script(OPENING + "lift c1\nput c2\nput c1\npress\n")
    assert turns_of(events) == ["b1", "c1-c2:c1"]
    assert kinds(events, "turn")[-1]["board"] == "..../..W./..../...B"


def test_a_marble_lifted_and_put_back_is_no_move() -> None:
    events = run_script(OPENING + "lift c1\nput c1\nput a2\npress\n")
    assert turns_of(events) == ["b1", "a2"]


@pytest.mark.parametrize(
    ("name", "opening", "turn", "words", "squares", "fix", "accepted"),
    ILLEGAL,
    ids=[i[0] for i in ILLEGAL],
)
def test_illegal_turns_are_refused_with_their_squares_then_accepted_once_fixed(
    name: str, opening: str, turn: str, words: str, squares: list[str], fix: str, accepted: str
) -> None:
    before = turns_of(run_script(opening))
    events = run_script(opening + turn + "press\n" + fix + "press\n")
    rejected = kinds(events, "rejected")
    assert len(rejected) == 1, events
    assert words in str(rejected[0]["reason"])
    assert sorted(rejected[0]["squares"]) == squares  # type: ignore[call-overload]
    assert turns_of(events) == [*before, accepted]


def test_a_move_or_placement_after_the_game_ended_is_never_a_turn() -> None:
    rng = random.Random(11)
    first, turns = random_game(rng)
    commands = game_script(first, turns, rng)
    final = replay(first, [t.notation() for t in turns])
    empty = (
        next(sq for sq in range(16) if not final.occupied >> sq & 1) if not final.is_full else None
    )
    extra = [
        Command("lift", square=next(iter(range(16))))
        if final.colour_at(0)
        else Command("wait", seconds=1)
    ]
    if empty is not None:
        extra.append(Command("put", square=empty))
    events = run_script([*commands, *extra, Command("press"), Command("press")])
    assert len(kinds(events, "turn")) == len(turns)
    assert len(kinds(events, "result")) == 1


def test_presses_during_a_ring_move_are_ignored() -> None:
    run = MockRun()
    try:
        run.run_script(parse_script(OPENING + "put a2\n"))
        run.finger(True)
        run.advance(0.05)
        run.finger(False)
        for _ in range(3):  # the rings are still turning: these presses must do nothing
            assert run.drive.moving
            run.finger(True)
            run.advance(0.02)
            run.finger(False)
            run.advance(0.02)
        run.finish()
        assert turns_of(run.events) == ["b1", "a2"]
        assert kinds(run.events, "rejected") == []
    finally:
        run.close()


@pytest.mark.parametrize("square", range(16))
def test_chatter_on_any_square_changes_nothing(square: int) -> None:
    rng = random.Random(square)
    first, turns = random_game(rng)
    commands = game_script(first, turns[:8], rng)
    baseline = run_script(commands)
    name = "abcd"[square % 4] + str(square // 4 + 1)
    noisy: list[Command] = []
    for command in commands:
        noisy.append(command)
        if command.name != "reset":
            noisy.append(parse_script(f"bounce {name}")[0])
    assert run_script(noisy) == baseline


@pytest.mark.parametrize("steps", [1, 19, 21, 100, 199, 200])
def test_lost_steps_are_recovered(steps: int) -> None:
    rng = random.Random(steps)
    first, turns = random_game(rng)
    commands = game_script(first, turns, rng)
    baseline = run_script(commands)
    presses = [i for i, c in enumerate(commands) if c.name == "press"]
    slipped = list(commands)
    for i in reversed(presses[::3]):
        slipped.insert(i, Command("slip", steps=steps))
    assert run_script(slipped) == baseline


def test_a_marble_knocked_off_during_the_move_means_correction_until_put_back() -> None:
    run = MockRun()
    try:
        run.run_script(parse_script(OPENING + "put a2\npress\n"))
        assert run.referee.state is State.WAITING
        # A marble falls out of its pocket as the rings turn.
        run.run_script(parse_script("put d4\n"))
        run.finger(True)
        run.advance(PRESS_TIME)
        run.finger(False)  # the press counts on release (a hold would take back a turn)
        run.advance(0.01)
        assert run.referee.state is State.ROTATING
        run.physics.pockets.pop(
            next(p for p, c in run.physics.pockets.items() if c is Colour.BLACK)
        )
        run.physics._changed()
        run.wait_for_rings()
        run.advance(1.0)
        assert kinds(run.events, "correction")
        assert run.referee.state is State.CORRECTION
        assert run.lights.frame.count(None) < 16  # type: ignore[attr-defined]
    finally:
        run.close()


def test_random_games_as_board_scripts_give_the_engines_results() -> None:
    rng = random.Random(2026)
    for _ in range(40):
        first, turns = random_game(rng)
        events = run_script(game_script(first, turns, rng))
        position = Position.start(first)
        for turn, event in zip(turns, kinds(events, "turn"), strict=True):
            position = position.play(turn)
            assert event["turn"] == turn.notation() and event["board"] == position.board()
        (result,) = kinds(events, "result")
        assert position.result is not None and result["result"] == position.result.value
        assert result["lines"] == position.line_names()
        assert kinds(events, "rejected", "correction", "fault") == []


def test_a_power_cut_at_every_command_of_a_whole_game_gives_the_same_game(tmp_path: object) -> None:
    rng = random.Random(5)
    first, turns = random_game(rng)
    commands = game_script(first, turns, rng)
    baseline = run_script(commands)
    for cut in range(1, len(commands) + 1):
        cut_script = [*commands[:cut], Command("power-cut"), *commands[cut:]]
        assert run_script(cut_script) == baseline, f"power cut after command {cut}"


@pytest.mark.parametrize("after", [0.0, 0.03, 0.08, 0.15, 0.25, 0.31, 0.34, 0.36, 0.5])
def test_a_power_cut_in_the_middle_of_a_ring_move_loses_nothing(after: float) -> None:
    rng = random.Random(8)
    first, turns = random_game(rng)
    commands = game_script(first, turns, rng)
    baseline = run_script(commands)
    run = MockRun()
    try:
        presses = 0
        for i, command in enumerate(commands):
            if command.name == "press" and presses % 2 == 1:
                run.finger(True)
                run.advance(PRESS_TIME)
                run.finger(False)  # the turn is accepted and the rings start on release
                run.advance(after)
                run.power_cut()
                run.advance(0.3)
            else:
                run.run(command, first_command=i == 0)
            presses += command.name == "press"
        run.finish()
        assert turns_of(run.events) == turns_of(baseline)
        assert kinds(run.events, "result") == kinds(baseline, "result")
    finally:
        run.close()


def test_a_damaged_journal_is_kept_aside_and_reported(tmp_path: object) -> None:
    from pathlib import Path

    state = Path(str(tmp_path))
    (state / "game.json").write_text('{"format": 1, "game": 1, "first": "black", "turns": ["zz"]')
    run = MockRun(state)
    try:
        faults = kinds(run.events, "fault")
        assert len(faults) == 1 and "damaged" in str(faults[0]["reason"])
        assert (state / "game.json.damaged-1").exists()
        assert run.referee.state is State.WAITING
    finally:
        run.close()


def test_hold_on_an_empty_board_starts_a_new_game_and_a_short_press_changes_who_starts() -> None:
    events = run_script("press\npress\nhold 2.5\nput a1\npress\n")
    firsts = [e["colour"] for e in kinds(events, "first")]
    assert firsts == ["white", "black"]
    (turn,) = kinds(events, "turn")
    assert turn["colour"] == "black" and turn["game"] == 1  # nothing was played: still game 1


def test_reset_starts_the_next_game_except_at_the_top_of_the_script() -> None:
    events = run_script("reset white\nput a1\npress\nreset black\nput a1\npress\n")
    assert [(e["game"], e["colour"]) for e in kinds(events, "turn")] == [(1, "white"), (2, "black")]


def test_every_state_has_a_way_out() -> None:
    sources = {s for s, _ in TRANSITIONS}
    targets = set(TRANSITIONS.values())
    assert sources == set(State) and targets <= set(State)


def test_marbles_of_one_colour_are_alike_so_swapping_two_is_no_move() -> None:
    # Found by hypothesis: black puts a new marble on a1, picks it up with its b1 marble,
    # then puts them back on a1 and b1 the other way round. The board shows "place a1".
    script = (
        "reset black\nput a1\npress\n"  # black a1 -> b1
        "lift b1\nput a1\nput b1\npress\n"  # white: b1-a1:b1, then the press: a1 -> b1, b1 -> c1
        "put a1\nlift a1\nlift b1\nput a1\nput b1\npress\n"
    )
    events = run_script(script)
    assert turns_of(events) == ["a1", "b1-a1:b1", "a1"]
    assert kinds(events, "rejected") == []
