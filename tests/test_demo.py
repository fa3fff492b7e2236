"""The main job: `orbito-hw run --mock` plays a whole demo game and exits 0."""

from __future__ import annotations

import io
import re

from orbito_hw.cli import main
from orbito_hw.rules.game import Colour, replay
from orbito_hw.sim.demo import run_demo


def test_the_demo_plays_a_whole_legal_game_and_announces_its_result() -> None:
    out = io.StringIO()
    assert run_demo(seed=3, out=out) == 0
    text = out.getvalue()
    first = re.search(r"; (black|white) starts", text)
    assert first is not None
    tokens = re.findall(r"^turn \d+: (?:black|white) (\S+)$", text, flags=re.M)
    final = replay(Colour(first.group(1)), tokens)  # every turn shown is legal, in order
    assert final.result is not None
    (announced,) = re.findall(r"^result: (.*)$", text, flags=re.M)
    assert announced.startswith(final.result.value if final.result.value != "draw" else "a draw")
    assert "LEDs:" in text


def test_the_cli_main_job_exits_0(capsys: object) -> None:
    assert main(["run", "--mock", "--seed", "1"]) == 0


def test_the_default_demo_is_the_board_against_a_person_its_turns_lit() -> None:
    out = io.StringIO()
    assert run_demo(seed=5, out=out) == 0
    text = out.getvalue()
    assert "black plays the board, white plays casual" in text
    shown = re.findall(r"^the board shows its turn: (\S+)$", text, flags=re.M)
    played = re.findall(r"^turn \d+: black (\S+)$", text, flags=re.M)
    assert shown and shown == played  # the person made each turn the board showed, as shown
    # each shown turn is lit: some LED is on in one of the two halves of its blink
    blocks = text.split("the board shows its turn: ")[1:]
    assert all(re.search(r"LEDs: [a-d][1-4] #", block.split("turn ")[0]) for block in blocks)
