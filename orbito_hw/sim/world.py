"""The simulated world, wired in one place: the physical board on a virtual clock, and a
controller's worth of parts on it from each backend.

``run --mock`` (the harness's ``MockRun``) and ``doctor --mock`` both take their parts from
here, so each backend meets the simulated board in one place: ``sim`` (the simulated
board's own parts), ``gpio`` (the gpio and neopixel drivers on gpiozero's mock pins) and
``serial`` (the serial link to the Pico's firmware logic, behind a pty). The physical board
outlives its controllers: a power cut kills the parts, and the next boot wires fresh ones
to the same marbles.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, assert_never

from orbito_hw.hw.clock import ScopedClock, VirtualClock
from orbito_hw.hw.health import BoardHealth
from orbito_hw.hw.interfaces import (
    Backend,
    Board,
    Button,
    ColourSensors,
    Lights,
    SimulatedDrive,
    SquareListener,
    SquareSensors,
    reread_colours,
)
from orbito_hw.rules.squares import Mask, Square
from orbito_hw.sim.board import (
    SimBoard,
    SimButton,
    SimColourSensors,
    SimDrive,
    SimLights,
    SimSensors,
)
from orbito_hw.sim.hall_sensors import SimHall

if TYPE_CHECKING:
    from orbito_hw.hw.gpio import GpioPins
    from orbito_hw.sim.light_board import SimLight
    from orbito_hw.sim.tmag_board import TmagField, TmagSimWiring

Finger = Callable[[bool], None]
"""Presses (True) or releases (False) the board's button, as a person's finger would."""


@dataclass
class SimParts:
    """One controller's parts on the simulated board, and a person's finger on its button.

    ``pins`` are the mock pins' numbers (the gpio backend only), ``pixel_of`` the strip
    index of each square's pixel and ``status_pixel`` the status pixel's (a strip only),
    ``max_speed`` the drive's top speed in steps per second: what the doctor names.
    """

    clock: ScopedClock
    sensors: SquareSensors
    button: Button
    drive: SimulatedDrive
    lights: Lights
    finger: Finger
    max_speed: float
    pins: GpioPins | None = None
    pixel_of: tuple[int, ...] = ()
    status_pixel: int | None = None
    powered_by_pi: tuple[Callable[[], None], ...] = ()
    """Switches off what loses its power with the Pi's (the Pico on its USB port)."""
    settle: float = 0.0
    """The least time the referee must wait after the rings stop before it trusts the
    squares: a colour board's whole scan on the gpio backend, nothing where the squares are
    reported as they change."""
    presence: SquareSensors | None = None
    """The tmag backend's presence sensors (``hw/tmag.TmagSquares``), under ``sensors`` when
    these tell colour by light."""
    health: BoardHealth | None = None
    """The board's health where its parts report their own faults (the tmag sensors: a
    square whose sensor does not answer); None: the drive's words are its health."""

    def board(self) -> Board:
        return Board(
            self.clock, self.sensors, self.button, self.drive, self.lights, health=self.health
        )


class SimWorld:
    """The physical board on a virtual clock, and the backend its controllers' parts come
    from. ``pins`` wire the gpio backend (a plausible default wiring otherwise);
    ``crossed`` is a wiring fault: two squares' sensor wires swapped. ``colour``: the squares
    have linear hall sensors that tell black from white (sim/hall_sensors.py, seeded by
    ``seed``; ``calibrated`` False: the design's default levels); without, presence only.
    On the reference board (``tmag``) colour is told by light (sim/light_board.py), the
    board in ``room``'s light (dark, lamps, bright, window, sun)."""

    def __init__(
        self,
        backend: Backend = "sim",
        pins: GpioPins | None = None,
        crossed: tuple[Square, Square] | None = None,
        colour: bool = True,
        seed: int = 0,
        calibrated: bool = True,
        room: str = "dark",
    ) -> None:
        self.backend = backend
        self.pins = pins
        self.crossed = crossed
        self.colour = colour
        self.clock = VirtualClock()
        # The reference board's sensors read a marble's presence, not its colour.
        hall = SimHall(seed, calibrated=calibrated) if colour and backend != "tmag" else None
        self.physics = SimBoard(clock=self.clock, hall=hall)
        self.fields: TmagField | None = None
        if backend == "tmag":
            from orbito_hw.sim.tmag_board import TmagField

            self.fields = TmagField(self.physics, seed)
        self.light: SimLight | None = None
        if backend == "tmag" and colour:
            from orbito_hw.sim.light_board import SimLight

            self.light = SimLight(self.physics, SimLights(), room, seed)
        self.tmag: TmagSimWiring | None = None  # the last boot's bus and chips (tests)

    def boot(self) -> SimParts:
        """A fresh controller's parts on the same physical board (after a power cut too)."""
        scope = ScopedClock(self.clock)
        if self.backend == "sim":
            parts = self._sim_parts(scope)
        elif self.backend == "gpio":
            parts = self._gpio_parts(scope)
        elif self.backend == "serial":
            parts = self._serial_parts(scope)
        elif self.backend == "tmag":
            parts = self._tmag_parts(scope)
        else:
            assert_never(self.backend)
        return parts

    def power_cut(self, parts: SimParts) -> None:
        """The controller loses its power: its timers stop, what the Pi powers goes down
        with it, and the board's sensor wires carry its listeners no more. The marbles stay
        where they are (one held in a hand stays in the hand)."""
        parts.clock.kill()
        for switch_off in parts.powered_by_pi:
            switch_off()
        self.physics.unsubscribe_all()

    # --- the backends ---------------------------------------------------------------------
    def _sim_parts(self, scope: ScopedClock) -> SimParts:
        button, drive = SimButton(scope), SimDrive(self.physics, scope)
        return SimParts(
            scope, self._sensors(), button, drive, SimLights(), button.set, drive.max_speed
        )

    def _gpio_parts(self, scope: ScopedClock) -> SimParts:
        # gpiozero and adafruit only when chosen
        from orbito_hw.sim.gpio_pins import DEFAULT_PINS, GpioSimWiring

        wires = GpioSimWiring(self.physics, self.pins or DEFAULT_PINS)  # fresh pins each boot
        if self.crossed is not None:
            wires.cross_wires(*self.crossed)
        sensors, button, drive, strip = wires.parts(scope)
        return SimParts(
            scope,
            sensors,
            button,
            drive,
            strip,
            wires.finger,
            drive.max_speed,
            pins=wires.pins,
            pixel_of=tuple(strip.pixel_of),
            status_pixel=strip.status_pixel,
            # The dead controller's gpiozero devices go with its process: left open, each
            # boot would keep its devices, their threads and pins alive for good.
            powered_by_pi=(sensors.close, button.close, drive.close, wires.factory.close),
            settle=wires.front.read_again_s if wires.colour else 0.0,
        )

    def _serial_parts(self, scope: ScopedClock) -> SimParts:
        from orbito_hw.sim.pico import MOCK_SETTINGS, mock_serial_drive  # pyserial and a pty

        button = SimButton(scope)
        drive = mock_serial_drive(scope, SimRings(self.physics), self.physics.steps_per_place)
        return SimParts(
            scope,
            self._sensors(),
            button,
            drive,
            SimLights(),
            button.set,
            float(MOCK_SETTINGS["speed"]),
            powered_by_pi=(drive.close,),  # the Pico is powered by the Pi's USB port
        )

    def _tmag_parts(self, scope: ScopedClock) -> SimParts:
        from orbito_hw.sim.tmag_board import TmagSimWiring  # gpiozero, adafruit's drivers

        assert self.fields is not None
        self.physics.clock = scope.base
        health = BoardHealth(scope)
        wiring = self.tmag = TmagSimWiring(self.physics, self.fields, scope, light=self.light)
        presence = wiring.sensors(on_fault=lambda fault: health.failing("sensors", fault))
        lights = SimLights()
        sensors: SquareSensors = presence
        if self.light is not None:
            sensors = wiring.colours(
                presence, lights, on_fault=lambda fault: health.failing("colours", fault)
            )
        button, drive = SimButton(scope), SimDrive(self.physics, scope)
        drive.watch(lambda fault: health.failing("drive", fault))
        return SimParts(
            scope, sensors, button, drive, lights, button.set, drive.max_speed,
            powered_by_pi=(sensors.close, wiring.close), health=health, presence=presence,
        )  # fmt: skip

    def _sensors(self) -> SquareSensors:
        if not self.colour:
            sensors = SimSensors(self.physics)
            return sensors if self.crossed is None else CrossedSensors(sensors, *self.crossed)
        colours = SimColourSensors(self.physics)
        return colours if self.crossed is None else CrossedColourSensors(colours, *self.crossed)


class SimRings:
    """The simulated board as the simulated Pico's motor port. The Pico's thread calls in
    only while the harness waits on the link (``wait_idle``), never alongside it."""

    def __init__(self, board: SimBoard) -> None:
        self.board = board

    def step(self, forward: bool) -> None:
        self.board.step(forward)  # the Pico's DIR: forward counter-clockwise, else back

    def index_active(self) -> bool:
        return self.board.index_active()

    def read_squares(self) -> Mask:
        return self.board.occupancy()


class CrossedSensors:
    """Square sensors with two squares' wires crossed: each reads as the other."""

    def __init__(self, inner: SquareSensors, a: Square, b: Square) -> None:
        self.inner = inner
        self.swap = {a: b, b: a}

    def read(self) -> Mask:
        return self._swapped(self.inner.read())

    def _swapped(self, mask: Mask) -> Mask:
        out = mask
        for sq, other in self.swap.items():
            out = out & ~(1 << other) | (mask >> sq & 1) << other
        return out

    def subscribe(self, listener: SquareListener) -> None:
        self.inner.subscribe(
            lambda sq, present, when: listener(self.swap.get(sq, sq), present, when)
        )

    def close(self) -> None:
        self.inner.close()


class CrossedColourSensors(CrossedSensors):
    """Hall sensors with two squares' wires crossed: presence and colour read swapped."""

    def __init__(self, inner: ColourSensors, a: Square, b: Square) -> None:
        super().__init__(inner, a, b)
        self.colour_inner = inner

    def colours(self) -> tuple[Mask, Mask]:
        black, white = self.colour_inner.colours()
        return self._swapped(black), self._swapped(white)

    def reread(self) -> None:
        reread_colours(self.colour_inner)
