#!/usr/bin/env bash
# probe-read's CPU cost per sample, and the BPF program's cost per sample.
#
# Each run profiles the fp_chain fixture (frame-pointer call chain, 100% CPU)
# at $FREQ Hz for $SECONDS s while probe-read drains live, then reads:
#   - probe-read's user+sys CPU time (bash `time`) and its sample count;
#   - the fixture's own CPU time (the reference measured in the same run);
#   - the BPF program's run time and run count (BPF run-time statistics).
# Reports medians over $RUNS runs. Needs root.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
FREQ=${FREQ:-999}
SECONDS_RUN=${SECONDS_RUN:-4}
export FREQ SECONDS_RUN
PIN=/sys/fs/bpf/probekit-bench-$$
LOAD=$BUILD/probe-load
tmp=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bpf_events.bash
. "$here/bpf_events.bash"
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

if [ "$(id -u)" != 0 ]; then
	echo "bench/probe-read.sh: needs root (BPF)" >&2
	exit 1
fi
make --no-print-directory -s BUILD="$BUILD" "$BUILD/probe-load" "$BUILD/probe-read" \
	"$BUILD/fixtures/fp_chain"
stats_hold "$tmp/stats" || { echo "bench/probe-read.sh: cannot keep BPF run-time statistics on" >&2; exit 1; }

for i in $(seq "$RUNS"); do
	# the fixture in probe-load's foreground, probe-read beside it
	load_job /dev/null --pin-dir "$PIN" -F "$FREQ" -- \
		"$BUILD/fixtures/fp_chain" "$SECONDS_RUN" "$tmp/fixture-cpu" ||
		{ echo "bench/probe-read.sh: probe-load failed" >&2; exit 1; }
	# the program behind the pinned link of event 0 on CPU 0
	prog=$(bpftool link show pinned "$PIN/links/e0-cpu0" -j | perl -MJSON::PP -0ne 'print decode_json($_)->{prog_id}')
	keep_progs "$prog"
	TIMEFORMAT='%U %S'
	{ time "$BUILD/probe-read" --pin-dir "$PIN" -o "$tmp/out.folded" 2>"$tmp/summary" ; } 2>"$tmp/time"
	wait "$loader_pid"
	forget "$loader_pid"
	bpftool prog show id "$prog" -j > "$tmp/prog.json"
	drop_progs
	"$BUILD/probe-load" --unload --pin-dir "$PIN"
	samples=$(sed -n 's/^probe-read: \([0-9]*\) samples read.*/\1/p' "$tmp/summary")
	read -r u s < "$tmp/time"
	perl -MJSON::PP -0e '
		my ($samples, $u, $s, $fixture_us, $progfile) = @ARGV;
		open my $fh, "<", $progfile or die; local $/; my $p = decode_json(<$fh>);
		printf "%d %.3f %.3f %.1f\n", $samples, ($u + $s) * 1e6 / $samples,
			($u + $s) * 1e6 / $fixture_us * 100,
			$p->{run_cnt} ? $p->{run_time_ns} / $p->{run_cnt} : 0;
	' "$samples" "$u" "$s" "$(cat "$tmp/fixture-cpu")" "$tmp/prog.json" >> "$tmp/runs"
done

perl -e '
	my @rows = map { [split] } <STDIN>;
	sub median { my @v = sort { $a <=> $b } @_; $v[$#v / 2] }
	my @col = map { my $c = $_; [map { $_->[$c] } @rows] } 0..3;
	printf "\n### probe-read and BPF cost per sample (fp_chain, %s Hz, %s s, median of %d runs)\n\n",
		$ENV{FREQ}, $ENV{SECONDS_RUN}, scalar @rows;
	print "| samples per run | probe-read CPU per sample | probe-read CPU / workload CPU | BPF program per sample |\n";
	print "|---|---|---|---|\n";
	printf "| %d | %.1f us | %.3f %% | %.0f ns |\n", map { median(@$_) } @col;
' < "$tmp/runs"
