"""Error classes by cause, in one tree. Each message names the input and why it was refused.

Every error orbito-hw raises on purpose derives from :class:`OrbitoError`, so a command
catches the base once and reports it as one line (``orbito-hw: MESSAGE``, exit 2). Below
the base, the cause decides the second parent:

- bad input (a turn, a square, a game record, a config file): ``ValueError``;
- the board's hardware or the OS under it (a part that cannot be opened, a lost link):
  ``OSError``, through :class:`HardwareError`;
- a bug (a state change the referee's machine does not allow): ``RuntimeError``.

Every class's name ends in ``Error`` and no two share one (hw/gpio.py's ``PinOpenError`` is
not gpiozero's ``PinError``); each is also the builtin its cause matches, as gpiozero's are
(``tests/test_errors.py``). Errors that only one module raises live in it, deriving from
these (``LinkError`` in ``hw/serial_link.py``, ``SolutionError`` in ``solver/table.py``...);
the ones that cross layers live here, where every layer may import them.
"""

from __future__ import annotations

import os
from typing import TextIO

from orbito_hw.lang import R_

ILLEGAL_TURN = R_("illegal turn {turn} in {position}: {reason}")


class OrbitoError(Exception):
    """Base of every error orbito-hw reports to a person instead of a traceback."""


# --- bad input ---------------------------------------------------------------------------
class NotationError(OrbitoError, ValueError):
    """A turn token, square or position string that does not parse."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason  # names the text itself: it is the whole message
        super().__init__(reason)


class IllegalTurnError(OrbitoError, ValueError):
    """A well-formed turn that the rules forbid in the position it was played in.

    ``squares`` are the squares at fault, so the board can light them.
    """

    def __init__(
        self, token: str, reason: str, position: str, squares: tuple[int, ...] = ()
    ) -> None:
        self.token = token
        self.reason = reason
        self.position = position
        self.squares = squares
        super().__init__(ILLEGAL_TURN.format(turn=token, position=position, reason=reason))


class ConfigError(OrbitoError, ValueError):
    """A config file, key or value that cannot be used. ``problems``: each problem of a
    file that has several, by its key (the message joins them on one line, for a log);
    ``source`` names the file."""

    def __init__(self, message: str, problems: tuple[str, ...] = (), source: str = "") -> None:
        super().__init__(message)
        self.problems = problems
        self.source = source


# --- the hardware and the OS ---------------------------------------------------------------
class HardwareError(OrbitoError, OSError):
    """A part of the board that cannot be opened or reached, named by its config key or
    port. An ``OSError``: the cause is the machine, not what was typed. ``part``: the part
    of the board it stopped from opening (``drive``, ``lights``...; hw/interfaces.py's
    ``PART_WORDS``), where the opener knows it, so that doctor names the part."""

    part: str = ""


ECHO_LIMIT = 40  # characters of a person's input quoted back in a message


def echo(text: str, limit: int = ECHO_LIMIT) -> str:
    """``text`` quoted for an error message, cut to ``limit`` characters with an ellipsis:
    a 10 MB bad token is named, not copied whole into the line that refuses it."""
    if len(text) <= limit and len(repr(text)) <= 2 * limit:
        return repr(text)
    # Escapes are long ('\x1f' is four characters, a plane-1 code point ten): the quote is
    # cut to what its repr shows in 2 * limit, so a line of control characters stays short.
    cut = text[:limit]
    while len(repr(cut)) > 2 * limit:
        cut = cut[:-1]
    return repr(cut) + f"... ({len(text)} characters)"


def shown(value: object, limit: int = ECHO_LIMIT) -> str:
    """Any value from outside (a config value, a JSON field) as ``echo`` shows text: its
    repr, cut to ``limit`` characters."""
    if isinstance(value, str):
        return echo(value, limit)
    text = repr(value)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} characters)"


def reader_gone(stream: TextIO) -> None:
    """The reader of ``stream`` has gone (``orbito-hw run --mock | head -1``): whatever is
    still written there goes nowhere, quietly, and the program ends as it would have (exit
    0), not with a BrokenPipeError. Python's own advice for a closed pipe: point the file
    descriptor at /dev/null, so the flush at exit fails no more."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):  # a StringIO, a closed stream
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(devnull, fd)
    finally:
        os.close(devnull)
