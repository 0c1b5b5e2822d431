# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the benches that profile bench/deep.c machine-wide with
# probe-load and probe-read (not a bench itself: `make bench` runs
# bench/*.sh only). The caller sets BUILD and BENCH (its name, for its pin,
# its temporary directory and its messages); this sets LOAD, READ, CPURUN,
# DEEP, PIN and tmp, points PROBEKIT_CACHE_DIR into tmp, sources
# bpf_events.bash and cleanup.bash, defines die, checks for root and
# bpftool, builds the tools and keeps BPF run-time statistics on.
LOAD=$BUILD/probe-load
READ=$BUILD/probe-read
CPURUN=$BUILD/bench/cpurun
DEEP=$BUILD/bench/deep-nofp
PIN=/sys/fs/bpf/pkbench-$BENCH-$$
tmp=$(mktemp -d "/tmp/probekit-bench-$BENCH.XXXXXX")
export PROBEKIT_CACHE_DIR=$tmp/cache
bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=bench/bpf_events.bash
. "$bench_dir/bpf_events.bash"
# shellcheck source=bench/cleanup.bash
. "$bench_dir/cleanup.bash"

die() { echo "bench/$BENCH.sh: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || die "needs root (BPF)"
command -v bpftool >/dev/null || die "needs bpftool"
make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$CPURUN" "$DEEP"
stats_hold "$tmp/stats" || die "cannot keep BPF run-time statistics on"
