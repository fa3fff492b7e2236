"""A long session on the gpio backend's mock pins runs in flat memory: gpiozero's MockPin
keeps every level change (two per STEP pulse, about 1.3 MB per simulated game), the
simulated wiring's pins keep only the last few, and the rings still turn step for step. On a
colour board the multiplexer's select lines, switched 16 times a scan for as long as the board
runs, keep as little; and the simulated scan is paced as a real board's."""

from __future__ import annotations

import pytest

from orbito_hw.hw.clock import ScopedClock, VirtualClock
from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.rules.squares import SQUARES
from orbito_hw.sim.board import SimBoard
from orbito_hw.sim.gpio_pins import GpioSimWiring
from orbito_hw.sim.hall_sensors import SimHall
from orbito_hw.sim.mock_pins import PIN_HISTORY

MOVES = 40  # ring moves of one place: 40 x 200 steps, far past the history's bound


def test_pin_history_stays_bounded_over_many_ring_moves() -> None:
    clock = VirtualClock()
    board = SimBoard(clock=clock)
    wiring = GpioSimWiring(board)
    sensors, button, drive, _lights = wiring.parts(ScopedClock(clock))
    reports: list[MoveReport] = []
    for _ in range(MOVES):
        drive.move(1, reports.append)
        clock.advance(5.0)
    steps = MOVES * board.steps_per_place
    assert [r.steps for r in reports] == [board.steps_per_place] * MOVES
    assert (board.steps, wiring.step_pin.rises) == (steps, steps)  # every pulse turned the rings
    pins = wiring.factory.pins.values()
    assert all(len(pin.states) <= PIN_HISTORY for pin in pins)
    # the history kept is the latest: STEP ended low after its last pulse
    assert len(wiring.step_pin.states) == PIN_HISTORY and not wiring.step_pin.states[-1].state
    for part in (drive, button, sensors):
        part.close()


SCANS = 600  # a minute of scanning: 9600 switches of the select lines


def test_the_colour_boards_scan_is_paced_and_its_select_lines_remember_little() -> None:
    clock = VirtualClock()
    board = SimBoard(clock=clock, hall=SimHall(seed=1))
    wiring = GpioSimWiring(board)
    sensors, button, drive, _lights = wiring.parts(ScopedClock(clock))
    period = wiring.front.scan_s
    assert period == wiring.front.scan_ms / 1000  # the config's pace, asleep after the reads
    start = sensors.scans  # type: ignore[union-attr]  # the analog parts on a colour board
    conversions = wiring.adc.conversions
    clock.advance(SCANS * period)
    scans = sensors.scans - start  # type: ignore[union-attr]
    assert SCANS - 1 <= scans <= SCANS  # one scan a period, never back to back
    assert wiring.adc.conversions - conversions == pytest.approx(scans * len(SQUARES), abs=16)
    assert all(len(line.states) <= PIN_HISTORY for line in wiring.mux_lines)
    assert all(len(line.states) == PIN_HISTORY for line in wiring.mux_lines[:2])  # they did move
    for part in (drive, button, sensors):
        part.close()
