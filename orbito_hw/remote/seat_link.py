"""A seat across the internet: the link to the static page (``web/static/seat_remote.html``)
that plays one colour of a remote game through the broker, over MQTT over WebSockets, as a
board does (docs/seat.md). What the page needs is in the link's fragment (after ``#``): a
browser never sends it to the web host that serves the page, only the page reads it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from typing import Final
from urllib.parse import urlencode, urlsplit

from orbito_hw.errors import echo
from orbito_hw.remote.protocol import check_name
from orbito_hw.rules.game import Colour

PAGE: Final = "static/seat_remote.html"  # where the board's own web page serves it
WS_SCHEMES: Final = ("ws", "wss")


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
    return SeatLink(f"{page.split('#', 1)[0]}#{urlencode(fields)}", seat, broker, game, colour)
