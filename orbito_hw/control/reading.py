"""Reading a turn off the board: which marble stands where, from the order of lifts and puts.

Presence sensors cannot tell colours, so the reader follows the marbles themselves: a lift
takes the marble off its square into the hand; a put sets down the marble last lifted, or,
with an empty hand, a new marble from the supply of the player to move. Sensors that tell
colours say which colour went down: the put is the marble last lifted of that colour, or a
new one of it (the wrong player's, maybe). The colours that gives say which legal turn the
board shows, or why it shows none. Pure: no clock and no
hardware; the referee feeds it debounced touches and asks on a press.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from orbito_hw.errors import IllegalTurnError
from orbito_hw.lang import R_
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import BB_SQUARES, SQUARES, square_name, squares_of
from orbito_hw.rules.turn import EXTRA_PRESS, Turn


@dataclass(frozen=True)
class Marble:
    """A marble on the board or in a hand; ``origin`` is where it stood when the turn
    began, None for a marble placed this turn."""

    colour: Colour
    origin: int | None


class TurnReader:
    """The marbles of one turn, from ``position`` at its start, as touches move them.

    ``layout`` (black and white masks) starts the marbles elsewhere than ``position``: a
    take-back's undoing starts from the turn taken back as it was made, before its press,
    and ends on ``position``, the position before that turn."""

    def __init__(self, position: Position, layout: tuple[int, int] | None = None) -> None:
        self.position = position
        black, white = layout or (position.black, position.white)
        self.start = {sq: Marble(Colour.BLACK, sq) for sq in squares_of(black)}
        self.start.update({sq: Marble(Colour.WHITE, sq) for sq in squares_of(white)})
        self.marbles: dict[int, Marble] = dict(self.start)
        self.hand: list[Marble] = []  # the marble lifted last is the one put down next
        self.placed_first = False
        """An opponent marble left its square while a marble of this turn's placing stood on
        the board: the place came before the move, which the rules put the other way round
        (the board's own turn is refused for it; a person's is judged on the colours)."""

    # --- touches -------------------------------------------------------------------
    def sense(self, square: int, present: bool, colour: Colour | None = None) -> None:
        """One lift (``present`` False) or put, of a marble of ``colour`` if the sensors
        tell it; a lift of an empty square changes nothing. ValueError for a square that
        does not exist: it never enters the model (where every later look at the board
        would trip over it)."""
        if isinstance(square, bool) or not isinstance(square, int) or square not in SQUARES:
            raise ValueError(f"{square!r:.40} is not a square (0..15)")
        if present:
            self.marbles[square] = self._put(colour)
        elif square in self.marbles:
            marble = self.marbles.pop(square)
            if marble.origin is not None or marble.colour is self.position.to_move:
                self.hand.append(marble)
            # else a marble of the other player's supply, lifted, went back to it: it is
            # never the next put (a sensor that tells colours reads a new one of it anyway).
            # Above all the last game's marbles, cleared off a board the new game found full
            # (read as placed, in the colours seen): kept in the hand, the page told the
            # person who cleared them to put a white one back "next to where it was".
            placed = any(m.origin is None for m in self.marbles.values())
            if marble.origin == square and marble.colour is not self.position.to_move:
                self.placed_first |= placed
            elif not placed:
                self.placed_first = False  # the placed marble is off again: the order starts over

    def _put(self, colour: Colour | None) -> Marble:
        """The marble a put sets down: the last lifted (of ``colour``, when told), else a
        new one from the supply (of ``colour``, else the player to move's)."""
        for i in range(len(self.hand) - 1, -1, -1):
            if colour is None or self.hand[i].colour is colour:
                return self.hand.pop(i)
        return Marble(colour or self.position.to_move, None)

    def replay_touches(self) -> list[tuple[bool, int]]:
        """A short run of touches, (put?, square), that brings a fresh reader of the same
        position to this reader's state: what the journal keeps of a turn in progress.

        Its length is bounded by the board (at most 48: every marble there is is at most one
        supply put, one lift and one put), not by the history of touches: a marble lifted
        and put back a thousand times leaves nothing to replay."""
        start = self.start
        supply = Marble(self.position.to_move, None)
        # 1. With the hand empty, the supply marbles this state holds (placed, or lifted back
        # into the hand) go down on squares empty at the start: there are always enough,
        # for the board never holds more than 16 marbles.
        wanted = [m for m in [*self.marbles.values(), *self.hand] if m.origin is None]
        empty = [sq for sq in range(16) if sq not in start]
        empty.sort(key=lambda sq: self.marbles.get(sq) != supply)  # straight to their square
        touches = [(True, sq) for sq in empty[: len(wanted)]]
        now = {**start, **{sq: supply for sq in empty[: len(wanted)]}}
        # 2. Lift what is not where it ends: first the hand's marbles, bottom of the hand
        # first, then the ones still to put, in the reverse of the order they go down.
        # (Supply marbles are alike: one already on its final square stays there.)
        places = [(sq, m) for sq, m in sorted(self.marbles.items()) if now.get(sq) != m]
        settled = {sq for sq, m in now.items() if self.marbles.get(sq) == m}
        lifts: list[int] = []
        for marble in [*self.hand, *(m for _, m in reversed(places))]:
            sq = next(s for s, m in now.items() if m == marble and s not in settled | {*lifts})
            lifts.append(sq)
        touches += [(False, sq) for sq in lifts]
        return touches + [(True, sq) for sq, _ in places]

    def recolour(self, black: int, white: int) -> None:
        """Give each marble placed this turn the colour the sensors read on its square (the
        journal keeps lifts and puts, not colours: after a restart, a marble of the wrong
        colour put before it is still that colour)."""
        for square, marble in self.marbles.items():
            if marble.origin is None and (black | white) >> square & 1:
                colour = Colour.BLACK if black >> square & 1 else Colour.WHITE
                self.marbles[square] = Marble(colour, None)

    def back_to_supply(self) -> None:
        """A marble taken from the supply and still in the hand goes back to the supply (on
        a press); one lifted off the board stays in the hand: it has to come back."""
        self.hand = [m for m in self.hand if m.origin is not None]

    # --- what the board holds ---------------------------------------------------------
    def holds(self, square: int) -> bool:
        return square in self.marbles

    def masks(self) -> tuple[int, int]:
        """The black and the white squares as the reader knows them."""
        black = white = 0
        for square, marble in self.marbles.items():
            if marble.colour is Colour.BLACK:
                black |= BB_SQUARES[square]
            else:
                white |= BB_SQUARES[square]
        return black, white

    @property
    def occupied(self) -> int:
        """The squares that should read a marble."""
        black, white = self.masks()
        return black | white

    @property
    def touched(self) -> bool:
        """Whether the board differs from the position at the start of the turn."""
        return self.masks() != (self.position.black, self.position.white)

    def colours(self, squares: Iterable[int]) -> tuple[tuple[int, Colour], ...]:
        """The colour of the marble on each of ``squares`` that holds one."""
        return tuple((sq, self.marbles[sq].colour) for sq in squares if sq in self.marbles)

    def wrong_colours(self, squares: Iterable[int]) -> tuple[tuple[int, Colour], ...]:
        """The marbles placed this turn on ``squares`` that are not the mover's colour, with
        their colour: only sensors that tell colours put such a marble down."""
        to_move = self.position.to_move
        placed = {sq: m.colour for sq, m in self.marbles.items() if m.origin is None}
        return tuple((sq, placed[sq]) for sq in squares if placed.get(sq, to_move) is not to_move)

    # --- the turn ------------------------------------------------------------------------
    def turn(self) -> Turn:
        """The legal turn whose board the lifts and puts made (an extra press for a full
        board left as it was); IllegalTurnError naming why there is none and the squares
        at fault.

        Marbles of one colour are alike, so the turn is judged on the colours alone (a
        colour layout has at most one legal turn); which marble went where only explains
        a refusal."""
        if self.position.is_full and not self.touched:
            self.position.check(EXTRA_PRESS)  # refused only when the game is over
            return EXTRA_PRESS
        masks = self.masks()
        for turn in self.position.legal_turns():
            if turn.place is not None and self.position.before_press(turn) == masks:
                return turn
        raise self._refusal()

    def _refusal(self) -> IllegalTurnError:
        """Why the board shows no legal turn, from which marble went where."""
        placed = [sq for sq, m in self.marbles.items() if m.origin is None]
        moved = [(m.origin, sq) for sq, m in self.marbles.items() if m.origin not in (None, sq)]
        moved_squares = [s for pair in moved for s in pair if s is not None]
        lifted = [m.origin for m in self.hand if m.origin is not None]
        board = self.position.board()
        fault: tuple[str, list[int]] | None = None
        if lifted:
            text = R_("the marble lifted from {squares} is not back on the board")
            fault = (text.format(squares=_names(lifted)), lifted)
        elif self.position.is_full:
            fault = (
                R_("the board is full: put the marbles back, press for an extra press"),
                moved_squares + placed,
            )
        elif odd := self.wrong_colours(placed):
            squares = [sq for sq, _ in odd]
            fault = (wrong_colour(squares, odd[0][1], self.position.to_move), squares)
        elif len(moved) > 1:  # the first real fault first: the moves, then the places
            fault = (R_("only one opponent marble may be moved in a turn"), moved_squares)
        elif moved and (wrong := self._bad_move(*moved[0])) is not None:
            return wrong
        elif len(placed) > 1:
            text = R_("only one marble may be placed in a turn, not {n}")
            fault = (text.format(n=len(placed)), placed)
        elif not placed:
            fault = (R_("place one of your own marbles, then press"), [])
        if fault:
            return IllegalTurnError("?", fault[0], board, tuple(fault[1]))
        src, dst = moved[0] if moved else (None, None)
        turn = Turn(placed[0], src, dst)
        try:
            self.position.check(turn)
        except IllegalTurnError as exc:
            return exc  # the rules' own reason, naming their squares
        mover = self.position.to_move
        text = NOT_SHOWN[mover].format(turn=turn)
        return IllegalTurnError(turn.notation(), text, board)

    def _bad_move(self, src: int | None, dst: int) -> IllegalTurnError | None:
        """Why the rules refuse the move ``src``-``dst`` of an opponent marble whatever is
        placed (not a step, not the opponent's marble), or None: a move that may stand."""
        assert src is not None
        empty = [sq for sq in SQUARES if sq not in (src, dst) and not self.position.colour_at(sq)]
        if not empty:
            return None  # no square left to place on: the place's own refusal says so
        try:
            self.position.check(Turn(empty[0], src, dst))  # a stand-in place: the move alone
        except IllegalTurnError as exc:
            if set(exc.squares) <= {src, dst}:
                return exc
        return None


# Why the marbles on the board make no legal turn: English (the refusal's data), marked R_ so
# that each reader sees it in their language (lang.reworded); a colour and a count each its
# own sentence, so that a language agrees its words with them.
NOT_SHOWN = {
    Colour.BLACK: R_("the board does not show {turn} for black"),
    Colour.WHITE: R_("the board does not show {turn} for white"),
}
WRONG_COLOUR = {
    (Colour.WHITE, Colour.BLACK, False): R_("{squares} holds a white marble: black's turn"),
    (Colour.WHITE, Colour.BLACK, True): R_("{squares} hold white marbles: black's turn"),
    (Colour.BLACK, Colour.WHITE, False): R_("{squares} holds a black marble: white's turn"),
    (Colour.BLACK, Colour.WHITE, True): R_("{squares} hold black marbles: white's turn"),
    (Colour.BLACK, Colour.BLACK, False): R_("{squares} holds a black marble: black's turn"),
    (Colour.BLACK, Colour.BLACK, True): R_("{squares} hold black marbles: black's turn"),
    (Colour.WHITE, Colour.WHITE, False): R_("{squares} holds a white marble: white's turn"),
    (Colour.WHITE, Colour.WHITE, True): R_("{squares} hold white marbles: white's turn"),
}


def wrong_colour(squares: list[int], colour: Colour, to_move: Colour) -> str:
    """Why a marble of ``colour`` is refused on ``squares``: ``to_move`` places."""
    plural = len(squares) > 1
    return WRONG_COLOUR[(colour, to_move, plural)].format(squares=_names(squares))


AND = R_("{first} and {last}")
"""Two squares named together (a reason's field; a third joins the same way)."""


def _names(squares: list[int]) -> str:
    names = [square_name(s) for s in squares]
    said = names[0] if names else ""
    for name in names[1:]:
        said = AND.format(first=said, last=name)
    return said
