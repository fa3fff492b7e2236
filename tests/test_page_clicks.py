"""The page's clicks around the rings' moves (mock/page.py, issue 48): a click made on a page
that had not yet shown the rings' last move is refused with a reason, never applied to squares
the person did not see; every turn recorded is a turn the person made.

A person plays whole games by the page's controls, each click carrying the board the page
showed (``seen``). Hypothesis chooses when the page catches up with the board (a slow page
plans its next turn on the position before the rings' move), how the button is pressed (a
click, whose answer comes after the move, or a press and release that returns while the rings
still turn) and how long passes before the next click (nothing, part of the move, all of it).
Against the rules: the turns recorded are exactly the turns the person completed on a board
it saw, the board is what the rules give, and every refusal says why.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.control.events import Event, TurnPlayed
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.controls import RefusedError, board_view

MOVE_S = 0.3
"""About one ring move and its check on the simulated board, in virtual seconds."""


class StillTime(RealTime):
    """The page's real-time clock held still: the test advances the virtual clock itself,
    so an example runs the same on any machine."""

    def __init__(self, run: MockRun) -> None:
        self.run = run
        self.stopped = False

    def wake(self) -> None:
        return None


class Person:
    """A person at the page: plans each turn on the board the page shows, which may be the
    board before the rings' last move, and clicks it square by square."""

    def __init__(self, run: MockRun) -> None:
        self.run = run
        self.controls = MockControls(run, StillTime(run))
        self.made: list[str] = []  # the turns whose every click and press were taken
        self.refusals: list[str] = []
        self.recorded: list[str] = []
        run.referee.subscribe(self._heard)
        self.look()

    def _heard(self, event: Event) -> None:
        if isinstance(event, TurnPlayed):
            self.recorded.append(event.turn.notation())

    def look(self) -> None:
        """The page catches up: it shows the board as it stands."""
        now = self.run.referee.snapshot()
        self.seen, self.position = board_view(now.saved), now.position

    def click(self, square: int) -> bool:
        try:
            self.controls.lift_or_put(square, self.seen)
        except RefusedError as exc:
            self.refusals.append(str(exc))
            return False
        return True

    def press(self, quick: bool, gap: float) -> bool:
        """The button: a click (answered once the rings have turned), or a press and release
        answered at once, the rings still turning; then ``gap`` seconds pass."""
        try:
            if quick:
                self.controls.button("down", self.seen)
                self.run.advance(0.1)
                self.controls.button("up")
            else:
                self.controls.button("click", self.seen)
        except RefusedError as exc:
            self.refusals.append(str(exc))
            return False
        self.run.advance(gap)
        return True

    def play(self, turn: Turn, quick: bool, gap: float) -> None:
        squares = [] if turn.is_extra_press else [turn.move_from, turn.move_to, turn.place]
        for square in squares:
            if square is not None and not self.click(square):
                return  # refused at its first click: nothing of it was applied
        if self.press(quick, gap):
            self.made.append(turn.notation())


@settings(
    max_examples=12,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_clicks_at_any_moment_around_ring_moves_record_only_turns_made(
    data: st.DataObject, tmp_path_factory: pytest.TempPathFactory
) -> None:
    run = MockRun(tmp_path_factory.mktemp("clicks"))
    person = Person(run)
    try:
        for _ in range(60):  # turns tried: a whole game, refusals included
            if run.referee.position.is_over:
                break
            if data.draw(st.booleans(), "the page has caught up"):
                person.look()
            if person.position.is_over:
                person.look()
                continue
            turns = sorted(person.position.legal_turns(), key=Turn.notation)
            turn = data.draw(st.sampled_from(turns), "turn")
            quick = data.draw(st.booleans(), "pressed and released while the rings turn")
            gap = data.draw(st.sampled_from([0.0, 0.05, MOVE_S / 2, MOVE_S, 1.0]), "gap")
            person.play(turn, quick, gap)
        run.wait_for_rings()
        # Every turn recorded is one the person made, in order, and nothing else.
        assert person.recorded == person.made
        assert list(run.referee.snapshot().saved.turns) == person.made
        expected = Position.start(Colour.BLACK)
        for token in person.made:
            expected = expected.play(Turn.from_notation(token))
        assert run.referee.position.board() == expected.board()
        held = sum(1 << sq for sq in range(16) if expected.colour_at(sq) is not None)
        assert run.physics.occupancy() == held  # the marbles where the rules put them
        reason = "The board has moved on since your page showed it: look at it again, then click"
        assert all(why == reason for why in person.refusals)
    finally:
        run.close()


def test_a_click_on_the_board_before_the_rings_move_is_refused_and_changes_nothing(
    tmp_path: Path,
) -> None:
    async def main() -> None:
        run = MockRun(tmp_path)
        try:
            person = Person(run)
            person.play(Turn.from_notation("a1"), quick=True, gap=0.05)  # the rings still turn
            stale = person.seen
            # The next turn planned on the board before the move: refused, nothing applied
            # (the marble placed on a1 is on b1 now, where the press took it, and alone).
            assert not person.click(Turn.from_notation("b1").place)  # type: ignore[arg-type]
            run.wait_for_rings()
            assert run.physics.occupancy() == 1 << Turn.from_notation("b1").place
            assert person.seen == stale and person.refusals
            assert not person.press(quick=False, gap=0.0)  # a press on it too
            assert list(run.referee.snapshot().saved.turns) == ["a1"]
            # Once the page shows the move, the same click counts.
            person.look()
            assert person.click(Turn.from_notation("b1").place)  # type: ignore[arg-type]
            # A click that says nothing of what it saw is taken as before (scripts, tests).
            person.controls.lift_or_put(Turn.from_notation("c1").place)  # type: ignore[arg-type]
        finally:
            run.close()

    asyncio.run(main())
