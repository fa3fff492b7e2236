"""The optical model of a square's colour reading (issue 44): from the light at the detector
to the reading the controller gets, and the margins it has.

``optics_scene`` renders what the detector's die gets in each pose (Mitsuba 3): lux per
candela of the LED's red and per lux of the room. Here that light becomes a photocurrent
(the ALS-PT19's rating and its spread), a voltage at its load, ADS1115 conversions, and a
reading: the LED lit between two runs of conversions with it dark, the room's light (its
flicker included) fitted on the dark conversions and taken off the lit ones (``Scheme``).
The figures: white, black and empty per room light (with the noise and the detectors'
spread), the worst white/black ratio over the seat's heights and offsets, what the flicker
and the stray light leave, where the reading saturates (too bright: never a colour), and the
flash the eye gets. ``benchmarks/optics.py`` prints them; ``write_table`` keeps them for the
simulated board (``optics_figures.json`` beside this module).
"""

from __future__ import annotations

import json
import math
import time
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models.magnetics import marble_heights, offsets
from orbito_cad.models.optics_params import (
    MARBLES,
    OPTICS,
    ROOMS,
    Material,
    OpticsParams,
    Room,
)
from orbito_cad.models.optics_scene import Light, render

Array = NDArray[np.float64]
TABLE = Path(__file__).with_name("optics_figures.json")
NEED = 3.0  # the least white/black ratio, after noise, spread and the room
TOO_BRIGHT = 0.95  # of the output's ceiling: a conversion above it is too bright to read


# --- the poses and the light in each ---------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Pose:
    """A marble's centre: its height over the floor and its offset from the square's centre."""

    height: float
    dx: float
    dy: float


def poses(n_offsets: int = 8, p: Params = PARAMS) -> list[Pose]:
    """Every pose the seat allows: its lowest and highest rest (the hole's tolerance), centred
    and ``marble_offset`` off in ``n_offsets`` ways (``magnetics``, the same as the field's)."""
    return [Pose(h, dx, dy) for h in marble_heights(p) for dx, dy in offsets(p, n_offsets)]


@dataclass(frozen=True, slots=True)
class Lit:
    """What the detector gets with ``material`` (None: an empty square) in ``pose``."""

    material: str
    pose: Pose
    light: Light


def survey(materials: Iterable[Material | None], where: Sequence[Pose], spp: int,
           seed: int = 1, o: OpticsParams = OPTICS, p: Params = PARAMS) -> list[Lit]:  # fmt: skip
    """The scene rendered for each material in each pose (an empty square once)."""
    out = []
    for m in materials:
        for pose in where if m is not None else where[:1]:
            light = render(m, (pose.dx, pose.dy, pose.height), spp, seed, o, p)
            out.append(Lit(m.name if m is not None else "empty", pose, light))
    return out


# --- the reading's timing: the LED lit between dark conversions ----------------------------
@dataclass(frozen=True, slots=True)
class Scheme:
    """One reading: ``dark`` conversions, the LED lit for ``lit`` conversions after it has
    settled, then ``dark`` more, the ADS1115 converting on its own clock throughout. The
    room's light is fitted on the dark conversions (a quadratic for slow changes, and the
    mains flicker's first ``harmonics``) and taken off the lit ones."""

    dark: int = 16
    lit: int = 5
    harmonics: int = 6


@dataclass(frozen=True, slots=True)
class Timeline:
    starts: Array  # each used conversion's start (s)
    lit: NDArray[np.bool_]  # the LED's light settled over it
    on_at: float  # the LED lights (the chain's latch)
    off_at: float  # it goes dark
    total: float  # the reading, first conversion to last


def timeline(scheme: Scheme = Scheme(), o: OpticsParams = OPTICS) -> Timeline:
    """When each conversion runs. The LED changes a chain's frame after it is asked (asked as
    a conversion starts); conversions while the detector settles are dropped."""
    tc, frame, settle = o.conversion_s, o.frame_s, o.settle_s
    dark1 = np.arange(scheme.dark) * tc
    on_at = scheme.dark * tc + frame
    first_lit = math.ceil((on_at + settle) / tc)
    lit = (first_lit + np.arange(scheme.lit)) * tc
    off_at = float(lit[-1]) + tc + frame
    first_dark = math.ceil((off_at + settle) / tc)
    dark2 = (first_dark + np.arange(scheme.dark)) * tc
    starts = np.concatenate([dark1, lit, dark2])
    flags = np.concatenate([np.zeros(scheme.dark, bool), np.ones(scheme.lit, bool),
                            np.zeros(scheme.dark, bool)])  # fmt: skip
    return Timeline(starts, flags, on_at, off_at, float(dark2[-1]) + tc)


def weights(hz: float, scheme: Scheme = Scheme(), o: OpticsParams = OPTICS) -> Array:
    """The reading as a weighted sum of its conversions: the lit ones' mean less the room's
    light the dark ones' fit predicts under them (a quadratic and ``harmonics`` of ``hz``)."""
    tl = timeline(scheme, o)
    t = tl.starts + o.conversion_s / 2
    centre = float(t.mean())

    def basis(times: Array) -> Array:
        s = times - centre
        cols = [np.ones_like(s), s / 0.01, (s / 0.01) ** 2]
        for k in range(1, scheme.harmonics + 1):
            cols += [np.cos(2 * math.pi * k * hz * s), np.sin(2 * math.pi * k * hz * s)]
        return np.stack(cols, 1)

    dark, lit = ~tl.lit, tl.lit
    predict = basis(t[lit]) @ np.linalg.pinv(basis(t[dark]))  # lit x dark
    w = np.zeros(len(t))
    w[lit] = 1.0 / lit.sum()
    w[dark] = -predict.mean(axis=0)
    return w


def _converted(signal: Array, fine: Array, starts: Array, tc: float) -> Array:
    """Each conversion's mean of ``signal`` (sampled at ``fine``) over its ``tc``."""
    out = np.empty(len(starts))
    for i, s in enumerate(starts):
        inside = (fine >= s) & (fine < s + tc)
        out[i] = signal[inside].mean()
    return out


def flicker(hz: float, phase: float, fine: Array, depth: float) -> Array:
    """A lamp's light over time, its mean 1: a full-wave rectified sine (the mains at hz/2)
    ``depth`` deep."""
    wave = (math.pi / 2) * np.abs(np.sin(math.pi * hz * fine + phase))
    return np.asarray((1 - depth) + depth * wave, dtype=np.float64)


@dataclass(frozen=True, slots=True)
class Cancelled:
    """What the reading keeps of unit signals: the LED's (its settling included), and the
    worst of a unit room light's flicker over its phases and both mains."""

    led: float
    flicker: float
    steady: float  # a steady room light (cancelled exactly, to rounding)
    ramp: float  # a room light sliding from 1 to 0 over the reading (a hand's shadow)
    noise: float  # the conversions' noise the weights carry: RMS per code of noise


def cancelled(scheme: Scheme = Scheme(), o: OpticsParams = OPTICS,
              phases: int = 24) -> Cancelled:  # fmt: skip
    tl = timeline(scheme, o)
    tc = o.conversion_s
    fine = np.arange(0.0, tl.total + tc, tc / 64)
    tau = o.settle_s / 5
    rise = np.where(fine >= tl.on_at, 1 - np.exp(-(fine - tl.on_at) / tau), 0.0)
    fall = np.where(fine >= tl.off_at, np.exp(-(fine - tl.off_at) / tau), 1.0)
    led_wave = rise * fall
    worst_flicker = 0.0
    noise = 0.0
    for hz in o.ripple_hz:
        w = weights(hz, scheme, o)
        noise = max(noise, float(np.linalg.norm(w)))
        for k in range(phases):
            room = flicker(hz, math.pi * k / phases, fine, o.ripple_depth)
            worst_flicker = max(worst_flicker, abs(float(w @ _converted(room, fine, tl.starts,
                                                                        tc))))  # fmt: skip
    w = weights(o.ripple_hz[0], scheme, o)
    led = float(w @ _converted(led_wave, fine, tl.starts, tc))
    steady = abs(float(w @ _converted(np.ones_like(fine), fine, tl.starts, tc)))
    ramp = abs(float(w @ _converted(1 - fine / tl.total, fine, tl.starts, tc)))
    return Cancelled(led, worst_flicker, steady, ramp, noise)


# --- the electronics -----------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Part:
    """One square's detector and LED, somewhere in their spread."""

    ua_per_lux: float
    led_cd: float


def parts(o: OpticsParams = OPTICS) -> list[Part]:
    """The corners of the spread: the weakest and strongest detector with the dimmest and
    brightest LED."""
    return [Part(o.pt_ua_per_lux * (1 + s * o.pt_spread), o.led_red_cd * (1 + s2 * o.led_spread))
            for s in (-1, 1) for s2 in (-1, 1)]  # fmt: skip


def ceiling(o: OpticsParams = OPTICS) -> float:
    """The output's top (V): the phototransistor saturates a V_CE(sat) under VCC."""
    return o.vcc - o.pt_vce_sat


def room_ua(lit: Lit, room: Room, part: Part, o: OpticsParams = OPTICS) -> float:
    """The room's mean photocurrent (uA) at the detector: through the windows (Mitsuba) and
    through the floor (``floor_transmittance`` of all of it, the unkind bound), with the
    detector's dark current."""
    beam = lit.light.sun if room.beam else 0.0
    at_die = (lit.light.sky + beam + o.floor_transmittance) * room.lux
    factor = o.pt_daylight_factor if room.daylight else 1.0
    return at_die * factor * part.ua_per_lux + o.pt_dark_ua


def led_ua(lit: Lit, part: Part, o: OpticsParams = OPTICS) -> float:
    return lit.light.led * part.led_cd * o.pt_red_factor * part.ua_per_lux


def pga_range(volts: float, o: OpticsParams = OPTICS) -> float | None:
    """The smallest ADS1115 range holding ``volts`` with a tenth to spare (None: none does,
    or the detector's output is at its ceiling: too bright)."""
    if volts >= TOO_BRIGHT * ceiling(o):
        return None
    fits = [r for r in o.pga_ranges if volts <= 0.9 * r]
    return min(fits) if fits else None


@dataclass(frozen=True, slots=True)
class Reading:
    """One reading: the LED's light (mV at the load, lit less dark) and the most that noise
    and the room leave on it (mV, at their peak); ``mv`` None: too bright to read."""

    mv: float | None
    error_mv: float


def reading(lit: Lit, room: Room, part: Part, c: Cancelled,
            o: OpticsParams = OPTICS) -> Reading:  # fmt: skip
    """The reading, its error at the peak, or too bright: the lit conversions at the room's
    crest (its flicker's peak) and the LED's light must stay under the output's ceiling."""
    depth = o.ripple_depth if room.flickers else 0.0
    room_v = room_ua(lit, room, part, o) * 1e-6 * o.load_ohm
    led_v = led_ua(lit, part, o) * 1e-6 * o.load_ohm
    crest = room_v * ((1 - depth) + depth * math.pi / 2)
    rng = pga_range(crest + led_v, o)
    if rng is None:
        return Reading(None, 0.0)
    lsb = 2 * rng / 2**16
    noise = o.noise_peak * o.adc_noise_codes * lsb * c.noise
    # the photocurrent's shot noise over the conversion's band, through the same weights
    current = (room_v + led_v) / o.load_ohm
    shot = o.noise_peak * math.sqrt(2 * 1.602e-19 * current * o.adc_sps / 2) * o.load_ohm * c.noise
    # what the fit leaves of the flicker scales with its depth (``c`` is at ``ripple_depth``)
    flicker_left = c.flicker * depth / o.ripple_depth if depth else 0.0
    left = room_v * (flicker_left + c.steady)
    return Reading(led_v * c.led * 1e3, (noise + shot + left) * 1e3)


# --- the margins ---------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Margin:
    """White against black, for one kind of marble under one room light, over every pose
    and every corner of the parts' spread: the least white reading less its error over the
    most black one plus its error (None: some reading is too bright)."""

    marbles: str
    room: str
    ratio: float | None
    white_mv: float  # the least white reading (mV), at the weakest parts
    black_mv: float  # the most black reading
    error_mv: float  # the largest error either carries
    too_bright: int  # readings of the survey too bright to read, of ``readings``
    readings: int


def margin(lits: Sequence[Lit], marbles: str, room: Room, c: Cancelled,
           o: OpticsParams = OPTICS) -> Margin:  # fmt: skip
    white, black = MARBLES[marbles]
    worst: Margin | None = None
    bright = count = 0
    for part in parts(o):
        w = [reading(x, room, part, c, o) for x in lits if x.material == white.name]
        b = [reading(x, room, part, c, o) for x in lits if x.material == black.name]
        count += len(w) + len(b)
        bright += sum(r.mv is None for r in w + b)
        if any(r.mv is None for r in w + b):
            continue
        low = min((r.mv or 0.0) - r.error_mv for r in w)
        high = max((r.mv or 0.0) + r.error_mv for r in b)
        lowest = min(r.mv or 0.0 for r in w)
        highest = max(r.mv or 0.0 for r in b)
        error = max(r.error_mv for r in w + b)
        here = Margin(marbles, room.name, low / max(high, 1e-12), lowest, highest, error, 0, 0)
        if worst is None or (here.ratio or 0.0) < (worst.ratio or 0.0):
            worst = here
    if worst is None:
        return Margin(marbles, room.name, None, 0.0, 0.0, 0.0, bright, count)
    ratio = None if bright else worst.ratio
    return Margin(marbles, room.name, ratio, worst.white_mv, worst.black_mv, worst.error_mv,
                  bright, count)  # fmt: skip


def margins(lits: Sequence[Lit], c: Cancelled, o: OpticsParams = OPTICS,
            rooms: Sequence[Room] = ROOMS) -> list[Margin]:  # fmt: skip
    return [margin(lits, kind, room, c, o) for room in rooms for kind in MARBLES]


def pose_ratio(lits: Sequence[Lit], marbles: str) -> tuple[float, Pose, Pose]:
    """The worst white/black ratio of the light alone over the seat's range (no noise, no
    room): the dimmest white pose's over the brightest black pose's, and those poses."""
    white, black = MARBLES[marbles]
    w = min((x for x in lits if x.material == white.name), key=lambda x: x.light.led)
    b = max((x for x in lits if x.material == black.name), key=lambda x: x.light.led)
    return w.light.led / b.light.led, w.pose, b.pose


def too_bright_from(lits: Sequence[Lit], c: Cancelled, daylight: bool = True,
                    o: OpticsParams = OPTICS) -> float:  # fmt: skip
    """The least room light (lux, daylight or lamps) at which some marble's reading, in some
    pose at some corner of the parts' spread, is too bright."""

    def bright(lux: float) -> bool:
        room = Room("", lux, daylight, not daylight)
        marbles = [x for x in lits if x.material != "empty"]
        return any(reading(x, room, q, c, o).mv is None for x in marbles for q in parts(o))

    low, high = 0.0, 1e7
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (low, mid) if bright(mid) else (mid, high)
    return high


def floor_limit(lits: Sequence[Lit], c: Cancelled, o: OpticsParams = OPTICS) -> float:
    """The most of the room's light the floor may let through to the detector before a
    room light the reading holds in (3x, nothing too bright) with a floor letting nothing
    through no longer holds."""
    from dataclasses import replace

    def held(t: float) -> set[tuple[str, str]]:
        q = replace(o, floor_transmittance=t)
        return {(m.room, m.marbles) for m in margins(lits, c, q)
                if m.ratio is not None and m.ratio >= NEED}  # fmt: skip

    need = held(0.0)

    def holds(t: float) -> bool:
        return need <= held(t)

    low, high = 0.0, 1.0
    if holds(high):
        return high
    for _ in range(40):
        mid = math.sqrt(max(low, 1e-12) * high)
        low, high = (mid, high) if holds(mid) else (low, mid)
    return low


# --- what the eye gets ---------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Flash:
    """The reading as the eye sees it: the LED red at full for ``lit_s``, dark for the rest
    of ``reading_s``; over the eye's integration time the red looks like a steady light of
    ``red_cd`` (its share of the LED's full red ``red_share``), and a lit square's display
    dims to ``display_share`` of itself for an instant."""

    lit_s: float
    reading_s: float
    red_cd: float
    red_share: float
    display_share: float


def flash(scheme: Scheme = Scheme(), o: OpticsParams = OPTICS) -> Flash:
    tl = timeline(scheme, o)
    lit = tl.off_at - tl.on_at
    top = o.led_red_cd * (1 + o.led_spread)
    window = max(o.eye_integration_s, tl.total)
    dark = tl.total - lit
    return Flash(lit, tl.total, top * lit / o.eye_integration_s, lit / o.eye_integration_s,
                 max(0.0, 1 - dark / window))  # fmt: skip


# --- the figures' table, for the simulated board --------------------------------------------
@dataclass(frozen=True, slots=True)
class Row:
    """One room light, one marble (or empty): its readings (mV) at a typical square over
    the seat's poses, the parts' spread (a square's readings are the typical ones times
    ``scale_low`` to ``scale_high``), the most error noise and the room leave (at the peak),
    the share of readings, over poses and parts, that are too bright, and the room's own
    light at the load (a reading whose room and LED light pass ``too_bright_v`` saturates)."""

    room: str
    lux: float
    marble: str
    low_mv: float | None
    high_mv: float | None
    scale_low: float
    scale_high: float
    noise_mv: float
    too_bright: float
    room_mv: float  # the room's light at the load under the lit conversions, at most (mV)


def table(lits: Sequence[Lit], c: Cancelled, o: OpticsParams = OPTICS) -> list[Row]:
    typical = Part(o.pt_ua_per_lux, o.led_red_cd)
    low = (1 - o.pt_spread) * (1 - o.led_spread)
    high = (1 + o.pt_spread) * (1 + o.led_spread)
    rows = []
    for room in ROOMS:
        for name in sorted({x.material for x in lits}):
            mine = [x for x in lits if x.material == name]
            got = [reading(x, room, typical, c, o) for x in mine]
            at_all = [reading(x, room, q, c, o) for x in mine for q in parts(o)]
            mv = [r.mv for r in got if r.mv is not None]
            rows.append(Row(room.name, room.lux, name, min(mv, default=None),
                            max(mv, default=None), round(low, 3), round(high, 3),
                            max((r.error_mv for r in at_all), default=0.0),
                            sum(r.mv is None for r in at_all) / len(at_all),
                            max(room_ua(x, room, typical, o) for x in mine) * o.load_ohm
                            * 1e-3))  # fmt: skip
    return rows


@dataclass(frozen=True, slots=True)
class Figures:
    """Everything ``benchmarks/optics.py`` prints and the table keeps."""

    spp: int
    poses: int
    render_s: float  # one model reading (one pose's render)
    cancelled: Cancelled
    flash: Flash
    margins: list[Margin]
    pose_ratio: dict[str, float]
    floor_limit: float
    too_bright_daylight: float  # lux of daylight from which some marble reads too bright
    too_bright_lamps: float  # and of flickering lamps
    rows: list[Row] = field(default_factory=list)


def figures(spp: int, n_offsets: int = 8, seed: int = 1, scheme: Scheme = Scheme(),
            o: OpticsParams = OPTICS, p: Params = PARAMS) -> tuple[Figures, list[Lit]]:  # fmt: skip
    where = poses(n_offsets, p)
    materials: list[Material | None] = [None, *(m for pair in MARBLES.values() for m in pair)]
    start = time.perf_counter()
    render(materials[1], (where[0].dx, where[0].dy, where[0].height), spp, seed, o, p)
    one = time.perf_counter() - start
    lits = survey(materials, where, spp, seed, o, p)
    c = cancelled(scheme, o)
    ratios = {kind: pose_ratio(lits, kind)[0] for kind in MARBLES}
    fig = Figures(spp, len(where), one, c, flash(scheme, o), margins(lits, c, o), ratios,
                  floor_limit(lits, c, o), too_bright_from(lits, c, True, o),
                  too_bright_from(lits, c, False, o), table(lits, c, o))  # fmt: skip
    return fig, lits


def write_table(fig: Figures, path: Path = TABLE, o: OpticsParams = OPTICS) -> None:
    """The model's output for the simulated board: its readings per room light and marble,
    with the timing and the margins they come with."""
    data = {
        "about": "issue 44's optical model (hardware/orbito_cad/models/optics.py): each "
        "square's reading (mV at the detector's load, LED lit less dark) per room light and "
        "marble, low to high over the seat's poses at a typical square; scale_low, scale_high: "
        "a square's parts scale it between them; noise_mv: the most noise and room light leave "
        "on a reading (peak); too_bright: the share of readings that saturate; room_mv: the "
        "room's light at the load (a reading saturates when it and the LED's pass "
        "too_bright_v at the flicker's crest). "
        "Written by python benchmarks/optics.py.",
        "spp": fig.spp,
        "poses": fig.poses,
        "reading_s": round(fig.flash.reading_s, 4),
        "lit_s": round(fig.flash.lit_s, 4),
        "too_bright_v": round(TOO_BRIGHT * ceiling(o), 4),
        "rows": [_rounded(asdict(r)) for r in fig.rows],
        "margins": [_rounded(asdict(m)) for m in fig.margins],
        "too_bright_from_lux": {
            "daylight": round(fig.too_bright_daylight),
            "lamps": round(fig.too_bright_lamps),
        },
    }
    path.write_text(json.dumps(data, indent=1) + "\n")


def _rounded(d: dict[str, object]) -> dict[str, object]:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in d.items()}


def read_table(path: Path = TABLE) -> dict[str, object]:
    data: dict[str, object] = json.loads(path.read_text())
    return data
