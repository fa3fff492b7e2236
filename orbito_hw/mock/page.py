"""The page's controls on the simulated board (``run --mock --web``).

A click runs the board-script command it stands for through the harness (``lift SQ`` /
``put SQ``, ``press``, the directives), as a person's hand would; the button's hold runs
in real time (realtime.py). worlds.py serves the page with these controls.
"""

from __future__ import annotations

import logging

from orbito_hw.control.referee import Referee
from orbito_hw.control.requests import SetupRequest
from orbito_hw.lang import R_
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import square_name
from orbito_hw.sim.harness import CommandError, ControllerFailedError, MockRun
from orbito_hw.sim.script import parse_line
from orbito_hw.web.controls import BoardControls, RefusedError, board_view

log = logging.getLogger(__name__)

MOCK_BIND = "127.0.0.1"
"""Where the simulated board listens unless ``--config`` names a ``[web] bind``: this
machine only (its controls need no code)."""


class MockControls(BoardControls):
    """The page's controls on the simulated board: board-script commands run by the harness,
    the button's hold in real time."""

    simulated = True

    def __init__(self, run: MockRun, clock: RealTime) -> None:
        # The parent's set-up whole (the state directory, the first colour, its opponent for
        # the next game heard on the first controller's NewGame): nothing it relies on is left
        # unset. Its opponent waits for no next game here: ``set_opponent`` is the script's.
        super().__init__(run.referee, run.state_dir, run.settings.first)
        self.run = run
        self.clock = clock

    @property
    def referee(self) -> Referee:
        """The controller running now: a power cut boots a new one (the harness's), so the
        referee the parent was given may be a dead controller's."""
        return self.run.referee

    def lift_or_put(self, square: int, seen: str | None = None) -> None:
        """A click on a square: lift the marble there, or put one (SPEC.md's web page)."""
        self.run.wait_for_rings()  # hands off while the rings turn: the click waits for them
        self._same_board(seen)
        held = self.run.physics.occupancy() >> square & 1
        self._do(f"{'lift' if held else 'put'} {square_name(square)}")

    def _same_board(self, seen: str | None) -> None:
        """A click made on a page that had not yet shown the rings' last move (a turn ended,
        taken back, a new game) is refused, never applied to squares the person did not see:
        on the board as it stands it could make a turn nobody made. Touches within a turn
        leave the view as it was, so quick clicks on one turn all count."""
        if seen is not None and seen != board_view(self.referee.snapshot().saved):
            self.clock.wake()
            raise RefusedError(
                R_("The board has moved on since your page showed it: look at it again, then click")
            )

    def button(self, action: str, seen: str | None = None) -> None:
        if action in ("click", "down"):
            self.run.wait_for_rings()
            self._same_board(seen)
        if action == "click":
            # Pressed and released, and the rings turned (fast-forwarded, the page draws
            # the move): the page shows the turn as the click's answer comes back.
            self._do("press")
            self.run.wait_for_rings()
            self.clock.wake()
            return
        run = self.run
        if action == "down":
            run.wait_for_rings()
            run.physics.empty_hand()  # as ``press`` does: a marble in the hand goes back
        run.finger(action == "down")
        self._settle()

    def new_game(self, first: Colour) -> None:
        self._do(f"reset {first.value}", first_command=not self.referee.snapshot().turns)

    def set_opponent(self, level: str, colour: Colour) -> None:
        self._do("opponent none" if level == "none" else f"opponent {level} {colour.value}")

    def set_hints(self, on: bool) -> None:
        self._do(f"hints {'on' if on else 'off'}")

    def take_back(self) -> None:
        super().take_back()
        self._settle()

    def set_up(self, request: SetupRequest) -> None:
        self.run.wait_for_rings()  # the request is taken at once, never while the rings turn
        super().set_up(request)
        self._settle()

    def _do(self, line: str, first_command: bool = False) -> None:
        command = parse_line(line)
        assert command is not None
        try:
            self.run.run(command, first_command=first_command)
        except CommandError as exc:
            raise RefusedError(str(exc).split(": ", 1)[-1]) from None
        except ControllerFailedError as exc:
            raise RefusedError(f"the controller failed: {exc}") from None
        finally:
            self.clock.wake()

    def settle(self) -> None:
        self._settle()

    def _settle(self) -> None:
        self.run.advance(0.0)
        self.clock.wake()
