"""The system test: orbito-hw on a real operating system, in a virtual machine.

A plain Debian bookworm (its own kernel, real systemd) boots under qemu (TCG, two emulated
cores: nested KVM is unusable here), the checkout is copied in and installed by the project's
own installer, and the real ``orbito-hw run`` referees a game under systemd whose sensors,
button, index and ring drive are real kernel GPIO lines of a gpio-sim chip, driven from the
other side by the test's world (guest/world.py). Each check prints PASS or FAIL; a summary with
the time of each phase and the figures measured ends the run; the exit status is 1 if any check
failed, 2 if the host lacks something (under CI=true as well: it never skips).

  python tests/system/vm.py [--keep] [--rebuild]

The image is built once (tests/system/build_image.sh, about 3 minutes) and cached in
$ORBITO_VM_CACHE (default ~/.cache/orbito-hw-vm), keyed by a hash of what built it. Host
needs: qemu-system-x86, debootstrap, e2fsprogs, openssh-client, linux-source-6.1 (.ci/run
installs them).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import device_checks as devices
import gpiod_checks
import package_checks
from machine import (
    CHECKOUT,
    EXTRA,
    GAME,
    IDLE_S,
    MAX_EXPOSURE,
    SLOWER,
    VM,
    CheckFailed,
    Missing,
    Report,
    check_host,
    image,
)


# --- the checks -------------------------------------------------------------------------
def copy_checkout(vm: VM) -> str:
    """The checkout as git sees it (tracked and new files, nothing ignored) into the VM."""
    files = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=CHECKOUT,
        capture_output=True,
        check=True,
    ).stdout
    names = [n for n in files.decode().split("\0") if n and (CHECKOUT / n).is_file()]
    with tempfile.TemporaryFile() as archive:
        subprocess.run(
            ["tar", "--null", "-T", "-", "-czf", "-"],
            cwd=CHECKOUT,
            input="\0".join(names).encode(),
            stdout=archive,
            check=True,
        )
        archive.seek(0)
        vm.ssh(
            "rm -rf /root/orbito-hw && mkdir -p /root/orbito-hw && tar -xzf - -C /root/orbito-hw",
            stdin=archive.read(),
        )
    vm.ssh(
        "set -e; mkdir -p /root/systest /etc/orbito-test /etc/orbito-hw "
        "/etc/systemd/system/orbito-hw.service.d; G=/root/orbito-hw/tests/system/guest; "
        "cp $G/world.py $G/pico.py $G/lib.sh $G/probe.py $G/bare_lgpio.py /root/systest/; "
        "cp $G/board.toml /etc/orbito-test/board.toml; "
        # The builder's config, in place before the install (the installer keeps it).
        "cp $G/board.toml /etc/orbito-hw/config.toml; "
        "cp $G/orbito-world.service /etc/systemd/system/; "
        "cp $G/orbito-hw-test.conf /etc/systemd/system/orbito-hw.service.d/test.conf; "
        # gpiozero reads the Pi's revision: the VM is shown a Pi 4's (Revision c03112).
        "(grep -v '^Revision' /proc/cpuinfo; printf 'Revision\\t: c03112\\n') "
        ">/etc/orbito-test/cpuinfo; "
        "systemctl daemon-reload; systemctl enable --now orbito-world.service"
    )
    return f"{len(names)} files"


def gpio_chip(vm: VM) -> str:
    out = vm.ssh('gpioinfo "$(sim_chip)" | head -1; world state').stdout
    if "28 lines" not in out:
        raise CheckFailed(f"no 28-line gpio-sim chip: {out}")
    return out.splitlines()[0].strip()


def install(vm: VM, report: Report) -> str:
    out = vm.ssh("bash /root/orbito-hw/scripts/install.sh 2>&1", timeout=900 * SLOWER).stdout
    shown = [line for line in out.splitlines() if line.startswith(("==>", "    -", "install"))]
    print("\n".join("    | " + line for line in shown), flush=True)
    for needed in (
        "lgpio comes from PyPI into the venv",
        "not a Raspberry Pi: skipping the Pi's boot settings",
        "==> done: orbito-hw installed",
        "service orbito-hw running",
    ):
        if needed not in out:
            raise CheckFailed(f"the installer's report lacks {needed!r}: {out[-1500:]}")
    return "plain Debian: apt packages, lgpio from PyPI, Pi boot settings skipped, service running"


def ready(vm: VM) -> str:
    vm.ssh("wait_log '^orbito-hw running: ' 1 120")
    state = vm.ssh("systemctl is-active orbito-hw; systemctl show orbito-hw -p StatusText").stdout
    if not state.startswith("active"):
        raise CheckFailed(state)
    return state.split()[0]


def turns(vm: VM, game: int, first: int, tokens: list[str]) -> str:
    for number, token in enumerate(tokens, first):
        vm.ssh(f"turn {game} {number} {shlex.quote(token)}", timeout=180)
    return " ".join(tokens)


def refusal(vm: VM, number: int, token: str) -> str:
    """Turn ``number`` made with a marble too many: refused, undone, then made right."""
    vm.ssh(f"hands {token}; world put {EXTRA} >/dev/null; sleep 0.4; world tap >/dev/null")
    vm.ssh("wait_log '^game 1: refused '")
    line = vm.ssh(
        "journalctl -b -u orbito-hw -o cat | grep -E '^game 1: refused ' | tail -1"
    ).stdout
    vm.ssh(f"world lift {EXTRA} >/dev/null; sleep 0.5; world tap >/dev/null")
    vm.ssh(f"wait_log '^game 1 turn {number}: [a-z]+ {token} '; world wait-still >/dev/null")
    return line.strip()


def watchdog(vm: VM, report: Report) -> str:
    """SIGSTOP the service: systemd's watchdog (WatchdogSec=10) kills and restarts it."""
    out = vm.ssh(
        "old=$(main_pid); t0=$(now_s); kill -STOP $old; "
        "for _ in $(seq 180); do "
        "[[ $(main_pid) != $old && $(main_pid) != 0 && "
        "$(systemctl is-active orbito-hw) == active ]] && break; sleep 0.5; done; "
        "t1=$(now_s); echo $old $(main_pid) $t0 $t1; "
        "journalctl -b -u orbito-hw -o cat | grep -c 'Watchdog timeout' || true",
        timeout=180,
    ).stdout.split()
    old, new, t0, t1, timeouts = out[0], out[1], float(out[2]), float(out[3]), int(out[4])
    if old == new or timeouts < 1:
        raise CheckFailed(f"not restarted by the watchdog (pid {old} -> {new}, {timeouts})")
    report.figure("watchdog restart", f"{t1 - t0:.1f} s from SIGSTOP to active again")
    vm.ssh("wait_log '^orbito-hw running: ' 2 120")
    return f"pid {old} hung, pid {new} running {t1 - t0:.1f} s later"


def resumed_after_power_off(vm: VM, report: Report) -> str:
    """After a hard power-off mid-game: the boot, the service READY, the game goes on."""
    vm.power_off()
    took = vm.boot()
    vm.ssh("wait_log '^orbito-hw running: ' 1 180")
    out = vm.ssh(
        "systemctl show orbito-hw -p ActiveEnterTimestampMonotonic --value; "
        "systemctl show orbito-world -p ActiveEnterTimestampMonotonic --value"
    ).stdout.split()
    to_ready = int(out[0]) / 1e6
    report.figure("boot to READY", f"{to_ready:.1f} s (guest clock, kernel start to READY=1)")
    report.figure("power on to ssh", f"{took:.1f} s (host clock)")
    return f"READY {to_ready:.1f} s after the kernel started"


def game_over(vm: VM) -> str:
    line = vm.ssh(
        "wait_log '^game 1 over: '; journalctl -b -u orbito-hw -o cat | grep '^game 1 over: '"
    ).stdout.strip()
    if "black wins" not in line:
        raise CheckFailed(line)
    games = vm.ssh(
        "runuser -u orbito-hw -- /opt/orbito-hw/venv/bin/orbito-hw games list --json "
        "--state-dir /var/lib/orbito-hw"
    ).stdout
    first = json.loads(games.splitlines()[0])
    if first.get("result") != "black" or first.get("turns") != len(GAME):
        raise CheckFailed(f"the archive says {first}")
    return f"{line}; archive: game 1, {first['turns']} turns, {first['result']} won"


def stop_lights_off(vm: VM) -> str:
    out = vm.ssh(
        "t=$(date +%s); systemctl stop orbito-hw; "
        "systemctl show orbito-hw -p ExecStopPost --value; echo; echo $t"
    ).stdout
    status = re.search(r"status=(\d+)", out)
    started = re.search(r"start_time=\[([^\]]+)\]", out)
    if not status or status.group(1) != "0" or not started or "n/a" in started.group(1):
        raise CheckFailed(f"ExecStopPost did not run cleanly: {out}")
    vm.ssh("systemctl start orbito-hw")
    return f"orbito-hw lights off ran at {started.group(1)}, status 0"


# The installed unit as it is, but for what it runs (from where the service may read).
PROBE_UNIT = r"""
set -e
probe=/usr/local/lib/orbito-probe/probe.py
install -D -m 0644 /root/systest/probe.py $probe
sed -e "s|^ExecStart=.*|ExecStart=/usr/bin/python3 $probe 10.0.2.2 9|" \
    -e '/^ExecStopPost=/d' -e '/^WatchdogSec=/d' -e 's/^Type=notify/Type=oneshot/' \
    -e '/^\[Install\]/,$d' /etc/systemd/system/orbito-hw.service \
    >/etc/systemd/system/orbito-hw-probe.service
rm -rf /etc/systemd/system/orbito-hw-probe.service.d
mkdir -p /etc/systemd/system/orbito-hw-probe.service.d
"""
PROBE_PATHS = "/var/lib/orbito-hw /tmp /etc/orbito-hw /opt/orbito-hw /etc /root /home /var/tmp"
PROBE_PATHS += " /usr/local /dev/shm"


def probe(vm: VM, web_dropin: bool) -> dict[str, object]:
    copy = (
        "cp /root/orbito-hw/systemd/orbito-hw.service.d/web.conf "
        "/etc/systemd/system/orbito-hw-probe.service.d/web.conf"
        if web_dropin
        else "true"
    )
    out = vm.ssh(
        PROBE_UNIT + f"{copy}\nsystemctl daemon-reload\n"
        "systemctl start orbito-hw-probe.service || true\n"
        "journalctl -u orbito-hw-probe -o cat --no-pager | grep '^PROBE ' | tail -1\n"
        # From outside the sandbox: where did its writes land?
        f"for p in {PROBE_PATHS}; do [ -e $p/.orbito-probe ] && echo SEEN $p; "
        "rm -f $p/.orbito-probe; done\n"
        "journalctl -u orbito-hw-probe --rotate >/dev/null 2>&1 || true\n"
        "systemctl reset-failed orbito-hw-probe.service 2>/dev/null || true"
    ).stdout
    found = re.search(r"^PROBE (.*)$", out, re.M)
    if not found:
        raise CheckFailed(f"the probe said nothing: {out}")
    result: dict[str, object] = json.loads(found.group(1))
    result["seen"] = re.findall(r"^SEEN (\S+)$", out, re.M)
    return result


def sandbox(vm: VM) -> str:
    seen = probe(vm, web_dropin=False)
    writable = seen["writable"]
    assert isinstance(writable, dict)
    private = sorted(p for p, ok in writable.items() if ok and p not in seen["seen"])  # type: ignore[operator]
    if seen["seen"] != ["/var/lib/orbito-hw"] or not str(seen["inet"]).startswith("blocked"):
        raise CheckFailed(f"the sandbox leaks: {seen}")
    with_web = probe(vm, web_dropin=True)
    if not str(with_web["inet"]).startswith("open"):
        raise CheckFailed(f"the web drop-in does not open the network: {with_web}")
    vm.ssh(
        "rm -rf /etc/systemd/system/orbito-hw-probe.service "
        "/etc/systemd/system/orbito-hw-probe.service.d; systemctl daemon-reload"
    )
    return (
        f"writes only to /var/lib/orbito-hw as uid {seen['user']} (private: "
        f"{' '.join(private)}); IPv4 {seen['inet']}, "
        f"netlink {seen['netlink']}; with the web drop-in IPv4 {with_web['inet']}"
    )


def security(vm: VM, report: Report) -> str:
    out = vm.ssh("systemd-analyze security orbito-hw --no-pager | tail -1").stdout
    found = re.search(r"Overall exposure level for \S+: (\d+\.\d+)", out)
    if not found:
        raise CheckFailed(out)
    level = float(found.group(1))
    report.figure("systemd-analyze security (installed unit)", f"{level}")
    if level > MAX_EXPOSURE:
        raise CheckFailed(f"exposure {level} > {MAX_EXPOSURE}")
    return f"exposure {level}"


def fetch(vm: VM, path: str, wait: float = 0) -> str:
    """GET ``path`` from the VM's web page, from this machine, through qemu's forward."""
    deadline = time.monotonic() + wait
    while True:
        try:
            url = f"http://127.0.0.1:{vm.web_port}{path}"
            with urllib.request.urlopen(url, timeout=10) as response:
                return str(response.read().decode())
        except OSError as exc:
            if time.monotonic() > deadline:
                raise CheckFailed(f"no {path} from the VM: {exc}") from None
            time.sleep(2)


def web_page(vm: VM) -> str:
    """[web] on (the web helper's page): served to the host through the forwarded port."""
    vm.ssh(
        "set -e; cp /etc/orbito-hw/config.toml /root/config.before-web; "
        "printf '\\n[web]\\nenabled = true\\nport = 8080\\n' >>/etc/orbito-hw/config.toml; "
        "install -m 0644 /root/orbito-hw/systemd/orbito-hw.service.d/web.conf "
        "/etc/systemd/system/orbito-hw.service.d/web.conf; "
        "systemctl daemon-reload; systemctl restart orbito-hw"
    )
    try:
        page = fetch(vm, "/", wait=90)
        if not re.search(r"<title[^>]*>Orbito board</title>", page):
            raise CheckFailed(f"not the board's page: {page[:200]}")
        games = fetch(vm, "/api/games")
        if '"black"' not in games:
            raise CheckFailed(f"the page's archive lacks the game won by black: {games[:300]}")
    finally:
        vm.ssh(
            "cp /root/config.before-web /etc/orbito-hw/config.toml; "
            "rm -f /etc/systemd/system/orbito-hw.service.d/web.conf; "
            "systemctl daemon-reload; systemctl restart orbito-hw"
        )
    return f"http://127.0.0.1:{vm.web_port}/ from the host: the page, and game 1 in /api/games"


def idle_cpu(vm: VM, report: Report) -> str:
    """Defect 4: the service at rest against a bare lgpio program with the same callbacks."""
    out = vm.ssh(
        f"sleep 5; pid=$(main_pid); a=$(cpu_ticks $pid); threads $pid >/tmp/t0; sleep {IDLE_S}; "
        "b=$(cpu_ticks $pid); threads $pid >/tmp/t1; "
        "echo $((b - a)) $(getconf CLK_TCK); systemctl stop orbito-hw; "
        # (cd first: "cd && python &" would put a subshell in the background, not python.)
        "cd /run; /opt/orbito-hw/venv/bin/python /root/systest/bare_lgpio.py "
        f"/etc/orbito-hw/config.toml {IDLE_S + 10} & bare=$!; sleep 5; "
        f"a=$(cpu_ticks $bare); sleep {IDLE_S}; b=$(cpu_ticks $bare); echo $((b - a)); "
        "wait $bare; join /tmp/t0 /tmp/t1 | awk '{print $5 - $2, $6 - $3, $7}' | sort -rn "
        "| head -3; "
        "systemctl start orbito-hw; wait_log '^orbito-hw running: ' 1",
        timeout=300,
    ).stdout.split()
    service, hz, bare = int(out[0]), int(out[1]), int(out[2])
    # The service's busiest threads: CPU and wake-ups in the window, where each sleeps.
    busiest = ", ".join(
        f"{int(out[i]) / hz / IDLE_S:.1%} CPU, {int(out[i + 1]) / IDLE_S:.0f} wake-ups/s in "
        f"{out[i + 2]}"
        for i in range(3, len(out) - 2, 3)
    )
    report.figure("idle service, busiest threads", busiest)
    share = 100 * service / hz / IDLE_S
    base = 100 * bare / hz / IDLE_S
    report.figure(
        "idle CPU (share of one emulated core)",
        f"service {share:.1f}%, bare lgpio with the same callbacks {base:.1f}%, "
        f"ours {share - base:+.1f} points",
    )
    return f"service {share:.1f}%, bare lgpio {base:.1f}%"


def resume_while_running(vm: VM, report: Report) -> str:
    """``games resume`` by root while the service runs (game 1 over): the request lands in the
    service's state directory and the board asks for the position by its LEDs at once, told by
    the kernel (inotify, under the unit's sandbox), not by a timer."""
    out = vm.ssh(
        "cursor=$(mark); echo asked=$(epoch); "
        "/opt/orbito-hw/venv/bin/orbito-hw games resume 1 --at 4 --state-dir /var/lib/orbito-hw"
        " >/dev/null; echo status=$?; "
        "echo set=$(wait_after \"$cursor\" 'set this position up by the LEDs' 30 | cut -d' ' -f1); "
        "echo polling=$(log_count 'no inotify'); "
        "echo request=$(ls /var/lib/orbito-hw/setup-request.json 2>/dev/null | wc -l)",
        check=False,
        timeout=120,
    ).stdout
    got = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    if got.get("status") != "0" or not got.get("set"):
        raise CheckFailed(f"no set-up asked for: {out}")
    if got.get("polling") != "0" or got.get("request") != "0":
        raise CheckFailed(f"the service polls, or left the request: {out}")
    took = float(got["set"]) - float(got["asked"])
    report.figure("games resume on the running service: to the set-up asked", f"{took:.1f} s")
    return f"game 1 after turn 4 asked for {took:.1f} s after the command; the request taken"


def install_twice(vm: VM) -> str:
    """A second run changes nothing: the same files, packages, user and game."""
    fingerprint = (
        "{ sha256sum /etc/systemd/system/orbito-hw.service /etc/udev/rules.d/99-orbito-hw.rules "
        "/etc/orbito-hw/config.toml /var/lib/orbito-hw/game.json 2>/dev/null; "
        "getent passwd orbito-hw; getent group gpio spi; dpkg-query -W | sha256sum; "
        "/opt/orbito-hw/venv/bin/pip freeze | sha256sum; "
        "ls /etc/systemd/system/orbito-hw.service.d; } | sha256sum"
    )
    before = vm.ssh(fingerprint).stdout
    out = vm.ssh("bash /root/orbito-hw/scripts/install.sh 2>&1", timeout=900).stdout
    after = vm.ssh(fingerprint).stdout
    if before != after:
        raise CheckFailed("the second install changed the system")
    if "installed packages" in out or "user orbito-hw\n" in out or "lgpio from PyPI in" in out:
        raise CheckFailed(f"the second install redid steps: {out[-800:]}")
    vm.ssh("wait_log '^orbito-hw running: ' 1")
    return "files, packages, venv, user and game journal unchanged; service running"


def uninstall(vm: VM) -> str:
    out = vm.ssh(
        "bash /root/orbito-hw/scripts/install.sh --uninstall >/dev/null; "
        "systemctl is-active orbito-hw || true; ls /opt/orbito-hw 2>&1 || true; "
        "ls /etc/systemd/system/orbito-hw.service 2>&1 || true; "
        "ls /etc/orbito-hw/config.toml /var/lib/orbito-hw/game.json; getent passwd orbito-hw"
    ).stdout
    if not out.startswith(("inactive", "unknown")) or "No such file" not in out:
        raise CheckFailed(out)
    if "orbito-hw:" not in out or "game.json" not in out:
        raise CheckFailed(f"uninstall took the config, journal or user: {out}")
    return "service, venv and unit gone; config, game journal and user kept"


def purge(vm: VM) -> str:
    out = vm.ssh(
        "bash /root/orbito-hw/scripts/install.sh --uninstall --purge >/dev/null; "
        "ls -d /etc/orbito-hw /var/lib/orbito-hw /opt/orbito-hw 2>&1; "
        "getent passwd orbito-hw || echo no-user",
        check=False,
    ).stdout
    if out.count("No such file") != 3 or "no-user" not in out:
        raise CheckFailed(out)
    return "config, state directory, venv and user gone"


# --- the run ----------------------------------------------------------------------------
def run(args: argparse.Namespace) -> int:
    report = Report()
    start = time.monotonic()
    check_host()
    cache = Path(os.environ.get("ORBITO_VM_CACHE", "~/.cache/orbito-hw-vm")).expanduser()
    with report.phase("image"):
        image_dir = image(cache, args.rebuild)
    only = args.only.split(",") if args.only else None
    with tempfile.TemporaryDirectory(prefix="orbito-vm-") as tmp:
        # The packages build on this machine while the VM boots and the phases before run.
        (Path(tmp) / "debs").mkdir()
        packages = None
        if wanted(only, "package") or only == ["package-install"]:
            packages = package_checks.start(Path(tmp) / "debs", only != ["package-install"])
        vm = VM(image_dir, Path(tmp))
        try:
            play(vm, report, only, packages)
        finally:
            if args.keep:
                print(f"--keep: the VM runs on; ssh -p {vm.ssh_port} root@127.0.0.1", flush=True)
                input("press Enter to power it off ")
            vm.power_off()
    report.figure("whole run", f"{time.monotonic() - start:.0f} s")
    print(report.summary(), flush=True)
    return 1 if report.failed else 0


def play(
    vm: VM,
    report: Report,
    only: list[str] | None = None,
    packages: package_checks.Packages | None = None,
) -> None:
    """Every phase, or (``--only``) the set-up and the phases named."""
    with report.phase("boot"):
        report.figure("first boot to ssh", f"{vm.boot():.1f} s")
    with report.phase("copy in"):
        if not report.check("checkout copied in, world on gpio-sim", lambda: copy_checkout(vm)):
            return
        report.check("gpio-sim chip", lambda: gpio_chip(vm))
    if only in (["package"], ["package-install"]) and packages is not None:  # no install.sh
        with report.phase("package"):
            package_checks.play(vm, report, packages, CheckFailed, only == ["package"])
        return
    with report.phase("install"):
        if not report.check("install.sh on plain Debian", lambda: install(vm, report)):
            return
        if not report.check("READY", lambda: ready(vm)):
            return
    if wanted(only, "game"):
        with report.phase("game"):
            report.check("turns 1-2 on the gpio lines", lambda: turns(vm, 1, 1, GAME[:2]))
            report.check("a refusal, undone", lambda: refusal(vm, 3, GAME[2]))
            report.check("watchdog restarts a hung service", lambda: watchdog(vm, report))
            report.check("turns 4-5 after the restart", lambda: turns(vm, 1, 4, GAME[3:5]))
    if wanted(only, "power-off"):
        with report.phase("power-off"):
            report.check(
                "hard power-off mid-game, boot", lambda: resumed_after_power_off(vm, report)
            )
            report.check("game resumed: turns 6-7", lambda: turns(vm, 1, 6, GAME[5:]))
            report.check("the result in the journal and archive", lambda: game_over(vm))
    if wanted(only, "service"):
        with report.phase("service"):
            report.check("systemctl stop runs lights off", lambda: stop_lights_off(vm))
            report.check("the sandbox holds", lambda: sandbox(vm))
            report.check("systemd-analyze security <= 2.0", lambda: security(vm, report))
            report.check(
                "a busy GPIO line: the service waits, up by itself once it is free",
                lambda: devices.busy_line_freed(vm, report),
            )
            report.check("idle CPU (defect 4)", lambda: idle_cpu(vm, report))
            gpiod_checks.play(vm, report, CheckFailed)  # issue 24: the pins through gpiod
            if (CHECKOUT / "orbito_hw/web/server.py").exists():
                report.check("the web page through a forwarded port", lambda: web_page(vm))
    elif only is not None and "busy-line" in only:  # the service phase's device check alone
        with report.phase("busy line"):  # (arm64: its lgpio comparisons want gpiochip0)
            report.check(
                "a busy GPIO line: the service waits, up by itself once it is free",
                lambda: devices.busy_line_freed(vm, report),
            )
    if wanted(only, "devices"):
        with report.phase("devices come and go"):
            devices_come_and_go(vm, report)
    if wanted(only, "reinstall"):
        with report.phase("reinstall and uninstall"):
            report.check(
                "games resume on the running service (inotify)",
                lambda: resume_while_running(vm, report),
            )
            report.check("installing twice changes nothing", lambda: install_twice(vm))
            report.check("uninstall keeps config and journal", lambda: uninstall(vm))
            report.check("purge removes everything", lambda: purge(vm))
    if wanted(only, "package") and packages is not None:  # issue 38: last, it cuts the network
        with report.phase("package"):
            package_checks.play(vm, report, packages, CheckFailed)


def wanted(only: list[str] | None, phase: str) -> bool:
    return only is None or phase in only


def devices_come_and_go(vm: VM, report: Report) -> None:
    """Game 2 on the Pico as a real USB device, plugged and pulled (device_checks.py)."""
    if not report.check(
        "game 2, the drive on a Pico not plugged in: the service waits",
        lambda: devices.new_game_on_the_pico(vm),
    ):
        return
    for name, check in (
        ("the Pico plugged in late: found, homed, turn 1", devices.plugged_late),
        ("the Pico pulled while idle, then back: turn 2", devices.pulled_while_idle),
        (
            "the Pico pulled during a ring move, then back: turn 3 once",
            devices.pulled_during_a_move,
        ),
        ("a power cut while the Pico is away, then back: turn 4", devices.power_cut_while_away),
    ):
        report.check(name, lambda check=check: check(vm, report))  # type: ignore[misc]
    report.check("game 2's turns once each in journal and archive", lambda: devices.once_each(vm))
    report.check("the drive back on the gpio lines", lambda: devices.back_to_gpio(vm))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="keep the VM running at the end")
    parser.add_argument("--rebuild", action="store_true", help="build the image anew")
    parser.add_argument(
        "--only",
        metavar="PHASES",
        help="after the set-up, only these phases (comma-separated: game, power-off, "
        "service, devices, reinstall, package (alone: without install.sh; package-install: "
        "without the upgrades); busy-line: the busy GPIO line check alone); the full run is "
        "what CI runs",
    )
    try:
        return run(parser.parse_args())
    except Missing as exc:
        print(f"system test: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
