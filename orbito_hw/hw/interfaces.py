"""The interfaces between the referee and the board's hardware.

The referee knows only these: it never imports gpiozero, neopixel or pyserial. Every
callback a backend makes reaches the referee on the clock's thread (backends that get
callbacks on their own threads hand them over with ``Clock.post``), and every timestamp
comes from the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

RGB = tuple[int, int, int]
"""A colour, 0..255 per channel, before brightness."""

Frame = Sequence[RGB | None]
"""The 16 squares' colours, indexed by square (a1 = 0 .. d4 = 15); None is dark."""


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Time and timers: virtual on the simulated board, the event loop's on a real one."""

    def now(self) -> float:
        """Seconds, monotonic."""
        ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> TimerHandle: ...

    def post(self, callback: Callable[[], None]) -> None:
        """Run ``callback`` soon on the clock's thread; safe to call from any thread."""
        ...


SquareListener = Callable[[int, bool, float], None]
"""(square, present, timestamp): a square's sensor changed."""


class SquareSensors(Protocol):
    """A presence sensor under each square. Presence only: no colours."""

    def read(self) -> int:
        """The squares whose sensor reads a marble now, as a mask."""
        ...

    def subscribe(self, listener: SquareListener) -> None:
        """Call ``listener`` on every raw change (before any debouncing)."""
        ...

    def close(self) -> None: ...


ButtonListener = Callable[[bool, float], None]
"""(pressed, timestamp): the Orbito button went down (True) or up (False)."""


class Button(Protocol):
    def subscribe(self, listener: ButtonListener) -> None: ...

    @property
    def is_pressed(self) -> bool: ...

    def close(self) -> None: ...


@dataclass(frozen=True, slots=True)
class MoveReport:
    """How a ring move ended.

    ``at_index`` is whether the index sensor saw the rings sitting exactly on the squares
    at the end; False means steps were lost. ``steps`` is the motor steps made.
    ``fault`` names a hardware fault (a homing timeout, a lost link), or is empty.
    """

    places: int
    steps: int
    at_index: bool
    fault: str = ""


MoveListener = Callable[[MoveReport], None]


class RingDrive(Protocol):
    """The stepper that turns both rings, always counter-clockwise, one place per press."""

    def move(self, places: int, done: MoveListener) -> None:
        """Turn the rings ``places`` places; call ``done`` once the motor has stopped."""
        ...

    def home(self, done: MoveListener) -> None:
        """Step on until the index sensor says the rings sit on the squares (at most one
        place and a margin; a fault past that), then call ``done``."""
        ...

    @property
    def moving(self) -> bool: ...

    def close(self) -> None: ...


class Lights(Protocol):
    """A NeoPixel under each square and an optional status pixel."""

    def show(self, frame: Frame, status: RGB | None = None) -> None: ...

    def close(self) -> None:
        """Switch every pixel off and let go of the strip."""
        ...


@dataclass
class Board:
    """The parts of one board, as the referee sees them."""

    clock: Clock
    sensors: SquareSensors
    button: Button
    drive: RingDrive
    lights: Lights

    def close(self) -> None:
        for part in (self.lights, self.drive, self.button, self.sensors):
            part.close()
