"""The board-script language of SPEC.md: what hands and power do to the simulated board.

A script arrives as bytes from a file or a pipe: each line is decoded here as strict UTF-8
(a byte-order mark at the very start is skipped), so a line that is not UTF-8 is refused by
its number instead of guessed at or crashing the reader. Numbers are ASCII decimals only.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from orbito_hw.errors import OrbitoError, echo
from orbito_hw.lang import R_
from orbito_hw.rules.game import NOT_A_COLOUR, Colour
from orbito_hw.rules.squares import NOT_A_SQUARE, is_square_name, parse_square, square_name
from orbito_hw.solver.opponents import parse_level

COMMANDS = (
    "lift",
    "put",
    "press",
    "hold",
    "wait",
    "bounce",
    "slip",
    "power-cut",
    "reset",
    "opponent",
    "hints",
    "setup",
)
MAX_SECONDS = 3600.0
# A script's (and the prompt's) refusals, in English (a script file's errors name its line
# in them); marked R_ so that the prompt says them in the person's language (lang.reworded).
UNKNOWN = R_("unknown command {word} (commands: {commands})")
HINTS_ON_OFF = R_("hints {word}: expected on or off")
SETUP_TAKES = R_("setup takes the first player (black or white) and a game record")
SETUP_FAULT = R_("setup: {reason}")
NOT_SECONDS = R_("{word} is not a number of seconds (like 2 or 0.5)")
SECONDS_RANGE = R_("{word} seconds is out of range (0 to {most})")
NOT_STEPS = R_("{word} is not a number of steps (a whole number 0 to {most})")
TAKES = R_("{name} takes {what}, got {got}")
TAKES_GOT_NOTHING = R_("{name} takes {what}, got nothing")
A_SQUARE = R_("a square")
A_SQUARE_AND_COLOUR = R_("a square and maybe a colour")
NOTHING = R_("nothing")
SECONDS = R_("a number of seconds")
STEPS = R_("a number of motor steps")
LEVEL_AND_COLOUR = R_("a level and a colour, or none")
ON_OFF = R_("on or off")
BLACK_OR_WHITE = R_("black or white")
MAX_SLIP = 100_000
MAX_SCRIPT_BYTES = 8 << 20  # some 10,000 games; what is read of a script file, at most
BOM = "\ufeff"  # a UTF-8 byte-order mark, which some editors put at the start of a file
# Plain decimals as a person types them, or as Command.text() writes them ("1e-05"); not
# float()'s "nan", "1_000" or digits of other scripts.
_SECONDS = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]{1,3})?")
_STEPS = re.compile(r"[0-9]{1,6}")  # MAX_SLIP has 6 digits


class ScriptError(OrbitoError, ValueError):
    """A board script that cannot be run, naming the file and line."""


@dataclass(frozen=True, slots=True)
class Command:
    name: str
    line: int = 0
    square: int | None = None
    colour: Colour | None = None
    seconds: float = 0.0
    steps: int = 0
    level: str | None = None  # opponent: the level's name; None (with no colour): nobody
    on: bool = False  # hints: on or off
    moves: tuple[str, ...] = ()  # setup: the record whose position is set up

    def text(self) -> str:
        parts = [self.name]
        if self.name == "opponent":
            parts.append(self.level or "none")
        if self.name == "hints":
            parts.append("on" if self.on else "off")
        if self.square is not None:
            parts.append(square_name(self.square))
        if self.colour is not None:
            parts.append(self.colour.value)
        parts += self.moves
        if self.name in ("hold", "wait"):
            parts.append(f"{self.seconds:g}")
        if self.name == "slip":
            parts.append(str(self.steps))
        return " ".join(parts)


def parse_line(text: str, line: int = 0) -> Command | None:
    """One line of a board script; None for a blank or comment line. ValueError on a bad one."""
    words = text.split("#", 1)[0].split()
    if not words:
        return None
    name, args = words[0], words[1:]
    if name not in COMMANDS:
        raise ValueError(UNKNOWN.format(word=echo(name), commands=", ".join(COMMANDS)))
    if name in ("lift", "bounce"):
        _arity(name, args, 1, 1, A_SQUARE)
        return Command(name, line, square=_square(args[0]))
    if name == "put":
        _arity(name, args, 1, 2, A_SQUARE_AND_COLOUR)
        colour = _colour(args[1]) if len(args) == 2 else None
        return Command(name, line, square=_square(args[0]), colour=colour)
    if name in ("press", "power-cut"):
        _arity(name, args, 0, 0, NOTHING)
        return Command(name, line)
    if name in ("hold", "wait"):
        _arity(name, args, 1, 1, SECONDS)
        return Command(name, line, seconds=_seconds(args[0]))
    if name == "slip":
        _arity(name, args, 1, 1, STEPS)
        return Command(name, line, steps=parse_steps(args[0]))
    if name == "opponent":
        if args == ["none"]:
            return Command(name, line)
        _arity(name, args, 2, 2, LEVEL_AND_COLOUR)
        return Command(name, line, colour=_colour(args[1]), level=parse_level(args[0]).name)
    if name == "hints":
        _arity(name, args, 1, 1, ON_OFF)
        if args[0] not in ("on", "off"):
            raise ValueError(HINTS_ON_OFF.format(word=echo(args[0])))
        return Command(name, line, on=args[0] == "on")
    if name == "setup":
        return _setup(line, args)
    _arity(name, args, 1, 1, BLACK_OR_WHITE)
    return Command(name, line, colour=_colour(args[0]))


def _setup(line: int, args: list[str]) -> Command:
    """``setup COLOUR TOKENS...``: the record is checked here, so a bad one stops the script
    before it runs, by its line, as any bad command does."""
    from orbito_hw.control.setup import SetupError, check_record

    if not args:
        raise ValueError(SETUP_TAKES)
    colour, moves = _colour(args[0]), tuple(args[1:])
    try:
        check_record(colour, moves)
    except SetupError as exc:
        raise ValueError(SETUP_FAULT.format(reason=exc)) from None
    return Command("setup", line, colour=colour, moves=moves)


def decode_line(raw: bytes) -> str:
    """One line of input as strict UTF-8; ValueError naming the first byte that is not."""
    try:
        return raw.decode("utf-8")  # strict on purpose: refuse, never guess
    except UnicodeDecodeError as exc:
        raise ValueError(
            f"not UTF-8 text (byte {exc.start + 1} of the line is 0x{raw[exc.start]:02x})"
        ) from None


def parse_script(text: str | bytes, source: str = "<script>") -> list[Command]:
    """Every command of a script, as text or as the bytes of a file; ScriptError naming
    ``source`` and the line otherwise."""
    commands = []
    for number, line in enumerate(_lines_of(text), 1):
        try:
            command = parse_line(_text_of(line), number)
        except ValueError as exc:
            raise ScriptError(f"{source}:{number}: {exc}") from None
        if command is not None:
            commands.append(command)
    return commands


def _lines_of(text: str | bytes) -> Sequence[str | bytes]:
    """The lines, a byte-order mark at the start skipped (some editors write one)."""
    if isinstance(text, bytes):
        return text.removeprefix(BOM.encode()).splitlines()
    return text.removeprefix(BOM).splitlines()


def _text_of(line: str | bytes) -> str:
    return decode_line(line) if isinstance(line, bytes) else line


def _arity(name: str, args: list[str], least: int, most: int, what: str) -> None:
    if not least <= len(args) <= most:
        if not args:
            raise ValueError(TAKES_GOT_NOTHING.format(name=name, what=what))
        raise ValueError(TAKES.format(name=name, what=what, got=echo(" ".join(args))))


def _square(word: str) -> int:
    if not is_square_name(word):
        raise ValueError(NOT_A_SQUARE.format(word=echo(word)))
    return parse_square(word)


def _colour(word: str) -> Colour:
    if word not in ("black", "white"):
        raise ValueError(NOT_A_COLOUR.format(text=echo(word)))
    return Colour(word)


def _seconds(word: str) -> float:
    if not _SECONDS.fullmatch(word):
        raise ValueError(NOT_SECONDS.format(word=echo(word)))
    value = float(word)
    if not value <= MAX_SECONDS:
        raise ValueError(SECONDS_RANGE.format(word=echo(word), most=f"{MAX_SECONDS:g}"))
    return value


def parse_steps(word: str) -> int:
    """A number of motor steps lost (``slip``, and the doctor's ``--fault slip:N``).
    ValueError naming the word."""
    # ASCII digits only: str.isdigit() takes "²", which int() then refuses in its own words.
    if not _STEPS.fullmatch(word) or int(word) > MAX_SLIP:
        raise ValueError(NOT_STEPS.format(word=echo(word), most=MAX_SLIP))
    return int(word)
