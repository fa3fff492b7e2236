"""Positions, legal turns, the press and results: the rules of Orbito, exactly.

Pure and standard-library only: no I/O, no clock. Everything else in orbito-hw
(the solver, the referee, the lights) asks this module what the rules say.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from enum import Enum

from orbito_hw.errors import IllegalTurnError, NotationError, OrbitoError, shown
from orbito_hw.lang import R_
from orbito_hw.rules.squares import (
    BB_ADJACENT,
    BB_ALL,
    BB_SQUARES,
    Mask,
    Square,
    has_line,
    line_names,
    lines_in,
    press,
    square_name,
    squares_of,
)
from orbito_hw.rules.turn import Turn

MARBLES_PER_PLAYER = 8
EXTRA_PRESSES = 5

# Why a turn is illegal: English data (IllegalTurnError.reason, a refusal's JSON event), each
# marked R_() so that a person reads it in their language (lang.reworded).
EXTRA_PRESS_TOO_SOON = R_("an extra press (*) needs a full board; place a marble first")
ONLY_EXTRA_PRESS = R_("the board is full: only an extra press (*) is allowed")
OWN_MARBLE = R_("{square} holds your own marble; only an opponent marble may be moved")
NOTHING_TO_MOVE = R_("{square} is empty, there is no marble to move")
NOT_A_STEP = R_("{step} is not a step to an orthogonally adjacent square")
MOVED_ONTO_A_MARBLE = R_("{square} is occupied; a marble moves only to an empty square")
PLACED_ON_A_MARBLE = R_("{square} is occupied; a marble is placed on an empty square")
COLOUR_WORDS = (R_("black"), R_("white"))
"""The colours as a reason's field says them ("{colour} has no turn to take back")."""
BAD_RECORD_TURN = R_("turn {number} ({token}): {reason}")
NOT_A_COLOUR = R_("{text} is not a colour (black or white)")


class Colour(Enum):
    BLACK = "black"
    WHITE = "white"

    @property
    def other(self) -> Colour:
        return Colour.WHITE if self is Colour.BLACK else Colour.BLACK

    @classmethod
    def parse(cls, text: str) -> Colour:
        try:
            return cls(text)
        except ValueError:
            raise NotationError(text, NOT_A_COLOUR.format(text=shown(text))) from None

    def __str__(self) -> str:
        return self.value


class Result(Enum):
    BLACK = "black"
    WHITE = "white"
    DRAW = "draw"

    @classmethod
    def won_by(cls, colour: Colour) -> Result:
        return cls(colour.value)

    @property
    def winner(self) -> Colour | None:
        return None if self is Result.DRAW else Colour(self.value)

    def __str__(self) -> str:
        return self.value


def board_string(colour_at: Callable[[Square], Colour | None]) -> str:
    """SPEC.md's position string of whatever says which colour sits on each square."""
    ranks = []
    for rank in range(3, -1, -1):
        cells = [colour_at(rank * 4 + file) for file in range(4)]
        ranks.append("".join("." if c is None else c.value[0].upper() for c in cells))
    return "/".join(ranks)


def result_after_press(black: Mask, white: Mask, full: bool, extra_presses: int) -> Result | None:
    """The result once a press has left ``black`` and ``white`` on the board."""
    black_line, white_line = has_line(black), has_line(white)
    if black_line and white_line:
        return Result.DRAW
    if black_line:
        return Result.BLACK
    if white_line:
        return Result.WHITE
    if full and extra_presses >= EXTRA_PRESSES:
        return Result.DRAW
    return None


@dataclass(frozen=True, slots=True)
class Position:
    """The board between two turns: marbles, who is to move, and how the game stands.

    ``black`` and ``white`` are masks. ``extra_presses`` counts the presses made with a
    full board. ``result`` is None while the game goes on.
    """

    black: Mask = 0
    white: Mask = 0
    to_move: Colour = Colour.BLACK
    extra_presses: int = 0
    result: Result | None = None

    @classmethod
    def start(cls, first: Colour = Colour.BLACK) -> Position:
        return cls(to_move=first)

    # --- reading the position ------------------------------------------------
    @property
    def occupied(self) -> Mask:
        return self.black | self.white

    @property
    def empty(self) -> Mask:
        return BB_ALL & ~(self.black | self.white)

    @property
    def placed(self) -> int:
        return self.occupied.bit_count()

    @property
    def is_full(self) -> bool:
        return self.occupied == BB_ALL

    @property
    def is_over(self) -> bool:
        return self.result is not None

    def marbles(self, colour: Colour) -> Mask:
        return self.black if colour is Colour.BLACK else self.white

    def colour_at(self, square: Square) -> Colour | None:
        if self.black >> square & 1:
            return Colour.BLACK
        if self.white >> square & 1:
            return Colour.WHITE
        return None

    def lines(self) -> list[Mask]:
        """Every complete line of either colour on the board."""
        return lines_in(self.black) + lines_in(self.white)

    def line_names(self) -> list[list[str]]:
        return line_names(self.lines())

    def board(self) -> str:
        """SPEC.md's position string: ranks 4 down to 1, files a to d, ``B``/``W``/``.``."""
        return board_string(self.colour_at)

    @classmethod
    def from_board(
        cls, text: str, to_move: Colour = Colour.BLACK, extra_presses: int = 0
    ) -> Position:
        """Parse a position string; the result is worked out from the lines on it."""
        ranks = text.split("/")
        if len(ranks) != 4 or any(len(r) != 4 for r in ranks):
            raise NotationError(
                text, f"malformed position {shown(text)}: expected 4 ranks of 4 of B, W or ."
            )
        black = white = 0
        for i, rank in enumerate(ranks):
            for file, cell in enumerate(rank):
                bit = BB_SQUARES[(3 - i) * 4 + file]
                if cell == "B":
                    black |= bit
                elif cell == "W":
                    white |= bit
                elif cell != ".":
                    raise NotationError(
                        text, f"malformed position {shown(text)}: {shown(cell)} is not B, W or ."
                    )
        full = black | white == BB_ALL
        if extra_presses and not full:
            raise NotationError(
                text, f"position {shown(text)} is not full, so it has no extra presses"
            )
        result = result_after_press(black, white, full, extra_presses)
        return cls(black, white, to_move, extra_presses, result)

    # --- turns ---------------------------------------------------------------
    def legal_turns(self) -> Iterator[Turn]:
        """Every legal turn, placements before moves; an extra press alone on a full board."""
        if self.result is not None:
            return
        empty = self.empty
        if not empty:
            yield Turn(None)
            return
        for place in squares_of(empty):
            yield Turn(place)
        opponent = self.marbles(self.to_move.other)
        for move_from in squares_of(opponent):
            for move_to in squares_of(BB_ADJACENT[move_from] & empty):
                after_move = empty ^ BB_SQUARES[move_to] ^ BB_SQUARES[move_from]
                for place in squares_of(after_move):
                    yield Turn(place, move_from, move_to)

    def count_legal_turns(self) -> int:
        """``len(list(self.legal_turns()))`` without making the turns."""
        if self.result is not None:
            return 0
        empty = self.empty
        if not empty:
            return 1
        opponent = self.marbles(self.to_move.other)
        moves = sum((BB_ADJACENT[s] & empty).bit_count() for s in squares_of(opponent))
        # A move keeps the number of empty squares, so every move allows as many placements.
        return empty.bit_count() * (1 + moves)

    def check(self, turn: Turn) -> None:
        """Raise IllegalTurnError naming the turn, the position and why, if ``turn`` is illegal."""
        reason, squares = self._fault(turn)
        if reason:
            raise IllegalTurnError(turn.notation(), reason, self.board(), squares)

    def is_legal(self, turn: Turn) -> bool:
        return not self._fault(turn)[0]

    def _fault(self, turn: Turn) -> tuple[str, tuple[Square, ...]]:
        """Why ``turn`` is illegal here, in English (reworded where a person reads it:
        lang.reworded), and the squares at fault; "" for a legal turn."""
        if self.result is not None:
            return _GAME_OVER[self.result], ()
        if turn.place is None:
            if not self.is_full:
                return EXTRA_PRESS_TOO_SOON, ()
            return "", ()
        if self.is_full:
            return ONLY_EXTRA_PRESS, (turn.place,)
        own = self.marbles(self.to_move)
        occupied = self.occupied
        if turn.move_from is not None and turn.move_to is not None:
            src, dst = turn.move_from, turn.move_to
            name = square_name(src)
            if own >> src & 1:
                return OWN_MARBLE.format(square=name), (src,)
            if not occupied >> src & 1:
                return NOTHING_TO_MOVE.format(square=name), (src,)
            if not turn.is_orthogonal_step:
                return NOT_A_STEP.format(step=f"{name}-{square_name(dst)}"), (src, dst)
            if occupied >> dst & 1:
                return MOVED_ONTO_A_MARBLE.format(square=square_name(dst)), (dst,)
            occupied ^= BB_SQUARES[src] | BB_SQUARES[dst]
        if occupied >> turn.place & 1:
            return PLACED_ON_A_MARBLE.format(square=square_name(turn.place)), (turn.place,)
        return "", ()

    def before_press(self, turn: Turn) -> tuple[Mask, Mask]:
        """The (black, white) masks once ``turn``'s move and placement are made, before the press.

        The turn must be legal; this is what the sensors read just before the button goes down.
        """
        black, white = self.black, self.white
        if turn.move_from is not None and turn.move_to is not None:
            step = BB_SQUARES[turn.move_from] | BB_SQUARES[turn.move_to]
            if self.to_move is Colour.BLACK:
                white ^= step
            else:
                black ^= step
        if turn.place is not None:
            if self.to_move is Colour.BLACK:
                black |= BB_SQUARES[turn.place]
            else:
                white |= BB_SQUARES[turn.place]
        return black, white

    def play(self, turn: Turn) -> Position:
        """The position after ``turn`` and its press; IllegalTurnError if the rules forbid it."""
        self.check(turn)
        return self.play_unchecked(turn)

    def play_unchecked(self, turn: Turn) -> Position:
        black, white = self.before_press(turn)
        black, white = press(black), press(white)
        full = black | white == BB_ALL
        extra = self.extra_presses + (1 if turn.place is None else 0)
        result = result_after_press(black, white, full, extra)
        return Position(black, white, self.to_move.other, extra, result)

    def push_notation(self, token: str) -> Position:
        return self.play(Turn.from_notation(token))

    def summary(self) -> dict[str, object]:
        """SPEC.md's replay object for this position."""
        return {
            "board": self.board(),
            "to_move": self.to_move.value,
            "placed": self.placed,
            "extra_presses": self.extra_presses,
            "result": None if self.result is None else self.result.value,
            "lines": self.line_names() if self.result is not None else [],
        }


_GAME_OVER = {
    Result.DRAW: R_("the game is over (drawn)"),
    Result.BLACK: R_("the game is over (black won)"),
    Result.WHITE: R_("the game is over (white won)"),
}


class ReplayError(OrbitoError, ValueError):
    """A turn of a game record that cannot be played, with its 1-based number."""

    def __init__(self, number: int, token: str, reason: str) -> None:
        self.number = number
        self.token = token
        self.reason = reason
        super().__init__(BAD_RECORD_TURN.format(number=number, token=token, reason=reason))


def replay(first: Colour, tokens: str | list[str]) -> Position:
    """Play a game record from the empty board; ReplayError naming the first bad turn."""
    if isinstance(tokens, str):
        tokens = tokens.split()
    position = Position.start(first)
    for number, token in enumerate(tokens, 1):
        try:
            position = position.play(Turn.from_notation(token))
        except NotationError as exc:
            raise ReplayError(number, token, exc.reason) from None
        except IllegalTurnError as exc:
            raise ReplayError(number, token, exc.reason) from None
    return position
