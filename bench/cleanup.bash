# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the benches (not a bench itself: `make bench` runs bench/*.sh
# only): their one way out, however they end. A bench sets LOAD, PIN and tmp
# before it sources this, keeps every background process it starts in pids,
# and bpf_events.bash's stats_hold sets stats_pid. On exit the processes are
# killed and reaped, the session pinned at $PIN unloaded, the statistics
# holder ended and $tmp removed: nothing of a bench outlives it.
pids=()
stats_pid=

# stop_all: kill and reap every process in pids
stop_all() {
	local p
	[ "${#pids[@]}" = 0 ] || kill -KILL "${pids[@]}" 2>/dev/null || true
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	pids=()
}

# forget PID: it has been waited for, and is no longer to be killed
forget() {
	local p keep=()
	for p in "${pids[@]}"; do
		[ "$p" = "$1" ] || keep+=("$p")
	done
	pids=("${keep[@]}")
}

bench_cleanup() {
	stop_all
	"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true
	rm -f "$PIN"-prog-*	# keep_progs's (bpf_events.bash)
	if [ -n "$stats_pid" ]; then
		kill "$stats_pid" 2>/dev/null || true
		wait "$stats_pid" 2>/dev/null || true
	fi
	rm -rf "$tmp"
}
trap bench_cleanup EXIT
trap 'exit 130' INT TERM HUP
