"""``orbito-hw doctor --only calibrate`` on a board that tells colour by light
(``hw/light.py``): each square's white and black, measured, and its threshold between.

After the presence sensors' calibration (calibrate_tmag.py), the builder is walked through
every square: a white marble put on, read, taken off and put back another way up, read
again (``POSES``); then a black one alike. The least white and the most black are the
square's; a square whose white is not ``NEED`` times its black (the optical model's margin,
3x) is named with its figures and what to check (the window under it, the wall between its
LED and its phototransistor, a dirty cup, a window's light straight on it), and nothing is
saved. A square too bright to read is named likewise. Otherwise the thresholds are saved
atomically in the state directory (``hw/light_calibration.py``), read at the next start.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.doctor.checks import CheckResult, Doctor, Request
from orbito_hw.hw.light_calibration import save_light_calibration
from orbito_hw.hw.light_front import NEED, LightCalibration, Reading, SquareLight
from orbito_hw.lang import _, system_reason
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

POSES: Final = 2
"""Poses of each marble on each square (the seat lets it lie any way up)."""
POLL_S: Final = 0.05
"""Seconds between two looks at a square's presence, waiting for a marble."""


class Lit(Protocol):
    """The colour part as the calibration reads it (``hw/light.LightColours``)."""

    def read(self) -> int: ...

    def measure(self, square: int) -> Reading | None: ...


@dataclass
class LightCalibrator:
    sensors: Lit
    state_dir: Path | None

    async def __call__(self, doctor: Doctor, result: CheckResult) -> None:
        await LightWalk(doctor, self.sensors, result).run(self.state_dir)


class LightWalk:
    def __init__(self, doctor: Doctor, sensors: Lit, result: CheckResult) -> None:
        self.doctor = doctor
        self.sensors = sensors
        self.result = result

    async def run(self, state_dir: Path | None) -> None:
        squares = []
        for sq in SQUARES:
            white = await self.colour(sq, "white")
            if white is None:
                return
            black = await self.colour(sq, "black")
            if black is None:
                return
            squares.append(SquareLight(min(white), max(black)))
        self.judge(squares, state_dir)

    async def colour(self, square: int, colour: str) -> list[float] | None:
        """What a ``colour`` marble on ``square`` reads in each pose (mV), or None (said)."""
        d, name = self.doctor, SQUARE_NAMES[square]
        marble = _("a white marble") if colour == "white" else _("a black marble")
        got: list[float] = []
        for pose in range(POSES):
            if pose:
                off = _("take the marble off {square}").format(square=name)
                d.person.tell(Request("lift", off, square))
                if not await self.wait_for(square, False):
                    self.no_marble(square)
                    return None
                words = _("put it back on {square} another way up").format(square=name)
            else:
                words = _("put {marble} on {square}").format(marble=marble, square=name)
            d.person.tell(Request("put", words, square, colour))
            if not await self.wait_for(square, True):
                self.no_marble(square)
                return None
            reading = self.sensors.measure(square)
            if reading is None:
                text = _("{square}: no reading: the phototransistors' ADC does not answer")
                d._fail(self.result, text, square=name)
                return None
            if reading.too_bright:
                text = _(
                    "{square}: too bright to read: shade the board from the sun or a lamp "
                    "straight above it, and calibrate again"
                )
                d._fail(self.result, text, square=name)
                return None
            got.append(reading.mv)
        off = _("take the marble off {square}").format(square=name)
        d.person.tell(Request("lift", off, square))
        if not await self.wait_for(square, False):
            self.result.notes.append(_("{square} did not read empty again").format(square=name))
        return got

    def no_marble(self, square: int) -> None:
        text = _("{square}: no marble read within {seconds} s: check its sensor's cable")
        self.doctor._fail(self.result, text, square=SQUARE_NAMES[square],
                          seconds=f"{self.doctor.timeout:g}")  # fmt: skip

    async def wait_for(self, square: int, present: bool) -> bool:
        """Whether ``square`` reads ``present`` within the doctor's timeout."""
        d = self.doctor
        deadline = d.clock.now() + d.timeout
        while d.clock.now() < deadline:
            await d.sleep(POLL_S)
            if bool(self.sensors.read() >> square & 1) == present:
                return True
        return False

    def judge(self, squares: list[SquareLight], state_dir: Path | None) -> None:
        d, result = self.doctor, self.result
        for sq, light in zip(SQUARES, squares, strict=True):
            if light.ratio < NEED:
                text = _(
                    "{square}: white {white} mV against black {black} mV, {ratio} x apart; "
                    "{need} x needed: check the window under it is clear, the wall between "
                    "its LED and its phototransistor, that the cup is clean, and that no "
                    "window or lamp shines straight on it"
                )
                d._fail(result, text, square=SQUARE_NAMES[sq], white=f"{light.white_mv:.2f}",
                        black=f"{light.black_mv:.2f}", ratio=f"{light.ratio:.1f}",
                        need=f"{NEED:g}")  # fmt: skip
        if result.problems:
            result.notes.append(_("nothing saved: the board keeps its colour calibration"))
            return
        least = min(squares, key=lambda s: s.ratio)
        result.done = _(
            "16 squares with a white and a black marble in {poses} poses: white and black "
            "{ratio} x apart at the least ({square})"
        ).format(poses=POSES, ratio=f"{least.ratio:.1f}",
                 square=SQUARE_NAMES[squares.index(least)])  # fmt: skip
        if state_dir is None:
            result.notes.append(_("not saved (no state directory)"))
            return
        try:
            path = save_light_calibration(state_dir, LightCalibration(tuple(squares), True))
        except OSError as exc:
            text = _("cannot save the calibration in {path}: {reason}")
            d._fail(result, text, path=state_dir, reason=system_reason(exc))
            return
        d._pass(_("saved to {path}: the controller uses it from its next start"), path=path)
