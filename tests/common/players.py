"""A person at a running board (run_board on the test's thread, the person on another).

The person follows the board, never a clock: each step waits for what a person at the board
would see (systemd's status line, the referee's state and the events in the log, the rings
turning or standing still), with a deadline generous enough for a loaded CI machine. The
only fixed waits left are a person's own: a press held for a tenth of a second, a cable
left out a while."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest

from .wait import DEADLINE_S, until


def settled(pin: Any, quiet: float = 0.4, seconds: float = DEADLINE_S) -> None:
    """Wait until a mock output pin (the stepper's STEP) has not changed for ``quiet`` s:
    the rings stand still."""
    deadline = time.monotonic() + seconds
    seen = -1
    while seen != len(pin.states):
        if time.monotonic() > deadline:
            raise TimeoutError("the rings never stood still")
        seen = len(pin.states)
        threading.Event().wait(quiet)


def turning(pin: Any) -> Callable[[], bool]:
    """A condition: the stepper's STEP pin (a mock output pin) has moved since now."""
    before = len(pin.states)
    return lambda: len(pin.states) > before


def press(button: Any, held: float = 0.1) -> None:
    """A short press of a mock input pin (the button, pulled up): held ``held`` s."""
    button.drive_low()
    threading.Event().wait(held)
    button.drive_high()


REFEREE = "orbito_hw.control.referee"
"""The referee's logger: each of its state changes is a DEBUG line "old --trigger--> new"."""


class Watch:
    """The controller's log as a person follows the board: the referee's state changes
    ("waiting for a turn --touch--> turn in progress"), the events (a turn, a fault) and the
    supervisor's lines ("every part of the board is there"). ``see`` waits for the next line,
    after the last one seen, that holds a text: the steps of a scenario in their order."""

    def __init__(self, caplog: pytest.LogCaptureFixture) -> None:
        # The handler takes the level of the last set_level: the referee's DEBUG last.
        caplog.set_level(logging.INFO, logger="orbito_hw")
        caplog.set_level(logging.DEBUG, logger=REFEREE)
        self.caplog = caplog
        self.seen = 0  # the records before this one are behind the person

    def see(self, text: str, seconds: float = DEADLINE_S, logger: str = "") -> None:
        """Wait for the next log line (after the last one seen) that holds ``text``, from
        ``logger`` (any logger if "")."""

        def found() -> bool:
            records = self.caplog.records
            for at in range(self.seen, len(records)):
                record = records[at]
                if logger in ("", record.name) and text in record.getMessage():
                    self.seen = at + 1
                    return True
            return False

        until(found, seconds, repr(text))

    def entered(self, state: str, seconds: float = DEADLINE_S) -> None:
        """Wait for the referee's next move into ``state`` ("waiting for a turn")."""
        self.see(f"--> {state}", seconds, logger=REFEREE)

    def now(self, state: str, seconds: float = DEADLINE_S) -> None:
        """Wait until the referee is in ``state`` (its last move was into it), whichever way
        it got there; every line so far is then seen."""

        def there() -> bool:
            records = list(self.caplog.records)
            for record in reversed(records):
                message = record.getMessage()
                if record.name == REFEREE and "--> " in message:
                    if message.endswith(f"--> {state}"):
                        self.seen = len(records)
                        return True
                    return False
            return False

        until(there, seconds, f"the referee {state}")


class Person:
    """``act`` on a thread of its own; SIGTERM to the service once it is done, or failed.
    ``done`` (after run_board returned) raises what went wrong on the person's side."""

    def __init__(self, act: Callable[[], None]) -> None:
        self.act = act
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._play, name="person", daemon=True)
        self.thread.start()

    def _play(self) -> None:
        try:
            self.act()
        except BaseException as exc:
            self.error = exc
        finally:
            os.kill(os.getpid(), signal.SIGTERM)

    def done(self) -> None:
        self.thread.join(timeout=DEADLINE_S)
        if self.error is not None:
            raise self.error
