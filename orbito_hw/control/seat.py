"""A seat: a player who is not at the board, playing one colour through the board's LEDs.

A seat is the same kind of player as the other board of ``--remote`` (remote/game.py): a
``BoardPlayer`` with ``by`` "remote", whose ``choose`` has no turn to give until one arrives.
Here a turn arrives from a page (web/seat.py) rather than from a broker's record; the checks
are the referee's side of it and know nothing of HTTP, so a later client (the remote
protocol, a seat's page over MQTT) can hand its turns to the same ``Seat``.

A turn handed in is checked against the game as the referee keeps it: its number (the next
turn's, or one already played with the same token: a replay is answered as played, nothing
done twice), the colour to move, the rules. Accepted, it becomes the seat's choice in that
position and ``Referee.offer()`` shows it on the LEDs for the person at the board to make,
exactly as the board's own turns are shown; it counts once the sensors have read it and the
button is pressed (the ``turn`` event), never before.

A seat may also ask (asks.py): a take-back of its last turn, which the person at the board
agrees to or refuses, and a draw, which the other side accepts or declines; it answers the
person's draw offer. Each ask and answer is checked as a turn is: refused with its reason,
the game untouched.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final, Literal

from orbito_hw.control.asks import AskRefusedError, what_of
from orbito_hw.control.board_player import BoardPlayer
from orbito_hw.control.events import Event, NewGame, TakeBack, TurnPlayed
from orbito_hw.control.referee import Referee
from orbito_hw.errors import IllegalTurnError, NotationError, OrbitoError, echo
from orbito_hw.lang import R_
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.turn import Turn

SEAT_PLAYER: Final = "remote"
"""The archive's PLAYER for a seat (SPEC.md's ``remote``: a player not at this board)."""

DECLINED: Final = R_("declined by the player away")
"""The reason a seat's refusal of the person's draw offer gives."""

Asked = Literal["asked", "agreed"]
"""What became of a seat's ask: waiting for the answer, or agreed at once (a draw offered
against the other side's draw offer)."""

Handed = Literal["shown", "played"]
"""What became of a turn handed in: shown on the LEDs now (or already, the same turn sent
again), or played already (a replay of a turn that counts)."""


# Why a seat's turn or ask is refused: English (its answer's JSON), marked R_ so that the
# seat's page and the board's log say it in their reader's language (lang.reworded).
WAS_ANOTHER = R_("turn {number} was {turn}, not {token}")
NOT_NEXT = R_("turn {number} is not the next turn ({next})")
OVER = R_("the game is over: turn {token} not played")
NOT_YOURS = {
    Colour.BLACK: R_("it is white's turn, and this seat plays black"),
    Colour.WHITE: R_("it is black's turn, and this seat plays white"),
}
SHOWN_ALREADY = R_("turn {number} is {turn}, shown at the board already")
NOT_SEATED = {
    Colour.BLACK: R_("this seat does not play black on the board now"),
    Colour.WHITE: R_("this seat does not play white on the board now"),
}


class SeatRefusedError(OrbitoError, ValueError):
    """A turn from a seat that the game does not take: the reason names the turn."""


@dataclass(frozen=True)
class Standing:
    """Where the game stands for a seat: its number, the turns that count, whose turn."""

    game: int
    turns: tuple[str, ...]
    position: Position

    @property
    def next_number(self) -> int:
        return len(self.turns) + 1


class Seat:
    """``colour`` played from away: its turns handed in by number, shown on the LEDs."""

    def __init__(self, colour: Colour) -> None:
        self.colour = colour
        self._arrived: tuple[Position, Turn] | None = None
        self.player = BoardPlayer(colour, self._choose, SEAT_PLAYER, "remote", seat=lambda: True)
        self._heard: Referee | None = None  # the referee whose take-backs this seat hears

    def _choose(self, position: Position) -> Turn | None:
        """The seat's turn in ``position``: None until it has been handed in."""
        if self._arrived is not None and self._arrived[0] == position:
            return self._arrived[1]
        return None

    def shown(self, position: Position) -> Turn | None:
        """The turn handed in for ``position`` (the game's now) and waiting to be made at
        the board, if any: one handed in for an earlier position has been made."""
        return self._choose(position)

    def seated(self, referee: Referee) -> bool:
        """Whether this seat plays its colour on ``referee`` now."""
        return referee.opponent is self.player

    def sit(self, referee: Referee) -> None:
        """Play the colour on ``referee`` (a new controller after a power cut too): the
        turn handed in before is shown again if it is still the position's."""
        if self._heard is not referee:
            self._heard = referee
            referee.subscribe(self._on_event)
        if not self.seated(referee):
            referee.set_opponent(self.player)

    def _on_event(self, event: Event) -> None:
        """A turn played, a take-back begun, or a new game: the turn handed in is spent
        (kept, it would be chosen again when the position it was handed in for came back,
        also on the controller a power cut boots, whose take-backs the seat hears only once
        it sits there again)."""
        if isinstance(event, TurnPlayed | TakeBack | NewGame):
            self._arrived = None

    def leave(self, referee: Referee) -> None:
        """Stop playing on ``referee``: the colour is the person's at the board again."""
        self._arrived = None
        if self.seated(referee):
            referee.set_opponent(None)

    def hand_in(self, referee: Referee, number: int, token: str) -> Handed:
        """Turn ``number`` of the game, ``token`` in SPEC.md's notation, from the seat.
        SeatRefusedError naming why when the game does not take it; the game is untouched."""
        now = standing(referee)
        if 1 <= number <= len(now.turns):
            if now.turns[number - 1] == token:
                return "played"  # a replay: answered as before, nothing done twice
            raise SeatRefusedError(
                WAS_ANOTHER.format(number=number, turn=now.turns[number - 1], token=echo(token))
            )
        if number != now.next_number:
            raise SeatRefusedError(NOT_NEXT.format(number=number, next=now.next_number))
        position = now.position
        if position.is_over:
            raise SeatRefusedError(OVER.format(token=echo(token)))
        if position.to_move is not self.colour:
            raise SeatRefusedError(NOT_YOURS[self.colour])
        try:
            turn = Turn.from_notation(token)
            position.check(turn)
        except (NotationError, IllegalTurnError) as exc:
            raise SeatRefusedError(str(exc)) from None
        if self._arrived is not None and self._arrived[0] == position:
            if self._arrived[1] == turn:
                return "shown"  # sent twice: shown once
            shown = self._arrived[1].notation()
            raise SeatRefusedError(SHOWN_ALREADY.format(number=number, turn=shown))
        if not self.seated(referee):
            raise SeatRefusedError(NOT_SEATED[self.colour])
        self._arrived = (position, turn)
        referee.offer()  # on the LEDs now, or when the board is still again
        return "shown"

    # --- asks across the board (asks.py) -------------------------------------------------
    def ask(self, referee: Referee, what_text: str) -> Asked:
        """The seat asks for ``what_text`` (``take-back``, ``draw``): "asked", waiting for
        the person at the board, or "agreed" (a draw offered against the person's own draw
        offer). SeatRefusedError naming why not; the game is untouched."""
        try:
            what = what_of(what_text)
        except AskRefusedError as exc:
            raise SeatRefusedError(str(exc)) from None
        if not self.seated(referee):
            raise SeatRefusedError(NOT_SEATED[self.colour])
        why = referee.asks.refusal(what, self.colour)
        if why:
            raise SeatRefusedError(why)
        referee.ask(what, self.colour)
        return "asked" if referee.asks.pending is not None else "agreed"

    def answer(self, referee: Referee, agreed: bool) -> None:
        """The seat answers the person's ask (a draw offered): accepted, or declined.
        SeatRefusedError naming why not (nothing asked of it, its own ask)."""
        if not self.seated(referee):
            raise SeatRefusedError(NOT_SEATED[self.colour])
        why = referee.asks.answer_refusal(self.colour, agreed)
        if why:
            raise SeatRefusedError(why)
        referee.answer(self.colour, agreed, "" if agreed else DECLINED)


def standing(referee: Referee) -> Standing:
    """The game as the referee keeps it (its journal's turns), for a seat's checks."""
    saved = referee.snapshot().saved
    turns = tuple(saved.turns)
    return Standing(saved.game, turns, replay(saved.first, list(turns)))
