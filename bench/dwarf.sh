#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What DWARF unwinding in BPF costs (probe-load --unwind dwarf), measured
# against references taken in the same run; medians of $RUNS runs, never a
# timed assertion (a noisy 2-CPU VM with only the cpu-clock software event).
#
#  1. BPF time per sample (kernel.bpf_stats_enabled: run_time_ns / run_cnt of
#     profile_sample) of --unwind dwarf against --unwind fp on the same
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
NCPU=$(nproc)
BENCH_CPU=${BENCH_CPU:-$((NCPU - 1))}	# the CPU item 1 samples
PIN=${PIN:-/sys/fs/bpf/probekit-bench}
export FREQ RUNS NCPU SYS_SECONDS SYS_DEPTH BPF_SECONDS BENCH_CPU

LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
DEEP_NOFP=$BUILD/bench/deep-nofp
DEEP_FP=$BUILD/bench/deep-fp

tmp=$(mktemp -d /tmp/probekit-bench-dwarf.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache
old_stats=
pids=()		# background processes of ours still to kill
cleanup() {
	local p
	for p in "${pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
	done
	for p in "${pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true
	[ -z "$old_stats" ] || sysctl -q -w kernel.bpf_stats_enabled="$old_stats" || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

die() { echo "bench/dwarf.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$BUILD/bench/walltime" \
	"$BUILD/bench/cpurun" "$BUILD/bench/rbpos" "$DEEP_NOFP" "$DEEP_FP"
"$LOAD" --help 2>&1 | grep -q -- --unwind || die "$LOAD has no --unwind"
command -v perf >/dev/null || die "needs perf (linux-perf)"
command -v bpftool >/dev/null || die "needs bpftool"
old_stats=$(sysctl -n kernel.bpf_stats_enabled)
sysctl -q -w kernel.bpf_stats_enabled=1
# A session left by an interrupted run of ours.
"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true

# The ids of the programs behind the session's pinned links (LINK: one name
# under links/, default all of them).
prog_ids() {
	local l
	for l in "$PIN"/links/${1:-*}; do
		bpftool link show pinned "$l" -j
		echo
	done | perl -MJSON::PP -ne 'next unless /\S/; my $id = decode_json($_)->{prog_id};
		print "$id\n" unless $seen{$id}++'
}

# "RUN_TIME_NS RUN_CNT" summed over the program ids given.
prog_stats() {
	local id
	for id in "$@"; do
		bpftool prog show id "$id" -j
		echo
	done | perl -MJSON::PP -ne 'next unless /\S/; my $p = decode_json($_);
		$t += $p->{run_time_ns} // 0; $n += $p->{run_cnt} // 0;
		END { printf "%d %d\n", $t, $n }'
}

# "SAMPLES FILTERED": the session's counters (PK_CNT_SAMPLES, PK_CNT_FILTERED)
# summed over CPUs.
counters() {
	bpftool map dump pinned "$PIN/counters" -j | perl -MJSON::PP -0ne '
		my %c; for my $e (@{decode_json($_)}) { my $f = $e->{formatted};
			$c{$f->{key}} += $_->{value} for @{$f->{values}} }
		printf "%d %d\n", $c{0} // 0, $c{4} // 0'
}

# folded_stats FILE COMM: "SAMPLES USER_FRAMES_PER_SAMPLE WHOLE_SHARE" of
# COMM's stacks: whole = a frame is main or _start.
folded_stats() {
	awk -v comm="$2" '
		{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		  if (f[1] != comm) next
		  u = 0; whole = 0
		  for (i = 2; i <= k; i++) {
			if (f[i] ~ /_\[k\]$/) continue
			u++
			if (f[i] == "main" || f[i] == "_start") whole = 1
		  }
		  s += n; fr += n * u; w += n * whole }
		END { if (s) printf "%d %.2f %.4f\n", s, fr / s, w / s; else print "0 0 0" }' "$1"
}

# perf_stats SCRIPT_OUTPUT COMM: the same from `perf script -F comm,pid,ip,sym`.
perf_stats() {
	awk -v comm="$2" '
		function flush() { if (in_s) { s++; fr += u; w += whole } in_s = 0 }
		/^[^ \t]/ { flush(); if ($1 == comm) { in_s = 1; u = 0; whole = 0 } next }
		/^[ \t]+[0-9a-f]+ / { if (in_s) { u++; if ($2 == "main" || $2 == "_start") whole = 1 } next }
		/^$/ { flush() }
		END { flush(); if (s) printf "%d %.2f %.4f\n", s, fr / s, w / s; else print "0 0 0" }' "$1"
}

# The numbers of probe-load's "unwind tables:" line in FILE, "T R B X Y Z".
tables_line() {
	sed -n 's/.*unwind tables: \([0-9]*\) tables, \([0-9]*\) rows, \([0-9]*\) kernel bytes (\([0-9]*\) built, \([0-9]*\) cached, \([0-9]*\) refused).*/\1 \2 \3 \4 \5 \6/p' "$1" | tail -n 1
}

# The user-stacks summary of probe-read's stderr in FILE.
ustack_line() {
	sed -n 's/.*user stacks: //p' "$1" | tail -n 1
}

# ---- 4. start-up (first: nothing of ours runs) --------------------------
echo "bench/dwarf.sh: start-up, $RUNS runs" >&2
# Warm cache: one unmeasured load fills it.
"$LOAD" --pin-dir "$PIN" 2>"$tmp/prime.err" || { cat "$tmp/prime.err" >&2; die "probe-load failed"; }
"$LOAD" --unload --pin-dir "$PIN"
: > "$tmp/startup"
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
# Where start-up goes: the BPF_PROG_LOAD of profile_sample (the verifier),
# one run of each under strace -T.
prog_load_ms() {
	strace -f -T -e trace=bpf -o "$tmp/strace" "$LOAD" --pin-dir "$PIN" "$@" 2>/dev/null ||
		die "probe-load $* under strace failed"
	"$LOAD" --unload --pin-dir "$PIN"
	awk -F'<' '/BPF_PROG_LOAD.*PERF_EVENT/ { v = $NF; sub(/>.*/, "", v); if (v > m) m = v }
		END { printf "%.0f\n", m * 1e3 }' "$tmp/strace"
}
load_dwarf=- load_fp=-
if command -v strace >/dev/null; then
	load_dwarf=$(prog_load_ms)
	load_fp=$(prog_load_ms --unwind fp)
fi
export load_dwarf load_fp

# ---- 1. BPF time per sample by depth ------------------------------------
echo "bench/dwarf.sh: BPF time per sample, depths $DEPTHS, $RUNS runs" >&2
# one_bpf MODE BINARY DEPTH: a session on CPU $BENCH_CPU profiling BINARY
# pinned there; prints "NS_PER_SAMPLE RUN_CNT SAMPLES FRAMES WHOLE".
# NS_PER_SAMPLE: run time over the runs that did not stop at the target
# filter (other processes on that CPU): an upper bound, by the filtered
# runs' cost (a hash lookup) times their number over the others'.
one_bpf() {
	local mode=$1 bin=$2 depth=$3 comm=${2##*/}
	"$LOAD" --pin-dir "$PIN" --unwind "$mode" -F "$FREQ" -C "$BENCH_CPU" -- \
		taskset -c "$BENCH_CPU" "$bin" "$depth" "$BPF_SECONDS" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load --unwind $mode failed"; }
	"$READ" --pin-dir "$PIN" -o "$tmp/bpf.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	read -r ns cnt <<< "$(prog_stats $(prog_ids "cpu$BENCH_CPU"))"
	read -r _ filtered <<< "$(counters)"
	"$LOAD" --unload --pin-dir "$PIN"
	[ "$((cnt - filtered))" -gt 0 ] || die "profile_sample never ran past the filter (--unwind $mode, depth $depth)"
	read -r samples frames whole <<< "$(folded_stats "$tmp/bpf.folded" "$comm")"
	echo "$((ns / (cnt - filtered))) $cnt $samples $frames $whole"
	[ "$mode" = fp ] || ustack_line "$tmp/read.err" > "$tmp/ustack-$depth"
}
: > "$tmp/bpf"
for ((i = 0; i < RUNS; i++)); do
	for d in $DEPTHS; do
		a=$(one_bpf dwarf "$DEEP_NOFP" "$d")
		b=$(one_bpf fp "$DEEP_NOFP" "$d")
		c=$(one_bpf fp "$DEEP_FP" "$d")
		echo "$d $a $b $c" >> "$tmp/bpf"
	done
done

# ---- 2 and 3. system-wide, probekit (dwarf, fp) and perf -----------------
echo "bench/dwarf.sh: system-wide at $FREQ Hz, $RUNS runs of 3 x $SYS_SECONDS s" >&2
"$DEEP_NOFP" "$SYS_DEPTH" 100000 "$NCPU" &
pids+=($!)
sleep 0.5

# one_sys MODE: a system-wide session of $SYS_SECONDS s; prints "BPF_NS
# READ_USER_MS READ_SYS_MS RING_BYTES OUT_BYTES SAMPLES FRAMES WHOLE
# READ0_MS PS_NS". PS_NS: profile_sample's run time per run (sampled or
# filtered: --skip-idle is not used, so the idle task is sampled too) over
# probe-read's run. READ0_MS: the CPU of one more probe-read -d 0.1 after it,
# nearly all start-up (what every probe-read costs whatever its -d).
one_sys() {
	local mode=$1 ids ps p0 p1
	"$LOAD" --pin-dir "$PIN" --unwind "$mode" -F "$FREQ" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load --unwind $mode failed"; }
	ids=$(prog_ids)
	ps=$(prog_ids 'cpu*')
	read -r ns0 _ <<< "$(prog_stats $ids)"
	read -r psns0 pscnt0 <<< "$(prog_stats $ps)"
	read -r p0 _ <<< "$("$BUILD/bench/rbpos" "$PIN/events")"
	"$BUILD/bench/cpurun" -t "$tmp/read.time" "$READ" --pin-dir "$PIN" -d "$SYS_SECONDS" \
		-o "$tmp/sys.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read -d failed"; }
	read -r p1 _ <<< "$("$BUILD/bench/rbpos" "$PIN/events")"
	read -r ns1 _ <<< "$(prog_stats $ids)"
	read -r psns1 pscnt1 <<< "$(prog_stats $ps)"
	"$BUILD/bench/cpurun" -t "$tmp/read0.time" "$READ" --pin-dir "$PIN" -d 0.1 \
		-o "$tmp/short.folded" 2>"$tmp/read0.err" ||
		{ cat "$tmp/read0.err" >&2; die "probe-read -d 0.1 failed"; }
	"$LOAD" --unload --pin-dir "$PIN"
	read -r _ ru rs < "$tmp/read.time"
	read -r _ r0u r0s < "$tmp/read0.time"
	echo "$((ns1 - ns0)) $ru $rs $((p1 - p0)) $(stat -c %s "$tmp/sys.folded") $(folded_stats "$tmp/sys.folded" deep-nofp) $(awk -v u="$r0u" -v s="$r0s" 'BEGIN { print u + s }') $(((psns1 - psns0) / (pscnt1 - pscnt0 > 0 ? pscnt1 - pscnt0 : 1)))"
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
: > "$tmp/sys"
for ((i = 0; i < RUNS; i++)); do
	a=$(one_sys dwarf)
	b=$(one_sys fp)
	c=$(one_perf)
	echo "$a $b $c" >> "$tmp/sys"
done
kill -KILL "${pids[@]}" 2>/dev/null || true
wait "${pids[@]}" 2>/dev/null || true
pids=()

# ---- the tables ------------------------------------------------------------
KERNEL=$(uname -r) USTACK_SYS=$(cat "$tmp/ustack-sys" 2>/dev/null || true) \
USTACKS=$(for d in $DEPTHS; do echo "$d: $(cat "$tmp/ustack-$d" 2>/dev/null || true)"; done) \
perl -e '
	use strict; use warnings;
	my ($bpf, $sys, $startup) = @ARGV;
	sub rows { open my $fh, "<", $_[0] or die "$_[0]: $!"; map { [split] } grep { /\S/ } <$fh> }
	sub median { my @v = sort { $a <=> $b } @_; @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2 }
	sub col { my ($rows, $f) = @_; median(map { $f->($_) } @$rows) }
	my $runs = $ENV{RUNS};

	# 1. per depth: d, then per configuration ns cnt samples frames whole
	my @b = rows($bpf);
	my %by; push @{$by{$_->[0]}}, $_ for @b;
	my @depths = sort { $a <=> $b } keys %by;
	printf "\n### DWARF unwinding in BPF: cost per sample (deep, one CPU, %s Hz, %s s per run, median of %d runs; kernel %s)\n\n",
		$ENV{FREQ}, $ENV{BPF_SECONDS}, $runs, $ENV{KERNEL};
	print "| depth | dwarf: user frames | dwarf: ns/sample | dwarf: ns/frame | fp, same no-fp binary: frames | ns/sample | **dwarf / fp** | fp, fp build: frames | ns/sample | dwarf / fp build | dwarf whole stacks |\n";
	print "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	my %dw;
	for my $d (@depths) {
		my $r = $by{$d};
		my %m = (
			dns => col($r, sub { $_[0][1] }), dfr => col($r, sub { $_[0][4] }),
			dpf => col($r, sub { $_[0][4] ? $_[0][1] / $_[0][4] : 0 }),
			fns => col($r, sub { $_[0][6] }), ffr => col($r, sub { $_[0][9] }),
			ratio => col($r, sub { $_[0][6] ? $_[0][1] / $_[0][6] : 0 }),
			gns => col($r, sub { $_[0][11] }), gfr => col($r, sub { $_[0][14] }),
			gratio => col($r, sub { $_[0][11] ? $_[0][1] / $_[0][11] : 0 }),
			whole => col($r, sub { $_[0][5] }),
		);
		$dw{$d} = \%m;
		printf "| %d | %.1f | %.0f | %.1f | %.1f | %.0f | **%.2fx** | %.1f | %.0f | %.2fx | %.1f %% |\n",
			$d, @m{qw(dfr dns dpf ffr fns ratio gfr gns gratio)}, 100 * $m{whole};
	}
	if (@depths > 1) {
		my ($lo, $hi) = ($dw{$depths[0]}, $dw{$depths[-1]});
		my $slope = ($hi->{dns} - $lo->{dns}) / (($hi->{dfr} - $lo->{dfr}) || 1);
		my $gslope = ($hi->{gns} - $lo->{gns}) / (($hi->{gfr} - $lo->{gfr}) || 1);
		printf "\nMarginal cost per user frame (depth %d to %d): dwarf %.1f ns; fp on the fp build %.1f ns (its frames capped at 127).\n",
			$depths[0], $depths[-1], $slope, $gslope;
		printf "Fixed cost (dwarf ns/sample at depth %d minus its frames x the marginal cost): %.0f ns.\n",
			$depths[0], $lo->{dns} - $lo->{dfr} * $slope;
	}
	print "Target: dwarf <= 2x fp on the same no-frame-pointer workload (the bold column; its fp walk\n";
	print "stops after the frames it can find).\n";
	print "probe-read, dwarf runs (last run): user stacks:\n";
	print map { "    $_\n" } split /\n/, $ENV{USTACKS};

	# 2 and 3. per run: dwarf (10 fields), fp (10), perf (9)
	my @pk = qw(bpf_ns ru rs ring out samples frames whole read0 ps_ns);
	my @pf = qw(wall ru rs su ss bytes samples frames whole);
	my @s = map { my @v = @$_; my (%d, %f, %p);
		@d{@pk} = @v[0..9]; @f{@pk} = @v[10..19]; @p{@pf} = @v[20..28];
		{ d => \%d, f => \%f, p => \%p } } rows($sys);
	my $mt = $ENV{SYS_SECONDS} * $ENV{NCPU};	# machine seconds
	sub pkcpu { $_[0]{bpf_ns} / 1e6 + $_[0]{ru} + $_[0]{rs} }	# ms
	sub med { my ($w, $k) = @_; col(\@s, sub { $_[0]{$w}{$k} }) }
	my %p;
	for my $w (qw(d f)) {
		$p{$w} = { share => col(\@s, sub { 100 * pkcpu($_[0]{$w}) / 1e3 / $mt }),
			bpf => col(\@s, sub { $_[0]{$w}{bpf_ns} / 1e6 }),
			read => col(\@s, sub { $_[0]{$w}{ru} + $_[0]{$w}{rs} }),
			per_sample => col(\@s, sub { $_[0]{$w}{ps_ns} }),
			bytes => col(\@s, sub { $_[0]{$w}{ring} + $_[0]{$w}{out} }),
			map { $_ => med($w, $_) } qw(ring out samples frames whole read0) };
	}
	my $pp = { map { $_ => med("p", $_) } qw(wall bytes samples frames whole) };
	$pp->{rec} = col(\@s, sub { $_[0]{p}{ru} + $_[0]{p}{rs} });
	$pp->{script} = col(\@s, sub { $_[0]{p}{su} + $_[0]{p}{ss} });
	$pp->{share} = col(\@s, sub { 100 * ($_[0]{p}{ru} + $_[0]{p}{rs}) / 1e3 / $mt });
	my $cpu_ratio = col(\@s, sub { my $d = pkcpu($_[0]{d}); $d ? ($_[0]{p}{ru} + $_[0]{p}{rs}) / $d : 0 });
	my $byte_ratio = col(\@s, sub { my $d = $_[0]{d}{ring} + $_[0]{d}{out}; $d ? $_[0]{p}{bytes} / $d : 0 });
	my $bpf_share = col(\@s, sub { 100 * $_[0]{d}{bpf_ns} / 1e9 / $mt });
	my $steady = col(\@s, sub { 100 * (pkcpu($_[0]{d}) - $_[0]{d}{read0}) / 1e3 / $mt });

	printf "\n### Whole profiler, system-wide at %s Hz (deep %d frames in %d processes keeping all %d CPUs busy; %s s per run, median of %d runs)\n\n",
		$ENV{FREQ}, $ENV{SYS_DEPTH}, $ENV{NCPU}, $ENV{NCPU}, $ENV{SYS_SECONDS}, $runs;
	print "| profiler | BPF CPU (profile_sample per run) | user-space CPU | **share of machine time** | post-processing CPU | bytes written | workload samples | user frames/sample | whole stacks (reach main/_start) |\n";
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	for my $w (["d", "dwarf"], ["f", "fp"]) {
		my $x = $p{$w->[0]};
		printf "| probekit --unwind %s | %.1f ms (%.1f us) | %.1f ms (probe-read) | %s%.3f %%%s | (in probe-read) | %.0f KiB (ring buffer %.0f + output %.1f) | %d | %.1f | %.1f %% |\n",
			$w->[1], $x->{bpf}, $x->{per_sample} / 1e3, $x->{read}, $w->[0] eq "d" ? ("**", $x->{share}, "**") : ("", $x->{share}, ""),
			$x->{bytes} / 1024, $x->{ring} / 1024, $x->{out} / 1024,
			$x->{samples}, $x->{frames}, 100 * $x->{whole};
	}
	printf "| perf record -F %s -a --call-graph dwarf | not measured (in-kernel copy of 8 KiB of user stack per sample) | %.1f ms (perf record, %.1f s wall) | %.3f %% (perf record only) | %.0f ms (perf script) | %.0f KiB (perf.data) | %d | %.1f | %.1f %% |\n",
		$ENV{FREQ}, $pp->{rec}, $pp->{wall} / 1e3, $pp->{share}, $pp->{script}, $pp->{bytes} / 1024,
		$pp->{samples}, $pp->{frames}, 100 * $pp->{whole};
	printf "\nperf record CPU / probekit dwarf CPU (BPF + probe-read): %.1fx; perf.data bytes / probekit bytes (ring buffer + output): %.0fx (medians of per-run ratios).\n",
		$cpu_ratio, $byte_ratio;
	printf "probekit dwarf, split: BPF alone %.4f %% of machine time; probe-read start-up (one more probe-read -d 0.1: %.1f ms CPU) left out: %.3f %%.\n",
		$bpf_share, $p{d}{read0}, $steady;
	print "Target: probekit dwarf share <= 0.1 %. Machine time = $ENV{SYS_SECONDS} s x $ENV{NCPU} CPUs; BPF CPU = run_time_ns of\n";
	print "all of the session\x27s programs over probe-read\x27s run. probe-read, dwarf, last run: user stacks: $ENV{USTACK_SYS}\n";

	# 4. cold warm fp, cold T R B X Y Z, warm T R B X Y Z
	my @u = rows($startup);
	my %q = (cold => col(\@u, sub { $_[0][0] }), warm => col(\@u, sub { $_[0][1] }),
		fp => col(\@u, sub { $_[0][2] }),
		cw => col(\@u, sub { $_[0][0] / $_[0][2] }), ww => col(\@u, sub { $_[0][1] / $_[0][2] }));
	my @c = @{$u[-1]}[3..8]; my @w = @{$u[-1]}[9..14];
	printf "\n### probe-load start-up, system-wide (wall time, median of %d runs)\n\n", $runs;
	print "| cache | probe-load | / --unwind fp | tables | rows | kernel bytes | **bytes/row** | built | cached | refused |\n";
	print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
	printf "| cold (empty PROBEKIT_CACHE_DIR) | %.0f ms | %.1fx | %d | %d | %.1f MiB | **%.2f** | %d | %d | %d |\n",
		$q{cold}, $q{cw}, $c[0], $c[1], $c[2] / 1048576, $c[1] ? $c[2] / $c[1] : 0, @c[3..5];
	printf "| warm | %.0f ms | %.1fx | %d | %d | %.1f MiB | **%.2f** | %d | %d | %d |\n",
		$q{warm}, $q{ww}, $w[0], $w[1], $w[2] / 1048576, $w[1] ? $w[2] / $w[1] : 0, @w[3..5];
	printf "| --unwind fp (reference) | %.0f ms | 1.0x | | | | | | | |\n", $q{fp};
	print "Tables, rows and bytes: the last run\x27s \"unwind tables:\" line (they follow what runs on the machine).\n";
	print "BPF_PROG_LOAD of profile_sample (the verifier), one run under strace -T: dwarf $ENV{load_dwarf} ms, fp $ENV{load_fp} ms.\n";
' "$tmp/bpf" "$tmp/sys" "$tmp/startup"
