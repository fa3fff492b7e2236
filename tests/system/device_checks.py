"""The system test's devices that come and go (issue 23), on the real kernel in the VM.

The Pico is a real USB CDC ACM device (guest/pico.py: the kernel's USB gadget framework on
dummy_hcd, the firmware's own logic on the gadget's side, its motor the world's rings); the
service finds it through cdc_acm, udev's /dev/orbito-ring and its unit's device cgroup, as
on a Pi. Game 2 is played on it while the cable is pulled and put back:

- the service started with no Pico: up, READY, saying what it waits for; the Pico plugged in
  later is picked up, the rings homed, a turn played;
- pulled while the rings are idle: a fault within seconds; back: the next turn accepted;
- pulled during a ring move (the Pico loses its power with the cable, the rings stop where
  they are): back, the move is finished or verified and the turn counted once;
- a power cut while the Pico is away: the board boots, waits, and plays on once it is back
  (cdc_acm loaded at boot: the Pico plugged in after the start is allowed);
- a GPIO line held by another program at the start: the service waits, and comes up by
  itself when the line is free.

Every turn of game 2 is then in the journal and the archive exactly once.
"""

from __future__ import annotations

import json
import shlex

from machine import GAME, VM, CheckFailed, Report

SERIAL = (
    'sed -i -e \'s/^drive = "gpio"/drive = "serial"/\' /etc/orbito-hw/config.toml; '
    "grep -q '^drive = \"serial\"' /etc/orbito-hw/config.toml"
)
GAME2 = GAME[:4]  # black c1, white d1-d2:a2, black d2, white d1
WAITING = "no /dev/orbito-ring yet"
WHOLE = "the board is whole again"
LOST = "fault: the ring controller on /dev/orbito-ring is gone"


def _stamp(line: str) -> float:
    """The time of a journal line printed by wait_after (``-o short-unix``)."""
    return float(line.split()[0])


def _after(vm: VM, cursor: str, pattern: str, seconds: int = 90) -> float:
    out = vm.ssh(
        f"wait_after {shlex.quote(cursor)} {shlex.quote(pattern)} {seconds}",
        timeout=seconds + 60,
    ).stdout
    return _stamp(out)


def _mark(vm: VM) -> tuple[str, float]:
    """A cursor in the service's journal and the guest's clock, now."""
    out = vm.ssh("mark; epoch").stdout.split()
    return out[0], float(out[1])


def _turn(vm: VM, number: int) -> float:
    """Turn ``number`` of game 2 made and pressed; when the referee took it."""
    token = GAME2[number - 1]
    cursor, _ = _mark(vm)
    vm.ssh(f"hands {shlex.quote(token)}; world tap >/dev/null", timeout=120)
    pattern = f"game 2 turn {number}: [a-z]+ {token} "
    taken = _after(vm, cursor, pattern, 120)
    vm.ssh("world wait-still >/dev/null", timeout=120)
    return taken


def new_game_on_the_pico(vm: VM) -> str:
    """Game 2 on the empty board (a hold), then the drive moved to a Pico not plugged in:
    the service restarted without it stays up and says what it waits for."""
    out = vm.ssh(
        "set -e; world clear >/dev/null; sleep 1; world press >/dev/null; sleep 3; "
        "world release >/dev/null; for _ in $(seq 60); do "
        '[[ $(python3 -c \'import json; print(json.load(open("/var/lib/orbito-hw/game.json"))'
        '["game"])\') == 2 ]] && break; sleep 0.5; done; '
        "world pico unplug >/dev/null; systemctl stop orbito-hw; "
        f"cp /etc/orbito-hw/config.toml /root/config.gpio; {SERIAL}; "
        f"systemctl start orbito-hw; wait_log '{WAITING}' 1 60; sleep 2; "
        "systemctl is-active orbito-hw; status_text; "
        'python3 -c \'import json; print(json.load(open("/var/lib/orbito-hw/game.json"))'
        '["game"])\'',
        timeout=240,
    ).stdout.splitlines()
    if out[-3] != "active" or WAITING not in out[-2] or out[-1] != "2":
        raise CheckFailed(f"state, status, game: {out[-3:]}")
    return f"game 2; active, status: {out[-2]}"


def plugged_late(vm: VM, report: Report) -> str:
    cursor, plugged = _mark(vm)
    vm.ssh("world pico plug >/dev/null")
    whole = _after(vm, cursor, WHOLE, 60)
    taken = _turn(vm, 1)
    report.figure("Pico plugged in late: plug to the board whole", f"{whole - plugged:.1f} s")
    report.figure(
        "Pico plugged in late: plug to turn 1 accepted (homing, a person's turn)",
        f"{taken - plugged:.1f} s",
    )
    return f"whole {whole - plugged:.1f} s after the plug, turn 1 {taken - plugged:.1f} s"


def pulled_while_idle(vm: VM, report: Report) -> str:
    cursor, pulled = _mark(vm)
    vm.ssh("world pico unplug >/dev/null")
    shown = _after(vm, cursor, LOST, 60)
    active = vm.ssh("sleep 3; systemctl is-active orbito-hw; status_text").stdout.splitlines()
    if active[0] != "active" or "fault" not in active[1]:
        raise CheckFailed(f"after the unplug: {active}")
    cursor, back = _mark(vm)
    vm.ssh("world pico plug >/dev/null")
    _after(vm, cursor, WHOLE, 60)
    taken = _turn(vm, 2)
    report.figure("Pico pulled while idle: unplug to the fault shown", f"{shown - pulled:.1f} s")
    report.figure("Pico pulled while idle: replug to turn 2 accepted", f"{taken - back:.1f} s")
    return f"fault {shown - pulled:.1f} s after the unplug; turn 2 {taken - back:.1f} s after"


def pulled_during_a_move(vm: VM, report: Report) -> str:
    """Turn 3 pressed, the cable pulled while the rings turn; put back: turn 3 once."""
    token = GAME2[2]
    cursor, _ = _mark(vm)
    out = vm.ssh(
        f"hands {shlex.quote(token)}; world pico cut 120 >/dev/null; world tap >/dev/null; "
        "for _ in $(seq 300); do world pico state | grep -q '\"plugged\": false' && break; "
        "sleep 0.1; done; world pico state; sleep 3; world pico state",
        timeout=120,
    ).stdout.splitlines()
    cut, later = json.loads(out[-2]), json.loads(out[-1])
    if cut["plugged"] or cut["steps"] != later["steps"]:
        raise CheckFailed(f"the cable was not pulled, or the rings moved on: {cut} -> {later}")
    _, back = _mark(vm)
    vm.ssh("world pico plug >/dev/null")
    taken = _after(vm, cursor, f"game 2 turn 3: [a-z]+ {token} ", 120)
    vm.ssh("world wait-still >/dev/null", timeout=120)
    report.figure(
        "Pico pulled during a ring move: replug to turn 3 counted", f"{taken - back:.1f} s"
    )
    return f"cut at {cut['steps']} steps; turn 3 counted {taken - back:.1f} s after the replug"


def power_cut_while_away(vm: VM, report: Report) -> str:
    cursor, _ = _mark(vm)
    vm.ssh("world pico unplug >/dev/null")
    _after(vm, cursor, LOST, 60)
    vm.power_off()
    vm.boot()
    out = vm.ssh(
        "wait_log 'orbito-hw running: ' 1 180; wait_log '" + WAITING + "' 1 60; "
        "systemctl is-active orbito-hw; "
        "journalctl -b -u systemd-modules-load -o cat --no-pager | grep -c cdc_acm || true; "
        "systemctl show orbito-hw -p ActiveEnterTimestampMonotonic --value",
        timeout=300,
    ).stdout.splitlines()
    if out[-3] != "active":
        raise CheckFailed(f"after the power cut: {out}")
    loaded = int(out[-2]) > 0 or "cdc_acm" in vm.ssh("lsmod").stdout
    if not loaded:
        raise CheckFailed("cdc_acm not loaded at boot")
    cursor, back = _mark(vm)
    vm.ssh("world pico plug >/dev/null")
    _after(vm, cursor, WHOLE, 60)
    taken = _turn(vm, 4)
    report.figure(
        "power cut while the Pico is away: replug to turn 4 accepted", f"{taken - back:.1f} s"
    )
    return f"READY {int(out[-1]) / 1e6:.1f} s after the kernel, waiting; turn 4 after the replug"


def once_each(vm: VM) -> str:
    """Game 2's turns, each exactly once, in the journal and the archive."""
    out = vm.ssh(
        "python3 -c 'import json; print(json.dumps(json.load("
        'open("/var/lib/orbito-hw/game.json"))["turns"]))\'; '
        "runuser -u orbito-hw -- /opt/orbito-hw/venv/bin/orbito-hw games show 2 --json "
        "--state-dir /var/lib/orbito-hw"
    ).stdout.splitlines()
    journal = json.loads(out[0])
    if journal != GAME2:
        raise CheckFailed(f"the journal's game 2: {journal}")
    shown = json.loads("\n".join(out[1:]))
    archived = [t["turn"] for t in shown.get("turns", [])]
    if archived != GAME2:
        raise CheckFailed(f"the archive's game 2: {archived or shown}")
    return f"journal and archive: {' '.join(journal)}"


def back_to_gpio(vm: VM) -> str:
    vm.ssh(
        "world pico unplug >/dev/null; cp /root/config.gpio /etc/orbito-hw/config.toml; "
        "systemctl restart orbito-hw; wait_log 'orbito-hw running: ' 1 120"
    )
    return "the drive on the gpio lines again"


def busy_line_freed(vm: VM, report: Report) -> str:
    """A line held by another program at the start: one line naming the key and the pin, the
    service up and waiting; freed, the board comes up by itself, with no restart."""
    out = vm.ssh(
        'systemctl stop orbito-hw; gpioset --mode=signal "$(sim_chip)" 8=1 & holder=$!; sleep 1; '
        "cursor=$(mark); systemctl start orbito-hw; "
        "wait_after \"$cursor\" 'GPIO 8 is busy' 60 >/dev/null; sleep 2; "
        "echo state=$(systemctl is-active orbito-hw); echo status=$(status_text); "
        "echo pid=$(main_pid); echo tracebacks=$(journalctl -u orbito-hw "
        '--after-cursor="$cursor" -o cat --no-pager | grep -c Traceback); '
        "cursor=$(mark); echo freed=$(epoch); kill $holder; wait $holder; "
        f"echo whole=$(wait_after \"$cursor\" '{WHOLE}' 90 | cut -d' ' -f1); "
        "echo pid_after=$(main_pid)",
        check=False,
        timeout=240,
    ).stdout
    got = dict(line.split("=", 1) for line in out.splitlines() if "=" in line)
    status = got.get("status", "")
    if got.get("state") != "active" or "sensors.pins.d1 = 8: GPIO 8 is busy" not in status:
        raise CheckFailed(f"with the line held: {out}")
    if got.get("tracebacks") != "0" or not got.get("whole"):
        raise CheckFailed(f"tracebacks, or never whole: {out}")
    if got.get("pid") != got.get("pid_after"):
        raise CheckFailed(f"the service was restarted: {out}")
    took = float(got["whole"]) - float(got["freed"])
    report.figure("a busy GPIO line freed: to the board whole", f"{took:.1f} s")
    return f"{status}; whole {took:.1f} s after the line was freed, no restart"
