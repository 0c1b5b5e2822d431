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
	while ! grep -q '^on$' "$1"; do
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
