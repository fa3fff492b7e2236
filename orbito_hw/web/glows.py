"""What each lit square means, for the page to draw it so that no one takes a glow for a
marble: a kind per square (``place``, ``from``, ``to``, ``fix``...), the LED colour it
shows, whether it blinks and its meaning in words; the arrow of a move the board asks for;
and the legend of the colours.

The words come from control/led_words.py (the prompt's words for the same LEDs), the kinds
from the same ``View`` the light show draws: the page, the prompt and the LEDs agree.
"""

from __future__ import annotations

from typing import Final

from orbito_hw.control.led_words import view_words
from orbito_hw.control.lights import Palette, View
from orbito_hw.hw.interfaces import rgb_hex
from orbito_hw.rules.game import Colour, Result
from orbito_hw.rules.squares import SQUARES, square_name, squares_of
from orbito_hw.rules.turn import Turn

Glow = dict[str, object]


def _turn_kinds(turn: Turn, kinds: dict[int, str]) -> None:
    if turn.move_from is not None and turn.move_to is not None:
        kinds[turn.move_from] = "from"
        kinds[turn.move_to] = "to"
    if turn.place is not None:
        kinds[turn.place] = "place"


def kinds_of(view: View | None) -> dict[int, str]:
    """Each lit square's kind, as the light show lights it for ``view``."""
    kinds: dict[int, str] = {}
    if view is None:
        return kinds
    mode = view.mode
    if mode == "refused":
        if view.board_turn is not None:
            _turn_kinds(view.board_turn, kinds)
        kinds.update(dict.fromkeys(view.squares, "fix"))
    elif mode in ("correction", "undo"):
        kinds.update({sq: "back" for sq, _ in view.missing})
        kinds.update(dict.fromkeys(view.extra, "fix" if mode == "correction" else "undo"))
    elif mode == "menu":
        kinds.update(dict.fromkeys(range(16), "menu"))
    elif mode == "result" and view.result is not None:
        if view.result is Result.DRAW:
            kinds.update(dict.fromkeys(SQUARES, "draw"))
        else:
            for line in view.lines:
                kinds.update(dict.fromkeys(squares_of(line), "line"))
    elif mode == "hint" and view.hint_turn is not None:
        _turn_kinds(view.hint_turn, kinds)
    elif mode == "warning":
        kinds.update(dict.fromkeys(view.squares, "warning"))
    elif mode == "play" and view.board_turn is not None:
        _turn_kinds(view.board_turn, kinds)
    return kinds


def glows(view: View | None, palette: Palette) -> dict[str, Glow]:
    """``{square: {"kind", "colour", "blink", "meaning"}}`` for each square the view lights."""
    words = {lit.where: lit for lit in view_words(view, palette)}
    out: dict[str, Glow] = {}
    for sq, kind in sorted(kinds_of(view).items()):
        name = square_name(sq)
        lit = words.get(name)
        if lit is None and kind != "draw":
            continue  # the menu lights some squares only
        if kind == "draw":
            out[name] = {"kind": kind, "colour": rgb_hex(palette.draw), "blink": True,
                         "meaning": "a draw"}  # fmt: skip
            continue
        assert lit is not None
        out[name] = {
            "kind": kind,
            "colour": rgb_hex(lit.colour),
            "blink": lit.blinking,
            "meaning": lit.meaning,
        }
    return out


def arrow(view: View | None) -> list[str] | None:
    """The move the board (or a hint) asks for, from-square and to-square; else None."""
    if view is None or view.mode not in ("play", "refused", "hint"):
        return None
    turn = view.hint_turn if view.mode == "hint" else view.board_turn
    if turn is None or turn.move_from is None or turn.move_to is None:
        return None
    return [square_name(turn.move_from), square_name(turn.move_to)]


def status_words(view: View | None, palette: Palette) -> str:
    """What the status pixel says, in words ("" when dark)."""
    for lit in view_words(view, palette):
        if lit.where == "status":
            return lit.meaning
    return ""


LEGEND: Final = (
    ("black", "a black marble's colour: place one here, or its winning line"),
    ("white", "a white marble's colour: place one here, or its winning line"),
    ("board_from", "the board's move: lift the marble here"),
    ("board_to", "the board's move: put that marble here"),
    ("board", "status light: the board's turn, make it for it"),
    ("error", "fix this square: it is wrong"),
    ("undo", "take-back: take this marble off"),
    ("warning", "warning: this turn throws the game away"),
    ("draw", "a draw"),
)
"""The legend's rows: the palette's colour and what it means on the board."""


def legend(palette: Palette) -> list[dict[str, str]]:
    """The legend, in the board's own colours (the config may change them)."""
    rows = []
    for key, text in LEGEND:
        colour = palette.marble(Colour(key)) if key in ("black", "white") else getattr(palette, key)
        rows.append({"key": key, "colour": rgb_hex(colour), "text": text})
    return rows
