#!/usr/bin/env bash
# orbito-hw's apt repository: a flat layout in REPODIR (the packages, Packages, Release, and
# Release signed twice: InRelease, Release.gpg) that a builder adds once, so that apt upgrade
# (and unattended-upgrades) bring each new version. Packages already in REPODIR stay: apt
# picks the newest. The public key goes beside them as orbito-hw.gpg (docs/package.md says
# how a board trusts it, and how the project keeps the secret half).
#
#   ORBITO_REPO_KEY=KEYID scripts/build-repo.sh REPODIR DEB...
#
# KEYID names the signing key in gpg's keyring ($GNUPGHOME, default ~/.gnupg). Needs
# apt-ftparchive (apt-utils) and gpg (gnupg).
set -euo pipefail

die() {
    echo "build-repo.sh: $1" >&2
    exit "${2:-1}"
}

(($# >= 2)) || die "usage: ORBITO_REPO_KEY=KEYID scripts/build-repo.sh REPODIR DEB..." 2
REPO="$1"
shift
KEY="${ORBITO_REPO_KEY:-}"
[[ -n $KEY ]] || die "ORBITO_REPO_KEY is not set: the id of the key that signs the repository" 2
command -v apt-ftparchive >/dev/null || die "apt-ftparchive is missing: apt-get install apt-utils"
command -v gpg >/dev/null || die "gpg is missing: apt-get install gnupg"
gpg --batch --list-secret-keys "$KEY" >/dev/null 2>&1 || die "no secret key '$KEY' in gpg's keyring"
for deb in "$@"; do
    [[ -f $deb && $deb == *.deb ]] || die "not a package: $deb"
done

mkdir -p "$REPO"
cp "$@" "$REPO/"
cd "$REPO"
apt-ftparchive packages . >Packages
gzip -9nkf Packages
# Release is written aside first: apt-ftparchive would list a half-written Release in itself.
RELEASE="$(mktemp)"
apt-ftparchive \
    -o APT::FTPArchive::Release::Origin=orbito-hw \
    -o APT::FTPArchive::Release::Label=orbito-hw \
    -o APT::FTPArchive::Release::Suite=stable \
    -o APT::FTPArchive::Release::Codename=orbito-hw \
    -o APT::FTPArchive::Release::Architectures="amd64 arm64" \
    release . >"$RELEASE"
mv "$RELEASE" Release
chmod 0644 Release
rm -f InRelease Release.gpg
gpg --batch --yes --local-user "$KEY" --clearsign --output InRelease Release
gpg --batch --yes --local-user "$KEY" --armor --detach-sign --output Release.gpg Release
gpg --batch --yes --export "$KEY" >orbito-hw.gpg
echo "==> $REPO: $(find . -maxdepth 1 -name '*.deb' | wc -l) packages, signed by $KEY"
