# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the benches that measure BPF programs (not a bench itself:
# `make bench` runs bench/*.sh only): a pinned session's events and their
# BPF programs' statistics, read with bpftool, so that the figures come
# from the kernel and not from the tool being measured.

# stats_hold FILE: keep BPF run-time statistics on (BPF_ENABLE_STATS: the
# kernel keeps them on while the fd lives) until the process whose pid it
# sets in stats_pid is killed. Not the sysctl kernel.bpf_stats_enabled: that
# is one switch for everybody, and another bench restoring it to 0 at its
# end would stop the counts in the middle of ours. FILE: its messages.
stats_hold() {
	python3 -c '
import ctypes, os, signal, sys
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": 321, "aarch64": 280}[os.uname().machine]	# __NR_bpf
attr = ctypes.create_string_buffer(8)	# enable_stats.type = BPF_STATS_RUN_TIME
if libc.syscall(nr, 32, attr, 4) < 0:	# BPF_ENABLE_STATS
	sys.exit("BPF_ENABLE_STATS: " + os.strerror(ctypes.get_errno()))
print("on", flush=True)
signal.pause()' > "$1" 2>&1 &
	stats_pid=$!
	while ! grep -qs '^on$' "$1"; do
		kill -0 "$stats_pid" 2>/dev/null || { cat "$1" >&2; return 1; }
		sleep 0.05
	done
}

# load_job ERRFILE ARGS...: $LOAD ARGS, which runs its -- COMMAND in the
# foreground, started as a shell's background job (so that a reader runs
# beside it); returns once the session at $PIN is pinned, 1 if probe-load
# ended first. Its pid: loader_pid, in pids (cleanup.bash); `wait` for it.
load_job() {
	local err=$1
	shift
	"$LOAD" "$@" 2>"$err" &
	loader_pid=$!
	pids+=("$loader_pid")
	until [ -e "$PIN/session" ]; do
		kill -0 "$loader_pid" 2>/dev/null || return 1
		sleep 0.05
	done
}

# keep_progs IDS...: pin the programs at $PIN-prog-ID, so that their
# statistics outlive the session's links, which it unpins once its targets
# have exited; drop_progs (and cleanup.bash) removes them.
keep_progs() {
	local id
	for id in "$@"; do
		bpftool prog pin id "$id" "$PIN-prog-$id"
	done
}
drop_progs() {
	rm -f "$PIN"-prog-*
}

# event_progs PIN NAME: "INDEX PROG_ID0 PROG_ID1 FLAGS" of event NAME in
# PIN's event_list (struct pk_event_desc: name[256], then kind, unit, flags,
# freq_hz, sample_every, min_block_ns, prog_ids[2]); nothing when absent.
event_progs() {
	bpftool map dump pinned "$1/event_list" -j | perl -MJSON::PP -0ne '
		BEGIN { $want = shift @ARGV }
		for my $e (@{decode_json($_)}) {
			my $v = ref $e->{value} eq "ARRAY"
				? pack("C*", map { hex } @{$e->{value}}) : undef;
			my $k = ref $e->{key} eq "ARRAY"
				? unpack("L", pack("C*", map { hex } @{$e->{key}})) : $e->{key};
			my ($name, $flags, @prog) = defined $v
				? unpack("Z256 x8 L x20 L2", $v)
				: ($e->{value}{name}, $e->{value}{flags},
				   @{$e->{value}{prog_ids}});
			print "$k @prog $flags\n" if $name eq $want;
		}' "$2"
}

# prog_ids [LINK]: the ids of the programs behind the links of the session
# pinned at $PIN (LINK: one name under links/, default all of them; the CPU
# sampling event is e0, its links e0-cpuN). Calls the bench's die.
prog_ids() {
	local l
	for l in "$PIN"/links/${1:-*}; do
		[ -e "$l" ] || die "no link $PIN/links/${1:-*}"
		bpftool link show pinned "$l" -j
		echo
	done | perl -MJSON::PP -ne 'next unless /\S/; my $id = decode_json($_)->{prog_id};
		print "$id\n" unless $seen{$id}++'
}

# counters: "SAMPLES FILTERED", the counters (PK_CNT_SAMPLES,
# PK_CNT_FILTERED) of the session pinned at $PIN, summed over CPUs.
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

# prog_stats ID...: "RUN_TIME_NS RUN_CNT" summed over the programs given
# (a counter bpftool leaves out, as it does with 0, counts 0; so does ID 0,
# an event's missing second program).
prog_stats() {
	local id
	for id in "$@"; do
		[ "$id" = 0 ] || { bpftool prog show id "$id" -j; echo; }
	done | perl -MJSON::PP -ne 'next unless /\S/; my $p = decode_json($_);
		$t += $p->{run_time_ns} // 0; $n += $p->{run_cnt} // 0;
		END { printf "%d %d\n", $t, $n }'
}

# event_counts PIN INDEX: "HITS SAMPLES SKIPPED SHORT LOST" of event INDEX
# (event_counts: key INDEX * 8 + enum pk_event_counter), summed over CPUs.
event_counts() {
	bpftool map dump pinned "$1/event_counts" -j | perl -MJSON::PP -0ne '
		BEGIN { $ev = shift @ARGV } my @c = (0) x 5;
		for my $e (@{decode_json($_)}) {
			my $f = $e->{formatted} or die "event_counts: no BTF to read it by\n";
			my $slot = $f->{key} - $ev * 8;
			next if $slot < 0 || $slot > 4;
			$c[$slot] += $_->{value} for @{$f->{values}};
		}
		print "@c\n"' "$2"
}

# fd_prog_ids PID: the ids of the BPF programs PID holds open (fdinfo)
fd_prog_ids() {
	cat /proc/"$1"/fdinfo/* 2>/dev/null | awk '$1 == "prog_id:" { print $2 }' | sort -un
}

# proc_cpu_ms PID: user+sys CPU time of PID so far, in ms.
proc_cpu_ms() {
	perl -e 'open my $f, "<", "/proc/$ARGV[0]/stat" or die "$ARGV[0]: $!\n";
		my $s = <$f>; $s =~ s/^.*\) //; my @f = split " ", $s;
		printf "%.0f\n", ($f[11] + $f[12]) * 1000 / $ARGV[1]' "$1" "$(getconf CLK_TCK)"
}

# median of the numbers on stdin (the lower middle one of an even count:
# a value that was measured)
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)]; else print "nan" }'
}

# prog_id LINK: the program behind the session's pinned link LINK.
prog_id() {
	bpftool link show pinned "$PIN/links/$1" -j |
		perl -MJSON::PP -0ne 'print decode_json($_)->{prog_id}, "\n"'
}

# filtered: PK_CNT_FILTERED summed over CPUs (runs that stopped at -p).
filtered() {
	bpftool map dump pinned "$PIN/counters" -j | perl -MJSON::PP -0ne '
		my $c = 0; for my $e (@{decode_json($_)}) { my $f = $e->{formatted};
			next unless $f->{key} == 4; $c += $_->{value} for @{$f->{values}} }
		print "$c\n"'
}

# session_ns WHAT NREAD READ_ARGS... LOAD_ARGS...: one session, $LOAD
# --pin-dir $PIN LOAD_ARGS (-C $BENCH_CPU and a -- COMMAND among them), read
# by $READ --pin-dir $PIN READ_ARGS (the NREAD first arguments) under
# $CPURUN (its time into $tmp/read.time, for read_us); prints
# pk_perf_event's BPF ns per sample on $BENCH_CPU past the target filter.
# WHAT names the session in messages.
session_ns() {
	local what=$1 nread=$2 id ns cnt filt
	shift 2
	local rd=("${@:1:nread}")
	shift "$nread"
	load_job "$tmp/load.err" --pin-dir "$PIN" "$@" ||
		{ cat "$tmp/load.err" >&2; die "probe-load ($what) failed"; }
	id=$(prog_id "e0-cpu$BENCH_CPU")
	keep_progs "$id"
	"$CPURUN" -t "$tmp/read.time" "$READ" --pin-dir "$PIN" "${rd[@]}" \
		2>"$tmp/read.err" || { cat "$tmp/read.err" >&2; die "probe-read failed"; }
	wait "$loader_pid" || die "the workload failed under probe-load ($what)"
	forget "$loader_pid"
	read -r ns cnt <<< "$(prog_stats "$id")"
	drop_progs
	filt=$(filtered)
	"$LOAD" --unload --pin-dir "$PIN"
	[ "$((cnt - filt))" -gt 0 ] || die "pk_perf_event never ran past the filter ($what)"
	echo "$((ns / (cnt - filt)))"
}

# read_us SAMPLES: probe-read's CPU (user+sys) in $tmp/read.time per
# sample, in us.
read_us() {
	local ru rs
	read -r _ ru rs < "$tmp/read.time"
	awk -v u="$ru" -v s="$rs" -v n="$1" 'BEGIN { printf "%.0f", (u + s) * 1000 / n }'
}

# paired_runs NAME MODE REF: $RUNS times, for each depth of $DEPTHS, a
# line "DEPTH $(one MODE DEPTH) $(one REF DEPTH)" (one(): the script's)
# into $tmp/runs, copied to $BENCH_RAW/NAME.runs when BENCH_RAW is set.
paired_runs() {
	local i d
	for ((i = 0; i < RUNS; i++)); do
		for d in $DEPTHS; do
			echo "$d $(one "$2" "$d") $(one "$3" "$d")" >> "$tmp/runs"
		done
	done
	[ -z "${BENCH_RAW:-}" ] || cp "$tmp/runs" "$BENCH_RAW/$1.runs"
}

# col DEPTH N: the median of column N of $tmp/runs' lines of DEPTH.
col() { awk -v d="$1" -v c="$2" '$1 == d { print $c }' "$tmp/runs" | median; }
