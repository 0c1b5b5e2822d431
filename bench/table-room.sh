#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# What the unwind tables cost in the kernel (lib/unwind_store.h: one
# BPF_F_MMAPABLE array per table, inner maps of unwind_rows) and what loading
# and giving them back costs, for the files of a machine that runs LLVM:
# clang-14's libclang-cpp.so.14 (1.0 M rows), libLLVM-14 (0.95 M) and
# libz3 (which the 2 M rows of before refused), not libc: the driver maps it. bench/table_room loads them through the unwind store into maps made
# as probe-load makes them, then gives them all back (no process maps the
# files); its tables come from a temporary, warmed cache. Medians of $RUNS
# runs, never a timed assertion:
#   - kernel bytes per row: the tables' bytes (their arrays' pages and the
#     kernel's page before each) over their rows;
#   - load: wall ms and ns per row of pk_unwind_store_add (cache files read,
#     arrays made, memcpy, map updates);
#   - give back: wall ms of pk_unwind_store_reclaim (every /proc/PID/maps
#     read, the entries and arrays freed).
# A missing file is left out, said so. Needs root (BPF maps).
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-5}
FILES=${FILES:-"/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14 /usr/lib/x86_64-linux-gnu/libLLVM-14.so.1 /usr/lib/x86_64-linux-gnu/libz3.so.4"}

[ "$(id -u)" = 0 ] || { echo "bench/table-room.sh: needs root (BPF maps)" >&2; exit 1; }
make --no-print-directory -s BUILD="$BUILD" "$BUILD/eh2table" "$BUILD/bench/table_room"
tmp=$(mktemp -d /tmp/probekit-bench-room.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
export PROBEKIT_CACHE_DIR=$tmp/cache

files=()
for f in $FILES; do
	if [ -r "$f" ]; then files+=("$f"); else echo "bench/table-room.sh: $f: missing, left out" >&2; fi
done
[ ${#files[@]} -gt 0 ] || { echo "bench/table-room.sh: no file to load" >&2; exit 1; }
"$BUILD/eh2table" --cache-dir "$PROBEKIT_CACHE_DIR" "${files[@]}" > /dev/null

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$tmp/runs"
for ((i = 0; i < RUNS; i++)); do
	"$BUILD/bench/table_room" "${files[@]}" >> "$tmp/runs"
done
read -r n tables rows rules bytes _ _ < "$tmp/runs"
add_ms=$(awk '{ print $6 / 1e6 }' "$tmp/runs" | median)
ns_row=$(awk '{ print $6 / $3 }' "$tmp/runs" | median)
free_ms=$(awk '{ print $7 / 1e6 }' "$tmp/runs" | median)

echo
echo "### Unwind tables in the kernel: room and cost (median of $RUNS runs; kernel $(uname -r))"
echo
echo "| files | tables | rows | rules | kernel bytes | **bytes/row** | load ms | load ns/row | give back ms |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
awk -v n="$n" -v t="$tables" -v r="$rows" -v u="$rules" -v b="$bytes" -v a="$add_ms" \
	-v nr="$ns_row" -v f="$free_ms" 'BEGIN {
	printf "| %d | %d | %d | %d | %d | **%.2f** | %.1f | %.1f | %.1f |\n", n, t, r, u, b,
		b / r, a, nr, f }'
echo
echo "Files: ${files[*]}. Bytes: each table's array (6 bytes a row, 24 a rule, in 4 KiB pages)"
echo "and the page the kernel puts before an mmapable array's values, as fdinfo's memlock counts."
