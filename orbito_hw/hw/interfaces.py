"""The interfaces between the referee and the board's hardware.

The referee knows only these: it never imports gpiozero, neopixel or pyserial. Every
callback a backend makes reaches the referee on the clock's thread (backends that get
callbacks on their own threads hand them over with ``Clock.post``), and every timestamp
comes from the clock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from types import TracebackType
from typing import Final, Literal, Protocol, get_args, runtime_checkable

# --- who drives a part ----------------------------------------------------------------------
Backend = Literal["sim", "gpio", "serial", "tmag"]
"""What drives the sensors, the button or the ring drive: ``gpio`` the Pi's own pins
(gpiozero), ``serial`` the Pico's firmware over USB, ``sim`` the simulated board's parts,
``tmag`` (the sensors only) the reference board's TMAG5273 on I2C (``hw/tmag.py``).
The config names one per part; ``run --mock --backend`` runs one backend's drivers against
the simulated board."""
BACKENDS: Final[tuple[Backend, ...]] = get_args(Backend)
"""Every backend, in the order the command line lists them (sim, the default, first)."""

LightsBackend = Literal["neopixel", "sim", "none"]
"""What drives the LEDs: ``neopixel`` a strip on a Pi pin, ``sim`` the simulated board's
lights, ``none`` a board built without LEDs."""

RGB = tuple[int, int, int]
"""A colour, 0..255 per channel, before brightness."""

_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")


def rgb_hex(colour: RGB) -> str:
    """A colour as ``#rrggbb`` (the config file's and the result event's spelling)."""
    r, g, b = colour
    if not all(0 <= c <= 255 for c in colour):
        raise ValueError(f"{colour!r} is not a colour (0..255 per channel)")
    return f"#{r:02x}{g:02x}{b:02x}"


def parse_rgb(text: str) -> RGB:
    """``#rrggbb`` (either case) to a colour; ValueError naming the text otherwise."""
    if len(text) != 7 or text[0] != "#" or not _HEX_DIGITS.issuperset(text[1:]):
        raise ValueError(f'{text!r} is not a colour ("#rrggbb", like #ff8800)')
    return (int(text[1:3], 16), int(text[3:5], 16), int(text[5:7], 16))


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


@runtime_checkable
class ColourSensors(SquareSensors, Protocol):
    """Sensors that tell black from white (linear hall sensors, calibrated).

    Listeners hear presence as from any ``SquareSensors``; a square that turns from black to
    white (or back) without reading empty in between is reported as a lift then a put
    (present False then True, with the same timestamp), so whoever keeps the colours reads
    ``colours()`` after the put and never misses the change.
    """

    def colours(self) -> tuple[int, int]:
        """(black, white): the squares read holding a black and a white marble now, as masks
        (raw, like read(); together they are read())."""
        ...


@runtime_checkable
class RereadsColours(Protocol):
    """Colour sensors that read a colour only when asked (by light: ``hw/light.py``), never
    while the board waits: after a ring move no square's presence need change while other
    marbles came over the squares, so whoever trusts the squares again asks first."""

    def reread(self) -> None:
        """Read every held square's colour afresh; a colour that changed is told as a lift
        then a put, as ``ColourSensors`` say."""
        ...


def reread_colours(sensors: object) -> None:
    """The colours read afresh, where ``sensors`` read them only when asked."""
    if isinstance(sensors, RereadsColours):
        sensors.reread()


def tells_colour(sensors: SquareSensors) -> bool:
    """Whether ``sensors`` tell black from white. A part whose colour is switched off
    (``sensors.colour = false``, a presence-only board) is built without ``colours()``."""
    return isinstance(sensors, ColourSensors)


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
    at the end; False means steps were lost. ``places`` is the move asked for (negative:
    back, clockwise; 0 for homing) and ``steps`` the motor steps made, counted alike
    whichever way the rings turned. ``fault`` names a hardware fault (a homing timeout, a
    lost link), or is empty.
    """

    places: int
    steps: int
    at_index: bool
    fault: str = ""


MoveListener = Callable[[MoveReport], None]

FaultListener = Callable[[str], None]
"""A ring drive's word between moves: the fault that stops it (``"the ring controller on
/dev/ttyACM0 is gone (...)"``), or ``""`` once it works again (set up and homed)."""


PART_WORDS: Final[dict[str, str]] = {
    "lights": "the LED strip",
    "drive": "the ring drive",
    "sensors": "the square sensors",
    "button": "the button",
    "colours": "the colour reading",
}
"""The board's parts by the names the supervisor and the config use, as a person says them."""


def part_is(part: str, how: str) -> str:
    """A part of the board and how it is, as a person says it: ``the LED strip is
    missing``, ``the square sensors are missing`` (an unknown part named as is)."""
    verb = "are" if part == "sensors" else "is"
    return f"{PART_WORDS.get(part, part)} {verb} {how}"


@dataclass(frozen=True, slots=True)
class Health:
    """Which of the board's parts are missing or failing, and why: the board's health, one
    value told whole to whoever watches it (the referee, the status line, the log).

    It has a channel of its own (``HealthChannel``), not the ring drive's fault words: an LED
    strip that is missing is not a fault of the drive's. ``missing`` holds the parts that are
    not open (never opened yet, or let go after they failed, and being opened again), in the
    order they are tried, each with why; ``failing`` the parts open but not working (the
    ring drive whose Pico was unplugged: its link reconnects by itself), each with its fault.
    """

    missing: tuple[tuple[str, str], ...] = ()
    failing: tuple[tuple[str, str], ...] = ()

    @property
    def whole(self) -> bool:
        """Every part there and working: the board can play."""
        return not self.missing and not self.failing

    @property
    def fault(self) -> str:
        """The one line the players see while the board cannot play ("" when it can): the
        first missing part's reason (a missing part stops the board before a failing one
        does), else the first failing part's fault. These words are the referee's fault
        event: they stay as they were when health travelled on the drive's fault channel."""
        if self.missing:
            more = len(self.missing) - 1
            first = self.missing[0][1]
            return f"waiting for the board: {first}" + (f" (and {more} more)" if more else "")
        return self.failing[0][1] if self.failing else ""

    def parts(self) -> list[str]:
        """Each part that is not well, by name and why (``the ring drive is missing: ...``):
        what doctor and the log say, one part a line."""
        return [f"{part_is(p, 'missing')}: {why}" for p, why in self.missing] + [
            f"{part_is(p, 'failing')}: {why}" for p, why in self.failing
        ]


HealthListener = Callable[[Health], None]
"""Hears the board's health when what the players see of it changes (``Health.fault``)."""


class HealthChannel(Protocol):
    """Where the board's health is held and told: one per board."""

    def now(self) -> Health:
        """The board's health now."""
        ...

    def watch(self, listener: HealthListener) -> None:
        """Call ``listener`` (through ``Clock.post``) with the board's health each time its
        fault line changes: a part missing or failing, or "" once the board is whole."""
        ...


class RingDrive(Protocol):
    """The stepper that turns both rings: counter-clockwise, one place per press, and back
    (clockwise) by whole places for a take-back."""

    def move(self, places: int, done: MoveListener) -> None:
        """Turn the rings ``places`` places, counter-clockwise as a press does; a negative
        ``places`` turns them that many places back, clockwise (the inverse of as many
        presses). Call ``done`` once the motor has stopped: the ``MoveReport`` says the same
        either way (``places`` as asked, the steps made, ``at_index``; lost steps leave the
        rings short of the index whichever way they turned)."""
        ...

    def home(self, done: MoveListener) -> None:
        """Step on, always counter-clockwise, until the index sensor says the rings sit on
        the squares (at most one place and a margin; a fault past that), then call
        ``done``."""
        ...

    def watch(self, on_fault: FaultListener) -> None:
        """Call ``on_fault`` (through ``Clock.post``) when the drive fails or recovers
        between moves, unasked: a ring controller unplugged while the rings are idle. A
        move or homing under way reports its own fault in its ``MoveReport``. Drives that
        cannot fail between moves (the Pi's own pins) never call it."""
        ...

    @property
    def moving(self) -> bool: ...

    def close(self) -> None: ...


class SimulatedDrive(RingDrive, Protocol):
    """A ring drive as a harness on a virtual clock needs it: before virtual time runs on,
    whatever the drive does off the clock's thread (the simulated Pico behind its link) must
    be finished, its reports posted to the clock."""

    def wait_idle(self, timeout: float) -> bool:
        """Block until every move and homing asked for has been reported to the clock;
        False on timeout. A drive whose steps are the clock's own timers is idle at once."""
        ...


class Lights(Protocol):
    """A NeoPixel under each square and an optional status pixel."""

    def show(self, frame: Frame, status: RGB | None = None) -> None: ...

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        """What the pixels hold now, in square order, and the status pixel (before
        brightness; all dark for lights that hold nothing): what a person sees."""
        ...

    def close(self) -> None:
        """Switch every pixel off and let go of the strip."""
        ...


@dataclass
class Board:
    """The parts of one board, as the referee sees them. Closes once, however often asked
    (``close()`` or the end of a ``with`` block): the lights first, dark on the way out."""

    clock: Clock
    sensors: SquareSensors
    button: Button
    drive: RingDrive
    lights: Lights
    pins: Callable[[], None] | None = field(default=None, compare=False)
    """Closes what the parts' pins came from (the gpio parts' pin factory), after them."""
    health: HealthChannel | None = field(default=None, compare=False)
    """The board's health, where a supervisor holds it (``hw/health.py``, the real board's
    parts that come and go); None: the drive's fault words are the board's health."""
    closed: bool = field(default=False, init=False, compare=False)

    def close(self) -> None:
        if self.closed:
            return
        self.closed = True
        with ExitStack() as parts:  # every part is closed, even after one fails
            if self.pins is not None:
                parts.callback(self.pins)
            for part in (self.sensors, self.button, self.drive, self.lights):
                parts.callback(part.close)  # run last in, first out: the lights first

    def __enter__(self) -> Board:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
