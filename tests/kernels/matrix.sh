#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# matrix.sh BUILD OUT [NAME[:SUITE,...]...]: the kernel matrix behind
# `make check-kernels`. For each kernel NAME of kernels.list (all when none
# is named; "host" is this machine's own kernel, run natively), boot it
# (boot.sh) and run there,
# against the programs and test runner in BUILD:
#   - one load of the BPF programs per kind of event, whose refusal shows
#     the verifier's last lines;
#   - system-wide sessions one after the other, each read by its own
#     probe-read, with vmlinux's and a module's frames (readers.sh);
#   - the check suites kernels.list names for it (or those after the colon),
#     one runner per suite.
# PK_READERS_BUILD names another build for readers.sh's programs (the
# sanitized one, kernels.mk). It prints one line per kernel and step,
# keeps every log under OUT/NAME/ (check's XML of each suite, with each
# case's time, among them), and exits non-zero when any step failed.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
build=$(cd "${1:?usage: matrix.sh BUILD OUT [NAME...]}" && pwd)
# readers.sh's probe-load and probe-read: a sanitized build's (kernels.mk)
readers_build=$(cd "${PK_READERS_BUILD:-$build}" && pwd)
out=${2:?usage: matrix.sh BUILD OUT [NAME...]}
shift 2
mkdir -p "$out" && out=$(cd "$out" && pwd)
cache=${KERNEL_CACHE:-/var/cache/probekit-kernels}

# Groups of suites kernels.list and the command line may name:
#   kernel  the suites of the kernel-facing parts, each on its own: CO-RE
#           reads and the kernel types they relocate against, kallsyms, tracefs events, loading and pinning, the unwind
#           maps, BPF cost, overlayfs keys, the DWARF walk over the
#           kernel's VMAs (dwarf), every event source (kprobes included),
#           the counts maps of --aggregate and their swap (aggregate_e2e);
#   bpf     every suite that loads real BPF: kernel's, and the end-to-end
#           suites of first samples, symbols and formats (tests/kernels/
#           README.md says which of those do not hold in a TCG guest yet).
# The other suites test user-space code on files and synthetic input, the
# same on every kernel, and run on the host only.
kernel_suites="core kernel_btf kallsyms event_list load_session unwind_files unwind_store
bpf_cost overlay dwarf event_sources aggregate_e2e"
bpf_suites="$kernel_suites first_samples profile_e2e symbols_e2e formats_e2e
inline_e2e perf_oracle"

names=("$@")
if [ ${#names[@]} -eq 0 ]; then
	mapfile -t names < <(awk '!/^#/ && NF { print $1 }' "$here/kernels.list")
	names+=(host)
fi

# SUITES (comma-separated names or groups) as a list of suites.
expand() {
	local s
	for s in $(echo "$1" | tr ',' ' '); do
		case $s in
		kernel) echo $kernel_suites ;;
		bpf) echo $bpf_suites ;;
		*) echo "$s" ;;
		esac
	done | tr '\n' ' '
}

suites_of() {
	local s
	if [ "$1" = host ]; then
		s=bpf
	else
		s=$(awk -v n="$1" '!/^#/ && $1 == n { print $4 }' "$here/kernels.list")
	fi
	if [ -z "$s" ]; then
		echo "matrix.sh: kernel '$1' is not in $here/kernels.list" >&2
		return 1
	fi
	expand "$s"
}

# The job each kernel runs, guest or host: a bash script with the paths
# baked in (the guest sees the host's tree at the same paths).
write_job() {
	local suites=$1 dir=$2
	cat > "$dir/job.sh" <<JOB
cd "$dir"
export CI=true PROBEKIT_BUILD="$build" PROBEKIT_SRC="$src"
# Wall-clock timeouts of the suites' cases, stretched as the machine is
# slow: TCG runs a guest 10 to 30 times slower than the host, more with
# other guests beside it. CPU budgets need no stretching.
case \$(cat "$dir/accel") in
tcg) multiplier=30 ;;
kvm) multiplier=3 ;;
*) multiplier=1 ;;
esac
export CK_TIMEOUT_MULTIPLIER=${CK_TIMEOUT_MULTIPLIER:-\$multiplier}
# A guest's build is on a read-only 9p: block I/O and major faults go to
# its /tmp, an ext4 disk (boot.sh).
[ "\$multiplier" = 1 ] || export PROBEKIT_DISK=/tmp
# Cases tagged more_variants repeat kernel-facing cases on more compiler
# and linker variants, and user_shapes test what differs in user code's
# unwinding rules only: the same on every kernel, the host runs them.
export CK_EXCLUDE_TAGS="more_variants user_shapes"
bash "$here/load_events.sh" "$build" "$dir" > "$dir/load.results" 2>&1
start=\$(date +%s)
bash "$here/readers.sh" "$readers_build" "$dir" > "$dir/readers.results" 2>&1
echo "\$(( \$(date +%s) - start ))" > "$dir/readers.secs"
for suite in $suites; do
	start=\$(date +%s)
	CK_RUN_SUITE=\$suite CK_XML_LOG_FILE_NAME="$dir/suite-\$suite.xml" \\
		"$build/tests/check_probekit" > "$dir/suite-\$suite.log" 2>&1
	rc=\$?
	echo "\$suite \$rc \$(( \$(date +%s) - start ))" >> "$dir/suite.results"
	# what the suite left of the guest's memory (its tmpfs included): a
	# guest that dies of it says so in the next suite's failure
	echo "\$suite \$(awk '/^MemAvailable:/ { print int(\$2 / 1024) }' /proc/meminfo)" \
		>> "$dir/mem.results"
done
JOB
}

# The verifier's last words before a refusal, from libbpf's log.
verifier_tail() {
	awk '/BEGIN PROG LOAD LOG/ { n = 0; keep = 1; next }
	     /END PROG LOAD LOG/ { keep = 0 }
	     keep { buf[n++ % 12] = $0 }
	     /failed to load/ && !done { for (i = (n > 12 ? n - 12 : 0); i < n; i++)
			print "         " buf[i % 12]; print "         " $0; done = 1 }' "$1"
}

# One kernel's run, host or guest, in the background: its result is the
# files under its folder.
run_kernel() {
	local name=$1 dir=$2 start=$(date +%s) kdir rc
	if [ "$name" = host ]; then
		uname -r > "$dir/release"
		echo native > "$dir/accel"
		(bash "$dir/job.sh") > "$dir/job.log" 2>&1
		rc=$?
	elif ! kdir=$("$here/fetch.sh" "$name" "$cache" 2> "$dir/qemu.log"); then
		rc=125
	else
		cp "$kdir/release" "$dir/release"
		PK_GUEST_KEEP="$src:$build:$readers_build" "$here/boot.sh" "$kdir" "$dir" "$dir/job.sh" > "$dir/qemu.log" 2>&1
		rc=$?
	fi
	echo "$rc $(( $(date +%s) - start ))" > "$dir/ran"
}

failed=0
declare -A suites_for
for arg in "${names[@]}"; do
	name=${arg%%:*}
	if [ "$arg" != "$name" ]; then
		suites=$(expand "${arg#*:}")
	else
		suites=$(suites_of "$name") || { failed=1; continue; }
	fi
	dir=$out/$name
	rm -rf "$dir" && mkdir -p "$dir"
	write_job "$suites" "$dir"
	suites_for[$name]=$suites
	# Kernels run side by side: TCG gives each guest one host thread.
	run_kernel "$name" "$dir" &
done
wait

printf '%-6s %-16s %s\n' kernel step result
for arg in "${names[@]}"; do
	name=${arg%%:*}
	[ -n "${suites_for[$name]:-}" ] || continue
	dir=$out/$name
	read -r rc secs < "$dir/ran"
	if [ ! -s "$dir/suite.results" ]; then
		printf '%-6s %-16s FAIL: the job did not run (status %s): %s\n' \
			"$name" boot "$rc" "$(tail -n 1 "$dir/qemu.log")"
		failed=1
		continue
	fi
	printf '%-6s %-16s %s, %s, %d s in all%s\n' "$name" kernel \
		"$(cat "$dir/release")" "$(cat "$dir/accel")" "$secs" \
		"$(sort -k2n "$dir/mem.results" 2>/dev/null | awk 'NR == 1 {
			printf ", %s MiB available at least (after %s)", $2, $1 }')"
	while read -r what status detail; do
		if [ "$status" = ok ]; then
			printf '%-6s %-16s ok\n' "$name" "load $what"
		elif [ "$status" = refused ]; then
			printf '%-6s %-16s refused as expected: %s\n' "$name" "load $what" "$detail"
		else
			failed=1
			printf '%-6s %-16s FAIL: %s\n' "$name" "load $what" "$detail"
			verifier_tail "$dir/load-$what.log"
		fi
	done < "$dir/load.results"
	status= detail=
	[ -s "$dir/readers.results" ] && read -r _ status detail < "$dir/readers.results"
	if [ "$status" = ok ]; then
		printf '%-6s %-16s ok: %s, %d s\n' "$name" readers "$detail" "$(cat "$dir/readers.secs")"
	else
		failed=1
		printf '%-6s %-16s FAIL: %s\n' "$name" readers "${detail:-no result}"
	fi
	while read -r suite src_rc secs_s; do
		log=$dir/suite-$suite.log
		summary=$(grep -E '^[0-9]+%: Checks' "$log" | tail -n 1)
		if [ "$src_rc" = 0 ]; then
			printf '%-6s %-16s ok: %s, %d s\n' "$name" "$suite" "$summary" "$secs_s"
		else
			failed=1
			printf '%-6s %-16s FAIL: %s, %d s\n' "$name" "$suite" "${summary:-no summary}" "$secs_s"
			grep -E ':[FE]:' "$log" | head -n 10 | sed 's/^/         /'
			verifier_tail "$log"
		fi
	done < "$dir/suite.results"
	# A guest that ended early (PK_GUEST_TIMEOUT, a crash) left suites
	# without a result: each is a failure, never a silent skip.
	missing=0
	for suite in ${suites_for[$name]}; do
		grep -q "^$suite " "$dir/suite.results" && continue
		missing=1
		printf '%-6s %-16s FAIL: no result: the guest ended (status %s) after %d s\n' \
			"$name" "$suite" "$rc" "$secs"
	done
	# why: boot.sh's last words and the kernel's (a panic, the OOM
	# killer), and the memory the last suite left
	if [ "$missing" = 1 ]; then
		tail -n 8 "$dir/qemu.log" | sed 's/^/         /'
		[ -s "$dir/mem.results" ] && tail -n 1 "$dir/mem.results" |
			awk '{ printf "         after %s: %s MiB available\n", $1, $2 }'
	fi
	if [ "$rc" != 0 ] && [ "$missing" = 0 ]; then
		missing=1
		printf '%-6s %-16s FAIL: the guest ended with status %s\n' "$name" kernel "$rc"
	fi
	[ "$missing" = 0 ] || failed=1
done
exit $failed
