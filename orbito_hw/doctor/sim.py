"""``orbito-hw doctor --mock``: the doctor on the simulated board, with a simulated person.

The person does what each instruction says, a moment later, to the physical ``SimBoard``
(puts a marble on the square asked, lifts it, presses the button), watches the LEDs that
really lit and answers the doctor's questions from what it saw. Faults can be built into
the board (crossed sensor wires, a stepper that loses steps, a dead LED), so tests can
check that the doctor names each one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Final

from orbito_hw.doctor.calibrate import Gauges, calibrator
from orbito_hw.doctor.checks import (
    CHECKS,
    PLACES_PER_TURN,
    CheckResult,
    Doctor,
    Request,
    Runner,
    Wiring,
    answers,
)
from orbito_hw.errors import ECHO_LIMIT, echo
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import RGB, Backend, Board, Clock, Frame, Lights
from orbito_hw.lang import _
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES, Square, parse_square
from orbito_hw.sim.board import SimBoard, seen
from orbito_hw.sim.script import MAX_SLIP, parse_steps
from orbito_hw.sim.world import SimWorld

if TYPE_CHECKING:
    from orbito_hw.hw.gpio import GpioPins

HUMAN_GAP = 0.3
"""Seconds a person takes to do what they are told."""
PRESS_TIME = 0.1
LOOK_AFTER = 0.05
"""Seconds after an LED is lit that the person looks at the board."""
VIRTUAL_LIMIT = 24 * 3600.0
"""A doctor run that needs more virtual time than this is stuck."""

BACKENDS: Final[tuple[Backend, ...]] = ("sim", "gpio", "tmag")
"""The backends the doctor examines on the simulated board. Not serial: the doctor runs
the virtual clock flat out, and the simulated Pico's link runs in real time."""


@dataclass(frozen=True)
class Faults:
    """Faults built into the simulated board."""

    swapped: tuple[int, int] | None = None  # two squares' sensor wires crossed
    slip: int = 0  # motor steps lost at the start of the first ring move
    dead_led: int | None = None  # a square whose pixel stays dark
    dirty_cup: int | None = None  # a square whose LED's light reaches its detector past the
    #                              marble (a dirty cup, a broken wall): white and black too near

    @classmethod
    def parse(cls, specs: list[str]) -> Faults:
        """``swap:c3,c4``, ``slip:STEPS``, ``dead-led:SQUARE``, ``dirty-cup:SQUARE``;
        ValueError naming a bad one."""
        swapped, slip, dead, dirty = None, 0, None, None
        for spec in specs:
            kind, _sep, arg = spec.partition(":")
            try:
                if kind == "swap":
                    names = [n.strip() for n in arg.split(",")]
                    if len(names) != 2 or names[0] == names[1]:
                        raise ValueError(_("expected two different squares, as in swap:c3,c4"))
                    a, b = (parse_square(n) for n in names)
                    swapped = (a, b)
                elif kind == "slip":
                    try:
                        slip = parse_steps(arg.strip())
                    except ValueError:
                        slip = 0
                    if slip == 0:
                        text = _("expected a positive number of steps, at most {most}")
                        raise ValueError(text.format(most=MAX_SLIP))
                elif kind == "dead-led":
                    dead = parse_square(arg.strip())
                elif kind == "dirty-cup":
                    dirty = parse_square(arg.strip())
                else:
                    text = _("expected swap:SQ,SQ, slip:STEPS, dead-led:SQ or dirty-cup:SQ")
                    raise ValueError(text)
            except ValueError as exc:
                named = spec if len(spec) <= ECHO_LIMIT else echo(spec)
                raise ValueError(f"--fault {named}: {exc}") from None
        return cls(swapped, slip, dead, dirty)


DIRTY_CUP_MV = 1.5
"""The LED's light a dirty cup sends to its detector past the marble (mV): about a white
marble's, so white and black read under 3x apart."""


class DeadPixel:
    """Lights with one square's pixel dead: it never lights, whatever it is sent."""

    def __init__(self, inner: Lights, square: Square) -> None:
        self.inner = inner
        self.square = square

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        lit = list(frame)
        lit[self.square] = None
        self.inner.show(lit, status)

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        return self.inner.shown()

    def close(self) -> None:
        self.inner.close()


class SimPerson:
    """The person at the simulated board: does what it is told, answers what it saw."""

    def __init__(
        self,
        physics: SimBoard,
        clock: Clock,
        finger: Callable[[bool], None],
        eyes: Callable[[], tuple[list[RGB | None], RGB | None]],
        out: Callable[[str], None],
    ) -> None:
        self.physics = physics
        self.clock = clock
        self.finger = finger
        self.eyes = eyes
        self.out = out
        self.missed: list[str] = []  # LEDs that did not light when they should have
        self.steps_at_start = 0

    def tell(self, request: Request) -> None:
        self.out(request.text)
        sq = request.square
        later = self.clock.call_later
        if request.action == "put" and sq is not None:
            colour = Colour(request.colour or "black")
            later(HUMAN_GAP, lambda: self.physics.put(sq, colour))
        elif request.action == "lift" and sq is not None:
            later(HUMAN_GAP, lambda: self._lift(sq))
        elif request.action == "clear":
            later(HUMAN_GAP, self.physics.clear)
        elif request.action == "press":
            later(HUMAN_GAP, lambda: self.finger(True))
            later(HUMAN_GAP + PRESS_TIME, lambda: self.finger(False))
        elif request.action == "watch":
            later(LOOK_AFTER, lambda: self._look(sq))
        elif request.action == "watch-rings":
            self.steps_at_start = self.physics.steps

    def _lift(self, square: int) -> None:
        self.physics.lift(square)

    def _look(self, square: int | None) -> None:
        squares, status = self.eyes()
        lit = [i for i, colour in enumerate(squares) if colour is not None]
        if square is None:
            right = not lit and status is not None
        else:
            right = lit == [square] and status is None
        if not right:
            self.missed.append("status" if square is None else SQUARE_NAMES[square])

    def ask(self, request: Request, answer: Callable[[str | None], None]) -> None:
        self.out(request.text)
        yes, no = answers()  # in the reader's letters, as a person there would answer
        if request.action == "confirm-leds":
            reply = no if self.missed else yes
        elif request.action == "name-leds":
            reply = " ".join(self.missed)
        elif request.action == "confirm-rings":
            turned = self.physics.steps - self.steps_at_start
            whole = PLACES_PER_TURN * self.physics.steps_per_place
            reply = yes if self.physics.aligned and turned == whole else no
        else:
            reply = ""
        self.out(f"> {reply}")
        self.clock.call_later(HUMAN_GAP, lambda: answer(reply))


class SimGauges:
    """The simulated board's hall sensors read as an analog backend reads them: every
    square's reading in gauss, a scan period apart."""

    scan_period = 0.1

    def __init__(self, physics: SimBoard) -> None:
        self.physics = physics

    def gauss(self) -> tuple[float, ...]:
        return tuple(self.physics.hall_reading(square) for square in SQUARES)


@dataclass
class MockDoctor:
    """The simulated board, its controller-side parts and the person, ready to examine.
    ``gauges``: the squares' raw readings on a colour board (None: presence only)."""

    clock: VirtualClock
    physics: SimBoard
    board: Board
    person: SimPerson
    wiring: Wiring
    gauges: Gauges | None = None


def mock_doctor(
    backend: Backend = "sim",
    faults: Faults | None = None,
    out: Callable[[str], None] = print,
    pins: GpioPins | None = None,
) -> MockDoctor:
    """``pins`` (gpio backend only) wire the mock pins; the simulated wiring by default."""
    if backend not in BACKENDS:
        text = _("--backend {backend} is not one of: {backends}")
        raise ValueError(text.format(backend=repr(backend), backends=", ".join(BACKENDS)))
    faults = faults or Faults()
    world = SimWorld(backend, pins, crossed=faults.swapped)
    world.physics.slip = faults.slip
    if faults.dirty_cup is not None and world.light is not None:
        world.light.leak[faults.dirty_cup] = DIRTY_CUP_MV
    parts = world.boot()
    wiring = Wiring.of(
        parts.pins,
        pixel_of=parts.pixel_of,
        status_pixel=parts.status_pixel,
        steps_per_place=world.physics.steps_per_place,
        max_speed=parts.max_speed,
    )
    if faults.dead_led is not None:
        parts.lights = DeadPixel(parts.lights, faults.dead_led)
    person = SimPerson(world.physics, world.clock, parts.finger, lambda: seen(parts.lights), out)
    gauges: Gauges | None = None
    if backend == "tmag":
        # its fields (calibrate_tmag.py), its colours by light under them (calibrate_light.py)
        gauges = parts.sensors  # type: ignore[assignment]
    elif world.physics.hall is not None:
        sensors = parts.sensors
        gauges = sensors if hasattr(sensors, "gauss") else SimGauges(world.physics)  # type: ignore[assignment]
    return MockDoctor(world.clock, world.physics, parts.board(), person, wiring, gauges)


def run_mock(
    checks: tuple[str, ...] = CHECKS,
    backend: Backend = "sim",
    faults: Faults | None = None,
    out: Callable[[str], None] = print,
    timeout: float = 30.0,
    pins: GpioPins | None = None,
    state_dir: Path | None = None,
) -> list[CheckResult]:
    """Every check asked for, on the simulated board, as fast as the CPU allows; a
    calibration is saved in ``state_dir`` (None: measured, not saved)."""
    mock = mock_doctor(backend, faults, out, pins)
    with mock.board:
        calibrate = calibrator(mock.gauges, state_dir)
        doctor = Doctor(mock.board, mock.person, mock.wiring, out, timeout, calibrate)
        runner = Runner(mock.clock, doctor.run(checks))
        runner.start()
        while not runner.done:
            due = mock.clock.next_due()
            if due is None or due > VIRTUAL_LIMIT:
                raise RuntimeError("the doctor is waiting for something that never comes")
            mock.clock.run_until(due)
    if runner.error is not None:
        raise runner.error
    assert runner.result is not None
    return runner.result
