#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What JavaScript frames cost (issue 34), against a native stack of the
# same depth taken in the same run (bench/runtime_bench.bash): medians of
# $RUNS runs, never a timed assertion.
#
# The workloads, pinned to the one CPU sampled (-C), each $DEPTHS frames
# deep and spinning at its leaf for $BPF_SECONDS of CPU:
#   - node: bench/js_deep.js under the machine's node ($NODE): DEPTH
#     interpreted frames of jsrec, each stepped over by the frame-pointer
#     step and named by the JavaScript walk (bpf/v8_walk.bpf.h), then
#     node's native frames;
#   - native: bench/deep.c (-fomit-frame-pointer, bench/dwarf.mk): DEPTH
#     frames of rec() by the DWARF walk, the reference.
# Per depth and run: BPF ns per sample (bpf_stats, as bench/java.sh) and
# per frame; probe-read's CPU per sample (the naming of JavaScript frames
# against native ones).
# Needs root and node ($NODE).
set -euo pipefail
DEPTHS=${DEPTHS:-"20 100"}
PIN=${PIN:-/sys/fs/bpf/probekit-bench-node}
NODE=${NODE:-/usr/bin/node}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/runtime_bench.bash
. "$here/runtime_bench.bash"

bench_begin node "${BUILD:-build}/bench/deep-nofp"
[ -x "$NODE" ] || die "needs $NODE"
RT_COMM=node
RT_DEEP='^jsrec( |$)'
rt_cmd() { cmd=("$NODE" "$here/js_deep.js" "$1" "$2"); }

echo "bench/node.sh: $NODE and bench/deep.c, depths $DEPTHS, $RUNS runs of" \
	"$BPF_SECONDS s of CPU each" >&2
deep_compare node
