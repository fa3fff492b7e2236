"""The mechanism over a printer's errors: every fit that matters at the corners of what a tuned
FDM printer makes of it, each moved forwards and back through the one physics model.

The fits (``physics_model.Errors``) round the board as the maker builds it
(``physics_model.calibrated``):

- a finger in its hole and the crank's collar in its yoke: the fit the maker sets from the
  tolerance test, which reads it to within half its step (``fit_step``): the play printed
  that much larger or smaller ("loose" and "tight"). A printer's error on holes and pins
  (+-0.15 mm) is what the test takes out; left in, no fit holds: the loose end leaves the cups
  0.3-0.7 mm off, the tight one jams (issue 45's first sweep, ``mechanics.md``);
- the cup in its channel: each wall +-0.1 mm and the cup +-0.15 mm, the worst together
  ("wide" and "narrow"); the bar on its ramp (+-0.1 mm: "high" and "low") and the gears'
  centre distance (+-0.1 mm: "far", more backlash, and "near"): a printer's full errors.

A corner is one of each, 16 in all. ``BOUNDS`` are issue 45's: every cup within 0.3 mm and
1 deg of its square, none lifted over 0.2 mm, the motor within half its pull-out torque.
"""

from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass

from orbito_cad.board.params import PARAMS, Params
from orbito_cad.models import physics
from orbito_cad.models.physics_model import Errors, calibrated

HOLES_PINS = 0.15  # mm: a tuned FDM printer's holes and pins (the cups), either way
WALLS = 0.1  # mm: its walls
SHIFT, TURN = 0.3, 2.0  # mm and deg: how far off their squares the cups and marbles start


@dataclass(frozen=True)
class Bounds:
    """What a place must hold (issue 45)."""

    offset: float = 0.3  # mm: a cup from its square's centre, once stopped
    turn: float = 1.0  # deg: a cup turned from square
    lift: float = 0.2  # mm: a cup's bottom off the floor, ever
    marble: float = 1.0  # mm: a marble from its seat's centre (out of it beyond)
    torque_share: float = 0.5  # of the motor's pull-out torque at that speed: 2x margin


BOUNDS = Bounds()


def broken(r: physics.PlaceReport, b: Bounds = BOUNDS) -> list[str]:
    """The bounds a place's report breaks, named with its figure (none: it holds)."""
    out = [f"missed {','.join(sorted(set(r.missed)))}"] if r.missed else []
    for name, got, most, unit in (
        ("offset", r.cup_offset, b.offset, "mm"),
        ("turn", r.cup_turn, b.turn, "deg"),
        ("lift", r.lifted, b.lift, "mm"),
        ("marble", r.marble_offset, b.marble, "mm"),
        ("torque", r.torque_share, b.torque_share, "x pull-out"),
    ):
        if got > most:
            out.append(f"{name} {got:.2f} {unit} > {most:g}")
    return out


@dataclass(frozen=True)
class Corner:
    name: str
    errors: Errors


def corners(p: Params = PARAMS) -> list[Corner]:
    """The 16 corners of the fits round the board as built, each named by its four choices."""
    out = []
    fits = {"loose": p.fit_step / 2, "tight": -p.fit_step / 2}
    channel = {"wide": (-WALLS, -HOLES_PINS), "narrow": (WALLS, HOLES_PINS)}
    ramp = {"high": WALLS, "low": -WALLS}
    centre = {"far": WALLS, "near": -WALLS}
    for f, c, r, g in itertools.product(fits, channel, ramp, centre):
        wall, cup = channel[c]
        errors = dataclasses.replace(calibrated(p, fits[f]), wall=wall, cup=cup, ramp=ramp[r],
                                     centre=centre[g])  # fmt: skip
        out.append(Corner(f"{f} fit, {c} channel, {r} ramp, {g} gears", errors))
    return out


@dataclass
class CornerRun:
    """One corner at one friction: its places forward, then as many back."""

    corner: Corner
    mu: float
    forward: physics.PlaceReport
    back: physics.PlaceReport


def run(corner: Corner, mu: float, places: int = 1, seed: int = 0,
        p: Params = PARAMS) -> CornerRun:  # fmt: skip
    """``places`` places forward from a scattered start, then as many back (take-backs)."""
    board = physics.Board(p, mu=mu, seed=seed, errors=corner.errors)
    board.scatter(SHIFT, TURN)
    ways = {1: physics.PlaceReport(), -1: physics.PlaceReport()}
    for way in [1] * places + [-1] * places:
        ways[way].merge(board.move(way))
    return CornerRun(corner, mu, ways[1], ways[-1])
