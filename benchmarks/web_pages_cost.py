"""What the web page costs the browsers that show it, per change on the board: the CPU of
all of chromium's processes with PAGES pages open (software drawing, as on the benchmark
machine), and one page's main-thread time (Chrome's own Performance metrics), for a marble
put on the simulated board and for a press (the rings' turn, drawn as a slide).

benchmarks/web.py measures how soon the pages show a change; this, what each change costs
them: the figure to watch when the page's drawing changes.

    python benchmarks/web_pages_cost.py [PAGES]      # 20 by default
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from typing import Any

from playwright.sync_api import sync_playwright

from web import ARGS, CHROMIUM, cpu_seconds, free_port, post

SQUARES = ["a1", "b2", "c3", "d4", "a4", "b3", "c1", "d2", "a2", "b4", "c4", "d1"]
SETTLE_S = 0.6  # a change and everything it draws (the slide is 0.35 s) are over by then
MAIN_THREAD = ("TaskDuration", "ScriptDuration", "LayoutDuration", "RecalcStyleDuration")


def chromium_cpu() -> dict[str, float]:
    """CPU seconds so far of each kind of chromium process (renderer, gpu-process...)."""
    spent: dict[str, float] = {}
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline") as f:
                argv = f.read().replace("\0", " ").split()
            if not argv or "chrom" not in argv[0]:
                continue
            kinds = [a.removeprefix("--type=") for a in argv if a.startswith("--type=")]
            kind = kinds[0] if kinds else "browser"
            spent[kind] = spent.get(kind, 0.0) + cpu_seconds(int(pid))
        except OSError:  # gone meanwhile
            continue
    return spent


def changes(url: str) -> list[tuple[str, str, dict[str, str]]]:
    """A put, then a press, on each of SQUARES: (kind, address, fields)."""
    steps: list[tuple[str, str, dict[str, str]]] = []
    for square in SQUARES:
        steps.append(("put", f"{url}api/square/{square}", {}))
        steps.append(("press", f"{url}api/press", {"action": "click"}))
    return steps


def browsers_cpu(url: str, pages: int, browser: Any) -> dict[str, dict[str, float]]:
    opened = [browser.new_page() for _ in range(pages)]
    for page in opened:
        page.goto(url)
        page.wait_for_selector('[data-link="live"]')
    time.sleep(1.0)
    spent: dict[str, dict[str, float]] = {"put": {}, "press": {}}
    for kind, address, fields in changes(url):
        before = chromium_cpu()
        post(address, fields)
        time.sleep(SETTLE_S)
        for process, seconds in chromium_cpu().items():
            used = seconds - before.get(process, 0.0)  # a process new since: all of it
            spent[kind][process] = spent[kind].get(process, 0.0) + used
    for page in opened:
        page.close()
    return {
        kind: {process: seconds * 1000 / len(SQUARES) for process, seconds in c.items()}
        for kind, c in spent.items()
    }


def main_thread(url: str, browser: Any) -> dict[str, dict[str, float]]:
    page = browser.new_page()
    page.goto(url)
    page.wait_for_selector('[data-link="live"]')
    inspector = page.context.new_cdp_session(page)
    inspector.send("Performance.enable")

    def metrics() -> dict[str, float]:
        return {m["name"]: m["value"] for m in inspector.send("Performance.getMetrics")["metrics"]}

    time.sleep(1.0)
    spent: dict[str, dict[str, list[float]]] = {"put": {}, "press": {}}
    for kind, address, fields in changes(url):
        before = metrics()
        post(address, fields)
        time.sleep(SETTLE_S)
        after = metrics()
        for name in MAIN_THREAD:
            spent[kind].setdefault(name, []).append((after[name] - before[name]) * 1000)
    page.close()
    return {k: {n: statistics.median(v) for n, v in m.items()} for k, m in spent.items()}


def main() -> None:
    pages = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    results = {}
    for measure in ("browsers", "main thread"):  # each on a board of its own, from the start
        port = free_port()
        url = f"http://127.0.0.1:{port}/"
        server = subprocess.Popen(
            [sys.executable, "-m", "orbito_hw", "run", "--mock", "--web", "--port", str(port)],
            stderr=subprocess.PIPE,
        )
        assert server.stderr is not None
        server.stderr.readline()
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
                if measure == "browsers":
                    results[measure] = browsers_cpu(url, pages, browser)
                else:
                    results[measure] = main_thread(url, browser)
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
    for kind in ("put", "press"):
        cpu = results["browsers"][kind]
        parts = ", ".join(f"{p} {ms:.0f}" for p, ms in sorted(cpu.items(), key=lambda x: -x[1]))
        print(f"a {kind}: all {pages} pages' browser CPU {sum(cpu.values()):.0f} ms ({parts})")
        thread = results["main thread"][kind]
        print("  one page's main thread (median): "
              + ", ".join(f"{n.removesuffix('Duration').lower()} {ms:.1f} ms"
                          for n, ms in thread.items()))  # fmt: skip


if __name__ == "__main__":
    main()
