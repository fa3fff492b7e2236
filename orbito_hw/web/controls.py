"""The page's controls, and what the page reads from outside the controller.

``BoardControls`` are the controls of a real board: the referee's own methods (the
simulated board has its own, mock/page.py). ``GameStore`` and ``Watch`` are what the page
needs of the archive and of a broker's games: the app hands it an implementation of each
(archive/reading.py, remote/spectator.py), so the page imports neither.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from orbito_hw.control.ending import can_end
from orbito_hw.control.events import Event, NewGame
from orbito_hw.control.journal import Saved
from orbito_hw.control.players import BoardPlayer
from orbito_hw.control.referee import Referee
from orbito_hw.control.requests import SetupRequest, serve_request, write_request
from orbito_hw.errors import OrbitoError
from orbito_hw.lang import R_
from orbito_hw.rules.game import Colour, Result
from orbito_hw.solver.opponents import level_opponent, parse_level
from orbito_hw.solver.puzzles import Puzzle

log = logging.getLogger(__name__)


def board_view(saved: Saved) -> str:
    """What a page drew the board from, as it sends it back with a click (``seen``): the
    game and the turns that stand. It changes with every ring move that ends a turn, takes
    one back or starts a game, and never with a touch within a turn: a click sent from a
    page that had not yet shown the rings' last move is told so, never applied to a board
    it did not show."""
    return f"{saved.game}/{' '.join(saved.turns)}"


class UnavailableError(OrbitoError, LookupError):
    """A control this board does not have (a real board's squares, a missing feature)."""


class RefusedError(OrbitoError, RuntimeError):
    """A control the board cannot do now (the simulated hand cannot, the controller failed)."""


# --- what the page's controls do ----------------------------------------------------------
class BoardControls:
    """The page's controls on a real board: the referee's own methods. Its squares and its
    button are touched by hand only."""

    simulated = False

    def __init__(self, referee: Referee, state_dir: Path, first: Colour) -> None:
        self._referee = referee
        self.state_dir = state_dir
        self.first = first
        self._next_opponent: tuple[BoardPlayer | None, ...] = ()
        referee.subscribe(self._on_new_game)

    @property
    def referee(self) -> Referee:
        return self._referee

    def lift_or_put(self, square: int, seen: str | None = None) -> None:
        """A click on a square (the page's ``square/NAME``): the simulated board lifts the
        marble there or puts one (mock/page.py); a real board's are moved by hand. Named
        for what it does: ``touch`` was also the turn reader's word for a sensor change.
        ``seen``: the ``board_view`` the page clicked on (None: not said)."""
        raise UnavailableError(R_("the marbles of a real board are moved by hand"))

    def button(self, action: str, seen: str | None = None) -> None:
        raise UnavailableError(R_("the button of a real board is pressed by hand"))

    def settle(self) -> None:
        """After a change from outside the board's hands (a seat's turn shown): nothing to
        do on a real board; the simulated one runs its clock (mock/page.py)."""

    def new_game(self, first: Colour) -> None:
        self.referee.new_game(first)

    def set_opponent(self, level: str, colour: Colour) -> None:
        """SPEC.md's ``opponent`` directive: at once if no marble was placed in this game,
        else from the next game."""
        player = None
        if level != "none":
            choose = level_opponent(parse_level(level)).choose
            player = BoardPlayer(colour, choose, f"board:{level}")
        referee, now = self.referee, self.referee.snapshot()
        if now.turns or now.pending is not None or now.touched:
            self._next_opponent = (player,)
        else:
            self._next_opponent = ()
            referee.set_opponent(player)

    def _on_new_game(self, event: Event) -> None:
        if isinstance(event, NewGame) and self._next_opponent:
            (player,) = self._next_opponent
            self._next_opponent = ()
            # After the new game has settled, not inside its announcement.
            asyncio.get_running_loop().call_soon(self.referee.set_opponent, player)

    def set_hints(self, on: bool) -> None:
        self.referee.set_hints(on)

    def take_back(self) -> None:
        """The referee's take-back, where this version of it has one."""
        take_back = getattr(self.referee, "take_back", None)
        if take_back is None:
            raise UnavailableError(R_("take back with a long press of the button"))
        can = getattr(self.referee, "can_take_back", True)  # a property
        if not (can() if callable(can) else can):
            raise RefusedError(R_("there is no turn to take back now"))
        take_back()

    def resign(self, colour: Colour | None) -> Colour:
        """``colour`` resigns (None: the person here, against the board or the other board;
        between two people at this board, the side to move): the other side wins, through
        the referee, so the journal and the archive keep it (control/ending.py). The colour
        that resigned."""
        referee = self.referee
        why = can_end(referee)
        if why:
            raise RefusedError(R_("cannot resign now: {why}").format(why=why))
        opponent = referee.opponent
        if colour is None:
            colour = opponent.colour.other if opponent else referee.position.to_move
        if opponent is not None and opponent.colour is colour:
            raise RefusedError(
                R_("{colour} is played by {player}, not by a person").format(
                    colour=colour.value, player=opponent.player
                )
            )
        referee.end_by_agreement(Result.won_by(colour.other))
        return colour

    def agree_draw(self) -> str:
        """A draw: between two people at this board, offered and accepted at once; against
        a player away (a seat, the other board), offered to them, or accepting their offer
        (control/asks.py). "agreed" or "offered"; the board itself plays on."""
        referee = self.referee
        why = can_end(referee)
        if why:
            raise RefusedError(R_("cannot agree a draw now: {why}").format(why=why))
        opponent = referee.opponent
        if opponent is not None and opponent.by == "remote":
            here = opponent.colour.other
            why = referee.asks.refusal("draw", here)
            if why:
                raise RefusedError(R_("cannot offer a draw now: {why}").format(why=why))
            referee.ask("draw", here)  # offered, or the other side's offer accepted
            self.settle()
            return "offered" if referee.asks.pending is not None else "agreed"
        if opponent is not None:
            raise RefusedError(R_("the board plays on: it takes no draw (resign, or play on)"))
        referee.end_by_agreement(Result.DRAW)
        return "agreed"

    def answer(self, agreed: bool, reason: str = "") -> None:
        """The person at the board answers what the player away asks (a take-back, a draw):
        agreed (an agreed take-back then runs, the LEDs guiding the undoing), or refused
        with ``reason`` (control/asks.py)."""
        referee = self.referee
        away = referee.asks.away()
        if away is None:
            raise RefusedError(R_("no player away plays this game: nothing asked to answer"))
        why = referee.asks.answer_refusal(away.other, agreed)
        if why:
            raise RefusedError(R_("cannot answer now: {why}").format(why=why))
        referee.answer(away.other, agreed, reason)
        self.settle()

    def set_up(self, request: SetupRequest) -> None:
        """Set a position up on the board (the archive's game page): the request goes the
        way ``games resume`` sends it, a file in the state directory, taken at once (or,
        while the rings turn, at the controller's next look)."""
        try:
            write_request(self.state_dir, request)
        except OSError as exc:
            raise RefusedError(f"cannot leave the set-up request: {exc.strerror or exc}") from None
        serve_request(self.referee, self.state_dir)


class GameStore(Protocol):
    """The archive as the pages read it (archive/reading.py's ``ArchiveReads``)."""

    def games(
        self, before: int | None = None, limit: int | None = None
    ) -> list[dict[str, object]] | None:
        """The games (as ``games list --json``), oldest first; with ``limit`` only the newest
        ``limit`` before the game ``before``; None when there is no archive to read."""
        ...

    def game(self, game_id: str) -> dict[str, Any] | None:
        """One game, its review and its boards; None if there is no such game."""
        ...

    def next_puzzle(self) -> Puzzle:
        """The puzzle to play next, as the progress kept in the archive chooses it (``puzzles
        next``: the first one with no archive)."""
        ...


class Following(Protocol):
    """One game on a broker followed live: started, then stopped when its page leaves."""

    def start(self) -> None: ...

    async def stop(self) -> None: ...


class Watch(Protocol):
    """The games on a broker as spectators see them (remote/spectator.py's ``BrokerWatch``)."""

    @property
    def host(self) -> str:
        """The broker's host, for the page's messages."""
        ...

    def is_game_name(self, name: str) -> bool:
        """Whether ``name`` may name a game on the broker."""
        ...

    async def list_games(self) -> list[dict[str, object]]:
        """The games on the broker, each with its board now; raises when it is away."""
        ...

    def follow(
        self, game: str, heard: Callable[[str, Colour, dict[str, object]], None]
    ) -> Following:
        """``game``'s live events, each to ``heard(game, colour, event)``."""
        ...
