"""The package's releases side by side and the upgrade that rolls itself back
(orbito_hw/app/releases.py), against a temp dir as /opt/orbito-hw and a fake systemd whose
service starts as each release would: READY and refereeing, exiting at start, or hanging.
No time passes for real: the fake clock moves only when the check waits between looks."""

from __future__ import annotations

import argparse
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from orbito_hw.app.releases import RUNNING_LINE, ReleaseError, Releases
from orbito_hw.commands.update import cmd_version, release_of


@dataclass
class FakeSystemd:
    """orbito-hw.service as systemd would show it, per release: "good" reaches READY and
    logs the referee's line; "crash" exits at start (and scribbles over the state first,
    as a migration gone wrong would); "hang" never says READY; "mute" is READY but its
    referee never starts."""

    root: Path
    state: Path
    how: dict[str, str]
    calls: list[tuple[str, ...]] = field(default_factory=list)
    props: dict[str, str] = field(default_factory=dict)
    logs: dict[str, str] = field(default_factory=dict)
    runs: int = 0
    looks: int = 0

    def live(self) -> bool:
        return True

    def run(self, *args: str) -> None:
        self.calls.append(args)
        if args[0] == "stop":
            self.props.update(ActiveState="inactive", SubState="dead")
        elif args[0] == "start":
            self.runs += 1
            self.looks = 0
            release = Path(os.readlink(self.root / "current")).name
            invocation = f"inv{self.runs}"
            self.props = {"InvocationID": invocation, "NRestarts": "0", "ActiveState":
                          "activating", "SubState": "start", "release": release}  # fmt: skip
            if self.how[release] == "crash":
                (self.state / "game.json").write_text("migrated by " + release)

    def show(self) -> dict[str, str]:
        self.looks += 1
        how = self.how.get(self.props.get("release", ""), "")
        if self.looks >= 3 and self.props.get("ActiveState") == "activating":
            if how in ("good", "mute"):
                self.props.update(ActiveState="active", SubState="running")
                line = f"{RUNNING_LINE}board\n" if how == "good" else "waiting\n"
                self.logs[self.props["InvocationID"]] = line
            elif how == "crash":
                self.props.update(NRestarts="1", SubState="auto-restart", InvocationID="x")
        return dict(self.props)

    def journal(self, invocation: str) -> str:
        return self.logs.get(invocation, "")


@dataclass
class Clock:
    now: float = 0.0

    def __call__(self) -> float:
        return self.now

    def pause(self, seconds: float) -> None:
        self.now += seconds


def setup(tmp_path: Path, how: dict[str, str]) -> tuple[Releases, FakeSystemd, list[str]]:
    root, state = tmp_path / "opt", tmp_path / "state"
    for age, version in enumerate(how):  # installed in this order
        (root / "releases" / version / "bin").mkdir(parents=True)
        (root / "releases" / version / ".complete").write_text(version)
        os.utime(root / "releases" / version / ".complete", (1000 + age, 1000 + age))
    state.mkdir()
    (state / "game.json").write_text("game 1, turn 3")
    systemd = FakeSystemd(root, state, how)
    said: list[str] = []
    clock = Clock()
    releases = Releases(
        root=root,
        state=state,
        backups=tmp_path / "backups",
        systemd=systemd,
        say=said.append,
        clock=clock,
        pause=clock.pause,
    )
    return releases, systemd, said


def test_an_upgrade_that_starts_becomes_current(tmp_path: Path) -> None:
    releases, systemd, said = setup(tmp_path, {"0.9": "good", "1.0": "good", "1.1": "good"})
    assert releases.activate("0.9") and releases.activate("1.0")
    assert releases.activate("1.1")
    assert releases.current() == "1.1"
    assert os.readlink(releases.root / "venv") == "current"  # the unit's ExecStart, unchanged
    record = releases.record()
    assert record["running"] == "1.1" and record["previous"] == "1.0"
    assert "upgrade: READY in" in str(record["why"])
    assert "1.1 running: READY and refereeing" in said[-1] and "from 1.0" in said[-1]
    # 0.9 is neither current nor the way back: its venv goes.
    assert releases.installed() == ["1.0", "1.1"]
    # The state was backed up before each switch, and the service stopped for it.
    backups = sorted(p.name for p in (tmp_path / "backups").iterdir())
    assert [b.split("-", 1)[1] for b in backups] == ["0.9-to-1.0", "1.0-to-1.1"]
    assert ("stop", "orbito-hw.service") in systemd.calls


def test_a_release_that_exits_at_start_is_rolled_back(tmp_path: Path) -> None:
    releases, systemd, said = setup(tmp_path, {"1.0": "good", "1.1": "crash"})
    releases.activate("1.0")
    assert not releases.activate("1.1")
    assert releases.current() == "1.0"
    record = releases.record()
    assert record["running"] == "1.0" and record["failed"] == "1.1"
    assert "1.1 failed its start-up check" in str(record["why"])
    assert "exited and was restarted" in str(record["why"])
    assert any("rolled back: 1.0 runs again, READY" in line for line in said)
    # The state as it was before the upgrade; what the failed start left, kept aside.
    assert (releases.state / "game.json").read_text() == "game 1, turn 3"
    (aside,) = (tmp_path / "backups").glob("failed-1.1-*")
    assert (aside / "game.json").read_text() == "migrated by 1.1"
    # The old release was started again: its READY checked like the new one's.
    assert systemd.props["release"] == "1.0" and systemd.props["ActiveState"] == "active"


def test_a_release_that_never_gets_ready_is_rolled_back_after_the_bound(tmp_path: Path) -> None:
    releases, _, _ = setup(tmp_path, {"1.0": "good", "1.1": "hang", "1.2": "mute"})
    releases.activate("1.0")
    assert not releases.activate("1.1", within=30)
    why = str(releases.record()["why"])
    assert "not READY and refereeing within 30 s (activating/start" in why
    assert "after 30.5 s" in why  # it waited the bound, no more (0.5 s between looks)
    # READY alone is not enough: the referee must have started in that very start.
    assert not releases.activate("1.2", within=30)
    assert releases.current() == "1.0" and releases.record()["failed"] == "1.2"


def test_rollback_by_hand_goes_back_but_never_to_a_failed_release(tmp_path: Path) -> None:
    releases, _, _ = setup(tmp_path, {"1.0": "good", "1.1": "good", "1.2": "crash"})
    for version in ("1.0", "1.1", "1.2"):
        releases.activate(version)
    assert releases.current() == "1.1"
    assert releases.rollback()
    assert releases.current() == "1.0"
    assert releases.record()["why"].startswith("rolled back by hand: READY")  # type: ignore[union-attr]
    with pytest.raises(ReleaseError, match="no release to roll back to"):
        Releases(root=tmp_path / "nothing", systemd=releases.systemd).rollback()


def test_a_failed_release_is_pruned_and_a_rollback_by_hand_keeps_two(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """As on a board: 0.1.0, upgraded to 0.1.1, then 0.1.2 fails its start-up check and is
    rolled back; later a person rolls back by hand. Two releases are kept at every step (what
    docs/package.md says): the one running and the one to roll back to."""
    how = {"0.1.0": "good", "0.1.1": "good", "0.1.2": "crash"}
    releases, _, said = setup(tmp_path, how)
    assert releases.activate("0.1.0") and releases.activate("0.1.1")
    assert releases.installed() == ["0.1.0", "0.1.1", "0.1.2"]  # 0.1.2 made, not yet switched
    assert not releases.activate("0.1.2")
    assert releases.current() == "0.1.1" and releases.record()["previous"] == "0.1.0"
    assert releases.installed() == ["0.1.0", "0.1.1"]  # the failed release's venv is gone
    assert not (releases.root / "releases" / "0.1.2").exists()
    assert "release 0.1.2 removed (kept: 0.1.1, 0.1.0)" in said
    # What the failed start left is kept aside, never removed with its release.
    (aside,) = (tmp_path / "backups").glob("failed-0.1.2-*")
    assert (aside / "game.json").read_text() == "migrated by 0.1.2"
    assert (releases.state / "game.json").read_text() == "game 1, turn 3"
    assert releases.rollback()
    assert releases.current() == "0.1.0" and releases.installed() == ["0.1.0", "0.1.1"]
    assert releases.record()["previous"] == "0.1.1"
    # `orbito-hw version` lists the two.
    monkeypatch.setattr("orbito_hw.app.releases.Releases", lambda: releases)
    monkeypatch.setattr("orbito_hw.commands.update.service_release", lambda root: "0.1.0")
    assert cmd_version(argparse.Namespace(json=True)) == 0
    assert json.loads(capsys.readouterr().out)["installed"] == ["0.1.0", "0.1.1"]
    # An install cut short stays aside: never a complete release, never pruned.
    cut = releases.root / "releases" / ".0.1.3.incomplete.1"
    cut.mkdir()
    assert releases.activate("0.1.1") and cut.is_dir()
    assert releases.installed() == ["0.1.0", "0.1.1"]


def test_a_release_that_failed_before_is_pruned_at_the_next_rollback_by_hand(
    tmp_path: Path,
) -> None:
    """A board whose failed release was kept (as before this was fixed): the next switch
    that passes its check removes it."""
    releases, _, _ = setup(tmp_path, {"0.1.0": "good", "0.1.1": "good", "0.1.2": "crash"})
    assert releases.activate("0.1.0") and releases.activate("0.1.1")
    releases.record_path.write_text(json.dumps({"running": "0.1.1", "previous": "0.1.0",
                                                "failed": "0.1.2"}))  # fmt: skip
    assert releases.rollback()
    assert releases.current() == "0.1.0" and releases.installed() == ["0.1.0", "0.1.1"]


def test_a_first_install_that_fails_says_so_and_stays(tmp_path: Path) -> None:
    releases, _, said = setup(tmp_path, {"1.0": "crash"})
    assert not releases.activate("1.0")
    assert releases.current() == "1.0"
    assert "no earlier release to go back to" in said[-1]
    assert "failed its start-up check" in str(releases.record()["why"])


def test_without_systemd_the_release_is_only_switched(tmp_path: Path) -> None:
    releases, systemd, _ = setup(tmp_path, {"1.0": "good"})
    systemd.live = lambda: False  # type: ignore[method-assign]
    assert releases.activate("1.0")
    assert releases.current() == "1.0" and systemd.calls == []
    assert "no systemd running" in str(releases.record()["why"])


def test_install_sh_venv_is_moved_aside_not_deleted(tmp_path: Path) -> None:
    releases, _, said = setup(tmp_path, {"1.0": "good"})
    (releases.root / "venv" / "bin").mkdir(parents=True)
    (releases.root / "venv" / "bin" / "orbito-hw").write_text("old")
    releases.activate("1.0")
    (aside,) = releases.root.glob("venv.before-package.*")
    assert (aside / "bin" / "orbito-hw").read_text() == "old"
    assert any(str(aside) in line for line in said)


def test_a_release_not_installed_is_named(tmp_path: Path) -> None:
    releases, _, _ = setup(tmp_path, {"1.0": "good"})
    with pytest.raises(ReleaseError, match=r"release 2\.0 is not installed"):
        releases.activate("2.0")
    with pytest.raises(ReleaseError, match=r"not a version: '\.\./x'"):
        releases.activate("../x")


def test_the_running_release_is_read_from_the_service_command_line(tmp_path: Path) -> None:
    root = Path("/opt/orbito-hw")
    cmdline = tmp_path / "cmdline"
    cmdline.write_bytes(b"/opt/orbito-hw/releases/1.1/bin/python\0/opt/orbito-hw/venv/bin/x\0")
    assert release_of(cmdline, root) == "1.1"
    cmdline.write_bytes(b"/usr/bin/python3\0/usr/bin/orbito-hw\0")
    assert release_of(cmdline, root) is None
    assert release_of(tmp_path / "gone", root) is None


def test_version_says_this_version_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    releases, _, _ = setup(tmp_path, {"1.0": "good", "1.1": "crash"})
    releases.activate("1.0")
    releases.activate("1.1")
    monkeypatch.setattr("orbito_hw.app.releases.Releases", lambda: releases)
    monkeypatch.setattr("orbito_hw.commands.update.service_release", lambda root: "1.0")
    assert cmd_version(argparse.Namespace(json=True)) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["service"] == "1.0" and shown["current"] == "1.0" and shown["failed"] == "1.1"
    assert "1.1 failed its start-up check" in shown["why"]


def test_the_page_says_which_version_runs_and_why(tmp_path: Path) -> None:
    """/api/version (the page's footer): the service's version and its release record."""
    import asyncio

    from aiohttp.test_utils import TestClient, TestServer

    from orbito_hw.app.releases import running_release
    from orbito_hw.archive.reading import ArchiveReads
    from orbito_hw.mock.page import MockControls
    from orbito_hw.mock.realtime import RealTime
    from orbito_hw.sim.harness import MockRun
    from orbito_hw.web.server import WebServer

    releases, _, _ = setup(tmp_path, {"1.0": "good", "1.1": "crash"})
    releases.activate("1.0")
    releases.activate("1.1")
    shown = running_release(releases.root)

    async def main() -> dict[str, object]:
        run = MockRun(None, None)
        clock = RealTime(run, asyncio.get_running_loop())
        server = WebServer(MockControls(run, clock), None, ArchiveReads(run.state_dir), None, shown)
        try:
            async with TestClient(TestServer(server.app())) as client:
                page = await (await client.get("/")).text()
                assert 'id="version"' in page
                answer: dict[str, object] = await (await client.get("/api/version")).json()
                return answer
        finally:
            clock.stop()
            run.close()

    answer = asyncio.run(main())
    assert answer["failed"] == "1.1" and "rolled back" in str(answer["why"])
    assert answer["version"] == shown["version"] != ""
