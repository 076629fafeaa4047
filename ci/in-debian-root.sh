#!/usr/bin/env bash
# Run a command inside a root built by ci/debian-python-root.sh, in the host directory DIR:
#
#   sudo ci/in-debian-root.sh ROOT DIR -- CMD [ARG...]
#
# DIR is bind-mounted at /src and CMD runs there (cd /src) under chroot, with /proc and /dev
# mounted and a clean environment (pass variables with `env NAME=value CMD...`). CMD runs in a
# PID namespace of its own, so processes it leaves behind (a worker spinning with its signals
# ignored, say) are killed when it exits instead of holding the mounts busy. Everything mounted
# here is unmounted on exit, whatever happens; the exit status is CMD's.
set -euo pipefail

if [[ $# -lt 4 || $3 != -- ]]; then
    echo "usage: $0 ROOT DIR -- CMD [ARG...]" >&2
    exit 2
fi
ROOT=$(realpath "$1")
DIR=$(realpath "$2")
shift 3

mounted=()
# shellcheck disable=SC2317  # reached through the trap
cleanup() {
    local i
    # Innermost last mounted, first unmounted.
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[i]}" || umount -R -l "${mounted[i]}" || true
    done
}
trap cleanup EXIT

mkdir -p "$ROOT/src" "$ROOT/proc" "$ROOT/dev"
# rbind brings /dev/pts and /dev/shm (multiprocessing needs it); rslave keeps the recursive
# unmount below from propagating back to the host's /dev.
mount --rbind /dev "$ROOT/dev"; mounted+=("$ROOT/dev")
mount --make-rslave "$ROOT/dev"
mount --bind "$DIR" "$ROOT/src"; mounted+=("$ROOT/src")

# --mount-proc mounts the namespace's own /proc at $ROOT/proc, in a private mount namespace
# that (with that mount) ends with CMD; the sh left as its PID 1 reaps what gets orphaned.
status=0
env -i HOME=/root LANG=C.UTF-8 TERM="${TERM:-dumb}" \
    PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    unshare --pid --fork --mount-proc="$ROOT/proc" \
    chroot "$ROOT" /bin/sh -c 'cd /src && "$@"' sh "$@" || status=$?
exit "$status"
