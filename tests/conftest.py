"""What every test module may ask for: the fixtures two or more of them share, and the
suite's settings (Hypothesis's profiles).

Profiles: ``ci`` (Hypothesis's own numbers of examples, the full run) is chosen under CI=true
and by ``HYPOTHESIS_PROFILE=ci``; ``dev`` (a quarter of the examples, no deadline) is for
quick runs on a developer's machine with ``HYPOTHESIS_PROFILE=dev``. The README's test
command, run anywhere, uses ``ci``: what passes there passes in CI."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from .common.asks import Table
from .common.browser import missing
from .common.systemd import FakeSystemd
from .common.two_boards import Broker, mosquitto

# A loaded CI machine runs two tests at once (pytest-xdist) on two cores: no example's time
# is a failure (the tests' speed is measured by benchmarks/, never by timings in tests).
settings.register_profile("ci", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile(
    "dev", parent=settings.get_profile("ci"), max_examples=max(1, settings().max_examples // 4)
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture
def mock_pins() -> Iterator[Any]:
    """gpiozero's MockFactory as every device's pin factory for one test, then the old one
    back (gpiozero's own tests do the same)."""
    from gpiozero import Device
    from gpiozero.pins.mock import MockFactory

    old = Device.pin_factory
    Device.pin_factory = factory = MockFactory()
    yield factory
    factory.reset()
    Device.pin_factory = old


@pytest.fixture
def systemd(tmp_path: Path) -> Iterator[tuple[FakeSystemd, str]]:
    """systemd's notify socket, faked at a temporary path: the fake and the path."""
    path = str(tmp_path / "notify")
    fake = FakeSystemd(path)
    yield fake, path
    fake.close()


@pytest.fixture
def broker(tmp_path: Path) -> Iterator[Broker]:
    """A mosquitto of the test's own on a free loopback port, stopped at the end."""
    running = Broker(mosquitto(), tmp_path)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def ws_broker(tmp_path: Path) -> Iterator[Broker]:
    """The ``broker`` fixture's mosquitto with a WebSockets listener too (``ws_url``), for a
    page in the browser that speaks MQTT (a seat across the internet)."""
    running = Broker(mosquitto(), tmp_path, websockets=True)
    running.start()
    try:
        yield running
    finally:
        running.stop()


@pytest.fixture
def table() -> Iterator[Table]:
    """The asks' table (tests/common/asks.py): the simulated board, black the person at it,
    white a seat on a phone; closed after the test. (test_puzzles.py's ``table`` is its own.)"""
    made = Table()
    try:
        yield made
    finally:
        made.close()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium under Playwright, one for a test module."""
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        missing("playwright", "the test extra")
    from scripts.chromium import ARGS, CHROMIUM

    if not CHROMIUM.exists():
        missing("chromium", "apt-get install chromium")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield launched
        launched.close()


# How the suite shares the cores (pytest-xdist, pyproject's addopts): a module's tests stay on
# one worker (``--dist loadfile``: a browser, a broker, a module's fixtures made once), and the
# modules are handed out in the order below (``--no-loadscope-reorder``), the longest first, so
# that no worker is left with a long module at the end while the other idles. The mechanics'
# modules are the longest (``--durations``); what they share, the printed parts and the build,
# is made once for the run on disk by whichever worker asks first (tests/common/cad.py), so the
# first two go to a module that builds them and one that needs neither (the physics).
FIRST = [
    "test_cad.py", "test_physics.py", "test_mechanism_back.py", "test_mechanism.py",
    "test_optics_model.py", "test_printing.py",
    "test_sensing_model.py",
]  # fmt: skip


def _order(item: pytest.Item) -> int:
    name = item.path.name
    return FIRST.index(name) if name in FIRST else len(FIRST)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that asks for the browser or a broker is in that tier (``-m "not browser"``
    leaves it out); the mechanics' and the fuzz modules mark themselves. The modules in
    FIRST go first, in its order (the others after, as collected)."""
    for item in items:
        names = getattr(item, "fixturenames", ())
        for tier in ("browser", "broker"):
            if tier in names:
                item.add_marker(getattr(pytest.mark, tier))
        if "ws_broker" in names:
            item.add_marker(pytest.mark.broker)
    items.sort(key=_order)  # stable: each module's tests in their own order
