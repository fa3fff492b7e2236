"""Take-backs (SPEC.md, "Playing against the board"): holding the button during a game takes
back its last turn; the rings turn back one place, the LEDs show what to undo, and once the
board shows the position before that turn, play goes on from there. Every step is journaled."""

from __future__ import annotations

import random
from collections.abc import Callable
from pathlib import Path

import pytest

from orbito_hw.control.events import TakeBack, TakenBack, TurnPlayed
from orbito_hw.control.journal import Journal
from orbito_hw.control.referee import State
from orbito_hw.control.settings import Settings
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import Command, parse_script
from orbito_hw.solver.opponents import parse_level

from .common.scripts import game_script, random_game, undo_commands

BACKENDS: list[Backend] = ["sim", "gpio", "serial"]
HOLD = Command("hold", seconds=2.5)  # longer than the hold time (2 s)


def game_with(kind: str) -> tuple[Colour, list[Turn], int]:
    """A random game and the number of a turn of ``kind`` in it: a placement, a move and
    place, an extra press, or the last turn of the finished game."""
    for seed in range(10_000):
        first, turns = random_game(random.Random(seed))
        for number, turn in enumerate(turns, 1):
            found = {
                "placement": turn.place is not None and turn.move_from is None,
                "move": turn.move_from is not None,
                "extra press": turn.is_extra_press,
                "finished game": number == len(turns),
            }[kind]
            if found:
                return first, turns, number
    raise AssertionError(f"no random game has a {kind}")


def take_back_commands(turn: Turn) -> list[Command]:
    return [HOLD, *undo_commands(turn)]


def of(run: MockRun, kind: type) -> list[object]:
    return [e for e in run.typed_events if isinstance(e, kind)]


@pytest.mark.parametrize("parts", BACKENDS)
@pytest.mark.parametrize("kind", ["placement", "move", "extra press", "finished game"])
def test_a_turn_taken_back_then_play_goes_on(parts: Backend, kind: str) -> None:
    first, turns, number = game_with(kind)
    rng = random.Random(number)
    run = MockRun(parts=parts)
    try:
        run.run_script(game_script(first, turns[:number], rng))
        finished = replay(first, [t.notation() for t in turns[:number]]).is_over
        assert (run.referee.state is State.GAME_OVER) == finished
        run.run_script(take_back_commands(turns[number - 1]))
        before = replay(first, [t.notation() for t in turns[: number - 1]])
        assert of(run, TakeBack) == [TakeBack(1, number, turns[number - 1])]
        assert of(run, TakenBack) == [TakenBack(1, number, before.board(), before.to_move)]
        assert run.referee.state is State.WAITING
        assert run.referee.position == before
        assert run.physics.position_string() == before.board()
        # The same turn again, and the game to its end: the engine's result.
        for turn in turns[number - 1 :]:
            run.run_script(game_script(first, [turn], rng)[1:])
        run.finish()
        assert run.referee.position.result == replay(first, [t.notation() for t in turns]).result
        played = [e.turn for e in of(run, TurnPlayed)]  # type: ignore[attr-defined]
        assert played == turns[:number] + turns[number - 1 :]
        assert len([e for e in run.events if e["event"] == "result"]) == 1 + finished
    finally:
        run.close()


def test_the_leds_show_what_to_undo_until_the_board_shows_the_position_before() -> None:
    first, turns, number = game_with("move")
    turn = turns[number - 1]
    run = MockRun()
    try:
        run.run_script(game_script(first, turns[:number], random.Random(1)))
        run.run_script([HOLD])
        view = run.referee.view()
        assert run.referee.state is State.UNDOING and view.mode == "undo"
        assert turn.move_to in view.extra and turn.place in view.extra
        mover = first if number % 2 == 1 else first.other
        if turn.move_from != turn.place:  # else it holds the placed marble, to lift first
            assert (turn.move_from, mover.other) in view.missing
        for command in undo_commands(turn):
            assert run.referee.state is State.UNDOING
            run.run(command)
        assert run.referee.state is State.WAITING
    finally:
        run.close()


def test_a_hold_on_the_empty_board_still_starts_a_new_game_and_a_short_press_still_counts() -> None:
    run = MockRun()
    try:
        run.run_script(parse_script("reset black\nput a1\npress\nhold 1.5\n"))
        assert not of(run, TakeBack)  # shorter than the hold time: a press, refused
        assert run.events[-1]["event"] == "rejected"
        run.run_script(parse_script("put b2\npress\n"))  # the press counts on release
        assert len(run.referee.saved.turns) == 2
    finally:
        run.close()


def test_before_the_first_turn_a_hold_is_a_press() -> None:
    run = MockRun()
    try:
        assert not run.referee.can_take_back  # nothing to take back
        run.run_script(parse_script("reset black\nput a1\nhold 2.5\n"))
        assert not of(run, TakeBack)
        assert run.referee.saved.turns == ["a1"]  # the press counted at once
    finally:
        run.close()


# --- power cuts -------------------------------------------------------------------------


def _journal_turns(state_dir: Path) -> list[str]:
    with Journal(state_dir) as journal:
        saved = journal.load()
    assert saved is not None
    return saved.turns


@pytest.mark.parametrize("parts", BACKENDS)
@pytest.mark.parametrize("kind", ["move", "extra press", "finished game"])
def test_a_power_cut_at_every_command_of_a_take_back_loses_nothing(
    parts: Backend, kind: str, tmp_path: Path
) -> None:
    first, turns, number = game_with(kind)
    prefix = game_script(first, turns[:number], random.Random(2))
    steps = take_back_commands(turns[number - 1])
    before = replay(first, [t.notation() for t in turns[: number - 1]])
    for cut in range(len(steps) + 1):
        state = tmp_path / f"cut{cut}"
        run = MockRun(state, parts=parts)
        try:
            run.run_script(prefix)
            cut_steps = [*steps[:cut], Command("power-cut"), *steps[cut:]]
            run.run_script(cut_steps)
            run.finish()
            assert run.referee.position == before, f"cut after {cut} steps"
            assert run.referee.state is State.WAITING
            taken = [e for e in of(run, TakenBack) if e.number == number]  # type: ignore[attr-defined]
            assert len(taken) == 1
        finally:
            run.close()
        assert _journal_turns(state) == [t.notation() for t in turns[: number - 1]]


@pytest.mark.parametrize("parts", BACKENDS)
@pytest.mark.parametrize("into_move", [0.05, 0.3, 0.9])
def test_a_power_cut_while_the_rings_turn_back(
    parts: Backend, into_move: float, tmp_path: Path
) -> None:
    first, turns, number = game_with("move")
    run = MockRun(tmp_path, parts=parts)
    try:
        run.run_script(game_script(first, turns[:number], random.Random(3)))
        run.finger(True)
        run.advance(run.settings.hold_time + into_move)
        run.power_cut()  # the rings stop where they are; the journal says "turning"
        run.finger(False)
        run.wait_for_rings()
        run.advance(0.5)
        assert run.referee.state is State.UNDOING
        run.run_script(undo_commands(turns[number - 1]))
        run.finish()
        before = replay(first, [t.notation() for t in turns[: number - 1]])
        assert run.referee.position == before
        assert run.physics.position_string() == before.board()
    finally:
        run.close()


# --- against the board -------------------------------------------------------------------


def against(colour: Colour, seed: int = 4) -> MockRun:
    player = board_player(parse_level("perfect"), colour, seed)
    return MockRun(settings=Settings(opponent=player), seed=seed)


def make_board_turn(run: MockRun, rng: random.Random) -> None:
    shown = run.referee.board_turn
    assert shown is not None
    run.run_script(game_script(Colour.BLACK, [shown], rng, board=True)[1:])


def make_turn(run: MockRun, turn: Turn, rng: random.Random) -> None:
    run.run_script(game_script(Colour.BLACK, [turn], rng)[1:])


def test_against_the_board_a_take_back_on_the_persons_move_takes_back_two_turns() -> None:
    rng = random.Random(5)
    run = against(Colour.WHITE)
    try:
        run.run_script(parse_script("reset black\n"))
        played: list[Turn] = []
        for _ in range(2):  # the person (black), then the board (white)
            person = rng.choice(list(run.referee.position.legal_turns()))
            make_turn(run, person, rng)
            make_board_turn(run, rng)
            played += [Turn.from_notation(t) for t in run.referee.saved.turns[-2:]]
        assert run.referee.position.to_move is Colour.BLACK
        board_turn, person_turn = played[3], played[2]
        run.run_script([HOLD, *undo_commands(board_turn)])
        run.run_script([*undo_commands(person_turn)])
        run.finish()
        numbers = [
            (type(e).__name__, e.number)
            for e in run.typed_events
            if isinstance(e, (TakeBack, TakenBack))
        ]  # type: ignore[attr-defined]
        assert numbers == [("TakeBack", 4), ("TakenBack", 4), ("TakeBack", 3), ("TakenBack", 3)]
        assert run.referee.position == replay(Colour.BLACK, run.referee.saved.turns)
        assert len(run.referee.saved.turns) == 2
        assert run.referee.position.to_move is Colour.BLACK  # the person's move again
    finally:
        run.close()


def test_against_the_board_a_take_back_on_the_boards_move_takes_back_the_persons_turn() -> None:
    rng = random.Random(6)
    run = against(Colour.WHITE)
    try:
        run.run_script(parse_script("reset black\n"))
        person = rng.choice(list(run.referee.position.legal_turns()))
        make_turn(run, person, rng)
        assert run.referee.board_turn is not None
        run.run_script([HOLD, *undo_commands(person)])
        run.finish()
        assert [type(e) for e in run.typed_events if isinstance(e, (TakeBack, TakenBack))] == [
            TakeBack,
            TakenBack,
        ]
        assert run.referee.position == Position.start(Colour.BLACK)
        assert run.referee.board_turn is None
    finally:
        run.close()


def test_the_web_pages_take_back_is_the_hold() -> None:
    first, turns, number = game_with("placement")
    run = MockRun()
    try:
        run.run_script(game_script(first, turns[:number], random.Random(7)))
        take: Callable[[], None] = run.referee.take_back
        take()
        run.wait_for_rings()
        run.run_script(undo_commands(turns[number - 1]))
        assert of(run, TakenBack)
        assert len(run.referee.saved.turns) == number - 1
    finally:
        run.close()


def test_a_new_game_asked_for_while_the_rings_turn_back_is_ignored_not_a_crash() -> None:
    first, turns, number = game_with("placement")
    run = MockRun()
    try:
        run.run_script(game_script(first, turns[:number], random.Random(8)))
        run.referee.take_back()
        run.advance(0.05)
        assert run.referee.state is State.TAKING_BACK
        run.referee.new_game(Colour.WHITE)
        assert run.referee.healthy and run.referee.state is State.TAKING_BACK
        run.wait_for_rings()
        run.run_script(undo_commands(turns[number - 1]))
        assert len(run.referee.saved.turns) == number - 1
    finally:
        run.close()


@pytest.mark.parametrize("cut", [False, True])
def test_a_single_take_back_against_the_board_takes_back_one_turn_even_through_a_cut(
    cut: bool, tmp_path: Path
) -> None:
    rng = random.Random(9)
    player = board_player(parse_level("perfect"), Colour.WHITE, 9)
    run = MockRun(tmp_path, settings=Settings(opponent=player), seed=9)
    try:
        run.run_script(parse_script("reset black\n"))
        make_turn(run, rng.choice(list(run.referee.position.legal_turns())), rng)
        make_board_turn(run, rng)
        board_turn = Turn.from_notation(run.referee.saved.turns[-1])
        run.referee.take_back(single=True)  # the other board's take-back, as remote.py does
        run.wait_for_rings()
        assert run.referee.saved.undo_one
        if cut:
            run.run_script(parse_script("power-cut\n"))
        run.run_script(undo_commands(board_turn))
        run.finish()
        assert len(run.referee.saved.turns) == 1 and not run.referee.saved.undo_one
        assert len(of(run, TakenBack)) == 1
    finally:
        run.close()
