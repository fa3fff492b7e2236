"""A seat across the internet, timed: from the click on the seat's page to the turn lit on
the board's LEDs.

python benchmarks/seat.py [GAMES] [SEED]    (GAMES random games; 6 by default)

Starts Debian's mosquitto on free loopback ports (plain MQTT for the board, WebSockets for
the page; its own config, no persistence), then for each game ``orbito-hw run --mock --remote
mqtt://127.0.0.1:PORT/GAME --plays black --web`` in its own process and the seat's page
(seat_remote.html, white) in Debian's Chromium under Playwright at 390x844, as the tests do.
Both sides play random placements. What is timed, for each of the seat's turns, is
perf_counter from just before Playwright's click on the square to the moment the board's
page stream (/events, read on a thread of this process) delivers a snapshot with that square
lit: the click handled by the page, the seat's record published with QoS 1 over WebSockets,
mosquitto, the board's aiomqtt link, the protocol's checks and decision, the referee showing
the turn, the LEDs' frame, and the server-sent event (a small extra over the LEDs
themselves). Goal: p95 under 100 ms here.
"""

from __future__ import annotations

import json
import os
import random
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from orbito_hw.remote.seat_link import PAGE, seat_link  # noqa: E402
from orbito_hw.rules.game import Colour  # noqa: E402
from scripts.chromium import ARGS, CHROMIUM  # noqa: E402

WAIT_S = 15.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def until(what: Any, text: str) -> None:
    deadline = time.monotonic() + WAIT_S
    while not what():
        if time.monotonic() > deadline:
            raise TimeoutError(f"never happened: {text}")
        time.sleep(0.002)


@contextmanager
def broker(folder: Path) -> Iterator[tuple[int, int]]:
    port, ws_port = free_port(), free_port()
    config = folder / "mosquitto.conf"
    config.write_text(
        f"listener {port} 127.0.0.1\nlistener {ws_port} 127.0.0.1\nprotocol websockets\n"
        "allow_anonymous true\npersistence false\nlog_dest none\n"
    )
    process = subprocess.Popen(["/usr/sbin/mosquitto", "-c", str(config)])

    def listening() -> bool:
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", ws_port)) == 0

    try:
        until(listening, "mosquitto")
        yield port, ws_port
    finally:
        process.terminate()
        process.wait(10)


@contextmanager
def board(port: int, game: str, state: Path) -> Iterator[str]:
    remote = f"mqtt://127.0.0.1:{port}/{game}"
    argv = ["run", "--mock", "--web", "--port", "0", "--state-dir", str(state),
            "--remote", remote, "--plays", "black"]  # fmt: skip
    process = subprocess.Popen([sys.executable, "-m", "orbito_hw", *argv], stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})  # fmt: skip
    try:
        assert process.stderr is not None
        line = process.stderr.readline()
        served = line.split("http://", 1)[1].split("/", 1)[0]
        yield f"http://127.0.0.1:{served.rsplit(':', 1)[1]}/"
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)


class Stream:
    """The board's /events, on a thread: the latest snapshot and when it came."""

    def __init__(self, url: str) -> None:
        self.snapshot: dict[str, Any] = {}
        self.lit: dict[str, float] = {}  # square -> perf_counter when first seen lit
        self.answer = urllib.request.urlopen(url + "events", timeout=60)
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        try:
            for raw in self.answer:
                line = raw.decode().strip()
                if not line.startswith("data:"):
                    continue
                event = json.loads(line[5:])
                if event.get("event") == "snapshot":
                    now = time.perf_counter()
                    for square, led in (event.get("leds") or {}).items():
                        if led:
                            self.lit.setdefault(square, now)
                    self.lit = {s: t for s, t in self.lit.items() if event["leds"].get(s)}
                    self.snapshot = event
        except (OSError, ValueError, AttributeError):  # closed under the reader: the end
            return


def post(url: str, path: str) -> None:
    request = urllib.request.Request(url + path.lstrip("/"), data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    urllib.request.urlopen(request, timeout=10).read()


def person(url: str, stream: Stream, square: str) -> None:
    count = len(stream.snapshot.get("turns", []))
    post(url, f"/api/square/{square}")
    post(url, "/api/press")
    until(lambda: len(stream.snapshot.get("turns", [])) == count + 1, f"{square} counted")


def play(browser: Any, port: int, ws_port: int, game: str, rng: random.Random) -> list[float]:
    times: list[float] = []
    with tempfile.TemporaryDirectory() as state, board(port, game, Path(state)) as url:
        stream = Stream(url)
        until(lambda: bool(stream.snapshot), "the board's stream")
        made = seat_link(f"{url}{PAGE}", f"ws://127.0.0.1:{ws_port}/mqtt", game, Colour.WHITE)
        page = browser.new_page(viewport={"width": 390, "height": 844})
        page.goto(made.link)
        page.wait_for_selector('body[data-seat="live"]', timeout=15_000)
        while True:
            snap = stream.snapshot
            if snap.get("result") or len(snap.get("marbles", {})) >= 15:
                break
            empty = [f + r for f in "abcd" for r in "1234" if f + r not in snap["marbles"]]
            square = rng.choice(empty)
            if snap["to_move"] == "black":
                person(url, stream, square)
                continue
            turns = len(snap["turns"])
            page.wait_for_function(
                f"() => document.querySelectorAll('#turns [data-turn]').length === {turns}"
                " && document.querySelector('#instruction').dataset.waiting === ''",
                timeout=15_000,
            )
            start = time.perf_counter()
            page.click(f'[data-square="{square}"]')
            until(lambda s=square: s in stream.lit, f"{square} lit")
            times.append((stream.lit[square] - start) * 1000)
            person(url, stream, square)
        page.close()
        stream.answer.close()
    return times


def main(games: int, seed: int) -> None:
    from playwright.sync_api import sync_playwright

    rng = random.Random(seed)
    times: list[float] = []
    with (
        tempfile.TemporaryDirectory() as folder,
        broker(Path(folder)) as (port, ws_port),
        sync_playwright() as playwright,
    ):
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        for n in range(games):
            times += play(browser, port, ws_port, f"bench-{seed}-{n}", rng)
        browser.close()
    times.sort()
    p50 = statistics.median(times)
    p95 = times[min(len(times) - 1, round(0.95 * (len(times) - 1)))]
    print(f"seat click -> LEDs at the board, {len(times)} turns in {games} games "
          f"(Chromium, mosquitto over WebSockets): p50 {p50:.1f} ms, p95 {p95:.1f} ms, "
          f"max {times[-1]:.1f} ms (goal: p95 under 100 ms)")  # fmt: skip


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6, int(sys.argv[2]) if len(sys.argv) > 2 else 1)
