#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The cost per hit of a stack-taking probe: probekit (probe-load -e EVENT,
# system-wide, probe-read draining) against bpftrace's
#   EVENT { @[ustack, kstack] = count(); }
# in the same run, for each EVENT of $EVENTS (kprobe:vfs_write, and
# tracepoint:syscalls:sys_enter_write, which both tools attach to wherever
# there is a kernel with tracepoints). The workload: bench/writer, $N
# one-byte writes to /dev/null (one vfs_write and one sys_enter_write each),
# timed inside. Each run times it without a probe, then under probekit with
# each of $UNWINDS, then under bpftrace. Medians of $RUNS runs, never a timed
# assertion:
#   - BPF ns per hit: run_time_ns / run_cnt of the tool's program over the
#     writes (kernel.bpf_stats_enabled; every hit on the machine counts,
#     the writer's and others'), and its ratio to bpftrace's in the same run;
#   - the writer's time and its ratio to the unprobed writer's, and the time
#     added per write;
#   - probekit's samples and lost samples per write (event_counts).
# An event that a tool cannot attach to here (a kernel without kprobes, or
# that refuses fentry) is said so, with the tool's own reason, and the rest
# is measured. Needs root, bpftool and bpftrace. Pins under $PIN.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
N=${N:-100000}
EVENTS=${EVENTS:-"kprobe:vfs_write tracepoint:syscalls:sys_enter_write"}
UNWINDS=${UNWINDS:-"fp dwarf"}
PIN=${PIN:-/sys/fs/bpf/probekit-bench-kprobe}
LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
WRITER=$BUILD/bench/writer
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/bpf_events.bash
. "$here/bpf_events.bash"

tmp=$(mktemp -d /tmp/probekit-bench-kprobe.XXXXXX)
export PROBEKIT_CACHE_DIR=$tmp/cache	# neither use nor fill the system's
# shellcheck source=bench/cleanup.bash
. "$here/cleanup.bash"

die() { echo "bench/kprobe.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
command -v bpftool >/dev/null || die "needs bpftool"
command -v bpftrace >/dev/null || die "needs bpftrace"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$WRITER"
stats_hold "$tmp/stats" || die "cannot keep BPF run-time statistics on"
"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true

bt_script() {
	echo "$1 { @[ustack, kstack] = count(); }"
}

# One row of $tmp/rows: RUN EVENT TOOL WRITER_MS NS_PER_HIT RUNS SAMPLES LOST
row() {
	echo "$*" >> "$tmp/rows"
}

# bpftrace_start EVENT: start bpftrace on EVENT and wait until its program
# runs on a write; sets bt and bt_prog. 1 (reason in $tmp/bt.err) when it
# cannot attach.
bpftrace_start() {
	local i n
	bpftrace -e "$(bt_script "$1")" > "$tmp/bt.out" 2>"$tmp/bt.err" &
	bt=$!
	pids+=("$bt")
	for i in $(seq 300); do
		if ! kill -0 "$bt" 2>/dev/null; then
			wait "$bt" || true
			return 1
		fi
		bt_prog=$(fd_prog_ids "$bt" | head -n 1)
		if [ -n "$bt_prog" ]; then
			read -r _ n < <(prog_stats "$bt_prog")
			"$WRITER" 10 >/dev/null
			[ "$(prog_stats "$bt_prog" | cut -d' ' -f2)" -le "$n" ] || return 0
		fi
		sleep 0.1
	done
	echo "bpftrace did not attach within 30 s" > "$tmp/bt.err"
	return 1
}

bpftrace_stop() {
	kill -INT "$bt" 2>/dev/null || true
	wait "$bt" || true	# exits 0 or 1 after a SIGINT, as versions go
	forget "$bt"
}

# bpftrace's reasons, from its error output, on one line: without its
# RLIMIT_MEMLOCK complaint (not one: it goes on with the memcg accounting
# of newer kernels), its echo of the script and its progress line.
bpftrace_reason() {
	grep -v -e RLIMIT_MEMLOCK -e '^Attaching' -e '^[[:space:]~^]*$' -e '{ @\[ustack' \
		"$tmp/bt.err" | awk '{ printf "%s%s", (NR > 1 ? "; " : ""), $0 }' || true
}

# Which tools can take EVENT on this machine: sets pk_ok / bt_ok, with
# the tools' own words in pk_why / bt_why.
probe_support() {
	pk_ok=1 bt_ok=1 pk_why='' bt_why='' pk_how=''
	local flags
	if "$LOAD" --pin-dir "$PIN" -e "$1" --unwind fp 2>"$tmp/load.err"; then
		read -r _ _ _ flags < <(event_progs "$PIN" "$1") || true
		case $1 in
		kprobe:*) pk_how=$(( ${flags:-0} & 1 ? 1 : 0 ))
			  [ "$pk_how" = 1 ] && pk_how=" (fentry)" || pk_how=" (kprobe)" ;;
		esac
		"$LOAD" --unload --pin-dir "$PIN"
	else
		pk_ok=0
		pk_why=$(tail -n 1 "$tmp/load.err")
	fi
	if bpftrace_start "$1"; then
		bpftrace_stop
	else
		bt_ok=0
		bt_why=$(bpftrace_reason)
		forget "$bt"
	fi
}

# probekit RUN EVENT UNWIND
probekit() {
	local idx p0 t0 n0 t1 n1 c0 c1 ms reader
	"$LOAD" --pin-dir "$PIN" -e "$2" --unwind "$3" 2>"$tmp/load.err" ||
		die "probe-load -e $2 --unwind $3: $(cat "$tmp/load.err")"
	read -r idx p0 _ < <(event_progs "$PIN" "$2") || die "no $2 in event_list"
	[ "${p0:-0}" != 0 ] || die "$2 names no program"
	"$READ" --pin-dir "$PIN" -o "$tmp/out.folded" 2>"$tmp/read.err" &
	reader=$!
	pids+=("$reader")
	sleep 1		# the reader's start-up is not the writer's
	c0=$(event_counts "$PIN" "$idx")
	read -r t0 n0 < <(prog_stats "$p0")
	ms=$("$WRITER" "$N")
	read -r t1 n1 < <(prog_stats "$p0")
	c1=$(event_counts "$PIN" "$idx")
	kill -INT "$reader"
	wait "$reader" || die "probe-read: $(cat "$tmp/read.err")"
	forget "$reader"
	"$LOAD" --unload --pin-dir "$PIN"
	[ $((n1 - n0)) -ge "$N" ] || die "$2: probekit's program ran $((n1 - n0)) times for $N writes"
	perl -e 'my ($t, $n, $c0, $c1) = @ARGV; my @a = split " ", $c0; my @b = split " ", $c1;
		printf "%.1f %d %d %d\n", $t / $n, $n, $b[1] - $a[1], $b[4] - $a[4]' \
		"$((t1 - t0))" "$((n1 - n0))" "$c0" "$c1" > "$tmp/fig"
	row "$1" "$2" "probekit-$3" "$ms" "$(cat "$tmp/fig")"
}

# bpftrace_run RUN EVENT
bpftrace_run() {
	local t0 n0 t1 n1 ms
	bpftrace_start "$2" || die "bpftrace $2: $(bpftrace_reason)"
	read -r t0 n0 < <(prog_stats "$bt_prog")
	ms=$("$WRITER" "$N")
	read -r t1 n1 < <(prog_stats "$bt_prog")
	bpftrace_stop
	[ $((n1 - n0)) -ge "$N" ] || die "$2: bpftrace's program ran $((n1 - n0)) times for $N writes"
	row "$1" "$2" bpftrace "$ms" "$(perl -e 'printf "%.1f", $ARGV[0] / $ARGV[1]' \
		"$((t1 - t0))" "$((n1 - n0))")" "$((n1 - n0))" - -
}

events=()
for ev in $EVENTS; do
	probe_support "$ev"
	[ "$pk_ok" = 1 ] || echo "bench/kprobe.sh: $ev: probekit cannot attach here: $pk_why"
	[ "$bt_ok" = 1 ] || echo "bench/kprobe.sh: $ev: bpftrace cannot attach here: $bt_why"
	if [ "$pk_ok" = 1 ] || [ "$bt_ok" = 1 ]; then
		events+=("$ev $pk_ok $bt_ok")
		echo "bench/kprobe.sh: $ev: measuring$([ "$pk_ok" = 1 ] && echo " probekit$pk_how")$([ "$bt_ok" = 1 ] && echo " bpftrace")"
	else
		echo "bench/kprobe.sh: $ev: not measured on this machine"
	fi
done

for i in $(seq "$RUNS"); do
	for e in "${events[@]}"; do
		read -r ev pk bt_can <<< "$e"
		row "$i" "$ev" none "$("$WRITER" "$N")" - - - -
		if [ "$pk" = 1 ]; then
			for u in $UNWINDS; do
				probekit "$i" "$ev" "$u"
			done
		fi
		[ "$bt_can" = 0 ] || bpftrace_run "$i" "$ev"
	done
done

[ -s "$tmp/rows" ] || { echo "bench/kprobe.sh: nothing to measure"; exit 0; }
perl -e '
	my ($n, $runs) = @ARGV;
	my (%base, %rows, @order, %seen);
	while (<STDIN>) {
		my ($run, $ev, $tool, $ms, $ns, $cnt, $samples, $lost) = split;
		if ($tool eq "none") { $base{"$run $ev"} = $ms; next }
		push @order, "$ev $tool" unless $seen{"$ev $tool"}++;
		push @{$rows{"$ev $tool"}}, { run => $run, ms => $ms, ns => $ns, cnt => $cnt,
			samples => $samples, lost => $lost };
	}
	my %bt;
	for my $k (grep { / bpftrace$/ } keys %rows) {
		my ($ev) = split " ", $k;
		$bt{"$_->{run} $ev"} = $_->{ns} for @{$rows{$k}};
	}
	sub median { my @v = sort { $a <=> $b } grep { defined } @_; @v ? $v[$#v / 2] : undef }
	sub fmt { my ($f, $v) = @_; defined $v ? sprintf($f, $v) : "-" }
	printf "\n### stack-taking probes: BPF cost per hit, probekit against bpftrace (%d writes, system-wide, median of %d runs)\n\n", $n, $runs;
	print "| event | tool | BPF ns per hit | ratio to bpftrace (same run) | writer ms | ratio to unprobed | ns added per write | samples per write | lost per write |\n";
	print "|---|---|---|---|---|---|---|---|---|\n";
	my %done;
	for my $k (@order) {
		my ($ev, $tool) = split " ", $k;
		unless ($done{$ev}++) {
			printf "| %s | none | - | - | %s | 1 | - | - | - |\n", $ev,
				fmt("%.1f", median(map { $base{"$_ $ev"} } 1..$runs));
		}
		my @r = @{$rows{$k}};
		printf "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", $ev, $tool,
			fmt("%.0f", median(map { $_->{ns} } @r)),
			fmt("%.2f", median(map { $bt{"$_->{run} $ev"} ? $_->{ns} / $bt{"$_->{run} $ev"} : undef } @r)),
			fmt("%.1f", median(map { $_->{ms} } @r)),
			fmt("%.2f", median(map { $_->{ms} / $base{"$_->{run} $ev"} } @r)),
			fmt("%.0f", median(map { ($_->{ms} - $base{"$_->{run} $ev"}) * 1e6 / $n } @r)),
			fmt("%.3f", median(map { $_->{samples} eq "-" ? undef : $_->{samples} / $n } @r)),
			fmt("%.4f", median(map { $_->{lost} eq "-" ? undef : $_->{lost} / $n } @r));
	}
' "$N" "$RUNS" < "$tmp/rows"
