#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What Java frames cost (issue 33), against a native stack of the same
# depth taken in the same run (bench/runtime_bench.bash): medians of $RUNS
# runs, never a timed assertion.
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
DEPTHS=${DEPTHS:-"20 100"}
PIN=${PIN:-/sys/fs/bpf/probekit-bench-java}
JAVA=${JAVA:-/usr/lib/jvm/java-17-openjdk-amd64/bin/java}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/runtime_bench.bash
. "$here/runtime_bench.bash"

bench_begin java "${BUILD:-build}/bench/deep-nofp" "${BUILD:-build}/fixtures_java/Deep.class"
[ -x "$JAVA" ] || die "needs $JAVA"
RT_COMM=java
RT_DEEP='^Deep\.rec( |$)'
rt_cmd() { cmd=("$JAVA" -Xint -cp "$BUILD/fixtures_java" Deep "$1" "$2"); }

echo "bench/java.sh: $JAVA -Xint and bench/deep.c, depths $DEPTHS, $RUNS runs of" \
	"$BPF_SECONDS s of CPU each" >&2
deep_compare java
