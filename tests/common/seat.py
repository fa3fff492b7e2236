"""What the seat's tests share (tests/test_seat*.py): a short game to play against a seat; a
simulated board's page with its seats on a loop of its own (aiohttp's test client); and, for
the tests in real Chromium, the board in its own process (``run --mock --web``, reached over
HTTP: the person at the board through the page's controls) and the seat's page on a phone."""

from __future__ import annotations

import asyncio
import json
import os
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from aiohttp.test_utils import TestClient, TestServer

from orbito_hw.archive.reading import ArchiveReads
from orbito_hw.mock.page import MockControls
from orbito_hw.mock.realtime import RealTime
from orbito_hw.rules.game import Colour, replay
from orbito_hw.sim.harness import MockRun
from orbito_hw.web.server import WebServer

from .browser import PHONE, WAIT_MS, axe_script, board, free_port
from .wait import until, until_async

GAME = "b1 b4 c3 a1 c2 c4 a1".split()
"""A short game, black (the person at the board) first; white (the seat) plays b4, a1, c4;
black wins on turn 7 (found with the rules; test_seat.py checks it)."""


@dataclass
class Board:
    """A simulated board's page on a loop of its own, for many examples."""

    loop: asyncio.AbstractEventLoop
    run: MockRun
    clock: RealTime
    server: WebServer
    client: TestClient[Any, Any]
    events: list[object]
    token: str = ""  # the seat's link, once invited

    def do(self, coroutine: Any) -> Any:
        return self.loop.run_until_complete(coroutine)

    async def post(self, path: str, **fields: str) -> tuple[int, dict[str, Any]]:
        response = await self.client.post(path, json=fields)
        return response.status, await response.json()

    async def get(self, path: str) -> tuple[int, Any]:
        response = await self.client.get(path)
        if response.content_type == "application/json":
            return response.status, await response.json()
        return response.status, await response.read()

    async def person(self, token: str) -> None:
        """The person at the board plays ``token`` (a placement) and presses."""
        turns = len(self.run.referee.snapshot().saved.turns)
        assert (await self.post(f"/api/square/{token}"))[0] == 200
        assert (await self.post("/api/press"))[0] == 200
        await until_async(lambda: len(self.run.referee.snapshot().saved.turns) == turns + 1,
                          what=f"the person's {token} counted")  # fmt: skip

    def snapshot(self) -> dict[str, Any]:
        return self.server.feed.snapshot()

    @property
    def turns(self) -> list[str]:
        return list(self.run.referee.snapshot().saved.turns)


@contextmanager
def open_board(loop: asyncio.AbstractEventLoop, state_dir: Path) -> Iterator[Board]:
    asyncio.set_event_loop(loop)
    events: list[object] = []

    async def start() -> Board:
        run = MockRun(state_dir, None, on_event=events.append)
        clock = RealTime(run, loop)
        server = WebServer(MockControls(run, clock), None, ArchiveReads(run.state_dir))
        server.feed.watch()
        clock.wake()
        client: TestClient[Any, Any] = TestClient(TestServer(server.app()))
        await client.start_server()
        return Board(loop, run, clock, server, client, events)

    made = loop.run_until_complete(start())
    try:
        yield made
    finally:
        made.do(made.client.close())
        made.server.feed.close()
        made.clock.stop()
        made.run.close()
        loop.close()


# --- the board in its own process, the seat's page in Chromium -------------------------------
CODE = "letmein42"
"""The board's access code, in the config ``coded_config`` writes."""
SIM = '[backends]\nsensors = "sim"\nbutton = "sim"\ndrive = "sim"\nlights = "sim"\n'


def coded_config(tmp_path: Path) -> Path:
    """A config for ``run --mock --web --config``: the simulated board, its state under
    ``tmp_path``, and the access code ``CODE``."""
    config = tmp_path / "config.toml"
    config.write_text(SIM + f'[board]\nstate_dir = "{tmp_path / "s"}"\n[web]\ncode = "{CODE}"\n')
    return config


def post(url: str, path: str, **fields: str) -> dict[str, Any]:
    """A control of the board's page (``fields`` as JSON); its JSON answer."""
    request = urllib.request.Request(
        url.rstrip("/") + path,
        data=json.dumps(fields).encode(),
        headers={"Content-Type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def state(url: str) -> dict[str, Any]:
    """The board's page's ``/state``: the snapshot."""
    with urllib.request.urlopen(url.rstrip("/") + "/state", timeout=10) as answer:
        result: dict[str, Any] = json.loads(answer.read())
        return result


def status_of(url: str) -> int:
    """The HTTP status ``GET url`` gets."""
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as refused:
        return int(refused.code)


def person(url: str, square: str) -> None:
    """The person at the board puts a marble on ``square`` and presses; until it counts."""
    count = len(state(url)["turns"])
    post(url, f"/api/square/{square}")
    post(url, "/api/press")
    until(lambda: len(state(url)["turns"]) == count + 1, what=f"{square} counted")


def lit(url: str, square: str) -> None:
    """Until the board's LEDs light ``square`` (the board guides its person to it)."""
    until(lambda: bool(state(url)["leds"].get(square)), what=f"{square} lit at the board")


def main_page(browser: Any, url: str) -> Any:
    """The board's page on a phone, its stream live and its controls open."""
    page = browser.new_page(viewport=PHONE, locale="en-GB")
    page.goto(url)
    page.wait_for_selector('[data-link="live"]', timeout=WAIT_MS)
    page.click("#controls summary")
    return page


def qr_shown(page: Any) -> None:
    """Until the board's page shows the link's QR code: loaded (an SVG image) and not hidden."""
    page.wait_for_function(
        "() => { const qr = document.getElementById('seat-qr');"
        " return qr.complete && qr.naturalWidth > 0 && !qr.hidden; }",
        timeout=WAIT_MS,
    )


def open_seat(browser: Any, link: str) -> Any:
    """The seat's page (either: at home or across the internet) on a phone, until it is live."""
    seat = browser.new_page(viewport=PHONE, locale="en-GB")
    seat.goto(link)
    seat.wait_for_selector('body[data-seat="live"]', timeout=WAIT_MS)
    return seat


def home_seat(browser: Any, url: str, colour: str = "white") -> tuple[dict[str, Any], Any]:
    """A seat at home invited on the board at ``url``: the invitation, and its page live."""
    invited = post(url, "/api/seat/invite", colour=colour)
    return invited, open_seat(browser, invited["link"])


@contextmanager
def remote_board(port: int, tmp_path: Path, game: str, plays: str = "black") -> Iterator[str]:
    """``run --mock --web`` in a remote game ``game`` on the broker at ``port``, the board
    playing ``plays``: its page's address (``board``)."""
    remote = f"mqtt://127.0.0.1:{port}/{game}"
    with board(
        free_port(), "--state-dir", str(tmp_path), "--remote", remote, "--plays", plays
    ) as url:
        yield url


def turns_shown(seat: Any, count: int) -> None:
    """Until the seat's page lists ``count`` turns."""
    seat.wait_for_function(
        f"() => document.querySelectorAll('#turns [data-turn]').length === {count}",
        timeout=WAIT_MS,
    )


def play_on_seat(url: str, seat: Any, token: str) -> None:
    """The seat plays ``token`` (a placement) by a click: waiting on the page, lit at the
    board; the person makes it; the page waits no more."""
    seat.click(f'[data-square="{token}"]')
    seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
    lit(url, token)
    person(url, token)
    seat.wait_for_selector('#instruction[data-waiting=""]', timeout=WAIT_MS)


def take_back_agreed(url: str, seat: Any, token: str) -> None:
    """The seat's last turn ``token`` (a placement) taken back at its ask (at home, or over
    the broker): asked on the page, agreed on the board's, undone by the person as the LEDs
    ask, played again."""
    count = len(state(url)["turns"])
    seat.click('[data-action="seat-take-back"]')
    seat.wait_for_selector('#ask-state[data-ask="asked"]', timeout=WAIT_MS)
    until(lambda: state(url)["ask"] is not None, what="the ask on the board's page")
    post(url, "/api/answer", agree="yes")
    lit(url, token)  # to undo
    post(url, f"/api/square/{token}")  # lifted off, as the LEDs ask
    until(lambda: len(state(url)["turns"]) == count - 1, what=f"{token} taken back")
    seat.wait_for_selector('#ask-state[data-ask="agreed"]', timeout=WAIT_MS)
    turns_shown(seat, count - 1)
    play_on_seat(url, seat, token)


def play_the_game(url: str, seat: Any, meanwhile: Callable[[int, str], bool]) -> None:
    """GAME played to its end on the board at ``url`` against the seat's ``seat`` page (white):
    the person's turns on the board's page, the seat's by clicks on its page, each lit on the
    LEDs before it counts; the second, with the page reloaded while it waits at the board (a
    click then refused on the page: the turn is being made), taken back at the seat's ask
    and played again. ``meanwhile(number, token)`` comes before each of the seat's turns (a
    reload, a broker restart); True if it played ``token`` on the page itself (by the keys).
    Then the result, the turns on both sides, and the page clean for a screen reader."""
    for number, token in enumerate(GAME, start=1):
        if number % 2:  # black: the person at the board
            person(url, token)
            turns_shown(seat, number)
            continue
        if not meanwhile(number, token):
            seat.click(f'[data-square="{token}"]')
        seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
        # The board guides its person to the seat's turn before anything counts.
        lit(url, token)
        assert state(url)["turns"] == GAME[: number - 1]
        if number == 2:  # reloaded while the turn waits at the board: still waiting
            seat.reload()
            seat.wait_for_selector(f'#instruction[data-waiting="{token}"]', timeout=WAIT_MS)
            seat.click('[data-square="d4"]')  # refused on the page: the turn is being made
            seat.wait_for_selector('#refusal[data-refusal="yes"]', timeout=WAIT_MS)
        person(url, token)
        seat.wait_for_selector('#instruction[data-waiting=""]', timeout=WAIT_MS)
        if number == 2:  # asked back, agreed at the board, played again
            take_back_agreed(url, seat, token)
    seat.wait_for_selector('#result[data-result="black"]', timeout=WAIT_MS)
    final = state(url)
    assert final["turns"] == GAME
    expected = replay(Colour.BLACK, GAME)
    assert final["result"] == expected.result.value  # type: ignore[union-attr]
    shown = [e.get_attribute("data-turn") for e in seat.locator("#turns [data-turn]").all()]
    assert shown == GAME
    seat.evaluate(axe_script())  # the page as a screen reader meets it: no violation
    found = seat.evaluate("axe.run(document, {resultTypes: ['violations']})")
    assert [v["id"] for v in found["violations"]] == []


SHOTS = "ORBITO_HW_SHOTS"
"""A folder to keep the seat's pages' screenshots in, when set (a closing note's pictures);
a test takes them either way, so a page that cannot be drawn fails here too."""


def shot(page: Any, name: str) -> bytes:
    """A PNG of ``page`` as the phone shows it; kept as ``NAME.png`` under $ORBITO_HW_SHOTS."""
    png: bytes = page.screenshot(full_page=True)
    assert png.startswith(b"\x89PNG")
    folder = os.environ.get(SHOTS)
    if folder:
        Path(folder).mkdir(parents=True, exist_ok=True)
        (Path(folder) / f"{name}.png").write_bytes(png)
    return png


def said(page: Any, selector: str = "#instruction") -> str:
    """The text of ``selector`` on ``page``, as a person reads it."""
    text: str = page.locator(selector).inner_text()
    return text


def says(page: Any, text: str, selector: str = "#instruction") -> None:
    """Until ``selector`` on ``page`` reads ``text`` (a part of it)."""
    page.wait_for_function(
        "([selector, text]) => document.querySelector(selector).textContent.includes(text)",
        arg=[selector, text],
        timeout=WAIT_MS,
    )
