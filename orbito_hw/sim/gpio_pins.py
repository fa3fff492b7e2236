"""The ``gpio`` and ``neopixel`` backends wired to the simulated board through gpiozero's
MockFactory: the simulated marbles drive the sensor pins, STEP pulses counted on the mock
pins turn the simulated rings the way DIR's level says, and the strip is a pixel buffer
running adafruit's own brightness and byte-order code. The real driver code runs; only the
wires are simulated.

A board with hall sensors (``SimBoard.hall``) is a colour board: its squares are read by
the analog backend (``hw/analog.py``), the multiplexer's select lines on mock pins and
adafruit's ADS1115 code on an emulated chip (``sim/fake_i2c.py``) whose input is the
simulated sensor under the square selected.
"""

from __future__ import annotations

from typing import Any

from gpiozero.pins.mock import MockFactory

from orbito_hw.hw.analog import AnalogSquares, Scanner
from orbito_hw.hw.analog_front import FrontEnd
from orbito_hw.hw.clock import ScopedClock
from orbito_hw.hw.gpio import GpioButton, GpioDrive, GpioPins, GpioSensors
from orbito_hw.hw.interfaces import SquareSensors
from orbito_hw.hw.strip import SERPENTINE, StripLights, fake_strip
from orbito_hw.rules.squares import SQUARES
from orbito_hw.sim.board import OnVirtualClock, SimBoard
from orbito_hw.sim.fake_i2c import FakeAds1115, FakeI2C, MuxLine
from orbito_hw.sim.mock_pins import ShortMemoryPin

# A plausible wiring for the simulated board (BCM numbers); a config file overrides it.
DEFAULT_PINS = GpioPins(
    squares=dict(enumerate([4, 5, 6, 7, 8, 9, 11, 12, 13, 14, 15, 16, 19, 20, 21, 22])),
    button=17,
    step=23,
    direction=24,
    enable=25,
    index=26,
)


# The colour board's multiplexer on pins the default wiring leaves free, its scan paced as a
# real board's (the config's default, 100 ms: 41 ms of reading, then asleep); the referee
# waits a whole scan after the rings stop before it trusts the squares (``settle`` below, as
# app/run.py's ``settings`` does on a real board).
DEFAULT_FRONT = FrontEnd(select_pins=(18, 27, 10, 3))


class _StepPin(ShortMemoryPin):
    """The STEP wire, as the stepper driver sees it: each rising edge is one motor step."""

    def __init__(self, factory: Any, info: Any, on_rise: Any = None) -> None:
        super().__init__(factory, info)
        self.on_rise = on_rise
        self.rises = 0

    def _change_state(self, value: bool) -> bool:
        changed: bool = super()._change_state(value)
        if changed and value and self.on_rise is not None:
            self.rises += 1
            self.on_rise()
        return changed


class MockPinDrive(OnVirtualClock, GpioDrive):
    """The gpio stepper driver on mock pins: its step train runs on the virtual clock."""


class GpioSimWiring:
    """One controller's worth of mock pins between the gpio backend and the simulated board."""

    def __init__(
        self, board: SimBoard, pins: GpioPins = DEFAULT_PINS, front: FrontEnd = DEFAULT_FRONT
    ) -> None:
        self.board = board
        self.pins = pins
        self.front = front
        self.colour = board.hall is not None
        self.factory = MockFactory(pin_class=ShortMemoryPin)
        # Pins made before the devices claim them, so the devices get these classes.
        self.step_pin = self.factory.pin(pins.step, pin_class=_StepPin, on_rise=self._motor_step)
        self.dir_pin = self.factory.pin(pins.direction)
        self.enable_pin = self.factory.pin(pins.enable)
        self.index_pin = self.factory.pin(pins.index)
        self.button_pin = self.factory.pin(pins.button)
        self.square_pins = (
            {} if self.colour else {sq: self.factory.pin(p) for sq, p in pins.squares.items()}
        )
        self.mux_input = list(SQUARES)  # the square whose sensor is wired to each input
        assert board.clock is not None
        self.adc = FakeAds1115(board.clock, self._sensor_volts)
        self.bus = FakeI2C(self.adc)
        self.mux_lines = [
            self.factory.pin(p, pin_class=MuxLine, on_change=self.adc.switched)
            for p in front.select_pins
        ] if self.colour else []  # fmt: skip

    def cross_wires(self, a: int, b: int) -> None:
        """A wiring fault: square ``a``'s sensor lands on ``b``'s pin (or multiplexer
        input) and the other way round."""
        if self.colour:
            self.mux_input[a], self.mux_input[b] = self.mux_input[b], self.mux_input[a]
            return
        self.square_pins[a], self.square_pins[b] = self.square_pins[b], self.square_pins[a]

    def _sensor_volts(self, _adc_input: int) -> float:
        """The multiplexer's common pin: the sensor on the input its select lines choose."""
        selected = sum(bool(line.state) << n for n, line in enumerate(self.mux_lines))
        return self.front.volts(self.board.hall_reading(self.mux_input[selected]))

    # --- wires from the board to the Pi ----------------------------------------------
    def _drive(self, pin: Any, active: bool, active_high: bool) -> None:
        if active == active_high:
            pin.drive_high()
        else:
            pin.drive_low()

    def sync_inputs(self) -> None:
        reading = self.board.occupancy()
        for sq, pin in self.square_pins.items():
            self._drive(pin, bool(reading >> sq & 1), self.pins.squares_active_high)
        self._drive(self.index_pin, self.board.index_active(), self.pins.index_active_high)

    def _square_changed(self, square: int, present: bool, when: float) -> None:
        if not self.colour:
            self._drive(self.square_pins[square], present, self.pins.squares_active_high)

    def finger(self, pressed: bool) -> None:
        self._drive(self.button_pin, pressed, self.pins.button_active_high)

    # --- wires from the Pi to the stepper driver -----------------------------------------
    def _motor_step(self) -> None:
        enabled = self.enable_pin.state == self.pins.enable_active_high
        if not enabled:
            return  # a disabled driver ignores STEP
        # DIR high turns the motor one way, low the other; ``reverse`` is a motor wired
        # so that high turns the rings clockwise.
        self.board.step(forward=bool(self.dir_pin.state) != self.pins.reverse)
        self._drive(self.index_pin, self.board.index_active(), self.pins.index_active_high)

    def parts(
        self, clock: ScopedClock
    ) -> tuple[SquareSensors, GpioButton, MockPinDrive, StripLights]:
        self.board.clock = clock.base
        self.board.subscribe(self._square_changed)
        sensors: GpioSensors | AnalogSquares
        if self.board.hall is not None:
            calibration = self.board.hall.calibration
            sensors = AnalogSquares(
                self.front, clock, calibration, self.factory, self.bus, scanner=Scanner.CLOCK
            )
        else:
            sensors = GpioSensors(self.pins, clock, self.factory)
        button = GpioButton(self.pins, clock, self.factory)
        drive = MockPinDrive(
            self.pins, clock, self.board.steps_per_place, 2000.0, 8000.0, factory=self.factory
        )
        self.sync_inputs()  # after every device set its pull, which drives a mock input
        lights = StripLights.along(fake_strip(17, 0.3, "GRB"), SERPENTINE, status_pixel=16)
        return sensors, button, drive, lights
