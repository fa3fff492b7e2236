"""``orbito-hw doctor --only calibrate`` on the reference board (16 TMAG5273, ``hw/tmag.py``):
each square's empty vector and thresholds, measured.

The builder is walked through it: the board cleared (each sensor read ``SAMPLES`` times: its
empty vector, the mean, and its noise, the spread), then square by square a marble put on in
``POSES`` poses (taken off and put back another way up each time). The weakest field a
marble gave a square, less its empty vector, and the model's strongest stray field of an
empty square (its neighbours' marbles, hw/tmag_chip.figures) set its threshold where the
two margins come out equal after the drift and the peak noise, as the magnetic model does
(hardware/mechanics.md); a square whose margins are under ``MARGIN`` is named with its
figures, and nothing is saved. Otherwise the calibration is saved atomically in the state
directory (``hw/tmag_calibration.py``), where the controller reads it at its next start.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Protocol

from orbito_hw.doctor.checks import CheckResult, Doctor, Request
from orbito_hw.hw import tmag_chip as chip
from orbito_hw.hw.tmag_calibration import (
    SquareCalibration,
    TmagCalibration,
    Vector,
    save_tmag_calibration,
)
from orbito_hw.lang import _, system_reason
from orbito_hw.rules.squares import SQUARE_NAMES, SQUARES

SAMPLES: Final = 8
"""Sweeps averaged into the empty vectors."""
POSES: Final = 3
"""Poses of a marble on each square (the seat lets it lie any way up)."""
SWEEP_S: Final = 0.05
"""Seconds between two sweeps: more than a sensor's sleep and conversion."""
MARGIN: Final = 2.0
"""The margins the model asks of the design: a marble's weakest field twice the operate
point, the release point twice an empty square's strongest field."""
PEAK: Final = 3.3
"""Peak noise as a multiple of its RMS (the model's)."""


class Fields(Protocol):
    """The tmag backend as the calibration reads it."""

    def sweep(self) -> None: ...

    def fields(self) -> Sequence[Vector | None]: ...


@dataclass
class TmagCalibrator:
    sensors: Fields
    state_dir: Path | None

    async def __call__(self, doctor: Doctor, result: CheckResult) -> None:
        await TmagWalk(doctor, self.sensors, result).run(self.state_dir)


class TmagWalk:
    def __init__(self, doctor: Doctor, sensors: Fields, result: CheckResult) -> None:
        self.doctor = doctor
        self.sensors = sensors
        self.result = result

    async def read(self) -> Sequence[Vector | None]:
        await self.doctor.sleep(SWEEP_S)
        self.sensors.sweep()
        return self.sensors.fields()

    async def run(self, state_dir: Path | None) -> None:
        d = self.doctor
        d.person.tell(Request("clear", _("take every marble off the board")))
        await d.sleep(d.timeout / 10)
        sweeps = [await self.read() for _n in range(SAMPLES)]
        silent = [sq for sq in SQUARES if any(s[sq] is None for s in sweeps)]
        for sq in silent:
            text = _("{square}: its sensor does not answer (tmag.channels, its cable)")
            d._fail(self.result, text, square=SQUARE_NAMES[sq])
        if silent:
            return
        empty: list[Vector] = []
        noise = 0.0
        for sq in SQUARES:
            column = [s[sq] for s in sweeps]
            mean = tuple(statistics.fmean(v[i] for v in column if v) for i in range(3))
            empty.append((mean[0], mean[1], mean[2]))
            noise = max(noise, max(math.dist(v, mean) for v in column if v))
        weakest: list[float] = []
        for sq in SQUARES:
            least = await self.square(sq, empty[sq])
            if least is None:
                return
            weakest.append(least)
        self.judge(empty, weakest, noise, state_dir)

    async def square(self, square: int, empty: Vector) -> float | None:
        """The weakest field (less ``empty``) of a marble on ``square`` over its poses."""
        d, name = self.doctor, SQUARE_NAMES[square]
        sizes = []
        for pose in range(POSES):
            words = (
                _("put a marble on {square}")
                if pose == 0
                else _("put it back on {square} another way up")
            )
            if pose:
                off = _("take the marble off {square}").format(square=name)
                d.person.tell(Request("lift", off, square))
                await d.sleep(d.timeout / 20)
            d.person.tell(Request("put", words.format(square=name), square, "black"))
            size = await self.wait_for(square, empty, lambda g: g > chip.figures().weakest_g / 2)
            if size is None:
                text = _("{square}: no marble read within {seconds} s: check its sensor's cable")
                d._fail(self.result, text, square=name, seconds=f"{d.timeout:g}")
                return None
            sizes.append(size)
        off = _("take the marble off {square}").format(square=name)
        d.person.tell(Request("lift", off, square))
        if await self.wait_for(square, empty, lambda g: g < chip.figures().weakest_g / 4) is None:
            self.result.notes.append(_("{square} did not read empty again").format(square=name))
        return min(sizes)

    async def wait_for(self, square: int, empty: Vector, ok: object) -> float | None:
        """The field's size (less ``empty``) once ``ok`` of it held two sweeps, or None."""
        d = self.doctor
        deadline = d.clock.now() + d.timeout
        held, last = 0, 0.0
        while d.clock.now() < deadline:
            field = (await self.read())[square]
            size = math.dist(field, empty) if field is not None else -1.0
            good = field is not None and ok(size)  # type: ignore[operator]
            held = held + 1 if good else 0
            last = size
            if held >= 2:
                return last
        return None

    def judge(self, empty: list[Vector], weakest: list[float], noise: float,
              state_dir: Path | None) -> None:  # fmt: skip
        d, result = self.doctor, self.result
        f = chip.figures()
        e = math.sqrt(3) * f.drift_g + PEAK * max(noise, f.noise_rms_g * math.sqrt(3))
        squares = []
        for sq in SQUARES:
            # A few poses are not every pose: the model's weakest marble stands for those
            # not tried, unless this square read a weaker one (a sensor deep in its pocket).
            least = min(weakest[sq], f.weakest_g)
            threshold = math.sqrt(least * f.empty_g + e * e)
            on, off = threshold + e, threshold - e
            seen, unseen = least / on, off / f.empty_g
            if min(seen, unseen) < MARGIN:
                text = _(
                    "{square}: margins too short: its weakest marble {weakest} G against "
                    "{on} G to be seen ({seen} x), {off} G to read empty against the "
                    "neighbours' {stray} G ({unseen} x); {margin} x needed"
                )
                d._fail(result, text, square=SQUARE_NAMES[sq], weakest=f"{least:.1f}",
                        on=f"{on:.1f}", seen=f"{seen:.2f}", off=f"{off:.1f}",
                        stray=f"{f.empty_g:.1f}", unseen=f"{unseen:.2f}",
                        margin=f"{MARGIN:g}")  # fmt: skip
                continue
            squares.append(SquareCalibration(empty[sq], on, off))
        if result.problems:
            result.notes.append(_("nothing saved: the board keeps its calibration"))
            return
        calibration = TmagCalibration(tuple(squares), calibrated=True)
        least = min(min(w, f.weakest_g) / s.on_g for w, s in zip(weakest, squares, strict=True))
        result.done = _(
            "16 squares empty and with a marble in {poses} poses: the least margin {least} x, "
            "the noise {noise} G"
        ).format(poses=POSES, least=f"{least:.2f}", noise=f"{noise:.2f}")
        if state_dir is None:
            result.notes.append(_("not saved (no state directory)"))
            return
        try:
            path = save_tmag_calibration(state_dir, calibration)
        except OSError as exc:
            text = _("cannot save the calibration in {path}: {reason}")
            d._fail(result, text, path=state_dir, reason=system_reason(exc))
            return
        d._pass(_("saved to {path}: the controller uses it from its next start"), path=path)
