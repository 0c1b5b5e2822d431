#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# in_root.sh [-o DIR] ROOT CMD [ARG...]: run CMD in ROOT as a container runs it: a
# new mount and PID namespace (CMD is its PID 1), the namespace's own
# /proc, and ROOT as / (chroot). The source tree is
# bound read-only at /mnt/probekit, so that the fixtures' scripts are at
# /mnt/probekit/tests/fixtures/... inside. With -o DIR, DIR (a directory
# of the host) is bound read-write at /mnt/out: where a build in the root
# writes what the host takes (the Go fixtures, tests/go.mk). Nothing is
# left mounted after:
# the mounts are the namespace's own. CMD's exit status is this script's.
set -euo pipefail
out=
if [ "${1:-}" = -o ]; then
	out=$(cd "${2:?usage: in_root.sh [-o DIR] ROOT CMD [ARG...]}" && pwd)
	shift 2
fi
root=${1:?usage: in_root.sh [-o DIR] ROOT CMD [ARG...]}
shift
[ $# -gt 0 ] || { echo "usage: in_root.sh [-o DIR] ROOT CMD [ARG...]" >&2; exit 2; }
[ -f "$root/.probekit-root" ] || {
	echo "in_root.sh: $root is not a test root (make test-deps makes them)" >&2; exit 2; }
src=$(cd "$(dirname "$0")/../.." && pwd)

exec unshare --mount --pid --fork --propagation private -- /bin/sh -c '
	root=$1 src=$2 out=$3; shift 3
	mount -t proc proc "$root/proc" &&
	mount --bind -o ro "$src" "$root/mnt/probekit" &&
	if [ -n "$out" ]; then
		mkdir -p "$root/mnt/out" && mount --bind "$out" "$root/mnt/out"
	fi &&
	exec chroot "$root" "$@"' in_root "$root" "$src" "$out" "$@"
