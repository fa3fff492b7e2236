"""The board as a player: who plays the board's colour, the turn it chose, and offering it.

Against the board (a level of the solved game, or a remote board's player) the board
chooses its turn in each position where it is to move, journals the choice before it is
shown (a power cut shows the same turn again), tells it once per position and run (the
``board-turn`` event) and lights it for the person to make. A remote player has no turn to
give until its turn arrives: ``choose`` returns None until then.
"""

from __future__ import annotations

from collections.abc import Callable

from orbito_hw.control import guide
from orbito_hw.control.board_player import BoardPlayer
from orbito_hw.control.core import Core
from orbito_hw.control.events import BoardTurn, OpponentChosen
from orbito_hw.control.menu import Choice
from orbito_hw.lang import R_
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import mask_of, square_name
from orbito_hw.rules.turn import Turn

__all__ = ["BoardPlayer", "Players"]


class Players:
    """Who plays the board's colour (``opponent``; None: two people at the board) and the
    turn it chose in the position on the board."""

    def __init__(self, referee: Core, opponent: BoardPlayer | None) -> None:
        self.referee = referee
        self.opponent = opponent
        self.told = False  # the board-turn event of this position was emitted

    @property
    def board_turn(self) -> Turn | None:
        """The turn the board chose and shows, when it is the board's move; else None."""
        token = self.referee.saved.board_turn
        return Turn.from_notation(token) if token is not None and self.boards_move() else None

    def refusal(self, turn: Turn) -> tuple[str, int] | None:
        """Why the legal ``turn`` on the board may not be played against this player, and
        the squares at fault; None when it may."""
        wanted, referee = self.board_turn, self.referee
        if wanted is None and self.boards_move():
            # A remote player's turn not here yet: nobody here plays that colour.
            return R_("wait for the other board's turn"), referee.off()
        if wanted is not None and turn != wanted:
            # Another legal turn on the board's move: the board plays its own turn only. The
            # squares at fault are where something was done that its turn does not do (not
            # a square of it still to do); else where anything was done.
            now = {sq: m.colour for sq, m in referee.reader.marbles.items()}
            made = guide.board_turn(referee.position, wanted, now)
            wrong = mask_of(s.square for s in made.fixes if s.square is not None)
            said = R_("the board's turn is {wanted}, not {turn}").format(wanted=wanted, turn=turn)
            return said, wrong or referee.off()
        if wanted is not None and wanted.move_from is not None and referee.reader.placed_first:
            # The right layout, the steps the other way round: shown as move, then place.
            assert wanted.place is not None and wanted.move_to is not None
            reason = R_(
                "the board's turn moves {step} first, then places on {square}: "
                "lift the placed marble, then place it again"
            ).format(
                step=f"{square_name(wanted.move_from)}-{square_name(wanted.move_to)}",
                square=square_name(wanted.place),
            )
            return reason, mask_of([wanted.place])
        return None

    def against(self, colour: Colour) -> bool:
        """Whether the board (or a remote board) plays ``colour``."""
        return self.opponent is not None and colour is self.opponent.colour

    def boards_move(self) -> bool:
        opponent, position = self.opponent, self.referee.position
        return opponent is not None and not position.is_over and position.to_move is opponent.colour

    def rechoose(self) -> None:
        """A new position: forget the board's old choice and, on its move, choose again
        (the caller journals it, before it is shown)."""
        self.forget_choice()
        self.choose()

    def forget_choice(self) -> None:
        self.referee.saved.board_turn = None
        self.told = False

    def choose(self) -> None:
        saved = self.referee.saved
        if self.opponent is None or not self.boards_move():
            saved.board_turn = None
        elif saved.board_turn is None:
            turn = self.opponent.choose(self.referee.position)
            saved.board_turn = turn.notation() if turn is not None else None

    def offer(self) -> None:
        """On the board's move: its turn chosen and journaled (if not yet), told once per
        position and run, and shown on the LEDs."""
        referee = self.referee
        if not referee.playing:
            return
        saved = referee.saved
        before = saved.board_turn
        self.choose()
        if saved.board_turn != before:
            referee.save()
        turn = self.board_turn
        if turn is not None and not self.told:
            self.told = True
            number = len(saved.turns) + 1
            by = self.opponent.by if self.opponent else "board"
            referee.emit(BoardTurn(saved.game, number, referee.position.to_move, turn, by))
        referee.draw()

    def set_opponent(self, opponent: BoardPlayer | None) -> None:
        """The board plays ``opponent`` (None: nobody) from now on, in this position too;
        journaled, so a power cut keeps it (a remote player is the remote client's to
        bring back: it is not journaled here)."""
        saved = self.referee.saved
        self.opponent = opponent
        if opponent is None:
            saved.opponent = "person"
        elif opponent.by == "board" and opponent.player.startswith("board:"):
            saved.opponent = f"{opponent.player}:{opponent.colour.value}"
        self.rechoose()
        self.referee.save()
        self.offer()

    def take_choice(self, choice: Choice, make: Callable[[str, Colour], BoardPlayer]) -> None:
        """The opponent menu's choice taken (a hold): two people, or the board at a level."""
        player = None
        if choice.level is not None and choice.colour is not None:
            player = make(choice.level, choice.colour)
        self.referee.emit(OpponentChosen(self.referee.saved.game, choice.player, choice.colour))
        self.set_opponent(player)

    def restore(self, make: Callable[[str, Colour], BoardPlayer] | None) -> None:
        """Who plays, as the journal says it was chosen at the board (else as it was)."""
        chosen = self.referee.saved.opponent
        if chosen == "person":
            self.opponent = None
        elif chosen is not None and make is not None:
            _, level, colour = chosen.split(":")
            self.opponent = make(level, Colour(colour))
