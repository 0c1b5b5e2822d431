#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What always-on profiling costs the machine (issue 20): probekit against
# perf on the same workload in the same run; medians of $RUNS runs, never a
# timed assertion.
#
#  1. System-wide sessions of $SECONDS_SHORT and $SECONDS_LONG s at $FREQ Hz
#     while bench/deep.c keeps every CPU busy sorting (deep-nofp 1 ... sort:
#     libc's qsort() under a comparator, built without frame pointers, one
#     process per CPU). Per run and length, one after the other:
#       - probekit: probe-load (system-wide, --unwind dwarf; the table and
#         symbol caches warmed by one unmeasured 10 s session before the
#         runs, as a restarted always-on profiler finds them), probe-read
#         -d SECONDS -o FILE, then
#         probe-load --unload. probe-load's and probe-read's user+sys from
#         wait4 (bench/cpurun); the BPF programs' run time from the
#         kernel's run-time statistics (BPF_ENABLE_STATS), over all of the
#         session's programs during probe-read's run;
#       - perf record -a -F $FREQ --call-graph dwarf -- sleep SECONDS, then
#         perf script (which does perf's unwinding) > /dev/null, both
#         timed the same way. perf's stack copies in the sampled tasks'
#         interrupts are charged to those tasks and not counted.
#     The share of the machine: CPU / (CPUs x SECONDS).
#  2. Always on ($WINDOWS windows of $SECONDS_SHORT s, PARTS "steady"):
#     one system-wide probe-load, then one probe-read --interval
#     $SECONDS_SHORT writing a profile per window, as a continuous profiler
#     runs: start-up paid once. Per window, probe-read's CPU
#     (/proc/PID/schedstat, read at each window's end) and the BPF
#     programs' run time; the first window (with probe-read's start-up)
#     apart from the median of the others. probe-load's CPU is paid once.
#  3. BPF time per sample at $DEPTHS user frames: bench/deep.c without frame
#     pointers (DEPTH - 4 frames of rec(), then main and libc's start), one
#     process per CPU, under probe-load -F $FREQ -- deep-nofp (so filtered
#     to it) for $BPF_SECONDS s; run_time_ns over the samples of the
#     cpu-clock program, less its filtered runs (other processes on the
#     CPUs) at the cost of a filtered run measured in the same run (a
#     session whose one target sleeps). The references, in the same runs,
#     each at $FREQ Hz on every CPU over the same workload at 15 frames
#     (bench/floor.bpf.c): an empty perf_event program, what any program
#     costs here before doing anything; one copy of the KiB of stack at the
#     user SP and one 15-word ring-buffer record, the least any walk
#     touches; and the kernel's own frame-pointer walk (bpf_get_stack) over
#     deep-fp, the same code built with frame pointers.
#
# Quick check: SECONDS_SHORT=5 SECONDS_LONG=10 RUNS=1 BPF_SECONDS=5. Every
# table cache is a temporary directory (PROBEKIT_CACHE_DIR). Needs root,
# perf and bpftool.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
FREQ=${FREQ:-99}
SECONDS_SHORT=${SECONDS_SHORT:-30}
SECONDS_LONG=${SECONDS_LONG:-120}
DEPTHS=${DEPTHS:-"15 60"}	# user frames per sample, item 2
BPF_SECONDS=${BPF_SECONDS:-20}	# per run and depth, item 2
PARTS=${PARTS:-"sys steady bpf"}	# which measurements (all by default)
WINDOWS=${WINDOWS:-5}		# always-on windows of SECONDS_SHORT, item 2
BENCH_RAW=${BENCH_RAW:-}	# a directory to keep the per-run numbers in
NCPU=$(nproc)
export RUNS FREQ NCPU BPF_SECONDS SECONDS_SHORT WINDOWS

BENCH=overhead
# shellcheck source=bench/deep_session.bash
. "$(dirname "$0")/deep_session.bash"
command -v perf >/dev/null || die "needs perf (linux-perf)"
FLOOR=$BUILD/bench/floor
DEEP_FP=$BUILD/bench/deep-fp
make --no-print-directory -s BUILD="$BUILD" "$FLOOR" "$DEEP_FP"

part() { [[ " $PARTS " == *" $1 "* ]]; }
: > "$tmp/sys"
: > "$tmp/steady"
: > "$tmp/bpf"

# cpu_ms FILE: user+sys of bench/cpurun's FILE, ms
cpu_ms() {
	awk '{ printf "%.3f\n", $2 + $3 }' "$1"
}

# read_samples FILE: N of probe-read's "N samples read" line in FILE
read_samples() {
	sed -n 's/^probe-read: \([0-9]*\) samples read.*/\1/p' "$1"
}

# warm_caches: one session unmeasured, whose load builds the unwind tables
# and whose reader keeps the workload's symbolized addresses, the kernel's
# symbols and uncompressed debug files, as a profiler restarted on the
# machine finds them. Once, with the workload running.
warmed=
warm_caches() {
	[ -z "$warmed" ] || return 0
	"$LOAD" --pin-dir "$PIN" -F "$FREQ" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load failed"; }
	"$READ" --pin-dir "$PIN" -d 10 -o "$tmp/warm.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	"$LOAD" --unload --pin-dir "$PIN"
	warmed=1
}

# ---- 1. system-wide sessions ------------------------------------------------
# one_probekit SECONDS: "LOAD_MS READ_MS BPF_NS PERF_EVENT_NS PERF_EVENT_RUNS
# SAMPLES FRAMES WHOLE" of a system-wide session (LOAD_MS: probe-load and
# its --unload; FRAMES, WHOLE: the workload's user frames per sample and
# share of stacks that reach main).
one_probekit() {
	local secs=$1 ids ps ns0 ns1 pns0 pns1 pc0 pc1 lm um samples
	"$CPURUN" -t "$tmp/load.time" "$LOAD" --pin-dir "$PIN" -F "$FREQ" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load failed"; }
	ids=$(prog_ids)
	ps=$(prog_ids 'e0-cpu*')
	read -r ns0 _ <<< "$(prog_stats $ids)"
	read -r pns0 pc0 <<< "$(prog_stats $ps)"
	"$CPURUN" -t "$tmp/read.time" "$READ" --pin-dir "$PIN" -d "$secs" \
		-o "$tmp/sys.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	read -r ns1 _ <<< "$(prog_stats $ids)"
	read -r pns1 pc1 <<< "$(prog_stats $ps)"
	"$CPURUN" -t "$tmp/unload.time" "$LOAD" --unload --pin-dir "$PIN" ||
		die "probe-load --unload failed"
	samples=$(read_samples "$tmp/read.err")
	[ -n "$samples" ] && [ "$samples" -gt 0 ] ||
		{ cat "$tmp/read.err" >&2; die "no \"N samples read\" line from probe-read"; }
	lm=$(cpu_ms "$tmp/load.time")
	um=$(cpu_ms "$tmp/unload.time")
	read -r _ frames whole <<< "$(folded_stats "$tmp/sys.folded" deep-nofp)"
	echo "$(awk -v a="$lm" -v b="$um" 'BEGIN { print a + b }') $(cpu_ms "$tmp/read.time")" \
		"$((ns1 - ns0)) $((pns1 - pns0)) $((pc1 - pc0)) $samples $frames $whole"
}

# one_perf SECONDS: "RECORD_MS SCRIPT_MS SAMPLES FRAMES WHOLE"
one_perf() {
	local secs=$1
	"$CPURUN" -t "$tmp/rec.time" perf record -q -a -F "$FREQ" -e cpu-clock \
		--call-graph dwarf -o "$tmp/perf.data" -- sleep "$secs" 2>"$tmp/perf.err" ||
		{ cat "$tmp/perf.err" >&2; die "perf record failed"; }
	"$CPURUN" -t "$tmp/script.time" perf script -i "$tmp/perf.data" \
		> /dev/null 2>"$tmp/script.err" ||
		{ cat "$tmp/script.err" >&2; die "perf script failed"; }
	perf script -i "$tmp/perf.data" -F comm,pid,ip,sym > "$tmp/perf.script" 2>/dev/null ||
		die "perf script -F comm,pid,ip,sym failed"
	read -r samples frames whole <<< "$(perf_stats "$tmp/perf.script" deep-nofp)"
	echo "$(cpu_ms "$tmp/rec.time") $(cpu_ms "$tmp/script.time")" \
		"$(awk '/^[^ \t]/ { n++ } END { print n + 0 }' "$tmp/perf.script") $frames $whole"
	rm -f "$tmp/perf.data" "$tmp/perf.script"
}

if part sys; then
echo "bench/overhead.sh: system-wide at $FREQ Hz, $RUNS runs of $SECONDS_SHORT s and $SECONDS_LONG s" >&2
# The workload outlives every run; its own deadline ends it should this
# script be killed without its trap.
"$DEEP" 1 $((RUNS * 3 * (SECONDS_SHORT + SECONDS_LONG + 60) + 600)) "$NCPU" sort &
pids+=($!)
warm_caches
for ((i = 0; i < RUNS; i++)); do
	for secs in "$SECONDS_SHORT" "$SECONDS_LONG"; do
		echo "bench/overhead.sh: run $((i + 1))/$RUNS, $secs s: probekit, then perf" >&2
		a=$(one_probekit "$secs")
		b=$(one_perf "$secs")
		echo "$secs $a $b" >> "$tmp/sys"
	done
done
part steady || stop_all
fi

# ---- 2. always on -------------------------------------------------------------
# one_steady: per window of one always-on session, a line "WINDOW READ_NS
# BPF_NS" (READ_NS: probe-read's CPU in the window, BPF_NS: the session's
# programs'), and "load LOAD_MS" for its probe-load.
one_steady() {
	local ids pid w t0 t1 b0 b1 end
	"$CPURUN" -t "$tmp/load.time" "$LOAD" --pin-dir "$PIN" -F "$FREQ" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load failed"; }
	echo "load $(cpu_ms "$tmp/load.time")"
	ids=$(prog_ids)
	read -r b0 _ <<< "$(prog_stats $ids)"
	"$READ" --pin-dir "$PIN" --interval "$SECONDS_SHORT" -d $((SECONDS_SHORT * WINDOWS)) \
		-o "$tmp/steady-%s.folded" 2>"$tmp/read.err" &
	pid=$!
	t0=0
	end=$(($(date +%s%N) / 1000000))
	for ((w = 1; w <= WINDOWS; w++)); do
		# each window's end, on the reader's clock (give or take its
		# start-up): a window's profile is written once it ends
		end=$((end + SECONDS_SHORT * 1000))
		sleep "$(awk -v e="$end" -v n="$(($(date +%s%N) / 1000000))" \
			'BEGIN { d = (e - n) / 1000; print (d > 0 ? d : 0) }')"
		read -r t1 _ < "/proc/$pid/schedstat" || break
		read -r b1 _ <<< "$(prog_stats $ids)"
		echo "$w $((t1 - t0)) $((b1 - b0))"
		t0=$t1
		b0=$b1
	done
	wait "$pid" || { cat "$tmp/read.err" >&2; die "probe-read --interval failed"; }
	"$LOAD" --unload --pin-dir "$PIN" || die "probe-load --unload failed"
	rm -f "$tmp"/steady-*.folded
}

if part steady; then
echo "bench/overhead.sh: always on, $RUNS runs of $WINDOWS windows of $SECONDS_SHORT s" >&2
[ ${#pids[@]} -gt 0 ] ||
	{ "$DEEP" 1 $((RUNS * (WINDOWS + 2) * SECONDS_SHORT + 600)) "$NCPU" sort & pids+=($!); }
warm_caches
for ((i = 0; i < RUNS; i++)); do
	one_steady | sed "s/^/$i /" >> "$tmp/steady"
done
stop_all
fi

# ---- 3. BPF time per sample by depth ----------------------------------------
# one_bpf DEPTH [COMMAND...]: "RUN_NS RUNS FILTERED SAMPLES FRAMES" of the
# cpu-clock program in a session of COMMAND (default: deep-nofp DEPTH - 4,
# one process per CPU); FRAMES: deep-nofp's user frames per sample.
one_bpf() {
	local depth=$1 ids ns cnt filtered samples frames
	shift
	[ $# -gt 0 ] || set -- "$DEEP" $((depth - 4)) "$BPF_SECONDS" "$NCPU"
	load_job "$tmp/load.err" --pin-dir "$PIN" -F "$FREQ" -- "$@" ||
		{ cat "$tmp/load.err" >&2; die "probe-load -- $* failed"; }
	ids=$(prog_ids 'e0-cpu*')
	keep_progs $ids
	"$READ" --pin-dir "$PIN" -o "$tmp/bpf.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	wait "$loader_pid" || die "$* failed under probe-load"
	forget "$loader_pid"
	read -r ns cnt <<< "$(prog_stats $ids)"
	drop_progs
	read -r _ filtered <<< "$(counters)"
	"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true
	read -r samples frames _ <<< "$(folded_stats "$tmp/bpf.folded" deep-nofp)"
	echo "$ns $cnt $filtered $samples $frames"
}

# one_floor NAME: "RUN_NS RUNS" of reference program NAME (bench/floor.c)
# over deep at 15 frames: deep-fp for the frame-pointer walk, deep-nofp
# otherwise
one_floor() {
	local deep=$DEEP pid out
	[ "$1" != fp_walk ] || deep=$DEEP_FP
	"$deep" 11 $((BPF_SECONDS + 2)) "$NCPU" & pid=$!
	out=$("$FLOOR" "$BPF_SECONDS" "$FREQ" "$1") || die "bench/floor $1 failed"
	wait "$pid" || die "$deep failed under bench/floor"
	echo "$out"
}

if part bpf; then
echo "bench/overhead.sh: BPF time per sample at $DEPTHS user frames, $RUNS runs" >&2
for ((i = 0; i < RUNS; i++)); do
	# a filtered run's cost: every run of a session whose target sleeps
	read -r fns fcnt _ <<< "$(one_bpf 0 sleep "$BPF_SECONDS")"
	for d in $DEPTHS; do
		echo "$d $(one_bpf "$d") $fns $fcnt" >> "$tmp/bpf"
	done
	for f in empty copy_ring fp_walk; do
		echo "floor $f $(one_floor "$f")" >> "$tmp/bpf"
	done
done
fi
[ -z "$BENCH_RAW" ] || { mkdir -p "$BENCH_RAW" && cp "$tmp/sys" "$tmp/steady" "$tmp/bpf" "$BENCH_RAW/"; }

# ---- the tables --------------------------------------------------------------
perl -e '
	use strict; use warnings;
	my ($sys, $bpf, $steady) = @ARGV;
	sub rows { open my $fh, "<", $_[0] or die "$_[0]: $!"; map { [split] } grep { /\S/ } <$fh> }
	sub median { my @v = sort { $a <=> $b } @_; $v[$#v / 2] }
	sub col { my ($r, $f) = @_; median(map { $f->(@$_) } @$r) }
	my $ncpu = $ENV{NCPU};
	# secs load_ms read_ms bpf_ns pe_ns pe_runs samples frames whole
	#   rec_ms script_ms perf_samples perf_frames perf_whole
	my @s = rows($sys);
	if (@s) {
		my %by; push @{$by{$_->[0]}}, $_ for @s;
		printf "\n### Profiling overhead, system-wide, %s Hz, %d CPUs busy (deep-nofp sorting, no frame pointers), median of %d runs; kernel %s\n\n",
			$ENV{FREQ}, $ncpu, $ENV{RUNS}, `uname -r` =~ s/\n//r;
		print "| session | probe-load | probe-read | BPF programs | probekit: share of the machine | perf record | perf script | perf --call-graph dwarf: share | probekit / perf | BPF per sample | samples: probekit, perf | user frames per sample: probekit, perf | whole stacks: probekit, perf |\n";
		print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
		for my $secs (sort { $a <=> $b } keys %by) {
			my $r = $by{$secs};
			my $pk = sub { ($_[1] + $_[2] + $_[3] / 1e6) / ($ncpu * $_[0] * 1e3) };
			my $pf = sub { ($_[9] + $_[10]) / ($ncpu * $_[0] * 1e3) };
			printf "| %d s | %.2f s | %.2f s | %.2f s | %.3f %% | %.2f s | %.2f s | %.3f %% | %.2f | %.1f us | %d, %d | %.1f, %.1f | %.0f %%, %.0f %% |\n",
				$secs, col($r, sub { $_[1] / 1e3 }), col($r, sub { $_[2] / 1e3 }),
				col($r, sub { $_[3] / 1e9 }), 100 * col($r, $pk),
				col($r, sub { $_[9] / 1e3 }), col($r, sub { $_[10] / 1e3 }), 100 * col($r, $pf),
				col($r, sub { $pk->(@_) / $pf->(@_) }),
				col($r, sub { $_[5] ? $_[4] / $_[5] / 1e3 : 0 }),
				col($r, sub { $_[6] }), col($r, sub { $_[11] }),
				col($r, sub { $_[7] }), col($r, sub { $_[12] }),
				100 * col($r, sub { $_[8] }), 100 * col($r, sub { $_[13] });
		}
		print "\nCPU: user+sys from wait4 (probe-load: its load and its --unload); BPF: run_time_ns of all of the session\x27s programs. ",
			"BPF per sample: the cpu-clock program\x27s run time per run, every CPU\x27s samples (the idle task\x27s too). ",
			"Targets (issue 20): probekit <= 0.1 % over 30 s, <= 0.05 % over 120 s, <= 1/10 of perf.\n";
	}
	# run window read_ns bpf_ns | run load load_ms
	my @st = rows($steady);
	if (@st) {
		my $w = $ENV{SECONDS_SHORT};
		my @load = map { $_->[2] } grep { $_->[1] eq "load" } @st;
		my @first = grep { $_->[1] eq "1" } @st;
		my @rest = grep { $_->[1] ne "load" && $_->[1] ne "1" } @st;
		my $share = sub { ($_[2] + $_[3]) / ($ncpu * $w * 1e9) };
		printf "\n### Always on: one probe-load, one probe-read --interval %d s, %d windows, %s Hz, %d CPUs busy, median of %d runs\n\n",
			$w, $ENV{WINDOWS}, $ENV{FREQ}, $ncpu, $ENV{RUNS};
		print "| window | probe-read | BPF programs | share of the machine |\n|---|---:|---:|---:|\n";
		printf "| first (probe-read\x27s start-up) | %.1f ms | %.1f ms | %.3f %% |\n",
			col(\@first, sub { $_[2] / 1e6 }), col(\@first, sub { $_[3] / 1e6 }), 100 * col(\@first, $share)
			if @first;
		printf "| each later one | %.1f ms | %.1f ms | **%.3f %%** |\n",
			col(\@rest, sub { $_[2] / 1e6 }), col(\@rest, sub { $_[3] / 1e6 }), 100 * col(\@rest, $share)
			if @rest;
		printf "\nprobe-load, once per session: %.0f ms. Targets (issue 20): <= 0.1 %% over 30 s, <= 0.05 %% over 120 s.\n",
			median(@load) if @load;
	}
	# depth ns runs filtered samples frames filtered_ns filtered_runs,
	# or floor name ns runs
	my @b = grep { $_->[0] ne "floor" } rows($bpf);
	my %floor; push @{$floor{$_->[1]}}, $_ for grep { $_->[0] eq "floor" && $_->[3] } rows($bpf);
	if (@b) {
		my %by; push @{$by{$_->[0]}}, $_ for @b;
		printf "\n### BPF time per sample by depth (deep-nofp, %d processes, %s Hz, %s s per run, median of %d runs)\n\n",
			$ncpu, $ENV{FREQ}, $ENV{BPF_SECONDS}, $ENV{RUNS};
		print "| user frames | samples per run | filtered runs per run | ns per filtered run | **ns per sample** |\n";
		print "|---:|---:|---:|---:|---:|\n";
		for my $d (sort { $a <=> $b } keys %by) {
			my $r = $by{$d};
			my $fr = sub { $_[7] ? $_[6] / $_[7] : 0 };
			printf "| %.1f | %d | %d | %.0f | **%.0f** |\n", col($r, sub { $_[5] }),
				col($r, sub { $_[4] }), col($r, sub { $_[3] }), col($r, $fr),
				col($r, sub { $_[4] ? ($_[1] - $_[3] * $fr->(@_)) / $_[4] : 0 });
		}
		print "\nns per sample: (run_time_ns - filtered runs x ns per filtered run) / samples. Target (issue 20): <= 2000 at 15 frames, <= 5000 at 60.\n";
		my @ref = (
			[ "empty", "an empty perf_event program", "deep-nofp" ],
			[ "copy_ring", "one copy of the KiB of stack at the user SP, one 15-word ring-buffer record", "deep-nofp" ],
			[ "fp_walk", "the kernel\x27s frame-pointer walk (bpf_get_stack, BPF_F_USER_STACK)", "deep-fp" ],
		);
		if (grep { $floor{$_->[0]} } @ref) {
			printf "\nReferences, in the same runs (bench/floor.bpf.c, %s Hz on every CPU, 15 frames):\n\n", $ENV{FREQ};
			print "| program | workload | runs per run | **ns per run** |\n|---|---|---:|---:|\n";
			for my $f (grep { $floor{$_->[0]} } @ref) {
				my $r = $floor{$f->[0]};
				printf "| %s | %s | %d | **%.0f** |\n", $f->[1], $f->[2],
					col($r, sub { $_[3] }), col($r, sub { $_[2] / $_[3] });
			}
		}
	}
' "$tmp/sys" "$tmp/bpf" "$tmp/steady"
