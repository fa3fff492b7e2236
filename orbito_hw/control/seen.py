"""What the squares' sensors see against what the referee expects, colours and all.

Sensors that tell colours (linear hall sensors, ``ColourSensors``) let the referee check
each marble's colour as well as its presence: a put is the colour it reads, a board that
should match matches only colour for colour (a swapped pair of marbles is a mismatch), and
a refusal names the colours seen. Presence-only sensors see no colours: every function here
then says what presence alone says, which is the referee's behaviour without colour.
"""

from __future__ import annotations

from collections.abc import Iterable

from orbito_hw.control.debounce import Debouncer
from orbito_hw.control.reading import TurnReader
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARES, Mask, Square


def put_colour(sensors: Debouncer, square: Square, present: bool) -> Colour | None:
    """The colour of the marble a put set down on ``square``; None for a lift, or sensors
    that cannot tell."""
    if not present or not sensors.colour:
        return None
    black, _ = sensors.colours()
    return Colour.BLACK if black >> square & 1 else Colour.WHITE


def resync(sensors: Debouncer, reader: TurnReader) -> Mask:
    """The rings have stopped after a restart: take the sensors' reading as settled, give
    the marbles placed this turn the colours read (where the sensors tell colours), and
    return the reading."""
    sensors.resync()
    if sensors.colour:
        reader.recolour(*sensors.colours())
    return sensors.read()


def board_off(sensors: Debouncer, black: Mask, white: Mask) -> Mask:
    """The squares where the board differs from ``black`` and ``white``: a marble missing or
    extra, or (sensors that tell colours) of the other colour."""
    off = sensors.read() ^ (black | white)
    if sensors.colour:
        seen_black, seen_white = sensors.colours()
        off |= (seen_black ^ black) | (seen_white ^ white)
    return off


def seen_at(sensors: Debouncer, squares: Iterable[Square]) -> tuple[tuple[Square, Colour], ...]:
    """The colour read on each of ``squares`` that holds a marble (none for sensors that
    cannot tell colours)."""
    if not sensors.colour:
        return ()
    black, white = sensors.colours()
    return tuple(
        (sq, Colour.BLACK if black >> sq & 1 else Colour.WHITE)
        for sq in squares
        if (black | white) >> sq & 1
    )


def wrong_colours(
    sensors: Debouncer, black: Mask, white: Mask
) -> tuple[tuple[Square, Colour], ...]:
    """The squares holding a marble of the other colour than ``black`` and ``white`` say,
    each with the colour that belongs there."""
    if not sensors.colour:
        return ()
    seen_black, seen_white = sensors.colours()
    out = [(sq, Colour.BLACK) for sq in SQUARES if (seen_white & black) >> sq & 1]
    out += [(sq, Colour.WHITE) for sq in SQUARES if (seen_black & white) >> sq & 1]
    return tuple(sorted(out))
