"""The systemd notify client: READY, STATUS, STOPPING and the watchdog pings, sent to a fake
NOTIFY_SOCKET that this test listens on."""

from __future__ import annotations

import asyncio
import itertools
import os
import time
from pathlib import Path

import pytest

from orbito_hw.app.service import Service, notify_address, watchdog_interval

from .common.systemd import FakeSystemd


def run_loop(service: Service, seconds: float, stall: tuple[float, float] | None = None) -> None:
    """Run an event loop with the service started; optionally block it (time.sleep) for
    ``stall[1]`` seconds from ``stall[0]`` on, as a hung controller would."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        service.start(loop)
        if stall is not None:
            loop.call_later(stall[0], time.sleep, stall[1])
        await asyncio.sleep(seconds)
        service.stop()

    asyncio.run(main())


def test_the_address_of_an_abstract_socket_starts_with_nul() -> None:
    assert notify_address({"NOTIFY_SOCKET": "@/org/freedesktop/systemd1/notify"}) == (
        "\0/org/freedesktop/systemd1/notify"
    )
    assert notify_address({"NOTIFY_SOCKET": "/run/systemd/notify"}) == "/run/systemd/notify"
    assert notify_address({}) is None


def test_the_watchdog_interval_is_half_the_timeout_and_only_for_our_pid() -> None:
    assert watchdog_interval({"WATCHDOG_USEC": "20000000"}, pid=42) == 10.0
    assert watchdog_interval({"WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "42"}, pid=42) == 1.5
    assert watchdog_interval({"WATCHDOG_USEC": "3000000", "WATCHDOG_PID": "7"}, pid=42) is None
    assert watchdog_interval({"WATCHDOG_USEC": "0"}, pid=42) is None
    assert watchdog_interval({"WATCHDOG_USEC": "soon"}, pid=42) is None
    assert watchdog_interval({}, pid=42) is None


def test_without_notify_socket_every_call_is_a_quiet_no_op() -> None:
    service = Service(environ={"WATCHDOG_USEC": "100000"})
    assert not service.enabled
    assert service.notify("READY=1") is False

    async def main() -> None:
        service.start(asyncio.get_running_loop())
        assert not service.watching  # no pings into the void

    asyncio.run(main())


def test_ready_status_and_stopping_reach_the_socket(systemd: tuple[FakeSystemd, str]) -> None:
    fake, path = systemd
    service = Service(environ={"NOTIFY_SOCKET": path})
    service.status("game 2 turn 5:\nwhite to move")
    run_loop(service, 0.05)
    fake.close()
    # No WATCHDOG_USEC: no pings at all. The status stays one line.
    assert fake.texts() == ["STATUS=game 2 turn 5: white to move", "READY=1", "STOPPING=1"]


def test_an_abstract_notify_socket_works() -> None:
    name = f"orbito-hw-test-{os.getpid()}"
    fake = FakeSystemd("\0" + name)
    service = Service(environ={"NOTIFY_SOCKET": "@" + name})
    service.ready()
    fake.close()
    assert fake.texts() == ["READY=1"]


def test_pings_come_at_half_the_watchdog_timeout(systemd: tuple[FakeSystemd, str]) -> None:
    fake, path = systemd
    service = Service(environ={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    assert service.interval == pytest.approx(0.1)
    run_loop(service, 0.65)
    messages = fake.close()
    texts = [text for _, text in messages]
    assert texts[0] == "READY=1" and texts[-1] == "STOPPING=1"
    pings = [at for at, text in messages if text == "WATCHDOG=1"]
    assert texts[1:-1] == ["WATCHDOG=1"] * len(pings)
    assert 5 <= len(pings) <= 8, len(pings)
    gaps = sorted(b - a for a, b in itertools.pairwise(pings))
    assert 0.08 <= gaps[len(gaps) // 2] <= 0.15, gaps


def test_a_stuck_loop_stops_pinging(systemd: tuple[FakeSystemd, str]) -> None:
    fake, path = systemd
    service = Service(environ={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "200000"})
    started = time.monotonic()
    run_loop(service, 1.2, stall=(0.3, 0.6))
    pings = [at - started for at, text in fake.close() if text == "WATCHDOG=1"]
    # The loop is blocked from 0.3 s to 0.9 s: no ping in that window (a threaded pinger
    # would have sent about six), and pings again after it.
    during = [at for at in pings if 0.35 < at < 0.88]
    assert during == [], pings
    assert any(at < 0.3 for at in pings) and any(at > 0.9 for at in pings), pings
    assert max(b - a for a, b in itertools.pairwise(pings)) >= 0.55


def test_pings_stop_when_the_service_stops(systemd: tuple[FakeSystemd, str]) -> None:
    fake, path = systemd
    service = Service(environ={"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "100000"})

    async def main() -> None:
        service.start(asyncio.get_running_loop())
        await asyncio.sleep(0.12)
        assert service.watching
        service.stop()
        assert not service.watching
        await asyncio.sleep(0.3)  # the loop runs on: no more pings may come

    asyncio.run(main())
    texts = fake.close()
    assert texts[-1][1] == "STOPPING=1"


def test_a_gone_socket_is_reported_once_and_never_raises(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    service = Service(environ={"NOTIFY_SOCKET": str(tmp_path / "nobody-listens")})
    assert service.notify("READY=1") is False
    assert service.notify("WATCHDOG=1") is False
    warnings = [r for r in caplog.records if "cannot notify systemd" in r.getMessage()]
    assert len(warnings) == 1
