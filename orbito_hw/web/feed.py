"""What the pages are told: the referee's events and snapshots, written once for every page.

Each event is written to JSON once and queued to every page; a page that stops reading is
dropped (it reconnects by itself), and nothing a page does can raise into the referee (a
web listener that fails is logged). A page gets a snapshot first, so a page that
reconnects (after a controller restart) is whole again.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Callable, Iterable, Mapping
from typing import Final

from orbito_hw.control.events import Event
from orbito_hw.control.referee import Referee
from orbito_hw.control.snapshot import Snapshot
from orbito_hw.hw.interfaces import rgb_hex
from orbito_hw.lang import _, language, speaking
from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import (
    PRESS_TO,
    SQUARES,
    line_names,
    square_name,
)
from orbito_hw.web.controls import BoardControls, board_view
from orbito_hw.web.glows import arrow, glows, legend, status_words
from orbito_hw.web.instruction import (
    Memory,
    Situation,
    instruction,
    players_text,
    read,
    turn_owner,
)

log = logging.getLogger(__name__)

QUEUE_LIMIT: Final = 512
"""Writes (a turn of the loop's news each) a page may fall behind by before it is dropped
(a page asleep in a pocket)."""
HEARTBEAT_S: Final = 20.0
"""A comment line to every page this often: a page gone without a word is found out."""
RETRY_MS: Final = 1000
"""How soon a page reconnects after the stream ends (a controller restart)."""
HOLD_AFTER_S: Final = 0.3
"""The page's press button: held this long it holds the Orbito button, in real time;
released sooner it is a click (``press``). The page reads it from the snapshot."""


# --- what the pages are told ---------------------------------------------------------------
class Page:
    """One page following the board: what is still to be written to it."""

    def __init__(self, lang: str | None = None) -> None:
        self.lang = lang or language()  # the viewer's: its snapshots' sentences are in it
        self.queue: deque[bytes] = deque()
        self.wake = asyncio.Event()
        self.closed = False

    def send(self, chunk: bytes) -> None:
        if self.closed:
            return
        if len(self.queue) >= QUEUE_LIMIT:
            text = _("a page fell {n} messages behind: dropped (it reconnects)")
            log.info("%s", text.format(n=QUEUE_LIMIT))
            self.close()
            return
        self.queue.append(chunk)
        self.wake.set()

    def close(self) -> None:
        self.closed = True
        self.queue.clear()
        self.wake.set()

    async def next(self) -> bytes | None:
        """Everything queued, in one piece; None once the page is closed."""
        while not self.queue and not self.closed:
            self.wake.clear()
            await self.wake.wait()
        if self.closed:
            return None
        chunk = b"".join(self.queue)
        self.queue.clear()
        return chunk


def sse(obj: Mapping[str, object]) -> bytes:
    """One server-sent event whose ``data:`` line is ``obj`` as JSON."""
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


class Feed:
    """The board as the pages see it: the referee's events as they come, and a snapshot
    of the whole board after anything changed (at most one per turn of the event loop).

    A turn of the loop's events and its snapshot go to each page as one write: the page
    reads them in one piece and draws them in one frame, not one frame each."""

    def __init__(self, controls: BoardControls, locked: bool) -> None:
        self.controls = controls
        self.locked = locked
        self.pages: set[Page] = set()
        self._last: dict[str, dict[str, object]] = {}  # per language: the last one sent
        self._flush_due = False
        self._news: list[bytes] = []  # events since the last flush, in order
        self._heartbeat: asyncio.TimerHandle | None = None
        self._eval: tuple[Position, dict[str, object] | None] | None = None
        self._watched: Referee | None = None
        self.memory = Memory()  # what the instruction line needs of the events
        # Whether the board's opponent is a seat (a player on a phone, web/seat.py): set by
        # the server, which keeps the seats; the words then name that player, not a board.
        self.seated: Callable[[], bool] = lambda: False
        # The seat's link live now, {"colour", "made"} (web/seat.py), or None: the page with
        # the access code fetches it, to show it (one made at the board's button too).
        self.invitation: Callable[[int], dict[str, object] | None] = lambda game: None

    def watch(self) -> None:
        """Follow the controls' referee: its events, its lights and its squares."""
        referee = self.controls.referee
        if referee is self._watched:
            return
        self._watched = referee
        # Each frame drawn and each square read: a blink the lights alone do not animate
        # (a board without LEDs) runs for the page.
        referee.subscribe(self._on_event, changed=self.changed)
        self.changed()

    # --- pages -----------------------------------------------------------------------
    def join(self, lang: str | None = None) -> Page:
        """A page following the board, its sentences in ``lang`` (one of LANGUAGES; None:
        the board's own)."""
        self._flush()  # the news so far goes to the pages that were there for it
        page = Page(lang)
        page.send(f"retry: {RETRY_MS}\n\n".encode())
        first = self.snapshot(page.lang)
        self._last[page.lang] = first  # what every page of its language has now
        page.send(sse(first))
        self.pages.add(page)
        if self._heartbeat is None:
            self._heartbeat = asyncio.get_running_loop().call_later(HEARTBEAT_S, self._beat)
        return page

    def leave(self, page: Page) -> None:
        page.close()
        self.pages.discard(page)

    def close(self) -> None:
        for page in list(self.pages):
            self.leave(page)
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            self._heartbeat = None

    def _beat(self) -> None:
        self._heartbeat = None
        self._broadcast(b": still here\n\n")
        if self.pages:
            self._heartbeat = asyncio.get_running_loop().call_later(HEARTBEAT_S, self._beat)

    def _broadcast(self, chunk: bytes, told: Mapping[str, bytes] | None = None) -> None:
        """``chunk`` to every page, then what its language is ``told`` (a snapshot)."""
        for page in list(self.pages):
            page.send(chunk + (told or {}).get(page.lang, b""))
            if page.closed:
                self.pages.discard(page)

    # --- the board's news --------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        # Called inside the referee: nothing may raise back into it.
        try:
            self.memory.hear(event)
            self._news.append(sse(event.to_json()))
            self.changed()
        except Exception:
            text = _("the web page could not pass on a {kind} event")
            log.exception("%s", text.format(kind=event.kind))

    def changed(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        chunks, self._news = self._news, []
        told: dict[str, bytes] = {}
        try:
            # The board read once, its sentences once per language the pages speak: a
            # hundred French pages cost one French rendering.
            rendered = self._render({page.lang for page in self.pages})
        except Exception:
            log.exception("%s", _("the web page could not draw the board"))
        else:
            for code, snapshot in rendered.items():
                if snapshot != self._last.get(code):
                    self._last[code] = snapshot
                    told[code] = sse(snapshot)
        if chunks or told:
            self._broadcast(b"".join(chunks), told)

    def snapshot(self, lang: str | None = None) -> dict[str, object]:
        """The whole board as the page draws it (the ``snapshot`` event), its sentences in
        ``lang`` (None: the board's own language)."""
        code = lang or language()
        return self._render([code])[code]

    def _render(self, langs: Iterable[str]) -> dict[str, dict[str, object]]:
        """The snapshot in each of ``langs``: the board read once, the words said in each."""
        codes = set(langs)
        if not codes:
            return {}
        now = self.controls.referee.snapshot()
        situation = read(now, self.memory, seat=self.seated())
        evaluation = self._evaluation(now.position) if now.hints else None
        rendered: dict[str, dict[str, object]] = {}
        for code in sorted(codes):
            with speaking(code):
                rendered[code] = self._said(now, situation, evaluation)
        return rendered

    def _said(
        self, now: Snapshot, situation: Situation, evaluation: dict[str, object] | None
    ) -> dict[str, object]:
        """The snapshot with its sentences in the language spoken now (lang.speaking)."""
        position, saved, squares, status = now.position, now.saved, now.leds, now.status
        opponent = now.opponent
        result = position.result
        palette = now.palette
        phase, sentence = instruction(situation)
        who = turn_owner(situation)
        return {
            "event": "snapshot",
            "game": saved.game,
            "first": saved.first.value,
            "turns": list(saved.turns),
            "view": board_view(saved),  # sent back with a click: what it was made on
            "to_move": None if result else position.to_move.value,
            "state": now.state.value,
            "marbles": {square_name(sq): m.colour.value for sq, m in sorted(now.marbles.items())},
            "hand": [m.colour.value for m in now.hand],
            "leds": {square_name(sq): rgb_hex(c) for sq, c in enumerate(squares) if c},
            "status": rgb_hex(status) if status else "",
            "result": result.value if result else None,
            "lines": line_names(position.lines()) if result else [],
            "players": {
                c.value: opponent.player if opponent and opponent.colour is c else "person"
                for c in Colour
            },
            "seat": situation.opponent.value if situation.seat and situation.opponent else None,
            "invitation": self.invitation(saved.game),
            "hints": now.hints,
            "eval": evaluation,
            "simulated": self.controls.simulated,
            "locked": self.locked,
            "take_back": True,  # the page's control: the referee always takes back
            # Asked across the board (control/asks.py), and the game's last answer.
            "ask": now.ask.to_json() if now.ask is not None else None,
            "answered": now.answered.to_json() if now.answered is not None else None,
            "hold_after_ms": round(HOLD_AFTER_S * 1000),
            "rings": {square_name(sq): square_name(PRESS_TO[sq]) for sq in SQUARES},
            "instruction": sentence,
            "phase": phase,
            "who": players_text(situation),
            "glows": glows(situation.view, palette, who),
            "arrow": arrow(situation.view),
            "status_text": status_words(situation.view, palette, who),
            "legend": legend(palette),
        }

    def _evaluation(self, position: Position) -> dict[str, object] | None:
        """How the game stands with perfect play, for the side to move (hints on)."""
        if self._eval is not None and self._eval[0] is position:
            return self._eval[1]
        value: dict[str, object] | None = None
        if not position.is_over:
            from orbito_hw.solver.table import shipped_solution  # loaded with hints only

            score = shipped_solution().score(position)
            value = {
                "to_move": position.to_move.value,
                "value": score.value.value,
                "plies": score.plies,
            }
        self._eval = (position, value)
        return value


# --- the archive ---------------------------------------------------------------------------
