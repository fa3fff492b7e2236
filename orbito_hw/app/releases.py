"""The installed releases side by side, and the upgrade that rolls itself back.

The Debian package (scripts/build-deb.sh, deb/) keeps one venv a version under ROOT
(/opt/orbito-hw) and a link to the one the service runs:

    releases/VERSION/   a venv made by the package's postinst from the wheels it ships
    current -> releases/VERSION
    venv -> current     the unit's ExecStart (/opt/orbito-hw/venv/bin/orbito-hw), unchanged
    release.json        which version runs and why: `orbito-hw version` and the page read it

``activate`` is the upgrade: the state directory is backed up (a new version may migrate it
forward, an old one need not read that back), ``current`` switched, the service restarted,
and it must reach READY (sd_notify READY=1: ActiveState=active, SubState=running) and the
referee (its start-up check: "orbito-hw running:" in the journal of that very start) within
a bound. If it does not, the previous version is made current again, the backup put back
(the failed start's state moved aside, never deleted) and the service started; release.json
and the journal (tag orbito-hw-update) say which version runs and why.

Standard library only, on purpose: the postinst runs this file as a script with Debian's
python3 (``python3 /usr/lib/orbito-hw/releases.py activate VERSION``), so a new release that
cannot even import still gets rolled back. Tests run it against a temp dir and a fake systemd.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

try:
    from orbito_hw.errors import OrbitoError
except ImportError:  # run as a script by the postinst, with Debian's python3: no package

    class OrbitoError(Exception):  # type: ignore[no-redef]  # the package's, where it is
        """The package's root error, for this file run on its own."""


ROOT = Path("/opt/orbito-hw")
STATE_DIR = Path("/var/lib/orbito-hw")
BACKUPS = Path("/var/backups/orbito-hw")
SERVICE = "orbito-hw.service"
PIP_WHEELS = Path("/usr/share/python-wheels")
# The bound on READY and the referee after an upgrade. Measured: 8 to 11 s on the VM's
# emulated cores (qemu TCG, the machine loaded), a few seconds on a Pi 4; the margin is for
# a Pi Zero 2 W with its SD card, and for a first start that compiles the venv's bytecode.
WITHIN_S = 120.0
RUNNING_LINE = "orbito-hw running: "  # app/run.py logs it once the referee has started
KEEP_BACKUPS = 3
PROPERTIES = ("ActiveState", "SubState", "StatusText", "InvocationID", "NRestarts", "Result")


class ReleaseError(OrbitoError, RuntimeError):
    """What cannot be done (no such release, nothing to roll back to): one line for a person.
    Under the package's OrbitoError when imported (orbito-hw update), as every error is."""


class Systemd(Protocol):
    def live(self) -> bool: ...
    def show(self) -> dict[str, str]: ...
    def journal(self, invocation: str) -> str: ...
    def run(self, *args: str) -> None: ...


class Systemctl:
    """The real one: systemctl and journalctl on the service."""

    def live(self) -> bool:
        """Whether systemd runs here (not in a chroot or an image build)."""
        return Path("/run/systemd/system").is_dir()

    def show(self) -> dict[str, str]:
        args = ["systemctl", "show", SERVICE, *(f"--property={p}" for p in PROPERTIES)]
        out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
        return dict(line.split("=", 1) for line in out.splitlines() if "=" in line)

    def journal(self, invocation: str) -> str:
        args = ["journalctl", f"_SYSTEMD_INVOCATION_ID={invocation}", "-o", "cat", "--no-pager"]
        return subprocess.run(args, capture_output=True, text=True, check=False).stdout

    def run(self, *args: str) -> None:
        subprocess.run(["systemctl", *args], check=True, capture_output=True, text=True)


def log(message: str) -> None:
    """To the journal (tag orbito-hw-update) and to whoever runs this (apt's output)."""
    print(f"orbito-hw-update: {message}", file=sys.stderr, flush=True)
    if shutil.which("logger"):
        subprocess.run(["logger", "-t", "orbito-hw-update", "--", message], check=False)


@dataclass(frozen=True)
class Verdict:
    ok: bool
    reason: str
    took: float


@dataclass
class Releases:
    root: Path = ROOT
    state: Path = STATE_DIR
    backups: Path = BACKUPS
    systemd: Systemd = field(default_factory=Systemctl)
    say: Callable[[str], None] = log
    clock: Callable[[], float] = time.monotonic
    pause: Callable[[float], None] = time.sleep  # between two looks at the service

    @property
    def current_link(self) -> Path:
        return self.root / "current"

    @property
    def record_path(self) -> Path:
        return self.root / "release.json"

    def release(self, version: str) -> Path:
        if not version or "/" in version or version.startswith("."):
            raise ReleaseError(f"not a version: {version!r}")
        return self.root / "releases" / version

    def installed(self) -> list[str]:
        """The complete releases (a venv finished: its .complete marker), oldest first."""
        folder = self.root / "releases"
        if not folder.is_dir():
            return []
        done = [p for p in folder.iterdir() if (p / ".complete").exists()]
        return [p.name for p in sorted(done, key=lambda p: (p / ".complete").stat().st_mtime)]

    def current(self) -> str | None:
        try:
            return Path(os.readlink(self.current_link)).name
        except OSError:
            return None

    def record(self) -> dict[str, object]:
        try:
            found = json.loads(self.record_path.read_text())
        except (OSError, ValueError):
            return {}
        return found if isinstance(found, dict) else {}

    # --- the upgrade ---------------------------------------------------------------------
    def activate(self, version: str, within: float = WITHIN_S, why: str = "upgrade") -> bool:
        """Make ``version`` current and prove it runs; roll back by itself if it does not."""
        with self._locked():
            target = self.release(version)
            if not (target / ".complete").exists():
                raise ReleaseError(f"release {version} is not installed ({target} incomplete)")
            previous = self.current()
            failed_before = self.record().get("failed")  # a release that failed, kept so far
            if previous == version:
                previous = self._fallback(version)
            live = self.systemd.live()
            backup = self._backup(previous, version) if live and previous else None
            if live:
                self.systemd.run("stop", SERVICE)
            self._switch(version)
            if not live:  # a chroot or an image build: nothing to start, nothing to check
                self._write(version, previous, f"{why}: installed (no systemd running)")
                return True
            verdict = self._start_and_check(within)
            if verdict.ok:
                self._write(version, previous, f"{why}: READY in {verdict.took:.1f} s")
                self._prune(version, previous, failed_before)
                self.say(f"{version} running: READY and refereeing {verdict.took:.1f} s after "
                         f"the start ({why}{f' from {previous}' if previous else ''})")  # fmt: skip
                return True
            if previous is None:
                self.say(f"{version} failed its start-up check ({verdict.reason}); "
                         "no earlier release to go back to")  # fmt: skip
                self._write(version, None, f"{why}: failed its start-up check: {verdict.reason}")
                return False
            self._roll_back(version, previous, backup, verdict, within, why)
            return False

    def rollback(self, within: float = WITHIN_S) -> bool:
        """By hand (`orbito-hw update --rollback`): the release before the current one."""
        now = self.current()
        back = self._fallback(now)
        if back is None:
            raise ReleaseError(f"no release to roll back to (installed: {self.installed()})")
        return self.activate(back, within, why="rolled back by hand")

    def _fallback(self, version: str | None) -> str | None:
        """The release to go back to from ``version``: the one recorded before it, else the
        newest other complete one that has not failed its start-up check."""
        record = self.record()
        before, failed = record.get("previous"), record.get("failed")
        return self._fallback_from(version, failed, before)

    def _fallback_from(
        self, version: str | None, failed: object, before: object = None
    ) -> str | None:
        others = [v for v in self.installed() if v not in (version, failed)]
        if isinstance(before, str) and before in others:
            return before
        return others[-1] if others else None

    def _roll_back(
        self,
        failed: str,
        previous: str,
        backup: Path | None,
        verdict: Verdict,
        within: float,
        why: str,
    ) -> None:
        self.say(f"{failed} failed its start-up check ({verdict.reason}): back to {previous}")
        self.systemd.run("stop", SERVICE)
        if backup is not None:
            self._restore(backup, failed)
        self._switch(previous)
        again = self._start_and_check(within)
        state = "READY" if again.ok else f"NOT READY either ({again.reason})"
        reason = f"{failed} failed its start-up check after {verdict.took:.1f} s: {verdict.reason}"
        self.say(f"rolled back: {previous} runs again, {state}; {reason}")
        # The release to go back to by hand from here: not the one that just failed.
        back = self._fallback_from(previous, failed, self.record().get("previous"))
        self._write(previous, back, f"rolled back ({why} to {failed}): {reason}", failed=failed)
        self._prune(previous, back, failed)  # the failed release's venv goes

    def _start_and_check(self, within: float) -> Verdict:
        start = self.clock()
        # A failed state or start limit left from before must not count against this start.
        self.systemd.run("reset-failed", SERVICE)
        old = self.systemd.show().get("InvocationID", "")
        self.systemd.run("start", "--no-block", SERVICE)
        while True:
            took = self.clock() - start
            now = self.systemd.show()
            invocation = now.get("InvocationID", "")
            active, sub = now.get("ActiveState"), now.get("SubState")
            # Only a start of ours counts (a new invocation): systemd flushes NRestarts at a
            # start by hand, so any restart after it is this release exiting.
            if invocation and invocation != old:
                if active == "failed":
                    return Verdict(False, f"the service failed ({now.get('Result', '?')})", took)
                if now.get("NRestarts", "0") not in ("", "0"):
                    return Verdict(False, f"the service exited and was restarted ({sub})", took)
                up = active == "active" and sub == "running"
                if up and RUNNING_LINE in self.systemd.journal(invocation):
                    return Verdict(True, "READY and refereeing", took)
            if took > within:
                status = now.get("StatusText") or "no status"
                return Verdict(False, f"not READY and refereeing within {within:.0f} s "
                                      f"({active}/{sub}: {status})", took)  # fmt: skip
            self.pause(0.5)

    # --- the files -----------------------------------------------------------------------
    def _switch(self, version: str) -> None:
        """``current`` (and ``venv`` through it) to ``version``, in one rename."""
        link = self.current_link
        link.parent.mkdir(parents=True, exist_ok=True)
        new = link.with_name(".current.new")
        new.unlink(missing_ok=True)
        new.symlink_to(Path("releases") / version)
        os.replace(new, link)
        venv = self.root / "venv"
        if not venv.is_symlink():
            if venv.exists():  # install.sh's own venv: kept, out of the way
                aside = self.root / f"venv.before-package.{int(time.time())}"
                venv.rename(aside)
                self.say(f"install.sh's venv moved aside to {aside}")
            venv.symlink_to("current")

    def _backup(self, previous: str, version: str) -> Path | None:
        if not self.state.is_dir():
            return None
        self.backups.mkdir(parents=True, exist_ok=True, mode=0o700)
        stamp = time.strftime("%Y%m%dT%H%M%S")
        where = self.backups / f"{stamp}-{previous}-to-{version}"
        subprocess.run(["cp", "-a", str(self.state), str(where)], check=True)
        for old in sorted(self.backups.glob("*-to-*"))[:-KEEP_BACKUPS]:
            shutil.rmtree(old, ignore_errors=True)
        return where

    def _restore(self, backup: Path, failed: str) -> None:
        """The state as it was before the failed start; the failed start's own moved aside."""
        aside = self.backups / f"failed-{failed}-{time.strftime('%Y%m%dT%H%M%S')}"
        if self.state.exists():
            self.state.rename(aside)
            self.say(f"the state {failed} left is kept in {aside}")
        subprocess.run(["cp", "-a", str(backup), str(self.state)], check=True)

    def _prune(self, version: str, previous: str | None, failed: object) -> None:
        """Two releases are kept: ``version``, which runs, and ``previous``, the one to roll
        back to. Older ones go (the package's wheels of them are gone too: dpkg replaced
        them), and one that failed its start-up check (never made current again by itself;
        its state is kept aside, and a reinstall of its package makes its venv again). A
        newer one not yet switched to (a postinst under way) and an install cut short stay."""
        done = self.installed()  # oldest first: those before ``version`` are older
        for name in done:
            older = done.index(name) < done.index(version)
            if name not in (version, previous) and (older or name == failed):
                shutil.rmtree(self.release(name), ignore_errors=True)
                self.say(f"release {name} removed (kept: {version}, {previous or 'nothing'})")

    def _write(self, running: str, previous: str | None, why: str, failed: str = "") -> None:
        record = {
            "running": running,
            "previous": previous or "",
            "why": why,
            "failed": failed,
            "at": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        }
        tmp = self.record_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(record, indent=1) + "\n")
        tmp.chmod(0o644)
        os.replace(tmp, self.record_path)

    @contextmanager
    def _locked(self) -> Iterator[None]:
        """One upgrade or rollback at a time (apt and a person's `update --rollback`)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".lock", "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            yield


def this_version() -> str:
    """The installed distribution's version (the package's, as build-deb.sh set it)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("orbito-hw")
    except PackageNotFoundError:
        return "unknown"


def running_release(root: Path = ROOT) -> dict[str, object]:
    """What the page shows: this version, and why it runs (the last upgrade or rollback)."""
    record = Releases(root=root).record()
    return {"version": this_version(), "why": record.get("why", ""),
            "failed": record.get("failed", "")}  # fmt: skip


def pip_wheel(folder: Path = PIP_WHEELS) -> Path:
    """Debian's pip as a wheel (python3-pip-whl, which python3-venv depends on): pip runs
    from it as it is, to install into a venv made without pip."""
    found = sorted(folder.glob("pip-*.whl"))
    if not found:
        raise ReleaseError(f"no pip wheel in {folder}: apt install python3-venv")
    return found[-1]


def install(root: Path, version: str, wheels: Path, python: str = "/usr/bin/python3") -> Path:
    """The venv of ``version`` from the package's wheels alone (no index: offline)."""
    target = Releases(root=root).release(version)
    if (target / ".complete").exists():
        return target
    if target.exists():  # an install cut short: kept aside, not built over
        aside = target.with_name(f".{version}.incomplete.{int(time.time())}")
        target.rename(aside)
        log(f"an unfinished {target} moved aside to {aside}")
    target.parent.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    # System site packages after the venv's own: Debian's python3-spidev (the LEDs' SPI,
    # no wheel on PyPI) where it is installed; every wheel still goes into the venv.
    # No pip of its own (ensurepip took a third of the install's time): the release's venv
    # is never pip-installed into again. pip runs from Debian's wheel of it instead.
    subprocess.run(
        [python, "-m", "venv", "--without-pip", "--system-site-packages", str(target)], check=True
    )
    pip = [str(target / "bin/python"), f"{pip_wheel()}/pip", "install", "-q", "--no-index"]
    pip += ["--isolated", "--disable-pip-version-check", "--ignore-installed"]
    pip += ["--find-links", str(wheels)]
    subprocess.run([*pip, "-r", str(wheels / "install.list")], check=True)
    (target / ".complete").write_text(version + "\n")
    log(f"{version} installed in {target} from {wheels} in {time.monotonic() - start:.0f} s")
    return target


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="releases.py", description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=ROOT)
    sub = parser.add_subparsers(dest="action", required=True)
    p = sub.add_parser("install", help="make the venv of VERSION from the wheels in WHEELS")
    p.add_argument("version")
    p.add_argument("wheels", type=Path)
    p = sub.add_parser("activate", help="make VERSION current; roll back if it does not start")
    p.add_argument("version")
    p.add_argument("--within", type=float, default=WITHIN_S, metavar="SECONDS")
    p = sub.add_parser("rollback", help="back to the release before the current one")
    p.add_argument("--within", type=float, default=WITHIN_S, metavar="SECONDS")
    args = parser.parse_args(argv)
    try:
        if args.action == "install":
            install(args.root, args.version, args.wheels)
            return 0
        releases = Releases(root=args.root)
        if args.action == "activate":
            return 0 if releases.activate(args.version, args.within) else 1
        return 0 if releases.rollback(args.within) else 1
    except (ReleaseError, OSError, subprocess.CalledProcessError) as exc:
        print(f"releases.py: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
