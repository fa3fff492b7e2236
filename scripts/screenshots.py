"""Takes the pictures of docs/web-page.md (docs/screenshots/): each page at a phone's size
(390x844) and a desktop's (1280x800), from ``run --mock --web`` against the board at level 3
with a game in a few states, in the dark theme and English, and a few in the light theme and
in French (the browser's colour scheme and language, as a viewer's would be). Needs the test
extra (Playwright) and Debian's chromium.

    python scripts/screenshots.py [OUTPUT-DIR]

JPEG at a modest quality: the dozen pictures stay well under 2 MB together. The watch page
needs a broker; it is shown with two games answered in the page's place (``WATCHED`` of
tests/test_web_pages.py), as a broker would list them.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # scripts.* as the tests import them (never tests.*)

from playwright.sync_api import ViewportSize, sync_playwright  # noqa: E402

from scripts.chromium import ARGS, CHROMIUM  # noqa: E402
from scripts.page_game import (  # noqa: E402
    WATCHED,
    a_turn,
    api,
    asked,
    make,
    play_one,
    play_to_end,
    position_of,
    state,
    wait_for,
)

OUTPUT = ROOT / "docs" / "screenshots"
SIZES: dict[str, ViewportSize] = {
    "phone": {"width": 390, "height": 844},
    "desktop": {"width": 1280, "height": 800},
}
QUALITY = 60


def board_turn_with_a_move(url: str, rng: random.Random) -> None:
    """Play on until the board asks for a turn with a move (its arrow shows)."""
    while True:
        snapshot = state(url)
        if snapshot["phase"] == "board-turn" and snapshot["arrow"]:
            return
        play_one(url, rng)


def refused(url: str, rng: random.Random) -> None:
    """The person's turn made with two marbles: refused, the squares ringed red."""
    snapshot = wait_for(url, lambda s: s["phase"] == "your-turn", "the person's turn")
    empty = [f"{f}{r}" for r in "1234" for f in "abcd" if f"{f}{r}" not in snapshot["marbles"]]
    for name in empty[:2]:
        api(url, f"square/{name}")
    api(url, "press", {"action": "click"})
    wait_for(url, lambda s: s["phase"] == "refused", "the refusal")


def undo_refusal(url: str) -> None:
    snapshot = state(url)
    for name in sorted(snapshot["glows"]):
        if snapshot["glows"][name]["kind"] == "fix":
            api(url, f"square/{name}")


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    output.mkdir(parents=True, exist_ok=True)
    rng = random.Random(7)
    with tempfile.TemporaryDirectory() as state_dir:
        argv = ["run", "--mock", "--web", "--port", "0", "--opponent", "3:black", "--seed", "7",
                "--state-dir", state_dir]  # fmt: skip
        server = subprocess.Popen([sys.executable, "-m", "orbito_hw", *argv],
                                  stderr=subprocess.PIPE, text=True)  # fmt: skip
        assert server.stderr is not None
        line = server.stderr.readline()  # the page's address: it is listening
        url = "http://" + line.split("http://", 1)[1].split("/", 1)[0] + "/"
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)

                def shoot(
                    name: str,
                    path: str,
                    ready: Callable[[Any], None] | None = None,
                    scheme: Literal["dark", "light"] = "dark",
                    locale: str = "en-GB",
                ) -> None:
                    for size, viewport in SIZES.items():
                        page = browser.new_page(
                            viewport=viewport, color_scheme=scheme, locale=locale
                        )
                        if path == "watch":
                            page.route("**/api/watch", lambda route: route.fulfill(
                                status=200, content_type="application/json",
                                body=json.dumps(WATCHED)))  # fmt: skip
                        page.goto(url + path)
                        page.wait_for_load_state("networkidle")
                        if ready is not None:
                            ready(page)
                        page.wait_for_timeout(300)
                        target = output / f"{name}-{size}.jpg"
                        page.screenshot(path=str(target), type="jpeg", quality=QUALITY,
                                        full_page=size == "phone")  # fmt: skip
                        page.close()
                        print(target.relative_to(ROOT) if target.is_relative_to(ROOT) else target)

                def lit(page: Any) -> None:  # a blink's "on": the rings are drawn
                    page.wait_for_selector('[data-link="live"]')
                    page.wait_for_selector('[data-glow="place"]:not([data-led=""])')

                def previewed(page: Any) -> None:  # the press previewed: the button pointed at
                    page.wait_for_selector('[data-link="live"]')
                    page.hover('[data-action="press"]')
                    page.wait_for_selector('#board[data-preview="true"]')

                def reviewed(page: Any) -> None:  # the result with its review link found
                    page.wait_for_selector("#review:not([hidden])")

                # The person's turn after a few: the press previewed, light and in French.
                for _ in range(4):
                    play_one(url, rng)
                while state(url)["phase"] != "your-turn":
                    play_one(url, rng)
                shoot("preview-light-fr", "", previewed, scheme="light", locale="fr-FR")
                shoot("preview", "", previewed)
                # That game played to its end: the archive has it.
                play_to_end(url, seed=5)
                shoot("result", "", reviewed)
                shoot("result-light", "", reviewed, scheme="light")
                shoot("result-fr", "", reviewed, locale="fr-FR")
                shoot("games", "games")
                shoot("games-light", "games", scheme="light")
                shoot("game", "games/1")
                shoot("watch", "watch")
                # A second game: the board's turn with a move, then a refused press.
                api(url, "new-game", {"first": "black"})
                wait_for(url, lambda s: s["phase"] == "board-turn", "the board's turn")
                board_turn_with_a_move(url, rng)
                shoot("board-turn", "", lit)
                make(url, asked(state(url)))
                refused(url, rng)
                shoot("refused", "", lambda page: page.wait_for_selector('[data-glow="fix"]'))
                undo_refusal(url)
                make(url, a_turn(position_of(state(url)), rng))
                browser.close()
        finally:
            server.terminate()
            server.wait(timeout=20)
    total = sum(p.stat().st_size for p in output.glob("*.jpg"))
    print(f"{total / 1e6:.2f} MB in {output}")


if __name__ == "__main__":
    main()
