#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# In-kernel aggregation against the ring buffer (issue 20, as the Pixie
# post weighs them), in the same run: medians of $RUNS runs, never a timed
# assertion.
#
# System-wide sessions of $SECONDS_RUN s at $FREQ Hz, --unwind dwarf, while
# bench/deep.c keeps every CPU busy sorting (deep-nofp 1 ... sort: libc's
# qsort() under a comparator, built without frame pointers, one process per
# CPU), whole stacks. Per run, the two modes one after the other (their
# order alternating from run to run): probe-load [--aggregate], probe-read
# -d SECONDS -o FILE, probe-load --unload. probe-load's and probe-read's
# user+sys from wait4 (bench/cpurun); the BPF programs' run time from the
# kernel's run-time statistics (BPF_ENABLE_STATS) during probe-read's run,
# over all of the session's programs, and the cpu-clock program's per run
# (per sample: every run samples). The table and symbol caches are warmed
# by one unmeasured session first, as overhead.sh does.
#
# Quick check: SECONDS_RUN=10 RUNS=1. Needs root and bpftool.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
FREQ=${FREQ:-99}
SECONDS_RUN=${SECONDS_RUN:-30}
BENCH_RAW=${BENCH_RAW:-}	# a directory to keep the per-run numbers in
NCPU=$(nproc)
export RUNS FREQ NCPU SECONDS_RUN

BENCH=aggregate
# shellcheck source=bench/deep_session.bash
. "$(dirname "$0")/deep_session.bash"

# user+sys of bench/cpurun's FILE, ms
cpu_ms() {
	awk '{ printf "%.3f\n", $2 + $3 }' "$1"
}

# one_session MODE: "LOAD_MS READ_MS BPF_NS PERF_EVENT_NS PERF_EVENT_RUNS
# SAMPLES COUNTED WHOLE" of a system-wide session, MODE ring or aggregate
# (COUNTED: the samples the kernel counted rather than sent; WHOLE: the
# share of deep-nofp's samples whose stack reaches main).
one_session() {
	local mode=$1 args=() ids ps ns0 ns1 pns0 pns1 pc0 pc1 lm um samples counted whole
	[ "$mode" = ring ] || args=(--aggregate)
	"$CPURUN" -t "$tmp/load.time" "$LOAD" --pin-dir "$PIN" -F "$FREQ" "${args[@]}" \
		2>"$tmp/load.err" || { cat "$tmp/load.err" >&2; die "probe-load failed"; }
	ids=$(prog_ids)
	ps=$(prog_ids 'e0-cpu*')
	read -r ns0 _ <<< "$(prog_stats $ids)"
	read -r pns0 pc0 <<< "$(prog_stats $ps)"
	"$CPURUN" -t "$tmp/read.time" "$READ" --pin-dir "$PIN" -d "$SECONDS_RUN" \
		-o "$tmp/$mode.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	read -r ns1 _ <<< "$(prog_stats $ids)"
	read -r pns1 pc1 <<< "$(prog_stats $ps)"
	"$CPURUN" -t "$tmp/unload.time" "$LOAD" --unload --pin-dir "$PIN" ||
		die "probe-load --unload failed"
	samples=$(sed -n 's/^probe-read: \([0-9]*\) samples read.*/\1/p' "$tmp/read.err")
	[ -n "$samples" ] && [ "$samples" -gt 0 ] ||
		{ cat "$tmp/read.err" >&2; die "no \"N samples read\" line from probe-read"; }
	counted=$(sed -n 's/^probe-read: \([0-9]*\) of them counted in the kernel.*/\1/p' \
		"$tmp/read.err")
	lm=$(cpu_ms "$tmp/load.time")
	um=$(cpu_ms "$tmp/unload.time")
	read -r _ _ whole <<< "$(folded_stats "$tmp/$mode.folded" deep-nofp)"
	echo "$(awk -v a="$lm" -v b="$um" 'BEGIN { print a + b }') $(cpu_ms "$tmp/read.time")" \
		"$((ns1 - ns0)) $((pns1 - pns0)) $((pc1 - pc0)) $samples ${counted:-0} $whole"
}

echo "bench/aggregate.sh: system-wide at $FREQ Hz, $RUNS runs of $SECONDS_RUN s, ring buffer and --aggregate" >&2
# The workload outlives every run; its own deadline ends it should this
# script be killed without its trap.
"$DEEP" 1 $((RUNS * 2 * (SECONDS_RUN + 30) + 600)) "$NCPU" sort &
pids+=($!)
# warm the caches: an unmeasured session's load builds the unwind tables,
# its reader keeps the symbolized addresses
"$LOAD" --pin-dir "$PIN" -F "$FREQ" 2>"$tmp/load.err" ||
	{ cat "$tmp/load.err" >&2; die "probe-load failed"; }
"$READ" --pin-dir "$PIN" -d 10 -o "$tmp/warm.folded" 2>"$tmp/read.err" ||
	{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
"$LOAD" --unload --pin-dir "$PIN"
: > "$tmp/runs"
for ((i = 0; i < RUNS; i++)); do
	order="ring aggregate"
	[ $((i % 2)) = 0 ] || order="aggregate ring"
	for mode in $order; do
		echo "bench/aggregate.sh: run $((i + 1))/$RUNS: $mode" >&2
		echo "$mode $(one_session "$mode")" >> "$tmp/runs"
	done
done
stop_all
[ -z "$BENCH_RAW" ] || { mkdir -p "$BENCH_RAW" && cp "$tmp/runs" "$BENCH_RAW/aggregate"; }

perl -e '
	use strict; use warnings;
	sub median { my @v = sort { $a <=> $b } @_; $v[$#v / 2] }
	open my $fh, "<", $ARGV[0] or die "$ARGV[0]: $!";
	# mode load_ms read_ms bpf_ns pe_ns pe_runs samples counted whole
	my %by; for (grep { /\S/ } <$fh>) { my @f = split; push @{$by{$f[0]}}, \@f }
	my ($ncpu, $secs) = ($ENV{NCPU}, $ENV{SECONDS_RUN});
	sub col { my ($r, $f) = @_; median(map { $f->(@$_) } @$r) }
	printf "\n### Ring buffer against --aggregate, system-wide, %s Hz, %d s, %d CPUs busy (deep-nofp sorting, no frame pointers), median of %d runs; kernel %s\n\n",
		$ENV{FREQ}, $secs, $ncpu, $ENV{RUNS}, `uname -r` =~ s/\n//r;
	print "| mode | probe-load | probe-read | BPF programs | BPF per sample | share of the machine | samples | counted in the kernel | whole stacks |\n";
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	for my $mode (qw(ring aggregate)) {
		my $r = $by{$mode} or next;
		printf "| %s | %.0f ms | %.0f ms | %.0f ms | %.2f us | %.3f %% | %d | %.1f %% | %.0f %% |\n",
			$mode eq "ring" ? "ring buffer" : "--aggregate",
			col($r, sub { $_[1] }), col($r, sub { $_[2] }), col($r, sub { $_[3] / 1e6 }),
			col($r, sub { $_[5] ? $_[4] / $_[5] / 1e3 : 0 }),
			100 * col($r, sub { ($_[1] + $_[2] + $_[3] / 1e6) / ($ncpu * $secs * 1e3) }),
			col($r, sub { $_[6] }), 100 * col($r, sub { $_[6] ? $_[7] / $_[6] : 0 }),
			100 * col($r, sub { $_[8] });
	}
	print "\nCPU: user+sys from wait4 (probe-load: its load and its --unload); BPF programs: run_time_ns of all of the session\x27s programs during probe-read\x27s run; ",
		"BPF per sample: the cpu-clock program\x27s run time per run. Share: (probe-load + probe-read + BPF) / (CPUs x seconds).\n";
' "$tmp/runs"
