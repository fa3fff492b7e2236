"""A game ended by the players rather than by a line: a resignation, or a draw agreed.

The rules end a game on a line (or on the extra presses); people also end one by resigning
or by agreeing a draw. Such a result is no position's, so the referee cannot stay on it as it
stays on a line: the result is told and kept (the ``result`` event with no line, which the
archive records; the journal's history, once, as ``announced`` says), and a new game begins
at once, the same side first, as a hold of the button after a result would begin it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable

from orbito_hw.control.core import Core
from orbito_hw.control.events import GameOver
from orbito_hw.control.led_words import result_words
from orbito_hw.lang import R_, _, reworded
from orbito_hw.rules.game import Colour, Result

log = logging.getLogger(__name__)


def can_end(referee: Core) -> str:
    """Why the game on ``referee`` cannot be resigned or drawn now; "" when it can: a game
    still on, the board waiting for a turn or one in progress (not while the rings turn)."""
    if referee.position.result is not None:
        return R_("the game is already over")
    if not referee.playing:
        return R_("the board is busy (the rings turn, or it asks for the board to be put right)")
    return ""


def end_by_agreement(referee: Core, result: Result, new_game: Callable[[Colour], None]) -> None:
    """End the game with ``result`` (the winner when the other side resigned, or a draw):
    told once, kept in the history once, then the next game begins (``new_game``, the
    referee's)."""
    why = can_end(referee)
    if why:
        text = _("the game was not ended ({result}): {reason}")
        log.warning("%s", text.format(result=result_words(result), reason=reworded(why)))
        return
    saved = referee.saved
    referee.emit(GameOver.of(saved.game, result, (), referee.settings.palette))
    referee.journal.add_to_history(saved, result.value)
    saved.announced = True  # the new game does not keep it again as abandoned
    referee.save()
    text = _("game {game} ended by the players: {result}")
    log.info("%s", text.format(game=saved.game, result=result_words(result)))
    new_game(saved.first)  # the next game if this one had begun
