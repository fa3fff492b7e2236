"""A marble of the wrong colour is refused whichever drivers read the squares: the analog
backend (adafruit's ADS1115 code on an emulated chip, the mux on mock pins) and the Pico's
firmware scanning its ADC behind the serial link, as on the simulated board's own parts."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

import pytest

from orbito_hw.hw.analog_front import FrontEnd
from orbito_hw.hw.clock import VirtualClock
from orbito_hw.hw.interfaces import tells_colour
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import parse_square
from orbito_hw.sim.board import SimBoard
from orbito_hw.sim.hall_sensors import SimHall
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.pico import HallRings, mock_serial_drive
from orbito_hw.sim.script import parse_script
from orbito_hw.sim.world import SimRings

WRONG = "put a1 black\npress\nput b2 black\npress\n"  # black's turn, then black again


def events_of(backend: str, script: str) -> list[dict[str, object]]:
    run = MockRun(parts=backend)  # type: ignore[arg-type]
    try:
        run.run_script(parse_script(script))
        return run.events
    finally:
        run.close()


@pytest.mark.parametrize("backend", ["gpio", "serial"])
def test_the_wrong_colour_is_refused_as_on_the_simulated_parts(backend: str) -> None:
    expected = events_of("sim", WRONG)
    refused = [e for e in expected if e["event"] == "rejected"]
    assert refused and "b2 holds a black marble" in str(refused[0]["reason"])
    assert events_of(backend, WRONG) == expected


def test_the_analog_parts_tell_colours_on_the_gpio_backend() -> None:
    run = MockRun(parts="gpio")
    try:
        run.run_script(parse_script("put a1 black\npress\nput c3 white\n"))
        sensors = run.parts.sensors
        assert type(sensors).__name__ == "AnalogSquares"
        black, white = sensors.colours()  # type: ignore[attr-defined]
        assert black >> 1 & 1 and white == 1 << 10  # a1 pressed on to b1; c3 white
    finally:
        run.close()


def wait_for(what: Callable[[], bool], seconds: float = 10.0) -> bool:
    """Whether ``what`` came true within ``seconds`` (the simulated Pico runs in real time)."""
    deadline = time.monotonic() + seconds
    while not what():
        if time.monotonic() > deadline:
            return False
        threading.Event().wait(0.005)
    return True


def test_the_picos_levels_tell_colours_through_the_serial_link() -> None:
    """The firmware scans the levels (behind the multiplexer, on its ADC), reports them
    over the link, and the host classifies them with the board's calibration."""
    clock = VirtualClock()
    hall = SimHall(seed=3)
    board = SimBoard(clock=clock, hall=hall)
    front = FrontEnd(scan_ms=10)
    rings = HallRings(SimRings(board), board.hall_reading, front)
    drive = mock_serial_drive(
        clock, rings, board.steps_per_place, {"scan": 1, "analog": 1, "scan_ms": 10},
        colour=(front, hall.calibration),
    )  # fmt: skip
    try:
        sensors = drive.sensors
        assert tells_colour(sensors)
        c3, d4 = parse_square("c3"), parse_square("d4")
        board.put(c3, Colour.WHITE)
        board.put(d4, Colour.BLACK)
        assert wait_for(lambda: sensors.colours() == (1 << d4, 1 << c3))  # type: ignore[attr-defined]
        clock.advance(0.0)  # the puts' changes, posted to the clock before anyone listened
        events: list[tuple[int, bool]] = []
        sensors.subscribe(lambda sq, present, when: events.append((sq, present)))
        board.lift(d4)
        assert wait_for(lambda: sensors.read() == 1 << c3)
        clock.advance(0.0)  # what the link posted reaches the listeners on the clock
        assert events == [(d4, False)]
    finally:
        drive.close()


def test_a_level_event_out_of_range_is_dropped_and_the_levels_read_again() -> None:
    from orbito_hw.hw.serial_backend import level_event, parse_levels

    assert level_event(["EV", "LV", "5", "40000", "12"]) == (5, 40000)
    for bad in (["EV", "LV", "16", "1", "1"], ["EV", "LV", "1", "65536", "1"],
                ["EV", "LV", "1", "-3", "1"], ["EV", "LV", "01", "3", "1"]):  # fmt: skip
        assert level_event(bad) is None
    assert parse_levels(",".join(["-1"] * 15 + ["7"])) == [None] * 15 + [7]
    assert parse_levels("1,2") is None and parse_levels(",".join(["x"] * 16)) is None
