#!/usr/bin/env bash
# The system test's helpers in the VM, sourced by each command the driver (tests/system/vm.py)
# sends over ssh: a person's hands on the board (through the world, world.py) and waits on
# what the service writes to the journal. Sourced into each command, so it sets no shell
# options (a command that expects a failure goes on); the functions return non-zero on one.
# shellcheck shell=bash

SYSTEST=/root/systest

# world COMMAND...: the world's client (it reads the squares' geometry from the checkout;
# PYTHONPATH for it alone: the installer must not see the checkout as installed).
world() {
    PYTHONPATH=/root/orbito-hw python3 "$SYSTEST/world.py" "$@"
}

# sim_chip: the gpio-sim chip's name (gpiochip0 on amd64, gpiochip1 on arm64's "virt").
sim_chip() {
    gpiodetect | awk '/\[pinctrl-bcm2711\]/ {print $1; exit}'
}

# log_count PATTERN: lines of the service's journal (this boot) matching PATTERN (grep -E).
log_count() {
    journalctl -b -u orbito-hw -o cat --no-pager | grep -cE "$1" || true
}

# wait_log PATTERN [COUNT] [SECONDS]: until COUNT lines match (default 1, 90 s).
wait_log() {
    local pattern="$1" count="${2:-1}" deadline=$((SECONDS + ${3:-90}))
    until (($(log_count "$pattern") >= count)); do
        if ((SECONDS > deadline)); then
            echo "no '$pattern' (x$count) in the journal within ${3:-90} s; its last lines:" >&2
            journalctl -b -u orbito-hw -o cat --no-pager -n 8 >&2
            return 1
        fi
        sleep 0.5
    done
}

# hands TOKEN: make a turn on the board, as SPEC.md writes it ("a2", "c1-c2:a2"), no press.
hands() {
    local token="$1"
    if [[ $token == *-*:* ]]; then
        world lift "${token%%-*}" >/dev/null || return 1
        sleep 0.3
        local rest="${token#*-}"
        world put "${rest%%:*}" >/dev/null || return 1
        sleep 0.3
        world put "${token##*:}" >/dev/null || return 1
    else
        world put "$token" >/dev/null || return 1
    fi
    sleep 0.4 # longer than the sensors' debounce
}

# turn GAME NUMBER TOKEN: make the turn, press, and wait until the referee took it and the
# rings are at rest again.
turn() {
    local game="$1" number="$2" token="$3"
    hands "$token" || return 1
    world tap >/dev/null || return 1
    wait_log "^game $game turn $number: [a-z]+ ${token//\*/\\*} " || return 1
    world wait-still >/dev/null
}

# main_pid: the service's main process (0 when it has none).
main_pid() {
    systemctl show orbito-hw -p MainPID --value
}

# cpu_ticks PID: user + system clock ticks of a process and all its threads so far.
cpu_ticks() {
    awk '{print $14 + $15}' "/proc/$1/stat"
}

# monotonic seconds since boot, as systemd stamps its ...TimestampMonotonic (microseconds).
now_s() {
    awk '{print $1}' /proc/uptime
}

# threads PID: each thread's id, CPU ticks so far, wake-ups (voluntary context switches) so
# far and where it sleeps (wchan), sorted by id.
threads() {
    local task
    for task in /proc/"$1"/task/*; do
        echo "${task##*/} $(awk '{print $14 + $15}' "$task/stat")" \
            "$(awk '/^voluntary_ctxt_switches/ {print $2}' "$task/status") $(cat "$task/wchan")"
    done | sort
}

# mark: a cursor into the service's journal, now; wait_after waits for what comes after it.
mark() {
    journalctl -u orbito-hw -n 0 --show-cursor --no-pager | sed -n 's/^-- cursor: //p'
}

# wait_after CURSOR PATTERN [SECONDS]: until a line of the service's journal after CURSOR
# matches PATTERN (grep -E, default 90 s); prints it with its time (seconds since the epoch).
wait_after() {
    local cursor="$1" pattern="$2" deadline=$((SECONDS + ${3:-90})) line
    while :; do
        line="$(journalctl -u orbito-hw --after-cursor="$cursor" -o short-unix --no-pager |
            grep -E "$pattern" | head -1)"
        if [[ -n $line ]]; then
            echo "$line"
            return 0
        fi
        if ((SECONDS > deadline)); then
            echo "no '$pattern' in the journal within ${3:-90} s; its last lines:" >&2
            journalctl -u orbito-hw -o cat --no-pager -n 8 >&2
            return 1
        fi
        sleep 0.2
    done
}

# epoch: now, in seconds since the epoch (as wait_after stamps lines).
epoch() {
    date +%s.%N
}

# status_text: the service's status line, as systemd shows it.
status_text() {
    systemctl show orbito-hw -p StatusText --value
}
