"""``orbito-hw doctor --only calibrate``: each square's levels measured on a colour board.

The builder is walked through it: the board cleared (every square's empty level, at once),
then square by square a black marble put on and taken off, then a white one. Each level is
the mean of ``SAMPLES`` scans, taken once the reading has moved and held; the noise is their
spread. A square whose black or white does not stand clear of its empty level by
``MARGIN_SIGMAS`` times the noise cannot be told apart: it is named, and nothing is saved.
Otherwise the levels are saved to the state directory (``hw/calibration_file.py``: an
atomic write), where the controller reads them at its next start.

It knows the board through its interfaces, and the sensors' raw readings through
``Gauges`` (the analog backends' ``gauss()``).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Protocol

from orbito_hw.doctor.checks import CheckResult, Doctor, Request
from orbito_hw.hw.calibration_file import save_calibration
from orbito_hw.hw.hall import DESIGN, Calibration, SquareLevels
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

SAMPLES: Final = 8
"""Scans averaged into one level."""
MOVED_G: Final = DESIGN.black_weakest_g / 2
"""How far a reading must move from the square's empty level to count as a marble put
(half the weakest marble's field: no empty square's stray field comes near it)."""
MARGIN_SIGMAS: Final = 12.0
"""The least gap between a square's empty level and each colour's, in noise deviations:
the threshold half-way leaves 6, and the hysteresis band an eighth of the gap on each
side, so a reading crosses it wrongly less than once in a billion."""


class Gauges(Protocol):
    """The squares' raw readings: the last of each, in gauss, and how often they come."""

    def gauss(self) -> Sequence[float]: ...

    @property
    def scan_period(self) -> float: ...


@dataclass
class Calibrator:
    """The calibration check of one board: its gauges and where the result is kept
    (None: measured and judged, not saved, as ``doctor --mock`` without a directory)."""

    gauges: Gauges
    state_dir: Path | None

    async def __call__(self, doctor: Doctor, result: CheckResult) -> None:
        await Walk(doctor, self.gauges, result).run(self.state_dir)


class Walk:
    def __init__(self, doctor: Doctor, gauges: Gauges, result: CheckResult) -> None:
        self.doctor = doctor
        self.gauges = gauges
        self.result = result
        self.noise: list[float] = []

    async def samples(self) -> list[tuple[float, ...]]:
        """``SAMPLES`` scans, one scan period apart."""
        out = []
        for _ in range(SAMPLES):
            await self.doctor.sleep(self.gauges.scan_period)
            out.append(tuple(self.gauges.gauss()))
        return out

    async def level(self, square: int | None = None) -> list[float]:
        """The mean reading of every square (or one), its spread kept as the noise."""
        scans = await self.samples()
        columns = list(zip(*scans, strict=True))
        chosen = SQUARES if square is None else [square]
        for sq in chosen:
            self.noise.append(statistics.pstdev(columns[sq]))
        return [statistics.fmean(column) for column in columns]

    async def wait_until(self, square: int, moved: Callable[[float], bool]) -> bool:
        """Whether ``square``'s reading came to ``moved`` and held a scan, in time."""
        d = self.doctor
        deadline = d.clock.now() + d.timeout
        held = 0
        while d.clock.now() < deadline:
            await d.sleep(self.gauges.scan_period)
            held = held + 1 if moved(self.gauges.gauss()[square]) else 0
            if held >= 2:
                return True
        return False

    async def run(self, state_dir: Path | None) -> None:
        d = self.doctor
        d.person.tell(Request("clear", "take every marble off the board"))
        await d.sleep(d.timeout / 10)  # a person clearing 16 squares
        empty = await self.level()
        black, white = list(empty), list(empty)
        for square in SQUARES:
            for colour, into in (("black", black), ("white", white)):
                got = await self.one(square, colour, empty[square])
                if got is None:
                    return
                into[square] = got
        self.judge(empty, black, white, state_dir)

    async def one(self, square: int, colour: str, empty: float) -> float | None:
        """A marble of ``colour`` put on ``square``: its level (None: never seen)."""
        d, name = self.doctor, SQUARE_NAMES[square]
        d.person.tell(Request("put", f"put a {colour} marble on {name}", square, colour))
        if not await self.wait_until(square, lambda g: abs(g - empty) > MOVED_G):
            d._fail(
                self.result,
                f"{name}: no {colour} marble read within {d.timeout:g} s: check the sensor "
                f"under {name} (multiplexer input C{square}) and analog.s0_pin .. s3_pin",
            )
            return None
        level = (await self.level(square))[square]
        d.person.tell(Request("lift", f"take the marble off {name}", square))
        if not await self.wait_until(square, lambda g: abs(g - empty) < MOVED_G):
            self.result.notes.append(f"{name} did not read empty again after the {colour}")
        return level

    def judge(
        self, empty: list[float], black: list[float], white: list[float], state_dir: Path | None
    ) -> None:
        d, result = self.doctor, self.result
        noise = max(max(self.noise, default=0.0), DESIGN.noise_rms_g)
        needed = MARGIN_SIGMAS * noise
        if all(b < e for b, e in zip(black, empty, strict=True)) and all(
            w > e for w, e in zip(white, empty, strict=True)
        ):
            d._fail(
                result,
                "every black marble reads below empty and every white above: the magnets "
                "face the other way; make analog.mv_per_gauss negative and calibrate again",
            )
            return
        levels = []
        for sq in SQUARES:
            gap_black, gap_white = black[sq] - empty[sq], empty[sq] - white[sq]
            if min(gap_black, gap_white) < needed:
                d._fail(
                    result,
                    f"{SQUARE_NAMES[sq]}: black and white cannot be told apart: black "
                    f"{gap_black:+.0f} G and white {-gap_white:+.0f} G from empty, "
                    f"{needed:.0f} G needed ({MARGIN_SIGMAS:g} x the noise, {noise:.1f} G)",
                )
                continue
            levels.append(SquareLevels(empty[sq], black[sq], white[sq]))
        if result.problems:
            result.notes.append("nothing saved: the board keeps its calibration")
            return
        calibration = Calibration(tuple(levels))
        least = min(lv.separation for lv in levels)
        result.done = (
            f"16 squares empty, black and white: the least gap {least:.0f} G, "
            f"{least / noise:.0f} x the noise ({noise:.1f} G)"
        )
        if state_dir is None:
            result.notes.append("not saved (no state directory)")
            return
        try:
            path = save_calibration(state_dir, calibration)
        except OSError as exc:
            d._fail(result, f"cannot save the calibration in {state_dir}: {exc.strerror or exc}")
            return
        d._pass(f"saved to {path}: the controller uses it from its next start")


def calibrator(
    gauges: object, state_dir: Path | None
) -> Callable[[Doctor, CheckResult], Coroutine[Any, Any, None]] | None:
    """The calibration check for sensors that give readings (None: presence only)."""
    if not callable(getattr(gauges, "gauss", None)) or not math.isfinite(
        getattr(gauges, "scan_period", math.nan)
    ):
        return None
    return Calibrator(gauges, state_dir)  # type: ignore[arg-type]
