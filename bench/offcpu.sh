#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What off-CPU profiling (probe-load -e off-cpu, system-wide) adds to each
# context switch, against `perf bench sched pipe -l $LOOPS` without it in
# the same run: two processes ping-ponging through pipes, both on CPU
# $BENCH_CPU (taskset), so that each message is one switch from one to the
# other and back. Unpinned, the pair lands on one CPU or on two from run to
# run, and across CPUs every message waits for an idle CPU to wake (10x
# slower on a VM): a bimodal time no ratio can be taken of. Medians of
# $RUNS runs; never a timed assertion. Each run measures the bench without profiling, then with each
# configuration of $CONFIGS, in turn:
#   hook   --unwind fp --min-block 1000000: no block of the bench is sent,
#          but every one is still unwound when its thread switches out (how
#          long it will sleep is not known then): the hook as it stands,
#          without the ring buffer and the reader;
#   fp     every block of 1 us or more sampled, user stacks by frame pointers;
#   dwarf  the same with DWARF unwinding (probe-load's default).
# probe-read drains the ring buffer meanwhile, as it would in use (its CPU
# time during the bench is reported: on a 2-CPU machine it competes with
# the bench). For each configuration:
#   - usecs/op and its ratio to the unprofiled run of the same run;
#   - BPF ns per context switch: run_time_ns / run_cnt of the event's
#     prog_ids[0] (kernel.bpf_stats_enabled), which runs at every switch on
#     the machine; and prog_ids[1]'s per run when the session has one;
#   - switches per op (that program's run count over $LOOPS) and the wall
#     time added per switch: (usecs/op - unprofiled usecs/op) / switches per
#     op, which holds the BPF time and whatever else profiling costs (cache,
#     the reader);
#   - samples, short blocks and lost samples per op (event_counts).
# Needs root, perf (linux-perf) and bpftool. Pins under $PIN.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
LOOPS=${LOOPS:-200000}
CONFIGS=${CONFIGS:-"hook fp dwarf"}
BENCH_CPU=${BENCH_CPU:-$(($(nproc) - 1))}
PIN=${PIN:-/sys/fs/bpf/probekit-bench-offcpu}
LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bpf_events.bash
. "$here/bpf_events.bash"

tmp=$(mktemp -d /tmp/probekit-bench-offcpu.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache	# neither use nor fill the system's
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

die() { echo "bench/offcpu.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
command -v perf >/dev/null || die "needs perf (linux-perf)"
command -v bpftool >/dev/null || die "needs bpftool"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ"
stats_hold "$tmp/stats" || die "cannot keep BPF run-time statistics on"
"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true

# usecs/op of one perf bench sched pipe
pipe_bench() {
	taskset -c "$BENCH_CPU" perf bench sched pipe -l "$LOOPS" | awk '$2 == "usecs/op" { print $1 }'
}

config_args() {
	case $1 in
	hook) echo "--unwind fp --min-block 1000000" ;;
	fp) echo "--unwind fp" ;;
	dwarf) echo "--unwind dwarf" ;;
	*) die "unknown configuration '$1' (CONFIGS: hook fp dwarf)" ;;
	esac
}

# profiled CONFIG BASE_US: one row of figures (see the table below)
profiled() {
	local idx p0 p1 t0 n0 u0 m0 t1 n1 u1 m1 c0 c1 us rcpu0 rcpu1
	# shellcheck disable=SC2046
	"$LOAD" --pin-dir "$PIN" -e off-cpu $(config_args "$1") 2>"$tmp/load.err" ||
		die "probe-load -e off-cpu $(config_args "$1"): $(cat "$tmp/load.err")"
	read -r idx p0 p1 _ < <(event_progs "$PIN" off-cpu) || die "no off-cpu in event_list"
	[ "${p0:-0}" != 0 ] || die "the off-cpu event names no program"
	"$READ" --pin-dir "$PIN" -o "$tmp/out.folded" 2>"$tmp/read.err" &
	reader=$!
	pids+=("$reader")
	sleep 1		# the reader's start-up is not the bench's
	rcpu0=$(proc_cpu_ms "$reader")
	c0=$(event_counts "$PIN" "$idx")
	read -r t0 n0 < <(prog_stats "$p0")
	read -r u0 m0 < <(prog_stats "${p1:-0}")
	us=$(pipe_bench)
	read -r t1 n1 < <(prog_stats "$p0")
	read -r u1 m1 < <(prog_stats "${p1:-0}")
	c1=$(event_counts "$PIN" "$idx")
	rcpu1=$(proc_cpu_ms "$reader")
	kill -INT "$reader"
	wait "$reader" || die "probe-read: $(cat "$tmp/read.err")"
	forget "$reader"
	"$LOAD" --unload --pin-dir "$PIN"
	perl -e '
		my ($cfg, $base, $us, $loops, $t, $n, $u, $m, $rcpu, $c0, $c1) = @ARGV;
		my @a = split " ", $c0; my @b = split " ", $c1;
		my @d = map { ($b[$_] - $a[$_]) / $loops } 0..4;
		my $spo = $n / $loops;
		printf "%s %.3f %.4f %.1f %s %.2f %.1f %.3f %.3f %.4f %.0f\n", $cfg, $us,
			$us / $base, $n ? $t / $n : 0, $m ? sprintf("%.0f", $u / $m) : "-",
			$spo, $spo ? ($us - $base) * 1000 / $spo : 0,
			$d[1], $d[3], $d[4], $rcpu;
	' "$1" "$2" "$us" "$LOOPS" "$((t1 - t0))" "$((n1 - n0))" "$((u1 - u0))" \
		"$((m1 - m0))" "$((rcpu1 - rcpu0))" "$c0" "$c1"
}

for _ in $(seq "$RUNS"); do
	base=$(pipe_bench)
	[ -n "$base" ] || die "perf bench sched pipe printed no usecs/op"
	printf "base %.3f 1 0 - 0 0 0 0 0 0\n" "$base" >> "$tmp/rows"
	for cfg in $CONFIGS; do
		profiled "$cfg" "$base" >> "$tmp/rows"
	done
done

printf "\n### off-cpu: cost per context switch (perf bench sched pipe -l %s on CPU %s, off-cpu system-wide, median of %d runs)\n\n" \
	"$LOOPS" "$BENCH_CPU" "$RUNS"
echo "| configuration | usecs/op | ratio to unprofiled | BPF ns per switch | BPF ns per run of prog_ids[1] | switches per op | wall ns added per switch | samples per op | short blocks per op | lost per op | probe-read CPU ms |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for cfg in base $CONFIGS; do
	row="| $( [ "$cfg" = base ] && echo unprofiled || echo "$cfg" ) |"
	for col in $(seq 2 11); do
		v=$(awk -v c="$cfg" -v k="$col" '$1 == c { print $k }' "$tmp/rows" |
			{ if [ "$col" = 5 ]; then grep -v '^-$' || true; else cat; fi } | median)
		[ "$cfg" != base ] || [ "$col" -le 2 ] || v=-
		[ "$v" != nan ] || v=-
		row="$row $v |"
	done
	echo "$row"
done
