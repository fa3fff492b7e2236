"""Issue 27: the interactive prompt as a person meets it at a terminal (a pseudo-terminal
here), and as a program meets it on a pipe (JSON lines, as ever)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from orbito_hw.app.logs import describe
from orbito_hw.commands.prompt import HELP, Prompt, RemotePrompt, commands, help_text
from orbito_hw.control import events
from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import Palette, View
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import mask_of, parse_square
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.script import Command

from .common.terminal import PROMPT, Terminal
from .common.two_boards import Broker


def test_help_lists_every_command_with_an_example_and_quit_leaves() -> None:
    term = Terminal("run", "--mock", "--interactive")
    greeting = term.read_until_prompt()
    assert "help for the commands" in greeting and "c1-c2:a2" in greeting
    assert "status: black to move" in greeting
    shown = term.type("help")
    for form, example, _ in HELP:
        assert re.search(rf"^  {re.escape(form)}( |$)", shown, re.M), form
        assert example in shown.replace("\n", " ")
    for word in ("lift", "put", "press", "hold", "reset", "opponent", "hints", "quit"):
        assert f"  {word}" in shown
    assert "unknown command" not in term.type("board")
    os.write(term.fd, b"quit\n")
    term.read_until_prompt(timeout=30)
    assert term.end() == 0


def test_the_turn_is_told_before_the_next_prompt_and_the_leds_in_words() -> None:
    """The ring move ends before the prompt comes back; the board's turn is told in words
    (the blinking placement too, not "LEDs: dark"); a take-back is a sentence, not JSON."""
    term = Terminal("run", "--mock", "--interactive", "--opponent", "perfect:white")
    term.read_until_prompt()
    term.type("reset black")
    term.type("put a1")
    after_press = term.type("press")
    assert "game 1 turn 1: black a1 -> ..../..../..../.B.." in after_press
    assert "game 1 turn 2: the board plays white" in after_press
    # The board's first step now (lift the marble it moves, or place), the rest dimly.
    now = r"(lift this marble \(yellow|place a white marble here \(white), blinking\)"
    assert re.search(rf"^    [a-d][1-4]: {now}$", after_press, re.M)
    assert "status: the board's turn: make it for it and press (purple)" in after_press
    held = term.type("hold 2.5")
    assert "taking back turn 1 (a1): undo what the LEDs show" in held
    assert "take this marble off (cyan, blinking)" in held
    assert "{" not in term.seen  # no event came as JSON
    os.write(term.fd, b"exit\n")
    term.read_until_prompt(timeout=30)
    assert term.end() == 0


def test_an_old_game_in_the_state_dir_is_set_up_and_the_opponent_given_plays(
    tmp_path: Path,
) -> None:
    """A fresh simulated board on a --state-dir that holds a game: its marbles are put
    back (no "board does not match"), and --opponent on the command line plays at once."""
    script = tmp_path / "game.txt"
    script.write_text("reset black\nput a1\npress\nput c3\npress\n")
    run = [sys.executable, "-m", "orbito_hw", "run", "--mock", "--state-dir", str(tmp_path)]
    subprocess.run([*run[:-2], "--events", str(script), *run[-2:]], check=True,
                   capture_output=True, timeout=120)  # fmt: skip
    term = Terminal(*run[3:], "--interactive", "--opponent", "perfect:black")
    greeting = term.read_until_prompt()
    assert "does not match" not in greeting
    assert "the board plays black" in greeting  # black to move: the board's turn, now
    assert "status: the board's turn" in greeting
    os.write(term.fd, b"quit\n")
    term.read_until_prompt(timeout=30)
    assert term.end() == 0


def test_on_a_pipe_the_events_stay_json_lines_and_quit_stops_reading() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--interactive"],
        input="reset white\nput b1\npress\nquit\nput c1\npress\n",
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    assert [e["event"] for e in lines] == ["new-game", "turn"]
    assert lines[1]["turn"] == "b1"


def test_every_event_kind_is_a_sentence() -> None:
    """describe() words every kind events.py has: none is shown as raw JSON."""
    b1, c1 = parse_square("b1"), parse_square("c1")
    samples: list[events.Event] = [
        events.TurnPlayed(1, 1, Colour.WHITE, Turn.from_notation("b1"), "..../..../..../..W."),
        events.Rejected(1, "c1-c3 is not a step", (b1, c1)),
        events.Correction(1, (b1,)),
        events.Corrected(1),
        events.GameOver(1, Result.DRAW),
        events.NewGame(1, Colour.BLACK),
        events.FirstChosen(1, Colour.WHITE),
        events.BoardTurn(1, 2, Colour.WHITE, Turn.from_notation("d2"), "remote"),
        events.Hint(1, Colour.BLACK, Turn.from_notation("a1"), "win"),
        events.BlunderWarning(1, Turn.from_notation("a1"), "loss"),
        events.OpponentChosen(1, "board:perfect", Colour.WHITE),
        events.TakeBack(1, 2, Turn.from_notation("c1-c2:a2")),
        events.TakenBack(1, 2, "..../..../..../..W.", Colour.BLACK),
        events.Fault(None, "homing timed out"),
        events.SetupAsked(2, ((b1, Colour.BLACK),), Colour.WHITE),
        events.SetupDone(2, "..../..../..../.B..", Colour.WHITE, 2),
        events.PuzzleDone(2, "5VN0B4FS69J", False, 1),
        events.RemoteStatus(1, "opponent-offline"),
        events.Discard(1, "asked", 1),
        events.Asked(1, "take-back", Colour.WHITE, 4),
        events.Answered(1, "draw", Colour.BLACK, False, "play on"),
    ]
    kinds = {cls.kind for cls in events.Event.__args__}  # type: ignore[attr-defined]
    assert {event.kind for event in samples} == kinds
    for event in samples:
        text = describe(event)[1]
        assert "{" not in text and "event" not in text, text
    assert describe(samples[-2])[1] == (
        "game 1: white asks to take back their last turn: hold the button or answer on the page"
    )
    assert describe(samples[-1])[1] == "game 1: black's draw offer declined: play on"
    assert describe(samples[7])[1] == (
        "game 1 turn 2: white's board plays d2: make it on this board and press"
    )


def test_the_leds_in_words_follow_the_view() -> None:
    p = Palette()
    b1 = parse_square("b1")
    board = View("play", Colour.WHITE, board_turn=Turn.from_notation("c1-c2:b4"))
    assert [lit.text(p) for lit in view_words(board, p, "black's board")] == [
        "c1: lift this marble (yellow, blinking)",
        "c2: then put the marble from c1 here (green, dim)",
        "b4: then place a white marble here (white, dim)",
        "status: black's board's turn: make it for it and press (purple)",
    ]
    line = mask_of([parse_square(s) for s in ("a1", "b2", "c3", "d4")])
    won = view_words(View("result", result=Result.BLACK, lines=(line,)), p)
    assert [lit.where for lit in won] == ["a1", "b2", "c3", "d4", "status"]
    assert won[0].text(p) == "a1: black's winning line (blue, blinking)"
    fix = View("correction", missing=((parse_square("a2"), Colour.WHITE),), extra=(b1,))
    assert [lit.text(p) for lit in view_words(fix, p)] == [
        "b1: take this marble off (red)",
        "a2: put a white marble back here (white)",
        "status: the board does not match: fix the lit squares (red)",
    ]
    changed = Palette(black=(1, 2, 3))
    assert view_words(View("play", Colour.BLACK), changed, "x")[0].text(changed) == (
        "status: black to move (#010203)"
    )


def test_help_text_names_each_command_once_within_80_columns() -> None:
    """Issue 36: help's lines were about 115 characters wide."""
    text = help_text()
    starts = [line.split()[0] for line in text.splitlines()[1:] if not line.startswith("   ")]
    assert starts == commands()
    assert max(len(line) for line in text.splitlines()) <= 80


def test_the_unknown_command_message_lists_exactly_what_help_lists() -> None:
    """Issue 36: the message named setup, which help did not, and left help, quit, board out."""
    prompt = Prompt(io.StringIO(), person=True, colour=False)
    with pytest.raises(ValueError, match="unknown command") as refused:
        prompt.interpret("dance a2", 1)
    listed = str(refused.value).split(": type ", 1)[1].split(" (", 1)[0].split(", ")
    helped = [line.split()[0] for line in help_text().splitlines()[1:] if line[2] != " "]
    assert listed == helped == commands()
    assert {"help", "quit", "board", "setup", "TURN", "undo", "new", "hint"} <= set(listed)


@pytest.mark.parametrize(
    ("typed", "name", "square"),
    [("put A2", "put", "a2"), ("LIFT c1", "lift", "c1"), ("Put b3 White", "put", "b3")],
)
def test_squares_and_words_are_read_in_any_case(typed: str, name: str, square: str) -> None:
    """Issue 36: `put A2` was refused."""
    command = Prompt(io.StringIO(), person=True, colour=False).interpret(typed, 1)
    assert isinstance(command, Command) and command.name == name
    assert command.square == parse_square(square)


def test_a_person_s_refusal_carries_no_script_line_number() -> None:
    """Issue 36: `orbito-hw: line:24: put d3: ...` at the prompt."""
    term = Terminal("run", "--mock", "--interactive")
    term.read_until_prompt()
    term.type("reset black")
    term.type("put a1")
    refused = term.type("put a1")
    assert "orbito-hw: " in refused and "line" not in refused.split("orbito-hw: ", 1)[1]
    os.write(term.fd, b"quit\n")
    term.read_until_prompt(timeout=30)
    assert term.end() == 0


@pytest.mark.parametrize("args", [[], ["--seed", "3"]])
def test_the_demo_with_a_state_dir_archives_its_game(tmp_path: Path, args: list[str]) -> None:
    command = [sys.executable, "-m", "orbito_hw"]
    subprocess.run([*command, "run", "--mock", "--state-dir", str(tmp_path), *args],
                   check=True, capture_output=True, timeout=300)  # fmt: skip
    listed = subprocess.run([*command, "games", "list", "--json", "--state-dir", str(tmp_path)],
                            check=True, capture_output=True, text=True)  # fmt: skip
    [game] = [json.loads(line) for line in listed.stdout.splitlines()]
    assert game["result"] in ("black", "white", "draw") and game["black"] == "board:5"


def test_the_opponent_given_plays_in_an_old_game_of_the_state_dir(tmp_path: Path) -> None:
    """The web world and the prompt both call play_given_opponent after the journal is read:
    the journal's opponent (white, chosen in the old run as the menu would) gives way to the
    one given now."""
    from orbito_hw.control.settings import Settings
    from orbito_hw.sim.harness import MockRun, board_player
    from orbito_hw.sim.script import parse_script
    from orbito_hw.solver.opponents import parse_level

    perfect = parse_level("perfect")
    old = MockRun(tmp_path)
    for command in parse_script("reset black\nopponent perfect white\nput a1\npress\n"):
        old.run(command, first_command=command.name == "reset")
    old.close()
    run = MockRun(tmp_path, Settings(opponent=board_player(perfect, Colour.BLACK, 1)))
    try:
        opponent = run.referee.opponent
        assert opponent is not None and opponent.colour is Colour.WHITE  # the journal's
        run.play_given_opponent()
        opponent = run.referee.opponent
        assert opponent is not None and opponent.colour is Colour.BLACK
    finally:
        run.close()


def test_the_remote_prompt_shows_the_board_and_names_the_other_board(
    tmp_path: Path, broker: Broker
) -> None:
    """In a remote game the person at a terminal gets the orbito> prompt and the board; the
    other person's turn is "black's board plays a1", made here, never "the board"."""
    url = f"mqtt://127.0.0.1:{broker.port}/prompt"
    term = Terminal("run", "--mock", "--remote", url, "--plays", "white", "--interactive",
                    "--state-dir", str(tmp_path / "white"))  # fmt: skip
    greeting = term.read_until_prompt()
    assert "you play white on this board, black's board plays black" in greeting
    assert greeting.endswith(PROMPT) and "status: black to move (blue)" in greeting
    script = tmp_path / "black.txt"
    script.write_text("wait 1\nreset black\nput a1\npress\nwait 4\n")
    black = subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--remote", url, "--plays",
         "black", "--events", str(script), "--state-dir", str(tmp_path / "black")],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    # The other board's turn arrives meanwhile (or later, on a loaded machine: the other
    # board's process may take seconds to start), and the board is drawn again after it;
    # other redraws (the other board connecting) come first.
    shown = term.type("wait 4")
    deadline = time.monotonic() + 60
    while "black's board plays a1" not in shown and time.monotonic() < deadline:
        shown += term.read_until_prompt(timeout=5)
    assert "black's board plays a1: make it on this board and press" in shown
    assert "a1: place a black marble here (blue, blinking)" in term.seen
    assert "status: black's board's turn: make it for it and press (purple)" in term.seen
    assert "the board plays" not in term.seen
    made = term.type("put a1") + term.type("press")
    assert "turn 1: black a1 -> ..../..../..../.B.." in made  # made here, accepted
    os.write(term.fd, b"quit\n")
    term.read_until_prompt(timeout=30)
    assert term.end() == 0
    assert black.wait(60) == 0


@pytest.mark.parametrize("typed", ["c1-c2:a2", "UNDO", "new white"])
def test_in_a_remote_game_a_whole_turn_is_made_by_hand(typed: str) -> None:
    """The other board's turns come in meanwhile: a remote game's turns are made by hand."""
    remote = RemotePrompt(Prompt(io.StringIO(), person=True, colour=False), lambda: None)
    with pytest.raises(ValueError, match="in a remote game, make a turn by hand"):
        remote.interpret(typed, 1)
    command = remote.interpret("Put B2", 2)
    assert isinstance(command, Command) and command.square == parse_square("b2")
