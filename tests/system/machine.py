"""The system test's machine: the host's needs, the cached image, the VM and the report.

tests/system/vm.py runs the checks (it and the check modules beside it import this).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
CHECKOUT = HERE.parent.parent
GUEST = HERE / "guest"
BUILDER = HERE / "build_image.sh"
CA_DIR = Path("/usr/local/share/ca-certificates")
LINUX_SOURCE = Path("/usr/src/linux-source-6.1.tar.xz")
# The guest's architecture: amd64 (CI's), or arm64, the Pi's (ARCH=arm64: Debian's arm64
# kernel on qemu's "virt" machine, the image built through qemu-user; slower, run by hand).
ARCH = os.environ.get("ARCH", "amd64")
# How much longer the slow steps (the install's pip and apt) take in the emulated guest: arm64
# on an x86-64 host runs every instruction through TCG's translation (its install passed 900 s).
SLOWER = 3 if ARCH == "arm64" else 1
QEMU = {"amd64": "qemu-system-x86_64", "arm64": "qemu-system-aarch64"}
HOST_NEEDS = {  # command or file -> the Debian package that brings it
    QEMU.get(ARCH, "qemu-system-x86_64"): "qemu-system-arm"
    if ARCH == "arm64"
    else "qemu-system-x86",
    "debootstrap": "debootstrap",
    "mkfs.ext4": "e2fsprogs",
    "ssh": "openssh-client",
    str(LINUX_SOURCE): "linux-source-6.1",
}
if ARCH == "arm64":  # debootstrap runs the arm64 chroot through qemu-user and binfmt_misc
    HOST_NEEDS["qemu-aarch64-static"] = "qemu-user-static"
GAME = ["c1", "d1-d2:a2", "d2", "d1", "a4", "b2", "a3"]  # black wins on the a file at turn 7
EXTRA = "b3"  # the marble too many in the refused turn 3
GUEST_WEB_PORT = 8080
MAX_EXPOSURE = 2.0
IDLE_S = 20
SSH_WAIT_S = 240


class Missing(Exception):
    """Something the host lacks: the run cannot even start (exit 2)."""


class CheckFailed(Exception):
    pass


@dataclass
class Report:
    passed: list[str] = field(default_factory=list)
    failed: list[str] = field(default_factory=list)
    phases: list[tuple[str, float]] = field(default_factory=list)
    figures: dict[str, str] = field(default_factory=dict)

    @contextmanager
    def phase(self, name: str) -> Iterator[None]:
        start = time.monotonic()
        print(f"--- {name}", flush=True)
        try:
            yield
        finally:
            took = time.monotonic() - start
            self.phases.append((name, took))
            print(f"--- {name}: {took:.1f} s", flush=True)

    def check(self, name: str, run: Callable[[], str]) -> bool:
        try:
            detail = run()
        except (CheckFailed, subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            text = str(exc)
            if isinstance(exc, subprocess.CalledProcessError):
                text = f"{exc}: {(exc.stdout or '')[-800:]}{(exc.stderr or '')[-800:]}"
            self.failed.append(name)
            print(f"FAIL {name}: {text}", flush=True)
            return False
        self.passed.append(name)
        print(f"PASS {name}" + (f": {detail}" if detail else ""), flush=True)
        return True

    def figure(self, name: str, value: str) -> None:
        self.figures[name] = value

    def summary(self) -> str:
        lines = ["", "=== system test summary"]
        lines += [f"phase {name}: {took:.1f} s" for name, took in self.phases]
        lines += [f"{name}: {value}" for name, value in self.figures.items()]
        lines += [f"FAILED: {name}" for name in self.failed]
        lines.append(f"{len(self.passed)} passed, {len(self.failed)} failed")
        return "\n".join(lines)


# --- the host ---------------------------------------------------------------------------
def check_host() -> None:
    if ARCH not in QEMU:
        raise Missing(f"ARCH={ARCH}: amd64 or arm64")
    if os.geteuid() != 0:
        raise Missing("needs root (debootstrap and chroot build the image)")
    lacking = sorted(
        {
            package
            for need, package in HOST_NEEDS.items()
            if not (Path(need).exists() if need.startswith("/") else shutil.which(need))
        }
    )
    if lacking:
        raise Missing(f"missing on this machine: apt-get install {' '.join(lacking)}")


def image_key() -> str:
    """What the image depends on: the builder and this machine's extra CA certificates."""
    digest = hashlib.sha256(BUILDER.read_bytes())
    for cert in sorted(CA_DIR.glob("*.crt")):
        digest.update(cert.name.encode() + cert.read_bytes())
    digest.update(LINUX_SOURCE.name.encode())
    if ARCH != "amd64":  # amd64's key as it always was
        digest.update(ARCH.encode())
    return digest.hexdigest()[:16]


def image(cache: Path, rebuild: bool) -> Path:
    """The cached image, built first if there is none for this key."""
    ready = cache / image_key()
    if rebuild and ready.exists():
        shutil.rmtree(ready)
    if (ready / "disk.raw").exists():
        print(f"image: cached in {ready}", flush=True)
        return ready
    cache.mkdir(parents=True, exist_ok=True)
    for stale in cache.iterdir():  # one image at a time: an old key's is 1 GB for nothing
        if stale.is_dir() and stale != ready:
            shutil.rmtree(stale)
    building = cache / (ready.name + ".building")
    shutil.rmtree(building, ignore_errors=True)
    subprocess.run(
        ["bash", str(BUILDER), str(building)], check=True, env={**os.environ, "ARCH": ARCH}
    )
    building.rename(ready)
    return ready


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


# --- the machine ------------------------------------------------------------------------
class VM:
    def __init__(self, image_dir: Path, work: Path) -> None:
        self.image_dir = image_dir
        self.disk = work / "disk.raw"
        self.key = work / "id_ed25519"
        self.log = work / "console.log"
        shutil.copy(image_dir / "id_ed25519", self.key)
        self.key.chmod(0o600)
        # A copy of the cached disk: the run's changes never reach the cache.
        subprocess.run(
            ["cp", "--sparse=always", str(image_dir / "disk.raw"), str(self.disk)], check=True
        )
        self.ssh_port, self.web_port = free_port(), free_port()
        self.qemu: subprocess.Popen[bytes] | None = None
        self.started = 0.0

    def boot(self) -> float:
        """Power on; seconds until ssh answers."""
        forwards = (
            f"hostfwd=tcp:127.0.0.1:{self.ssh_port}-:22,"
            f"hostfwd=tcp:127.0.0.1:{self.web_port}-:{GUEST_WEB_PORT}"
        )
        # arm64: qemu's "virt" board, a Cortex-A72 (the Pi 4's core; "max" would emulate
        # pointer authentication, slowly), the PL011 UART as the console.
        machine, cpu, console = (
            ("virt", "cortex-a72", "ttyAMA0") if ARCH == "arm64" else ("q35", "max", "ttyS0")
        )
        command = [
            QEMU[ARCH],
            *("-machine", machine, "-accel", "tcg", "-cpu", cpu, "-smp", "2", "-m", "1536"),
            *("-nographic", "-no-reboot", "-serial", f"file:{self.log}", "-monitor", "none"),
            *("-kernel", str(self.image_dir / "vmlinuz")),
            *("-initrd", str(self.image_dir / "initrd.img")),
            *("-append", f"root=/dev/vda rw console={console} quiet"),
            *("-drive", f"file={self.disk},if=virtio,format=raw"),
            *("-nic", f"user,model=virtio-net-pci,{forwards}"),
        ]
        self.started = time.monotonic()
        self.qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL)
        deadline = self.started + SSH_WAIT_S
        while time.monotonic() < deadline:
            if self.qemu.poll() is not None:
                raise CheckFailed(f"qemu exited ({self.qemu.returncode}): see {self.log}")
            if self.ssh("true", check=False, timeout=20).returncode == 0:
                return time.monotonic() - self.started
            time.sleep(2)
        raise CheckFailed(f"no ssh after {SSH_WAIT_S} s: see {self.log}")

    def ssh(
        self, script: str, check: bool = True, timeout: float = 600, stdin: bytes | None = None
    ) -> subprocess.CompletedProcess[str]:
        command = [
            "ssh",
            *("-i", str(self.key), "-p", str(self.ssh_port)),
            *("-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null"),
            *("-o", "LogLevel=ERROR", "-o", "ConnectTimeout=15", "-o", "BatchMode=yes"),
            "root@127.0.0.1",
            f"source /root/systest/lib.sh 2>/dev/null || true; {script}",
        ]
        if stdin is not None:
            out = subprocess.run(command, input=stdin, capture_output=True, timeout=timeout)
            result = subprocess.CompletedProcess(
                out.args, out.returncode, out.stdout.decode(errors="replace"), out.stderr.decode()
            )
        else:
            result = subprocess.run(
                command, capture_output=True, text=True, timeout=timeout, errors="replace"
            )
        if check and result.returncode != 0:
            raise subprocess.CalledProcessError(
                result.returncode, script[:80], result.stdout, result.stderr
            )
        return result

    def power_off(self) -> None:
        """Pull the plug: qemu is killed, the guest gets no chance to write anything."""
        if self.qemu is not None:
            self.qemu.send_signal(signal.SIGKILL)
            self.qemu.wait()
            self.qemu = None

    def shutdown(self) -> None:
        if self.qemu is None:
            return
        self.ssh("systemctl poweroff", check=False, timeout=30)
        with suppress(subprocess.TimeoutExpired):
            self.qemu.wait(timeout=60)
        self.power_off()
