"""The seats' invitations, kept in the state directory (``seats.json``), and their QR codes.

An invitation is a link for one game and one colour: ``/seat/TOKEN``. The token is its own
(not the access code): 128 random bits, URL-safe, compared in constant time; it is kept in
the state directory (mode 0600, written atomically), so a restart of the board keeps the
link working, and ``seat revoke`` withdraws it (kept, marked revoked, so its page can say
so rather than "unknown"). ``seat invite`` (the CLI) writes an invitation for "the game on
the board when the link is first opened"; the page's invitation names the game at once.

No aiohttp here: the command line reads and writes the book without loading the server.
"""

from __future__ import annotations

import hmac
import io
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final

from orbito_hw.errors import OrbitoError, echo
from orbito_hw.hw.files import RecordFile
from orbito_hw.lang import N_, R_, _, chosen
from orbito_hw.rules.game import Colour

log = logging.getLogger(__name__)

SEATS_FILE: Final = "seats.json"
TOKEN_BYTES: Final = 16  # 128 bits: not guessed, by a page or a flood
MAX_INVITATIONS: Final = 64  # the oldest revoked or ended ones go first past this


# Why a link is not made or not found: English (an answer's data), marked R_ so that the
# page and the command line say it in their reader's language (lang.reworded).
SEATED_ALREADY = {
    "black": R_("black has a seat already (link {link}): revoke it first (seat revoke)"),
    "white": R_("white has a seat already (link {link}): revoke it first (seat revoke)"),
}
NO_LINK = R_("no seat's link starts with {start} (seat list)")
LINKS = R_("more than one seat's link starts with {start} (seat list)")


class SeatTakenError(OrbitoError, ValueError):
    """An invitation asked for while another one is live: one seat at a time."""


class SeatUnknownError(OrbitoError, LookupError):
    """A token (or its start) that names no invitation, or more than one."""


@dataclass
class Invitation:
    """One link: its token, the colour it plays, the game it is for (None: the game on the
    board when it is first opened), when it was made, revoked (None: not) and whether its
    game is over on the board (a new game began)."""

    token: str
    colour: str
    game: int | None
    made: str
    revoked: str | None = None
    ended: bool = False

    @property
    def live(self) -> bool:
        return self.revoked is None and not self.ended

    @property
    def plays(self) -> Colour:
        return Colour(self.colour)

    def state(self) -> str:
        """``live``, ``revoked`` or ``ended``: what its page says."""
        return "revoked" if self.revoked else "ended" if self.ended else "live"


class SeatBook(RecordFile[Invitation]):
    """``seats.json`` in ``state_dir``: read at each use, so a restart, or ``seat revoke``
    run beside a running board, is seen at the seat's next request. A damaged file is no
    invitation (one line in the log): its links stop working, none is made up."""

    def __init__(self, state_dir: Path) -> None:
        unusable = N_("{path} unusable ({reason}): no seat's link works until a new invitation")
        super().__init__(Path(state_dir) / SEATS_FILE, Invitation, "seats", unusable)
        self._live: list[Invitation] = []

    def write(self, records: Sequence[Invitation]) -> None:
        """Atomically, readable by the board's user only (the tokens are keys)."""
        super().write(_trimmed(list(records)))

    def invite(self, colour: Colour, game: int | None = None) -> Invitation:
        """A new link for ``colour``; SeatTakenError while another link is live (one seat:
        the board's person plays the other colour)."""
        seats = self.read()
        for seat in seats:
            if seat.live and (game is None or seat.game in (None, game)):
                raise SeatTakenError(
                    SEATED_ALREADY[seat.colour].format(link=f"{seat.token[:6]}...")
                )
        made = Invitation(secrets.token_urlsafe(TOKEN_BYTES), colour.value, game, _now())
        self.write([*seats, made])
        return made

    def find(self, token: str) -> Invitation | None:
        """The invitation whose token is ``token`` (every one compared, in constant time)."""
        found = None
        offered = token.encode("utf-8", "replace")
        for seat in self.read():
            if hmac.compare_digest(seat.token.encode(), offered):
                found = seat
        return found

    def live(self, game: int) -> Invitation | None:
        """The newest live link of ``game`` (or for the game opened next), for the board's
        page to show; the file read again only when it changed (a stat a snapshot)."""
        kept = self.changed()
        if kept is not None:
            self._live = [s for s in kept if s.live]
        return next((s for s in reversed(self._live) if s.game in (None, game)), None)

    def update(self, changed: Invitation) -> None:
        self.write([changed if s.token == changed.token else s for s in self.read()])

    def revoke(self, start: str) -> Invitation:
        """Withdraw the link whose token is, or starts with, ``start`` (``seat list``
        shows the starts); SeatUnknownError naming ``start`` for none or several."""
        seats = self.read()
        matching = [s for s in seats if start and s.token.startswith(start)]
        if len(matching) != 1:
            how = NO_LINK if not matching else LINKS
            raise SeatUnknownError(how.format(start=echo(start)))
        (seat,) = matching
        if seat.revoked is None:
            seat.revoked = _now()
            self.write(seats)
        return seat


class BoardInvites:
    """The button's menu's "invite a player" (``Settings.invite_seat``, control/menu.py):
    the referee's settings are made before the page, whose seats carry it out once it is up
    (``to``: web/seat.py's ``SeatDesk.invite_at_board``, set by app/run.py and
    mock/worlds.py). It never raises: an error of the page's is its own line in the log and a
    reason for the LEDs' refusal, never the referee's stop."""

    def __init__(self) -> None:
        self.to: Callable[[Colour], str | None] | None = None

    def __call__(self, colour: Colour) -> str | None:
        if self.to is None:
            return R_("the board's page is not up")
        try:
            return self.to(colour)
        except Exception as exc:  # the page's failure, told: never the referee's
            text = _("seat: the menu's invitation failed: {error}: {reason}")
            log.error("%s", text.format(error=type(exc).__name__, reason=exc))
            return R_("the page could not make the link ({error})").format(error=type(exc).__name__)


def _trimmed(seats: list[Invitation]) -> list[Invitation]:
    """At most MAX_INVITATIONS, the live ones kept: a board invites for years."""
    extra = len(seats) - MAX_INVITATIONS
    if extra <= 0:
        return seats
    old = [s for s in seats if not s.live][:extra]
    return [s for s in seats if s not in old]


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def link(base: str, token: str) -> str:
    """The seat's link on the board at ``base`` (``http://HOST:PORT``), carrying the board's
    language when ``--lang`` or the config chose one (``?lang=fr``): the phone that opens
    it speaks it, unless its person picks another on the page."""
    spoken = chosen()
    where = f"{base.rstrip('/')}/seat/{token}"
    return where if spoken is None else f"{where}?lang={spoken}"


def qr_svg(text: str) -> bytes:
    """``text`` as a QR code, an SVG image (segno, medium error correction: a phone reads
    it off a screen)."""
    import segno

    out = io.BytesIO()
    segno.make(text, error="m").save(out, kind="svg", xmldecl=False, scale=6, border=2)
    return out.getvalue()


def qr_terminal(text: str) -> str:
    """``text`` as a QR code drawn in a terminal (segno's compact output: half blocks)."""
    import segno

    out = io.StringIO()
    segno.make(text, error="m").terminal(out=out, compact=True, border=2)
    return out.getvalue()
