#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# eh2table against readelf on the same files, in the same run:
#   cold    eh2table --force into a temporary cache (parse + build + write)
#   warm    eh2table again (cache hit: build-id + mmap + checksum)
#   readelf readelf --debug-dump=frames-interp FILE > /dev/null
# Whole-process wall time (bench/walltime: posix_spawn to waitpid, the
# three interleaved in every run, all on one CPU, $BENCH_CPU, so that
# cross-CPU wake-ups on a loaded machine do not count) and eh2table's own
# per-file milliseconds (the MS field of its output line); medians of $RUNS
# runs. The floor is /bin/true timed the same way: what any process costs.
# Also rows per second, bytes per row, and how many rows each rule class has.
# Targets (issue 3): cold <= 1/10 of readelf, warm <= 1/50, <= 8 bytes/row.
set -euo pipefail
BUILD=${BUILD:-build}
RUNS=${RUNS:-11}
BENCH_CPU=${BENCH_CPU:-$(($(nproc) - 1))}
FILES=${FILES:-"/usr/lib/x86_64-linux-gnu/libc.so.6 /usr/bin/python3.11"}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

make --no-print-directory -s BUILD="$BUILD" "$BUILD/eh2table" "$BUILD/bench/walltime"
E=$BUILD/eh2table

median() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# wall_ms [-k] CMD...: run CMD (stdout to $tmp/out), print its wall time in ms.
wall_ms() { taskset -c "$BENCH_CPU" "$BUILD/bench/walltime" -o "$tmp/out" "$@"; }

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.4f (1/%.0f)", a / b, b / a }'; }

results=()
classes=()
for f in $FILES; do
	: > "$tmp/cold" ; : > "$tmp/cold_own" ; : > "$tmp/warm" ; : > "$tmp/warm_own"
	: > "$tmp/readelf" ; : > "$tmp/floor"
	for ((i = 0; i < RUNS; i++)); do
		wall_ms "$E" --cache-dir "$tmp/cache" --force "$f" >> "$tmp/cold"
		read -r key rows bytes ms status path < "$tmp/out"
		[ "$status" = built ] || { echo "bench: cold run said $status" >&2; exit 1; }
		echo "$ms" >> "$tmp/cold_own"
		wall_ms "$E" --cache-dir "$tmp/cache" "$f" >> "$tmp/warm"
		read -r key rows bytes ms status path < "$tmp/out"
		[ "$status" = hit ] || { echo "bench: warm run said $status" >&2; exit 1; }
		echo "$ms" >> "$tmp/warm_own"
		# -k: readelf exits 1 on libc.so.6 after a complete dump
		wall_ms -k readelf --debug-dump=frames-interp "$f" >> "$tmp/readelf"
		wall_ms /bin/true >> "$tmp/floor"
	done
	cold=$(median < "$tmp/cold"); cold_own=$(median < "$tmp/cold_own")
	warm=$(median < "$tmp/warm"); warm_own=$(median < "$tmp/warm_own")
	re=$(median < "$tmp/readelf"); floor=$(median < "$tmp/floor")
	"$E" --cache-dir "$tmp/cache" --dump "$f" > "$tmp/dump"
	rules=$(awk '/^# rows/ { print $5; exit }' "$tmp/dump")
	results+=("$(printf '| %s | %d | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f | %s | %s | %.1f M |' \
		"${f##*/}" "$rows" "$rules" "$bytes" \
		"$(awk -v b="$bytes" -v r="$rows" 'BEGIN { print b / r }')" \
		"$re" "$floor" "$cold" "$cold_own" "$warm" "$warm_own" \
		"$(ratio "$cold" "$re")" "$(ratio "$warm" "$re")" \
		"$(awk -v r="$rows" -v ms="$cold_own" 'BEGIN { print r / ms / 1000 }')")")
	classes+=("$(awk -v name="${f##*/}" '
		/^#/ { next }
		{ n++; c = $2
		  if (c ~ /^rsp[+-]/) k = "rsp"; else if (c ~ /^rbp[+-]/) k = "rbp";
		  else if (c ~ /^\*\(/) k = "deref"; else if (c ~ /^[a-z0-9]+[+-][0-9]+$/) k = "reg";
		  else k = c
		  cfa[k]++; if (k == "end") next
		  if ($3 == "unsupported") fpu++; if ($4 == "u") rau++
		  if ($4 == "unsupported") rax++ }
		END { printf "| %s | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d | %d |", name, n,
			cfa["rsp"], cfa["rbp"], cfa["plt1"], cfa["plt2"], cfa["deref"], cfa["reg"],
			cfa["signal"], cfa["unsupported"], cfa["end"], fpu, rau, rax }' "$tmp/dump")")
done

echo
echo "eh2table vs readelf --debug-dump=frames-interp, medians of $RUNS runs (ms):"
echo
echo "| file | rows | rules | table bytes | bytes/row | readelf | floor (/bin/true) | cold wall | cold own | warm wall | warm own | cold/readelf | warm/readelf | rows/s (cold own) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${results[@]}"
echo
echo "Ratios use whole-process wall times (CPU $BENCH_CPU). Targets: cold/readelf <= 0.1,"
echo "warm/readelf <= 0.02, bytes/row <= 8. Own = eh2table's MS field (open, parse or"
echo "map + check, write); wall - floor = what is not process start-up."
echo
echo "Rows per rule class (CFA column; then, end rows left out, RBP unsupported and RA"
echo "undefined (outermost frame) / unsupported):"
echo
echo "| file | rows | rsp+N | rbp+N | plt1 | plt2 | deref | other reg | signal | unsupported | end | rbp unsupported | ra u | ra unsupported |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${classes[@]}"
