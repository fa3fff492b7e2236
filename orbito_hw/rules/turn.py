"""Turns as small value objects with SPEC.md's notation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbito_hw.errors import NotationError, echo
from orbito_hw.rules.squares import BB_ADJACENT, Square, parse_square, square_name

_TOKEN = re.compile(r"([a-d][1-4])(?:-([a-d][1-4]):([a-d][1-4]))?")
_FORMS = "expected a placement like a2, a move and placement like c1-c2:a2, or * for an extra press"


@dataclass(frozen=True, slots=True)
class Turn:
    """One turn: an optional opponent move, a placement; or, with a full board, a bare press.

    ``place`` is None only for an extra press (``*``).
    """

    place: Square | None
    move_from: Square | None = None
    move_to: Square | None = None

    def __post_init__(self) -> None:
        if (self.move_from is None) != (self.move_to is None):
            raise ValueError("a move needs both move_from and move_to")
        if self.place is None and self.move_from is not None:
            raise ValueError("an extra press cannot move a marble")

    @classmethod
    def placing(cls, square: Square) -> Turn:
        return cls(square)

    @classmethod
    def moving(cls, move_from: Square, move_to: Square, place: Square) -> Turn:
        return cls(place, move_from, move_to)

    @property
    def is_extra_press(self) -> bool:
        return self.place is None

    @property
    def has_move(self) -> bool:
        return self.move_from is not None

    @property
    def is_orthogonal_step(self) -> bool:
        """Whether the move (if any) goes to an orthogonally adjacent square."""
        if self.move_from is None or self.move_to is None:
            return True
        return bool(BB_ADJACENT[self.move_from] >> self.move_to & 1)

    def notation(self) -> str:
        if self.place is None:
            return "*"
        if self.move_from is None or self.move_to is None:
            return square_name(self.place)
        return (
            f"{square_name(self.move_from)}-{square_name(self.move_to)}:{square_name(self.place)}"
        )

    @classmethod
    def from_notation(cls, token: str) -> Turn:
        """Parse ``a2``, ``c1-c2:a2`` or ``*``; NotationError naming the token otherwise."""
        if token == "*":
            return cls(None)
        m = _TOKEN.fullmatch(token)
        if m is None:
            raise NotationError(token, f"malformed turn {echo(token)}: {_FORMS}")
        first, to, place = m.groups()
        if to is None:
            return cls(parse_square(first))
        return cls(parse_square(place), parse_square(first), parse_square(to))

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Turn.from_notation({self.notation()!r})"


EXTRA_PRESS = Turn(None)
