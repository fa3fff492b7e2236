"""Issue 36: the prompt takes the game's notation as a whole turn made on the simulated
board, and undo, new and hint (commands/prompt_hands.py); an illegal turn is refused with
the rules' reason, the board untouched."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from collections.abc import Iterator

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from orbito_hw.commands.prompt_hands import TypedTurnError, Whole, make, whole_of
from orbito_hw.control.referee import State
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command


@pytest.fixture
def run() -> Iterator[MockRun]:
    board = MockRun()
    board.run(Command("reset", colour=Colour.BLACK), first_command=True)
    yield board
    board.close()


def typed(run: MockRun, line: str) -> str | None:
    whole = whole_of(line.lower().split())
    assert whole is not None, line
    return make(run, whole)


def turns(run: MockRun) -> list[str]:
    return [str(e["turn"]) for e in run.events if e["event"] == "turn"]


def test_turns_in_notation_are_played_as_hands_make_them(run: MockRun) -> None:
    typed(run, "a1")
    typed(run, "b1-c1:a2")  # the worked example's move: c1's marble steps, a2 placed
    assert turns(run) == ["a1", "b1-c1:a2"]
    assert run.physics.position_string() == replay(Colour.BLACK, "a1 b1-c1:a2").board()
    assert run.referee.state is State.WAITING and not run.referee.reader.touched


@pytest.mark.parametrize(
    ("token", "reason"),
    [
        ("b1", "b1 is occupied"),
        ("a2-a3:b2", "a2 is empty"),
        ("*", "an extra press (*) needs a full board"),
    ],
)
def test_an_illegal_turn_is_refused_with_the_rules_reason_the_board_untouched(
    run: MockRun, token: str, reason: str
) -> None:
    typed(run, "a1")
    before = run.physics.position_string()
    with pytest.raises(TypedTurnError, match=re.escape(f"not a legal turn here: {reason}")):
        typed(run, token)
    assert run.physics.position_string() == before and not run.referee.reader.touched
    assert turns(run) == ["a1"]


def test_undo_takes_back_and_puts_the_marbles_back(run: MockRun) -> None:
    typed(run, "a1")
    typed(run, "b1-c1:a2")
    typed(run, "undo")
    assert run.referee.position.board() == replay(Colour.BLACK, "a1").board()
    assert run.physics.position_string() == run.referee.position.board()
    assert run.referee.state is State.WAITING
    typed(run, "undo")
    assert run.referee.position.board() == "..../..../..../...."
    with pytest.raises(TypedTurnError, match="no turn to take back"):
        typed(run, "undo")


def test_undo_against_the_board_takes_back_its_turn_and_the_person_s() -> None:
    from orbito_hw.control.settings import Settings
    from orbito_hw.sim.harness import board_player
    from orbito_hw.solver.opponents import parse_level

    board = MockRun(settings=Settings(opponent=board_player(parse_level("perfect"),
                                                            Colour.WHITE, 1)))  # fmt: skip
    try:
        board.run(Command("reset", colour=Colour.BLACK), first_command=True)
        typed(board, "a1")
        shown = board.referee.board_turn
        assert shown is not None
        assert typed(board, "hint") == (
            f"the board plays {shown} on its move: type {shown}, or make it by hand"
        )
        other = next(t for t in board.referee.position.legal_turns() if t != shown)
        with pytest.raises(TypedTurnError, match=f"the board plays {shown}"):
            typed(board, str(other))
        typed(board, str(shown))
        assert turns(board) == ["a1", str(shown)]
        typed(board, "undo")
        assert board.referee.position.board() == "..../..../..../...."
        assert board.physics.position_string() == "..../..../..../...."
    finally:
        board.close()


def test_new_starts_a_game_and_hint_names_the_best_turn(run: MockRun) -> None:
    typed(run, "a1")
    typed(run, "new white")
    assert run.events[-1] == {"event": "new-game", "game": 2, "first": "white"}
    assert run.physics.position_string() == "..../..../..../...."
    assert typed(run, "hint") == "hint: white plays a1 (a win with perfect play)"


def test_a_blunder_held_back_stays_whole_and_typed_again_is_meant(run: MockRun) -> None:
    run.run(Command("hints", on=True))
    typed(run, "a1")
    typed(run, "a2")
    typed(run, "a2")  # black's a2 throws the win away: held back once, the marbles stay
    assert run.events[-1] == {"event": "warning", "game": 1, "turn": "a2", "value": "draw"}
    typed(run, "a2")
    assert turns(run) == ["a1", "a2", "a2"]


@pytest.mark.parametrize(
    ("line", "whole"),
    [
        ("C1-C2:A2", Whole("turn", turn=Turn.moving(2, 6, 4))),
        ("*", Whole("turn", turn=Turn(None))),
        ("new", Whole("new")),
        ("new black", Whole("new", colour=Colour.BLACK)),
        ("undo", Whole("undo")),
    ],
)
def test_the_words_are_read(line: str, whole: Whole) -> None:
    assert whole_of(line.lower().split()) == whole


@given(st.lists(st.sampled_from(["a1", "d4", "new", "undo", "hint", "x", "red", "2", "*"]),
                min_size=1, max_size=3))  # fmt: skip
@settings(max_examples=200, deadline=None)
def test_a_line_is_a_whole_word_a_refusal_or_another_command(words: list[str]) -> None:
    try:
        whole = whole_of(words)
    except ValueError as exc:
        assert str(exc)
        return
    if whole is not None:
        assert len(words) == 1 or words[0] == "new"


def test_at_the_prompt_on_a_pipe_a_turn_in_notation_is_json_events() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--interactive"],
        input="reset black\nA1\nc1-c2:a2\nb1-C1:a2\nquit\n",
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert [line.split('"turn": "')[1].split('"')[0] for line in done.stdout.splitlines()
            if '"event": "turn"' in line] == ["a1", "b1-c1:a2"]  # fmt: skip
    assert "c1-c2:a2 is not a legal turn here: c1 is empty" in done.stderr


@given(st.text(alphabet=st.sampled_from("abcdABCD1234-:*# \tputliftnewundohint\u00e9\x00"),
               max_size=24))  # fmt: skip
@settings(max_examples=400, deadline=None)
def test_any_typed_line_is_a_command_a_whole_word_nothing_or_a_refusal(line: str) -> None:
    """The prompt's input boundary: whatever is typed, a Command, a whole-turn word, None
    (nothing to do) or a one-line ValueError naming it; never another exception."""
    from orbito_hw.commands.prompt import Prompt, QuitError

    prompt = Prompt(io.StringIO(), person=True, colour=False)
    try:
        got = prompt.interpret(line, 1)
    except QuitError:
        raise AssertionError(line) from None
    except ValueError as exc:
        assert str(exc) and "\n" not in str(exc)
        return
    assert got is None or isinstance(got, (Command, Whole))
