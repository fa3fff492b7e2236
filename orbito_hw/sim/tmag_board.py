"""The simulated board's TMAG5273 sensors: each square's three-axis field from the magnetic
model's figures (``orbito_hw/data/tmag_fields.json``, ``hw/tmag_chip.figures``), read by the
real backend (``hw/tmag.py``) over the emulated bus (``sim/tmag_bus.py``) with its INT line
on a gpiozero mock pin.

Each sensor has its own offset (up to the model's +-3 G an axis) and a stray field from the
board (the model's strongest empty square's, in a direction of its own); a marble that
arrives on a square lies in a pose drawn from the model's, its field turned round for a
white marble, and every conversion adds the sensor's noise. Seeded: the same seed, the same
board and the same poses.
"""

from __future__ import annotations

import math
import random
from typing import Any

from gpiozero.pins.mock import MockFactory

from orbito_hw.hw.clock import ScopedClock
from orbito_hw.hw.interfaces import Lights
from orbito_hw.hw.light import LightColours, LightReader
from orbito_hw.hw.light_front import LightCalibration, LightConfig
from orbito_hw.hw.tmag import TmagSquares
from orbito_hw.hw.tmag_calibration import SquareCalibration, TmagCalibration, model_calibration
from orbito_hw.hw.tmag_chip import TmagConfig, figures, square_channel
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARES
from orbito_hw.sim.board import SimBoard
from orbito_hw.sim.fake_i2c import FakeAds1115
from orbito_hw.sim.light_board import SimLight
from orbito_hw.sim.tmag_bus import EmulatedI2C, FakeTmag5273, Vector

SIM_CONFIG = TmagConfig()
"""The reference board's wiring, as the example config has it."""


class TmagField:
    """The true fields under the 16 squares of one simulated board."""

    def __init__(self, board: SimBoard, seed: int = 0) -> None:
        self.board = board
        f = figures()
        draw = random.Random(seed ^ 0x7A6)
        self.poses = random.Random(seed ^ 0x9053)
        self.empty: list[Vector] = []
        for _ in SQUARES:
            offset = [draw.uniform(-f.offset_g, f.offset_g) for _ in range(3)]
            stray = _direction(draw, draw.uniform(0.0, f.empty_g))
            self.empty.append((offset[0] + stray[0], offset[1] + stray[1], offset[2] + stray[2]))
        self._pose: dict[int, int] = {}
        self.noise_g = f.noise_rms_g

    def at(self, square: int) -> Vector:
        colour = self.board.truth(square)
        e = self.empty[square]
        if colour is None:
            self._pose.pop(square, None)
            return e
        poses = figures().poses_black_g
        pose = self._pose.setdefault(square, self.poses.randrange(len(poses)))
        sign = 1.0 if colour is Colour.BLACK else -1.0
        b = poses[pose]
        return (e[0] + sign * b[0], e[1] + sign * b[1], e[2] + sign * b[2])

    def calibration(self, config: TmagConfig = SIM_CONFIG) -> TmagCalibration:
        """What the doctor's calibration measures on this board: each square's empty vector,
        the model's threshold and hysteresis."""
        model = model_calibration(config).squares[0]
        return TmagCalibration(
            tuple(SquareCalibration(e, model.on_g, model.off_g) for e in self.empty),
            calibrated=True,
        )


def _direction(draw: random.Random, size: float) -> Vector:
    z = draw.uniform(-1.0, 1.0)
    phi = draw.uniform(0.0, 2 * math.pi)
    r = math.sqrt(1 - z * z)
    return (size * r * math.cos(phi), size * r * math.sin(phi), size * z)


def _at_once(seconds: float) -> None:
    """The emulated sensors' conversions are done when asked: no wait."""


SIM_LIGHT = LightConfig()
"""The phototransistors' wiring, as the example config has it."""


class TmagSimWiring:
    """One controller's worth of the reference board's sensors on the simulated board: the
    emulated bus with its chips (fresh each boot: they lose their power with the Pi), the
    INT line on a mock pin, and the backend reading them; with ``light``, the
    phototransistors' ADS1115 on the same bus and its multiplexer's select lines."""

    def __init__(self, board: SimBoard, fields: TmagField, clock: ScopedClock,
                 config: TmagConfig = SIM_CONFIG, factory: Any = None,
                 light: SimLight | None = None,
                 light_config: LightConfig = SIM_LIGHT) -> None:  # fmt: skip
        self.board = board
        self.fields = fields
        self.config = config
        self.factory = factory if factory is not None else MockFactory()
        self.int_pin = self.factory.pin(config.int_pin)
        self.bus = EmulatedI2C()
        for address in config.muxes:
            self.bus.add_mux(address)
        self.chips: list[FakeTmag5273] = []
        for square in SQUARES:
            mux, channel = square_channel(config.channels[square])
            sensor = FakeTmag5273(
                clock,
                lambda square=square: fields.at(square),  # type: ignore[misc]
                self._pulse,
                noise_g=fields.noise_g,
                seed=square,
            )
            self.bus.behind[(config.muxes[mux], channel)] = sensor
            self.chips.append(sensor)
        board.subscribe(self._square_changed)
        self.clock = clock
        self.light = light
        self.light_config = light_config
        self.adc: FakeAds1115 | None = None
        if light is not None:
            adc = self.adc = FakeAds1115(clock, light.volts)
            self.bus.devices[light_config.address] = adc
            lines = [self.factory.pin(p) for p in light_config.select_pins]
            light.select = lambda: sum(bool(line.state) << n for n, line in enumerate(lines))
            light.full_scale = lambda: adc.full_scale_v

    def _pulse(self) -> None:
        """A sensor's 10 us pulse on the open-drain line the Pi's pull-up holds high."""
        self.int_pin.drive_low()
        self.int_pin.drive_high()

    def _square_changed(self, square: int, present: bool, when: float) -> None:
        self.chips[square].field_changed()

    def sensors(self, calibration: TmagCalibration | None = None,
                on_fault: Any = None) -> TmagSquares:  # fmt: skip
        cal = calibration or self.fields.calibration(self.config)
        return TmagSquares(
            self.config, self.clock, cal, self.factory, self.bus, on_fault, settle=_at_once
        )

    def colours(self, sensors: TmagSquares, lights: Lights,
                calibration: LightCalibration | None = None,
                on_fault: Any = None) -> LightColours:  # fmt: skip
        """The squares' colours by light, on ``sensors``' presence and bus, flashing
        ``lights``."""
        assert self.light is not None
        light = self.light
        light.lights = lights
        reader = LightReader(self.light_config, lights, sensors.bus, self.factory,
                             sleep=light.sleep, now=light.now)  # fmt: skip
        cal = calibration or light.calibration()
        return LightColours(sensors, reader, cal, self.clock, on_fault)

    def close(self) -> None:
        self.factory.close()
