"""Error classes by cause. Each message names the input and why it was refused."""

from __future__ import annotations


class OrbitoError(ValueError):
    """Base of every error orbito-hw reports to a person instead of a traceback."""


class NotationError(OrbitoError):
    """A turn token, square or position string that does not parse."""

    def __init__(self, text: str, reason: str) -> None:
        self.text = text
        self.reason = reason  # names the text itself: it is the whole message
        super().__init__(reason)


class IllegalTurnError(OrbitoError):
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
        super().__init__(f"illegal turn {token} in {position}: {reason}")


class ConfigError(OrbitoError):
    """A config file, key or value that cannot be used."""
