"""Turns as small value objects with SPEC.md's notation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from orbito_hw.errors import NotationError, echo
from orbito_hw.lang import R_
from orbito_hw.rules.squares import BB_ADJACENT, Square, parse_square, square_name

_TOKEN = re.compile(r"([a-d][1-4])(?:-([a-d][1-4]):([a-d][1-4]))?")
NOT_A_TURN = R_("{token} is not a turn")
"""The seat's page's own refusal (web/static/seat_rules.js), said in the page's language."""
MALFORMED = R_(
    "malformed turn {token}: expected a placement like a2, a move and placement like c1-c2:a2, "
    "or * for an extra press"
)
# A token shaped like a turn (squares joined by - and :) whose one part is wrong: that part named.
_SHAPED = re.compile(r"[a-z]?\d*(?:[-:][a-z]?\d*)*")
_PART = re.compile(r"([a-z]?)(\d*)")
BAD_FILE = R_("{token}: in {part}, {file} is not a column of the board (a to d)")
BAD_RANK = R_("{token}: in {part}, {rank} is not a row of the board (1 to 4)")
NO_FILE = R_("{token}: {part} has no column (a to d) before its row")
NO_RANK = R_("{token}: {part} has no row (1 to 4) after its column")
MOVE_WITHOUT_PLACE = R_(
    "{token}: a move is followed by where the marble is placed, like {token}:a2"
)
PLACE_WITHOUT_MOVE = R_("{token}: a colon comes after a move (c1-c2:a2), not after a placement")


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
            raise NotationError(token, why_malformed(token))
        first, to, place = m.groups()
        if to is None:
            return cls(parse_square(first))
        return cls(parse_square(place), parse_square(first), parse_square(to))

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Turn.from_notation({self.notation()!r})"


EXTRA_PRESS = Turn(None)


def why_malformed(token: str) -> str:
    """Why ``token`` is not a turn, in English (R_ templates, reworded where a person reads
    them): the part that is wrong and why (``a5``: 5 is not a row; ``c1-c2``: a move needs
    its placement), or the forms a turn takes when it is not shaped like one at all."""
    said = echo(token)
    if token and token.lower() == token and _SHAPED.fullmatch(token):
        parts = re.split(r"[-:]", token)
        for part in parts:
            if not part or len(parts) > 3:
                return MALFORMED.format(token=said)
            m = _PART.fullmatch(part)
            assert m is not None  # _SHAPED made every part so
            file, rank = m.groups()
            if not file:
                return NO_FILE.format(token=said, part=part)
            if not rank:
                return NO_RANK.format(token=said, part=part)
            if file not in "abcd":
                return BAD_FILE.format(token=said, part=part, file=file)
            if rank not in ("1", "2", "3", "4"):
                return BAD_RANK.format(token=said, part=part, rank=rank)
        seps = re.sub(r"[^-:]", "", token)
        if seps == "-":
            return MOVE_WITHOUT_PLACE.format(token=token)
        if seps == ":":
            return PLACE_WITHOUT_MOVE.format(token=said)
    return MALFORMED.format(token=said)
