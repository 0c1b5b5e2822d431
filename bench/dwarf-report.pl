#!/usr/bin/env perl
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The tables of bench/dwarf.sh from its raw per-run files (BPF, SYS,
# STARTUP; the fields are described where dwarf.sh writes them) and the
# settings in the environment. Medians of per-run values, ratios taken per
# run before the median.
use strict; use warnings;
my ($bpf, $sys, $startup) = @ARGV;
sub rows { open my $fh, "<", $_[0] or die "$_[0]: $!"; map { [split] } grep { /\S/ } <$fh> }
sub median { my @v = sort { $a <=> $b } @_; @v % 2 ? $v[$#v / 2] : ($v[@v / 2 - 1] + $v[@v / 2]) / 2 }
sub col { my ($rows, $f) = @_; median(map { $f->($_) } @$rows) }
my $runs = $ENV{RUNS};

# 1. per depth: d, then per configuration ns cnt samples frames whole
my @b = rows($bpf);
if (@b) {
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
}

# 2 and 3. per run: dwarf (10 fields), fp (10), perf (9)
my @pk = qw(bpf_ns ru rs ring out samples frames whole read_at ps_ns);
my @pf = qw(wall ru rs su ss bytes samples frames whole);
my @s = map { my @v = @$_; my (%d, %f, %p);
	@d{@pk} = @v[0..9]; @f{@pk} = @v[10..19]; @p{@pf} = @v[20..28];
	{ d => \%d, f => \%f, p => \%p } } rows($sys);
my $mt = $ENV{SYS_SECONDS} * $ENV{NCPU};	# machine seconds
sub pkcpu { $_[0]{bpf_ns} / 1e6 + $_[0]{ru} + $_[0]{rs} }	# ms
sub share { 100 * $_[0] / 1e3 / $mt }	# of ms
if (@s) {
my %p;
for my $w (qw(d f)) {
	my $c = sub { my $f = shift; col(\@s, sub { $f->($_[0]{$w}) }) };
	$p{$w} = {
		bpf => $c->(sub { $_[0]{bpf_ns} / 1e6 }),
		ps_ns => $c->(sub { $_[0]{ps_ns} }),
		read => $c->(sub { $_[0]{ru} + $_[0]{rs} }),
		read_rate => $c->(sub { ($_[0]{ru} + $_[0]{rs} - $_[0]{read_at}) / ($ENV{SYS_SECONDS} - $ENV{STEADY_AFTER}) }),
		share => $c->(sub { share(pkcpu($_[0])) }),
		bpf_share => $c->(sub { share($_[0]{bpf_ns} / 1e6) }),
		steady => $c->(sub { share($_[0]{bpf_ns} / 1e6 + ($_[0]{ru} + $_[0]{rs} - $_[0]{read_at}) *
			$ENV{SYS_SECONDS} / ($ENV{SYS_SECONDS} - $ENV{STEADY_AFTER})) }),
		bytes => $c->(sub { $_[0]{ring} + $_[0]{out} }),
		map { my $k = $_; $k => $c->(sub { $_[0]{$k} }) } qw(ring out samples frames whole) };
}
my %pp = map { my $k = $_; $k => col(\@s, sub { $_[0]{p}{$k} }) } qw(wall bytes samples frames whole);
$pp{rec} = col(\@s, sub { $_[0]{p}{ru} + $_[0]{p}{rs} });
$pp{script} = col(\@s, sub { $_[0]{p}{su} + $_[0]{p}{ss} });
$pp{share} = col(\@s, sub { share($_[0]{p}{ru} + $_[0]{p}{rs}) });
my $cpu_ratio = col(\@s, sub { my $d = pkcpu($_[0]{d}); $d ? ($_[0]{p}{ru} + $_[0]{p}{rs}) / $d : 0 });
my $byte_ratio = col(\@s, sub { my $d = $_[0]{d}{ring} + $_[0]{d}{out}; $d ? $_[0]{p}{bytes} / $d : 0 });

printf "\n### Whole profiler, system-wide at %s Hz (deep %d frames in %d processes keeping all %d CPUs busy; %s s per run, median of %d runs)\n\n",
	$ENV{FREQ}, $ENV{SYS_DEPTH}, $ENV{NCPU}, $ENV{NCPU}, $ENV{SYS_SECONDS}, $runs;
print "| profiler | BPF CPU | BPF per sample | user-space CPU | **share of machine time** | BPF alone | steady state (probe-read after its first $ENV{STEADY_AFTER} s) | bytes written | workload samples | user frames/sample | whole stacks |\n";
print "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
for my $w (["d", "dwarf"], ["f", "fp"]) {
	my $x = $p{$w->[0]};
	printf "| probekit --unwind %s | %.1f ms | %.1f us | %.1f ms (probe-read; %.1f ms/s after start-up) | %s%.3f %%%s | %.3f %% | %.3f %% | %.0f KiB (ring buffer %.0f, output %.1f) | %d | %.1f | %.1f %% |\n",
		$w->[1], $x->{bpf}, $x->{ps_ns} / 1e3, $x->{read}, $x->{read_rate},
		$w->[0] eq "d" ? ("**", $x->{share}, "**") : ("", $x->{share}, ""),
		$x->{bpf_share}, $x->{steady},
		$x->{bytes} / 1024, $x->{ring} / 1024, $x->{out} / 1024,
		$x->{samples}, $x->{frames}, 100 * $x->{whole};
}
printf "| perf record -F %s -a --call-graph dwarf | not measured | not measured | %.1f ms (perf record, %.1f s wall) + %.0f ms (perf script) | %.3f %% (perf record) | | | %.0f KiB (perf.data) | %d | %.1f | %.1f %% |\n",
	$ENV{FREQ}, $pp{rec}, $pp{wall} / 1e3, $pp{script}, $pp{share}, $pp{bytes} / 1024,
	$pp{samples}, $pp{frames}, 100 * $pp{whole};
printf "\nperf record CPU / probekit dwarf CPU (BPF + probe-read): **%.1fx**; perf.data bytes / probekit bytes (ring buffer + output): **%.0fx** (medians of per-run ratios).\n",
	$cpu_ratio, $byte_ratio;
print "Target: probekit dwarf share <= 0.1 %. Machine time = $ENV{SYS_SECONDS} s x $ENV{NCPU} CPUs. BPF CPU: run_time_ns of all of the\n";
print "session\'s programs over probe-read\'s run; BPF per sample: pk_perf_event\'s run time per run (idle included).\n";
print "Steady state: BPF plus probe-read\'s CPU rate after its first $ENV{STEADY_AFTER} s (/proc/PID/schedstat), what a long session costs.\n";
print "perf\'s kernel side (it copies 8 KiB of user stack per sample in the interrupt) is in no figure: its CPU is a\n";
print "lower bound. Whole stacks: the workload\'s samples whose stack reaches main or _start.\n";
print "probe-read, dwarf, last run: user stacks: $ENV{USTACK_SYS}\n";
}

# 4. cold warm fp, cold T R B X Y Z, warm T R B X Y Z
my @u = rows($startup);
if (@u) {
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
print "Tables, rows and bytes: the last run's \"unwind tables:\" line (they follow what runs on the machine).\n";
print "BPF_PROG_LOAD of pk_perf_event (the verifier), one run under strace -T: dwarf $ENV{load_dwarf} ms, fp $ENV{load_fp} ms.\n";
}
