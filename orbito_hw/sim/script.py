"""The board-script language of SPEC.md: what hands and power do to the simulated board."""

from __future__ import annotations

from dataclasses import dataclass

from orbito_hw.errors import OrbitoError
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import is_square_name, parse_square, square_name

COMMANDS = ("lift", "put", "press", "hold", "wait", "bounce", "slip", "power-cut", "reset")
MAX_SECONDS = 3600.0
MAX_SLIP = 100_000


class ScriptError(OrbitoError):
    """A board script that cannot be run, naming the file and line."""


@dataclass(frozen=True)
class Command:
    name: str
    line: int = 0
    square: int | None = None
    colour: Colour | None = None
    seconds: float = 0.0
    steps: int = 0

    def text(self) -> str:
        parts = [self.name]
        if self.square is not None:
            parts.append(square_name(self.square))
        if self.colour is not None:
            parts.append(self.colour.value)
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
        raise ValueError(f"unknown command {name!r} (commands: {', '.join(COMMANDS)})")
    if name in ("lift", "bounce"):
        _arity(name, args, 1, 1, "a square")
        return Command(name, line, square=_square(args[0]))
    if name == "put":
        _arity(name, args, 1, 2, "a square and maybe a colour")
        colour = _colour(args[1]) if len(args) == 2 else None
        return Command(name, line, square=_square(args[0]), colour=colour)
    if name in ("press", "power-cut"):
        _arity(name, args, 0, 0, "nothing")
        return Command(name, line)
    if name in ("hold", "wait"):
        _arity(name, args, 1, 1, "a number of seconds")
        return Command(name, line, seconds=_seconds(args[0]))
    if name == "slip":
        _arity(name, args, 1, 1, "a number of motor steps")
        return Command(name, line, steps=_steps(args[0]))
    _arity(name, args, 1, 1, "black or white")
    return Command(name, line, colour=_colour(args[0]))


def parse_script(text: str, source: str = "<script>") -> list[Command]:
    """Every command of a script; ScriptError naming ``source`` and the line otherwise."""
    commands = []
    for number, line in enumerate(text.splitlines(), 1):
        try:
            command = parse_line(line, number)
        except ValueError as exc:
            raise ScriptError(f"{source}:{number}: {exc}") from None
        if command is not None:
            commands.append(command)
    return commands


def _arity(name: str, args: list[str], least: int, most: int, what: str) -> None:
    if not least <= len(args) <= most:
        raise ValueError(f"{name} takes {what}, got {' '.join(args) or 'nothing'!r}")


def _square(word: str) -> int:
    if not is_square_name(word):
        raise ValueError(f"{word!r} is not a square (a1..d4)")
    return parse_square(word)


def _colour(word: str) -> Colour:
    if word not in ("black", "white"):
        raise ValueError(f"{word!r} is not a colour (black or white)")
    return Colour(word)


def _seconds(word: str) -> float:
    try:
        value = float(word)
    except ValueError:
        raise ValueError(f"{word!r} is not a number of seconds") from None
    if not 0 <= value <= MAX_SECONDS:  # also refuses nan and inf
        raise ValueError(f"{word} seconds is out of range (0 to {MAX_SECONDS:g})")
    return value


def _steps(word: str) -> int:
    if not word.isdigit() or int(word) > MAX_SLIP:
        raise ValueError(f"{word!r} is not a number of steps (0 to {MAX_SLIP})")
    return int(word)
