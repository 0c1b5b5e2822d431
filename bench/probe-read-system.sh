#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# probe-read's CPU per sample system-wide, against perf script's on the same
# workload in the same run; medians of $RUNS runs, never a timed assertion.
#
# The workload: $NPROC processes keeping every CPU busy, spread over several
# files so that symbolization has work: bench/burn (C: libc, libm, zlib),
# bench/burn-cxx (C++: libstdc++), python3.11 and perl (interpreters, their
# libraries), a quarter each, all at nice $NICE (19: they take what the
# machine has spare, and others sharing it are not starved; the table says
# what share of the samples is theirs). Per run, one after the other:
#   - probekit: probe-load system-wide at $FREQ Hz (--unwind dwarf, the
#     default; an empty unwind-table cache), then probe-read -d $SECONDS_RUN
#     -o FILE.folded; its user+sys from wait4 (bench/cpurun), its samples
#     from its "N samples read" line;
#   - perf: perf record -F $FREQ -a -g -e cpu-clock -- sleep $SECONDS_RUN
#     (its CPU reported too), then perf script -i perf.data > /dev/null
#     timed the same way; its samples counted by a second, untimed perf
#     script.
# Frames per sample: how much each had to name (probekit walks the stacks
# of code without frame pointers with unwind tables; perf -g with frame
# pointers, and names no inline frames). Needs root.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
FREQ=${FREQ:-99}
SECONDS_RUN=${SECONDS_RUN:-10}
NPROC=${NPROC:-200}
NICE=${NICE:-19}	# the workload's niceness
BENCH_RAW=${BENCH_RAW:-}	# a directory to keep the per-run numbers in
READ_ARGS=${READ_ARGS:-}	# more probe-read options, e.g. --no-inline
export READ_ARGS
export RUNS FREQ SECONDS_RUN NPROC NICE

LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
CPURUN=$BUILD/bench/cpurun
PIN=/sys/fs/bpf/pkbench-$$
tmp=$(mktemp -d /tmp/probekit-bench-read-system.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"	# pids: the workload's processes

die() { echo "bench/probe-read-system.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
command -v perf >/dev/null || die "needs perf (linux-perf)"
command -v python3.11 >/dev/null || die "needs python3.11"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$CPURUN" \
	"$BUILD/bench/burn" "$BUILD/bench/burn-cxx"

# The workload lives through every run; its own deadline ends it should this
# script be killed without its trap.
life=$((RUNS * (3 * SECONDS_RUN + 120) + 120))
py="import json, re, time
end = time.monotonic() + $life
d = {'k%d' % i: [i, i / 3, 'v' * (i % 7)] for i in range(40)}
while time.monotonic() < end:
    s = json.dumps(d)
    json.loads(s)
    sorted(str(i * 7919 % 1000) for i in range(300))
    re.findall(r'\\d+\\.\\d+', s)"
pl='my $end = time + '$life'; while (time < $end) {
    my @a = sort map { sprintf "%08d", rand 1e8 } 1 .. 300;
    my $s = join ",", @a; my @m = $s =~ /(\d{3})/g }'
for ((i = 0; i < NPROC; i++)); do
	case $((i % 4)) in
	0) nice -n "$NICE" "$BUILD/bench/burn" "$life" & ;;
	1) nice -n "$NICE" "$BUILD/bench/burn-cxx" "$life" & ;;
	2) nice -n "$NICE" python3.11 -c "$py" & ;;
	3) nice -n "$NICE" perl -e "$pl" & ;;
	esac
	pids+=($!)
done
sleep 2
for p in "${pids[@]}"; do
	kill -0 "$p" 2>/dev/null || die "a workload process (pid $p) died at start"
done

# The workload's thread names, for the share of the samples that are its own
# (the rest: whatever else the machine ran meanwhile, named too).
WORKLOAD_COMMS="burn burn-cxx python3.11 perl"

# folded_frames FILE: "SAMPLES FRAMES_PER_SAMPLE WORKLOAD_SHARE" of folded
# stacks (the comm is no frame).
folded_frames() {
	awk -v comms="$WORKLOAD_COMMS" '
		BEGIN { split(comms, c, " "); for (i in c) w[c[i]] = 1 }
		{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		  s += n; fr += n * (k - 1); if (f[1] in w) ws += n }
		END { printf "%d %.2f %.3f\n", s, s ? fr / s : 0, s ? ws / s : 0 }' "$1"
}

# perf_frames FILE: the same of `perf script -F comm,tid,ip` output.
perf_frames() {
	awk -v comms="$WORKLOAD_COMMS" '
		BEGIN { split(comms, c, " "); for (i in c) w[c[i]] = 1 }
		/^[^ \t]/ { s++; if ($1 in w) ws++; next }
		/^[ \t]+[0-9a-f]+/ { fr++ }
		END { printf "%d %.2f %.3f\n", s, s ? fr / s : 0, s ? ws / s : 0 }' "$1"
}

: > "$tmp/runs"
for ((i = 0; i < RUNS; i++)); do
	echo "bench/probe-read-system.sh: run $((i + 1))/$RUNS: probekit, then perf" >&2
	rm -rf "$PROBEKIT_CACHE_DIR"
	"$LOAD" --pin-dir "$PIN" -F "$FREQ" 2>"$tmp/load.err" ||
		{ cat "$tmp/load.err" >&2; die "probe-load failed"; }
	"$CPURUN" -t "$tmp/read.time" "$READ" --pin-dir "$PIN" -d "$SECONDS_RUN" $READ_ARGS \
		-o "$tmp/out.folded" 2>"$tmp/read.err" ||
		{ cat "$tmp/read.err" >&2; die "probe-read failed"; }
	"$LOAD" --unload --pin-dir "$PIN"
	samples=$(sed -n 's/^probe-read: \([0-9]*\) samples read.*/\1/p' "$tmp/read.err")
	[ -n "$samples" ] && [ "$samples" -gt 0 ] ||
		{ cat "$tmp/read.err" >&2; die "no \"N samples read\" line from probe-read"; }
	read -r _ ru rs < "$tmp/read.time"
	read -r _ pk_frames pk_share <<< "$(folded_frames "$tmp/out.folded")"

	"$CPURUN" -t "$tmp/rec.time" perf record -q -F "$FREQ" -a -g -e cpu-clock \
		-o "$tmp/perf.data" -- sleep "$SECONDS_RUN" 2>"$tmp/perf.err" ||
		{ cat "$tmp/perf.err" >&2; die "perf record failed"; }
	"$CPURUN" -t "$tmp/script.time" perf script -i "$tmp/perf.data" \
		> /dev/null 2>"$tmp/script.err" ||
		{ cat "$tmp/script.err" >&2; die "perf script failed"; }
	perf script -i "$tmp/perf.data" -F comm,tid,ip > "$tmp/perf.ips" 2>/dev/null ||
		die "perf script -F comm,tid,ip failed"
	read -r _ pru prs < "$tmp/rec.time"
	read -r _ psu pss < "$tmp/script.time"
	read -r psamples perf_frames perf_share <<< "$(perf_frames "$tmp/perf.ips")"
	[ "$psamples" -gt 0 ] || die "perf recorded no samples"
	rm -f "$tmp/perf.data" "$tmp/perf.ips"
	# SAMPLES READ_USER_MS READ_SYS_MS FRAMES PERF_SAMPLES SCRIPT_USER_MS
	# SCRIPT_SYS_MS RECORD_USER_MS RECORD_SYS_MS PERF_FRAMES SHARE PERF_SHARE
	echo "$samples $ru $rs $pk_frames $psamples $psu $pss $pru $prs $perf_frames" \
		"$pk_share $perf_share" >> "$tmp/runs"
done

[ -z "$BENCH_RAW" ] || { mkdir -p "$BENCH_RAW" && cp "$tmp/runs" "$BENCH_RAW/probe-read-system"; }

perl -e '
	sub median { my @v = sort { $a <=> $b } @_; $v[$#v / 2] }
	my @r = map { [split] } <STDIN>;
	my $col = sub { my $f = shift; median(map { $f->(@$_) } @r) };
	my $pk = $col->(sub { ($_[1] + $_[2]) * 1e3 / $_[0] });
	my $ps = $col->(sub { ($_[5] + $_[6]) * 1e3 / $_[4] });
	my $ratio = $col->(sub { (($_[1] + $_[2]) / $_[0]) / (($_[5] + $_[6]) / $_[4]) });
	printf "\n### probe-read against perf script, system-wide (%d processes at nice %s, %s Hz, %s s, median of %d runs)\n\n",
		$ENV{NPROC}, $ENV{NICE}, $ENV{FREQ}, $ENV{SECONDS_RUN}, scalar @r;
	print "| | samples per run | of the workload | frames per sample | CPU per run | CPU per sample |\n";
	print "|---|---|---|---|---|---|\n";
	printf "| probe-read -d %s%s (--unwind dwarf) | %d | %.0f %% | %.1f | %.0f ms | %.1f us |\n", $ENV{SECONDS_RUN},
		$ENV{READ_ARGS} ? " $ENV{READ_ARGS}" : "",
		$col->(sub { $_[0] }), 100 * $col->(sub { $_[10] }), $col->(sub { $_[3] }),
		$col->(sub { $_[1] + $_[2] }), $pk;
	printf "| perf script (perf record -g, frame pointers) | %d | %.0f %% | %.1f | %.0f ms | %.1f us |\n",
		$col->(sub { $_[4] }), 100 * $col->(sub { $_[11] }), $col->(sub { $_[9] }),
		$col->(sub { $_[5] + $_[6] }), $ps;
	printf "| perf record -a -g | | | | %.0f ms | %.1f us |\n",
		$col->(sub { $_[7] + $_[8] }), $col->(sub { ($_[7] + $_[8]) * 1e3 / $_[4] });
	printf "\nprobe-read CPU per sample / perf script CPU per sample: %.2f (median of the runs\x27 ratios).\n", $ratio;
	print "CPU: user+sys from wait4; a run\x27s whole cost, start-up included (kallsyms, symbol and DWARF files).\n";
' < "$tmp/runs"
