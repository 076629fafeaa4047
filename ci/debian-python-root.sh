#!/usr/bin/env bash
# Build a Debian unstable (sid) root filesystem with Debian's own CPython (default 3.14), for
# running the test suite under a Python the host does not have.
#
#   sudo ci/debian-python-root.sh [ROOT] [PYTHON]
#     ROOT    default $HOME/.cache/dpverify/debian-sid
#     PYTHON  default python3.14
#     MIRROR  (environment) overrides the Debian mirror found in the host's apt sources
#
# Idempotent: debootstrap runs only while $ROOT/usr/bin/$PYTHON is missing (remove a root that
# a failed run left half-built). Nothing stays mounted afterwards. To run a command inside, use
# ci/in-debian-root.sh ROOT DIR -- CMD... (binds DIR at /src, mounts /proc and /dev, always
# unmounts), or by hand:
#   mount -t proc proc "$ROOT/proc"; chroot "$ROOT" /bin/bash -c '...'; umount "$ROOT/proc"
set -euo pipefail

ROOT=${1:-${ROOT:-$HOME/.cache/dpverify/debian-sid}}
PYTHON=${2:-${PYTHON:-python3.14}}

if ! command -v debootstrap >/dev/null; then
    apt-get update -q
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q debootstrap
fi

# The Debian archive the host's apt already uses (one-line "deb URI ..." or deb822 "URIs:"),
# skipping security and third-party repositories: only a path ending in /debian serves sid.
find_mirror() {
    local files=(/etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources)
    # -s: silence the globs that matched nothing; "|| true": no match is not an error.
    { grep -hsE '^[[:space:]]*(deb[[:space:]]|URIs:)' "${files[@]}" || true; } |
        sed -E 's/\[[^]]*\]//; s/^[[:space:]]*(deb|URIs:)[[:space:]]+//' |
        tr -s '[:blank:]' '\n' | grep -E '^https?://.*/debian/?$' | head -n1
}
MIRROR=${MIRROR:-$(find_mirror)}
MIRROR=${MIRROR:-http://deb.debian.org/debian}

if [[ ! -x "$ROOT/usr/bin/$PYTHON" ]]; then
    # libgmp/mpfr/mpc: gmpy2 may have no wheel for a new Python and build from source.
    packages="$PYTHON,$PYTHON-venv,$PYTHON-dev,build-essential,ca-certificates"
    packages+=",libgmp-dev,libmpfr-dev,libmpc-dev,git"
    mkdir -p "$ROOT"
    echo "debootstrap sid from $MIRROR into $ROOT" >&2
    debootstrap --variant=minbase --include="$packages" sid "$ROOT" "$MIRROR"
    chroot "$ROOT" apt-get clean  # the downloaded .debs: about 160 MB
fi

# Name resolution inside the chroot (pip); --remove-destination in case it is a dangling link.
cp -L --remove-destination /etc/resolv.conf "$ROOT/etc/resolv.conf"
# The host's locally added CAs (a TLS-intercepting proxy's, say), so that pip inside trusts
# what the host trusts.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
    cp /usr/local/share/ca-certificates/*.crt "$ROOT/usr/local/share/ca-certificates/"
    chroot "$ROOT" update-ca-certificates >/dev/null 2>&1  # its status still counts
fi

chroot "$ROOT" "/usr/bin/$PYTHON" --version
