#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The symbolizer's throughput (addresses per CPU second) against
# eu-addr2line -f -i -C (function, inline frames, source lines, demangled:
# what probe-read computes per address) over the same addresses, in the
# same run; medians of $RUNS runs, never a timed assertion.
#
# Per file of $FILES and per run:
#   - bench/symbolize (a fresh process each run): $NADDR distinct addresses
#     spread evenly across the file's .text, through a mapping the kernel
#     reported in a process that does not exist. Cold: a new symbolizer,
#     the file's symbols and DWARF read on the way (the headline); file
#     warm: the same addresses in a second process mapping the file; cached:
#     the second process's addresses again (the per-address cache).
#   - eu-addr2line -a -f -i -C -e FILE, all addresses on stdin of ONE
#     process (-a only to tell the addresses' output apart); its user+sys
#     from wait4 (bench/cpurun).
# Then a sanity check, not a test: the share of addresses named, with a
# source line, with inline frames, for both, and how often both give the
# same number of frames and the same innermost line.
#
# The default files carry DWARF: the debug build of libstdc++ that
# libstdc++6-12-dbg installs (a big C++ library with its DWARF inside),
# libc.so.6 (DWARF from libc6-dbg, by build-id) and python3.11 (from
# python3.11-dbg, by build-id). A missing file is left out, said so.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
NADDR=${NADDR:-20000}
FILES=${FILES:-"/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30 /usr/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11"}
BENCH_RAW=${BENCH_RAW:-}	# a directory to keep the per-run numbers in
export RUNS NADDR
tmp=$(mktemp -d /tmp/probekit-bench-symbolize.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM HUP

die() { echo "bench/symbolize.sh: $*" >&2; exit 1; }

command -v eu-addr2line >/dev/null || die "needs eu-addr2line (elfutils)"
make --no-print-directory -s BUILD="$BUILD" "$BUILD/bench/symbolize" "$BUILD/bench/cpurun"

files=()
for f in $FILES; do
	if [ -r "$f" ]; then
		files+=("$f")
	else
		echo "bench/symbolize.sh: $f: not there, left out" >&2
	fi
done
[ "${#files[@]}" -gt 0 ] || die "none of the files is there: $FILES"

# "N NAMED LINES INLINED SAME_FRAMES SAME_LINE" of an addr2line -a -f -i
# output (eu-addr2line's or binutils'): the address, then a name line and a
# "file:line[:col]" line per frame, innermost first; "??" unknown. SAME_*:
# addresses where bench/symbolize's LOCS file says the same.
compare() {
	perl -e '
		my ($a2l, $ours) = @ARGV;
		my (%x, $cur);
		open my $fh, "<", $a2l or die "$a2l: $!\n";
		while (<$fh>) {
			chomp;
			if (/^0x([0-9a-f]+)$/) { $cur = $x{hex $1} = []; next }
			push @$cur, $_ if $cur;
		}
		my ($n, $named, $lines, $inl, $same_frames, $same_line) = (0) x 6;
		open $fh, "<", $ours or die "$ours: $!\n";
		while (<$fh>) {
			my ($a, $frames, $line) = split;
			my $l = $x{hex $a} or die "$a2l: nothing of $a\n";
			my $f = int(@$l / 2) || 1;
			my ($first) = ($l->[1] // "") =~ /:(\d+)(?::\d+)?(?: \(discriminator \d+\))?$/;
			$first //= 0;
			$n++;
			$named += ($l->[-2] // "??") ne "??";
			$lines += $first != 0;
			$inl += $f > 1;
			$same_frames += $frames == $f;
			$same_line += $line == $first;
		}
		print "$n $named $lines $inl $same_frames $same_line\n";
	' "$1" "$2"
}

# The runs: per file, "FILE COLD_NS FIRST_NS FILE_NS CACHED_NS N NAMED
# LINES INLINED EU_USER_MS EU_SYS_MS BU_USER_MS BU_SYS_MS" (bench/symbolize.c
# says what the first ones are; EU eu-addr2line, BU binutils addr2line).
: > "$tmp/runs"
: > "$tmp/sanity"
for ((i = 0; i < RUNS; i++)); do
	for f in "${files[@]}"; do
		echo "bench/symbolize.sh: run $((i + 1))/$RUNS: $f" >&2
		ours=$("$BUILD/bench/symbolize" -n "$NADDR" -a "$tmp/addrs" -p "$tmp/ours" "$f") ||
			die "bench/symbolize failed on $f"
		"$BUILD/bench/cpurun" -t "$tmp/eu.time" eu-addr2line -a -f -i -C -e "$f" \
			< "$tmp/addrs" > "$tmp/eu.out" || die "eu-addr2line failed on $f"
		"$BUILD/bench/cpurun" -t "$tmp/bu.time" addr2line -a -f -i -C -e "$f" \
			< "$tmp/addrs" > "$tmp/bu.out" || die "addr2line failed on $f"
		read -r _ eu_user eu_sys < "$tmp/eu.time"
		read -r _ bu_user bu_sys < "$tmp/bu.time"
		echo "$f $ours $eu_user $eu_sys $bu_user $bu_sys" >> "$tmp/runs"
		# The outputs are the same every run: compare the last run's.
		if [ "$i" = "$((RUNS - 1))" ]; then
			eu=$(compare "$tmp/eu.out" "$tmp/ours") || die "could not read eu-addr2line's output for $f"
			bu=$(compare "$tmp/bu.out" "$tmp/ours") || die "could not read addr2line's output for $f"
			echo "$f $eu $bu" >> "$tmp/sanity"
		fi
	done
done

[ -z "$BENCH_RAW" ] || { mkdir -p "$BENCH_RAW" && cp "$tmp/runs" "$tmp/sanity" "$BENCH_RAW/"; }

perl -e '
	my ($runs, $sanity) = @ARGV;
	sub median { my @v = sort { $a <=> $b } @_; $v[$#v / 2] }
	my (%r, @order);
	open my $fh, "<", $runs or die; while (<$fh>) {
		my ($f, @v) = split;
		push @order, $f unless $r{$f};
		push @{$r{$f}}, \@v;
	}
	my %s; open $fh, "<", $sanity or die;
	while (<$fh>) { my ($f, @v) = split; $s{$f} = \@v }
	sub short { my $f = shift; $f =~ s{.*/debug/(libstdc\+\+)\.so.*}{$1 (debug build)}; $f =~ s{.*/}{}; $f }
	sub rate { my ($n, $ns) = @_; $ns > 0 ? $n / ($ns / 1e9) : 0 }
	sub k { sprintf "%.0f k/s", $_[0] / 1e3 }

	printf "\n### Symbolization throughput: addresses per CPU second (%s distinct addresses across .text per file, median of %d runs)\n\n",
		$ENV{NADDR}, $ENV{RUNS};
	print "| file | probekit cold | eu-addr2line -f -i -C | cold / eu-addr2line | addr2line -f -i -C (binutils) | cold / addr2line | first location | file warm | cached |\n";
	print "|---|---|---|---|---|---|---|---|---|\n";
	for my $f (@order) {
		my @v = @{$r{$f}};
		my @cold = map { rate($_->[4], $_->[0]) } @v;
		my @eu = map { rate($_->[4], ($_->[8] + $_->[9]) * 1e6) } @v;
		my @bu = map { rate($_->[4], ($_->[10] + $_->[11]) * 1e6) } @v;
		my @reu = map { $eu[$_] ? $cold[$_] / $eu[$_] : 0 } 0..$#v;
		my @rbu = map { $bu[$_] ? $cold[$_] / $bu[$_] : 0 } 0..$#v;
		printf "| %s | %s | %s | %.0fx | %s | %.1fx | %.1f ms | %s | %s |\n", short($f),
			k(median(@cold)), k(median(@eu)), median(@reu), k(median(@bu)), median(@rbu),
			median(map { $_->[1] / 1e6 } @v),
			k(median(map { rate($_->[4], $_->[2]) } @v)),
			k(median(map { rate($_->[4], $_->[3]) } @v));
	}
	print "\nprobekit cold: a new symbolizer per run, the file, its symbols and DWARF read on the way, every address once (first location: the CPU time to the first one).\n";
	print "File warm: the same addresses in a second process mapping the file (its tables built). Cached: the same addresses again.\n";
	print "CPU time: the symbolizer process\x27s own clock (CLOCK_PROCESS_CPUTIME_ID); the addr2lines\x27 user+sys, one process for all addresses (on stdin, with -a).\n";

	print "\n### Symbolization sanity: share of the addresses, probekit / eu-addr2line / binutils addr2line, and agreement with each\n\n";
	print "| file | named | with a source line | with inline frames | same frame count (eu / binutils) | same innermost line (eu / binutils) |\n";
	print "|---|---|---|---|---|---|\n";
	for my $f (@order) {
		my $o = $r{$f}[-1];
		my $x = $s{$f} or next;
		my ($n, $en, $el, $ei, $esf, $esl, undef, $bn, $bl, $bi, $bsf, $bsl) = @$x;
		my $pc = sub { join " / ", map { sprintf "%.1f %%", 100 * $_ / $n } @_ };
		printf "| %s | %s | %s | %s | %s | %s |\n", short($f), $pc->($o->[5], $en, $bn),
			$pc->($o->[6], $el, $bl), $pc->($o->[7], $ei, $bi), $pc->($esf, $bsf),
			$pc->($esl, $bsl);
	}
' "$tmp/runs" "$tmp/sanity"
