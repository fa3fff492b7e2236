"""A table for the asks' tests (tests/test_asks*.py, test_ask_lights.py): the simulated
board, black the person at it, white a seat on a phone (control/seat.py), its turns handed
in and made at the board as the LEDs show them; a power cut keeps the marbles where they are
and the seat sits again on the controller it boots."""

from __future__ import annotations

import random
from typing import TypeVar

from orbito_hw.control.events import Event
from orbito_hw.control.referee import Referee
from orbito_hw.control.seat import Seat
from orbito_hw.rules.game import Colour
from orbito_hw.rules.turn import Turn
from orbito_hw.sim.demo import turn_commands
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import Command

from .scripts import undo_commands

BLACK, WHITE = Colour.BLACK, Colour.WHITE
E = TypeVar("E", bound=Event)


class Table:
    """A simulated board, black the person at it, white a seat on a phone (control/seat.py)."""

    def __init__(self) -> None:
        self.run = MockRun(seed=1)
        self.run.run(Command("reset", colour=BLACK), first_command=True)
        self.seat = Seat(WHITE)
        self.seat.sit(self.run.referee)
        self.run.advance(0.0)
        self.rng = random.Random(37)

    @property
    def referee(self) -> Referee:
        return self.run.referee

    @property
    def turns(self) -> list[str]:
        return list(self.referee.snapshot().turns)

    def events(self, kind: type[E]) -> list[E]:
        return [e for e in self.run.typed_events if isinstance(e, kind)]

    def play(self, *tokens: str) -> None:
        """The next turns: black's made by the person, white's handed in by the seat and
        made at the board as the LEDs show them."""
        for token in tokens:
            number = len(self.turns) + 1
            if self.referee.position.to_move is WHITE:
                assert self.seat.hand_in(self.referee, number, token) == "shown"
            board = self.referee.position.to_move is WHITE
            for command in turn_commands(Turn.from_notation(token), self.rng, board):
                self.run.run(command)
            self.run.wait_for_rings()
            assert len(self.turns) == number, f"{token} not counted"

    def undo(self, tokens: list[str]) -> None:
        """The person undoes ``tokens`` (the last first) as the LEDs ask, after each turn back."""
        for token in tokens:
            self.run.wait_for_rings()
            for command in undo_commands(Turn.from_notation(token)):
                self.run.run(command)
        self.run.wait_for_rings()
        self.run.advance(0.1)

    def power_cut(self, sit: bool = False) -> None:
        """The board loses power and boots again on its state directory, the marbles where
        they were; ``sit``: the seat's page then comes back (its next request sits it)."""
        self.run.power_cut()
        if sit:
            self.seat.sit(self.run.referee)
            self.run.advance(0.0)

    def close(self) -> None:
        self.run.close()
