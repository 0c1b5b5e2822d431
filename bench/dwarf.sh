#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What DWARF unwinding in BPF costs (probe-load --unwind dwarf), measured
# against references taken in the same run; medians of $RUNS runs, never a
# timed assertion (a noisy 2-CPU VM with only the cpu-clock software event).
#
#  1. BPF time per sample (kernel.bpf_stats_enabled: run_time_ns / run_cnt of
#     pk_perf_event) of --unwind dwarf against --unwind fp on the same
#     no-frame-pointer workload (bench/deep.c: a recursion $DEPTHS frames
#     deep, one process pinned to the one CPU sampled, -C), and against
#     --unwind fp on the frame-pointer build of the same code (the walk fp
#     would do if the code had frame pointers; bpf_get_stack stops at 127
#     frames). ns per user frame, and the marginal ns per frame (the slope
#     between the shallowest and the deepest stack). Target: dwarf <= 2x fp.
#  2. The whole profiler's CPU at $FREQ Hz system-wide (probe-load with no
#     -p or command, probe-read -d $SYS_SECONDS) while deep keeps every CPU
#     busy: BPF run time of all of the session's programs plus probe-read's
#     user+sys, as a share of machine time ($SYS_SECONDS x CPUs). Target:
#     <= 0.1%. --unwind fp in the same run as the reference.
#  3. perf record -a -F $FREQ --call-graph dwarf on the same workload, one
#     after the other in each run: CPU (perf record's own user+sys; perf
#     script's, which does perf's unwinding, apart), bytes written (perf.data
#     against probe-read's output plus the bytes that went through the ring
#     buffer), and the whole-stack share: the share of the workload's samples
#     whose stack reaches main or _start (perf script for perf, the folded
#     stacks for probekit).
#  4. probe-load start-up system-wide (wall time, bench/walltime), with a
#     cold cache (PROBEKIT_CACHE_DIR an empty directory) and a warm one, and
#     --unwind fp as the reference; kernel bytes per table row from
#     probe-load's "unwind tables:" line.
#
# Every table cache is a temporary directory (PROBEKIT_CACHE_DIR): the
# system's cache is neither used nor filled. Pins under $PIN. Needs root.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
FREQ=${FREQ:-99}
DEPTHS=${DEPTHS:-"10 50 250"}
BPF_SECONDS=${BPF_SECONDS:-4}	# per run and configuration, item 1
SYS_SECONDS=${SYS_SECONDS:-10}	# per run and profiler, items 2 and 3
SYS_DEPTH=${SYS_DEPTH:-50}	# the workload's depth in items 2 and 3
STEADY_AFTER=${STEADY_AFTER:-2}	# probe-read's start-up is over after this (s)
NCPU=$(nproc)
BENCH_CPU=${BENCH_CPU:-$((NCPU - 1))}	# the CPU item 1 samples
PIN=${PIN:-/sys/fs/bpf/probekit-bench}
PARTS=${PARTS:-"startup bpf sys"}	# which measurements (all by default)
BENCH_RAW=${BENCH_RAW:-}	# a directory to keep the raw per-run files in
export FREQ RUNS NCPU SYS_SECONDS SYS_DEPTH BPF_SECONDS BENCH_CPU STEADY_AFTER

LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
DEEP_NOFP=$BUILD/bench/deep-nofp
DEEP_FP=$BUILD/bench/deep-fp

tmp=$(mktemp -d /tmp/probekit-bench-dwarf.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bpf_events.bash
. "$here/bpf_events.bash"
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

die() { echo "bench/dwarf.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$BUILD/bench/walltime" \
	"$BUILD/bench/cpurun" "$BUILD/bench/rbpos" "$DEEP_NOFP" "$DEEP_FP"
"$LOAD" --help 2>&1 | grep -q -- --unwind || die "$LOAD has no --unwind"
command -v perf >/dev/null || die "needs perf (linux-perf)"
command -v bpftool >/dev/null || die "needs bpftool"
stats_hold "$tmp/stats" || die "cannot keep BPF run-time statistics on"
# A session left by an interrupted run of ours.
"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true

# The numbers of probe-load's "unwind tables:" line in FILE, "T R B X Y Z".
tables_line() {
	sed -n 's/.*unwind tables: \([0-9]*\) tables, \([0-9]*\) rows, \([0-9]*\) kernel bytes (\([0-9]*\) built, \([0-9]*\) cached, \([0-9]*\) refused).*/\1 \2 \3 \4 \5 \6/p' "$1" | tail -n 1
}

# The user-stacks summary of probe-read's stderr in FILE.
ustack_line() {
	sed -n 's/.*user stacks: //p' "$1" | tail -n 1
}

part() { [[ " $PARTS " == *" $1 "* ]]; }
: > "$tmp/startup"
: > "$tmp/bpf"
: > "$tmp/sys"
load_dwarf=- load_fp=-

# ---- 4. start-up (first: nothing of ours runs) --------------------------
if part startup; then
echo "bench/dwarf.sh: start-up, $RUNS runs" >&2
# Warm cache: one unmeasured load fills it.
"$LOAD" --pin-dir "$PIN" 2>"$tmp/prime.err" || { cat "$tmp/prime.err" >&2; die "probe-load failed"; }
"$LOAD" --unload --pin-dir "$PIN"
for ((i = 0; i < RUNS; i++)); do
	rm -rf "$tmp/cold" && mkdir "$tmp/cold"
	cold=$(PROBEKIT_CACHE_DIR=$tmp/cold "$BUILD/bench/walltime" "$LOAD" --pin-dir "$PIN" 2>"$tmp/cold.err") ||
		{ cat "$tmp/cold.err" >&2; die "probe-load (cold cache) failed"; }
	"$LOAD" --unload --pin-dir "$PIN"
	read -r ct cr cb cx cy cz <<< "$(tables_line "$tmp/cold.err")"
	[ -n "$cz" ] || { cat "$tmp/cold.err" >&2; die "no unwind tables line from probe-load"; }
	warm=$("$BUILD/bench/walltime" "$LOAD" --pin-dir "$PIN" 2>"$tmp/warm.err") ||
		{ cat "$tmp/warm.err" >&2; die "probe-load (warm cache) failed"; }
	"$LOAD" --unload --pin-dir "$PIN"
	read -r wt wr wb wx wy wz <<< "$(tables_line "$tmp/warm.err")"
	[ -n "$wz" ] || { cat "$tmp/warm.err" >&2; die "no unwind tables line from probe-load"; }
	fp=$("$BUILD/bench/walltime" "$LOAD" --pin-dir "$PIN" --unwind fp 2>"$tmp/fp.err") ||
		{ cat "$tmp/fp.err" >&2; die "probe-load --unwind fp failed"; }
	"$LOAD" --unload --pin-dir "$PIN"
	echo "$cold $warm $fp $ct $cr $cb $cx $cy $cz $wt $wr $wb $wx $wy $wz" >> "$tmp/startup"
done
rm -rf "$tmp/cold"
# Where start-up goes: the BPF_PROG_LOAD of pk_perf_event (the verifier),
# one run of each under strace -T.
prog_load_ms() {
	strace -f -T -e trace=bpf -o "$tmp/strace" "$LOAD" --pin-dir "$PIN" "$@" 2>/dev/null ||
		die "probe-load $* under strace failed"
	"$LOAD" --unload --pin-dir "$PIN"
	awk -F'<' '/BPF_PROG_LOAD.*PERF_EVENT/ { v = $NF; sub(/>.*/, "", v); if (v > m) m = v }
		END { printf "%.0f\n", m * 1e3 }' "$tmp/strace"
}
if command -v strace >/dev/null; then
	load_dwarf=$(prog_load_ms)
	load_fp=$(prog_load_ms --unwind fp)
fi
fi
export load_dwarf load_fp

# ---- 1. BPF time per sample by depth ------------------------------------
if part bpf; then
echo "bench/dwarf.sh: BPF time per sample, depths $DEPTHS, $RUNS runs" >&2
# one_bpf MODE BINARY DEPTH: a session on CPU $BENCH_CPU profiling BINARY
# pinned there; prints "NS_PER_SAMPLE RUN_CNT SAMPLES FRAMES WHOLE".
# NS_PER_SAMPLE: run time over the runs that did not stop at the target
# filter (other processes on that CPU): an upper bound, by the filtered
# runs' cost (a hash lookup) times their number over the others'.
one_bpf() {
	local mode=$1 bin=$2 depth=$3 comm=${2##*/}
	local ids
	# the command in probe-load's foreground, probe-read beside it
	load_job "$tmp/load.err" --pin-dir "$PIN" --unwind "$mode" -F "$FREQ" -C "$BENCH_CPU" -- \
		taskset -c "$BENCH_CPU" "$bin" "$depth" "$BPF_SECONDS" ||
		{ cat "$tmp/load.err" >&2; die "probe-load --unwind $mode failed"; }
	ids=$(prog_ids "e0-cpu$BENCH_CPU")
	keep_progs $ids
	"$READ" --pin-dir "$PIN" -o "$tmp/bpf.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	wait "$loader_pid" || die "$bin failed under probe-load"
	forget "$loader_pid"
	read -r ns cnt <<< "$(prog_stats $ids)"
	drop_progs
	read -r _ filtered <<< "$(counters)"
	"$LOAD" --unload --pin-dir "$PIN"
	[ "$((cnt - filtered))" -gt 0 ] || die "pk_perf_event never ran past the filter (--unwind $mode, depth $depth)"
	read -r samples frames whole <<< "$(folded_stats "$tmp/bpf.folded" "$comm")"
	echo "$((ns / (cnt - filtered))) $cnt $samples $frames $whole"
	[ "$mode" = fp ] || ustack_line "$tmp/read.err" > "$tmp/ustack-$depth"
}
for ((i = 0; i < RUNS; i++)); do
	for d in $DEPTHS; do
		a=$(one_bpf dwarf "$DEEP_NOFP" "$d")
		b=$(one_bpf fp "$DEEP_NOFP" "$d")
		c=$(one_bpf fp "$DEEP_FP" "$d")
		echo "$d $a $b $c" >> "$tmp/bpf"
	done
done
fi

# ---- 2 and 3. system-wide, probekit (dwarf, fp) and perf -----------------
if part sys; then
echo "bench/dwarf.sh: system-wide at $FREQ Hz, $RUNS runs of 3 x $SYS_SECONDS s" >&2
"$DEEP_NOFP" "$SYS_DEPTH" 100000 "$NCPU" &
pids+=($!)
sleep 0.5

# one_sys MODE: a system-wide session of $SYS_SECONDS s; prints "BPF_NS
# READ_USER_MS READ_SYS_MS RING_BYTES OUT_BYTES SAMPLES FRAMES WHOLE
# READ_AT_MS PS_NS". READ_AT_MS: probe-read's CPU time (schedstat) after
# $STEADY_AFTER s, when its start-up is over (kallsyms, the first symbol
# tables and unwind tables). PS_NS: pk_perf_event's run time per run
# (sampled or filtered: the idle task too) over probe-read's run.
one_sys() {
	local mode=$1 ids ps p0 p1 cr rp at=0
	"$LOAD" --pin-dir "$PIN" --unwind "$mode" -F "$FREQ" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load --unwind $mode failed"; }
	ids=$(prog_ids)
	ps=$(prog_ids 'e0-cpu*')
	read -r ns0 _ <<< "$(prog_stats $ids)"
	read -r psns0 pscnt0 <<< "$(prog_stats $ps)"
	read -r p0 _ <<< "$("$BUILD/bench/rbpos" "$PIN/events")"
	"$BUILD/bench/cpurun" -t "$tmp/read.time" "$READ" --pin-dir "$PIN" -d "$SYS_SECONDS" \
		-o "$tmp/sys.folded" 2>"$tmp/read.err" &
	cr=$!
	sleep "$STEADY_AFTER"
	rp=$(pgrep -P "$cr" -x probe-read || true)
	[ -z "$rp" ] || read -r at _ < "/proc/$rp/schedstat" || at=0
	wait "$cr" || { cat "$tmp/read.err" >&2; die "probe-read -d failed"; }
	[ "$at" != 0 ] || die "could not read probe-read's CPU time after $STEADY_AFTER s"
	read -r p1 _ <<< "$("$BUILD/bench/rbpos" "$PIN/events")"
	read -r ns1 _ <<< "$(prog_stats $ids)"
	read -r psns1 pscnt1 <<< "$(prog_stats $ps)"
	"$LOAD" --unload --pin-dir "$PIN"
	read -r _ ru rs < "$tmp/read.time"
	echo "$((ns1 - ns0)) $ru $rs $((p1 - p0)) $(stat -c %s "$tmp/sys.folded")" \
		"$(folded_stats "$tmp/sys.folded" deep-nofp) $(awk -v a="$at" 'BEGIN { print a / 1e6 }')" \
		"$(((psns1 - psns0) / (pscnt1 - pscnt0 > 0 ? pscnt1 - pscnt0 : 1)))"
	[ "$mode" = fp ] || ustack_line "$tmp/read.err" > "$tmp/ustack-sys"
}
# one_perf: perf record -a for $SYS_SECONDS s, then perf script; prints
# "REC_WALL_MS REC_USER_MS REC_SYS_MS SCRIPT_USER_MS SCRIPT_SYS_MS BYTES SAMPLES FRAMES WHOLE".
one_perf() {
	"$BUILD/bench/cpurun" -t "$tmp/rec.time" perf record -q -a -F "$FREQ" --call-graph dwarf \
		-o "$tmp/perf.data" -- sleep "$SYS_SECONDS" 2>"$tmp/perf.err" ||
		{ cat "$tmp/perf.err" >&2; die "perf record failed"; }
	"$BUILD/bench/cpurun" -t "$tmp/script.time" perf script -i "$tmp/perf.data" \
		-F comm,pid,ip,sym > "$tmp/perf.script" 2>/dev/null || die "perf script failed"
	read -r rw ru rs < "$tmp/rec.time"
	read -r _ su ss < "$tmp/script.time"
	echo "$rw $ru $rs $su $ss $(stat -c %s "$tmp/perf.data") $(perf_stats "$tmp/perf.script" deep-nofp)"
	rm -f "$tmp/perf.data" "$tmp/perf.script"
}
for ((i = 0; i < RUNS; i++)); do
	a=$(one_sys dwarf)
	b=$(one_sys fp)
	c=$(one_perf)
	echo "$a $b $c" >> "$tmp/sys"
done
stop_all
fi
[ -z "$BENCH_RAW" ] || { mkdir -p "$BENCH_RAW" && cp "$tmp/startup" "$tmp/bpf" "$tmp/sys" "$BENCH_RAW/"; }

# ---- the tables ------------------------------------------------------------
KERNEL=$(uname -r) USTACK_SYS=$(cat "$tmp/ustack-sys" 2>/dev/null || true) \
USTACKS=$(for d in $DEPTHS; do echo "$d: $(cat "$tmp/ustack-$d" 2>/dev/null || true)"; done) \
perl "$(dirname "$0")/dwarf-report.pl" "$tmp/bpf" "$tmp/sys" "$tmp/startup"
