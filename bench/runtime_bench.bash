# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Sourced by the benches of a runtime's frames (python.sh, java.sh,
# node.sh; not a bench itself: `make bench` runs bench/*.sh only): their
# common start, and the comparison of a runtime's stack DEPTH frames deep
# against bench/deep.c's native stack of the same depth in the same run.
# Figures are medians of $RUNS paired runs, never a timed assertion.
#
# The bench sets `here` (its directory) and PIN, then calls
#   bench_begin NAME [MAKE_TARGETS...]
# which sets BUILD RUNS FREQ DEPTHS BPF_SECONDS BENCH_CPU LOAD READ CPURUN
# DEEP (defaults unless given) and tmp, sources bpf_events.bash and
# cleanup.bash, checks root and bpftool, builds the tools and
# MAKE_TARGETS, keeps BPF statistics on and unloads a leftover session.

# bench_begin NAME [MAKE_TARGETS...]
bench_begin() {
	bench_name=$1
	shift
	BUILD=${BUILD:-build}
	RUNS=${RUNS:-5}
	FREQ=${FREQ:-99}
	BPF_SECONDS=${BPF_SECONDS:-4}	# of the workload's CPU per session
	BENCH_CPU=${BENCH_CPU:-$(($(nproc) - 1))}
	LOAD=$BUILD/probe-load
	READ=$BUILD/probe-read
	CPURUN=$BUILD/bench/cpurun
	DEEP=$BUILD/bench/deep-nofp
	tmp=$(mktemp -d "/tmp/probekit-bench-$bench_name.XXXXXX")
	export PROBEKIT_CACHE_DIR=$tmp/cache
	# shellcheck source=bench/bpf_events.bash
	. "$here/bpf_events.bash"
	# shellcheck source=bench/cleanup.bash
	. "$here/cleanup.bash"
	[ "$(id -u)" = 0 ] || die "needs root (BPF)"
	command -v bpftool >/dev/null || die "needs bpftool"
	make --no-print-directory -s BUILD="$BUILD" "$LOAD" "$READ" "$CPURUN" "$@"
	stats_hold "$tmp/stats" || die "cannot keep BPF run-time statistics on"
	"$LOAD" --unload --pin-dir "$PIN" >/dev/null 2>&1 || true
}

die() { echo "bench/${bench_name:-bench}.sh: $*" >&2; exit 1; }

# deep_frames FOLDED COMM DEEP_RE: "SAMPLES DEEP_FRAMES USER_FRAMES" per
# sample of COMM's stacks that hold the recursion (frames whose names
# match the awk regex DEEP_RE); kernel frames (_[k]) are not counted.
deep_frames() {
	awk -v comm="$2" -v re="$3" '{ n = $NF; sub(/ [0-9]+$/, ""); k = split($0, f, ";")
		if (f[1] != comm) next
		d = 0; u = 0
		for (i = 2; i <= k; i++) {
			if (f[i] ~ /_\[k\]$/) continue
			u++
			if (f[i] ~ re) d++
		}
		if (!d) next
		s += n; df += n * d; uf += n * u }
		END { if (s) printf "%d %.1f %.1f\n", s, df / s, uf / s; else print "0 0 0" }' "$1"
}

# deep_one MODE DEPTH: one session of the runtime (MODE "runtime", its
# command from the bench's rt_cmd DEPTH SECONDS into the array cmd, its
# thread RT_COMM, its recursion's frames RT_DEEP) or of bench/deep.c (MODE
# "native"); prints "NS_PER_SAMPLE SAMPLES DEEP_FRAMES USER_FRAMES
# READ_US_PER_SAMPLE".
deep_one() {
	local mode=$1 depth=$2 ns samples df uf comm=deep-nofp re='^rec$'
	local rd=(${read_args[@]+"${read_args[@]}"} -o "$tmp/deep.folded")
	cmd=("$DEEP" "$depth" "$BPF_SECONDS")
	if [ "$mode" = runtime ]; then
		rt_cmd "$depth" "$BPF_SECONDS"
		comm=$RT_COMM re=$RT_DEEP
	fi
	ns=$(session_ns "$mode, depth $depth" "${#rd[@]}" "${rd[@]}" -F "$FREQ" \
		-C "$BENCH_CPU" -- taskset -c "$BENCH_CPU" "${cmd[@]}")
	read -r samples df uf <<< "$(deep_frames "$tmp/deep.folded" "$comm" "$re")"
	[ "$samples" -gt 0 ] || die "no samples of the recursion ($mode, depth $depth)"
	echo "$ns $samples $df $uf $(read_us "$samples")"
}

# deep_compare LABEL: the runtime (LABEL in the tables) against native
# stacks at each depth of $DEPTHS, $RUNS paired runs, after one unmeasured
# run that fills the unwind-table cache; prints the tables.
deep_compare() {
	local d rns ruf nns nuf
	one() { deep_one "$@"; }	# paired_runs' (bpf_events.bash)
	deep_one runtime "${DEPTHS%% *}" > /dev/null
	paired_runs "$bench_name" runtime native
	per() { awk -v a="$1" -v f="$2" 'BEGIN { printf "%.0f", f ? a / f : 0 }'; }
	printf '%-6s | %-19s | %-18s | %-13s | %-13s | %-14s | %-16s\n' "depth" \
		"BPF ns/sample: $1" "native" "$1 frames" "native fr" "ns/frame: $1" \
		"ns/frame: native"
	for d in $DEPTHS; do
		rns=$(col "$d" 2) ruf=$(col "$d" 5) nns=$(col "$d" 7) nuf=$(col "$d" 10)
		printf '%-6s | %-19s | %-18s | %-13s | %-13s | %-14s | %-16s\n' "$d" "$rns" \
			"$nns" "$(col "$d" 4) ($ruf)" "$(col "$d" 9) ($nuf)" "$(per "$rns" "$ruf")" \
			"$(per "$nns" "$nuf")"
	done
	printf '\n%-6s | %-26s | %-26s\n' "depth" "probe-read us/sample: $1" "native"
	for d in $DEPTHS; do
		printf '%-6s | %-26s | %-26s\n' "$d" "$(col "$d" 6)" "$(col "$d" 11)"
	done
}
