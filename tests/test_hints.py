"""Hints and the blunder warning (SPEC.md, "Playing against the board"): with hints on, a
press before any touch shows the best turn; a turn that throws the value away is held back
once. The expected turns and values come from the solved table, never written out here."""

from __future__ import annotations

import random
import subprocess
import sys
from pathlib import Path
from typing import TypeVar

import pytest

from orbito_hw.control.events import BlunderWarning, Hint, NewGame, Rejected, TurnPlayed
from orbito_hw.control.settings import Settings
from orbito_hw.hw.interfaces import Backend
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import square_name
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun, board_player
from orbito_hw.sim.script import parse_line, parse_script
from orbito_hw.solver.layout import Value, decode
from orbito_hw.solver.opponents import parse_level
from orbito_hw.solver.table import shipped_solution

BACKENDS: list[Backend] = ["sim", "gpio", "serial"]
E = TypeVar("E")
RANK = {Value.LOSS: 0, Value.DRAW: 1, Value.WIN: 2}


def play(run: MockRun, script: str) -> None:
    for command in parse_script(script):
        run.run(command)
        run.wait_for_rings()


def of_kind(run: MockRun, kind: type[E]) -> list[E]:
    return [e for e in run.typed_events if isinstance(e, kind)]


def placements(position: Position) -> list[tuple[Turn, Value]]:
    """The turns that only place a marble, with what each is worth to the mover."""
    worths = shipped_solution().turn_bytes(position)
    return sorted(
        ((turn, decode(byte).value) for turn, byte in worths if turn.move_from is None),
        key=lambda tv: tv[0].notation(),
    )


def to_a_blunder(run: MockRun) -> tuple[Turn, Turn]:
    """Place marbles (seeded) until the mover has a placement that throws the value away and
    one that keeps it; returns (the blunder, a keeper)."""
    rng = random.Random(3)
    while True:
        position = run.referee.position
        value = shipped_solution().score(position).value
        turns = placements(position)
        worse = [t for t, v in turns if RANK[v] < RANK[value]]
        kept = [t for t, v in turns if v is value]
        if worse and kept:
            return worse[0], kept[0]
        keep_going = [t for t, v in turns if v is value] or [t for t, _ in turns]
        turn = rng.choice(keep_going)
        assert turn.place is not None
        play(run, f"put {square_name(turn.place)}\npress")
        assert run.referee.position.result is None, "the walk ended the game: pick another seed"


def place(turn: Turn) -> str:
    assert turn.place is not None
    return f"put {square_name(turn.place)}\npress"


@pytest.mark.parametrize("parts", BACKENDS)
def test_a_press_before_any_touch_shows_the_best_turn(parts: Backend) -> None:
    run = MockRun(settings=Settings(hints=True), parts=parts, seed=1)
    try:
        play(run, "put b2\npress")  # a press on the empty board chooses who starts: not a hint
        position = run.referee.position
        play(run, "press")
        analysis = shipped_solution().analyse(position)
        hint = of_kind(run, Hint)[-1]
        assert (hint.colour, hint.turn, hint.value) == (
            position.to_move,
            analysis.move,
            analysis.value.value,
        )
        assert not of_kind(run, Rejected)
        view = run.referee.view()
        assert (view.mode, view.hint_turn, view.value) == ("hint", analysis.move, hint.value)
        play(run, "put a1")  # a touch: the hint goes
        assert run.referee.view().mode == "play"
        assert list(of_kind(run, Hint)[-1].to_json()) == [
            "event",
            "game",
            "colour",
            "turn",
            "value",
        ]
    finally:
        run.close()


def test_hints_off_keeps_the_refusal() -> None:
    run = MockRun(seed=1)
    try:
        play(run, "put b2\npress\npress")
        assert not of_kind(run, Hint)
        assert of_kind(run, Rejected)
    finally:
        run.close()


@pytest.mark.parametrize("parts", BACKENDS)
def test_a_blunder_is_held_back_then_played_on_a_second_press(parts: Backend) -> None:
    run = MockRun(parts=parts, seed=1)
    try:
        blunder, _ = to_a_blunder(run)
        position = run.referee.position
        played = len(of_kind(run, TurnPlayed))
        play(run, "hints on\n" + place(blunder))
        warning = of_kind(run, BlunderWarning)[-1]
        after = dict(placements(position))[blunder]
        assert (warning.turn, warning.value) == (blunder, after.value)
        assert len(of_kind(run, TurnPlayed)) == played
        assert run.referee.view().mode == "warning"
        assert list(warning.to_json()) == ["event", "game", "turn", "value"]
        play(run, "press")
        assert of_kind(run, TurnPlayed)[-1].turn == blunder
        assert len(of_kind(run, BlunderWarning)) == 1
    finally:
        run.close()


def test_a_touch_cancels_the_warning() -> None:
    run = MockRun(seed=1)
    try:
        blunder, _ = to_a_blunder(run)
        assert blunder.place is not None
        square = square_name(blunder.place)
        played = len(of_kind(run, TurnPlayed))
        play(run, f"hints on\n{place(blunder)}\nlift {square}\nput {square}\npress")
        assert len(of_kind(run, BlunderWarning)) == 2  # warned afresh, not played
        assert len(of_kind(run, TurnPlayed)) == played
    finally:
        run.close()


def test_no_warning_for_a_turn_that_keeps_the_value() -> None:
    run = MockRun(seed=1)
    try:
        _, keeper = to_a_blunder(run)
        play(run, "hints on\n" + place(keeper))
        assert not of_kind(run, BlunderWarning)
        assert of_kind(run, TurnPlayed)[-1].turn == keeper
    finally:
        run.close()


def test_hints_off_plays_a_blunder_at_once() -> None:
    run = MockRun(seed=1)
    try:
        blunder, _ = to_a_blunder(run)
        play(run, "hints on\nhints off\n" + place(blunder))
        assert not of_kind(run, BlunderWarning)
        assert of_kind(run, TurnPlayed)[-1].turn == blunder
    finally:
        run.close()


def test_the_directive_parses_and_writes_back() -> None:
    for text in ("hints on", "hints off"):
        command = parse_line(text)
        assert command is not None and command.text() == text
    for bad in ("hints", "hints maybe", "hints on off"):
        with pytest.raises(ValueError, match="hints"):
            parse_line(bad)


def test_the_cli_flag_turns_hints_on(tmp_path: Path) -> None:
    script = tmp_path / "hint.txt"
    script.write_text("put b2\npress\npress\n")

    def hint_lines(*flags: str) -> list[str]:
        done = subprocess.run(
            [sys.executable, "-m", "orbito_hw", "run", "--mock", "--events", str(script), *flags],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stderr
        return [line for line in done.stdout.splitlines() if '"event": "hint"' in line]

    assert len(hint_lines("--hints")) == 1
    assert hint_lines() == []


def test_the_config_turns_hints_on() -> None:
    from orbito_hw.app.config import parse_config
    from orbito_hw.app.run import settings as settings_of
    from orbito_hw.errors import ConfigError

    from .common.boards import SIM_CONFIG

    assert not settings_of(parse_config(SIM_CONFIG)).hints
    assert settings_of(parse_config(SIM_CONFIG + "[game]\nhints = true\n")).hints
    with pytest.raises(ConfigError, match=r"game\.hints"):
        parse_config(SIM_CONFIG + '[game]\nhints = "yes"\n')


@pytest.mark.parametrize("hints", [False, True])
@pytest.mark.parametrize("board_starts", [False, True])
def test_the_press_on_the_empty_board_never_collides(hints: bool, board_starts: bool) -> None:
    """Before the first turn, a short press on the empty board: with hints on and a person
    to move, the hint (SPEC.md); otherwise the other colour starts (the ``first`` gesture).
    The holds mean the same with hints on or off."""
    opponent = board_player(parse_level("3"), Colour.BLACK, 1)
    run = MockRun(settings=Settings(hints=hints, opponent=opponent), seed=1)
    try:
        if not board_starts:
            play(run, "press")  # black (the board) started: now white, the person, does
            assert run.referee.position.to_move is Colour.WHITE
        before = run.referee.position.to_move
        person_to_move = before is Colour.WHITE
        play(run, "press")
        hinted = hints and person_to_move
        assert bool(of_kind(run, Hint)) is hinted
        assert (run.referee.position.to_move is before) is hinted
        events = len(of_kind(run, NewGame))
        play(run, "hold 3")  # a hold on the empty board: a new game, hints or not
        assert len(of_kind(run, NewGame)) == events + 1
    finally:
        run.close()
