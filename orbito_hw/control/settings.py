"""The referee's settings: timing, the palette, who plays and hints, from the config or
the simulated board's options."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from orbito_hw.control.board_player import BoardPlayer
from orbito_hw.control.lights import Palette
from orbito_hw.rules.game import Colour


@dataclass(frozen=True)
class Settings:
    first: Colour = Colour.BLACK
    debounce: float = 0.05  # seconds a square must hold still; 0 passes changes straight on
    hold_time: float = 2.0
    settle: float = 0.05
    palette: Palette = field(default_factory=Palette)
    opponent: BoardPlayer | None = None  # None: two people at the board
    hints: bool = False  # a press before any touch shows the best turn; blunders are held back
    # The opponent menu (menu.py): the board as a player at a level and colour, made when
    # chosen (None: no menu); opened by holding the button this long on the empty board.
    make_player: Callable[[str, Colour], BoardPlayer] | None = field(default=None, compare=False)
    menu_hold: float = 5.0
    # The menu's last item, "invite a player" (a seat on a phone, docs/seat.md): carried out by
    # the app (the page's seats make the link, log it and show it), given the colour the seat
    # plays; answers None once the link is made, else why not. None: no such item (no page).
    invite_seat: Callable[[Colour], str | None] | None = field(default=None, compare=False)
