"""The simulated board: a physics model of marbles, rings, a stepper and sensors.

It models the machine, not the answers: marbles sit in pockets on the two rings, the
stepper turns both rings ``steps_per_place`` steps per place (either way: forward is a
press, counter-clockwise; back is a take-back, clockwise), a square's sensor reads a
marble only while a full pocket sits on it, the index sensor reads only when the rings sit
exactly on the squares, and steps can be lost. The controller sees it only through the
interfaces of ``orbito_hw.hw.interfaces``; everything runs on a virtual clock.

With ``hall`` (sim/hall_sensors.py) each square has a linear hall sensor: every change of
the board reads all 16 in gauss, with their offsets and noise, and classifies the readings
as a real board's backend does, so presence and colour follow the classified readings.
Without, a sensor reads presence exactly (a reed switch or a hall switch).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial

from orbito_hw.errors import OrbitoError
from orbito_hw.hw.hall import Seen
from orbito_hw.hw.interfaces import (
    RGB,
    ButtonListener,
    Clock,
    Frame,
    Lights,
    SquareListener,
)
from orbito_hw.hw.planner import SteppedDrive
from orbito_hw.rules.game import Colour, board_string
from orbito_hw.rules.squares import INNER_RING, OUTER_RING, SQUARES
from orbito_hw.sim.hall_sensors import SimHall

# Where each square sits on its ring: (ring, index along the ring).
_RING_OF: dict[int, tuple[tuple[int, ...], int]] = {
    sq: (ring, i) for ring in (OUTER_RING, INNER_RING) for i, sq in enumerate(ring)
}


class SimError(OrbitoError, RuntimeError):
    """Something no hand can do to a physical board: put a marble on a marble, lift one
    from an empty square, touch a marble while the rings are turning. Neither bad input as
    such nor a hardware fault: the harness reports it as the script command that asked for
    it."""


@dataclass
class SimBoard:
    """The physical board. ``steps`` is where the rings are, in motor steps from where they
    started: up by one for each step forward (counter-clockwise), down by one for each step
    back (clockwise).

    A pocket is (ring length, pocket number); a marble put on a square drops into the
    pocket sitting on it, and rides the ring whichever way it turns. ``sense_window`` is
    how many steps off a pocket may be and still be read by the square's sensor.
    ``slip`` steps still to be lost (a stalling motor, either way); ``dir_stuck`` is a
    stepper driver whose DIR input reads one level whatever it is sent (its wire off):
    every step turns the rings forward.
    """

    steps_per_place: int = 200
    sense_window: int = 20
    steps: int = 0
    pockets: dict[tuple[int, int], Colour] = field(default_factory=dict)
    hand: list[Colour] = field(default_factory=list)
    slip: int = 0
    dir_stuck: bool = False
    _overrides: dict[int, bool] = field(default_factory=dict)
    _listeners: list[SquareListener] = field(default_factory=list)
    _reading: int = 0
    _black: int = 0  # the squares read holding a black marble (hall sensors only)
    clock: Clock | None = None
    hall: SimHall | None = None

    # --- geometry --------------------------------------------------------------
    @property
    def places(self) -> int:
        """Whole places the rings have turned."""
        return self.steps // self.steps_per_place

    @property
    def offset(self) -> int:
        return self.steps % self.steps_per_place

    @property
    def aligned(self) -> bool:
        return self.offset == 0

    def index_active(self) -> bool:
        """The index sensor: a magnet under every place, read only dead on."""
        return self.aligned

    def _pocket_near(self, square: int) -> tuple[tuple[int, int], bool]:
        """The pocket nearest to ``square`` and whether it is within the sensor's window."""
        ring, i = _RING_OF[square]
        off = self.offset
        turned = self.places + (1 if off > self.steps_per_place // 2 else 0)
        near = min(off, self.steps_per_place - off) <= self.sense_window
        return (len(ring), (i - turned) % len(ring)), near

    def colour_at(self, square: int) -> Colour | None:
        """The colour of the marble sitting on ``square`` (rings at rest), or None."""
        pocket, near = self._pocket_near(square)
        return self.pockets.get(pocket) if near else None

    def truth(self, square: int) -> Colour | None:
        """What sits on ``square`` as its sensor meets it: a marble within the window, or
        what a chattering sensor's override makes of it (a marble's worth of field)."""
        colour = self.colour_at(square)
        if square in self._overrides:
            present = self._overrides[square]
            return (colour or Colour.BLACK) if present else None
        return colour

    def occupancy(self) -> int:
        """The squares whose sensor reads a marble now."""
        if self.hall is not None:
            return self._reading  # as last read and classified
        return self._sense()[0]

    def colours(self) -> tuple[int, int]:
        """The squares read holding a black and a white marble (hall sensors only)."""
        return self._black, self._reading & ~self._black

    def hall_reading(self, square: int) -> float:
        """What the hall sensor under ``square`` reads now, in gauss (with noise): what an
        ADC on the simulated board converts."""
        if self.hall is None:
            raise SimError("this simulated board has no hall sensors")
        return self.hall.reading(square, self.truth(square))

    def _sense(self) -> tuple[int, int]:
        """Every sensor read now: (the squares that read a marble, those read black)."""
        reading = black = 0
        for sq in SQUARES:
            colour = self.truth(sq)
            if self.hall is not None:
                seen = self.hall.sample(sq, colour)
                present, is_black = seen is not Seen.EMPTY, seen is Seen.BLACK
            else:
                present, is_black = colour is not None, False
            reading |= present << sq
            black |= is_black << sq
        return reading, black

    def position_string(self) -> str:
        """What sits on the board, SPEC.md's position string (rings at rest)."""
        return board_string(self.colour_at)

    # --- the sensors' wiring ------------------------------------------------------
    def subscribe(self, listener: SquareListener) -> None:
        self._listeners.append(listener)

    def unsubscribe_all(self) -> None:
        self._listeners.clear()

    def _changed(self) -> None:
        reading, black = self._sense()
        # A square read black then white (or back) with no empty reading between: a lift and
        # a put at the same moment, as ColourSensors report it.
        flipped = (black ^ self._black) & reading & self._reading
        diff = (reading ^ self._reading) | flipped
        self._reading, self._black = reading, black
        if not diff:
            return
        now = self.clock.now() if self.clock else 0.0
        for sq in SQUARES:
            if diff >> sq & 1:
                for listener in list(self._listeners):
                    if flipped >> sq & 1:
                        listener(sq, False, now)
                    listener(sq, bool(reading >> sq & 1), now)

    # --- what hands do -----------------------------------------------------------
    def _pocket_on(self, square: int) -> tuple[int, int]:
        if not self.aligned:
            raise SimError("the rings are not at rest")
        return self._pocket_near(square)[0]

    def lift(self, square: int) -> Colour:
        pocket = self._pocket_on(square)
        if pocket not in self.pockets:
            raise SimError("there is no marble to lift")
        colour = self.pockets.pop(pocket)
        self.hand.append(colour)
        self._changed()
        return colour

    def put(self, square: int, colour: Colour) -> None:
        pocket = self._pocket_on(square)
        if pocket in self.pockets:
            raise SimError("the square already holds a marble")
        self.pockets[pocket] = colour
        self._changed()

    def put_from_hand(self, square: int) -> Colour | None:
        """Put the marble last lifted, if the hand holds one; returns its colour."""
        if not self.hand:
            return None
        colour = self.hand[-1]
        self.put(square, colour)
        self.hand.pop()
        return colour

    def empty_hand(self) -> None:
        self.hand.clear()

    def clear(self) -> None:
        """Take every marble off the board."""
        self.pockets.clear()
        self.hand.clear()
        self._changed()

    def chatter(self, square: int, flips: int = 4, period: float = 0.002) -> None:
        """The sensor on ``square`` flips ``flips`` times ``period`` apart, then settles."""
        if self.clock is None:
            raise SimError("chatter needs a clock")
        settled = bool(self.occupancy() >> square & 1)
        for k in range(1, flips + 1):
            value = settled if k % 2 == 0 else not settled
            self.clock.call_later(k * period, partial(self._override, square, value))
        self.clock.call_later((flips + 1) * period, partial(self._override, square, None))

    def _override(self, square: int, value: bool | None) -> None:
        if value is None:
            self._overrides.pop(square, None)
        else:
            self._overrides[square] = value
        self._changed()

    # --- the motor -------------------------------------------------------------
    def step(self, forward: bool = True) -> None:
        """One motor step: forward (counter-clockwise) or back (clockwise); a pending slip
        eats it."""
        if self.slip > 0:
            self.slip -= 1
            return
        if forward or self.dir_stuck:
            self.steps += 1
            ahead = self.offset  # the offset on the step's counter-clockwise side
        else:
            ahead = self.offset
            self.steps -= 1
        if ahead in (0, self.sense_window + 1, self.steps_per_place - self.sense_window):
            self._changed()  # only these steps cross a sensor's window edge, either way


# --- the parts, as the controller sees them ------------------------------------------
class SimSensors:
    def __init__(self, board: SimBoard) -> None:
        self.board = board

    def read(self) -> int:
        return self.board.occupancy()

    def subscribe(self, listener: SquareListener) -> None:
        self.board.subscribe(listener)

    def close(self) -> None:
        self.board.unsubscribe_all()


class SimColourSensors(SimSensors):
    """The simulated board's linear hall sensors: presence and colour (``ColourSensors``)."""

    def colours(self) -> tuple[int, int]:
        return self.board.colours()


class SimButton:
    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self._listeners: list[ButtonListener] = []
        self._pressed = False

    def subscribe(self, listener: ButtonListener) -> None:
        self._listeners.append(listener)

    @property
    def is_pressed(self) -> bool:
        return self._pressed

    def set(self, pressed: bool) -> None:
        """The harness's finger: press (True) or release (False) the button."""
        if pressed == self._pressed:
            return
        self._pressed = pressed
        for listener in list(self._listeners):
            listener(pressed, self.clock.now())

    def close(self) -> None:
        self._listeners.clear()


class OnVirtualClock:
    """A ring drive whose every step is a timer on the virtual clock: nothing it does runs
    off the clock's thread, so it is idle for ``SimulatedDrive.wait_idle`` at once."""

    def wait_idle(self, timeout: float) -> bool:
        return True


class SimDrive(OnVirtualClock, SteppedDrive):
    """The stepper driver of the simulated board: its pulses step the simulated rings,
    the way the move under way turns them (the driver's DIR, without a wire)."""

    def __init__(
        self,
        board: SimBoard,
        clock: Clock,
        max_speed: float = 2000.0,
        acceleration: float = 8000.0,
        home_speed: float = 400.0,
    ) -> None:
        super().__init__(clock, board.steps_per_place, max_speed, acceleration, home_speed)
        self.board = board

    def _pulse(self) -> None:
        self.board.step(self.forward)

    def index_active(self) -> bool:
        return self.board.index_active()


class SimLights:
    """Records what the strip shows."""

    def __init__(self) -> None:
        self.frame: list[RGB | None] = [None] * 16
        self.status: RGB | None = None
        self.frames_shown = 0

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        self.frame = list(frame)
        self.status = status
        self.frames_shown += 1

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        return list(self.frame), self.status

    def close(self) -> None:
        self.show([None] * 16, None)


def seen(lights: Lights) -> tuple[list[RGB | None], RGB | None]:
    """What a person sees on the board's lights: the 16 squares and the status pixel."""
    squares, status = lights.shown()
    return list(squares), status
