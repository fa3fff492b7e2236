"""A seat on the page: a player at home, on the board's own web server, playing one colour.

``/seat/TOKEN`` is the seat's page (static/seat.html): the board, its colour, whose turn;
its turns go to ``POST /api/seat/TOKEN/turn`` as ``{"number": N, "turn": TOKEN}`` and are
checked by the control layer's ``Seat`` (control/seat.py), then shown on the LEDs for the
person at the board to make, as the board's own turns are. The page follows ``/events`` as
the main page does. ``GET /api/seat/TOKEN`` says what the link plays and where the game is;
``/api/seat/TOKEN/qr.svg`` is the link as a QR code. ``POST /api/seat/TOKEN/ask``
(``what``: ``take-back``, ``draw``) asks the person at the board, who answers on the board's
page (``/api/answer``) or, for a take-back, with a hold of the button; ``POST
/api/seat/TOKEN/answer`` (``agree``: ``yes``, ``no``) answers the person's draw offer
(control/asks.py). ``POST /api/seat/invite`` (``colour``)
and ``POST /api/seat/revoke`` (``token``) need the board's access code, like new game.

The token is the key (seat_book.py): the same link opened twice, or again after a phone
slept, is the same seat; a revoked link's page says so. Whatever a seat sends that the game
does not take is refused with its reason, and one line in the log (throttled: a flood of
refusals never floods the log); each token has its own rate limit.
"""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Final, Protocol

from aiohttp import web

from orbito_hw.control.events import Event, NewGame
from orbito_hw.control.led_words import colour_word
from orbito_hw.control.referee import Referee
from orbito_hw.control.seat import Seat, SeatRefusedError, standing
from orbito_hw.errors import OrbitoError, shown
from orbito_hw.lang import R_, _, reworded
from orbito_hw.rules.game import Colour
from orbito_hw.web.controls import BoardControls
from orbito_hw.web.feed import Feed
from orbito_hw.web.seat_book import Invitation, SeatBook, SeatTakenError, SeatUnknownError, qr_svg
from orbito_hw.web.seat_book import link as link_of

Fields = Callable[[web.Request], Awaitable[dict[str, str]]]


class Host(Protocol):
    """What a seat needs of the page's server (server.py's ``WebServer``)."""

    controls: BoardControls
    feed: Feed
    static: Path
    port: int

    async def _allowed(self, request: web.Request) -> dict[str, str]:
        """The request's fields, once its access code is checked (403 without it)."""
        ...


def _said(request: web.Request, made: Invitation) -> dict[str, object]:
    """A link as the page shows it: on the board's address as this page reached it."""
    base = f"{request.scheme}://{request.host}"
    return {"token": made.token, "colour": made.colour, "game": made.game, "made": made.made,
            "link": link_of(base, made.token), "qr": f"/api/seat/{made.token}/qr.svg"}  # fmt: skip


def problem(status: type[web.HTTPError], text: str, state: str = "") -> web.HTTPError:
    """As server.py's: a JSON ``{"error": text}`` with ``status``; ``state``: a closed
    link's (``revoked``, ``ended``), for its page to say which."""
    said = {"error": text, **({"state": state} if state else {})}
    return status(text=json.dumps(said), content_type="application/json")


log = logging.getLogger(__name__)

BURST: Final = 20
"""Requests a seat's token may make at once; then RATE a second. A page makes a few a turn."""
RATE: Final = 4.0
LOG_WINDOW_S: Final = 10.0
LOG_LINES: Final = 10
REMOTE_PAGE: Final = "seat_remote.html"
REMOTE_POLICY: Final = (
    # The seat across the internet (docs/seat.md) talks to the broker the link names, over
    # WebSockets: that one page may connect out; everything else still comes from the board.
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; frame-ancestors 'none'"
)
"""Refusals logged at warning per window; past them counted, and said in the next window."""


class Bucket:
    """A token bucket: ``take()`` is False once the burst is spent, until it refills."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.level = float(BURST)
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.level = min(float(BURST), self.level + (now - self.at) * RATE)
        self.at = now
        if self.level < 1.0:
            return False
        self.level -= 1.0
        return True


class QuietLog:
    """One warning per refusal, at most LOG_LINES a window; the rest counted."""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.window = -LOG_WINDOW_S
        self.told = self.quiet = 0

    def __call__(self, text: str) -> None:
        now = self.clock()
        if now - self.window >= LOG_WINDOW_S:
            if self.quiet:
                text = _("seat: refused {n} more requests in {seconds}s")
                log.warning("%s", text.format(n=self.quiet, seconds=f"{LOG_WINDOW_S:g}"))
            self.window, self.told, self.quiet = now, 0, 0
        if self.told < LOG_LINES:
            self.told += 1
            log.warning("%s", _("seat: refused: {reason}").format(reason=text))
        else:
            self.quiet += 1


class SeatDesk:
    """The seats of one web server: the invitations in its state directory, the seat that
    plays now (one at a time: the referee has one opponent) and the routes."""

    def __init__(
        self, server: Host, fields: Fields, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.server = server
        self.fields = fields  # server.py's reading of a control's fields
        self.book = SeatBook(server.controls.state_dir)
        self.clock = clock
        self.refused = QuietLog(clock)
        self.seat: Seat | None = None
        self.token: str | None = None
        self._buckets: dict[str, Bucket] = {}
        self._heard: Referee | None = None  # the referee whose events this desk hears

    @property
    def referee(self) -> Referee:
        return self.server.controls.referee  # the controller running now (a power cut's new one)

    def register(self, app: web.Application) -> None:
        get, post = app.router.add_get, app.router.add_post
        get("/seat/{token}", self._page)
        get("/api/seat/{token}", self._state)
        get("/api/seat/{token}/qr.svg", self._qr)
        post("/api/seat/invite", self._invite)
        post("/api/seat/invitation", self._invitation)
        post("/api/seat/revoke", self._revoke)
        post("/api/seat/{token}/turn", self._turn)
        post("/api/seat/{token}/ask", self._ask)
        post("/api/seat/{token}/answer", self._answer)
        get(f"/static/{REMOTE_PAGE}", self._remote_page)  # before the static folder's route
        self.server.feed.invitation = self.shown  # the snapshot says a link is live

    async def _remote_page(self, request: web.Request) -> web.StreamResponse:
        """The static page of a seat across the internet, allowed to reach its broker."""
        page = web.FileResponse(self.server.static / REMOTE_PAGE)
        page.headers["Content-Security-Policy"] = REMOTE_POLICY
        return page

    # --- the seat's requests ------------------------------------------------------------
    async def _page(self, request: web.Request) -> web.StreamResponse:
        """The seat's page, for any token: its script asks what the link is, and says it (a
        revoked or unknown link gets the page with its words, and a 410 or 404)."""
        token = request.match_info["token"]
        status = 200
        if not self._limit(token):
            status = 429
        else:
            found = self.book.find(token)
            status = 404 if found is None else 200 if found.live else 410
        return web.FileResponse(self.server.static / "seat.html", status=status)

    async def _state(self, request: web.Request) -> web.Response:
        invitation, seat = self._open(request)
        now = standing(self.referee)
        return web.json_response({
            "colour": invitation.colour,
            "game": now.game,
            "number": now.next_number,
            "turns": list(now.turns),
            "to_move": None if now.position.is_over else now.position.to_move.value,
            "shown": waits.notation() if (waits := seat.shown(now.position)) else None,
            "state": "live",
            **self._asks(),
        })  # fmt: skip

    def _asks(self) -> dict[str, object]:
        """The ask waiting across the board (``ask``) and the game's last answer (``answer``),
        for a page opened again (control/asks.py's ``to_json``)."""
        now = self.referee.snapshot()
        ask, answered = now.ask, now.answered
        return {
            "ask": ask.to_json() if ask is not None else None,
            "answer": answered.to_json() if answered is not None else None,
        }

    async def _ask(self, request: web.Request) -> web.Response:
        """The seat asks for a take-back or a draw: 409 with the reason when the game does
        not take it now (nothing to take back, one waiting already, the game over)."""
        invitation, seat = self._open(request)
        what = (await self.fields(request)).get("what", "")
        try:
            state = seat.ask(self.referee, what)
        except SeatRefusedError as exc:
            self._refuse(invitation, f"ask {shown(what)}: {exc}")
            raise problem(web.HTTPConflict, str(exc)) from None
        self._settle()
        return web.json_response({"ok": True, "what": what, "state": state, **self._asks()})

    async def _answer(self, request: web.Request) -> web.Response:
        """The seat answers the person's draw offer: ``agree`` yes or no."""
        invitation, seat = self._open(request)
        agree = (await self.fields(request)).get("agree", "")
        if agree not in ("yes", "no"):
            self._refuse(invitation, f"answer {shown(agree)}")
            raise problem(web.HTTPBadRequest, f"agree {shown(agree)} is not yes or no")
        try:
            seat.answer(self.referee, agree == "yes")
        except SeatRefusedError as exc:
            self._refuse(invitation, f"answer {agree}: {exc}")
            raise problem(web.HTTPConflict, str(exc)) from None
        self._settle()
        return web.json_response({"ok": True, "agreed": agree == "yes", **self._asks()})

    async def _turn(self, request: web.Request) -> web.Response:
        invitation, seat = self._open(request)
        fields = await self.fields(request)
        number_text, token = fields.get("number", ""), fields.get("turn", "")
        if not (number_text.isascii() and number_text.isdigit() and len(number_text) <= 3):
            self._refuse(invitation, f"turn number {shown(number_text)}")
            raise problem(web.HTTPBadRequest, f"number {shown(number_text)} is not a turn number")
        try:
            handed = seat.hand_in(self.referee, int(number_text), token)
        except SeatRefusedError as exc:
            self._refuse(invitation, str(exc))
            raise problem(web.HTTPConflict, str(exc)) from None
        self._settle()
        return web.json_response({"ok": True, "turn": token, "state": handed})

    async def _qr(self, request: web.Request) -> web.Response:
        """The link as a QR code: whoever knows the token has the link already."""
        invitation, _seat = self._open(request, sit=False)
        base = f"{request.scheme}://{request.host}"
        svg = qr_svg(link_of(base, invitation.token))
        return web.Response(body=svg, content_type="image/svg+xml")

    # --- the board's controls (the access code) ----------------------------------------------
    async def _invite(self, request: web.Request) -> web.Response:
        fields = await self.server._allowed(request)
        text = fields.get("colour")
        if text is not None and text not in ("black", "white"):
            raise problem(web.HTTPBadRequest, f"colour {shown(text)} is not black or white")
        colour = Colour(text) if text is not None else self.default_colour()
        try:
            made = self._made(colour)
        except SeatTakenError as exc:
            raise problem(web.HTTPConflict, str(exc)) from None
        except OSError as exc:
            raise problem(web.HTTPInternalServerError, f"cannot keep the seat: {exc}") from None
        self.server.feed.changed()  # every page: a link is live
        return web.json_response(_said(request, made))

    def _made(self, colour: Colour) -> Invitation:
        """A new link for ``colour`` and the game on the board (the snapshot shows it)."""
        self._listen()  # its game's end ends it, opened or not
        return self.book.invite(colour, self.referee.snapshot().game)

    def invite_at_board(self, colour: Colour) -> str | None:
        """The button's menu's "invite a player" (seat_book.BoardInvites): the link made as
        the page's control makes it, said in the board's log and shown on its page (the
        snapshot's ``invitation``); None, or why not (for the LEDs' refusal)."""
        try:
            made = self._made(colour)
        except SeatTakenError as exc:
            return str(exc)
        except OSError as exc:
            return f"cannot keep the seat: {exc}"
        url = link_of(f"http://{socket.gethostname()}.local:{self.server.port}", made.token)
        text = _("A seat for {colour}, invited at the board: open {link} on the player's phone "
                 "(the board's page shows it as a QR code)")  # fmt: skip
        log.info("%s", text.format(colour=colour_word(made.plays), link=url))
        return None

    def shown(self, game: int) -> dict[str, object] | None:
        """The live link of ``game`` (the one on the board), for the snapshot: its colour,
        when it was made and the turn it handed in, waiting to be made at the board (every
        page of the link shows it, not only the one that sent it); never its token (a page
        without the access code sees it too)."""
        live = self.book.live(game)
        if live is None:
            return None
        waiting = None
        if self.seat is not None and self.token == live.token:
            turn = self.seat.shown(self.referee.snapshot().position)
            waiting = turn.notation() if turn is not None else None
        return {"colour": live.colour, "made": live.made, "waiting": waiting}

    async def _invitation(self, request: web.Request) -> web.Response:
        """The live link, for a page with the access code (one made at the board's button, or
        on another page): as ``_invite`` answers; 404 for none."""
        await self.server._allowed(request)
        live = self.book.live(self.referee.snapshot().game)
        if live is None:
            raise problem(web.HTTPNotFound, R_("no seat's link is live"))
        return web.json_response(_said(request, live))

    async def _revoke(self, request: web.Request) -> web.Response:
        fields = await self.server._allowed(request)
        try:
            gone = self.book.revoke(fields.get("token", ""))
        except SeatUnknownError as exc:
            raise problem(web.HTTPNotFound, str(exc)) from None
        if self.token == gone.token:
            self._stand_up()
        self.server.feed.changed()  # every page: the link is gone (its own page closes)
        return web.json_response({"ok": True, "token": gone.token, "state": "revoked"})

    def default_colour(self) -> Colour:
        """The colour a seat plays unless asked: the board's opponent's, else white."""
        opponent = self.referee.opponent
        return opponent.colour if opponent is not None and opponent.by == "board" else Colour.WHITE

    # --- the seat -------------------------------------------------------------------------
    def _open(self, request: web.Request, sit: bool = True) -> tuple[Invitation, Seat]:
        """The request's live invitation and its seat, playing on the board now (``sit``);
        404 unknown, 410 revoked or its game over, 409 when the board cannot seat it, 429
        past the token's rate."""
        token = request.match_info["token"]
        if not self._limit(token):
            self.refused(_("token {token}... past its rate").format(token=token[:6]))
            raise problem(
                web.HTTPTooManyRequests, R_("too many requests from this seat: slow down")
            )
        invitation = self.book.find(token)
        if invitation is None:
            self.refused(_("unknown token {token}...").format(token=shown(token[:6])))
            raise problem(web.HTTPNotFound, R_("no such seat: ask the board for a new link"))
        if invitation.revoked:
            self._refuse(invitation, "the link was revoked")
            if self.token == invitation.token:
                self._stand_up()
            raise problem(web.HTTPGone, R_("this link was revoked at the board"), "revoked")
        game = self.referee.snapshot().game
        if invitation.game is None:  # the CLI's: the game on the board now
            invitation.game = game
            self.book.update(invitation)
        if invitation.game != game or invitation.ended:
            if not invitation.ended:
                invitation.ended = True
                self.book.update(invitation)
            if self.token == invitation.token:
                self._stand_up()
            over = R_("this link was for game {game}, now over").format(game=invitation.game)
            raise problem(web.HTTPGone, over, "ended")
        if self.token != invitation.token:
            opponent = self.referee.opponent
            if opponent is not None and opponent.by == "remote":  # --remote: the other board's
                raise problem(web.HTTPConflict, R_("this board plays another board: no seat now"))
            self.seat, self.token = Seat(invitation.plays), invitation.token
        assert self.seat is not None
        if sit:
            self._listen()
            try:
                self.seat.sit(self.referee)  # again after a power cut: the new controller's
            except OrbitoError as exc:
                raise problem(
                    web.HTTPConflict, R_("the board cannot seat it: {why}").format(why=exc)
                ) from None
            self._settle()
        return invitation, self.seat

    def _listen(self) -> None:
        """Hear the referee running now (once each: a power cut boots a new one), so that a
        new game ends the seat's link at once, whether or not its page is open."""
        referee = self.referee
        if self._heard is not referee:
            self._heard = referee
            referee.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        """A new game ends every live link of another game (opened or not, so that none
        keeps the one seat taken); the seat sitting, if its link ended, stands up."""
        if not isinstance(event, NewGame):
            return
        seats = self.book.read()
        ended = [s for s in seats if s.live and s.game is not None and s.game != event.game]
        if not ended:
            return
        for invitation in ended:
            invitation.ended = True
        self.book.write(seats)
        if self.token in {s.token for s in ended}:
            # After the new game has settled, not inside its announcement.
            asyncio.get_running_loop().call_soon(self._stand_up)

    def _stand_up(self) -> None:
        if self.seat is not None:
            self.seat.leave(self.referee)
            self._settle()
        self.seat = self.token = None

    def _limit(self, token: str) -> bool:
        """The token's rate: only a known token has a bucket (a flood of made-up tokens
        grows nothing); an unknown one shares one."""
        key = token if len(token) < 64 and self.book.find(token) is not None else ""
        bucket = self._buckets.get(key)
        if bucket is None:
            bucket = self._buckets[key] = Bucket(self.clock)
        return bucket.take()

    def _refuse(self, invitation: Invitation, why: str) -> None:
        text = _("seat {token}... ({colour}): {reason}")
        colour = colour_word(Colour(invitation.colour))
        self.refused(text.format(token=invitation.token[:6], colour=colour, reason=reworded(why)))

    def _settle(self) -> None:
        """The simulated board's clock runs what the change made due (its lights' blinks)."""
        self.server.controls.settle()
        self.server.feed.watch()
