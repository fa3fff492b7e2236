"""The simulated board's light: what each square's phototransistor puts out, from the optical
model's figures (``orbito_hw/data/optics_table.json``, ``hw/light_front.optics``), read by the
real reader (``hw/light.py``) through an emulated ADS1115 (``sim/fake_i2c.FakeAds1115``) on
the sensors' emulated bus, the multiplexer's select lines on gpiozero mock pins.

Each square has parts of its own (a phototransistor 50 % either side of the typical, an LED
20 %: the model's spread); a marble that arrives lies in a pose of its own (its reading
somewhere between the model's least and most for its colour); the room's light (``room``:
dark, lamps, bright, window, sun, the model's) comes through the cup at the level the model
gives under that marble, a lamp's flickering 100 % deep at twice the mains, daylight steady;
the square's own LED adds its light only while it shows red; each conversion adds the
ADC's noise at its range. Its own time runs with the reader's conversions and waits, so the
flicker moves under a reading as it does on a real board. Seeded.
"""

from __future__ import annotations

import math
import random
from typing import Any

from orbito_hw.hw.interfaces import Lights
from orbito_hw.hw.light_front import ROOMS, LightCalibration, SquareLight, optics
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARES
from orbito_hw.sim.board import SimBoard

FLICKERS = frozenset({"lamps", "bright"})
"""The room lights that are lamps on the mains (the others daylight, or none)."""
MARBLES = ("PETG", "glass")


class SimLight:
    """The light at each square's phototransistor. ``select`` gives the multiplexer's input
    (its select lines' levels); ``full_scale`` the ADC's range now (for its noise)."""

    def __init__(self, board: SimBoard, lights: Lights, room: str = "dark", seed: int = 0,
                 marbles: str = "PETG", mains_hz: int = 50) -> None:  # fmt: skip
        if room not in ROOMS:
            raise ValueError(f"{room!r} is not a room light ({', '.join(ROOMS)})")
        if marbles not in MARBLES:
            raise ValueError(f"{marbles!r} is not a kind of marble ({', '.join(MARBLES)})")
        self.board = board
        self.lights = lights
        self.room = room
        self.marbles = marbles
        self.mains_hz = mains_hz
        o = optics()
        draw = random.Random(seed ^ 0x11647)
        pt = o.scale_high / (1 + o.led_spread) - 1  # the detector's spread
        self.detector = [draw.uniform(1 - pt, 1 + pt) for _ in SQUARES]
        self.led = [draw.uniform(1 - o.led_spread, 1 + o.led_spread) for _ in SQUARES]
        self._poses = random.Random(seed ^ 0x90535)
        self._noise = random.Random(seed ^ 0x4015E)
        self._phase = random.Random(seed).uniform(0, math.pi)
        self._pose: dict[int, float] = {}
        self.time = 0.0
        self.glare: dict[int, float] = {}
        """Faults: a square's extra room light at its phototransistor (volts: a mirror, the
        sun's beam straight into its cup), which may saturate it."""
        self.leak: dict[int, float] = {}
        """Faults: a square's LED light reaching its phototransistor past the marble (mV:
        a broken wall, a dirty cup), white and black alike."""
        self.select: Any = lambda: 0
        self.full_scale: Any = lambda: 4.096
        self.conversions = 0

    # -- time, as the reader takes it -------------------------------------------------------
    def sleep(self, seconds: float) -> None:
        self.time += seconds

    def now(self) -> float:
        """A conversion has ended: the light's time moves on by one."""
        self.time += optics().conversion_s
        return self.time

    # -- the light ----------------------------------------------------------------------
    def marble(self, square: int) -> str:
        colour = self.board.truth(square)
        if colour is None:
            self._pose.pop(square, None)
            return "empty"
        return f"{'black' if colour is Colour.BLACK else 'white'} {self.marbles}"

    def led_mv(self, square: int) -> float:
        """What the square's LED at full red sends back off what sits on it (mV at its load)."""
        row = optics().row(self.room, self.marble(square))
        if row.low_mv is None or row.high_mv is None:
            return 0.0  # the model's too bright: the room's light saturates it anyway
        pose = self._pose.setdefault(square, self._poses.random())
        mv = row.low_mv + (row.high_mv - row.low_mv) * pose
        return mv * self.detector[square] * self.led[square]

    def room_v(self, square: int, at: float) -> float:
        row = optics().row(self.room, self.marble(square))
        level = row.room_mv / 1000 * self.detector[square]
        if self.room in FLICKERS:  # a full-wave rectified sine at twice the mains, 100 % deep
            level *= math.pi / 2 * abs(math.sin(math.pi * 2 * self.mains_hz * at + self._phase))
        return level

    def volts(self, _adc_input: int) -> float:
        """The multiplexer's common pin, over the conversion under way."""
        square = self.select()
        self.conversions += 1
        tc = optics().conversion_s
        # the ADS1115 integrates its input over the conversion: the room's mean over it
        room = sum(self.room_v(square, self.time + tc * (k + 0.5) / 8) for k in range(8)) / 8
        shown = self.lights.shown()[0][square]
        red = (shown[0] / 255) if shown else 0.0
        led_mv = self.led_mv(square) + self.leak.get(square, 0.0)
        volts = room + self.glare.get(square, 0.0) + red * led_mv / 1000
        lsb = 2 * self.full_scale() / 2**16
        volts += self._noise.gauss(0.0, optics().adc_noise_codes * lsb)
        return max(0.0, min(volts, optics().ceiling_v / 0.95))  # the output's ceiling

    def calibration(self) -> LightCalibration:
        """What the doctor's calibration measures on this board: each square's white and
        black at their unkind poses (the least white, the most black) in the dark."""
        o = optics()
        squares = []
        for sq in SQUARES:
            parts = self.detector[sq] * self.led[sq]
            white = o.row("dark", f"white {self.marbles}").low_mv or 0.0
            black = o.row("dark", f"black {self.marbles}").high_mv or 0.0
            squares.append(SquareLight(white * parts, black * parts))
        return LightCalibration(tuple(squares), calibrated=True)
