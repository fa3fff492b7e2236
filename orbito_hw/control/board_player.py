"""The board as a player: who plays the board's colour and how it chooses (players.py runs it)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.turn import Turn


@dataclass(frozen=True)
class BoardPlayer:
    """The board playing ``colour`` against a person: ``choose`` gives its turn in a position
    of a game still going on (any callable: the control layer needs no solver class);
    ``player`` names it as the archive and the page do (SPEC.md's PLAYER: ``board:LEVEL``).

    A player at another board (``by`` "remote") has no turn to give until it arrives:
    ``choose`` returns None until then, and its client calls ``Referee.offer()`` when it
    does. Meanwhile the person here may not play that colour's turn.

    ``seat`` says whether a person plays it from a page (a phone or a browser: a seat,
    docs/seat.md) rather than at a board: a seat at home always; the other side of a remote
    game as its hello says (``"kind": "seat"``, docs/remote.md). The words then name the
    player on the phone, not a board."""

    colour: Colour
    choose: Callable[[Position], Turn | None]
    player: str = "board"
    by: str = "board"  # who chose the turns shown: "board" or "remote" (SPEC.md's board-turn)
    seat: Callable[[], bool] = field(default=lambda: False, compare=False)
