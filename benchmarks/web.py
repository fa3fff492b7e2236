"""The web page's speed and cost: ``run --mock --web`` in its own process, pages in headless
chromium (Debian's, driven by Playwright).

- click to page: the press button clicked on a page, to that page showing the accepted turn
  (the click's request, the simulated board's turn, the event stream, the page's drawing);
- sensor to pages: a square's sensor changing on the simulated board (a put or a lift) to
  every one of PAGES open pages showing it;
- idle CPU of the controller with 5 pages open; its memory (RSS) with the page on.

    python benchmarks/web.py [TURNS]      # 60 turns by default
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
import time
import urllib.request
from typing import Any

from playwright.sync_api import sync_playwright

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import square_name

PAGES = 20
IDLE_PAGES = 5
IDLE_SECONDS = 30.0
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# Records, on each page, when each square last changed what it holds (wall clock, ms).
WATCH = """() => {
  window.seen = {};
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.oldValue !== c.target.dataset.marble) window.seen[c.target.dataset.square] = Date.now();
    }
  }).observe(document.getElementById("board"),
             {subtree: true, attributes: true, attributeOldValue: true,
              attributeFilter: ["data-marble"]});
}"""
# Clicks the press button as a person would, and times it until the page shows the turn.
PRESS = """(count) => new Promise((done) => {
  const turns = document.getElementById("turns");
  const start = performance.now();
  new MutationObserver((_, observer) => {
    if (turns.children.length === count) { observer.disconnect(); done(performance.now() - start); }
  }).observe(turns, {childList: true});
  const press = document.querySelector('[data-action="press"]');
  press.dispatchEvent(new PointerEvent("pointerdown", {bubbles: true}));
  press.dispatchEvent(new PointerEvent("pointerup", {bubbles: true}));
})"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def post(url: str, fields: dict[str, str] | None = None) -> None:
    body = json.dumps(fields or {}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    urllib.request.urlopen(request).read()


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def memory(pid: int) -> dict[str, int]:
    with open(f"/proc/{pid}/status") as f:
        rows = dict(line.split(":", 1) for line in f)
    return {key: int(rows[key].split()[0]) // 1024 for key in ("VmRSS", "VmHWM")}


def p95(values: list[float]) -> float:
    return sorted(values)[max(0, round(0.95 * len(values)) - 1)]


def play(url: str, pages: list[Any], turns: int) -> tuple[list[float], list[float]]:
    rng = random.Random(14)
    clicker = pages[0]
    clicks: list[float] = []
    sensors: list[float] = []
    position, shown = Position.start(Colour.BLACK), 0
    for _ in range(turns):
        if position.is_over:
            post(url + "api/new-game")
            position, shown = Position.start(Colour.BLACK), 0
            clicker.wait_for_function("() => !document.querySelector('[data-turn]')")
        turn = rng.choice(sorted(position.legal_turns(), key=lambda t: t.notation()))
        for square in (turn.move_from, turn.move_to, turn.place):
            if square is None:
                continue
            name = square_name(square)
            start = time.time() * 1000
            post(f"{url}api/square/{name}")
            arrived = []
            for page in pages:
                page.wait_for_function("(sq) => window.seen[sq]", arg=name)
                arrived.append(page.evaluate("(sq) => window.seen[sq]", name))
                page.evaluate("(sq) => delete window.seen[sq]", name)
            sensors.append(max(arrived) - start)
        shown += 1
        clicks.append(clicker.evaluate(PRESS, shown))
        position = position.play(turn)
    return clicks, sensors


def main() -> None:
    turns = int(sys.argv[1]) if len(sys.argv) > 1 else 60
    port = free_port()
    url = f"http://127.0.0.1:{port}/"
    server = subprocess.Popen(
        [sys.executable, "-m", "orbito_hw", "run", "--mock", "--web", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stderr is not None
    server.stderr.readline()
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            pages = [browser.new_page() for _ in range(PAGES)]
            for page in pages:
                page.goto(url)
                page.wait_for_selector('[data-link="live"]')
                page.evaluate(WATCH)
            clicks, sensors = play(url, pages, turns)
            for page in pages[IDLE_PAGES:]:
                page.close()
            time.sleep(2.0)
            before = cpu_seconds(server.pid)
            time.sleep(IDLE_SECONDS)
            idle = (cpu_seconds(server.pid) - before) / IDLE_SECONDS
            browser.close()
        rss = memory(server.pid)
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=20)
    print(f"click to page showing the turn ({len(clicks)} turns): "
          f"median {statistics.median(clicks):.1f} ms, p95 {p95(clicks):.1f} ms, "
          f"max {max(clicks):.1f} ms")  # fmt: skip
    print(f"sensor event to all {PAGES} pages ({len(sensors)} events): "
          f"median {statistics.median(sensors):.1f} ms, p95 {p95(sensors):.1f} ms, "
          f"max {max(sensors):.1f} ms")  # fmt: skip
    print(f"idle CPU with {IDLE_PAGES} pages open: {idle * 100:.2f}% over {IDLE_SECONDS:.0f} s")
    print(f"controller memory with the page on: RSS {rss['VmRSS']} MB, peak {rss['VmHWM']} MB")


if __name__ == "__main__":
    main()
