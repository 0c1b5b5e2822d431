#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# load_events.sh BUILD DIR: load probekit once per kind of event on this
# kernel, each a session of its own around `true`, and print one line each:
# "EVENT ok", "EVENT refused REASON" where this kernel cannot have it (no
# kprobes), or "EVENT FAIL LAST-LINE". DIR/load-EVENT.log keeps libbpf's
# whole log (-v), the verifier's included.
build=${1:?usage: load_events.sh BUILD DIR}
dir=${2:?usage: load_events.sh BUILD DIR}
pin=/sys/fs/bpf/probekit-matrix
libc=$(ldd /bin/true | awk '/libc\.so/ { print $3 }')

kprobes=yes
[ -e /sys/kernel/tracing/kprobe_events ] || kprobes=no

try() {
	local what=$1 rc
	shift
	"$build/probe-load" -v --pin-dir "$pin" "$@" -- true > "$dir/load-$what.log" 2>&1
	rc=$?
	"$build/probe-load" --unload --pin-dir "$pin" >/dev/null 2>&1
	if [ $rc -eq 0 ]; then
		echo "$what ok"
	elif [ "$what" = kprobe -o "$what" = kretprobe ] && [ $kprobes = no ]; then
		echo "$what refused this kernel has no kprobes: $(tail -n 1 "$dir/load-$what.log")"
	else
		echo "$what FAIL $(grep -v '^libbpf:' "$dir/load-$what.log" | tail -n 1)"
	fi
}

try dwarf
try fp --unwind fp
# bpf_get_current_ancestor_cgroup_id, which --cgroup adds to every
# program (cgroup2 is mounted by guest.sh)
try cgroup --cgroup /
try off-cpu -e off-cpu
try page-faults -e page-faults
try tracepoint -e tracepoint:syscalls:sys_enter_write
try uprobe -e "uprobe:$libc:write"
try kprobe -e kprobe:vfs_write
try kretprobe -e kretprobe:vfs_write
