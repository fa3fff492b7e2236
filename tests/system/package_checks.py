"""The system test's package phases (issue 38): the Debian package as a builder gets it.

The packages are built on this machine (scripts/build-deb.sh, PyPI at build time) while the
VM boots: the checkout's version, a newer build of the same source (a version suffix), and
a broken one (its ``run`` raising at start: made here, never shipped). In the VM, with its
network cut (no default route: no PyPI, no Debian mirror): apt installs the package, a game
starts, apt upgrades to the newer build from a signed repository (scripts/build-repo.sh,
with a throwaway key) with the game in progress, then to the broken one, which must roll
itself back within the bound while the game goes on; a rollback by hand; a purge.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path

from machine import ARCH, CHECKOUT, GAME, VM, CheckFailed, Report

NEWER, BROKEN = "+systest2", "+systest3"
BROKEN_AT = "def cmd_run(args: argparse.Namespace) -> int:\n"
REPO = "/srv/orbito-hw-repo"
APT = (
    "DEBIAN_FRONTEND=noninteractive apt-get -y -q "
    "-o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold"
)
# Only the project's repository is refreshed: the VM has no network for Debian's.
OURS = (
    "-o Dir::Etc::sourcelist=sources.list.d/orbito-hw.list -o Dir::Etc::sourceparts=- "
    "-o APT::Get::List-Cleanup=0"
)


class Packages:
    """The three builds, made on this machine in the background while the VM boots."""

    def __init__(self, work: Path, upgrades: bool = True) -> None:
        self.work = work
        self.base = self._version("")
        pool = ThreadPoolExecutor(max_workers=3)
        wanted = (("base", "", False), ("newer", NEWER, False), ("broken", BROKEN, True))
        self.builds: dict[str, Future[Path]] = {
            name: pool.submit(self._build, name, suffix, broken)
            for name, suffix, broken in wanted[: 3 if upgrades else 1]
        }
        pool.shutdown(wait=False)

    @staticmethod
    def _version(suffix: str) -> str:
        text = (CHECKOUT / "pyproject.toml").read_text()
        found = re.search(r'^version = "(.*)"$', text, re.M)
        assert found, "no version in pyproject.toml"
        return found.group(1) + suffix

    def version(self, name: str) -> str:
        return self._version({"base": "", "newer": NEWER, "broken": BROKEN}[name])

    def deb(self, name: str) -> Path:
        return self.builds[name].result()

    def _build(self, name: str, suffix: str, broken: bool) -> Path:
        source = CHECKOUT
        if broken:  # a copy of the checkout whose service cannot start
            source = self.work / "broken-src"
            files = subprocess.run(
                ["git", "ls-files", "-co", "--exclude-standard", "-z"],
                cwd=CHECKOUT, capture_output=True, check=True,
            ).stdout.decode()  # fmt: skip
            for rel in filter(None, files.split("\0")):
                if (CHECKOUT / rel).is_file():
                    (source / rel).parent.mkdir(parents=True, exist_ok=True)
                    (source / rel).write_bytes((CHECKOUT / rel).read_bytes())
            run_py = source / "orbito_hw/commands/run.py"
            text = run_py.read_text()
            assert BROKEN_AT in text, f"{run_py}: no {BROKEN_AT!r} to break"
            raise_line = '    raise RuntimeError("a deliberately broken build (system test)")\n'
            run_py.write_text(text.replace(BROKEN_AT, BROKEN_AT + raise_line))
        out = self.work / name
        env = {**os.environ, "ORBITO_VERSION_SUFFIX": suffix, "PYTHON": sys.executable}
        done = subprocess.run(
            ["bash", str(source / "scripts/build-deb.sh"), ARCH, str(out)],
            env=env, capture_output=True, text=True, timeout=900,
        )  # fmt: skip
        if done.returncode != 0:
            raise CheckFailed(f"build-deb.sh {name}: {done.stdout[-800:]}{done.stderr[-800:]}")
        (deb,) = out.glob("*.deb")
        return deb


class Repository:
    """The project's signed apt repository, with a key made for this run."""

    def __init__(self, work: Path) -> None:
        self.dir = work / "repo"
        self.env = {**os.environ, "GNUPGHOME": str(work / "gnupg")}
        (work / "gnupg").mkdir(mode=0o700)
        uid = "orbito-hw system test <systest@orbito-hw.invalid>"
        subprocess.run(
            ["gpg", "--batch", "--passphrase", "", "--quick-gen-key", uid, "ed25519", "sign", "1d"],
            env=self.env, check=True, capture_output=True,
        )  # fmt: skip
        self.env["ORBITO_REPO_KEY"] = uid

    def add(self, *debs: Path) -> None:
        subprocess.run(
            ["bash", str(CHECKOUT / "scripts/build-repo.sh"), str(self.dir), *map(str, debs)],
            env=self.env, check=True, capture_output=True, text=True,
        )  # fmt: skip

    def close(self) -> None:
        """gpg's agent for this key's keyring ends with it."""
        subprocess.run(["gpgconf", "--kill", "gpg-agent"], env=self.env, check=False)

    def send(self, vm: VM) -> None:
        """Into the VM as a builder's file:// mirror of it (the same files a web server
        would serve), the key where the sources line says."""
        archive = subprocess.run(
            ["tar", "-C", str(self.dir), "-cf", "-", "."], capture_output=True, check=True
        ).stdout
        vm.ssh(f"rm -rf {REPO} && mkdir -p {REPO} && tar -xf - -C {REPO}", stdin=archive)
        vm.ssh(
            f"install -m 0644 {REPO}/orbito-hw.gpg /usr/share/keyrings/orbito-hw.gpg; echo "
            f"'deb [signed-by=/usr/share/keyrings/orbito-hw.gpg] file:{REPO} ./' "
            f">/etc/apt/sources.list.d/orbito-hw.list; apt-get update -q {OURS}"
        )


def turn(vm: VM, number: int) -> str:
    """Turn ``number`` of the game (GAME), waited for after a cursor: the earlier phases'
    games left turns of the same numbers in this boot's journal. (wait_after's lines start
    with their time and the process: the pattern is anchored on the colon after them.)"""
    token = GAME[number - 1]
    vm.ssh(
        f"c=$(mark); hands {shlex.quote(token)} && world tap >/dev/null && "
        f"wait_after \"$c\" ': game 1 turn {number}: [a-z]+ {token} ' 120 >/dev/null && "
        "world wait-still >/dev/null",
        timeout=180,
    )
    return token


def version(vm: VM) -> dict[str, object]:
    shown: dict[str, object] = json.loads(vm.ssh("orbito-hw version --json").stdout)
    return shown


def send_deb(vm: VM, deb: Path) -> str:
    vm.ssh(f"mkdir -p /root/debs; cat >/root/debs/{deb.name}", stdin=deb.read_bytes())
    return f"/root/debs/{deb.name}"


def timed_apt(vm: VM, command: str, fail: type[Exception]) -> tuple[str, float]:
    start = time.monotonic()
    done = vm.ssh(f"{command} 2>&1", check=False, timeout=900)
    took = time.monotonic() - start
    if done.returncode != 0:
        raise fail(f"{command}: exit {done.returncode}: {done.stdout[-1500:]}")
    return done.stdout, took


def play(
    vm: VM, report: Report, packages: Packages, fail: type[Exception], upgrades: bool = True
) -> None:
    """The package's phases, on a VM whose checkout is copied in (the world runs). Without
    ``upgrades`` (``--only package-install``: arm64's emulated VM, where each venv takes
    minutes): the install, three turns of a game and the purge."""
    work = packages.work
    repo: list[Repository] = []

    def lintian() -> str:
        deb = packages.deb("base")
        out = subprocess.run(
            ["lintian", "--pedantic", "--info", str(deb)], capture_output=True, text=True
        )
        tags = [ln for ln in out.stdout.splitlines() if re.match(r"[EWIP]: ", ln)]
        if tags:
            raise fail(f"lintian on {deb.name}: {tags}")
        size = deb.stat().st_size / 1e6
        report.figure("package size", f"{deb.name} {size:.1f} MB")
        return f"{deb.name}, {size:.1f} MB: no tag (one override, argued in deb/lintian-overrides)"

    def offline_install() -> str:
        deb = send_deb(vm, packages.deb("base"))
        # The Debian packages it depends on (python3-venv: a Pi OS image has it; plain
        # Debian gets it once): then the network goes, PyPI and the mirrors with it.
        vm.ssh(f"{APT} install --no-install-recommends python3-venv >/dev/null", timeout=600)
        vm.ssh("ip route del default; ip -6 route del default 2>/dev/null; true")
        cut = vm.ssh("ip route get 192.0.2.1 2>&1 || true").stdout  # (a lookup: sends nothing)
        if "unreachable" not in cut:
            raise fail(f"the VM still has a route out: {cut}")
        # The builder's config, there before the package (install.sh's purge took the folder).
        vm.ssh("mkdir -p /etc/orbito-hw; cp /etc/orbito-test/board.toml /etc/orbito-hw/config.toml")
        vm.ssh("world clear >/dev/null")  # an earlier phase's game may have left marbles
        out, took = timed_apt(vm, f"{APT} install {deb}", fail)
        report.figure("package: apt install offline", f"{took:.0f} s (venv from its wheels)")
        base = packages.base
        if f"{base} running: READY and refereeing" not in out:
            raise fail(f"no start-up check passed in the install: {out[-1500:]}")
        shown = version(vm)
        same = vm.ssh("cmp /etc/orbito-test/board.toml /etc/orbito-hw/config.toml && echo same")
        if shown["service"] != base or "same" not in same.stdout:
            raise fail(f"version {shown}; the builder's config kept: {same.stdout}")
        return f"{base} in {took:.0f} s with no network; the builder's config kept (conffile)"

    def upgrade_in_game() -> str:
        turns = " ".join(turn(vm, n) for n in (1, 2, 3))
        repo.append(Repository(work))
        repo[0].add(packages.deb("base"), packages.deb("newer"))
        repo[0].send(vm)
        out, took = timed_apt(vm, f"{APT} install --only-upgrade orbito-hw", fail)
        newer = packages.version("newer")
        if f"{newer} running: READY and refereeing" not in out:
            raise fail(f"the upgrade's start-up check: {out[-1500:]}")
        report.figure("package: apt upgrade (game in progress)", f"{took:.0f} s")
        after = " ".join(turn(vm, n) for n in (4, 5))
        shown = version(vm)
        if shown["service"] != newer:
            raise fail(f"after the upgrade: {shown}")
        return f"turns {turns}; upgrade to {newer} in {took:.0f} s; game 1 goes on: {after}"

    def broken_upgrade() -> str:
        repo[0].add(packages.deb("broken"))
        repo[0].send(vm)
        cursor = vm.ssh("mark").stdout.strip()
        out, took = timed_apt(vm, f"{APT} install --only-upgrade orbito-hw", fail)
        newer, broken = packages.version("newer"), packages.version("broken")
        if f"rolled back: {newer} runs again, READY" not in out:
            raise fail(f"no rollback in the upgrade: {out[-2000:]}")
        shown = version(vm)
        why = str(shown["why"])
        found = re.search(r"failed its start-up check after ([\d.]+) s", why)
        if shown["service"] != newer or shown["failed"] != broken or not found:
            raise fail(f"after the broken upgrade: {shown}")
        logged = vm.ssh("journalctl -t orbito-hw-update -o cat --no-pager | tail -3").stdout
        if f"rolled back: {newer} runs again" not in logged:
            raise fail(f"the journal does not say it: {logged}")
        crashed = vm.ssh(
            f"journalctl -u orbito-hw --after-cursor={shlex.quote(cursor)} -o cat --no-pager "
            "| grep -c 'a deliberately broken build' || true"
        ).stdout.strip()
        report.figure(
            "package: broken upgrade rolled back",
            f"failed after {found.group(1)} s (bound 120 s), whole apt run {took:.0f} s",
        )
        before = vm.ssh("mark").stdout.strip()
        after = " ".join(turn(vm, n) for n in (6, 7))
        over = vm.ssh(
            f"wait_after {shlex.quote(before)} ': game 1 over: black wins' 60 && echo over",
            check=False,
        )
        if "over" not in over.stdout:
            raise fail(f"game 1 did not end: {over.stdout}{over.stderr}")
        return (
            f"{broken} exited at start ({crashed} tracebacks), rolled back to {newer} after "
            f"{found.group(1)} s; why: {why}; game 1 goes on: {after}, black wins"
        )

    def installs() -> str:
        """Where an upgrade's time goes: each venv made from the wheels (the journal)."""
        lines = vm.ssh("journalctl -t orbito-hw-update -o cat --no-pager").stdout
        made = re.findall(r"^(\S+) installed in .* in (\d+) s$", lines, re.M)
        ready = re.findall(r"^(\S+) running: READY and refereeing ([\d.]+) s", lines, re.M)
        report.figure("package: venvs made", ", ".join(f"{v} {s} s" for v, s in made))
        report.figure("package: READY after", ", ".join(f"{v} {s} s" for v, s in ready))
        return "in the summary"

    def first_turns() -> str:
        return "game 1: " + " ".join(turn(vm, n) for n in (1, 2, 3))

    def rollback_by_hand() -> str:
        out = vm.ssh("orbito-hw update --rollback 2>&1", timeout=300).stdout
        shown = version(vm)
        if shown["service"] != packages.base:
            raise fail(f"update --rollback: {out} {shown}")
        return f"{packages.base} runs again: {shown['why']}"

    def purge() -> str:
        out = vm.ssh(
            f"{APT} purge orbito-hw >/dev/null 2>&1; systemctl is-active orbito-hw || true; "
            "ls -d /opt/orbito-hw /etc/orbito-hw /var/lib/orbito-hw /var/backups/orbito-hw "
            "/lib/systemd/system/orbito-hw.service /usr/bin/orbito-hw 2>&1; "
            "getent passwd orbito-hw || echo no-user; dpkg -s orbito-hw 2>&1 | head -1",
            check=False,
        ).stdout
        if out.count("No such file") != 6 or "no-user" not in out or "not installed" not in out:
            raise fail(out)
        return "releases, config, state, backups, unit and user gone"

    checks = [
        ("the package: lintian clean", lintian),
        ("apt install of the .deb with no network", offline_install),
        ("apt upgrade from the signed repository, a game in progress", upgrade_in_game),
        ("a broken upgrade rolls itself back, the game goes on", broken_upgrade),
        ("orbito-hw update --rollback by hand", rollback_by_hand),
        ("the install's times", installs),
        ("apt purge", purge),
    ]
    if not upgrades:
        checks[2:6] = [("a game on the package: turns 1-3", first_turns), checks[5]]
    try:
        for name, check in checks:
            if not report.check(name, check):
                return
    finally:
        for made in repo:
            made.close()


def start(work: Path | None = None, upgrades: bool = True) -> Packages:
    return Packages(work or Path(tempfile.mkdtemp(prefix="orbito-debs-")), upgrades)
