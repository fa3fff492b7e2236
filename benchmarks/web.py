"""The web page's speed and cost: ``run --mock --web`` in its own process, pages in headless
chromium (Debian's, driven by Playwright).

- click to page: the press button clicked on a page, to that page showing the accepted turn
  (the click's request, the simulated board's turn, the event stream, the page's drawing);
- sensor to pages: a square's sensor changing on the simulated board (a put or a lift) to
  every one of PAGES open pages showing it (the slowest page each time);
- idle CPU of the controller with 5 pages open; its memory (RSS) with the page on.

The person at the board touches it as a person can: each touch comes TOUCH_GAP_S after every
page showed the last thing that happened (a real board's rings take the drive's
``steps_per_place / max_speed``, 0.5 s by default, before a hand may touch a marble after a
press). A second pass plays with no gap at all (a touch the instant the last page showed the
one before it, or the clicker page the turn): there the slowest page is also still drawing
the turn before, so it is a stress figure, printed for comparison.

The pages here are 20 headless Chromium pages drawing in software on the controller's own
cores; on a table each phone draws on its own.

    python benchmarks/web.py [TURNS]      # 60 turns by default (and TURNS // 2 with no gap)
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
from pathlib import Path
from typing import Any

from playwright.sync_api import sync_playwright

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from chromium import ARGS, CHROMIUM

from orbito_hw.rules.game import Colour, Position
from orbito_hw.rules.squares import square_name

PAGES = 20
TOUCH_GAP_S = 0.25
"""A person's reaction: seeing the board, then touching it, takes at least this long."""
IDLE_PAGES = 5
IDLE_SECONDS = 30.0

# Records, on each page, when each square last changed what it holds, and when its turn list
# last grew to each length (wall clock, ms: the same clock as the benchmark's time.time()).
WATCH = """() => {
  window.seen = {};
  window.turnsSeen = {};
  new MutationObserver((changes) => {
    for (const c of changes) {
      if (c.oldValue !== c.target.dataset.marble) window.seen[c.target.dataset.square] = Date.now();
    }
  }).observe(document.getElementById("board"),
             {subtree: true, attributes: true, attributeOldValue: true,
              attributeFilter: ["data-marble"]});
  const turns = document.getElementById("turns");
  new MutationObserver(() => { window.turnsSeen[turns.children.length] = Date.now(); })
    .observe(turns, {childList: true});
}"""
# Waits until a page has shown a square change made at or after `start` (the rings' turn
# changes squares too: those are older), and answers when.
SEEN = """(a) => window.seen[a.square] >= a.start ? window.seen[a.square] : false"""
TURN_SEEN = """(count) => window.turnsSeen[count] || false"""
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


def shown_everywhere(pages: list[Any], script: str, arg: object) -> list[float]:
    """When each page showed it (ms), waiting for each in turn."""
    return [float(page.wait_for_function(script, arg=arg).json_value()) for page in pages]


def play(url: str, pages: list[Any], turns: int, gap: float) -> dict[str, list[float]]:
    """Plays ``turns`` random turns from a new game; a touch comes ``gap`` s after the last
    page showed the one before. Answers the times (ms) of each measure."""
    rng = random.Random(14)
    clicker = pages[0]
    times: dict[str, list[float]] = {"click": [], "sensor": [], "turn everywhere": []}

    def new_game() -> Position:
        post(url + "api/new-game")
        clicker.wait_for_function("() => !document.querySelector('[data-turn]')")
        return Position.start(Colour.BLACK)

    position, shown = new_game(), 0
    shown_at = time.time()
    for _ in range(turns):
        if position.is_over:
            position, shown = new_game(), 0
        turn = rng.choice(sorted(position.legal_turns(), key=lambda t: t.notation()))
        for square in (turn.move_from, turn.move_to, turn.place):
            if square is None:
                continue
            name = square_name(square)
            time.sleep(max(0.0, shown_at + gap - time.time()))
            start = time.time() * 1000
            post(f"{url}api/square/{name}")
            arrived = shown_everywhere(pages, SEEN, {"square": name, "start": start})
            times["sensor"].append(max(arrived) - start)
            shown_at = max(arrived) / 1000
        time.sleep(max(0.0, shown_at + gap - time.time()))
        shown += 1
        start = time.time() * 1000
        times["click"].append(clicker.evaluate(PRESS, shown))
        shown_at = time.time()
        if gap:  # with no gap, the next touch comes as the clicker page shows the turn
            arrived = shown_everywhere(pages, TURN_SEEN, shown)
            times["turn everywhere"].append(max(arrived) - start)
            shown_at = max(arrived) / 1000
        position = position.play(turn)
    return times


def summary(values: list[float]) -> str:
    return (f"median {statistics.median(values):.1f} ms, p95 {p95(values):.1f} ms, "
            f"max {max(values):.1f} ms")  # fmt: skip


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
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            pages = [browser.new_page() for _ in range(PAGES)]
            for page in pages:
                page.goto(url)
                page.wait_for_selector('[data-link="live"]')
                page.evaluate(WATCH)
            paced = play(url, pages, turns, TOUCH_GAP_S)
            stress = play(url, pages, max(1, turns // 2), 0.0)
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
    gap = f"touches {TOUCH_GAP_S * 1000:.0f} ms after the board showed the last"
    print(f"{gap}:")
    print(f"  click to page showing the turn ({len(paced['click'])} turns): "
          f"{summary(paced['click'])}")  # fmt: skip
    print(f"  sensor event to all {PAGES} pages ({len(paced['sensor'])} events): "
          f"{summary(paced['sensor'])}")  # fmt: skip
    print(f"  click to all {PAGES} pages showing the turn: {summary(paced['turn everywhere'])}")
    print("touches back to back (stress):")
    print(f"  click to page showing the turn ({len(stress['click'])} turns): "
          f"{summary(stress['click'])}")  # fmt: skip
    print(f"  sensor event to all {PAGES} pages ({len(stress['sensor'])} events): "
          f"{summary(stress['sensor'])}")  # fmt: skip
    print(f"idle CPU with {IDLE_PAGES} pages open: {idle * 100:.2f}% over {IDLE_SECONDS:.0f} s")
    print(f"controller memory with the page on: RSS {rss['VmRSS']} MB, peak {rss['VmHWM']} MB")


if __name__ == "__main__":
    main()
