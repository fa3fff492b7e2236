"""A Pico that comes back in the middle of a ring move raises no false alarm (issue 34, 9).

The serial backend against the firmware's logic behind a pty (``FakePico``), on a board
whose marbles ride the rings (``SimBoard``, 800 steps a place, as the real one): the cable
is pulled between two steps of the move that follows a press, with the Pico's power (a
Pico on the Pi's USB: it stops and boots anew) or without (its own supply: it runs on and
what it says meanwhile is lost), and put back at once (the link is back within the move)
or once the referee shows the fault (the link gave up: the start-up check finishes the
turn). Whatever the step, the turn counts once, its own log line says so, the rings end one
place on, and a correction is asked for only when the board really differs: a marble
taken while the Pico was away.

The Pico debounces its squares for 50 ms, the config's default: a Pico just booted counts a
square, and a marble the homing carried onto its square, only that long after. Before the
fix the squares were read at once after the Pico came back, and the board asked to check
the squares the moving marbles had not reached yet (``board does not match, check squares
...``, then ``board matches again, play on``).
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Literal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.app.logs import describe
from orbito_hw.control.events import Correction, Event, TurnPlayed
from orbito_hw.control.journal import Journal, Saved
from orbito_hw.control.referee import Referee, State
from orbito_hw.control.settings import Settings
from orbito_hw.hw.clock import LoopClock
from orbito_hw.hw.interfaces import Board
from orbito_hw.hw.serial_backend import SerialRingDrive
from orbito_hw.hw.serial_link import LinkSettings
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.squares import parse_square, squares_of
from orbito_hw.sim.board import SimBoard, SimButton, SimLights
from orbito_hw.sim.pico import FakePico
from orbito_hw.sim.world import SimRings

SPP = 800  # the real board's steps per place
OPENING = ["a1", "b2", "c3", "d4", "a3", "c1", "d2", "b4"]  # 8 marbles on both rings
TURN = "b1"  # black's: a ninth marble, and all nine turn with the press
AFTER = replay(Colour.BLACK, [*OPENING, TURN])
# Fast moves (800 steps in some 50 ms) and the config's debounce of the squares.
PICO = {"spp": SPP, "speed": 20000, "accel": 1_000_000, "home_speed": 8000, "scan": 1,
        "debounce_ms": 50}  # fmt: skip
# The link gives a cut move up after a quarter of a second (20 s on a board).
LINK = LinkSettings(backoff_first=0.01, backoff_max=0.05, reconnect_timeout=0.25)
WAIT = 10.0

Back = Literal["at once", "after the fault"]


class PicoGame:
    """Game 1 after OPENING, journaled and on the board; the referee on an event loop, the
    rings and the squares on a FakePico."""

    def __init__(self, state_dir: Path) -> None:
        self.physics = SimBoard(steps_per_place=SPP)
        position = replay(Colour.BLACK, OPENING)
        for square in squares_of(position.occupied):
            colour = position.colour_at(square)
            assert colour is not None
            self.physics.put(square, colour)
        self.journal = Journal(state_dir)
        self.journal.save(Saved(turns=list(OPENING)))
        self.pico = FakePico(SimRings(self.physics))
        self.pico.start()
        self.loop = asyncio.new_event_loop()
        clock = LoopClock(self.loop)
        self.drive = SerialRingDrive(clock, self.pico.path, PICO, LINK)
        self.button = SimButton(clock)
        board = Board(clock, self.drive.sensors, self.button, self.drive, SimLights())
        self.referee = Referee(board, self.journal, Settings(debounce=0.0))  # the Pico debounces
        self.events: list[Event] = []
        self.referee.subscribe(self.events.append)

    def until(self, condition: Callable[[], bool], what: str) -> None:
        """Run the loop until ``condition`` holds; fails naming ``what`` after WAIT s."""
        deadline = time.monotonic() + WAIT
        while not condition():
            assert time.monotonic() < deadline, f"{what}: {self.referee.state}, {self.lines()}"
            self.loop.run_until_complete(asyncio.sleep(0.002))

    def lines(self) -> list[str]:
        """The events as the board's log says them."""
        return [describe(event)[1] for event in self.events]

    def close(self) -> None:
        self.drive.close()  # before the loop: its worker posts to the loop
        self.pico.close()
        self.referee.close()
        self.journal.close()
        self.loop.close()


@contextmanager
def pico_game() -> Iterator[PicoGame]:
    with tempfile.TemporaryDirectory(prefix="pico-back-") as state:
        game = PicoGame(Path(state))
        try:
            yield game
        finally:
            game.close()


def cut_mid_move(game: PicoGame, step: int, power: bool, back: Back, taken: int | None) -> None:
    """TURN made and pressed; the cable pulled ``step`` steps into the ring move (the power
    with it or not); ``taken``: while it is out, a hand takes the marble of that pocket
    (its index among the pockets' keys, sorted) once the rings are still; then the cable
    back, ``at once`` or ``after the fault`` the referee shows."""
    game.referee.start()
    game.until(lambda: game.referee.state is State.WAITING, "homed and checked")
    game.physics.put(parse_square(TURN), Colour.BLACK)
    game.until(lambda: game.referee.state is State.TURN, "the turn made")
    game.pico.cut(step, power)
    game.button.set(True)  # a short press
    game.button.set(False)
    game.until(lambda: not game.pico.plugged, "the cable pulled")
    if taken is not None:
        pico = game.pico
        game.until(lambda: not pico.powered or not pico.controller.busy, "the rings still")
        pockets = sorted(game.physics.pockets)
        del game.physics.pockets[pockets[taken % len(pockets)]]
    if back == "after the fault":
        game.until(lambda: game.referee.state is State.FAULT, "the fault shown")
    game.pico.replug()
    turns = len(OPENING) + 1
    game.until(lambda: len(game.referee.saved.turns) == turns, "the turn counted")
    calm = State.WAITING if taken is None else State.CORRECTION
    game.until(lambda: game.referee.state is calm and not game.drive.moving, "play on")


def assert_counted_once_and_no_false_alarm(game: PicoGame, taken: bool) -> None:
    assert game.referee.saved.turns == [*OPENING, TURN]
    played = [e for e in game.events if isinstance(e, TurnPlayed)]
    assert [(e.number, e.turn.notation()) for e in played] == [(len(OPENING) + 1, TURN)]
    said = f"game 1 turn {len(OPENING) + 1}: black {TURN} -> {AFTER.board()}"
    assert game.lines().count(said) == 1, game.lines()  # the turn says that it counted
    assert game.physics.steps == SPP  # the rings one place on, at rest on the squares
    differs = AFTER.occupied ^ game.physics.occupancy()  # a marble taken meanwhile
    assert bool(differs) is taken
    corrections = [e for e in game.events if isinstance(e, Correction)]
    if taken:  # the real difference, and only it, reported
        assert [c.squares for c in corrections] == [tuple(squares_of(differs))], game.lines()
    else:
        assert corrections == [], game.lines()  # no red flash of squares nobody touched
        assert game.referee.sensors.read() == AFTER.occupied


def test_a_pico_just_booted_is_read_once_its_squares_have_settled() -> None:
    # A Pico counts a square only debounce_ms after its scan is switched on: read at once,
    # a board of eight marbles read empty, and the start-up check asked for all eight.
    with pico_game() as game:
        game.referee.start()
        game.until(lambda: game.referee.state is State.WAITING, "homed and checked")
        assert [e for e in game.events if isinstance(e, Correction)] == [], game.lines()
        assert game.referee.sensors.read() == replay(Colour.BLACK, OPENING).occupied


@pytest.mark.parametrize(
    ("power", "back"),
    [
        # The case: a Pico on the Pi's USB, the cable pulled 554 of 800 steps into
        # the move and put back after the link gave the move up: the start-up check.
        (True, "after the fault"),
        # A Pico on its own supply, the cable back within the move: its check after it.
        (False, "at once"),
    ],
    ids=["powered by the cable, back after the fault", "own supply, back at once"],
)
def test_a_pico_back_mid_move_counts_the_turn_once_and_asks_for_no_correction(
    power: bool, back: Back
) -> None:
    with pico_game() as game:
        cut_mid_move(game, 554, power, back, taken=None)
        assert_counted_once_and_no_false_alarm(game, taken=False)
        assert game.pico.boots == (2 if power else 1)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    step=st.integers(1, SPP - 1),
    power=st.booleans(),
    back=st.sampled_from(["at once", "after the fault"]),
    taken=st.none() | st.integers(0, 8),
)
def test_a_cable_pulled_at_any_step_asks_for_a_correction_only_when_the_board_differs(
    step: int, power: bool, back: Back, taken: int | None
) -> None:
    with pico_game() as game:
        cut_mid_move(game, step, power, back, taken)
        assert_counted_once_and_no_false_alarm(game, taken=taken is not None)
