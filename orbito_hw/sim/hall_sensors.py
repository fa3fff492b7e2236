"""The simulated board's linear hall sensors: a reading in gauss under each square.

Each sensor has its own offset and its own pair of marble fields (how strong a black and a
white marble read on it), drawn once from the design's figures (``hall.DESIGN``) and a
seed; every reading adds fresh noise. The simulated board classifies each reading through
``hall.classify`` with its calibration, as a real board's backend does: by default the
levels a ``doctor`` calibration would have measured on it, or the design's defaults (a
board not yet calibrated).
"""

from __future__ import annotations

import random

from orbito_hw.hw.hall import (
    DESIGN,
    Calibration,
    Design,
    Seen,
    SquareLevels,
    classify,
    default_calibration,
)
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARES


class SimHall:
    """The 16 sensors of one simulated board, seeded: the same seed, the same board."""

    def __init__(self, seed: int = 0, design: Design = DESIGN, calibrated: bool = True) -> None:
        self._noise = random.Random(seed)
        draw = random.Random(seed ^ 0x4A11)
        d = design
        self.noise_rms = d.noise_rms_g
        self.levels = tuple(
            SquareLevels(
                empty=(offset := draw.uniform(-d.offset_spread_g, d.offset_spread_g))
                + draw.uniform(-d.empty_strongest_g, d.empty_strongest_g),
                black=offset + draw.uniform(d.black_weakest_g, d.black_strongest_g),
                white=offset + draw.uniform(d.white_strongest_g, d.white_weakest_g),
            )
            for _ in SQUARES
        )
        """Each square's true levels (the field read empty, with a black, with a white)."""
        self.calibration = Calibration(self.levels) if calibrated else default_calibration(d)
        self.seen: list[Seen] = [Seen.EMPTY] * len(SQUARES)

    def reading(self, square: int, colour: Colour | None) -> float:
        """What the sensor under ``square`` reads now, in gauss, for what sits on it."""
        lv = self.levels[square]
        mean = {None: lv.empty, Colour.BLACK: lv.black, Colour.WHITE: lv.white}[colour]
        return mean + self._noise.gauss(0.0, self.noise_rms)

    def sample(self, square: int, colour: Colour | None) -> Seen:
        """Read ``square`` once and classify the reading; the result is kept as its state."""
        value = self.reading(square, colour)
        seen = classify(value, self.calibration.squares[square], self.seen[square])
        self.seen[square] = seen
        return seen
