#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What Java frames cost (issue 33), against a native stack of the same
# depth taken in the same run; medians of $RUNS runs, never a timed
# assertion.
#
# The workloads, pinned to the one CPU sampled (-C), each $DEPTHS frames
# deep and spinning at its leaf for $BPF_SECONDS of CPU:
#   - java: Deep (tests/fixtures/java/Deep.java) under Debian's JDK 17 with
#     -Xint: DEPTH interpreted frames of Deep.rec, each stepped over by the
#     Java walk (bpf/hotspot_walk.bpf.h), then the JVM's native frames;
#   - native: bench/deep.c (-fomit-frame-pointer, bench/dwarf.mk): DEPTH
#     frames of rec() by the DWARF walk, the reference.
# Per depth and run:
#   - BPF ns per sample: run_time_ns / run_cnt of pk_perf_event past the
#     target filter (bpf_stats, as bench/python.sh), and per frame;
#   - probe-read's CPU (user+sys, bench/cpurun) per sample: the naming of
#     Java frames (their methods, lines) against native ones.
# Needs root and JDK 17 ($JAVA).
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
FREQ=${FREQ:-99}
DEPTHS=${DEPTHS:-"20 100"}
BPF_SECONDS=${BPF_SECONDS:-4}	# of the workload's CPU per session
NCPU=$(nproc)
BENCH_CPU=${BENCH_CPU:-$((NCPU - 1))}
PIN=${PIN:-/sys/fs/bpf/probekit-bench-java}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}

LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
CPURUN=$BUILD/bench/cpurun
DEEP=$BUILD/bench/deep-nofp
CLASSES=$BUILD/fixtures_java
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/probekit-bench-java.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache
# shellcheck source=bench/bpf_events.bash
. "$here/bpf_events.bash"
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

die() { echo "bench/java.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
[ -x "$JAVA" ] || die "needs $JAVA"
command -v bpftool >/dev/null || die "needs bpftool"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$CPURUN" "$DEEP" \
	"$CLASSES/Deep.class"
stats_hold "$tmp/stats" || die "cannot keep BPF run-time statistics on"
"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true

# frames FOLDED COMM: "SAMPLES DEEP_FRAMES USER_FRAMES" per sample of COMM's
# stacks that hold the recursion (Deep.rec or rec); kernel frames (_[k])
# are not counted.
frames() {
	awk -v comm="$2" '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		if (f[1] != comm) next
		d = 0; u = 0
		for (i = 2; i <= k; i++) {
			if (f[i] ~ /_\[k\]$/) continue
			u++
			if (f[i] == "Deep.rec" || f[i] == "rec") d++
		}
		if (!d) next
		s += n; df += n * d; uf += n * u }
		END { if (s) printf "%d %.1f %.1f\n", s, df / s, uf / s; else print "0 0 0" }' "$1"
}

# one MODE DEPTH: MODE "java" or "native"; prints "NS_PER_SAMPLE SAMPLES
# DEEP_FRAMES USER_FRAMES READ_US_PER_SAMPLE".
one() {
	local mode=$1 depth=$2 ns samples df uf comm=deep-nofp
	local cmd=("$DEEP" "$depth" "$BPF_SECONDS") rd=(-o "$tmp/deep.folded")
	if [ "$mode" = java ]; then
		cmd=("$JAVA" -Xint -cp "$CLASSES" Deep "$depth" "$BPF_SECONDS")
		comm=java
	fi
	ns=$(session_ns "$mode, depth $depth" "${#rd[@]}" "${rd[@]}" -F "$FREQ" \
		-C "$BENCH_CPU" -- taskset -c "$BENCH_CPU" "${cmd[@]}")
	read -r samples df uf <<< "$(frames "$tmp/deep.folded" "$comm")"
	[ "$samples" -gt 0 ] || die "no samples of the recursion ($mode, depth $depth)"
	echo "$ns $samples $df $uf $(read_us "$samples")"
}

echo "bench/java.sh: $JAVA -Xint and bench/deep.c, depths $DEPTHS, $RUNS runs of" \
	"$BPF_SECONDS s of CPU each" >&2
one java 20 > /dev/null	# unmeasured: fills the unwind-table cache
paired_runs java java native

per() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%.0f", f ? a / f : 0 }'; }
printf '%-6s | %-19s | %-18s | %-13s | %-13s | %-14s | %-16s\n' "depth" \
	"BPF ns/sample: java" "native" "java frames" "native fr" "ns/frame: java" \
	"ns/frame: native"
for d in $DEPTHS; do
	jns=$(col "$d" 2) juf=$(col "$d" 5) nns=$(col "$d" 7) nuf=$(col "$d" 10)
	printf '%-6s | %-19s | %-18s | %-13s | %-13s | %-14s | %-16s\n' "$d" "$jns" "$nns" \
		"$(col "$d" 4) ($juf)" "$(col "$d" 9) ($nuf)" "$(per "$jns" "$juf")" \
		"$(per "$nns" "$nuf")"
done
printf '\n%-6s | %-26s | %-26s\n' "depth" "probe-read us/sample: java" "native"
for d in $DEPTHS; do
	printf '%-6s | %-26s | %-26s\n' "$d" "$(col "$d" 6)" "$(col "$d" 11)"
done
