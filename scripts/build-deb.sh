#!/usr/bin/env bash
# Build orbito-hw's Debian package for a Pi (arm64: every Pi from the Zero 2 W up on a
# 64-bit OS) or a PC (amd64), from this checkout, with dpkg-deb. The package holds the
# application's wheel and every wheel it needs for that architecture (downloaded here once
# with pip for the target platform: CPython 3.11, Debian bookworm's), so that
#   apt install ./orbito-hw_VERSION_ARCH.deb
# needs no network. Its postinst makes a venv a version in /opt/orbito-hw/releases and
# switches to it only once the service proves it starts (deb/postinst, orbito_hw/app/releases.py).
#
#   scripts/build-deb.sh ARCH OUTDIR     writes OUTDIR/orbito-hw_VERSION_ARCH.deb
#
# VERSION is pyproject.toml's, with ORBITO_VERSION_SUFFIX appended (a "+word.N" suffix, for
# a rebuild of the same source: the system test's newer and broken builds). Needs
# dpkg-deb and a Python with pip (the checkout's .venv if there is one) and PyPI.
set -euo pipefail

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

die() {
    echo "build-deb.sh: $1" >&2
    exit "${2:-1}"
}

(($# == 2)) || die "usage: scripts/build-deb.sh ARCH OUTDIR (ARCH arm64 or amd64)" 2
ARCH="$1"
OUT="$2"
case "$ARCH" in
    arm64) MACHINE=aarch64 ;;
    amd64) MACHINE=x86_64 ;;
    *) die "ARCH '$ARCH': arm64 or amd64" 2 ;;
esac
SUFFIX="${ORBITO_VERSION_SUFFIX:-}"
[[ -z $SUFFIX || $SUFFIX =~ ^\+[a-z0-9]+(\.[a-z0-9]+)*$ ]] ||
    die "ORBITO_VERSION_SUFFIX '$SUFFIX': a '+' then lower-case letters, digits and dots" 2
command -v dpkg-deb >/dev/null || die "dpkg-deb is missing: apt-get install dpkg-dev"
PYTHON="${PYTHON:-}"
if [[ -z $PYTHON ]]; then
    if [[ -x $SRC/.venv/bin/python ]]; then PYTHON="$SRC/.venv/bin/python"; else PYTHON=python3; fi
fi
"$PYTHON" -m pip --version >/dev/null 2>&1 || die "$PYTHON has no pip (make the checkout's .venv, README)"

BASE="$(sed -n 's/^version = "\(.*\)"$/\1/p' "$SRC/pyproject.toml" | head -1)"
[[ -n $BASE ]] || die "no version in $SRC/pyproject.toml"
VERSION="$BASE$SUFFIX"
mkdir -p "$OUT"
OUT="$(cd "$OUT" && pwd)"
DEB="$OUT/orbito-hw_${VERSION}_${ARCH}.deb"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/orbito-deb.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
STAGE="$WORK/src"
ROOT="$WORK/root"
WHEELS="$ROOT/usr/lib/orbito-hw/wheels"

echo "==> orbito-hw $VERSION for $ARCH ($MACHINE)"
# The checkout as git sees it (no venv, no caches), so the build never writes into it; the
# version set in the copy (pyproject.toml and the package's __version__ agree).
mkdir -p "$STAGE"
if git -C "$SRC" rev-parse --git-dir >/dev/null 2>&1; then
    # (A file deleted but not yet committed is left out.)
    git -C "$SRC" ls-files -co --exclude-standard -z |
        while IFS= read -r -d '' name; do [[ -f $SRC/$name ]] && printf '%s\0' "$name"; done |
        tar -C "$SRC" --null -T - -cf - | tar -C "$STAGE" -xf -
else
    tar -C "$SRC" --exclude=.venv --exclude='*.egg-info' --exclude=__pycache__ -cf - . | tar -C "$STAGE" -xf -
fi
sed -i "s/^version = \".*\"$/version = \"$VERSION\"/" "$STAGE/pyproject.toml"
sed -i "s/^__version__ = \".*\"$/__version__ = \"$VERSION\"/" "$STAGE/orbito_hw/__init__.py"
grep -q "^__version__ = \"$VERSION\"$" "$STAGE/orbito_hw/__init__.py" || die "cannot set the version in orbito_hw/__init__.py"

echo "==> wheels"
mkdir -p "$WHEELS"
"$PYTHON" -m pip wheel -q --no-deps -w "$WHEELS" "$STAGE"
APP_WHEEL="$(find "$WHEELS" -name 'orbito_hw-*.whl')"
# What scripts/install.sh puts in its venv: the package with its dependencies, gpiod
# (libgpiod v2, the default pin factory) and lgpio (on plain Debian from PyPI).
EXTRA=("gpiod>=2.1" "lgpio>=0.2")
PLATFORM=(--only-binary=:all: --python-version 3.11 --implementation cp --abi cp311)
for tag in manylinux2014 manylinux_2_28 manylinux_2_31 manylinux_2_34 manylinux_2_35; do
    PLATFORM+=(--platform "${tag}_$MACHINE")
done
"$PYTHON" -m pip download -q -d "$WHEELS" "${PLATFORM[@]}" "$APP_WHEEL" "${EXTRA[@]}"
# pip judged the markers on this machine: the target's own check (and what it lacked).
"$PYTHON" "$SRC/deb/wheels.py" "$MACHINE" "$WHEELS" -- "${PLATFORM[@]}"
printf '%s\n' "orbito-hw==$VERSION" "${EXTRA[@]}" >"$WHEELS/install.list"

echo "==> files"
install -D -m 0644 "$STAGE/orbito_hw/app/releases.py" "$ROOT/usr/lib/orbito-hw/releases.py"
install -D -m 0644 "$STAGE/systemd/orbito-hw.service" "$ROOT/lib/systemd/system/orbito-hw.service"
# Said where it comes from, and its man page (systemctl help orbito-hw).
sed -i -e 's|Installed by scripts/install.sh\.|Installed by the orbito-hw package.|' \
    -e '/^Description=/a Documentation=man:orbito-hw(1)' "$ROOT/lib/systemd/system/orbito-hw.service"
install -D -m 0644 "$STAGE/systemd/99-orbito-hw.rules" "$ROOT/lib/udev/rules.d/99-orbito-hw.rules"
install -D -m 0644 "$STAGE/systemd/modules-load.conf" "$ROOT/usr/lib/modules-load.d/orbito-hw.conf"
for dropin in web remote; do
    install -D -m 0644 "$STAGE/systemd/orbito-hw.service.d/$dropin.conf" "$ROOT/usr/share/orbito-hw/systemd/$dropin.conf"
done
# The example config as the conffile: dpkg never overwrites it once a builder changed it.
install -D -m 0644 "$STAGE/orbito_hw/config.example.toml" "$ROOT/etc/orbito-hw/config.toml"
mkdir -p "$ROOT/usr/bin"
ln -s /opt/orbito-hw/current/bin/orbito-hw "$ROOT/usr/bin/orbito-hw"
DOC="$ROOT/usr/share/doc/orbito-hw"
install -D -m 0644 "$SRC/deb/copyright" "$DOC/copyright"
# The changelog's date: the last commit's, so that a rebuild of it gives the same file.
WHEN="$(git -C "$SRC" log -1 --format=%ct 2>/dev/null || date +%s)"
{
    echo "orbito-hw ($VERSION) unstable; urgency=medium"
    echo
    echo "  * Built from $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo 'a source tree')."
    echo
    echo " -- orbito-hw builders <orbito-hw@users.noreply.github.com>  $(date -R -u -d "@$WHEN")"
} | gzip -9n >"$DOC/changelog.gz"
chmod 0644 "$DOC/changelog.gz"
mkdir -p "$ROOT/usr/share/man/man1"
sed "s/@VERSION@/$VERSION/" "$SRC/deb/orbito-hw.1" | gzip -9n >"$ROOT/usr/share/man/man1/orbito-hw.1.gz"
chmod 0644 "$ROOT/usr/share/man/man1/orbito-hw.1.gz"
if [[ -s $SRC/deb/lintian-overrides ]]; then  # each one argued in the file
    install -D -m 0644 "$SRC/deb/lintian-overrides" "$ROOT/usr/share/lintian/overrides/orbito-hw"
fi

echo "==> control"
mkdir -p "$ROOT/DEBIAN"
SIZE="$(du -sk --exclude=DEBIAN "$ROOT" | cut -f1)"
sed -e "s/@VERSION@/$VERSION/" -e "s/@ARCH@/$ARCH/" -e "s/@SIZE@/$SIZE/" "$SRC/deb/control" >"$ROOT/DEBIAN/control"
echo /etc/orbito-hw/config.toml >"$ROOT/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    sed "s/@VERSION@/$VERSION/" "$SRC/deb/$script" >"$ROOT/DEBIAN/$script"
    chmod 0755 "$ROOT/DEBIAN/$script"
done
(cd "$ROOT" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) >"$ROOT/DEBIAN/md5sums"
chmod 0644 "$ROOT/DEBIAN/md5sums" "$ROOT/DEBIAN/control" "$ROOT/DEBIAN/conffiles"
find "$ROOT" -type d -exec chmod 0755 {} +

dpkg-deb --root-owner-group -Zxz --build "$ROOT" "$DEB" >/dev/null
echo "==> $DEB ($(du -h "$DEB" | cut -f1), $(find "$WHEELS" -name '*.whl' | wc -l) wheels)"
