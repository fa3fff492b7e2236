"""scripts/install.sh: shellcheck clean, and its --dry-run plans the right actions.

The dry runs never touch this machine: every path is under a temporary ORBITO_ROOT, and every
command that would change the system is replaced on PATH by a trap that records any call (the
tests assert none happens; in a dry run the script only prints them).
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from .common.needs import shellcheck

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
    "modprobe",
]


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
        self.set_packages(installed=[], unavailable=[])

    def set_packages(self, installed: list[str], unavailable: list[str]) -> None:
        """What dpkg says is installed and what apt could install (read-only queries, faked
        so that a plan does not depend on this machine's distribution)."""
        have = " ".join(installed)
        self._script(
            "dpkg-query",
            f'for p in "$@"; do :; done; case " {have} " in *" $p "*) printf installed;; esac',
        )
        missing = " ".join(unavailable)
        self._script(
            "apt-cache",
            f'case " {missing} " in *" $2 "*) echo "  Candidate: (none)";; '
            '*) echo "  Candidate: 1.0";; esac',
        )

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
    assert planned(plan, "usermod --append --groups gpio\\,spi\\,i2c\\,dialout orbito-hw")
    venv = root / "opt/orbito-hw/venv"
    assert planned(plan, f"python3 -m venv --system-site-packages {venv}")
    assert planned(plan, f"{venv}/bin/pip install --upgrade {ROOT}")
    config = root / "etc/orbito-hw/config.toml"
    assert planned(plan, f"install -m 0644 {box.example} {config}")
    unit = root / "etc/systemd/system/orbito-hw.service"
    assert planned(plan, f"install -m 0644 {UNIT} {unit}")
    assert planned(plan, "install -m 0644 " + str(ROOT / "systemd/99-orbito-hw.rules"))
    # A Pico plugged in after the start: cdc_acm loaded at boot and now (issue 23).
    modules = root / "etc/modules-load.d/orbito-hw.conf"
    assert planned(plan, f"install -m 0644 {ROOT / 'systemd/modules-load.conf'} {modules}")
    assert plan.index("modprobe cdc_acm") < plan.index("systemctl restart orbito-hw.service")
    assert "cdc_acm" in (ROOT / "systemd/modules-load.conf").read_text().split()
    enable = plan.index("systemctl enable orbito-hw.service")
    assert (
        plan.index("systemctl daemon-reload")
        < enable
        < plan.index("systemctl restart orbito-hw.service")
    )
    assert box.files() == [], "a dry run created files"


def test_a_second_run_keeps_user_venv_and_config(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    box.set_accounts(users=["orbito-hw"], groups=["gpio", "spi", "i2c", "dialout"])
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
    modules = box.root / "etc/modules-load.d/orbito-hw.conf"
    plan = box.plan("--uninstall")
    assert plan.index("systemctl disable --now orbito-hw.service") < plan.index(
        f"rm -f {unit} {rules} {modules}"
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


WEB_DROPIN = ROOT / "systemd/orbito-hw.service.d/web.conf"


def installed_cli(box: Sandbox, web_on: bool) -> None:
    """An installed venv whose ``orbito-hw web enabled`` answers ``web_on``, and a config."""
    cli = box.root / "opt/orbito-hw/venv/bin/orbito-hw"
    cli.parent.mkdir(parents=True)
    cli.write_text(f'#!/bin/sh\n[ "$1 $2" = "web enabled" ] && exit {0 if web_on else 1}\nexit 3\n')
    cli.chmod(0o755)
    (cli.parent / "python").write_text("")
    (cli.parent / "python").chmod(0o755)
    config = box.root / "etc/orbito-hw/config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("[web]\n")


def test_the_web_page_gets_its_network_dropin_only_while_it_is_on(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    dropin = box.root / "etc/systemd/system/orbito-hw.service.d/web.conf"
    assert not any(WEB_DROPIN.name in line for line in box.plan()), "no venv yet: the page is off"

    installed_cli(box, web_on=True)
    plan = box.plan()
    install = plan.index(f"install -m 0644 {WEB_DROPIN} {dropin}")
    assert planned(plan, f"mkdir -p {dropin.parent}")
    assert (
        install
        < plan.index("systemctl daemon-reload")
        < plan.index("systemctl restart orbito-hw.service")
    )


def test_switching_the_web_page_off_removes_the_dropin(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    installed_cli(box, web_on=False)
    dropin = box.root / "etc/systemd/system/orbito-hw.service.d/web.conf"
    assert not planned(box.plan(), f"rm -f {dropin}"), "nothing to remove yet"
    dropin.parent.mkdir(parents=True)
    dropin.write_text("[Service]\n")
    plan = box.plan()
    assert planned(plan, f"rm -f {dropin}") and not planned(
        plan, "install -m 0644 " + str(WEB_DROPIN)
    )
    assert planned(box.plan("--uninstall"), f"rm -f {dropin}")


def test_plain_debian_gets_lgpio_from_pypi_and_skips_the_pi_boot_settings(tmp_path: Path) -> None:
    # Debian bookworm has no python3-lgpio (apt-get install of it exits 100): found before
    # anything is changed, and lgpio goes into the venv from PyPI instead.
    box = Sandbox(tmp_path)
    box.set_packages(installed=["python3"], unavailable=["python3-lgpio"])
    plan = box.plan()
    [apt] = planned(plan, "env DEBIAN_FRONTEND=noninteractive apt-get install")
    assert "python3-lgpio" not in apt.split() and "python3" not in apt.split()
    assert {"python3-venv", "python3-spidev", "python3-serial"} <= set(apt.split())
    venv = box.root / "opt/orbito-hw/venv"
    assert planned(plan, f"{venv}/bin/pip install --quiet lgpio")
    assert plan.index(f"{venv}/bin/pip install --quiet lgpio") < plan.index(
        f"{venv}/bin/pip install --upgrade {ROOT}"
    )
    assert (
        "==> not a Raspberry Pi: skipping the Pi's boot settings (SPI bus, dtoverlay=spi0-0cs)"
        in plan
    )
    assert not planned(plan, "raspi-config") and not planned(plan, "sed -i")
    assert any("lgpio from PyPI" in line for line in plan)  # the closing report says so


def test_gpiod_comes_from_pypi_once(tmp_path: Path) -> None:
    # libgpiod v2's bindings (the default pin factory) come from PyPI into the venv, before
    # the package; a venv that has them (a second run) is left as it is.
    box = Sandbox(tmp_path)
    plan = box.plan()
    venv = box.root / "opt/orbito-hw/venv"
    step = f"{venv}/bin/pip install --quiet gpiod\\>=2.1"
    assert plan.index(step) < plan.index(f"{venv}/bin/pip install --upgrade {ROOT}")
    assert any("gpiod from PyPI in" in line for line in plan)  # the closing report says so
    python = venv / "bin/python"
    python.parent.mkdir(parents=True)
    python.write_text("#!/bin/sh\nexit 0\n")  # "import gpiod" answers: it is there
    python.chmod(0o755)
    again = box.plan()
    assert not planned(again, f"{venv}/bin/pip install --quiet gpiod")
    assert f"==> gpiod (libgpiod v2) in {venv}" in again
    python.write_text("#!/bin/sh\nexit 1\n")  # v1's bindings, or none
    assert planned(box.plan(), f"{venv}/bin/pip install --quiet gpiod")


def test_a_package_that_cannot_be_had_stops_the_install_before_any_change(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    box.set_packages(installed=[], unavailable=["python3-spidev"])
    out = box.run("--dry-run")
    assert out.returncode == 1
    assert out.stderr.strip().splitlines()[-1] == (
        "install.sh: cannot install python3-spidev: no such package here (nothing was changed)"
    )
    assert "would: apt-get update" in out.stdout  # the lists refreshed to find out ...
    assert "useradd" not in out.stdout and "apt-get install" not in out.stdout  # ... no more


def test_with_every_package_there_apt_is_left_alone(tmp_path: Path) -> None:
    box = Sandbox(tmp_path)
    script = SCRIPT.read_text()
    packages = script.split("APT_PACKAGES=(", 1)[1].split(")", 1)[0].split()
    box.set_packages(installed=packages, unavailable=[])
    plan = box.plan()
    assert not planned(plan, "apt-get") and "==> system packages: all there" in plan


def test_a_service_that_does_not_start_is_reported_not_an_install_failure() -> None:
    # The restart is the last step: its failure (the example config on another board) must
    # not turn a complete install into exit 1 (the system test runs this for real).
    script = SCRIPT.read_text()
    start = script.split("start_service() {", 1)[1].split("\n}\n", 1)[0]
    assert 'if run systemctl restart "$SERVICE.service"; then' in start
    assert "did not start" in start and "exit" not in start
