"""Debian's Chromium as the tests, the benchmarks and the screenshot script launch it, in one
place: headless, and with every background connection off (this machine's closed network
refuses them, many at a time, and each start would look up Google's hosts)."""

from __future__ import annotations

from pathlib import Path
from typing import Final

CHROMIUM: Final = Path("/usr/bin/chromium")
"""Debian's chromium: Playwright drives it (no browser download)."""
ARGS: Final = [
    "--headless",
    "--no-sandbox",  # run as root in CI
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
