"""A long session on the gpio backend's mock pins runs in flat memory: gpiozero's MockPin
keeps every level change (two per STEP pulse, about 1.3 MB per simulated game), the
simulated wiring's pins keep only the last few, and the rings still turn step for step."""

from __future__ import annotations

from orbito_hw.hw.clock import ScopedClock, VirtualClock
from orbito_hw.hw.interfaces import MoveReport
from orbito_hw.sim.board import SimBoard
from orbito_hw.sim.gpio_pins import PIN_HISTORY, GpioSimWiring

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
