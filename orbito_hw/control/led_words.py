"""What the LEDs show, in words: for a person at a terminal (``run --mock --interactive``),
who cannot read ``#ffc800`` as "move this marble".

It reads the light show's ``View`` (what the board means to show, lights.py composes the
same view into colours), so the words and the LEDs never disagree: each lit square and the
status pixel become a ``Lit``, its meaning, the palette colour by name and whether it blinks.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from orbito_hw.control.lights import Palette, View
from orbito_hw.hw.interfaces import RGB, rgb_hex
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import square_name, squares_of
from orbito_hw.rules.turn import Turn

# The default palette's colours by the name a person gives them.
COLOUR_NAMES = {
    "black": "blue",
    "white": "white",
    "error": "red",
    "draw": "orange",
    "moving": "grey",
    "fault": "magenta",
    "board_from": "yellow",
    "board_to": "green",
    "board": "purple",
    "hint_win": "green",
    "hint_draw": "yellow",
    "hint_loss": "orange",
    "warning": "pink",
    "undo": "cyan",
    "setup": "lime",
}


@dataclass(frozen=True, slots=True)
class Lit:
    """One LED in words: ``where`` (a square's name, or "status"), what it asks or says,
    its colour and whether it blinks."""

    where: str
    meaning: str
    colour: RGB
    blinking: bool = False

    def colour_name(self, palette: Palette) -> str:
        """The colour's name (the default palette's), or ``#rrggbb`` for one changed in
        the config's ``[lights.colours]``."""
        default = Palette()
        for f in fields(Palette):
            if getattr(palette, f.name) == self.colour and getattr(default, f.name) == self.colour:
                return COLOUR_NAMES[f.name]
        return rgb_hex(self.colour)

    def text(self, palette: Palette) -> str:
        """``c2: place a black marble here (blue, blinking)``."""
        name = self.colour_name(palette)
        how = f"{name}, blinking" if self.blinking else name
        return f"{self.where}: {self.meaning} ({how})"


def view_words(view: View | None, palette: Palette, who: str = "the board") -> list[Lit]:
    """Every LED that the view lights, in words, squares first (a1 to d4), the status pixel
    last; ``who`` names the player whose turn the LEDs show ("the board", or in a remote game
    "white's board")."""
    if view is None:
        return []
    p = palette
    squares: dict[int, Lit] = {}
    status: Lit | None = None

    def light(sq: int, meaning: str, colour: RGB, blinking: bool = False) -> None:
        squares[sq] = Lit(square_name(sq), meaning, colour, blinking)

    def turn_squares(turn: Turn, colour: Colour | None) -> None:
        if turn.move_from is not None and turn.move_to is not None:
            light(turn.move_from, "move this marble", p.board_from, True)
            light(turn.move_to, f"move it here (from {square_name(turn.move_from)})", p.board_to)
        if turn.place is not None and colour is not None:
            light(turn.place, f"place a {colour} marble here", p.marble(colour), True)

    mode = view.mode
    if mode == "refused":
        if view.board_turn is not None:
            turn_squares(view.board_turn, view.to_move)
        seen = dict(view.seen)
        for sq in view.squares:
            what = f"a {seen[sq]} marble: {view.to_move}'s turn" if sq in seen else ""
            light(sq, f"wrong: {what or 'undo what was done here'}", p.error, True)
        status = Lit("status", "refused: the red squares are wrong", p.error)
    elif mode in ("correction", "undo"):
        seen = dict(view.seen)
        for sq, colour in view.missing:
            if sq in seen:  # a marble of the other colour stands there
                light(sq, f"a {seen[sq]} marble: put a {colour} one here", p.marble(colour))
                continue
            light(sq, f"put a {colour} marble back here", p.marble(colour))
        if mode == "correction":
            for sq in view.extra:
                light(sq, "take this marble off", p.error)
            status = Lit("status", "the board does not match: fix the lit squares", p.error)
        else:
            for sq in view.extra:
                light(sq, "take this marble off", p.undo, True)
            status = Lit("status", "take-back: undo the lit squares", p.undo, True)
    elif mode == "setup":
        for sq, colour in view.later:
            light(sq, f"then put a {colour} marble here (dim)", p.marble(colour))
        for sq, colour in view.missing:
            light(sq, f"put a {colour} marble here", p.marble(colour))
        for sq in view.extra:
            light(sq, "take this marble off: this square stays empty", p.error, True)
        now = f"{view.to_move} marbles first" if view.missing else "clear the red squares"
        status = Lit("status", f"setting up: {now}", p.setup, True)
    elif mode == "menu" and view.menu is not None:
        choice = view.menu
        if choice.colour is None:
            for sq in range(4):
                colour = Colour.BLACK if sq % 2 == 0 else Colour.WHITE
                light(sq, "menu: two people", p.marble(colour))
        else:
            for sq in range(choice.strength):
                light(sq, f"menu: the board plays {choice.colour}", p.marble(choice.colour))
        status = Lit("status", "opponent menu: press for the next, hold to take it", p.board, True)
    elif mode == "result" and view.result is not None:
        if view.result is Result.DRAW:
            status = Lit("status", "a draw: every square pulses", p.draw, True)
        else:
            winner = view.result.winner
            assert winner is not None
            mask = 0
            for line in view.lines:
                mask |= line
            for sq in squares_of(mask):
                light(sq, f"{winner}'s winning line", p.marble(winner), True)
            status = Lit("status", f"{winner} wins", p.marble(winner), True)
    elif mode == "hint" and view.hint_turn is not None:
        turn_squares(view.hint_turn, view.to_move)
        value = view.value or "?"
        status = Lit("status", f"hint: the best turn, worth a {value}", p.hint(value))
    elif mode == "warning":
        for sq in view.squares:
            light(sq, "held back: this turn throws the game away", p.warning, True)
        status = Lit("status", "warning: press again to play it anyway", p.warning, True)
    elif mode in ("rotating", "starting"):
        status = Lit("status", "hands off: the rings turn", p.moving)
    elif mode == "fault":
        status = Lit("status", "fault: the board waits (see the fault line)", p.fault, True)
    elif view.board_turn is not None:
        turn_squares(view.board_turn, view.to_move)
        what = "a press" if view.board_turn.place is None else "it"
        status = Lit("status", f"{who}'s turn: make {what} for it and press", p.board)
    elif view.to_move is not None:
        status = Lit("status", f"{view.to_move} to move", p.marble(view.to_move))
    out = [squares[sq] for sq in sorted(squares)]
    return out + ([status] if status is not None else [])
