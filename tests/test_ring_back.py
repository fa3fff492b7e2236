"""The rings turn back (clockwise) by whole places, for take-backs: ``drive.move(-N, done)``
on every backend, the marbles riding their pockets back, lost steps seen against the index
either way; DIR's level on the Pi's pins; ``MOVE -N`` on the Pico's firmware."""

from __future__ import annotations

from typing import Any

import pytest
from gpiozero.pins.mock import MockFactory
from hypothesis import given, settings
from hypothesis import strategies as st
from orbito_fw.controller import RingController
from orbito_fw.device import Device
from orbito_fw.protocol import PROTOCOL_VERSION, Deframer, encode, fields

from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.gpio import GpioDrive, GpioPins
from orbito_hw.hw.interfaces import BACKENDS, MoveReport
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import BB_ALL, Mask, mask_of, parse_square, press, unpress
from orbito_hw.sim.board import SimBoard, SimDrive
from orbito_hw.sim.gpio_pins import DEFAULT_PINS
from orbito_hw.sim.world import SimParts, SimWorld

from .common.standin_rings import StandInRings

# Marbles on both rings, both colours: a1 b1 d1 on the outer ring, b2 c3 on the inner one.
MARBLES = {"a1": Colour.BLACK, "b1": Colour.WHITE, "d1": Colour.BLACK, "b2": Colour.WHITE}
MARBLES |= {"c3": Colour.BLACK}
MOVE_LIMIT = 30.0  # virtual seconds a move of a few places may take, far more than it does
SCAN = 0.1  # virtual seconds for a colour board's analog sensors to read every square again


def turn(world: SimWorld, parts: SimParts, places: int) -> MoveReport:
    """Turn the rings on ``parts``'s drive and wait for its report, letting virtual time
    run (the serial drive's simulated Pico works in real time: wait for it first)."""
    reports: list[MoveReport] = []
    parts.drive.move(places, reports.append)
    deadline = world.clock.now() + MOVE_LIMIT
    while not reports:
        assert parts.drive.wait_idle(10.0), "the drive never finished"
        world.clock.advance(0.01)
        assert world.clock.now() < deadline, f"no report for a move of {places}"
    world.clock.advance(SCAN)  # as the referee waits before it reads the squares
    return reports[0]


def home(world: SimWorld, parts: SimParts) -> MoveReport:
    reports: list[MoveReport] = []
    parts.drive.home(reports.append)
    while not reports:
        assert parts.drive.wait_idle(10.0)
        world.clock.advance(0.01)
    return reports[0]


@pytest.fixture(params=BACKENDS)
def board(request: pytest.FixtureRequest) -> Any:
    world = SimWorld(request.param)
    parts = world.boot()
    for name, colour in MARBLES.items():
        world.physics.put(parse_square(name), colour)
    world.clock.advance(SCAN)
    yield world, parts
    world.power_cut(parts)


# --- every backend ------------------------------------------------------------------------
def test_a_move_back_brings_every_marble_back_to_its_square(
    board: tuple[SimWorld, SimParts],
) -> None:
    world, parts = board
    spp = world.physics.steps_per_place
    start = mask_of(parse_square(n) for n in MARBLES)
    position = world.physics.position_string()
    assert parts.sensors.read() == start
    ahead = turn(world, parts, 1)
    assert (ahead.places, ahead.steps, ahead.at_index, ahead.fault) == (1, spp, True, "")
    assert parts.sensors.read() == press(start)
    back = turn(world, parts, -1)
    assert (back.places, back.steps, back.at_index, back.fault) == (-1, spp, True, "")
    assert parts.sensors.read() == start  # every marble back on its square...
    assert world.physics.position_string() == position  # ...each colour where it was
    further = turn(world, parts, -2)  # and on back, clockwise, past where they started
    assert (further.places, further.steps, further.at_index) == (-2, 2 * spp, True)
    assert parts.sensors.read() == unpress(unpress(start))
    assert world.physics.places == -2 and world.physics.aligned


def test_lost_steps_on_a_move_back_leave_the_rings_off_the_index(
    board: tuple[SimWorld, SimParts],
) -> None:
    world, parts = board
    spp = world.physics.steps_per_place
    world.physics.slip = 30  # the motor stalls for the first 30 steps
    report = turn(world, parts, -1)
    assert (report.places, report.steps, report.at_index) == (-1, spp, False)
    assert world.physics.steps == -(spp - 30)  # back, but 30 steps short of the place
    # Homing goes on forward only: from 30 steps past the start's place, to that place.
    homed = home(world, parts)
    assert homed.at_index and not homed.fault and world.physics.steps == 0


def test_a_move_of_no_places_turns_nothing(board: tuple[SimWorld, SimParts]) -> None:
    world, parts = board
    report = turn(world, parts, 0)
    assert (report.steps, report.at_index) == (0, True) and world.physics.steps == 0


# --- the physics, any marbles and any moves -----------------------------------------------
def expected_after(mask: Mask, moves: list[int]) -> Mask:
    for places in moves:
        for _ in range(abs(places)):
            mask = press(mask) if places > 0 else unpress(mask)
    return mask


class EveryStepWatched(SimDrive):
    """A simulated drive that checks, after every step, that the sensors' events have told
    every change as it happened: what they add up to is what the squares read."""

    def __init__(self, board: SimBoard, clock: VirtualClock) -> None:
        super().__init__(board, clock)
        self.heard = board.occupancy()
        board.subscribe(self._heard)

    def _heard(self, square: int, present: bool, when: float) -> None:
        self.heard = self.heard | 1 << square if present else self.heard & ~(1 << square)

    def _pulse(self) -> None:
        super()._pulse()
        assert self.heard == self.board.occupancy(), f"at step {self.board.steps}"


@settings(max_examples=25, deadline=None)
@given(st.integers(0, BB_ALL), st.lists(st.integers(-3, 3), max_size=4))
def test_the_sensors_follow_any_moves_either_way(mask: Mask, moves: list[int]) -> None:
    clock = VirtualClock()
    physics = SimBoard(steps_per_place=40, sense_window=4, clock=clock)
    for square in range(16):
        if mask >> square & 1:
            physics.put(square, Colour.WHITE)
    drive = EveryStepWatched(physics, clock)
    for places in moves:
        reports: list[MoveReport] = []
        drive.move(places, reports.append)
        clock.advance(10.0)
        assert reports and reports[0].at_index
    assert physics.occupancy() == drive.heard == expected_after(mask, moves)
    assert physics.places == sum(moves)


# --- the gpio drive's DIR pin -------------------------------------------------------------
def dir_levels_at_steps(factory: MockFactory, pins: GpioPins, places: int) -> set[bool]:
    """DIR's level at each rising STEP edge of a move, read from the DIR pin's history."""
    clock = VirtualClock()
    step, direction = factory.pin(pins.step), factory.pin(pins.direction)
    drive = GpioDrive(pins, clock, 50, 4000.0, 20000.0, factory=factory)
    drive.move(1, lambda report: None)  # one move forward first: DIR must change, not start
    clock.advance(5.0)
    direction.clear_states()
    history_at_steps: list[int] = []
    original = step._change_state

    def change(value: bool) -> bool:
        changed: bool = original(value)
        if changed and value:
            history_at_steps.append(len(direction.states))
        return changed

    step._change_state = change
    reports: list[MoveReport] = []
    drive.move(places, reports.append)
    clock.advance(5.0)
    drive.close()
    assert reports and reports[0].steps == abs(places) * 50
    assert len(history_at_steps) == abs(places) * 50
    return {direction.states[n - 1].state for n in history_at_steps}


@pytest.mark.parametrize("reverse", [False, True])
def test_dir_is_the_other_level_for_a_move_back(reverse: bool) -> None:
    pins = GpioPins(**{**DEFAULT_PINS.__dict__, "reverse": reverse})
    factory = MockFactory()
    try:
        forward = dir_levels_at_steps(factory, pins, 2)
    finally:
        factory.reset()
    factory = MockFactory()
    try:
        back = dir_levels_at_steps(factory, pins, -2)
    finally:
        factory.reset()
    assert forward == {not reverse}  # one level through a whole move, set before its steps
    assert back == {reverse}


# --- the Pico's firmware ------------------------------------------------------------------
def pico(spp: int = 20) -> tuple[Device, StandInRings]:
    rings = StandInRings(spp)
    dev = Device(RingController(rings), "b00t")
    dev.feed(encode(1, ["HELLO", str(PROTOCOL_VERSION), "host"]), 0)
    dev.feed(encode(2, ["CFG", f"spp={spp}"]) + encode(3, ["HOME"]), 0)
    return dev, rings


def reply(dev: Device, seq: int, *words: str) -> list[str]:
    dev.feed(encode(seq, list(words)), 0)
    now = 0
    while dev.controller.busy:
        now = max(now, dev.poll(now))
    return next(w for s, w in Deframer().feed(dev.take_output()) if s == seq)


@pytest.mark.parametrize("places", ["101", "-101", "-x", "--1", "-", "+1", "1-"])
def test_the_firmware_refuses_a_move_it_cannot_make(places: str) -> None:
    dev, rings = pico()
    assert reply(dev, 10, "MOVE", places) == ["ERR", "bad_value"]
    assert rings.pulses == 0


@pytest.mark.parametrize("places", [-1, -3, -100])
def test_move_minus_n_turns_the_rings_n_places_back(places: int) -> None:
    dev, rings = pico()
    assert reply(dev, 10, "MOVE", str(places)) == ["OK", "MOVE"]
    assert rings.position == places * 20 and rings.pulses == -places * 20
    stat = fields(reply(dev, 11, "STAT"))
    assert (stat["places"], stat["steps"], stat["index"]) == (str(places), str(-places * 20), "1")


def test_a_move_back_with_lost_steps_is_reported_off_the_index() -> None:
    dev, rings = pico()
    rings.slip = 3
    reply(dev, 10, "MOVE", "-1")
    stat = fields(reply(dev, 11, "STAT"))
    assert (stat["steps"], stat["index"], stat["homed"]) == ("20", "0", "0")
    assert int(stat["slips"]) > 0 and rings.position == -17
    assert reply(dev, 12, "MOVE", "-1") == ["ERR", "not_homed"]  # home first, as forward


@pytest.mark.parametrize("places", ["0", "-0"])
def test_a_move_of_no_places_ends_at_once(places: str) -> None:
    dev, rings = pico()
    assert reply(dev, 10, "MOVE", places) == ["OK", "MOVE"]
    assert rings.pulses == 0 and fields(reply(dev, 11, "STAT"))["index"] == "1"
