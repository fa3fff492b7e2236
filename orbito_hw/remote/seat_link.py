"""A seat across the internet: the link to the static page (``web/static/seat_remote.html``)
that plays one colour of a remote game through the broker, over MQTT over WebSockets, as a
board does (docs/seat.md). What the page needs is in the link's fragment (after ``#``): a
browser never sends it to the web host that serves the page, only the page reads it.

The seats invited from this board are kept in ``remote-seats.json`` in its state directory
(``AwaySeats``: never a password), so that ``seat list`` shows them and ``seat revoke``
withdraws one. The running board writes there what it hears of a seat's page (its hello:
online or not) and refuses a revoked seat's messages (remote/game.py).
"""

from __future__ import annotations

import logging
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final
from urllib.parse import urlencode, urlsplit

from orbito_hw.errors import echo
from orbito_hw.hw.files import RecordFile
from orbito_hw.lang import N_, chosen
from orbito_hw.remote.protocol import check_name
from orbito_hw.rules.game import Colour

log = logging.getLogger(__name__)

PAGE: Final = "static/seat_remote.html"  # where the board's own web page serves it
WS_SCHEMES: Final = ("ws", "wss")
SEATS_FILE: Final = "remote-seats.json"
MAX_SEATS: Final = 64  # the oldest revoked ones go first past this


@dataclass(frozen=True)
class SeatLink:
    link: str
    seat: str  # the seat's id on the broker: a board id, as protocol.py checks one
    broker: str
    game: str
    colour: Colour


def check_ws_url(text: str) -> str:
    """``text`` if it is a broker's WebSocket address (``wss://HOST[:PORT][/PATH]``, or
    ``ws://`` without TLS); ValueError naming the bad part."""
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError as exc:
        raise ValueError(f"{echo(text)}: {exc}") from None
    if parts.scheme not in WS_SCHEMES or not parts.hostname:
        raise ValueError(f"{echo(text)} is not wss://HOST[:PORT][/PATH] (or ws:// without TLS)")
    if parts.username or parts.password or parts.query or parts.fragment:
        raise ValueError(f"{echo(text)}: the credentials go in --user and --password")
    del port  # checked by urlsplit: 0..65535
    return text


def new_seat_id() -> str:
    """A seat's id: ``seat-`` and 48 random bits (a board id, safe in a topic)."""
    return "seat-" + secrets.token_hex(6)


def seat_link(
    page: str,
    broker: str,
    game: str,
    colour: Colour,
    user: str | None = None,
    password: str | None = None,
    seat: str | None = None,
) -> SeatLink:
    """The link that seats its opener at ``colour`` of ``game`` on ``broker``."""
    if not page.startswith(("http://", "https://")):
        raise ValueError(f"page {echo(page)}: an address starting with http:// or https://")
    check_ws_url(broker)
    check_name(game, "game")
    seat = check_name(seat or new_seat_id(), "seat")
    fields = {"broker": broker, "game": game, "colour": colour.value, "seat": seat}
    if user is not None:
        fields["user"] = user
    if password is not None:
        fields["password"] = password
    spoken = chosen()  # the board's language, when it chose one: the page speaks it too
    if spoken is not None:
        fields["lang"] = spoken
    return SeatLink(f"{page.split('#', 1)[0]}#{urlencode(fields)}", seat, broker, game, colour)


# --- the seats invited from this board ---------------------------------------------------------
@dataclass
class AwaySeat:
    """A seat across the internet invited from this board: its id on the broker (``seat``),
    the colour it plays in the remote game ``game``, the broker's WebSocket address, its user
    there (None: none; its password is never kept), when it was made, revoked (None: not),
    and its page's presence as this board last heard it (``online`` None: never heard)."""

    seat: str
    colour: str
    game: str
    broker: str
    user: str | None
    made: str
    revoked: str | None = None
    online: bool | None = None
    heard: str | None = None

    def state(self) -> str:
        """``live`` or ``revoked``."""
        return "revoked" if self.revoked else "live"


class AwaySeats(RecordFile[AwaySeat]):
    """``remote-seats.json`` in ``state_dir``: read at each use, written atomically (mode
    0600), so ``seat revoke`` beside a running board is seen at the seat's next message. A
    damaged file is no seat (one line in the log)."""

    def __init__(self, state_dir: Path) -> None:
        unusable = N_("{path} unusable ({reason}): no seat across the internet is listed")
        super().__init__(Path(state_dir) / SEATS_FILE, AwaySeat, "seats", unusable)
        self._revoked: frozenset[tuple[str, str]] = frozenset()

    def write(self, records: Sequence[AwaySeat]) -> None:
        seats = list(records)
        extra = len(seats) - MAX_SEATS
        if extra > 0:
            old = [s.seat for s in seats if s.revoked][:extra]
            seats = [s for s in seats if s.seat not in old]
        super().write(seats)

    def add(self, made: SeatLink, user: str | None) -> AwaySeat:
        """Keep the seat ``made`` (``seat invite --broker``)."""
        seat = AwaySeat(made.seat, made.colour.value, made.game, made.broker, user, _now())
        self.write([*self.read(), seat])
        return seat

    def matching(self, start: str) -> list[AwaySeat]:
        """The seats whose id is, or starts with, ``start`` (as ``seat list`` shows them)."""
        return [s for s in self.read() if start and s.seat.startswith(start)]

    def revoke(self, seat_id: str) -> AwaySeat:
        """Mark the seat ``seat_id`` revoked: the board refuses its messages from now on.
        LookupError if no seat has that id."""
        seats = self.read()
        for seat in seats:
            if seat.seat == seat_id:
                if seat.revoked is None:
                    seat.revoked = _now()
                    self.write(seats)
                return seat
        raise LookupError(f"no seat {echo(seat_id)} (seat list)")

    def heard(self, seat_id: str, game: str, colour: Colour, online: bool) -> None:
        """The running board heard the page of the seat ``seat_id`` say it is ``online`` or
        not (its hello, its last will): kept for ``seat list`` when it is a seat of ours and
        it changed (nothing written otherwise)."""
        seats = self.read()
        for seat in seats:
            if (seat.seat, seat.game, seat.colour) == (seat_id, game, colour.value):
                if seat.online is not online:
                    seat.online, seat.heard = online, _now()
                    self.write(seats)
                return

    def is_revoked(self, game: str, seat_id: str) -> bool:
        """Whether the seat ``seat_id`` of ``game`` was revoked here; the file read again
        only when it changed (a stat per message: a flood of messages reads it once)."""
        kept = self.changed()
        if kept is not None:
            self._revoked = frozenset((s.game, s.seat) for s in kept if s.revoked)
        return (game, seat_id) in self._revoked


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
