"""The systemd unit passes ``systemd-analyze verify`` without a single warning, and
``systemd-analyze security`` rates its exposure 2.0 or less; the udev rule names the Pico."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
UNIT = ROOT / "systemd" / "orbito-hw.service"
RULES = ROOT / "systemd" / "99-orbito-hw.rules"
INSTALLED_CLI = "/opt/orbito-hw/venv/bin/orbito-hw"
MAX_EXPOSURE = 2.0


def systemd_analyze() -> str:
    tool = shutil.which("systemd-analyze")
    if tool is None:
        if os.environ.get("CI") == "true":
            pytest.fail("systemd-analyze is missing (apt-get install systemd)")
        pytest.skip("systemd-analyze is not installed")
    return tool


def stand_in_unit(tmp_path: Path, text: str | None = None) -> Path:
    """The unit with its ExecStart/ExecStopPost pointed at an executable that exists here
    (verify checks that the program is there)."""
    text = UNIT.read_text() if text is None else text
    assert text.count(INSTALLED_CLI) == 2, "ExecStart and ExecStopPost should run the venv's CLI"
    stand_in = shutil.which("true")
    assert stand_in is not None
    unit = tmp_path / UNIT.name
    unit.write_text(text.replace(INSTALLED_CLI, stand_in))
    return unit


def verify(unit: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [systemd_analyze(), "verify", "--man=no", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )


def exposure(unit: Path) -> float:
    out = subprocess.run(
        [systemd_analyze(), "security", "--offline=true", "--no-pager", str(unit)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", out.stdout)
    assert found, out.stdout + out.stderr
    return float(found.group(1))


def directives(text: str) -> dict[str, list[str]]:
    """Every ``Key=value`` of the unit, all values of a repeated key in order."""
    found: dict[str, list[str]] = {}
    for line in text.splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";")):
            key, value = line.split("=", 1)
            found.setdefault(key.strip(), []).append(value.strip())
    return found


def test_the_unit_verifies_without_any_warning(tmp_path: Path) -> None:
    out = verify(stand_in_unit(tmp_path))
    assert out.returncode == 0 and out.stderr == "", out.stderr


def test_a_warning_from_verify_is_caught(tmp_path: Path) -> None:
    # The check above must be able to fail: an unknown key only warns (exit status 0).
    text = UNIT.read_text().replace("[Service]\n", "[Service]\nWatchdogSecs=10\n")
    out = verify(stand_in_unit(tmp_path, text))
    assert "WatchdogSecs" in out.stderr


def test_the_exposure_is_at_most_two(tmp_path: Path) -> None:
    level = exposure(stand_in_unit(tmp_path))
    assert level <= MAX_EXPOSURE, f"exposure {level} > {MAX_EXPOSURE}"


def test_a_unit_without_the_hardening_would_fail_the_exposure_check(tmp_path: Path) -> None:
    bare = "[Service]\nType=notify\nExecStart=" + INSTALLED_CLI + " run\n"
    bare += "ExecStopPost=" + INSTALLED_CLI + " lights off\n"
    assert exposure(stand_in_unit(tmp_path, bare)) > MAX_EXPOSURE


def test_the_unit_is_a_watched_notify_service_of_its_own_user() -> None:
    unit = directives(UNIT.read_text())
    assert unit["Type"] == ["notify"] and unit["NotifyAccess"] == ["main"]
    assert unit["Restart"] == ["on-failure"]
    assert int(unit["WatchdogSec"][0]) > 0
    assert unit["User"] == ["orbito-hw"]
    assert set(unit["SupplementaryGroups"][0].split()) == {"gpio", "spi", "i2c", "dialout"}
    assert unit["StateDirectory"] == ["orbito-hw"]
    assert unit["ExecStart"][0].endswith("run --config /etc/orbito-hw/config.toml")
    assert "lights off" in unit["ExecStopPost"][0]
    # No network family unless a network feature is switched on with a drop-in.
    assert unit["RestrictAddressFamilies"] == ["AF_UNIX"]


def test_the_unit_lets_through_exactly_the_devices_the_board_uses() -> None:
    unit = directives(UNIT.read_text())
    assert unit["DevicePolicy"] == ["closed"]
    allowed = {value.split()[0] for value in unit["DeviceAllow"]}
    assert allowed == {"char-gpiochip", "char-spi", "char-rp1-pio", "char-ttyACM"}


def test_the_udev_rule_names_the_pico_orbito_ring() -> None:
    rules = [line for line in RULES.read_text().splitlines() if line and not line.startswith("#")]
    pico = [line for line in rules if 'ATTRS{idVendor}=="2e8a"' in line]
    assert len(pico) == 1
    assert 'SYMLINK+="orbito-ring"' in pico[0] and 'GROUP="dialout"' in pico[0]
    assert 'SUBSYSTEM=="tty"' in pico[0]


WEB_DROPIN = ROOT / "systemd" / "orbito-hw.service.d" / "web.conf"


def with_web_dropin(tmp_path: Path) -> Path:
    """The unit and, beside it as systemd reads drop-ins, the web page's drop-in."""
    unit = stand_in_unit(tmp_path)
    dropins = tmp_path / f"{UNIT.name}.d"
    dropins.mkdir()
    (dropins / WEB_DROPIN.name).write_text(WEB_DROPIN.read_text())
    return unit


def test_the_web_dropin_verifies_and_keeps_the_exposure_at_most_two(tmp_path: Path) -> None:
    unit = with_web_dropin(tmp_path)
    out = verify(unit)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    level = exposure(unit)
    assert level <= MAX_EXPOSURE, f"exposure with the web page {level} > {MAX_EXPOSURE}"
    bare = tmp_path / "bare"
    bare.mkdir()
    assert level > exposure(stand_in_unit(bare)), "the drop-in was not read"


def test_the_web_dropin_opens_the_local_networks_only() -> None:
    dropin = directives(WEB_DROPIN.read_text())
    assert dropin["PrivateNetwork"] == ["no"]
    assert dropin["RestrictAddressFamilies"] == ["", "AF_UNIX AF_INET AF_INET6"]
    allowed = dropin["IPAddressAllow"][0].split()
    assert "any" not in allowed and "0.0.0.0/0" not in allowed
    assert {"localhost", "192.168.0.0/16", "10.0.0.0/8"} <= set(allowed)
    assert directives(UNIT.read_text())["IPAddressDeny"] == ["any"]


REMOTE_DROPIN = ROOT / "systemd" / "orbito-hw.service.d" / "remote.conf"


@pytest.mark.parametrize("names", [["remote.conf"], ["web.conf", "remote.conf"]])
def test_the_remote_dropin_verifies_and_keeps_the_exposure_at_most_two(
    tmp_path: Path, names: list[str]
) -> None:
    unit = stand_in_unit(tmp_path)
    dropins = tmp_path / f"{UNIT.name}.d"
    dropins.mkdir()
    for name in names:
        (dropins / name).write_text((REMOTE_DROPIN.parent / name).read_text())
    out = verify(unit)
    assert out.returncode == 0 and out.stderr == "", out.stderr
    level = exposure(unit)
    assert level <= MAX_EXPOSURE, f"exposure with {names} {level} > {MAX_EXPOSURE}"
    bare = tmp_path / "bare"
    bare.mkdir()
    assert level > exposure(stand_in_unit(bare)), "the drop-in was not read"


def test_the_remote_dropin_opens_the_network_families_only_with_remote_on() -> None:
    dropin = directives(REMOTE_DROPIN.read_text())
    assert dropin["RestrictAddressFamilies"] == ["", "AF_UNIX AF_INET AF_INET6"]
    assert directives(UNIT.read_text())["RestrictAddressFamilies"] == ["AF_UNIX"]


def test_the_open_files_limit_is_the_one_the_page_is_capped_under() -> None:
    """The unit's LimitNOFILE is the controller's own figure (web/limits.py): the page's
    connections stay below it with the journal's reserve kept."""
    from orbito_hw.web.limits import FD_RESERVE, FD_WANTED, MAX_CONNECTIONS

    (limit,) = directives(UNIT.read_text())["LimitNOFILE"]
    assert int(limit) == FD_WANTED and MAX_CONNECTIONS + FD_RESERVE < FD_WANTED
