"""The page as a hostile client meets it: descriptors it may not starve, streams that must
notice a page gone, bodies and codes that are no body or code, requests that are no HTTP,
pages on other sites, and archive reads kept off the referee's loop. After each, a normal
turn is still refereed, and no traceback reaches any stream.

The server is the real one: ``run --mock --web`` in a process of its own, or the
``WebServer`` on a loop of the test's, spoken to over real sockets."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.app.config import example_text
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.limits import MAX_ARCHIVE_READS
from orbito_hw.web.server import MAX_BODY, MAX_WATCHERS, WebServer

ROUTES = [
    ("GET", "/"), ("GET", "/games"), ("GET", "/games/1"), ("GET", "/events"), ("GET", "/watch"),
    ("GET", "/api/watch"), ("GET", "/watch/events"), ("GET", "/state"), ("GET", "/api/games"),
    ("GET", "/api/games/1"), ("POST", "/api/square/a1"), ("POST", "/api/press"),
    ("POST", "/api/new-game"), ("POST", "/api/opponent"), ("POST", "/api/hints"),
    ("POST", "/api/take-back"),
]  # fmt: skip


@contextlib.contextmanager
def served(*argv: str, files: int | None = None) -> Iterator[tuple[str, list[str]]]:
    """``run --mock --web`` (with at most ``files`` open files), its address and, once the
    block ends and it has stopped, every line it wrote to stderr."""

    def limit() -> None:
        if files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

    process = subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--web", "--port", "0", *argv],
        stderr=subprocess.PIPE, text=True, preexec_fn=limit,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert process.stderr is not None
    lines: list[str] = []
    try:
        while "http://" not in (line := process.stderr.readline()):  # log lines come first
            assert line, "the server stopped before it served"
            lines.append(line.rstrip("\n"))
        port = int(line.split("http://", 1)[1].split("/", 1)[0].rsplit(":", 1)[1])
        yield f"http://127.0.0.1:{port}", lines
    finally:
        process.send_signal(signal.SIGTERM)
        lines.extend(process.stderr.read().splitlines())
        assert process.wait(timeout=20) == 0, lines


def request(
    url: str, method: str = "GET", body: bytes | None = None, headers: dict[str, str] | None = None
) -> tuple[int, bytes]:
    sent = urllib.request.Request(url, data=body, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(sent, timeout=10) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def play_a_turn(base: str) -> None:
    """A person's turn through the page: white places on a1, then presses."""
    assert request(f"{base}/api/new-game", "POST", b'{"first": "white"}', JSON)[0] == 200
    assert request(f"{base}/api/square/a1", "POST")[0] == 200
    assert request(f"{base}/api/press", "POST")[0] == 200
    state = json.loads(request(f"{base}/state")[1])
    assert state["turns"] == ["a1"], state["turns"]


JSON = {"Content-Type": "application/json"}


def no_traceback(lines: list[str]) -> None:
    assert not [line for line in lines if "Traceback" in line or line.startswith("  File ")], lines


# --- defect 1: descriptors -----------------------------------------------------------------
def test_idle_connections_never_starve_the_referee() -> None:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    idle: list[socket.socket] = []
    try:
        with served(files=1024) as (base, lines):
            port = int(base.rsplit(":", 1)[1])
            for _ in range(1100):
                with contextlib.suppress(OSError):
                    idle.append(socket.create_connection(("127.0.0.1", port), timeout=5))
            busy = request(f"{base}/state")
            assert busy[0] in (200, 503)
            for sock in idle[:300]:  # some leave: their places are free again
                sock.close()
            for _ in range(100):
                if request(f"{base}/state")[0] == 200:
                    break
                threading.Event().wait(0.05)
            play_a_turn(base)
        no_traceback(lines)
        assert not [line for line in lines if "Too many open files" in line], lines
    finally:
        for sock in idle:
            sock.close()
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


# --- defects 3 and 6: bodies, codes, other sites --------------------------------------------
@pytest.mark.parametrize(
    ("body", "headers", "status"),
    [
        (b"[" * 2000 + b"]" * 2000, JSON, 400),
        (b"--x", {"Content-Type": "multipart/form-data; boundary=x"}, 400),
        (b'{"code": "\\ud800"}', JSON, 403),
        (b"\xff\xfe", JSON, 400),
        (b"{}", {**JSON, "X-Orbito-Code": "\udcff\udcfe"}, 403),
    ],
    ids=["nested JSON", "broken multipart", "a code that is no text", "not UTF-8", "header bytes"],
)
def test_a_bad_body_is_400_and_a_bad_code_403(
    config: Path, body: bytes, headers: dict[str, str], status: int
) -> None:
    with served("--config", str(config)) as (base, lines):
        if "X-Orbito-Code" in headers:  # urllib cannot send bytes that are not latin-1
            assert raw_post(base, "/api/new-game", body, b"X-Orbito-Code: \xff\xfe") == status
        else:
            assert request(f"{base}/api/new-game", "POST", body, headers)[0] == status
        assert request(f"{base}/api/press", "POST")[0] == 200  # the board plays on
    no_traceback(lines)


@pytest.fixture(scope="module")
def config(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A config whose page has an access code, on this machine only."""
    path = tmp_path_factory.mktemp("config") / "config.toml"
    text = example_text().replace('bind = "0.0.0.0"', 'bind = "127.0.0.1"')
    path.write_text(text.replace('# code = "choose6to64lettersanddigits"', 'code = "letmein7"'))
    return path


def raw_post(base: str, path: str, body: bytes, header: bytes) -> int:
    host, port = base.removeprefix("http://").rsplit(":", 1)
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(
            b"POST " + path.encode() + b" HTTP/1.1\r\nHost: x\r\nContent-Type: application/json"
            b"\r\n" + header + b"\r\nContent-Length: " + str(len(body)).encode() + b"\r\n"
            b"Connection: close\r\n\r\n" + body
        )
        answer = sock.recv(4096)
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize(
    ("origin", "fetch_site", "status"),
    [
        ("http://evil.example", None, 403),
        ("null", None, 403),
        (None, "cross-site", 403),
        (None, "same-site", 403),
        (None, None, 200),  # not a browser page: curl, a script
    ],
)
def test_a_page_on_another_site_may_not_use_the_controls(
    origin: str | None, fetch_site: str | None, status: int
) -> None:
    with served() as (base, lines):
        headers = {"Content-Type": "application/x-www-form-urlencoded"}
        if origin:
            headers["Origin"] = origin
        if fetch_site:
            headers["Sec-Fetch-Site"] = fetch_site
        assert request(f"{base}/api/new-game", "POST", b"first=white", headers)[0] == status
        same = {**headers, "Origin": base, "Sec-Fetch-Site": "same-origin"}
        assert request(f"{base}/api/new-game", "POST", b"first=white", same)[0] == 200
    no_traceback(lines)


# --- defect 4: requests that are no HTTP ----------------------------------------------------
@pytest.mark.parametrize(
    "raw",
    [
        b"GET / HTTP/9.9\r\n\r\n",
        b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # TLS to a plain port
        b"POST /api/press HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab",  # gone mid-body
        b"GET /" + b"a" * 20000 + b" HTTP/1.1\r\n\r\n",
        b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 500 + b"\r\n",
    ],
    ids=["HTTP/9.9", "TLS", "gone mid-body", "a long line", "many headers"],
)
def test_a_request_that_is_no_http_leaves_one_line_at_most(raw: bytes) -> None:
    with served("--log-level", "info") as (base, lines):
        host, port = base.removeprefix("http://").rsplit(":", 1)
        with socket.create_connection((host, int(port)), timeout=10) as sock:
            sock.sendall(raw)
            sock.shutdown(socket.SHUT_WR)
            with contextlib.suppress(OSError):
                sock.recv(4096)
        play_a_turn(base)
    no_traceback(lines)
    assert len([line for line in lines if "aiohttp" in line or "Error handling" in line]) <= 1


# --- defects 2 and 5, on a server of the test's own -------------------------------------------
class Following:
    def __init__(self, watch: CountingWatch) -> None:
        self.watch = watch

    def start(self) -> None:
        self.watch.started += 1

    async def stop(self) -> None:
        self.watch.stopped += 1


class CountingWatch:
    """A broker's games as the page's ``Watch``: each followed game counted in and out."""

    host = "broker.test"

    def __init__(self) -> None:
        self.started = self.stopped = 0

    def is_game_name(self, name: str) -> bool:
        return name.isalnum()

    async def list_games(self) -> list[dict[str, object]]:
        return []

    def follow(self, game: str, heard: Callable[[str, Colour, dict[str, object]], None]) -> Any:
        return Following(self)


class ThreadedStore:
    """The archive's reads, each noting the thread it ran on and waiting to be let go."""

    def __init__(self) -> None:
        self.threads: list[str] = []
        self.go = threading.Event()

    def games(
        self, before: int | None = None, limit: int | None = None
    ) -> list[dict[str, object]] | None:
        self.threads.append(threading.current_thread().name)
        self.go.wait(10)
        return []

    def game(self, game_id: str) -> dict[str, Any] | None:
        return None


@contextlib.contextmanager
def own_server(tmp_path: Path, **parts: Any) -> Iterator[tuple[asyncio.AbstractEventLoop, str]]:
    loop = asyncio.new_event_loop()
    run = MockRun(tmp_path / "state")
    clock = RealTime(run, loop)
    server = WebServer(MockControls(run, clock), None, parts.get("archive"), parts.get("watch"))
    loop.run_until_complete(server.start("127.0.0.1", 0))
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()
    try:
        yield loop, f"http://127.0.0.1:{server.port}"
    finally:
        asyncio.run_coroutine_threadsafe(server.stop(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        run.close()
        loop.close()


def test_a_watch_stream_gives_everything_back_when_its_page_leaves(tmp_path: Path) -> None:
    watch = CountingWatch()
    with own_server(tmp_path, watch=watch) as (_, base):
        host, port = base.removeprefix("http://").rsplit(":", 1)
        for _ in range(3 * MAX_WATCHERS):
            with socket.create_connection((host, int(port)), timeout=10) as sock:
                sock.sendall(b"GET /watch/events?game=g1 HTTP/1.1\r\nHost: x\r\n\r\n")
                assert b"200" in sock.recv(4096).split(b"\r\n", 1)[0]
        for _ in range(100):  # the server hears each page leave
            if watch.stopped == 3 * MAX_WATCHERS:
                break
            threading.Event().wait(0.05)
        assert (watch.started, watch.stopped) == (3 * MAX_WATCHERS, 3 * MAX_WATCHERS)
        status, _ = request(f"{base}/api/watch")
        assert status == 200


def test_archive_reads_run_off_the_loop_and_are_bounded(tmp_path: Path) -> None:
    store = ThreadedStore()
    with own_server(tmp_path, archive=store) as (_, base):
        readers = [
            threading.Thread(target=request, args=(f"{base}/api/games",))
            for _ in range(MAX_ARCHIVE_READS)
        ]
        for reader in readers:
            reader.start()
        for _ in range(100):
            if len(store.threads) == MAX_ARCHIVE_READS:
                break
            threading.Event().wait(0.05)
        # The loop answers while the reads wait, and one read more is told to come back.
        assert request(f"{base}/state")[0] == 200
        assert request(f"{base}/api/games")[0] == 503
        store.go.set()
        for reader in readers:
            reader.join(10)
        loop_thread = [t.name for t in threading.enumerate() if t.name == "MainThread"]
        assert loop_thread and not any(name == "MainThread" for name in store.threads)
        assert request(f"{base}/api/games")[0] == 200


# --- every route, any request ----------------------------------------------------------------
@pytest.fixture(scope="module")
def fuzzed(config: Path) -> Iterator[str]:
    """One server for every example; afterwards a turn is still refereed, and nothing it
    wrote is a traceback."""
    with served("--config", str(config)) as (base, lines):
        yield base
        # The examples left the board anyhow (marbles, a held button, an opponent, hints):
        # a person with the code puts it right, then plays a turn.
        code = {"X-Orbito-Code": "letmein7", "Content-Type": "application/x-www-form-urlencoded"}
        request(f"{base}/api/press", "POST", b"action=up")
        assert request(f"{base}/api/opponent", "POST", b"level=none", code)[0] == 200
        assert request(f"{base}/api/hints", "POST", b"hints=off", code)[0] == 200
        assert request(f"{base}/api/new-game", "POST", b"first=white", code)[0] == 200
        for square in json.loads(request(f"{base}/state")[1])["marbles"]:
            assert request(f"{base}/api/square/{square}", "POST")[0] == 200  # lifted off
        request(f"{base}/api/press", "POST")  # the hand's marbles back to their owners
        assert request(f"{base}/api/square/a1", "POST")[0] == 200
        assert request(f"{base}/api/press", "POST")[0] == 200
        assert json.loads(request(f"{base}/state")[1])["turns"][-1:] == ["a1"]
    no_traceback(lines)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    route=st.sampled_from(ROUTES),
    method=st.sampled_from(["GET", "POST", "PUT", "DELETE", "HEAD", "OPTIONS", "PATCH"]),
    tail=st.text(st.characters(codec="ascii", categories=["L", "N", "P"]), max_size=20),
    query=st.dictionaries(st.text(max_size=8), st.text(max_size=20), max_size=3),
    content_type=st.sampled_from(
        [
            "application/json",
            "application/x-www-form-urlencoded",
            "multipart/form-data",
            "text/plain",
            "",
        ]
    ),
    body=st.one_of(
        st.binary(max_size=600),
        st.builds(
            lambda v: json.dumps(v).encode(),
            st.recursive(
                st.none() | st.booleans() | st.integers() | st.text(max_size=20),
                lambda inner: (
                    st.lists(inner, max_size=4)
                    | st.dictionaries(st.text(max_size=8), inner, max_size=4)
                ),
                max_leaves=30,
            ),
        ),
    ),
    code=st.one_of(st.none(), st.text(max_size=12)),
)
def test_any_request_to_any_route_is_answered_never_a_500(
    fuzzed: str, route: tuple[str, str], method: str, tail: str,
    query: dict[str, str], content_type: str, body: bytes, code: str | None,
) -> None:  # fmt: skip
    base = fuzzed
    path = route[1] + (
        urllib.request.quote(tail) if tail and not route[1].endswith("events") else ""
    )
    if query:
        path += "?" + urllib.parse.urlencode(query)
    headers = {"Content-Type": content_type} if content_type else {}
    if code is not None and code.isprintable() and code.isascii():
        headers["X-Orbito-Code"] = code
    if route[1].endswith("events") and method == "GET":
        return  # a stream: answered, then it goes on (its own tests above)
    status, _ = request(base + path, method, body if method not in ("GET", "HEAD") else None,
                        headers)  # fmt: skip
    assert 200 <= status < 500, (method, path, status)
    if len(body) > MAX_BODY and method == "POST" and route[0] == "POST":
        assert status in (403, 404, 413), status  # refused before it is read
