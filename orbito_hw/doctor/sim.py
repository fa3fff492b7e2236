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
from typing import Any

from orbito_hw.doctor.checks import (
    CHECKS,
    PLACES_PER_TURN,
    CheckResult,
    Doctor,
    Request,
    Runner,
    Wiring,
)
from orbito_hw.hw.clock import ScopedClock, VirtualClock
from orbito_hw.hw.interfaces import (
    RGB,
    Board,
    Button,
    Clock,
    Frame,
    Lights,
    SquareListener,
    SquareSensors,
)
from orbito_hw.hw.planner import SteppedDrive
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARE_NAMES, parse_square
from orbito_hw.sim.board import SimBoard, seen, sim_parts

HUMAN_GAP = 0.3
"""Seconds a person takes to do what they are told."""
PRESS_TIME = 0.1
LOOK_AFTER = 0.05
"""Seconds after an LED is lit that the person looks at the board."""
VIRTUAL_LIMIT = 24 * 3600.0
"""A doctor run that needs more virtual time than this is stuck."""

BACKENDS = ("sim", "gpio")


@dataclass(frozen=True)
class Faults:
    """Faults built into the simulated board."""

    swapped: tuple[int, int] | None = None  # two squares' sensor wires crossed
    slip: int = 0  # motor steps lost at the start of the first ring move
    dead_led: int | None = None  # a square whose pixel stays dark

    @classmethod
    def parse(cls, specs: list[str]) -> Faults:
        """``swap:c3,c4``, ``slip:STEPS``, ``dead-led:SQUARE``; ValueError naming a bad one."""
        swapped, slip, dead = None, 0, None
        for spec in specs:
            kind, _, arg = spec.partition(":")
            try:
                if kind == "swap":
                    names = [n.strip() for n in arg.split(",")]
                    if len(names) != 2 or names[0] == names[1]:
                        raise ValueError("expected two different squares, as in swap:c3,c4")
                    a, b = (parse_square(n) for n in names)
                    swapped = (a, b)
                elif kind == "slip":
                    slip = int(arg) if arg.strip().isdigit() else 0
                    if slip <= 0:
                        raise ValueError("expected a positive number of steps")
                elif kind == "dead-led":
                    dead = parse_square(arg.strip())
                else:
                    raise ValueError("expected swap:SQ,SQ, slip:STEPS or dead-led:SQ")
            except ValueError as exc:
                raise ValueError(f"--fault {spec}: {exc}") from None
        return cls(swapped, slip, dead)


class CrossedSensors:
    """Square sensors with two squares' wires crossed: each reads as the other."""

    def __init__(self, inner: SquareSensors, a: int, b: int) -> None:
        self.inner = inner
        self.swap = {a: b, b: a}

    def read(self) -> int:
        mask = self.inner.read()
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


class DeadPixel:
    """Lights with one square's pixel dead: it never lights, whatever it is sent."""

    def __init__(self, inner: Any, square: int) -> None:
        self.inner = inner
        self.square = square

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        lit = list(frame)
        lit[self.square] = None
        self.inner.show(lit, status)

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
            later(HUMAN_GAP, lambda: self.physics.put(sq, Colour.BLACK))
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
        if request.action == "confirm-leds":
            reply = "n" if self.missed else "y"
        elif request.action == "name-leds":
            reply = " ".join(self.missed)
        elif request.action == "confirm-rings":
            turned = self.physics.steps - self.steps_at_start
            whole = PLACES_PER_TURN * self.physics.steps_per_place
            reply = "y" if self.physics.aligned and turned == whole else "n"
        else:
            reply = ""
        self.out(f"> {reply}")
        self.clock.call_later(HUMAN_GAP, lambda: answer(reply))


@dataclass
class MockDoctor:
    """The simulated board, its controller-side parts and the person, ready to examine."""

    clock: VirtualClock
    physics: SimBoard
    board: Board
    person: SimPerson
    wiring: Wiring


def mock_doctor(
    backend: str = "sim",
    faults: Faults | None = None,
    out: Callable[[str], None] = print,
    pins: Any = None,
) -> MockDoctor:
    """``pins`` (gpio backend only) is a ``GpioPins`` wiring; the simulated one by default."""
    faults = faults or Faults()
    clock = VirtualClock()
    scope = ScopedClock(clock)
    physics = SimBoard(clock=clock)
    physics.slip = faults.slip
    button: Button
    drive: SteppedDrive
    lights: Lights
    inner: SquareSensors
    if backend == "sim":
        sensors, sim_button, drive, lights = sim_parts(physics, scope)
        button, finger = sim_button, sim_button.set
        wiring = Wiring(steps_per_place=physics.steps_per_place, max_speed=drive.max_speed)
        inner = sensors if not faults.swapped else CrossedSensors(sensors, *faults.swapped)
    elif backend == "gpio":
        from orbito_hw.sim.gpio_pins import DEFAULT_PINS, GpioSimWiring  # gpiozero only when chosen

        wires = GpioSimWiring(physics, pins or DEFAULT_PINS)
        if faults.swapped:
            wires.cross_wires(*faults.swapped)
        inner, button, drive, strip = wires.parts(scope)
        lights, finger = strip, wires.finger
        p = wires.pins
        wiring = Wiring(
            square_pins=tuple(p.squares[sq] for sq in range(16)),
            button_pin=p.button,
            step_pin=p.step,
            dir_pin=p.direction,
            enable_pin=p.enable,
            index_pin=p.index,
            pixel_of=tuple(strip.pixel_of),
            status_pixel=strip.status_pixel,
            steps_per_place=physics.steps_per_place,
            max_speed=drive.max_speed,
        )
    else:
        raise ValueError(f"--backend {backend!r} is not one of: {', '.join(BACKENDS)}")
    shown: Lights = lights if faults.dead_led is None else DeadPixel(lights, faults.dead_led)
    person = SimPerson(physics, clock, finger, lambda: seen(lights), out)
    board = Board(scope, inner, button, drive, shown)
    return MockDoctor(clock, physics, board, person, wiring)


def run_mock(
    checks: tuple[str, ...] = CHECKS,
    backend: str = "sim",
    faults: Faults | None = None,
    out: Callable[[str], None] = print,
    timeout: float = 30.0,
    pins: Any = None,
) -> list[CheckResult]:
    """Every check asked for, on the simulated board, as fast as the CPU allows."""
    mock = mock_doctor(backend, faults, out, pins)
    doctor = Doctor(mock.board, mock.person, mock.wiring, out, timeout)
    runner = Runner(mock.clock, doctor.run(checks))
    runner.start()
    try:
        while not runner.done:
            due = mock.clock.next_due()
            if due is None or due > VIRTUAL_LIMIT:
                raise RuntimeError("the doctor is waiting for something that never comes")
            mock.clock.run_until(due)
    finally:
        mock.board.close()
    if runner.error is not None:
        raise runner.error
    assert runner.result is not None
    return runner.result
