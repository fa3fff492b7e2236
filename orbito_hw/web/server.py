"""The board's web page, served by the controller itself on its own event loop (aiohttp).

``/`` is the page (plain HTML, CSS and JS from ``web/static/``: no build step, nothing from
the internet), ``/events`` a stream of server-sent events: the referee's events as
``run --events`` prints them, plus ``snapshot`` events (the whole board as the page draws
it: marbles, LEDs, turns, result, players, the evaluation with hints on). A page gets a
snapshot first, so a page that reconnects (after a controller restart) is whole again.

The pages cost the referee nothing it would notice: each event is written to JSON once and
queued to every page; a page that stops reading is dropped (it reconnects by itself), and
nothing a page does can raise into the referee (a web listener that fails is logged).

Controls (``/api/...``): on the simulated board (``run --mock --web``) a square's click is
``lift SQ`` / ``put SQ`` and the press button the Orbito button (mock/page.py); new game,
opponent, hints and take-back need the board's access code (access.py) when it has
one, in the ``X-Orbito-Code`` header or a ``code`` field, else 403.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import Any, Final, TypeVar, overload
from urllib.parse import urlsplit

from aiohttp import web

from orbito_hw.control.puzzle import goal_of, origin_of, puzzle_id
from orbito_hw.errors import OrbitoError, shown
from orbito_hw.lang import (
    LANGUAGES,
    R_,
    WORD_FIELDS,
    _,
    best,
    chosen,
    known,
    page_words,
    reason_words,
)
from orbito_hw.rules.game import Colour, replay
from orbito_hw.rules.squares import (
    NOT_A_SQUARE,
    is_square_name,
    parse_square,
)
from orbito_hw.solver.opponents import LEVELS
from orbito_hw.solver.puzzles import Puzzle
from orbito_hw.web.access import code_matches
from orbito_hw.web.controls import (
    BoardControls,
    Following,
    GameStore,
    RefusedError,
    UnavailableError,
    Watch,
)
from orbito_hw.web.feed import HEARTBEAT_S, QUEUE_LIMIT, RETRY_MS, Feed
from orbito_hw.web.limits import (
    GAMES_PAGE,
    IDLE_S,
    MAX_ARCHIVE_READS,
    WRITE_TIMEOUT_S,
    CappedSite,
    connection_cap,
)
from orbito_hw.web.seat import SeatDesk

log = logging.getLogger(__name__)
T = TypeVar("T")

MAX_BODY: Final = 4096
"""Bytes a control's request may carry: a few fields. More is refused (413) unread."""
TOO_BIG: Final = R_("a request body is {most} bytes at most, not {n}")
CODE_HEADER: Final = "X-Orbito-Code"
MAX_REASON: Final = 200
"""Characters a refusal's reason may say (the page's answer to a player away)."""
LEVEL_NAMES: Final = ("none", *(level.name for level in LEVELS))
MAX_WATCHERS: Final = 20
"""Pages following a remote game at once: each holds a connection to the broker."""
STATIC: Final = "static"

HEADERS: Final = {
    # Everything the page uses comes from the board itself.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-store",
}


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
            text=json.dumps({"error": TOO_BIG.format(most=MAX_BODY, n=size)}),
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
    except Exception as exc:  # one line in the log; the traceback only at debug level
        text = _("the web page failed on {method} {path}: {error}: {reason}")
        path, error, reason = shown(request.path), type(exc).__name__, shown(str(exc))
        log.error("%s", text.format(method=request.method, path=path, error=error, reason=reason))
        log.debug("traceback", exc_info=exc)
        raise problem(
            web.HTTPInternalServerError, R_("internal error (see the board's log)")
        ) from None


@web.middleware
async def _same_site(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """A control (any request but GET and HEAD) only from the board's own pages: a page on
    another site, open in a browser on the same network, may not press the board's button
    or start a new game (a cross-site form POST needs no script, and CORS does not stop it).
    Browsers say where a request comes from (``Origin``, ``Sec-Fetch-Site``); a client that
    says nothing (curl, a script) is not a browser page and is let through."""
    if request.method not in ("GET", "HEAD"):
        origin = request.headers.get("Origin")
        fetch_site = request.headers.get("Sec-Fetch-Site", "")
        foreign = origin is not None and (
            origin == "null" or urlsplit(origin).netloc != request.host
        )
        if foreign or fetch_site in ("cross-site", "same-site"):
            raise problem(web.HTTPForbidden, R_("the board's controls answer its own pages only"))
    return await handler(request)


async def _headers(request: web.Request, response: web.StreamResponse) -> None:
    for name, value in HEADERS.items():
        response.headers.setdefault(name, value)


class NoArchive:
    """No archive to read: the pages say "not available"."""

    def games(
        self, before: int | None = None, limit: int | None = None
    ) -> list[dict[str, object]] | None:
        return None

    def game(self, game_id: str) -> dict[str, Any] | None:
        return None

    def next_puzzle(self) -> Puzzle:
        raise UnavailableError("this board keeps no archive, so no puzzle progress")


class WebServer:
    """The page's server on the controller's event loop."""

    def __init__(
        self,
        controls: BoardControls,
        code: str | None,
        archive: GameStore | None = None,
        watch: Watch | None = None,
        version: dict[str, object] | None = None,
    ) -> None:
        self.version = version or {}  # which orbito-hw runs, and why (/api/version)
        self.watch = watch  # the games on a broker can be watched (/watch): [remote]'s broker
        self.watchers = 0
        self.controls = controls
        self.code = code
        self.feed = Feed(controls, locked=code is not None)
        self.archive = archive or NoArchive()
        self.static = Path(str(resources.files("orbito_hw.web") / STATIC))
        self._runner: web.AppRunner | None = None
        self._reading = 0  # archive reads under way (limits.py)
        self._following: set[Following] = set()  # the broker's games followed for pages
        self.port = 0

    def app(self) -> web.Application:
        app = web.Application(client_max_size=MAX_BODY, middlewares=[_errors, _same_site])
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
        get("/api/version", self._version)
        get("/api/games/{id}", self._game)
        get("/api/words", self._words)
        get("/api/puzzle", self._puzzle)
        post("/api/square/{square}", self._square)
        post("/api/press", self._press)
        post("/api/new-game", self._new_game)
        post("/api/opponent", self._opponent)
        post("/api/hints", self._hints)
        post("/api/take-back", self._take_back)
        post("/api/resign", self._resign)
        post("/api/draw", self._draw)
        post("/api/answer", self._answer)
        post("/api/next-puzzle", self._next_puzzle)
        post("/api/games/{id}/set-up", self._set_up)
        self.seats = SeatDesk(self, _fields)  # a seat at home: /seat/TOKEN (web/seat.py)
        self.seats.register(app)
        # The page's words name a seat's player ("the player on the phone"), not a board.
        self.feed.seated = self._seated
        app.router.add_static("/static/", self.static, append_version=False)
        return app

    def _seated(self) -> bool:
        """Whether the board's opponent now is a seat's player (web/seat.py)."""
        seat = self.seats.seat
        return seat is not None and seat.seated(self.controls.referee)

    # --- life ---------------------------------------------------------------------------
    async def start(self, bind: str, port: int) -> None:
        """Listen on ``bind``:``port`` (0: any free port, then ``self.port``). OSError
        (the port in use, an address the machine does not have) is the caller's."""
        self.feed.watch()
        # A page that leaves cancels its handler (its stream and what it held end at once);
        # a connection idle or stuck mid-request is closed (limits.py).
        runner = web.AppRunner(
            self.app(), access_log=None, handle_signals=False, handler_cancellation=True,
            keepalive_timeout=IDLE_S, shutdown_timeout=1.0,
        )  # fmt: skip
        await runner.setup()
        site = CappedSite(runner, bind, port, connection_cap())
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
        # Every broker connection a page holds is closed before the loop is: none is left
        # to fail after it (each bounded: a broker that never answers delays nothing).
        following, self._following = list(self._following), set()
        if following:
            await asyncio.wait([asyncio.ensure_future(f.stop()) for f in following], timeout=2.0)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # --- pages --------------------------------------------------------------------------
    def _file(self, name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def serve(request: web.Request) -> web.StreamResponse:
            return web.FileResponse(self.static / name)

        return serve

    async def _game_page(self, request: web.Request) -> web.StreamResponse:
        if await self._read(self.archive.game, request.match_info["id"]) is None:
            raise web.HTTPNotFound(text="no such game in the archive", content_type="text/plain")
        return web.FileResponse(self.static / "game.html")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        page = self.feed.join(viewer_language(request))
        try:
            while (chunk := await page.next()) is not None:
                await _write(response, chunk)
        except (ConnectionError, TimeoutError):
            pass  # the page went away, or stopped reading
        finally:
            self.feed.leave(page)
        return response

    # --- spectators: the games on the broker -------------------------------------------------
    async def _watch_list(self, request: web.Request) -> web.Response:
        """The games on the broker as a spectator sees them, each with its board now."""
        if self.watch is None:
            return web.json_response({"available": False, "games": []})
        try:
            games = await self.watch.list_games()
        except Exception as exc:  # aiomqtt.MqttError and OSError: the broker is away
            raise problem(
                web.HTTPBadGateway,
                R_("the broker {host}: {reason}").format(host=self.watch.host, reason=exc),
            ) from None
        return web.json_response({"available": True, "games": [standing(g) for g in games]})

    async def _watch_events(self, request: web.Request) -> web.StreamResponse:
        """One game's live events, as its boards publish them (their publishing on), each
        with the colour of the board that sent it."""
        name = request.query.get("game", "")
        if self.watch is None:
            raise problem(web.HTTPNotFound, R_("this board watches no broker ([remote] broker)"))
        if not self.watch.is_game_name(name):
            raise problem(
                web.HTTPBadRequest, R_("game {name} is not a game name").format(name=shown(name))
            )
        if self.watchers >= MAX_WATCHERS:
            raise problem(web.HTTPServiceUnavailable, R_("too many pages watch games: try later"))
        queue: asyncio.Queue[dict[str, object]] = asyncio.Queue(QUEUE_LIMIT)

        def heard(game: str, colour: Colour, event: dict[str, object]) -> None:
            if not queue.full():  # a page that falls behind misses events, never the board
                queue.put_nowait({**event, "from": colour.value})

        spectator = self.watch.follow(name, heard)
        self._following.add(spectator)
        response = web.StreamResponse(
            headers={"Content-Type": "text/event-stream", "X-Accel-Buffering": "no"}
        )
        await response.prepare(request)
        self.watchers += 1
        spectator.start()
        try:
            await _write(response, f"retry: {RETRY_MS}\n\n".encode())
            while True:
                try:
                    async with asyncio.timeout(HEARTBEAT_S):  # never swallows a cancellation
                        event = await queue.get()
                except TimeoutError:  # a line now and then: a page gone without a word shows
                    await _write(response, b": still here\n\n")
                    continue
                await _write(response, f"data: {json.dumps(event)}\n\n".encode())
        except (ConnectionError, TimeoutError):
            pass  # the page went away, or stopped reading
        finally:
            # Also when the page's leaving cancelled this handler: its broker connection
            # is given back whatever happens.
            self.watchers -= 1
            self._following.discard(spectator)
            await asyncio.shield(spectator.stop())
        return response

    async def _version(self, request: web.Request) -> web.Response:
        return web.json_response(self.version)

    async def _words(self, request: web.Request) -> web.Response:
        """The page's words in the viewer's language: ``?lang=`` (the page's own choice),
        else the browser's ``Accept-Language``; {English: translation} (lang/)."""
        code = viewer_language(request)
        return web.json_response(
            {
                "lang": code,
                "languages": list(LANGUAGES),
                "words": page_words(code),
                "reasons": reason_words(code),  # the board's reasons, said in the page
                "word_fields": sorted(WORD_FIELDS),  # their fields that are one word
            }
        )

    async def _puzzle(self, request: web.Request) -> web.Response:
        """The game's puzzle: its id and goal, and how the try ended (None while it is on);
        all None when the game is no puzzle's."""
        saved = self.controls.referee.snapshot().saved
        found = puzzle_id(saved.origin)
        done = self.feed.memory.puzzle if found else None
        return web.json_response({
            "id": found,
            "goal": goal_of(saved.origin) or None,
            "solved": done[0] if done else None,
            "plies": done[1] if done else None,
        })  # fmt: skip

    async def _state(self, request: web.Request) -> web.Response:
        return web.json_response(self.feed.snapshot(viewer_language(request)))

    async def _read(self, read: Callable[..., T], *args: Any) -> T:
        """An archive read, in a thread off the referee's loop, at most MAX_ARCHIVE_READS
        at once: past them the page is told to try later (503)."""
        if self._reading >= MAX_ARCHIVE_READS:
            raise problem(web.HTTPServiceUnavailable, R_("the archive is busy: try again"))
        self._reading += 1
        try:
            return await asyncio.to_thread(read, *args)
        finally:
            self._reading -= 1

    async def _games(self, request: web.Request) -> web.Response:
        """A page of the archive's list: the newest ``limit`` games (GAMES_PAGE by default)
        before the game ``before`` (the newest when not given), oldest first, and ``older``,
        the ``before`` of the page after it (null at the first game). Never the whole list at
        once: its memory and time would grow with every game the board keeps."""
        before = _count(request, "before")
        limit = min(_count(request, "limit") or GAMES_PAGE, GAMES_PAGE)
        games = await self._read(self._games_page, before, limit + 1)  # one more: any older?
        if games is None:
            return web.json_response({"available": False, "games": [], "older": None})
        older = None
        if len(games) > limit:
            del games[0]  # the one more, older than this page: the next page starts before
            older = games[0]["id"]
        return web.json_response({"available": True, "games": games, "older": older})

    def _games_page(self, before: int | None, limit: int) -> list[dict[str, object]] | None:
        return self.archive.games(before, limit)

    async def _game(self, request: web.Request) -> web.Response:
        game = await self._read(self.archive.game, request.match_info["id"])
        if game is None:
            raise problem(web.HTTPNotFound, f"no game {shown(request.match_info['id'])}")
        return web.json_response(game)

    # --- controls -----------------------------------------------------------------------
    async def _square(self, request: web.Request) -> web.Response:
        seen = (await _fields(request)).get("seen")  # the board the page showed (optional)
        name = request.match_info["square"]
        if not is_square_name(name):
            raise problem(web.HTTPBadRequest, NOT_A_SQUARE.format(word=shown(name)))
        return self._do(lambda: self.controls.lift_or_put(parse_square(name), seen))

    async def _press(self, request: web.Request) -> web.Response:
        fields = await _fields(request)
        action, seen = fields.get("action", "click"), fields.get("seen")
        if action not in ("click", "down", "up"):
            raise problem(
                web.HTTPBadRequest,
                R_("action {value} is not click, down or up").format(value=shown(action)),
            )
        return self._do(lambda: self.controls.button(action, seen))

    async def _new_game(self, request: web.Request) -> web.Response:
        fields = await self._allowed(request)
        first = _colour(fields, "first", self.controls.first)
        return self._do(lambda: self.controls.new_game(first))

    async def _opponent(self, request: web.Request) -> web.Response:
        fields = await self._allowed(request)
        level = fields.get("level", "")
        if level not in LEVEL_NAMES:
            names = ", ".join(LEVEL_NAMES)
            raise problem(
                web.HTTPBadRequest,
                R_("level {value} is not one of {names}").format(value=shown(level), names=names),
            )
        colour = _colour(fields, "colour", Colour.WHITE)
        return self._do(lambda: self.controls.set_opponent(level, colour))

    async def _hints(self, request: web.Request) -> web.Response:
        fields = await self._allowed(request)
        on = fields.get("hints", "")
        if on not in ("on", "off"):
            raise problem(
                web.HTTPBadRequest, R_("hints {value} is not on or off").format(value=shown(on))
            )
        return self._do(lambda: self.controls.set_hints(on == "on"))

    async def _take_back(self, request: web.Request) -> web.Response:
        await self._allowed(request)
        return self._do(self.controls.take_back)

    async def _resign(self, request: web.Request) -> web.Response:
        """``colour`` (default: the person here) resigns: the other side wins."""
        fields = await self._allowed(request)
        colour = _colour(fields, "colour", None)
        return self._do(lambda: self.controls.resign(colour) and None)

    async def _draw(self, request: web.Request) -> web.Response:
        """A draw: agreed at this board (two people), or offered to the player away (a
        seat, the other board), whose offer it accepts if one waits."""
        await self._allowed(request)
        state: list[str] = []
        answer = self._do(lambda: state.append(self.controls.agree_draw()))
        return web.json_response({"ok": True, "state": state[0]}) if state else answer

    async def _answer(self, request: web.Request) -> web.Response:
        """The person at the board answers the player away's ask (control/asks.py):
        ``agree`` yes or no, and for a no an optional ``reason`` (a line)."""
        fields = await self._allowed(request)
        agree, reason = fields.get("agree", ""), fields.get("reason", "").strip()
        if agree not in ("yes", "no"):
            raise problem(
                web.HTTPBadRequest, R_("agree {value} is not yes or no").format(value=shown(agree))
            )
        if len(reason) > MAX_REASON or not reason.isprintable():
            raise problem(
                web.HTTPBadRequest,
                R_("a reason is one line of {n} characters at most").format(n=MAX_REASON),
            )
        return self._do(lambda: self.controls.answer(agree == "yes", reason))

    async def _next_puzzle(self, request: web.Request) -> web.Response:
        """The next puzzle (``puzzles next``) set up on the board."""
        from orbito_hw.control.requests import SetupRequest

        await self._allowed(request)
        puzzle = await self._read(self.archive.next_puzzle)
        request_ = SetupRequest(puzzle.first, tuple(puzzle.moves.split()), origin_of(puzzle))
        return self._do(lambda: self.controls.set_up(request_))

    async def _set_up(self, request: web.Request) -> web.Response:
        """The archive's game ``id`` set up on the board, after its turn ``at`` (default: all
        its turns), as ``games resume ID --at N`` asks for it."""
        from orbito_hw.control.requests import SetupRequest
        from orbito_hw.control.setup import SetupError, check_record

        fields = await self._allowed(request)
        game_id = request.match_info["id"]
        found = await self._read(self.archive.game, game_id)
        if found is None:
            raise problem(web.HTTPNotFound, R_("no game {value}").format(value=shown(game_id)))
        game = found["game"]
        moves = str(game.get("moves") or "").split()
        at_text = fields.get("at", str(len(moves)))
        if not (
            at_text.isascii()
            and at_text.isdigit()
            and len(at_text) <= 3
            and int(at_text) <= len(moves)
        ):
            text = R_("at {value} is not a turn of the game (0 to {most})")
            raise problem(web.HTTPBadRequest, text.format(value=shown(at_text), most=len(moves)))
        at = int(at_text)
        first = Colour(str(game["first"]))
        try:
            check_record(first, moves[:at])
        except SetupError as exc:
            raise problem(
                web.HTTPConflict,
                R_("cannot set it up after turn {turn}: {reason}").format(turn=at, reason=exc),
            ) from None
        origin = f"archive:{game['id']}:{at}"
        return self._do(
            lambda: self.controls.set_up(SetupRequest(first, tuple(moves[:at]), origin))
        )

    async def _allowed(self, request: web.Request) -> dict[str, str]:
        """The request's fields, once its access code is checked (403 without it)."""
        fields = await _fields(request)
        given = request.headers.get(CODE_HEADER) or fields.get("code")
        if not code_matches(given, self.code):
            raise problem(web.HTTPForbidden, R_("this control needs the board's access code"))
        return fields

    def _do(self, control: Callable[[], None]) -> web.Response:
        try:
            control()
        except UnavailableError as exc:
            raise problem(web.HTTPNotFound, str(exc)) from None
        except RefusedError as exc:
            raise problem(web.HTTPConflict, str(exc)) from None
        except OrbitoError as exc:  # the simulated hand could not (a marble on a marble...)
            raise problem(web.HTTPConflict, str(exc)) from None
        self.feed.watch()  # a new controller after a power cut: follow it
        return web.json_response({"ok": True})


LANG_COOKIE: Final = "orbito-hw-lang"
"""The cookie a page may keep its language in (as ``?lang=``)."""


def viewer_language(request: web.Request) -> str:
    """The language a page is answered in: ``?lang=`` (the page's own choice), else the
    ``orbito-hw-lang`` cookie, else the board's (``--lang``, the config's ``language``),
    else the browser's ``Accept-Language``; a language the product does not speak is
    passed over for the next."""
    for wanted in (request.query.get("lang", ""), request.cookies.get(LANG_COOKIE, "")):
        if wanted:
            try:
                return known(wanted)
            except ValueError:
                continue
    board = chosen()  # --lang or the config's language: the board's pages speak it too
    return board if board is not None else best(request.headers.get("Accept-Language"))


def standing(game: dict[str, object]) -> dict[str, object]:
    """A broker's game with where it stands, for the watch page's words: whose turn it is
    (``to_move``), the result and its lines; None each while the record names no game."""
    to_move: str | None = None
    result: str | None = None
    lines: list[list[str]] = []
    if game.get("first") in ("black", "white"):
        try:
            position = replay(Colour(str(game["first"])), str(game.get("moves") or "").split())
        except OrbitoError:
            position = None  # a record that is not a game: shown without words
        if position is not None:
            result = position.result.value if position.result else None
            to_move = None if result else position.to_move.value
            lines = position.line_names() if result else []
    return {**game, "to_move": to_move, "result": result, "lines": lines}


async def _write(response: web.StreamResponse, chunk: bytes) -> None:
    """A stream's write; TimeoutError when the page has stopped reading (limits.py). Not
    ``wait_for``, which in Python 3.11 can swallow the cancellation of a page that left."""
    async with asyncio.timeout(WRITE_TIMEOUT_S):
        await response.write(chunk)


@overload
def _colour(fields: Mapping[str, str], key: str, default: Colour) -> Colour: ...
@overload
def _colour(fields: Mapping[str, str], key: str, default: None) -> Colour | None: ...
def _colour(fields: Mapping[str, str], key: str, default: Colour | None) -> Colour | None:
    text = fields.get(key)
    if text is None:
        return default
    if text not in ("black", "white"):
        raise problem(
            web.HTTPBadRequest,
            R_("{key} {value} is not black or white").format(key=key, value=shown(text)),
        )
    return Colour(text)


def _count(request: web.Request, name: str) -> int | None:
    """The query's ``name`` as a count from 1 (a game's id, a page's length), None when
    absent; 400 naming it otherwise."""
    value = request.query.get(name)
    if value is None:
        return None
    if not (value.isascii() and value.isdigit() and 0 < len(value) <= 12 and int(value) > 0):
        raise problem(
            web.HTTPBadRequest,
            R_("{key}={value} is not a count from 1").format(key=name, value=shown(value)),
        )
    return int(value)


async def _fields(request: web.Request) -> dict[str, str]:
    """A control's fields, from a form or a JSON object of strings; 400 for anything else
    (a body that is not UTF-8, JSON nested past reason, a broken multipart), 413 for a
    body past MAX_BODY (aiohttp stops reading it there)."""
    if not request.body_exists:
        return {}
    if request.content_type == "application/json":
        try:
            data = json.loads((await request.read()).decode("utf-8"))
        except (ValueError, RecursionError):  # UnicodeDecodeError is a ValueError
            raise problem(web.HTTPBadRequest, R_("the body is not JSON")) from None
        if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
            raise problem(web.HTTPBadRequest, R_("the body is not a JSON object of strings"))
        return data
    if request.content_type in ("application/x-www-form-urlencoded", "multipart/form-data"):
        try:
            form = await request.post()
        except (ValueError, AssertionError, LookupError):  # a broken multipart, a bad charset
            raise problem(web.HTTPBadRequest, R_("the form cannot be read")) from None
        if not all(isinstance(v, str) for v in form.values()):
            raise problem(web.HTTPBadRequest, R_("a control takes no files"))
        return {k: str(v) for k, v in form.items()}
    await request.read()  # past MAX_BODY: 413
    raise problem(
        web.HTTPUnsupportedMediaType,
        R_("a body of type {value} is not read").format(value=shown(request.content_type)),
    )
