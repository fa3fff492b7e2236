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
from orbito_hw.lang import N_, _, system_reason
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


PUT_COLOUR: Final = {
    "black": N_("put a black marble on {square}"),
    "white": N_("put a white marble on {square}"),
}
NOT_READ: Final = {
    "black": N_(
        "{square}: no black marble read within {seconds} s: check the sensor under {square} "
        "(multiplexer input C{input}) and analog.s0_pin .. s3_pin"
    ),
    "white": N_(
        "{square}: no white marble read within {seconds} s: check the sensor under {square} "
        "(multiplexer input C{input}) and analog.s0_pin .. s3_pin"
    ),
}
NOT_EMPTY: Final = {
    "black": N_("{square} did not read empty again after the black"),
    "white": N_("{square} did not read empty again after the white"),
}


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
        for _scan in range(SAMPLES):
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
        d.person.tell(Request("clear", _("take every marble off the board")))
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
        put = _(PUT_COLOUR[colour]).format(square=name)
        d.person.tell(Request("put", put, square, colour))
        if not await self.wait_until(square, lambda g: abs(g - empty) > MOVED_G):
            text = _(NOT_READ[colour])
            d._fail(self.result, text, square=name, seconds=f"{d.timeout:g}", input=square)
            return None
        level = (await self.level(square))[square]
        d.person.tell(
            Request("lift", _("take the marble off {square}").format(square=name), square)
        )
        if not await self.wait_until(square, lambda g: abs(g - empty) < MOVED_G):
            self.result.notes.append(_(NOT_EMPTY[colour]).format(square=name))
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
            text = _(
                "every black marble reads below empty and every white above: the magnets "
                "face the other way; make analog.mv_per_gauss negative and calibrate again"
            )
            d._fail(result, text)
            return
        levels = []
        for sq in SQUARES:
            gap_black, gap_white = black[sq] - empty[sq], empty[sq] - white[sq]
            if min(gap_black, gap_white) < needed:
                text = _(
                    "{square}: black and white cannot be told apart: black {black} G and "
                    "white {white} G from empty, {needed} G needed ({sigmas} x the noise, "
                    "{noise} G)"
                )
                d._fail(
                    result,
                    text,
                    square=SQUARE_NAMES[sq],
                    black=f"{gap_black:+.0f}",
                    white=f"{-gap_white:+.0f}",
                    needed=f"{needed:.0f}",
                    sigmas=f"{MARGIN_SIGMAS:g}",
                    noise=f"{noise:.1f}",
                )
                continue
            levels.append(SquareLevels(empty[sq], black[sq], white[sq]))
        if result.problems:
            result.notes.append(_("nothing saved: the board keeps its calibration"))
            return
        calibration = Calibration(tuple(levels))
        least = min(lv.separation for lv in levels)
        result.done = _(
            "16 squares empty, black and white: the least gap {gap} G, "
            "{times} x the noise ({noise} G)"
        ).format(gap=f"{least:.0f}", times=f"{least / noise:.0f}", noise=f"{noise:.1f}")
        if state_dir is None:
            result.notes.append(_("not saved (no state directory)"))
            return
        try:
            path = save_calibration(state_dir, calibration)
        except OSError as exc:
            text = _("cannot save the calibration in {path}: {reason}")
            d._fail(result, text, path=state_dir, reason=system_reason(exc))
            return
        d._pass(_("saved to {path}: the controller uses it from its next start"), path=path)


def calibrator(
    gauges: object, state_dir: Path | None
) -> Callable[[Doctor, CheckResult], Coroutine[Any, Any, None]] | None:
    """The calibration check for sensors that give readings (None: presence only): the
    reference board's TMAG5273 (their fields), then its colours by light if it tells them
    (``hw/light.LightColours``: calibrate_light.py), or a colour board's levels."""
    presence = getattr(gauges, "presence", None)
    if callable(getattr(gauges, "measure", None)) and presence is not None:
        from orbito_hw.doctor.calibrate_light import LightCalibrator

        return InTurn(calibrator(presence, state_dir), LightCalibrator(gauges, state_dir))  # type: ignore[arg-type]
    if callable(getattr(gauges, "fields", None)) and callable(getattr(gauges, "sweep", None)):
        from orbito_hw.doctor.calibrate_tmag import TmagCalibrator

        return TmagCalibrator(gauges, state_dir)  # type: ignore[arg-type]
    if not callable(getattr(gauges, "gauss", None)) or not math.isfinite(
        getattr(gauges, "scan_period", math.nan)
    ):
        return None
    return Calibrator(gauges, state_dir)  # type: ignore[arg-type]


@dataclass
class InTurn:
    """Two calibrations, the second once the first has passed (the squares' presence, then
    their colours): what the first found is kept in the notes."""

    first: Callable[[Doctor, CheckResult], Coroutine[Any, Any, None]] | None
    second: Callable[[Doctor, CheckResult], Coroutine[Any, Any, None]]

    async def __call__(self, doctor: Doctor, result: CheckResult) -> None:
        if self.first is not None:
            await self.first(doctor, result)
            if result.problems:
                return
            if result.done:
                result.notes.append(result.done)
                result.done = ""
        await self.second(doctor, result)
