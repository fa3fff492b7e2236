"""The board's web page, served by the controller itself on its own event loop (aiohttp).

``/`` is the page (plain HTML, CSS and JS from ``app/static/``: no build step, nothing from
the internet), ``/events`` a stream of server-sent events: the referee's events as
``run --events`` prints them, plus ``snapshot`` events (the whole board as the page draws
it: marbles, LEDs, turns, result, players, the evaluation with hints on). A page gets a
snapshot first, so a page that reconnects (after a controller restart) is whole again.

The pages cost the referee nothing it would notice: each event is written to JSON once and
queued to every page; a page that stops reading is dropped (it reconnects by itself), and
nothing a page does can raise into the referee (a web listener that fails is logged).

Controls (``/api/...``): on the simulated board (``run --mock --web``) a square's click is
``lift SQ`` / ``put SQ`` and the press button the Orbito button (``web_mock.py``); new game,
opponent, hints and take-back need the board's access code (``web_access.py``) when it has
one, in the ``X-Orbito-Code`` header or a ``code`` field, else 403.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from aiohttp import web

from orbito_hw.app.config import Config
from orbito_hw.app.web_access import code_matches
from orbito_hw.control.events import Event, NewGame
from orbito_hw.control.referee import BoardPlayer, Referee
from orbito_hw.errors import OrbitoError, shown
from orbito_hw.hw.interfaces import RGB, Frame, Lights, rgb_hex
from orbito_hw.rules.game import Colour, Position, replay
from orbito_hw.rules.squares import (
    PRESS_TO,
    SQUARES,
    is_square_name,
    line_names,
    parse_square,
    square_name,
)
from orbito_hw.rules.turn import Turn
from orbito_hw.solver.opponents import LEVELS, level_opponent, parse_level

if TYPE_CHECKING:
    from orbito_hw.app.remote import Credentials
    from orbito_hw.app.remote_protocol import BrokerUrl

log = logging.getLogger(__name__)

MAX_BODY: Final = 4096
"""Bytes a control's request may carry: a few fields. More is refused (413) unread."""
QUEUE_LIMIT: Final = 512
"""Writes (a turn of the loop's news each) a page may fall behind by before it is dropped
(a page asleep in a pocket)."""
HEARTBEAT_S: Final = 20.0
"""A comment line to every page this often: a page gone without a word is found out."""
RETRY_MS: Final = 1000
"""How soon a page reconnects after the stream ends (a controller restart)."""
CODE_HEADER: Final = "X-Orbito-Code"
HOLD_AFTER_S: Final = 0.3
"""The page's press button: held this long it holds the Orbito button, in real time;
released sooner it is a click (``press``). The page reads it from the snapshot."""
LEVEL_NAMES: Final = ("none", *(level.name for level in LEVELS))
MAX_WATCHERS: Final = 20
"""Pages following a remote game at once: each holds a connection to the broker."""
GAME_ID_DIGITS: Final = 18  # an archive id is a number: more digits are no id of ours
STATIC: Final = "static"
HEADERS: Final = {
    # Everything the page uses comes from the board itself.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


class Unavailable(OrbitoError, LookupError):
    """A control this board does not have (a real board's squares, a missing feature)."""


class Refused(OrbitoError, RuntimeError):
    """A control the board cannot do now (the simulated hand cannot, the controller failed)."""


# --- what the page's controls do ----------------------------------------------------------
class BoardControls:
    """The page's controls on a real board: the referee's own methods. Its squares and its
    button are touched by hand only."""

    simulated = False

    def __init__(self, referee: Referee, state_dir: Path, first: Colour) -> None:
        self._referee = referee
        self.state_dir = state_dir
        self.first = first
        self._next_opponent: tuple[BoardPlayer | None, ...] = ()
        referee.add_listener(self._on_new_game)

    @property
    def referee(self) -> Referee:
        return self._referee

    def touch(self, square: int) -> None:
        raise Unavailable("the marbles of a real board are moved by hand")

    def button(self, action: str) -> None:
        raise Unavailable("the button of a real board is pressed by hand")

    def new_game(self, first: Colour) -> None:
        self.referee.new_game(first)

    def set_opponent(self, level: str, colour: Colour) -> None:
        """SPEC.md's ``opponent`` directive: at once if no marble was placed in this game,
        else from the next game."""
        player = None
        if level != "none":
            choose = level_opponent(parse_level(level)).choose
            player = BoardPlayer(colour, choose, f"board:{level}")
        referee = self.referee
        if referee.saved.turns or referee.pending is not None or referee.reader.touched:
            self._next_opponent = (player,)
        else:
            self._next_opponent = ()
            referee.set_opponent(player)

    def _on_new_game(self, event: Event) -> None:
        if isinstance(event, NewGame) and self._next_opponent:
            (player,) = self._next_opponent
            self._next_opponent = ()
            # After the new game has settled, not inside its announcement.
            asyncio.get_running_loop().call_soon(self.referee.set_opponent, player)

    def set_hints(self, on: bool) -> None:
        self.referee.set_hints(on)

    def take_back(self) -> None:
        """The referee's take-back, where this version of it has one."""
        take_back = getattr(self.referee, "take_back", None)
        if take_back is None:
            raise Unavailable("take back with a long press of the button")
        can = getattr(self.referee, "can_take_back", True)  # a property
        if not (can() if callable(can) else can):
            raise Refused("there is no turn to take back now")
        take_back()


# --- what the pages are told ---------------------------------------------------------------
class Page:
    """One page following the board: what is still to be written to it."""

    def __init__(self) -> None:
        self.queue: deque[bytes] = deque()
        self.wake = asyncio.Event()
        self.closed = False

    def send(self, chunk: bytes) -> None:
        if self.closed:
            return
        if len(self.queue) >= QUEUE_LIMIT:
            log.info("a page fell %d messages behind: dropped (it reconnects)", QUEUE_LIMIT)
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


class TappedLights:
    """The board's lights, telling the feed each time the light show draws."""

    def __init__(self, inner: Lights, drawn: Callable[[], None]) -> None:
        self.inner = inner
        self.drawn = drawn

    def show(self, frame: Frame, status: RGB | None = None) -> None:
        self.inner.show(frame, status)
        self.drawn()

    def shown(self) -> tuple[list[RGB | None], RGB | None]:
        return self.inner.shown()

    def close(self) -> None:
        self.inner.close()


class Feed:
    """The board as the pages see it: the referee's events as they come, and a snapshot
    of the whole board after anything changed (at most one per turn of the event loop).

    A turn of the loop's events and its snapshot go to each page as one write: the page
    reads them in one piece and draws them in one frame, not one frame each."""

    def __init__(self, controls: BoardControls, locked: bool) -> None:
        self.controls = controls
        self.locked = locked
        self.pages: set[Page] = set()
        self._last: dict[str, object] | None = None
        self._flush_due = False
        self._news: list[bytes] = []  # events since the last flush, in order
        self._heartbeat: asyncio.TimerHandle | None = None
        self._eval: tuple[Position, dict[str, object] | None] | None = None
        self._watched: Referee | None = None

    def watch(self) -> None:
        """Follow the controls' referee: its events, its lights and its squares."""
        referee = self.controls.referee
        if referee is self._watched:
            return
        self._watched = referee
        referee.add_listener(self._on_event)
        referee.sensors.subscribe(lambda square, present, when: self.changed())
        referee.show.lights = TappedLights(referee.show.lights, self.changed)
        self.changed()

    # --- pages -----------------------------------------------------------------------
    def join(self) -> Page:
        self._flush()  # the news so far goes to the pages that were there for it
        page = Page()
        page.send(f"retry: {RETRY_MS}\n\n".encode())
        page.send(sse(self.snapshot()))
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

    def _broadcast(self, chunk: bytes) -> None:
        for page in list(self.pages):
            page.send(chunk)
            if page.closed:
                self.pages.discard(page)

    # --- the board's news --------------------------------------------------------------
    def _on_event(self, event: Event) -> None:
        # Called inside the referee: nothing may raise back into it.
        try:
            self._news.append(sse(event.to_json()))
            self.changed()
        except Exception:
            log.exception("the web page could not pass on a %s event", event.kind)

    def changed(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            asyncio.get_running_loop().call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_due = False
        chunks, self._news = self._news, []
        try:
            snapshot = self.snapshot()
        except Exception:
            log.exception("the web page could not draw the board")
        else:
            if snapshot != self._last:
                self._last = snapshot
                chunks.append(sse(snapshot))
        if chunks:
            self._broadcast(b"".join(chunks))

    def snapshot(self) -> dict[str, object]:
        """The whole board as the page draws it (the ``snapshot`` event)."""
        referee = self.controls.referee
        position, saved = referee.position, referee.saved
        squares, status = referee.show.lights.shown()
        opponent = referee.opponent
        result = position.result
        return {
            "event": "snapshot",
            "game": saved.game,
            "first": saved.first.value,
            "turns": list(saved.turns),
            "to_move": None if result else position.to_move.value,
            "state": referee.state.value,
            "marbles": {square_name(sq): m.colour.value for sq, m in sorted(referee.model.items())},
            "hand": [m.colour.value for m in referee.hand],
            "leds": {square_name(sq): rgb_hex(c) for sq, c in enumerate(squares) if c},
            "status": rgb_hex(status) if status else "",
            "result": result.value if result else None,
            "lines": line_names(position.lines()) if result else [],
            "players": {
                c.value: opponent.player if opponent and opponent.colour is c else "person"
                for c in Colour
            },
            "hints": referee.hints,
            "eval": self._evaluation(position) if referee.hints else None,
            "simulated": self.controls.simulated,
            "locked": self.locked,
            "take_back": hasattr(referee, "take_back"),
            "hold_after_ms": round(HOLD_AFTER_S * 1000),
            "rings": {square_name(sq): square_name(PRESS_TO[sq]) for sq in SQUARES},
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
class GameArchive:
    """The game archive (app/archive.py, SPEC.md's "Game archive") as the pages read it: the
    list of games, and one game's standing turns with its review (solver/review.py) and the
    board after each turn. Read afresh at each request, read-only; the page says "not
    available" when there is none (a board that has not finished a game, or no archive)."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = state_dir

    def _open(self) -> Any:
        """The archive, or None (and why, logged at debug) when there is none to read."""
        try:
            from orbito_hw.app.archive import Archive
        except ImportError:  # an orbito-hw without the archive
            return None
        try:
            return Archive.read(self.state_dir)
        except OrbitoError as exc:
            log.debug("the web page has no archive: %s", exc)
            return None

    def games(self) -> list[dict[str, object]] | None:
        archive = self._open()
        if archive is None:
            return None
        with archive:
            return [game.as_json() for game in archive.games()]

    def game(self, game_id: str) -> dict[str, Any] | None:
        """A game (as ``games show --json``), its review and the boards; None if unknown."""
        if not (game_id.isascii() and game_id.isdigit() and len(game_id) <= GAME_ID_DIGITS):
            return None
        archive = self._open()
        if archive is None:
            return None
        with archive:
            row = archive.game(int(game_id))
            turns = [] if row is None else archive.turns(row.id)
        if row is None:
            return None
        moves = [t.turn for t in turns]
        game = {
            **row.as_json(),
            "moves": " ".join(moves),
            "lines": row.lines,
            "turns": [t.as_json() for t in turns],
        }
        return {"game": game, "review": _review(row.first, moves), "boards": boards_of(game)}


def _review(first: str, moves: list[str]) -> dict[str, object] | None:
    from orbito_hw.solver.review import review  # the solution table, on the archive's page only

    try:
        result = review(Colour(first), moves)
    except (ValueError, OrbitoError) as exc:  # an archive edited by hand
        log.info("no review of a game: %s", exc)
        return None
    return {"turns": [t.as_json() for t in result.turns], **result.summary()}


def boards_of(game: Mapping[str, Any]) -> list[str]:
    """The board before the first turn and after each of ``game``'s ``moves``."""
    position = Position.start(Colour.parse(str(game.get("first"))))
    boards = [position.board()]
    for token in str(game.get("moves", "")).split():
        try:
            position = position.play(Turn.from_notation(token))
        except (ValueError, OrbitoError):  # an archive edited by hand: the boards so far
            break
        boards.append(position.board())
    return boards


# --- HTTP ----------------------------------------------------------------------------------
def problem(status: type[web.HTTPError], text: str) -> web.HTTPError:
    return status(text=json.dumps({"error": text}), content_type="application/json")


@web.middleware
async def _errors(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A body too big is refused before it is read; anything unforeseen is a 500 that names
    no code (the log has it), never a traceback."""
    size = request.content_length
    if size is not None and size > MAX_BODY:
        raise web.HTTPRequestEntityTooLarge(
            MAX_BODY,
            size,
            text=json.dumps({"error": f"a request body is {MAX_BODY} bytes at most, not {size}"}),
            content_type="application/json",
        )
    try:
        return await handler(request)
    except web.HTTPException:
        raise
    except asyncio.CancelledError:
        raise
    except ConnectionResetError:
        raise
    except Exception:
        log.exception("the web page failed on %s %s", request.method, shown(request.path))
        raise problem(web.HTTPInternalServerError, "internal error (see the board's log)") from None


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)


class WebServer:
    """The page's server on the controller's event loop."""

    def __init__(
        self,
        controls: BoardControls,
        code: str | None,
        state_dir: Path,
        broker: tuple[BrokerUrl, Credentials] | None = None,
    ) -> None:
        self.broker = broker  # the games on it can be watched (/watch): [remote]'s broker
        self.watchers = 0
        self.controls = controls
        self.code = code
        self.feed = Feed(controls, locked=code is not None)
        self.archive = GameArchive(state_dir)
        self.static = Path(str(resources.files("orbito_hw.app") / STATIC))
        self._runner: web.AppRunner | None = None
        self.port = 0

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_errors])
        app.on_response_prepare.append(_headers)
        get, post = app.router.add_get, app.router.add_post
        get("/", self._file("index.html"))
        get("/games", self._file("games.html"))
        get("/games/{id}", self._game_page)
        get("/events", self._events)
        get("/watch", self._file("watch.html"))
        get("/api/watch", self._watch_list)
        get("/watch/events", self._watch_events)
        get("/state", self._state)
        get("/api/games", self._games)
        get("/api/games/{id}", self._game)
        post("/api/square/{square}", self._square)
        post("/api/press", self._press)
        post("/api/new-game", self._new_game)
        post("/api/opponent", self._opponent)
        post("/api/hints", self._hints)
        post("/api/take-back", self._take_back)
        app.router.add_static("/static/", self.static, append_version=False)
        return app

    # --- life ---------------------------------------------------------------------------
    async def start(self, bind: str, port: int) -> None:
        """Listen on ``bind``:``port`` (0: any free port, then ``self.port``). OSError
        (the port in use, an address the machine does not have) is the caller's."""
        self.feed.watch()
        runner = web.AppRunner(self.app(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, bind, port, shutdown_timeout=1.0)
        try:
            await site.start()
        except BaseException:
            await runner.cleanup()
            raise
        self._runner = runner
        sockets = [s for s in (runner.addresses or [])]
        self.port = sockets[0][1] if sockets else port

    async def stop(self) -> None:
        self.feed.close()  # every stream ends: their pages reconnect to the next controller
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # --- pages --------------------------------------------------------------------------
    def _file(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def serve(request: web.Request) -> web.StreamResponse:
            return web.FileResponse(self.static / name)

        return serve

    async def _game_page(self, request: web.Request) -> web.StreamResponse:
        if self.archive.game(request.match_info["id"]) is None:
            raise web.HTTPNotFound(text="no such game in the archive", content_type="text/plain")
        return web.FileResponse(self.static / "game.html")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        page = self.feed.join()
        try:
            while (chunk := await page.next()) is not None:
                await response.write(chunk)
        except (ConnectionResetError, ConnectionError):
            pass  # the page went away
        finally:
            self.feed.leave(page)
        return response

    # --- spectators: the games on the broker -------------------------------------------------
    async def _watch_list(self, request: web.Request) -> web.Response:
        """The games on the broker as a spectator sees them, each with its board now."""
        if self.broker is None:
            return web.json_response({"available": False, "games": []})
        from orbito_hw.app.remote import Spectator  # aiomqtt only when a page asks

        url, credentials = self.broker
        try:
            seen = await Spectator(url, credentials=credentials).list_games()
        except Exception as exc:  # aiomqtt.MqttError and OSError: the broker is away
            raise problem(web.HTTPBadGateway, f"the broker {url.host}: {exc}") from None
        return web.json_response({"available": True, "games": [_watched(s) for s in seen]})

    async def _watch_events(self, request: web.Request) -> web.StreamResponse:
        """One game's live events, as its boards publish them (their publishing on), each
        with the colour of the board that sent it."""
        from orbito_hw.app.remote import Spectator
        from orbito_hw.app.remote_protocol import NAME

        name = request.query.get("game", "")
        if self.broker is None:
            raise problem(web.HTTPNotFound, "this board watches no broker ([remote] broker)")
        if not NAME.fullmatch(name):
            raise problem(web.HTTPBadRequest, f"game {shown(name)} is not a game name")
        if self.watchers >= MAX_WATCHERS:
            raise problem(web.HTTPServiceUnavailable, "too many pages watch games: try later")
        queue: asyncio.Queue[dict[str, object]] = asyncio.Queue(QUEUE_LIMIT)

        def heard(game: str, colour: Colour, event: dict[str, object]) -> None:
            if not queue.full():  # a page that falls behind misses events, never the board
                queue.put_nowait({**event, "from": colour.value})

        spectator = Spectator(self.broker[0], name, heard, self.broker[1])
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        self.watchers += 1
        spectator.start()
        try:
            await response.write(f"retry: {RETRY_MS}\n\n".encode())
            while True:
                event = await queue.get()
                await response.write(f"data: {json.dumps(event)}\n\n".encode())
        except (ConnectionResetError, ConnectionError):
            pass  # the page went away
        finally:
            self.watchers -= 1
            await spectator.stop()
        return response

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self.feed.snapshot())

    async def _games(self, request: web.Request) -> web.Response:
        games = self.archive.games()
        if games is None:
            return web.json_response({"available": False, "games": []})
        return web.json_response({"available": True, "games": games})

    async def _game(self, request: web.Request) -> web.Response:
        game = self.archive.game(request.match_info["id"])
        if game is None:
            raise problem(web.HTTPNotFound, f"no game {shown(request.match_info['id'])}")
        return web.json_response(game)

    # --- controls -----------------------------------------------------------------------
    async def _square(self, request: web.Request) -> web.Response:
        await _fields(request)
        name = request.match_info["square"]
        if not is_square_name(name):
            raise problem(web.HTTPBadRequest, f"{shown(name)} is not a square (a1..d4)")
        return self._do(lambda: self.controls.touch(parse_square(name)))

    async def _press(self, request: web.Request) -> web.Response:
        action = (await _fields(request)).get("action", "click")
        if action not in ("click", "down", "up"):
            raise problem(web.HTTPBadRequest, f"action {shown(action)} is not click, down or up")
        return self._do(lambda: self.controls.button(action))

    async def _new_game(self, request: web.Request) -> web.Response:
        fields = await self._allowed(request)
        first = _colour(fields, "first", self.controls.first)
        return self._do(lambda: self.controls.new_game(first))

    async def _opponent(self, request: web.Request) -> web.Response:
        fields = await self._allowed(request)
        level = fields.get("level", "")
        if level not in LEVEL_NAMES:
            names = ", ".join(LEVEL_NAMES)
            raise problem(web.HTTPBadRequest, f"level {shown(level)} is not one of {names}")
        colour = _colour(fields, "colour", Colour.WHITE)
        return self._do(lambda: self.controls.set_opponent(level, colour))

    async def _hints(self, request: web.Request) -> web.Response:
        fields = await self._allowed(request)
        on = fields.get("hints", "")
        if on not in ("on", "off"):
            raise problem(web.HTTPBadRequest, f"hints {shown(on)} is not on or off")
        return self._do(lambda: self.controls.set_hints(on == "on"))

    async def _take_back(self, request: web.Request) -> web.Response:
        await self._allowed(request)
        return self._do(self.controls.take_back)

    async def _allowed(self, request: web.Request) -> dict[str, str]:
        """The request's fields, once its access code is checked (403 without it)."""
        fields = await _fields(request)
        given = request.headers.get(CODE_HEADER) or fields.get("code")
        if not code_matches(given, self.code):
            raise problem(web.HTTPForbidden, "this control needs the board's access code")
        return fields

    def _do(self, control: Callable[[], None]) -> web.Response:
        try:
            control()
        except Unavailable as exc:
            raise problem(web.HTTPNotFound, str(exc)) from None
        except Refused as exc:
            raise problem(web.HTTPConflict, str(exc)) from None
        except OrbitoError as exc:  # the simulated hand could not (a marble on a marble...)
            raise problem(web.HTTPConflict, str(exc)) from None
        self.feed.watch()  # a new controller after a power cut: follow it
        return web.json_response({"ok": True})


def _colour(fields: Mapping[str, str], key: str, default: Colour) -> Colour:
    text = fields.get(key)
    if text is None:
        return default
    if text not in ("black", "white"):
        raise problem(web.HTTPBadRequest, f"{key} {shown(text)} is not black or white")
    return Colour(text)


async def _fields(request: web.Request) -> dict[str, str]:
    """A control's fields, from a form or a JSON object of strings; 400 for anything else,
    413 for a body past MAX_BODY (aiohttp stops reading it there)."""
    if not request.body_exists:
        return {}
    if request.content_type == "application/json":
        try:
            data = await request.json()
        except ValueError:
            raise problem(web.HTTPBadRequest, "the body is not JSON") from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise problem(web.HTTPBadRequest, "the body is not a JSON object of strings")
        return data
    if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        form = await request.post()
        if not all(isinstance(v, str) for v in form.values()):
            raise problem(web.HTTPBadRequest, "a control takes no files")
        return {k: str(v) for k, v in form.items()}
    await request.read()  # past MAX_BODY: 413
    raise problem(
        web.HTTPUnsupportedMediaType, f"a body of type {shown(request.content_type)} is not read"
    )


# --- on a real board -----------------------------------------------------------------------
def _watched(seen: Any) -> dict[str, object]:
    """A game on the broker for the watch page: what the spectator saw, and its board."""
    entry: dict[str, object] = seen.to_json()
    board = None
    if entry.get("first") in ("black", "white"):
        try:
            board = replay(Colour(str(entry["first"])), str(entry["moves"]).split()).board()
        except OrbitoError:
            board = None  # a record that is not a game was refused on the way; never shown
    return {**entry, "board": board}


def _broker(config: Config) -> tuple[BrokerUrl, Credentials] | None:
    """The broker whose games the page can watch: ``[remote] broker``, if one is set (the
    board need not play on it)."""
    remote = config.remote
    if remote.broker is None:
        return None
    from orbito_hw.app.remote import Credentials
    from orbito_hw.app.remote_protocol import parse_broker_url

    try:
        url = parse_broker_url(remote.broker, need_game=False)
    except ValueError:
        return None  # config.py has said so already
    return url, Credentials.of(remote)


def serve_board(
    loop: asyncio.AbstractEventLoop, referee: Referee, config: Config
) -> WebServer | None:
    """The page of a real board, from ``[web]`` of ``config``; None (and an error in the
    log) when it cannot listen: the board referees on without its page."""
    from orbito_hw.app.web_access import access_code

    state_dir = config.board.state_dir
    controls = BoardControls(referee, state_dir, config.board.first)
    server = WebServer(controls, access_code(config.web, state_dir), state_dir, _broker(config))
    bind, port = config.web.bind, config.web.port
    try:
        loop.run_until_complete(server.start(bind, port))
    except OSError as exc:
        why = exc.strerror or str(exc)
        log.error("the web page is off: cannot listen on %s port %d (web.bind, web.port): %s",
                  bind, port, why)  # fmt: skip
        return None
    log.info("web page on http://%s:%d/", bind, server.port)
    return server
