#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What Python frames cost (issue 18), against references taken in the same
# run; medians of $RUNS runs, never a timed assertion.
#
# The workload: bench/py_deep.py under Debian's /usr/bin/python3.11, a
# Python stack $DEPTHS frames deep spinning at its leaf, pinned to the one
# CPU sampled (-C). Per depth and run, one session with the Python walk and
# one with --no-python (the native walk of the same process, the reference):
#   - BPF ns per sample: run_time_ns / run_cnt of pk_perf_event past the
#     target filter (bpf_stats, as bench/dwarf.sh); the Python walk's own
#     cost is the difference, per Python frame too, set against the
#     native walk's ns per native frame;
#   - probe-read's CPU (user+sys, bench/cpurun) per sample, with and
#     without Python frames to name: the symbolization of Python frames.
# PY_ROOT=ROOT PYTHON=/usr/bin/python3.13: the interpreter of a test root
# (tests/roots/), run as a container runs it (tests/roots/in_root.sh), read
# with the root's debug files.
# Needs root.
set -euo pipefail
DEPTHS=${DEPTHS:-"32 128"}
PIN=${PIN:-/sys/fs/bpf/probekit-bench-py}
PYTHON=${PYTHON:-/usr/bin/python3.11}
PY_ROOT=${PY_ROOT:-}
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=bench/runtime_bench.bash
. "$here/runtime_bench.bash"

bench_begin python
[ -x "$PY_ROOT$PYTHON" ] || die "needs $PY_ROOT$PYTHON"
# the workload's command: the interpreter on py_deep.py, here or in PY_ROOT
py_cmd=("$PYTHON" "$here/py_deep.py")
read_args=()
if [ -n "$PY_ROOT" ]; then
	py_cmd=("$here/../tests/roots/in_root.sh" "$PY_ROOT" "$PYTHON"
		/mnt/probekit/bench/py_deep.py)
	read_args=(--debug-dir /usr/lib/debug --debug-dir "$PY_ROOT/usr/lib/debug")
fi
# not a pipe into grep -q: its early exit is the loader's SIGPIPE (pipefail)
grep -q -- --no-python <<< "$("$LOAD" --help 2>&1)" || die "$LOAD has no --no-python"

# frames FOLDED: "SAMPLES PY_FRAMES NATIVE_FRAMES" per sample of the
# workload's stacks: Python frames are named "QUALNAME (py_deep.py:LINE)"
# or "(FILE:LINE)" of the interpreter's own modules; kernel frames
# (_[k]) are not counted.
frames() {
	awk '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		if (f[1] !~ /^python3/) next
		p = 0; u = 0
		for (i = 2; i <= k; i++) {
			if (f[i] ~ /_\[k\]$/) continue
			if (f[i] ~ / \([^ ()]*\.py(:[0-9]+)?\)$/) p++; else u++
		}
		s += n; pf += n * p; uf += n * u }
		END { if (s) printf "%d %.1f %.1f\n", s, pf / s, uf / s; else print "0 0 0" }' "$1"
}

# one MODE DEPTH: MODE "python" or "native" (--no-python); prints
# "NS_PER_SAMPLE SAMPLES PY_FRAMES NATIVE_FRAMES READ_US_PER_SAMPLE".
one() {
	local mode=$1 depth=$2 ns samples pf uf
	local opt=() rd=(${read_args[@]+"${read_args[@]}"} -o "$tmp/py.folded")
	[ "$mode" = python ] || opt=(--no-python)
	ns=$(session_ns "$mode, depth $depth" "${#rd[@]}" "${rd[@]}" "${opt[@]}" -F "$FREQ" \
		-C "$BENCH_CPU" -- taskset -c "$BENCH_CPU" "${py_cmd[@]}" "$depth" "$BPF_SECONDS")
	read -r samples pf uf <<< "$(frames "$tmp/py.folded")"
	[ "$samples" -gt 0 ] || die "no samples of the workload ($mode, depth $depth)"
	echo "$ns $samples $pf $uf $(read_us "$samples")"
}

echo "bench/python.sh: $PY_ROOT$PYTHON, depths $DEPTHS, $RUNS runs of $BPF_SECONDS s of CPU" \
	"each" >&2
one python 32 > /dev/null	# unmeasured: fills the unwind-table cache
paired_runs python python native

printf '%-6s | %-24s | %-24s | %-9s | %-9s | %-14s | %-14s\n' "depth" \
	"BPF ns/sample: python" "native (--no-python)" "py frames" "native fr" \
	"ns/py frame" "ns/native fr"
for d in $DEPTHS; do
	pyns=$(col "$d" 2) pyfr=$(col "$d" 4) uf=$(col "$d" 5) nns=$(col "$d" 7) nuf=$(col "$d" 10)
	printf '%-6s | %-24s | %-24s | %-9s | %-9s | %-14s | %-14s\n' "$d" "$pyns" "$nns" \
		"$pyfr" "$uf" \
		"$(awk -v a="$pyns" -v b="$nns" -v f="$pyfr" 'BEGIN { printf "%.0f", f ? (a - b) / f : 0 }')" \
		"$(awk -v b="$nns" -v f="$nuf" 'BEGIN { printf "%.0f", f ? b / f : 0 }')"
done
printf '\n%-6s | %-28s | %-28s\n' "depth" "probe-read us/sample: python" "native (--no-python)"
for d in $DEPTHS; do
	printf '%-6s | %-28s | %-28s\n' "$d" "$(col "$d" 6)" "$(col "$d" 11)"
done
