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
