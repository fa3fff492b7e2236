"""The web page's server without a browser (aiohttp's test client): every address, the
event stream, the simulated board's clicks (``lift SQ`` / ``put SQ`` exactly), the access
code, bad requests (always a 4xx, never a traceback), and 100 pages at once."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiohttp import ClientResponse
from aiohttp.test_utils import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from orbito_hw.app.config import WebConfig, parse_config
from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.control.settings import Settings
from orbito_hw.errors import ConfigError
from orbito_hw.hw.interfaces import rgb_hex
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour
from orbito_hw.rules.squares import SQUARE_NAMES, parse_square
from orbito_hw.sim.harness import MockRun
from orbito_hw.sim.script import parse_line
from orbito_hw.web.access import CODE_FILE, WEB_CODE_CHARS, access_code, code_matches
from orbito_hw.web.feed import QUEUE_LIMIT, Page
from orbito_hw.web.server import CODE_HEADER, MAX_BODY, WebServer

from .common.browser import board
from .common.page import serve
from .common.sse import next_event, snapshot_after

CODE = "sesame2024"


async def post(client: TestClient[Any, Any], path: str, **fields: str) -> ClientResponse:
    return await client.post(path, json=fields)


# --- addresses ---------------------------------------------------------------------------
def test_every_address_answers() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        page = await client.get("/")
        assert page.status == 200 and page.content_type == "text/html"
        html = await page.text()
        assert "/static/app.js" in html and 'data-action="press"' in html
        assert "http" not in html.replace("http-equiv", ""), "nothing from the internet"
        assert "default-src 'self'" in page.headers["Content-Security-Policy"]
        for path, kind in [
            ("/static/app.js", "javascript"),
            ("/static/style.css", "text/css"),
            ("/static/games.js", "javascript"),
            ("/games", "text/html"),
        ]:
            answer = await client.get(path)
            assert answer.status == 200 and kind in answer.content_type, path
        state = await (await client.get("/state")).json()
        assert state["event"] == "snapshot" and state["simulated"] is True
        assert set(state["rings"]) == set(SQUARE_NAMES) and state["turns"] == []
        assert (await client.get("/api/games")).status == 200
        stream = await client.get("/events")
        assert stream.content_type == "text/event-stream"
        assert (await next_event(stream))["event"] == "snapshot"
        stream.close()

    serve(test)


BAD_REQUESTS = [
    ("GET", "/nowhere", None, 404),
    ("GET", "/static/../web.py", None, 404),
    ("GET", "/static/%2e%2e/web.py", None, 404),
    ("GET", "/api/games/999999", None, 404),
    ("GET", "/api/games/not-a-number", None, 404),
    ("GET", "/api/games/" + "9" * 40, None, 404),
    ("GET", "/games/42", None, 404),
    ("GET", "/api/square/a1", None, 405),
    ("POST", "/api/square/e9", {}, 400),
    ("POST", "/api/square/A1", {}, 400),
    ("POST", "/api/press", {"action": "jump"}, 400),
    ("POST", "/api/opponent", {"level": "godlike", "colour": "white"}, 400),
    ("POST", "/api/opponent", {"level": "perfect", "colour": "green"}, 400),
    ("POST", "/api/hints", {"hints": "maybe"}, 400),
    ("POST", "/api/new-game", {"first": "red"}, 400),
    ("POST", "/api/resign", {"colour": "green"}, 400),
    ("GET", "/api/resign", None, 405),
    ("POST", "/api/draw", b"{not json", 400),
    ("POST", "/api/next-puzzle", "text/plain", 415),
    ("POST", "/api/press", b"{not json", 400),
    ("POST", "/api/press", b"[1, 2]", 400),
    ("POST", "/api/press", b'{"action": 3}', 400),
    ("POST", "/api/press", "text/plain", 415),
    ("POST", "/api/press", b"x" * (MAX_BODY + 1), 413),
    ("POST", "/api/take-back", b"x" * 10_000_000, 413),
]


@pytest.mark.parametrize(("method", "path", "body", "status"), BAD_REQUESTS)
def test_a_bad_request_is_a_4xx_never_a_traceback(
    method: str, path: str, body: object, status: int
) -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        if body is None:
            answer = await client.request(method, path)
        elif isinstance(body, bytes):
            headers = {"Content-Type": "application/json"}
            answer = await client.request(method, path, data=body, headers=headers)
        elif body == "text/plain":
            answer = await client.request(method, path, data="hello")
        else:
            answer = await client.request(method, path, json=body)
        text = await answer.text()
        assert answer.status == status, text
        assert "Traceback" not in text
        if answer.content_type == "application/json":
            error = json.loads(text)["error"]
            bad = path.rsplit("/", 1)[-1] if status == 400 and "square" in path else None
            assert bad is None or bad in error, "the error names the bad input"
        assert (await client.get("/state")).status == 200, "the server goes on"

    serve(test)


def test_a_bad_value_is_named_in_the_refusal() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        answer = await post(client, "/api/opponent", level="godlike", colour="white")
        assert "godlike" in (await answer.json())["error"]
        answer = await post(client, "/api/hints", hints="maybe")
        assert "maybe" in (await answer.json())["error"]

    serve(test)


# --- the stream and the simulated board's clicks ---------------------------------------------
def test_the_worked_example_by_clicks_streams_the_events_run_events_prints() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        stream = await client.get("/events")
        assert (await next_event(stream))["event"] == "snapshot"
        assert (await post(client, "/api/new-game", first="white")).status == 200
        for click in ["square/b1", "press", "square/c1", "square/c2", "square/a2", "press"]:
            assert (await post(client, f"/api/{click}")).status == 200, click
        turns = [await next_event(stream, "turn") for _ in range(2)]
        assert [t["turn"] for t in turns] == ["b1", "c1-c2:a2"]
        assert turns[-1]["board"] == "..../..W./..../B..."
        # the very JSON the controller's events give (what ``run --events`` prints)
        expected = [e.to_json() for e in run.typed_events if e.to_json()["event"] == "turn"]
        assert turns == expected
        state = await snapshot_after(stream, lambda s: len(s["turns"]) == 2)
        assert state["marbles"] == {"c3": "white", "a1": "black"}
        assert state["to_move"] == "white" and state["result"] is None
        stream.close()

    serve(test)


@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(st.lists(st.sampled_from(SQUARE_NAMES[:8]), min_size=1, max_size=8))
def test_a_click_is_a_lift_or_a_put_exactly_like_the_board_script(clicks: list[str]) -> None:
    # The same clicks as board-script commands on a board of its own: the same marbles.
    script = MockRun()
    try:
        for name in clicks:
            held = script.physics.occupancy() >> SQUARE_NAMES.index(name) & 1
            command = parse_line(f"{'lift' if held else 'put'} {name}")
            assert command is not None
            script.run(command)
        expected = {sq: m.colour for sq, m in script.referee.model.items()}
        hand = [m.colour for m in script.referee.hand]
    finally:
        script.close()

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        for name in clicks:
            assert (await post(client, f"/api/square/{name}")).status == 200
        assert {sq: m.colour for sq, m in run.referee.model.items()} == expected
        assert [m.colour for m in run.referee.hand] == hand
        state = await (await client.get("/state")).json()
        assert state["marbles"] == {
            SQUARE_NAMES[sq]: colour.value for sq, colour in sorted(expected.items())
        }

    serve(test)


def test_the_leds_and_the_status_pixel_are_what_the_lights_show() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        await post(client, "/api/square/a1")
        await post(client, "/api/square/b1")  # two black marbles: refused on the press
        await post(client, "/api/press")
        await asyncio.sleep(0)  # the snapshot is drawn after the loop's turn
        state = await (await client.get("/state")).json()
        squares, status = run.lights_frame()
        assert state["leds"] == {SQUARE_NAMES[sq]: rgb_hex(c) for sq, c in enumerate(squares) if c}
        assert state["status"] == (rgb_hex(status) if status else "")
        assert state["status"] == "#ff0000", "a refusal shows the error colour"

    serve(test)


def test_holding_the_button_runs_in_real_time() -> None:
    # On the empty board a hold of hold_time starts a new game; released sooner, it does not.
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        stream = await client.get("/events")
        await post(client, "/api/press", action="down")
        await asyncio.sleep(0.1)
        await post(client, "/api/press", action="up")
        assert not any(e.to_json()["event"] == "new-game" for e in run.typed_events)
        await post(client, "/api/press", action="down")
        event = await next_event(stream, "new-game")  # after 0.4 s of real time
        assert event["game"] == 1
        await post(client, "/api/press", action="up")
        stream.close()

    serve(test, referee=Settings(hold_time=0.4))


def test_an_idle_simulated_board_sleeps() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        await post(client, "/api/square/b2")
        await post(client, "/api/press")
        await asyncio.sleep(0.5)
        assert run.clock.next_due() is None  # nothing blinks: no timer at all

    serve(test)


def test_opponent_and_hints_reach_the_referee_and_the_snapshot() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        assert (await post(client, "/api/opponent", level="perfect", colour="white")).status == 200
        assert (await post(client, "/api/hints", hints="on")).status == 200
        state = await (await client.get("/state")).json()
        assert state["players"] == {"black": "person", "white": "board:perfect"}
        assert state["hints"] is True and run.referee.hints
        # the first player wins Orbito with perfect play
        assert state["eval"]["to_move"] == "black" and state["eval"]["value"] == "win"
        await post(client, "/api/hints", hints="off")
        assert (await (await client.get("/state")).json())["eval"] is None
        await post(client, "/api/opponent", level="none")
        assert run.referee.opponent is None

    serve(test)


def test_a_simulated_hand_that_cannot_is_a_conflict() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        answer = await post(client, "/api/take-back")
        assert answer.status in (404, 409)  # nothing to take back (or no take-back at all)
        assert "error" in await answer.json()

    serve(test)


# --- a real board's page --------------------------------------------------------------------
def test_a_real_boards_squares_and_button_are_not_clicked() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        for path in ("/api/square/a1", "/api/press"):
            answer = await post(client, path)
            assert answer.status == 404 and "by hand" in (await answer.json())["error"]
        assert (await (await client.get("/state")).json())["simulated"] is False

    serve(test, real_board=True)


def test_on_a_real_board_an_opponent_set_mid_game_plays_from_the_next_game() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        for line in ("put b2", "press"):
            command = parse_line(line)
            assert command is not None
            run.run(command)
        await post(client, "/api/opponent", level="random", colour="white")
        assert run.referee.opponent is None, "not in a game under way"
        run.run(parse_line("reset black"))  # type: ignore[arg-type]
        await asyncio.sleep(0.05)
        assert run.referee.opponent is not None and run.referee.opponent.player == "board:random"

    serve(test, real_board=True)


# --- the access code ----------------------------------------------------------------------
def test_a_control_without_the_code_is_refused() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        assert (await (await client.get("/state")).json())["locked"] is True
        for headers in ({}, {CODE_HEADER: "sesame2025"}, {CODE_HEADER: ""}):
            answer = await client.post("/api/hints", json={"hints": "on"}, headers=headers)
            assert answer.status == 403 and "access code" in (await answer.json())["error"]
        assert not run.referee.hints
        answer = await client.post("/api/new-game", data={"code": "wrong", "first": "white"})
        assert answer.status == 403 and run.referee.saved.first is Colour.BLACK
        ok = await client.post("/api/hints", json={"hints": "on"}, headers={CODE_HEADER: CODE})
        assert ok.status == 200 and run.referee.hints
        ok = await client.post("/api/new-game", data={"code": CODE, "first": "white"})
        assert ok.status == 200 and run.referee.saved.first is Colour.WHITE
        # the simulated board's squares are the hands at the board: no code for those
        assert (await post(client, "/api/square/a1")).status == 200

    serve(test, code=CODE)


def test_code_matches_only_the_code() -> None:
    assert code_matches(None, None) and code_matches("anything", None)
    assert code_matches(CODE, CODE)
    assert not code_matches(None, CODE) and not code_matches("", CODE)
    assert not code_matches(CODE + "x", CODE) and not code_matches("é", CODE)


def test_a_generated_code_is_kept_private_and_reused(tmp_path: Path) -> None:
    first = access_code(WebConfig(), tmp_path)
    assert len(first) >= 6 and set(first) <= set(WEB_CODE_CHARS)
    assert access_code(WebConfig(), tmp_path) == first
    assert (tmp_path / CODE_FILE).stat().st_mode & 0o777 == 0o600
    assert access_code(WebConfig(code="mine123"), tmp_path) == "mine123"
    (tmp_path / CODE_FILE).write_text("0\n")  # damaged: a fresh one
    assert access_code(WebConfig(), tmp_path) not in ("0", first)


def test_the_web_code_command_prints_the_same_code(tmp_path: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text('[board]\nstate_dir = "state"\n[web]\nenabled = true\n' + SIM)
    cli = [sys.executable, "-m", "orbito_hw", "web"]
    once = subprocess.run([*cli, "code", "--config", str(config)], capture_output=True, text=True)
    again = subprocess.run([*cli, "code", "--config", str(config)], capture_output=True, text=True)
    assert once.returncode == 0 and once.stdout == again.stdout
    assert once.stdout.strip() == (tmp_path / "state" / CODE_FILE).read_text().strip()
    enabled = subprocess.run([*cli, "enabled", "--config", str(config)])
    assert enabled.returncode == 0
    config.write_text(SIM)
    assert subprocess.run([*cli, "enabled", "--config", str(config)]).returncode == 1


SIM = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'


def test_the_web_table_of_the_config() -> None:
    config = parse_config(SIM)
    assert config.web == WebConfig() and not config.web.enabled and config.web.port == 8080
    text = SIM + '[web]\nenabled = true\nbind = "127.0.0.1"\nport = 8000\ncode = "abc123"\n'
    assert parse_config(text).web == WebConfig(True, "127.0.0.1", 8000, "abc123")
    bad = SIM + '[web]\nenabled = "yes"\nbind = "pi.local"\nport = 70000\ncode = "a b"\nx = 1\n'
    with pytest.raises(ConfigError) as caught:
        parse_config(bad, "board.toml")
    for key in ("web.enabled", "web.bind", "web.port", "web.code", "web.x"):
        assert key + ":" in str(caught.value)


# --- many pages -------------------------------------------------------------------------------
PAGES = 100


def test_a_hundred_pages_cost_the_controller_no_turn() -> None:
    clicks = ["square/b2", "press", "square/a1", "press", "square/d4", "press", "square/d2"]
    clicks += ["press"]

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        # pages of their own: the test client's pool holds 100 connections at most
        pages = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
        streams = [await pages.get(client.make_url("/events")) for _ in range(PAGES)]
        for stream in streams:
            assert (await next_event(stream))["event"] == "snapshot"
        for click in clicks:
            assert (await post(client, f"/api/{click}")).status == 200
        played = run.referee.saved.turns
        assert len(played) == clicks.count("press"), [e.to_json() for e in run.typed_events]
        for stream in streams:  # every page saw every turn, in order
            tokens = [(await next_event(stream, "turn"))["turn"] for _ in played]
            assert tokens == played
        for stream in streams:
            stream.close()
        await pages.close()

    serve(test)


def test_a_page_that_stops_reading_is_dropped() -> None:
    async def test() -> None:
        page = Page()
        for _ in range(QUEUE_LIMIT):
            page.send(b"x")
        assert not page.closed
        page.send(b"one too many")
        assert page.closed and await page.next() is None

    asyncio.run(test())


def test_a_turns_events_and_its_snapshot_reach_a_page_in_one_write() -> None:
    # One write, so the page reads and draws them in one piece: with 20 pages on a small
    # machine, a frame each for the event and for the snapshot was drawing time for nothing.
    async def test() -> None:
        run = MockRun(None, None)
        clock = RealTime(run, asyncio.get_running_loop())
        feed = WebServer(MockControls(run, clock), None, ArchiveReads(run.state_dir)).feed
        feed.watch()
        clock.wake()
        page = feed.join()
        try:
            assert b'"event":"snapshot"' in (await page.next() or b"")
            feed.controls.lift_or_put(parse_square("b2"))
            await page.next()
            feed.controls.button("click")
            chunk = await page.next()
            assert chunk is not None
            kinds = [json.loads(line[6:])["event"] for line in chunk.split(b"\n\n") if line]
            assert "turn" in kinds and kinds[-1] == "snapshot", kinds
            assert not page.queue  # nothing of that turn came after
        finally:
            feed.close()
            clock.stop()
            run.close()

    asyncio.run(test())


# --- the archive pages --------------------------------------------------------------------
def test_without_an_archive_the_pages_say_so() -> None:
    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        games = await (await client.get("/api/games")).json()
        assert games == {"available": False, "games": [], "older": None}
        assert (await client.get("/games")).status == 200
        assert (await client.get("/games/1")).status == 404

    serve(test)


def test_an_archived_game_is_listed_and_replayed(tmp_path: Path) -> None:
    from orbito_hw.archive.recorder import Recorder

    recorder = Recorder(tmp_path)
    run = MockRun(tmp_path, on_event=recorder, on_boot=recorder.boot)
    try:
        for line in ("put b2", "press", "put a1", "press"):
            command = parse_line(line)
            assert command is not None
            run.run(command)
        run.finish()
    finally:
        run.close()
        recorder.close()

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        games = await (await client.get("/api/games")).json()
        assert games["available"] and [g["turns"] for g in games["games"]] == [2]
        game_id = games["games"][0]["id"]
        assert (await client.get(f"/games/{game_id}")).status == 200
        game = await (await client.get(f"/api/games/{game_id}")).json()
        assert game["game"]["moves"] == "b2 a1"
        assert game["boards"][0] == "..../..../..../...." and len(game["boards"]) == 3
        assert [t["turn"] for t in game["review"]["turns"]] == ["b2", "a1"]

    serve(test, state_dir=tmp_path)


@given(count=st.integers(0, 130), limit=st.one_of(st.none(), st.integers(1, 80)))
@settings(
    max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_games_list_comes_a_page_at_a_time(
    tmp_path_factory: pytest.TempPathFactory, count: int, limit: int | None
) -> None:
    """/api/games answers a page (GAMES_PAGE at most, the newest first asked, oldest first
    within it) and ``older`` walks back to the first game: every game once, in order, never
    the whole archive in one answer (its memory grew with every game kept: the soak)."""
    from orbito_hw.archive.store import Archive
    from orbito_hw.web.limits import GAMES_PAGE

    state = tmp_path_factory.mktemp("games")
    with Archive.open(state) as archive, archive.write():
        for n in range(1, count + 1):
            archive.new_game(n, Colour.BLACK, ("person", "person"), "2026-11-27T09:00:00")

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        seen: list[int] = []
        before: int | None = None
        page_size = min(limit or GAMES_PAGE, GAMES_PAGE)
        while True:
            query = {**({"before": str(before)} if before else {}),
                     **({"limit": str(limit)} if limit else {})}  # fmt: skip
            answer = await (await client.get("/api/games", params=query)).json()
            ids = [game["id"] for game in answer["games"]]
            assert ids == sorted(ids) and len(ids) <= page_size
            seen[:0] = ids
            before = answer["older"]
            if before is None:
                break
            assert before == ids[0]
        assert seen == list(range(1, count + 1))
        for bad in ("0", "-1", "x", "1e3", "9" * 13):
            assert (await client.get("/api/games", params={"before": bad})).status == 400
            assert (await client.get("/api/games", params={"limit": bad})).status == 400

    serve(test, state_dir=state)


# --- run --mock --web ---------------------------------------------------------------------
def orbito(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "orbito_hw", *argv], capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["run", "--web"], "--web goes with --mock"),
        (["run", "--mock", "--port", "8080"], "--port goes with --web"),
        (["run", "--mock", "--web", "--events", "-"], "--web does not go with --events"),
        (["run", "--mock", "--web", "--port", "70000"], "--port 70000 is not a port"),
    ],
)
def test_run_web_usage_errors_are_one_line(argv: list[str], words: str) -> None:
    done = orbito(*argv)
    assert done.returncode == 2 and words in done.stderr and len(done.stderr.splitlines()) == 1


def test_run_mock_web_serves_until_told_to_stop() -> None:
    with board(0) as url:  # and exits 0 on SIGTERM
        busy = orbito("run", "--mock", "--web", "--port", url.rstrip("/").rsplit(":", 1)[1])
        assert busy.returncode == 2 and "cannot listen" in busy.stderr, busy.stderr
        assert len(busy.stderr.splitlines()) == 1 and "Traceback" not in busy.stderr


# --- the archive's game page: "set this position up on the board" ---------------------------
def archived_game(tmp_path: Path) -> Path:
    """A state directory whose archive holds game 1: black b2, white c3, black a1 (pressed)."""
    from orbito_hw.cli import main

    script = tmp_path / "game.txt"
    script.write_text("reset black\nput b2\npress\nput c3\npress\nput a1\npress\n")
    state = tmp_path / "state"
    state.mkdir()
    assert main(["run", "--mock", "--events", str(script), "--state-dir", str(state)]) == 0
    return state


@pytest.mark.parametrize("real_board", [False, True])
def test_a_game_of_the_archive_is_set_up_from_its_page_with_the_code(
    tmp_path: Path, real_board: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    state = archived_game(tmp_path)
    capsys.readouterr()

    async def test(client: TestClient[Any, Any], run: MockRun) -> None:
        refused = await client.post("/api/games/1/set-up", json={"at": "2"})
        assert refused.status == 403 and run.referee.state.value != "setting up"
        for path, fields, status in (
            ("/api/games/9/set-up", {"at": "1"}, 404),
            ("/api/games/1/set-up", {"at": "4"}, 400),
            ("/api/games/1/set-up", {"at": "two"}, 400),
            ("/api/games/1/set-up", {"at": "0000000002"}, 400),
        ):
            answer = await client.post(path, json=fields, headers={CODE_HEADER: CODE})
            assert answer.status == status, (path, fields)
            assert "error" in await answer.json()
        ok = await client.post("/api/games/1/set-up", json={"at": "2"}, headers={CODE_HEADER: CODE})
        assert ok.status == 200, await ok.text()
        saved = run.referee.saved
        assert run.referee.state.value == "setting up"
        assert (saved.origin, saved.turns, saved.base) == ("archive:1:2", ["b2", "c3"], 2)

    serve(test, code=CODE, state_dir=state, real_board=real_board)
