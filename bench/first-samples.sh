#!/usr/bin/env bash
# The copy path: programs exec'd after probe-load, whose files have no table
# in the kernel until probe-read loads them, against perf --call-graph dwarf
# on the same workload. Two workloads: gcc -O2 -c of six C files of this
# tree (gcc, cc1 and as exec'd for each), and a shell loop of short
# commands (ls -lR, cat | wc). Per run and workload:
#   - probe-read during the command: the BPF program's run time per sample
#     (run-time statistics), the samples sent with a stack copy, and from
#     them the copy window: copied samples per exec'd program, in ms of its
#     CPU time at $FREQ Hz (one sample per 1000/FREQ ms);
#   - probe-read only after the command exited (every sample of the new
#     programs copied, finished in user space): the BPF program's run time
#     per sample again, the bytes copied per sample, probe-read's CPU time
#     per sample (bash `time`), and the share of whole stacks;
#   - perf record --call-graph dwarf -F $FREQ, then perf script: perf.data
#     bytes per sample and perf script's CPU time per sample (its unwinding).
# Reports medians over $RUNS runs. Needs root, perf.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-3}
FREQ=${FREQ:-999}
export FREQ
PIN=/sys/fs/bpf/probekit-bench-$$
LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
tmp=$(mktemp -d)
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/.." && pwd)
# shellcheck source=bench/bpf_events.bash
. "$here/bpf_events.bash"
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

if [ "$(id -u)" != 0 ]; then
	echo "bench/first-samples.sh: needs root (BPF)" >&2
	exit 1
fi
command -v perf > /dev/null || { echo "bench/first-samples.sh: needs perf (linux-perf)" >&2; exit 1; }
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ"
stats_hold "$tmp/stats" || { echo "bench/first-samples.sh: cannot keep BPF run-time statistics on" >&2; exit 1; }

files="tools/symbolization/srcline.c tools/symbolization/symfile.c tools/symbolization/symbolizer.c tools/lib/unwind_store.c eh_frame/table_build.c tools/reading/reader.c"
gcc_script="cd '$src' && for f in $files; do gcc -O2 -D_GNU_SOURCE -I. -Itools -I'$BUILD' -c \$f -o /dev/null || exit 1; done"
LOOPS=40
sh_script="for i in \$(seq $LOOPS); do ls -lR /usr/include/linux > /dev/null; cat /etc/passwd | wc -l > /dev/null; done"
# programs each workload execs: sh, then gcc, cc1, as per file; sh, seq, then ls, cat, wc per loop
gcc_execs=$((1 + 6 * 3))
sh_execs=$((2 + LOOPS * 3))

# e0_prog: the perf_event program of the session at $PIN, kept (keep_progs)
# for its statistics after the command's exit
e0_prog() {
	local prog
	prog=$(bpftool link show pinned "$PIN/links/e0-cpu0" -j | perl -MJSON::PP -0ne 'print decode_json($_)->{prog_id}')
	keep_progs "$prog"
	echo "$prog"
}

# bpf_per_sample ID: run time per run of program ID, ns
bpf_per_sample() {
	bpftool prog show id "$1" -j | perl -MJSON::PP -0ne '
		my $p = decode_json($_); printf "%.0f", $p->{run_cnt} ? $p->{run_time_ns} / $p->{run_cnt} : 0'
}

# copies FILE: "samples copies kib_per_copy whole_pct" from probe-read's summary
summary_fields() {
	perl -ne '
		$s = $1 if /^probe-read: (\d+) samples read/;
		($c, $k) = ($1, $2) if /^probe-read: (\d+) samples sent with their user stack copied.*?([\d.]+) KiB/;
		$w = $1 if /^user stacks: ([\d.]+)% complete/;
		END { printf "%d %d %.1f %.1f\n", $s, $c // 0, $k // 0, $w // 0 }' "$1"
}

for workload in gcc sh; do
	script=${workload}_script
	execs=${workload}_execs
	for i in $(seq "$RUNS"); do
		# probe-read during the command (in probe-load's foreground)
		load_job /dev/null --pin-dir "$PIN" -F "$FREQ" -- sh -c "${!script}" ||
			{ echo "bench/first-samples.sh: probe-load failed" >&2; exit 1; }
		prog=$(e0_prog)
		"$READ" --pin-dir "$PIN" -o "$tmp/during.folded" 2> "$tmp/during"
		wait "$loader_pid"
		forget "$loader_pid"
		during_bpf=$(bpf_per_sample "$prog")
		drop_progs
		"$LOAD" --unload --pin-dir "$PIN"
		read -r d_samples d_copies d_kib d_whole < <(summary_fields "$tmp/during")

		# probe-read after the command
		load_job /dev/null --pin-dir "$PIN" -F "$FREQ" --ringbuf-size 128M -- sh -c "${!script}" ||
			{ echo "bench/first-samples.sh: probe-load failed" >&2; exit 1; }
		prog=$(e0_prog)
		wait "$loader_pid"
		forget "$loader_pid"
		after_bpf=$(bpf_per_sample "$prog")
		drop_progs
		TIMEFORMAT='%U %S'
		{ time "$READ" --pin-dir "$PIN" -o "$tmp/after.folded" 2> "$tmp/after"; } 2> "$tmp/time"
		"$LOAD" --unload --pin-dir "$PIN"
		read -r a_samples a_copies a_kib a_whole < <(summary_fields "$tmp/after")
		read -r u s < "$tmp/time"

		# perf
		perf record -q -F "$FREQ" --call-graph dwarf -o "$tmp/perf.data" -- sh -c "${!script}" > /dev/null 2>&1
		{ time perf script -i "$tmp/perf.data" > "$tmp/perf.txt" 2>/dev/null; } 2> "$tmp/ptime"
		read -r pu ps < "$tmp/ptime"
		psamples=$(grep -c '^\S' "$tmp/perf.txt" || true)
		pbytes=$(stat -c %s "$tmp/perf.data")
		rm -f "$tmp/perf.data" "$tmp/perf.txt"

		perl -e '
			my ($execs, $freq, $ds, $dc, $db, $dw, $as, $ac, $ak, $ab, $aw, $u, $s,
			    $ps, $pb, $pu, $pss) = @ARGV;
			printf "%.2f %d %d %.1f %d %.1f %.1f %.1f %.0f %.1f %.1f\n",
				$dc / $execs * 1000 / $freq, $db, $ab, $ak, $dw, $aw,
				($u + $s) * 1e6 / ($as || 1), ($pu + $pss) * 1e6 / ($ps || 1),
				$pb / ($ps || 1) / 1024, $ds, $as;
		' "${!execs}" "$FREQ" "$d_samples" "$d_copies" "$during_bpf" "$d_whole" \
			"$a_samples" "$a_copies" "$a_kib" "$after_bpf" "$a_whole" "$u" "$s" \
			"$psamples" "$pbytes" "$pu" "$ps" >> "$tmp/runs-$workload"
	done
done

perl -e '
	sub median { my @v = sort { $a <=> $b } @_; $v[$#v / 2] }
	printf "\n### Programs exec\x27d after load: the copy path (%s Hz, median of runs)\n\n", $ENV{FREQ};
	print "| workload | copy window per exec\x27d program (ms of its CPU) | BPF per sample, reader during | BPF per sample, all copied | KiB copied per sample | whole, reader during | whole, reader after | probe-read CPU per sample, all finished in user space | perf script CPU per sample | perf.data KiB per sample |\n";
	print "|---|---|---|---|---|---|---|---|---|---|\n";
	for my $w (@ARGV) {
		open my $fh, "<", $w or die;
		my @rows = map { [split] } <$fh>;
		my @m = map { my $c = $_; median(map { $_->[$c] } @rows) } 0..8;
		(my $name = $w) =~ s/.*runs-//;
		printf "| %s | %.2f | %d ns | %d ns | %.1f | %.1f%% | %.1f%% | %.1f us | %.1f us | %.0f |\n",
			$name, @m;
	}
' "$tmp/runs-gcc" "$tmp/runs-sh"
