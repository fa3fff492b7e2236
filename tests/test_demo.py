"""The main job: `orbito-hw run --mock` plays a whole demo game and exits 0; issue 36: a
demo a person can follow (paced at a terminal, the LEDs and the levels in words, the rings'
turn told), and a pipe's output as it always came, at once."""

from __future__ import annotations

import io
import re

import pytest

from orbito_hw.cli import main
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.squares import PRESS_TO, parse_square
from orbito_hw.sim.demo import PAUSE, run_demo

ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


class Terminal(io.StringIO):
    """What the demo writes to, as if it were a terminal."""

    def isatty(self) -> bool:
        return True


def test_the_demo_plays_a_whole_legal_game_and_announces_its_result() -> None:
    out = io.StringIO()
    assert run_demo(seed=3, out=out) == 0
    text = out.getvalue()
    first = re.search(r"^a demo game on the simulated board, (black|white) first:$", text, re.M)
    assert first is not None
    tokens = re.findall(r"^turn \d+: (?:black|white) (\S+)$", text, flags=re.M)
    final = replay(Colour(first.group(1)), tokens)  # every turn shown is legal, in order
    assert final.result is not None
    (announced,) = re.findall(r"^result: (.*)$", text, flags=re.M)
    assert announced.startswith(final.result.value if final.result.value != "draw" else "a draw")


def test_the_cli_main_job_exits_0(capsys: object) -> None:
    assert main(["run", "--mock", "--seed", "1"]) == 0


def test_the_default_demo_is_the_board_against_a_person_its_turns_lit_in_words() -> None:
    """Issue 36: LEDs were hex codes (`LEDs: c3 #005aff`) where the prompt uses words."""
    out = io.StringIO()
    assert run_demo(seed=5, out=out) == 0
    text = out.getvalue()
    shown = re.findall(r"^the board shows its turn: (\S+)$", text, flags=re.M)
    played = re.findall(r"^turn \d+: black (\S+)$", text, flags=re.M)
    assert shown and shown == played  # the person made each turn the board showed, as shown
    blocks = text.split("the board shows its turn: ")[1:]
    for block in blocks:  # each shown turn is lit, in words: a square and what to do there
        lit = block.split("\nturn ")[0]
        assert re.search(r"^    [a-d][1-4]: .*(place|lift|put).*\(", lit, re.M), lit
    assert not re.search(r"#[0-9a-f]{6}", text) and "LEDs:" not in text


def test_the_levels_are_named_in_words() -> None:
    """Issue 36: "white plays casual" was left unexplained."""
    out = io.StringIO()
    run_demo(seed=5, out=out)
    text = out.getvalue()
    assert "  black: the board, level 5: the best turn 97 times in 100, else a mistake" in text
    assert "  white: a simulated person, casual: a strong turn 6 times in 10" in text


def test_each_turn_says_how_the_rings_turned() -> None:
    """Issue 36: nothing said the rings turned. Each turn's line is followed by the ring
    move: every marble's step, one place along its ring, onto the board after the turn."""
    out = io.StringIO()
    run_demo(seed=3, out=out)
    text = out.getvalue()
    first = re.search(r", (black|white) first:$", text, re.M)
    assert first is not None
    turns = re.findall(r"^turn \d+: \w+ (\S+)\nthe rings turned one place counter-clockwise: "
                       r"(.*?)\n(?=\S)", text, re.M | re.S)  # fmt: skip
    assert len(turns) == len(re.findall(r"^turn \d+:", text, re.M)) > 3
    tokens: list[str] = []
    for token, steps in turns:
        tokens.append(token)
        after = replay(Colour(first.group(1)), tokens)
        moved = re.findall(r"([●○]) ([a-d][1-4])→([a-d][1-4])", steps.replace("\n", " "))
        assert len(moved) == after.occupied.bit_count()
        for glyph, src, dst in moved:
            assert PRESS_TO[parse_square(src)] == parse_square(dst)
            colour = Colour.BLACK if glyph == "●" else Colour.WHITE
            assert after.colour_at(parse_square(dst)) is colour


def test_at_a_terminal_the_demo_pauses_after_each_board_drawn() -> None:
    """Issue 36: about 150 lines in 0.4 s. The pauses through an injected sleep: none real."""
    slept: list[float] = []
    out = Terminal()
    run_demo(seed=5, out=out, sleep=slept.append)
    boards = ANSI.sub("", out.getvalue()).count("     a  b  c  d")
    assert slept == [PAUSE] * boards  # after the opening lines, and each board but the last
    fast: list[float] = []
    run_demo(seed=5, out=Terminal(), sleep=fast.append, fast=True)
    assert fast == []


def test_on_a_pipe_the_demo_never_pauses_and_writes_plain_lines() -> None:
    slept: list[float] = []
    piped, shown = io.StringIO(), Terminal()
    run_demo(seed=5, out=piped, sleep=slept.append)
    run_demo(seed=5, out=shown, sleep=lambda seconds: None)
    assert slept == [] and "\x1b" not in piped.getvalue()
    # the same lines as at a terminal, but for the colours (a lit square in brackets)
    plain = [line for line in piped.getvalue().splitlines() if "[" not in line]
    coloured = [ANSI.sub("", line) for line in shown.getvalue().splitlines()]
    assert len(piped.getvalue().splitlines()) == len(coloured)
    assert all(line in coloured for line in plain)


def test_fast_goes_with_the_demo_only(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["run", "--mock", "--fast", "--seed", "1"]) == 0
    for argv in (["run", "--mock", "--fast", "--interactive"], ["run", "--fast"]):
        with pytest.raises(SystemExit) as refused:
            main(argv)
        assert refused.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "--fast goes with" in err
