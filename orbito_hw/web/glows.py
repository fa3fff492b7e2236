"""What each lit square means, for the page to draw it so that no one takes a glow for a
marble: a kind per square (``place``, ``from``, ``to``, ``fix``...), the LED colour it
shows, whether it blinks, whether its step is to do now or waits, and its meaning in words;
the arrow of a move the board asks for; and the legend of the colours.

In a guided flow the squares are the guide's (control/guide.py: what is left to do, as far
as the hands got), their colours the light show's and their words the prompt's
(control/led_words.py): the page, the prompt and the LEDs agree.
"""

from __future__ import annotations

from typing import Final

from orbito_hw.control.guide import Step
from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import Palette, View, guide_of
from orbito_hw.hw.interfaces import rgb_hex
from orbito_hw.lang import N_, _
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import SQUARES, square_name, squares_of

Glow = dict[str, object]

KINDS: Final = {
    "lift": "from",
    "put": "to",
    "place": "place",
    "put-back": "back",
    "swap": "back",
    "undo": "fix",
    "take-off": "fix",
}
"""The page's kind of a guide's step (a take-back's marble to take off: ``undo``)."""


def _kind(flow: str, step: Step) -> str:
    if step.action == "take-off" and flow == "undo":
        return "undo"
    return KINDS.get(step.action, "fix")


def kinds_of(view: View | None) -> dict[int, str]:
    """Each lit square's kind, as the light show lights it for ``view``."""
    kinds: dict[int, str] = {}
    if view is None:
        return kinds
    guide = guide_of(view)
    if guide is not None:
        return {sq: _kind(guide.flow, step) for sq, step in guide.shown().items()}
    mode = view.mode
    if mode == "menu":
        kinds.update(dict.fromkeys(range(16), "menu"))
    elif mode == "result" and view.result is not None:
        if view.result is Result.DRAW:
            kinds.update(dict.fromkeys(SQUARES, "draw"))
        else:
            for line in view.lines:
                kinds.update(dict.fromkeys(squares_of(line), "line"))
    elif mode == "discard":  # throw this game away? every square pulses
        kinds.update(dict.fromkeys(SQUARES, "discard"))
    elif mode == "warning":
        kinds.update(dict.fromkeys(view.squares, "warning"))
    elif view.ask is not None:  # an ask waiting for its answer: its squares pulse
        kinds.update(dict.fromkeys(view.ask.squares, "ask"))
    return kinds


def glows(view: View | None, palette: Palette, who: str = "") -> dict[str, Glow]:
    """``{square: {"kind", "colour", "blink", "meaning", "step"}}`` for each square the view
    lights; ``step`` is "now" or "waiting" for a guided flow's square (a waiting one shows
    its colour dimly, steady), "" otherwise. ``who``: whose turn the LEDs show ("the board",
    "white's board", "the player on the phone"; "": the board)."""
    words = {lit.where: lit for lit in view_words(view, palette, who or _("the board"))}
    guide = guide_of(view)
    shown = guide.shown() if guide is not None else {}
    out: dict[str, Glow] = {}
    for sq, kind in sorted(kinds_of(view).items()):
        name = square_name(sq)
        lit = words.get(name)
        if lit is None and kind not in ("draw", "discard"):
            continue  # the menu lights some squares only
        if kind == "draw":
            out[name] = {"kind": kind, "colour": rgb_hex(palette.draw), "blink": True,
                         "meaning": _("a draw"), "step": ""}  # fmt: skip
            continue
        if kind == "discard":
            out[name] = {"kind": kind, "colour": rgb_hex(palette.discard), "blink": True,
                         "meaning": _("throw this game away? hold the button again to agree"),
                         "step": ""}  # fmt: skip
            continue
        assert lit is not None
        step = shown[sq].progress if sq in shown else ""
        out[name] = {
            "kind": kind,
            "colour": rgb_hex(lit.colour),  # as the LED shows it: dim while the step waits
            "blink": lit.blinking or lit.pulsing,
            "meaning": lit.meaning,
            "step": step,
        }
    return out


def arrow(view: View | None) -> list[str] | None:
    """The move still to make that the board (or a hint) asks for: from-square and
    to-square, until the marble is put on its square; else None."""
    guide = guide_of(view)
    if guide is None or guide.flow not in ("board-turn", "hint", "refused"):
        return None
    for step in guide.left():
        if step.action == "put" and step.origin is not None and step.square is not None:
            return [square_name(step.origin), square_name(step.square)]
    return None


def status_words(view: View | None, palette: Palette, who: str = "") -> str:
    """What the status pixel says, in words ("" when dark); ``who`` as for glows()."""
    for lit in view_words(view, palette, who or _("the board")):
        if lit.where == "status":
            return lit.meaning
    return ""


LEGEND: Final = (
    ("black", N_("a black marble's colour: place one here, or its winning line")),
    ("white", N_("a white marble's colour: place one here, or its winning line")),
    ("board_from", N_("the board's move: lift the marble here")),
    ("board_to", N_("the board's move: once lifted, put that marble here")),
    ("board", N_("status light: the board's turn, make it for it (blinking: now press)")),
    ("error", N_("fix this square: it is wrong")),
    ("undo", N_("take-back: take this marble off")),
    ("warning", N_("warning: this turn throws the game away")),
    ("draw", N_("a draw")),
    ("discard", N_("every square pulsing: throw this game away? hold again to agree")),
)
"""The legend's rows: the palette's colour and what it means on the board. A square lit
dimly is a step after the one lit fully."""


def legend(palette: Palette) -> list[dict[str, str]]:
    """The legend, in the board's own colours (the config may change them)."""
    rows = []
    for key, text in LEGEND:
        colour = palette.marble(Colour(key)) if key in ("black", "white") else getattr(palette, key)
        rows.append({"key": key, "colour": rgb_hex(colour), "text": _(text)})
    return rows
