#!/usr/bin/env bash
# Build the system test's VM image: a plain Debian bookworm (minbase, systemd, Debian's own
# kernel), with the gpio-sim module built out of tree (Debian's kernels lack CONFIG_GPIO_SIM),
# ssh for the test driver, and this machine's extra CA certificates (pip in the guest checks
# TLS against them). Nothing of orbito-hw goes in: the test copies the checkout in and runs the
# project's own installer, so the image is cached across runs (tests/system/vm.py keys the
# cache by a hash of this script and the certificates).
#
#   tests/system/build_image.sh OUT_DIR
#
# OUT_DIR gets disk.raw (ext4, the root file system), vmlinuz, initrd.img, id_ed25519 (the
# test driver's ssh key) and kernel-version. Needs root, debootstrap, mkfs.ext4 (-d) and
# /usr/src/linux-source-6.1.tar.xz (apt-get install debootstrap e2fsprogs linux-source-6.1).
set -euo pipefail

OUT="${1:?usage: build_image.sh OUT_DIR}"
# The guest's architecture: amd64, or arm64 (the Pi's), whose chroot runs through qemu-user.
ARCH="${ARCH:-amd64}"
SUITE=bookworm
MIRROR=http://deb.debian.org/debian
LINUX_SOURCE=/usr/src/linux-source-6.1.tar.xz
DISK_SIZE=4G
# What a plain Debian server has, plus the test's own tools: no python3-venv, -dev or -pip and
# nothing of lgpio, so the installer has to bring what it needs itself. linux-headers and make
# build gpio-sim; gpiod's tools hold a line busy for a check; openssh-server lets the driver in.
PACKAGES=systemd,systemd-sysv,udev,dbus,kmod,procps,e2fsprogs,iproute2,ca-certificates,openssh-server,python3,gpiod,linux-image-$ARCH,linux-headers-$ARCH,make,zstd

die() {
    echo "build_image.sh: $1" >&2
    exit 1
}

[[ $EUID -eq 0 ]] || die "needs root (debootstrap, chroot)"
command -v debootstrap >/dev/null || die "debootstrap is missing: apt-get install debootstrap"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is missing: apt-get install e2fsprogs"
[[ -f $LINUX_SOURCE ]] || die "$LINUX_SOURCE is missing: apt-get install linux-source-6.1"

WORK="$(mktemp -d /var/tmp/orbito-vm-build.XXXXXX)"
ROOTFS="$WORK/rootfs"
cleanup() {
    # The chroot's mounts first, or rm would walk into the host's /proc.
    for m in dev/pts dev proc sys; do
        mountpoint -q "$ROOTFS/$m" 2>/dev/null && umount -l "$ROOTFS/$m"
    done
    rm -rf "$WORK"
}
trap cleanup EXIT

echo "==> debootstrap $SUITE ($ARCH)"
if [[ $ARCH == "$(dpkg --print-architecture)" ]]; then
    debootstrap --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" >"$WORK/debootstrap.log" 2>&1 ||
        { tail -30 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
else
    # A foreign architecture: the packages unpacked, then configured inside the chroot by
    # qemu-user (binfmt_misc runs its binaries through the interpreter copied in).
    [[ $ARCH == arm64 ]] || die "ARCH=$ARCH: amd64 or arm64"
    command -v qemu-aarch64-static >/dev/null || die "qemu-aarch64-static is missing: apt-get install qemu-user-static"
    [[ -e /proc/sys/fs/binfmt_misc/register ]] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    update-binfmts --enable qemu-aarch64 >/dev/null 2>&1 || true
    [[ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]] || die "binfmt_misc has no qemu-aarch64: apt-get install binfmt-support qemu-user-static"
    debootstrap --foreign --arch="$ARCH" --variant=minbase --include="$PACKAGES" "$SUITE" "$ROOTFS" "$MIRROR" \
        >"$WORK/debootstrap.log" 2>&1 || { tail -30 "$WORK/debootstrap.log" >&2; die "debootstrap failed"; }
    interpreter="$(sed -n 's/^interpreter //p' /proc/sys/fs/binfmt_misc/qemu-aarch64)"
    install -D -m 0755 "$(command -v qemu-aarch64-static)" "$ROOTFS$interpreter"
    chroot "$ROOTFS" /debootstrap/debootstrap --second-stage >>"$WORK/debootstrap.log" 2>&1 ||
        { tail -30 "$WORK/debootstrap.log" >&2; die "debootstrap's second stage failed"; }
fi

in_root() {
    chroot "$ROOTFS" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"
}
mount --bind /dev "$ROOTFS/dev"
mount -t devpts devpts "$ROOTFS/dev/pts"
mount -t proc proc "$ROOTFS/proc"
mount -t sysfs sysfs "$ROOTFS/sys"

echo "==> system settings"
echo orbito-vm >"$ROOTFS/etc/hostname"
echo "/dev/vda / ext4 rw,errors=remount-ro 0 1" >"$ROOTFS/etc/fstab"
cat >"$ROOTFS/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb http://deb.debian.org/debian-security $SUITE-security main
SOURCES
# qemu's user network: DHCP from systemd-networkd, its DNS forwarder at 10.0.2.3.
cat >"$ROOTFS/etc/systemd/network/10-wired.network" <<NETWORK
[Match]
Name=en* eth*
[Network]
DHCP=ipv4
NETWORK
echo "nameserver 10.0.2.3" >"$ROOTFS/etc/resolv.conf"
in_root systemctl enable systemd-networkd.service ssh.service >/dev/null 2>&1
in_root systemctl mask systemd-networkd-wait-online.service apt-daily.timer apt-daily-upgrade.timer \
    e2scrub_reap.service >/dev/null 2>&1
# A root without a password (only the serial console and the test's key get in).
in_root passwd -d root >/dev/null
mkdir -p "$ROOTFS/root/.ssh"
ssh-keygen -q -t ed25519 -N "" -C orbito-system-test -f "$WORK/id_ed25519"
install -m 0600 "$WORK/id_ed25519.pub" "$ROOTFS/root/.ssh/authorized_keys"
# No DNS lookup of the client: under emulation it would cost every ssh call seconds.
echo "UseDNS no" >"$ROOTFS/etc/ssh/sshd_config.d/orbito-test.conf"
if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$ROOTFS/usr/local/share/ca-certificates/"
    in_root update-ca-certificates >/dev/null
fi
# The package lists now: the installer's own apt-get update then fetches only what changed.
cp /etc/resolv.conf "$ROOTFS/etc/resolv.conf"
in_root apt-get update -qq
echo "nameserver 10.0.2.3" >"$ROOTFS/etc/resolv.conf"

echo "==> gpio-sim, built against the image's kernel"
KVER="$(find "$ROOTFS/lib/modules" -mindepth 1 -maxdepth 1 -printf '%f\n' | head -1)"
mkdir -p "$ROOTFS/usr/src/gpio-sim"
tar -xJf "$LINUX_SOURCE" -C "$WORK" --wildcards '*/drivers/gpio/gpio-sim.c' '*/drivers/gpio/gpiolib.h' \
    '*/kernel/irq/irq_sim.c'
cp "$WORK"/linux-source-*/drivers/gpio/gpiolib.h "$ROOTFS/usr/src/gpio-sim/"
cp "$WORK"/linux-source-*/drivers/gpio/gpio-sim.c "$ROOTFS/usr/src/gpio-sim/gpio-sim-main.c"
# Debian builds no IRQ_SIM either (only gpio-sim uses it): its few functions go into the module.
# irq_to_desc() is not exported to modules: the exported generic_handle_irq() does the same.
sed 's/handle_simple_irq(irq_to_desc(irqnum));/generic_handle_irq(irqnum);/' \
    "$WORK"/linux-source-*/kernel/irq/irq_sim.c >"$ROOTFS/usr/src/gpio-sim/irq_sim.c"
grep -q "generic_handle_irq(irqnum)" "$ROOTFS/usr/src/gpio-sim/irq_sim.c" || die "irq_sim.c changed: patch it anew"
printf '%s\n' "obj-m := gpio-sim.o" "gpio-sim-y := gpio-sim-main.o irq_sim.o" >"$ROOTFS/usr/src/gpio-sim/Makefile"
in_root make -s -C "/lib/modules/$KVER/build" M=/usr/src/gpio-sim modules >"$WORK/gpio-sim.log" 2>&1 ||
    { cat "$WORK/gpio-sim.log" >&2; die "gpio-sim did not build against $KVER"; }
install -D -m 0644 "$ROOTFS/usr/src/gpio-sim/gpio-sim.ko" "$ROOTFS/lib/modules/$KVER/extra/gpio-sim.ko"
in_root depmod -a "$KVER"
in_root apt-get clean

for m in dev/pts dev proc sys; do umount -l "$ROOTFS/$m"; done

echo "==> disk image"
mkdir -p "$OUT"
cp -L "$ROOTFS/vmlinuz" "$OUT/vmlinuz"
cp -L "$ROOTFS/initrd.img" "$OUT/initrd.img"
cp "$WORK/id_ed25519" "$OUT/id_ed25519"
echo "$KVER" >"$OUT/kernel-version"
rm -f "$OUT/disk.raw"
mkfs.ext4 -q -L orbito-root -d "$ROOTFS" "$OUT/disk.raw" "$DISK_SIZE"
echo "==> image ready in $OUT (kernel $KVER)"
