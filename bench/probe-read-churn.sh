#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# probe-read's memory while processes come and go: a reader left running
# with --interval on a machine that starts short-lived processes all day
# (a build server, cron, CGI) must hold what an interval holds, not every
# process it ever saw. Never a timed assertion.
#
# The workload ($WORKLOAD): short processes, one after the other, each
# burning ~10 ms of CPU (so that each is sampled), for $SECONDS_RUN s:
#   perl     the same program each time (a CGI server, cron);
#   builds   each a program never seen before: a copy of one small binary
#            with a build-id of its own, deleted after its run (a build
#            server running what it just built, a test suite).
# probe-load system-wide at $FREQ Hz, probe-read --interval $INTERVAL
# writing folded files. Per run: probe-read's RSS and open descriptors
# after $WARMUP s (the reference, measured in the same run: its libraries,
# kallsyms, the tables of the files every process maps) and at the end, the
# processes started in between, and the growth per 1000 of them. Medians
# of $RUNS runs.
# Needs root.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
FREQ=${FREQ:-999}
SECONDS_RUN=${SECONDS_RUN:-120}
WARMUP=${WARMUP:-20}
INTERVAL=${INTERVAL:-5}
READ_ARGS=${READ_ARGS:-}	# more probe-read options, e.g. --no-inline
WORKLOAD=${WORKLOAD:-perl}	# perl or builds

LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
PIN=/sys/fs/bpf/pkbench-churn-$$
tmp=$(mktemp -d /tmp/probekit-bench-churn.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

die() { echo "bench/probe-read-churn.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
[ -x "$LOAD" ] && [ -x "$READ" ] || die "build first (make BUILD=$BUILD)"

rss_kb() { awk '/^VmRSS/ { print $2 }' "/proc/$1/status"; }
fds() { ls "/proc/$1/fd" | wc -l; }

# builds: the binary every new program is a copy of, and its build-id
if [ "$WORKLOAD" = builds ]; then
	printf 'int main(void) { volatile unsigned long x = 0;\n'\
'for (unsigned long i = 0; i < 20000000; i++) x += i; return 0; }\n' > "$tmp/burn.c"
	cc -O1 -Wl,--build-id=sha1 "$tmp/burn.c" -o "$tmp/burn"
	BURN_ID=$(readelf -n "$tmp/burn" | awk '/Build ID/ { print $3 }')
	[ -n "$BURN_ID" ] || die "cc made no build-id"
	mkdir -p "$tmp/bin"
fi

# churn COUNTFILE: start processes until killed, counting them
churn() {
	local n=0 f
	while :; do
		case $WORKLOAD in
		perl) perl -e '$x = 0; $x += $_ for 1 .. 200000;' ;;
		builds)
			f=$tmp/bin/burn-$n
			# the build-id's bytes replaced by a digest of N: a new program
			perl -e 'use Digest::SHA qw(sha1); local $/; open my $i, "<", $ARGV[0] or die;
				my $b = <$i>; my $id = pack "H*", $ARGV[2]; my $at = index $b, $id;
				die "no build-id\n" if $at < 0;
				substr($b, $at, length $id) = substr sha1("probekit $ARGV[3]"), 0, length $id;
				open my $o, ">", $ARGV[1] or die; print $o $b; close $o or die;
				chmod 0755, $ARGV[1]' "$tmp/burn" "$f" "$BURN_ID" "$n"
			"$f"
			rm -f "$f" ;;
		*) die "WORKLOAD: perl or builds" ;;
		esac
		n=$((n + 1))
		echo "$n" >"$1"
	done
}

# count COUNTFILE: churn's count; read again when caught between churn's
# truncation of the file and its write
count() {
	local n
	while n=$(cat "$1"); [ -z "$n" ]; do
		sleep 0.01
	done
	echo "$n"
}

median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

: >"$tmp/runs"
for run in $(seq "$RUNS"); do
	mkdir -p "$tmp/out"
	"$LOAD" --pin-dir "$PIN" -F "$FREQ" >/dev/null
	# shellcheck disable=SC2086
	"$READ" --pin-dir "$PIN" --interval "$INTERVAL" -o "$tmp/out/cpu-%H%M%S.folded" \
		-d "$SECONDS_RUN" $READ_ARGS 2>"$tmp/read.err" &
	reader=$!
	pids+=("$reader")
	echo 0 >"$tmp/count"
	churn "$tmp/count" &
	churner=$!
	pids+=("$churner")
	sleep "$WARMUP"
	rss0=$(rss_kb "$reader"); fd0=$(fds "$reader"); n0=$(count "$tmp/count")
	sleep $((SECONDS_RUN - WARMUP - 2))
	rss1=$(rss_kb "$reader"); fd1=$(fds "$reader"); n1=$(count "$tmp/count")
	kill -KILL "$churner"; wait "$churner" 2>/dev/null || true
	forget "$churner"
	wait "$reader" || die "probe-read failed: $(tail -n 3 "$tmp/read.err")"
	forget "$reader"
	"$LOAD" --unload --pin-dir "$PIN" >/dev/null
	rm -rf "$tmp/out"
	procs=$((n1 - n0))
	[ "$procs" -gt 0 ] || die "no process started in run $run"
	echo "$rss0 $rss1 $procs $fd0 $fd1" >>"$tmp/runs"
	echo "run $run: RSS ${rss0} kB and $fd0 descriptors after ${WARMUP} s, ${rss1} kB and $fd1 at $((SECONDS_RUN - 2)) s, $procs processes in between" >&2
done

echo
echo "### probe-read --interval $INTERVAL, system-wide at $FREQ Hz, short processes ($WORKLOAD) started one after another (median of $RUNS runs)"
echo
echo "| RSS after ${WARMUP} s (kB) | RSS at $((SECONDS_RUN - 2)) s (kB) | ratio | processes in between | kB per 1000 processes | descriptors after ${WARMUP} s | at $((SECONDS_RUN - 2)) s |"
echo "|---|---|---|---|---|---|---|"
r0=$(awk '{ print $1 }' "$tmp/runs" | median)
r1=$(awk '{ print $2 }' "$tmp/runs" | median)
np=$(awk '{ print $3 }' "$tmp/runs" | median)
per=$(awk '{ printf "%.1f\n", ($2 - $1) * 1000 / $3 }' "$tmp/runs" | median)
f0=$(awk '{ print $4 }' "$tmp/runs" | median)
f1=$(awk '{ print $5 }' "$tmp/runs" | median)
echo "| $r0 | $r1 | $(awk -v a="$r0" -v b="$r1" 'BEGIN { printf "%.3f", b / a }') | $np | $per | $f0 | $f1 |"
