#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#
# make check on a busy machine (tests/busy/README.md): RUNS times in a
# row, a clean clone of COMMIT runs `CI=true make check` while a CPU
# burner takes one core and a second clean clone's `make check` runs
# beside it. One line per run and per check; exit 0 only when every run of
# the first clone passed (the second's outcome is printed, not judged: it
# is the load).
#
#   tests/busy/check_busy.sh [RUNS] [COMMIT]      (default 3 HEAD)
#
# The clones and logs go under $BUSY_DIR (default /var/tmp/probekit-busy),
# kept after the run for reading.
set -uo pipefail

runs=${1:-3}
src=$(git -C "$(dirname "$0")/../.." rev-parse --show-toplevel) || exit 2
commit=$(git -C "$src" rev-parse "${2:-HEAD}") || exit 2
dir=${BUSY_DIR:-/var/tmp/probekit-busy}
mkdir -p "$dir" || exit 2

clone() {
	rm -rf "$dir/$1"
	git clone -q --no-hardlinks "$src" "$dir/$1" && git -C "$dir/$1" checkout -q "$commit"
}

burner=
stop_burner() {
	[ -n "$burner" ] && kill "$burner" 2>/dev/null && wait "$burner" 2>/dev/null
	burner=
}
trap stop_burner EXIT

failed=0
for run in $(seq "$runs"); do
	clone a || exit 2
	clone b || exit 2
	( while :; do :; done ) &
	burner=$!
	start=$(date +%s)
	(cd "$dir/b" && CI=true make check > "$dir/run$run-b.log" 2>&1; echo $? > "$dir/run$run-b.rc") &
	beside=$!
	(cd "$dir/a" && CI=true make check > "$dir/run$run-a.log" 2>&1)
	rc=$?
	end=$(date +%s)
	wait "$beside"
	stop_burner
	summary() { grep -E '^[0-9]+%: Checks' "$1" | tail -1; }
	printf 'run %d: make check exit %d in %d s: %s\n' "$run" "$rc" $((end - start)) \
		"$(summary "$dir/run$run-a.log")"
	printf 'run %d: beside it: exit %s in %d s: %s\n' "$run" "$(cat "$dir/run$run-b.rc")" \
		$(($(date +%s) - start)) "$(summary "$dir/run$run-b.log")"
	[ "$rc" -eq 0 ] || failed=1
done
exit "$failed"
