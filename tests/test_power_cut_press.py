"""A power cut at any moment of a press, extra presses on a full board (``*``) included, on
every backend with colour sensors (issue 48): the restarted controller carries the game on to
the position the rules give, the colours agreeing, every turn recorded once and the result
announced once.

With presence alone a full board reads the same one place on or back, so a restart that
re-turned rings which had already turned went unseen; colour sensors saw it (the board a place
off, a "correction" of the squares whose colours disagreed, the result never announced). The
referee now tells the press done from the press to do colour for colour, and, where the
squares cannot tell, by whether the rings had to move home (they were cut in that very move).

The game: 16 turns filling the board, then two extra presses, the second making black's line.
Each press below is cut after its release at each moment of its ring move: before the first
step, a quarter, half and nearly all of the steps, once the rings stop (before the check), and
after the check.
"""

from __future__ import annotations

import pytest

from orbito_hw.control.events import GameOver, TurnPlayed
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import PRESS_TIME, MockRun
from orbito_hw.sim.script import Command, parse_line

GAME = (
    "d1 c4 b4-b3:c3 b3-c3:a3 c2-c3:d4 b4-a4:c2 b2-a2:c4 b4-c4:b4 d1-d2:c2 c4 b4-c4:a4 "
    "a3-a4:c1 d4 c3-b3:a1 b3 a4-a3:a4 * *"
).split()
CUT_PRESSES = {
    3: "an ordinary press",
    16: "the press after the 16th marble: the board full",
    17: "the first extra press",
    18: "the last extra press, which wins",
}
MOMENTS = ("released", "a quarter", "half", "all but a step", "stopped", "checked")


def turn_lines(token: str) -> list[str]:
    if token == "*":
        return []
    move, _, place = token.rpartition(":")
    lines = []
    if move:
        source, target = move.split("-")
        lines += [f"lift {source}", f"put {target}"]
    return [*lines, f"put {place}"]


def do(run: MockRun, line: str) -> None:
    command = parse_line(line)
    assert isinstance(command, Command)
    run.run(command)


def cut_at(run: MockRun, moment: str) -> None:
    """Press and release the button, let the press get to ``moment``, and cut the power."""
    run.wait_for_rings()  # as a person does before pressing (the harness's press too)
    start, per_place = run.physics.steps, run.physics.steps_per_place
    run.physics.empty_hand()
    run.finger(True)
    run.advance(PRESS_TIME)
    run.finger(False)
    run.advance(0.0)
    assert run.referee.snapshot().saved.pending is not None  # the press taken, journaled
    share = {"a quarter": 0.25, "half": 0.5, "all but a step": 1 - 1 / per_place}.get(moment)
    if share is not None:
        while run.physics.steps - start < share * per_place:
            run.advance(0.0005)
        assert run.drive.moving  # cut in the middle of the move
    elif moment == "stopped":
        while run.drive.moving:
            run.advance(0.002)
        assert run.referee.snapshot().saved.pending is not None  # not yet checked
    elif moment == "checked":
        run.wait_for_rings()
        assert run.referee.snapshot().saved.pending is None
    run.power_cut()


@pytest.mark.parametrize("backend", ["sim", "gpio", "serial"])
@pytest.mark.parametrize("number", sorted(CUT_PRESSES), ids=CUT_PRESSES.get)
def test_a_power_cut_at_any_moment_of_a_press_is_recovered(backend: str, number: int) -> None:
    # An ordinary press is followed by one turn more; a full board's by the rest of the game.
    played = GAME if number >= 16 else GAME[: number + 1]
    expected = Position.start(Colour.BLACK)
    for token in played:
        expected = expected.play(Turn.from_notation(token))
    # The simulated Pico makes each move whole on its own thread (the harness waits for the
    # link before virtual time runs on): on serial there is no moment inside a move to cut at.
    moments = [m for m in MOMENTS if backend != "serial" or m in ("stopped", "checked")]
    for moment in moments:
        run = MockRun(parts=backend)  # type: ignore[arg-type]  # a Backend name
        try:
            do(run, "reset black")
            for n, token in enumerate(played, 1):
                for line in turn_lines(token):
                    do(run, line)
                if n == number:
                    cut_at(run, moment)
                else:
                    do(run, "press")
            run.finish()
            events = run.typed_events
            turns = [e.turn.notation() for e in events if isinstance(e, TurnPlayed)]
            where = f"{backend}, {CUT_PRESSES[number]}, cut {moment}"
            assert turns == played, where  # each turn once, none made up
            assert [e.kind for e in events if e.kind in ("correction", "corrected")] == [], where
            results = [e.result for e in events if isinstance(e, GameOver)]
            assert results == ([expected.result] if expected.result else []), where  # once
            assert run.referee.position.board() == expected.board(), where
            black, white = run.world.physics.colours()
            assert (black, white) == (expected.black, expected.white), where  # colour for colour
        finally:
            run.close()
