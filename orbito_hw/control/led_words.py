"""What the LEDs show, in words: for a person at a terminal (``run --mock --interactive``),
who cannot read ``#ffc800`` as "move this marble".

It reads the light show's ``View`` (what the board means to show, lights.py composes the
same view into colours), so the words and the LEDs never disagree: each lit square and the
status pixel become a ``Lit``, its meaning, the palette colour by name and whether it blinks.
In a guided flow (the board's turn, a refusal, a correction, a set-up, a take-back) the
words are the guide's steps (guide.py), one per square still to do, as the LEDs light them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

from orbito_hw.control.guide import Guide, Step
from orbito_hw.control.lights import (
    AskShown,
    Palette,
    View,
    ask_status,
    dimmed,
    guide_of,
    guide_status,
    light_of,
)
from orbito_hw.hw.interfaces import RGB, rgb_hex
from orbito_hw.lang import N_, _
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import square_name, squares_of

# The default palette's colours by the name a person gives them.
COLOUR_NAMES = {
    "black": N_("blue"),
    "white": N_("white"),
    "error": N_("red"),
    "draw": N_("orange"),
    "moving": N_("grey"),
    "fault": N_("magenta"),
    "board_from": N_("yellow"),
    "board_to": N_("green"),
    "board": N_("purple"),
    "hint_win": N_("green"),
    "hint_draw": N_("yellow"),
    "hint_loss": N_("orange"),
    "warning": N_("pink"),
    "undo": N_("cyan"),
    "setup": N_("lime"),
    "discard": N_("red"),
}
MARBLE_COLOURS = {Colour.BLACK: N_("black"), Colour.WHITE: N_("white")}


@dataclass(frozen=True, slots=True)
class Lit:
    """One LED in words: ``where`` (a square's name, or "status"), what it asks or says,
    its colour and whether it blinks."""

    where: str
    meaning: str
    colour: RGB
    blinking: bool = False
    dim: bool = False  # a step waiting: ``colour`` is the LED's, a palette colour dimmed
    pulsing: bool = False  # an ask waiting: ``colour`` at its brightest

    def colour_name(self, palette: Palette) -> str:
        """The colour's name (the default palette's), or ``#rrggbb`` for one changed in
        the config's ``[lights.colours]``."""
        default = Palette()
        for f in fields(Palette):
            ours, theirs = getattr(palette, f.name), getattr(default, f.name)
            if self.dim:  # named after the colour it dims
                ours, theirs = dimmed(ours), dimmed(theirs)
            if ours == self.colour and theirs == self.colour:
                return _(COLOUR_NAMES[f.name])
        return rgb_hex(self.colour)

    def text(self, palette: Palette) -> str:
        """``c2: place a black marble here (blue, blinking)``."""
        name = self.colour_name(palette)
        how = _("{colour}, blinking").format(colour=name) if self.blinking else name
        how = _("{colour}, pulsing").format(colour=name) if self.pulsing else how
        how = _("{colour}, dim").format(colour=name) if self.dim else how
        # a square's name is notation (never translated); the status pixel's is a word
        where = _("status") if self.where == "status" else self.where
        return _("{where}: {meaning} ({how})").format(where=where, meaning=self.meaning, how=how)


def colour_word(colour: Colour | None) -> str:
    """A marble colour in words ("black", "white"), in the process's language."""
    return _(MARBLE_COLOURS[colour]) if colour is not None else ""


RESULTS = {Result.BLACK: N_("black wins"), Result.WHITE: N_("white wins"), Result.DRAW: N_("draw")}


def result_words(result: Result) -> str:
    """A game's result in words ("black wins", "draw"), in the language spoken now."""
    return _(RESULTS[result])


def step_words(flow: str, step: Step, to_move: Colour | None = None) -> str:
    """What one step asks, for its square's LED: "lift this marble", "put the marble from
    c1 here", "place a white marble here"...; a step waiting starts with "then"."""
    colour, seen = colour_word(step.colour), colour_word(step.seen)
    action = step.action
    if action == "lift":
        text = _("lift this marble")
    elif action == "put":
        origin = square_name(step.origin) if step.origin is not None else "?"
        text = _("put the marble from {square} here").format(square=origin)
    elif action == "place":
        if flow == "setup":
            text = _("put a {colour} marble here").format(colour=colour)
        else:
            text = _("place a {colour} marble here").format(colour=colour)
    elif action == "put-back":
        text = _("put a {colour} marble back here").format(colour=colour)
    elif action == "swap":
        text = _("a {seen} marble: put a {colour} one here").format(seen=seen, colour=colour)
    elif action == "take-off":
        if flow == "setup":
            text = _("take this marble off: this square stays empty")
        elif flow in ("board-turn", "refused"):
            text = _("wrong: take this marble off")
        else:
            text = _("take this marble off")
    elif step.seen is not None:  # "undo", a marble of the wrong colour read there
        text = _("wrong: a {seen} marble: {colour}'s turn").format(
            seen=seen, colour=colour_word(to_move)
        )
    else:
        text = _("wrong: undo what was done here")
    if step.progress == "waiting":
        return _("then {step}").format(step=text)
    return text


def guide_status_words(view: View, guide: Guide, who: str) -> str:
    """What the status pixel says in a guided flow."""
    flow = guide.flow
    if flow == "refused":
        if guide.squares(("undo",)):
            return _("refused: the red squares are wrong")
        if guide.fixes:
            return _("refused: first put the lit squares right")
        if view.board_turn is not None:
            return _("refused: make {who}'s turn as lit, then press").format(who=who)
        return _("refused: place a marble, then press")
    if flow == "correction":
        return _("the board does not match: fix the lit squares")
    if flow == "undo":
        return _("take-back: undo the lit squares")
    if flow == "setup":
        if any(s.action == "place" and s.progress == "now" for s in guide.left()):
            return _("setting up: {colour} marbles first").format(colour=colour_word(view.to_move))
        return _("setting up: clear the red squares")
    if flow == "hint":
        value = view.value or "?"
        return _("hint: the best turn, worth a {value}").format(value=value)
    if guide.fixes:
        return _("{who}'s turn: first put right the squares lit at full").format(who=who)
    if guide.press_now:
        return _("{who}'s turn: made; now press").format(who=who)
    if view.board_turn is not None and view.board_turn.place is None:
        return _("{who}'s turn: make a press for it and press").format(who=who)
    return _("{who}'s turn: make it for it and press").format(who=who)


def ask_words(ask: AskShown) -> tuple[str, str]:
    """What an ask waiting says: on each of its squares, and on the status pixel."""
    colour = colour_word(ask.colour)
    if ask.what == "take-back":
        square = _("{colour} asks to take back the turn that put this marble here")
        status = _("{colour} asks to take back their last turn: hold the button to agree, "
                   "or refuse on the page, or play on")  # fmt: skip
    else:
        square = _("{colour} offers a draw")
        status = _("{colour} offers a draw: agree on the page, or play on")
        if not ask.away:  # the person at the board offered it
            status = _("{colour} offers a draw: waiting for the player away's answer")
    return square.format(colour=colour), status.format(colour=colour)


def view_words(view: View | None, palette: Palette, who: str | None = None) -> list[Lit]:
    """Every LED that the view lights, in words, squares first (a1 to d4), the status pixel
    last; ``who`` names the player whose turn the LEDs show ("the board", or in a remote game
    "white's board"; by default the board, in the language spoken now)."""
    if view is None:
        return []
    who = _("the board") if who is None else who
    p = palette
    squares: dict[int, Lit] = {}
    status: Lit | None = None

    def light(
        sq: int, meaning: str, colour: RGB, blinking: bool = False, dim: bool = False
    ) -> None:
        squares[sq] = Lit(square_name(sq), meaning, colour, blinking, dim)

    guide = guide_of(view)
    mode = view.mode
    if guide is not None:
        for sq, step in guide.shown().items():
            rgb, blinks = light_of(guide.flow, step, p)  # as the LED shows it
            words = step_words(guide.flow, step, view.to_move)
            light(sq, words, rgb, blinks, step.progress == "waiting")
        colour_now, blinks = guide_status(view, guide, p)
        if colour_now is not None:
            status = Lit("status", guide_status_words(view, guide, who), colour_now, blinks)
    elif mode == "menu" and view.menu is not None:
        choice = view.menu
        if choice.colour is None:
            for sq in range(4):
                both = Colour.BLACK if sq % 2 == 0 else Colour.WHITE
                light(sq, _("menu: two people"), p.marble(both))
        elif choice.made:  # an invitation made from the menu: the LEDs confirm it
            colour = colour_word(choice.colour)
            for sq in choice.squares:
                text = _("invited: a player on a phone plays {colour}").format(colour=colour)
                light(sq, text, p.marble(choice.colour), True)
            text = _("a player is invited: the link is on the page and in the log")
            status = Lit("status", text, p.marble(choice.colour), True)
        elif choice.seat:
            for sq in choice.squares:
                text = _("menu: invite a player on a phone for {colour}").format(
                    colour=colour_word(choice.colour)
                )
                light(sq, text, p.marble(choice.colour))
        else:
            for sq in choice.squares:
                text = _("menu: the board plays {colour}").format(colour=colour_word(choice.colour))
                light(sq, text, p.marble(choice.colour))
        if not choice.made:
            text = _("opponent menu: press for the next, hold to take it")
            status = Lit("status", text, p.board, True)
    elif mode == "result" and view.result is not None:
        if view.result is Result.DRAW:
            status = Lit("status", _("a draw: every square pulses"), p.draw, True)
        else:
            winner = view.result.winner
            assert winner is not None
            mask = 0
            for line in view.lines:
                mask |= line
            name = colour_word(winner)
            for sq in squares_of(mask):
                text = _("{colour}'s winning line").format(colour=name)
                light(sq, text, p.marble(winner), True)
            text = _("{colour} wins").format(colour=name)
            status = Lit("status", text, p.marble(winner), True)
    elif mode == "warning":
        # What the turn throws away, said as it is: a loss is not a draw (hints.py's value).
        if view.value == "loss":
            held = _("held back: this turn loses the game")
        else:
            held = _("held back: this turn throws the win away (a draw)")
        for sq in view.squares:
            light(sq, held, p.warning, True)
        text = _("warning: press again to play it anyway")
        status = Lit("status", text, p.warning, True)
    elif mode == "discard":  # every square pulses with the status pixel: said once, there
        text = _("throw this game away? Hold the button again for a new game; press, or put "
                 "a marble down, to play on")  # fmt: skip
        status = Lit("status", text, p.discard, pulsing=True)
    elif mode in ("rotating", "starting"):
        status = Lit("status", _("hands off: the rings turn"), p.moving)
    elif mode == "fault":
        status = Lit("status", _("fault: the board waits (see the fault line)"), p.fault, True)
    elif view.ask is not None:  # an ask waiting: its squares and the status pixel pulse
        ask = view.ask
        on_square, on_status = ask_words(ask)
        for sq in ask.squares:
            squares[sq] = Lit(square_name(sq), on_square, p.marble(ask.colour), pulsing=True)
        status = Lit("status", on_status, ask_status(ask, p), pulsing=True)
    elif view.to_move is not None:
        text = _("{colour} to move").format(colour=colour_word(view.to_move))
        status = Lit("status", text, p.marble(view.to_move))
    out = [squares[sq] for sq in sorted(squares)]
    return out + ([status] if status is not None else [])
