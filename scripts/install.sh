#!/usr/bin/env bash
# Install orbito-hw as a service on Raspberry Pi OS (Bookworm or Trixie; Pi Zero 2 W to Pi 5)
# or a plain Debian of the same releases, or take it away again. Safe to run again: an
# existing user, venv or config is kept (the package itself is upgraded from this checkout,
# the unit and udev rules are refreshed). It checks first (root, systemd, Python, every
# package it needs can be had: lgpio comes from PyPI where the distribution has no
# python3-lgpio; gpiod, libgpiod v2's bindings, always does), then installs, and ends with
# a report: installed, and whether the service runs (exit 0 even if it did not start: the
# report says why and what to do).
#
#   sudo scripts/install.sh              install, enable and (re)start the service
#   sudo scripts/install.sh --no-start   install and enable it, start it at the next boot
#   sudo scripts/install.sh --uninstall  stop and remove it; config and game journal stay
#   sudo scripts/install.sh --uninstall --purge   remove those and the user too
#   scripts/install.sh --dry-run [...]   print every action, change nothing (no root needed)
#
# ORBITO_ROOT=DIR puts every system path under DIR (for tests and image builds).
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
ROOT="${ORBITO_ROOT:-}"
SERVICE=orbito-hw
SERVICE_USER=orbito-hw
GROUPS_NEEDED=(gpio spi i2c dialout)
APT_PACKAGES=(python3 python3-venv python3-dev python3-pip python3-lgpio python3-spidev python3-serial)
# Raspberry Pi OS has python3-lgpio; plain Debian does not: then the venv gets PyPI's lgpio.
LGPIO_PACKAGE=python3-lgpio
LGPIO_FROM_PYPI=0
# libgpiod v2's bindings, for the default pin factory (edges from the kernel, no polling):
# always from PyPI into the venv (its wheels bring their own libgpiod; Debian bookworm's
# python3-libgpiod is v1, which the factory cannot use).
GPIOD_REQUIREMENT="gpiod>=2.1"
MISSING_PACKAGES=()
REPORT=()
PREFIX="$ROOT/opt/orbito-hw"
VENV="$PREFIX/venv"
CONFIG_DIR="$ROOT/etc/orbito-hw"
CONFIG="$CONFIG_DIR/config.toml"
STATE_DIR="$ROOT/var/lib/orbito-hw"
UNIT_DIR="$ROOT/etc/systemd/system"
UDEV_DIR="$ROOT/etc/udev/rules.d"
UNIT_SRC="$SRC/systemd/orbito-hw.service"
RULES_SRC="$SRC/systemd/99-orbito-hw.rules"
# Kernel modules loaded at boot: cdc_acm, so that a Pico plugged in later is allowed.
MODULES_SRC="$SRC/systemd/modules-load.conf"
MODULES_LOAD="$ROOT/etc/modules-load.d/orbito-hw.conf"
# The web page's drop-in: network access for the service, only while [web] is on.
WEB_DROPIN_SRC="$SRC/systemd/orbito-hw.service.d/web.conf"
WEB_DROPIN="$UNIT_DIR/orbito-hw.service.d/web.conf"
# The remote game's drop-in: network access to the broker, only while [remote] is on.
REMOTE_DROPIN_SRC="$SRC/systemd/orbito-hw.service.d/remote.conf"
REMOTE_DROPIN="$UNIT_DIR/orbito-hw.service.d/remote.conf"
EXAMPLE_CONFIG="${ORBITO_EXAMPLE_CONFIG:-$SRC/orbito_hw/config.example.toml}"
BOOT_CONFIG="$ROOT/boot/firmware/config.txt"
# SPI without chip selects: GPIO7 and 8 stay GPIOs (the example wiring's sensors c1 and d1).
SPI_OVERLAY="dtoverlay=spi0-0cs"

DRY_RUN=0
MODE=install
PURGE=0
START=1

# The comment at the top of this file, every usage line of it.
usage() {
    sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$0"
}

# die MESSAGE [STATUS]: 2 for a bad command line, 1 for anything else.
die() {
    echo "install.sh: $1" >&2
    exit "${2:-1}"
}

say() {
    echo "==> $*"
}

# done_step TEXT: one line of the closing report (what this run changed or found).
done_step() {
    REPORT+=("$1")
}

# Every change to the system goes through run: printed, and done unless --dry-run.
run() {
    if ((DRY_RUN)); then
        # Quoted as a shell would need it, so the plan can be pasted and run.
        printf 'would:'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

parse_args() {
    while (($#)); do
        case "$1" in
            --dry-run) DRY_RUN=1 ;;
            --uninstall) MODE=uninstall ;;
            --purge) PURGE=1 ;;
            --no-start) START=0 ;;
            -h | --help)
                usage
                exit 0
                ;;
            *) die "unknown option '$1' (try --help)" 2 ;;
        esac
        shift
    done
    if ((PURGE)) && [[ $MODE != uninstall ]]; then
        die "--purge goes with --uninstall" 2
    fi
    if ((!DRY_RUN)) && [[ $EUID -ne 0 ]]; then
        die "needs root: run it with sudo (or try --dry-run)" 2
    fi
}

check_system() {
    local codename=""
    if [[ -r /etc/os-release ]]; then
        codename="$(sed -n 's/^VERSION_CODENAME=//p' /etc/os-release)"
    fi
    case "$codename" in
        bookworm | trixie) ;;
        *) echo "install.sh: warning: made for Raspberry Pi OS or Debian Bookworm or Trixie, this is '${codename:-unknown}'" >&2 ;;
    esac
    [[ -f $UNIT_SRC && -f $RULES_SRC && -f $WEB_DROPIN_SRC ]] || die "run from an orbito-hw checkout ($UNIT_SRC missing)"
    # The service is a systemd unit: without systemd running, nothing could start it.
    if [[ ! -d /run/systemd/system ]]; then
        ((DRY_RUN)) || die "systemd is not running here (no /run/systemd/system): the service needs it"
        echo "install.sh: warning: systemd is not running here" >&2
    fi
    # (Not in a dry run, which runs nothing it plans; apt brings python3 where it is missing.)
    if ((!DRY_RUN)) && command -v python3 >/dev/null && ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        die "orbito-hw needs Python 3.11 or newer; python3 here is $(python3 -V 2>&1)"
    fi
}

# Whether a Debian package is installed.
installed() {
    [[ "$(dpkg-query -W -f='${db:Status-Status}' "$1" 2>/dev/null)" == installed ]]
}

# Whether apt can install a package (a candidate version in the package lists).
available() {
    local candidate
    candidate="$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: //p')"
    [[ -n $candidate && $candidate != "(none)" ]]
}

# Before anything is changed: which packages are missing, and can each be had? lgpio from
# PyPI where the distribution has none; any other package missing stops the install here.
check_packages() {
    local package unavailable=()
    for package in "${APT_PACKAGES[@]}"; do
        # lgpio from PyPI in the venv (an earlier run on plain Debian) stands for the package.
        if [[ $package == "$LGPIO_PACKAGE" && -x $VENV/bin/python ]] &&
            "$VENV/bin/python" -c "import lgpio" 2>/dev/null; then
            continue
        fi
        installed "$package" || MISSING_PACKAGES+=("$package")
    done
    ((${#MISSING_PACKAGES[@]})) || return 0
    say "refreshing the package lists (missing: ${MISSING_PACKAGES[*]})"
    run apt-get update
    local wanted=()
    for package in "${MISSING_PACKAGES[@]}"; do
        if available "$package"; then
            wanted+=("$package")
        elif [[ $package == "$LGPIO_PACKAGE" ]]; then
            say "no $LGPIO_PACKAGE package on this system: lgpio comes from PyPI into the venv"
            LGPIO_FROM_PYPI=1
        else
            unavailable+=("$package")
        fi
    done
    if ((${#unavailable[@]})); then
        die "cannot install ${unavailable[*]}: no such package here (nothing was changed)"
    fi
    MISSING_PACKAGES=("${wanted[@]}")
}

install_packages() {
    if ((${#MISSING_PACKAGES[@]} == 0)); then
        say "system packages: all there"
        return
    fi
    say "system packages: ${MISSING_PACKAGES[*]}"
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${MISSING_PACKAGES[@]}"
    done_step "installed packages: ${MISSING_PACKAGES[*]}"
}

create_user() {
    local group
    for group in "${GROUPS_NEEDED[@]}"; do
        if ! getent group "$group" >/dev/null; then
            say "group $group"
            run groupadd --system "$group"
        fi
    done
    if getent passwd "$SERVICE_USER" >/dev/null; then
        say "user $SERVICE_USER exists"
    else
        say "user $SERVICE_USER"
        run useradd --system --user-group --home-dir /var/lib/orbito-hw --no-create-home \
            --shell /usr/sbin/nologin --comment "Orbito board referee" "$SERVICE_USER"
        done_step "user $SERVICE_USER"
    fi
    # The unit grants the groups itself; membership also lets "sudo -u orbito-hw" reach them.
    run usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$SERVICE_USER"
}

# A Raspberry Pi: its device tree says so, or it has the Pi's boot config.
is_pi() {
    grep -qs "Raspberry Pi" "$ROOT/proc/device-tree/model" || [[ -f $BOOT_CONFIG ]]
}

enable_spi() {
    if ! is_pi; then
        say "not a Raspberry Pi: skipping the Pi's boot settings (SPI bus, $SPI_OVERLAY)"
        done_step "skipped the Pi's boot settings: not a Raspberry Pi"
        return
    fi
    # The LEDs of a Pi Zero 2 W to 4 run on SPI (GPIO10); raspi-config switches the bus on at boot.
    if command -v raspi-config >/dev/null; then
        say "SPI bus on"
        run raspi-config nonint do_spi 0
        # The reference board's square sensors (TMAG5273 behind TCA9548A) are on I2C.
        say "I2C bus on"
        run raspi-config nonint do_i2c 0
    else
        say "no raspi-config: make sure dtparam=spi=on and dtparam=i2c_arm=on are in config.txt"
    fi
    if [[ ! -f $BOOT_CONFIG ]]; then
        say "no $BOOT_CONFIG: add $SPI_OVERLAY to the boot config if sensors use GPIO7 or 8"
    elif grep -q "^$SPI_OVERLAY" "$BOOT_CONFIG"; then
        say "SPI chip selects left free ($SPI_OVERLAY)"
    else
        say "SPI chip selects left free: $SPI_OVERLAY (from the next boot)"
        # Under [all]: the file may end in a section that applies to one model only.
        run sed -i -e "\$a [all]" -e "\$a $SPI_OVERLAY" "$BOOT_CONFIG"
    fi
}

install_venv() {
    if [[ -x $VENV/bin/python ]]; then
        say "venv $VENV exists"
    else
        say "venv $VENV"
        run mkdir -p "$PREFIX"
        # System site packages: the GPIO, SPI and serial libraries come from apt, built for this Pi.
        run python3 -m venv --system-site-packages "$VENV"
    fi
    if ((LGPIO_FROM_PYPI)); then
        say "lgpio from PyPI"
        run "$VENV/bin/pip" install --quiet lgpio
        done_step "lgpio from PyPI in $VENV ($LGPIO_PACKAGE is not packaged here)"
    fi
    # Once there (v2: it has LineSettings), a second run leaves it as it is.
    if [[ -x $VENV/bin/python ]] &&
        "$VENV/bin/python" -c "import gpiod, sys; sys.exit(not hasattr(gpiod, 'LineSettings'))" 2>/dev/null; then
        say "gpiod (libgpiod v2) in $VENV"
    else
        say "gpiod from PyPI"
        run "$VENV/bin/pip" install --quiet "$GPIOD_REQUIREMENT"
        done_step "gpiod from PyPI in $VENV (libgpiod v2, the default pin library)"
    fi
    say "orbito-hw from $SRC"
    run "$VENV/bin/pip" install --upgrade "$SRC"
    done_step "orbito-hw from $SRC in $VENV"
}

install_config() {
    run mkdir -p "$CONFIG_DIR"
    if [[ -e $CONFIG ]]; then
        say "keeping $CONFIG"
    else
        [[ -f $EXAMPLE_CONFIG ]] || die "no example config at $EXAMPLE_CONFIG (set ORBITO_EXAMPLE_CONFIG)"
        say "config $CONFIG from the example: edit it for your board"
        run install -m 0644 "$EXAMPLE_CONFIG" "$CONFIG"
        done_step "config $CONFIG from the example: edit it for your board"
    fi
}

# Whether the config switches the web page on, as the installed orbito-hw reads it (before
# the first install there is no venv yet: the example's default, off).
web_enabled() {
    [[ -x $VENV/bin/orbito-hw && -f $CONFIG ]] || return 1
    "$VENV/bin/orbito-hw" web enabled --config "$CONFIG"
}

install_web_access() {
    if web_enabled; then
        say "web page on ([web] in $CONFIG): the service may use the local network"
        run mkdir -p "$(dirname "$WEB_DROPIN")"
        run install -m 0644 "$WEB_DROPIN_SRC" "$WEB_DROPIN"
    elif [[ -e $WEB_DROPIN ]]; then
        say "web page off: the service loses its network access"
        run rm -f "$WEB_DROPIN"
    fi
}

# Whether the config switches a remote game on, as the installed orbito-hw reads it.
remote_enabled() {
    [[ -x $VENV/bin/python && -f $CONFIG ]] || return 1
    "$VENV/bin/python" -c 'import sys; from orbito_hw.app.config import load_config
sys.exit(0 if load_config(sys.argv[1]).remote.enabled else 1)' "$CONFIG"
}

install_remote_access() {
    if remote_enabled; then
        say "remote game on ([remote] in $CONFIG): the service may reach the broker"
        run mkdir -p "$(dirname "$REMOTE_DROPIN")"
        run install -m 0644 "$REMOTE_DROPIN_SRC" "$REMOTE_DROPIN"
    elif [[ -e $REMOTE_DROPIN ]]; then
        say "remote game off: the service loses its access to the broker"
        run rm -f "$REMOTE_DROPIN"
    fi
}

install_unit() {
    say "unit and udev rules"
    run mkdir -p "$UNIT_DIR" "$UDEV_DIR"
    run install -m 0644 "$UNIT_SRC" "$UNIT_DIR/$SERVICE.service"
    run install -m 0644 "$RULES_SRC" "$UDEV_DIR/99-$SERVICE.rules"
    install_modules
    run udevadm control --reload-rules
    run udevadm trigger --action=change --subsystem-match=tty --subsystem-match=spidev \
        --subsystem-match=gpio --subsystem-match=rp1-pio
    run systemctl daemon-reload
    run systemctl enable "$SERVICE.service"
    done_step "unit $UNIT_DIR/$SERVICE.service, enabled at boot"
    if ((START)); then
        start_service
    fi
}

# cdc_acm at every boot, and now: the unit allows ttyACM only if the kernel knows it when
# the service starts (systemd/modules-load.conf says why). A kernel without the module (it
# may be built in) is no reason to stop: the Pico then works as it is.
install_modules() {
    run mkdir -p "$(dirname "$MODULES_LOAD")"
    run install -m 0644 "$MODULES_SRC" "$MODULES_LOAD"
    if ! run modprobe cdc_acm 2>/dev/null; then
        echo "install.sh: warning: cannot load cdc_acm now (built in, or no USB serial here)" >&2
    fi
}

# restart, not start: a re-run after an upgrade picks up the new code. The install is
# complete either way: a service that does not start is reported with its reason (usually
# the config: the example's pins and LEDs may not be this board's), not an install failure.
start_service() {
    if ((DRY_RUN)); then
        run systemctl restart "$SERVICE.service"
        done_step "service $SERVICE would be (re)started (a dry run starts nothing)"
        return
    fi
    if run systemctl restart "$SERVICE.service"; then
        done_step "service $SERVICE running (journalctl -u $SERVICE -f)"
        return
    fi
    local why
    why="$(journalctl -u "$SERVICE" -n 1 -o cat --no-pager 2>/dev/null || true)"
    echo "install.sh: warning: installed, but the service did not start: ${why:-see journalctl -u $SERVICE}" >&2
    done_step "service $SERVICE NOT running: fix $CONFIG (orbito-hw config check --config $CONFIG), then: sudo systemctl restart $SERVICE"
}

report() {
    say "done: orbito-hw installed"
    local line
    for line in "${REPORT[@]}"; do
        echo "    - $line"
    done
}

uninstall() {
    say "stopping and removing $SERVICE"
    if [[ -e $UNIT_DIR/$SERVICE.service ]]; then
        run systemctl disable --now "$SERVICE.service"
    fi
    run rm -f "$UNIT_DIR/$SERVICE.service" "$UDEV_DIR/99-$SERVICE.rules" "$MODULES_LOAD"
    run rm -f "$WEB_DROPIN" "$REMOTE_DROPIN"
    run systemctl daemon-reload
    run udevadm control --reload-rules
    run rm -rf "${PREFIX:?}"
    if ((PURGE)); then
        say "purging config, game journal and user"
        run rm -rf "$CONFIG_DIR" "$STATE_DIR"
        if getent passwd "$SERVICE_USER" >/dev/null; then
            run userdel "$SERVICE_USER"
        fi
    else
        say "kept $CONFIG_DIR and $STATE_DIR (--purge removes them)"
    fi
}

main() {
    parse_args "$@"
    ((DRY_RUN)) && say "dry run: nothing is changed"
    check_system
    if [[ $MODE == uninstall ]]; then
        uninstall
        return
    fi
    check_packages
    install_packages
    create_user
    enable_spi
    install_venv
    install_config
    install_web_access
    install_remote_access
    install_unit
    report
}

main "$@"
