"""Takes the README's picture of the web page (docs/web-page.png): ``run --mock --web`` with
hints on, two turns, then a turn of three marbles, refused, its squares lit. Needs the test
extra (Playwright) and Debian's chromium.

    python scripts/web_screenshot.py [OUTPUT]
"""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from chromium import ARGS, CHROMIUM  # scripts/chromium.py: the one list of flags
from playwright.sync_api import sync_playwright

OUTPUT = Path(__file__).resolve().parent.parent / "docs" / "web-page.png"
CLICKS = ["b2", "press", "a1", "press", "c1", "d1", "a4", "press"]


def main() -> None:
    output = Path(sys.argv[1]) if len(sys.argv) > 1 else OUTPUT
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"http://127.0.0.1:{port}/"
    argv = ["run", "--mock", "--web", "--hints", "--port", str(port)]
    server = subprocess.Popen([sys.executable, "-m", "orbito_hw", *argv], stderr=subprocess.PIPE)
    assert server.stderr is not None
    server.stderr.readline()  # the page's address: it is listening
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
            page = browser.new_page(viewport={"width": 940, "height": 620})
            page.goto(url)
            page.wait_for_selector('[data-link="live"]')
            for click in CLICKS:
                path, fields = ("press", {"action": "click"}) if click == "press" else (
                    f"square/{click}", {})  # fmt: skip
                body = json.dumps(fields).encode()
                headers = {"Content-Type": "application/json"}
                urllib.request.urlopen(urllib.request.Request(url + "api/" + path, body, headers))
                time.sleep(0.3)
            page.wait_for_selector('[data-square="c1"]:not([data-led=""])')  # a blink's "on"
            page.screenshot(path=str(output))
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=20)
    print(output)


if __name__ == "__main__":
    main()
