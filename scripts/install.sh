#!/usr/bin/env bash
# Install orbito-hw as a service on Raspberry Pi OS (Bookworm or Trixie; Pi Zero 2 W to Pi 5),
# or take it away again. Safe to run again: an existing user, venv or config is kept (the
# package itself is upgraded from this checkout, the unit and udev rules are refreshed).
#
#   sudo scripts/install.sh              install, enable and (re)start the service
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
GROUPS_NEEDED=(gpio spi dialout)
APT_PACKAGES=(python3 python3-venv python3-dev python3-pip python3-lgpio python3-spidev python3-serial)
PREFIX="$ROOT/opt/orbito-hw"
VENV="$PREFIX/venv"
CONFIG_DIR="$ROOT/etc/orbito-hw"
CONFIG="$CONFIG_DIR/config.toml"
STATE_DIR="$ROOT/var/lib/orbito-hw"
UNIT_DIR="$ROOT/etc/systemd/system"
UDEV_DIR="$ROOT/etc/udev/rules.d"
UNIT_SRC="$SRC/systemd/orbito-hw.service"
RULES_SRC="$SRC/systemd/99-orbito-hw.rules"
EXAMPLE_CONFIG="${ORBITO_EXAMPLE_CONFIG:-$SRC/orbito_hw/config.example.toml}"
BOOT_CONFIG="$ROOT/boot/firmware/config.txt"
# SPI without chip selects: GPIO7 and 8 stay GPIOs (the example wiring's sensors c1 and d1).
SPI_OVERLAY="dtoverlay=spi0-0cs"

DRY_RUN=0
MODE=install
PURGE=0
START=1

usage() {
    sed -n '2,10s/^# \{0,1\}//p' "$0"
}

# die MESSAGE [STATUS]: 2 for a bad command line, 1 for anything else.
die() {
    echo "install.sh: $1" >&2
    exit "${2:-1}"
}

say() {
    echo "==> $*"
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
        *) echo "install.sh: warning: made for Raspberry Pi OS Bookworm or Trixie, this is '${codename:-unknown}'" >&2 ;;
    esac
    [[ -f $UNIT_SRC && -f $RULES_SRC ]] || die "run from an orbito-hw checkout ($UNIT_SRC missing)"
}

install_packages() {
    say "system packages: ${APT_PACKAGES[*]}"
    run apt-get update
    run env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${APT_PACKAGES[@]}"
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
    fi
    # The unit grants the groups itself; membership also lets "sudo -u orbito-hw" reach them.
    run usermod --append --groups "$(IFS=,; echo "${GROUPS_NEEDED[*]}")" "$SERVICE_USER"
}

enable_spi() {
    # The LEDs of a Pi Zero 2 W to 4 run on SPI (GPIO10); raspi-config switches the bus on at boot.
    if command -v raspi-config >/dev/null; then
        say "SPI bus on"
        run raspi-config nonint do_spi 0
    else
        say "no raspi-config: make sure dtparam=spi=on is in config.txt"
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
    say "orbito-hw from $SRC"
    run "$VENV/bin/pip" install --upgrade "$SRC"
}

install_config() {
    run mkdir -p "$CONFIG_DIR"
    if [[ -e $CONFIG ]]; then
        say "keeping $CONFIG"
    else
        [[ -f $EXAMPLE_CONFIG ]] || die "no example config at $EXAMPLE_CONFIG (set ORBITO_EXAMPLE_CONFIG)"
        say "config $CONFIG from the example: edit it for your board"
        run install -m 0644 "$EXAMPLE_CONFIG" "$CONFIG"
    fi
}

install_unit() {
    say "unit and udev rules"
    run mkdir -p "$UNIT_DIR" "$UDEV_DIR"
    run install -m 0644 "$UNIT_SRC" "$UNIT_DIR/$SERVICE.service"
    run install -m 0644 "$RULES_SRC" "$UDEV_DIR/99-$SERVICE.rules"
    run udevadm control --reload-rules
    run udevadm trigger --action=change --subsystem-match=tty --subsystem-match=spidev \
        --subsystem-match=gpio --subsystem-match=rp1-pio
    run systemctl daemon-reload
    run systemctl enable "$SERVICE.service"
    if ((START)); then
        # restart, not start: a re-run after an upgrade picks up the new code.
        run systemctl restart "$SERVICE.service"
    fi
}

uninstall() {
    say "stopping and removing $SERVICE"
    if [[ -e $UNIT_DIR/$SERVICE.service ]]; then
        run systemctl disable --now "$SERVICE.service"
    fi
    run rm -f "$UNIT_DIR/$SERVICE.service" "$UDEV_DIR/99-$SERVICE.rules"
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
    install_packages
    create_user
    enable_spi
    install_venv
    install_config
    install_unit
    say "done: journalctl -u $SERVICE -f"
}

main "$@"
