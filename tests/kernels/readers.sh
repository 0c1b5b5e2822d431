#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# readers.sh BUILD DIR: system-wide sessions one after the other in one
# boot, each read by its own probe-read (the sanitized build: ASan stops a
# reader on a bad write), as a user's sessions are. Every reader but the
# first answers kernel frames from the symbol table the first saved
# (symbolization/kernel_syms.h): the path that overflowed its ranges on
# a kernel with 16 modules, which no host test could run (no modules).
# Samples are taken where ext4 (a module in Debian's kernels) writes the
# files of /tmp (the guest's ext4 disk), so that every stack holds a
# module's function and vmlinux's. Prints one line: "readers ok DETAIL"
# or "readers FAIL WHY"; DIR/readers-N.{folded,log} keep each reader's
# output and messages.
build=${1:?usage: readers.sh BUILD DIR}
dir=${2:?usage: readers.sh BUILD DIR}
pin=/sys/fs/bpf/probekit-readers
readers=3
work=$(mktemp -d /tmp/pk-readers.XXXXXX) || { echo "readers FAIL no temporary folder"; exit; }
export PROBEKIT_CACHE_DIR=$work/cache

cleanup() {
	"$build/probe-load" --unload --pin-dir "$pin" >/dev/null 2>&1
	rm -rf "$work"
}
trap cleanup EXIT

fail() {
	echo "readers FAIL $*"
	exit 0
}

# The module the samples are taken in: none on a kernel without modules
# (this host's), which still checks the readers and the saved table.
module= nmod=0
if [ -e /proc/modules ]; then
	grep -q '^ext4 ' /proc/modules || fail "ext4 is not a module here: no module's frames to check"
	[ "$(stat -f -c %T "$work")" = ext2/ext3 ] || fail "$work is not on ext4"
	module=ext4
	# the saved table holds one range per module with an address, then
	# vmlinux's: the count said, as the fakes of the host's kernel_syms
	# suite cover the edges (16, 32, 64, 128) this kernel may not have
	nmod=$(awk '$6 ~ /^0x/ && $6 !~ /^0x0+$/' /proc/modules | wc -l)
fi

boot=$(cat /proc/sys/kernel/random/boot_id)
syms=$PROBEKIT_CACHE_DIR/kernel/$boot.syms
first_inode=
cached=
for r in $(seq "$readers"); do
	log=$dir/readers-$r.log out=$dir/readers-$r.folded
	# ext4_write_begin or ext4_da_write_begin, as the mount has it
	"$build/probe-load" --pin-dir "$pin" -e 'tracepoint:ext4:ext4_*write_begin' > "$log" 2>&1 ||
		fail "probe-load (reader $r): $(tail -n 1 "$log")"
	for i in $(seq 50); do
		echo "$i" > "$work/f$i"
	done
	dd if=/dev/zero of="$work/big" bs=4k count=64 conv=fsync status=none
	"$build/probe-read" --pin-dir "$pin" -d 1 -o "$out" >> "$log" 2>&1
	rc=$?
	"$build/probe-load" --unload --pin-dir "$pin" >> "$log" 2>&1
	[ $rc -eq 0 ] || fail "probe-read $r of $readers exited $rc: $(grep -m1 -E 'ERROR|probe-read:' "$log")"
	# vmlinux's frames (vfs_write), the module's ("name [ext4]")
	grep -qE ';(ksys|vfs)_write_\[k\]' "$out" || fail "reader $r: no vmlinux frame (vfs_write) in $out"
	if [ -n "$module" ]; then
		grep -qE " \\[$module\\]_\\[k\\]" "$out" || fail "reader $r: no frame of $module in $out"
	fi
	[ -e "$syms" ] || fail "reader $r kept no kernel symbol table ($syms)"
	inode=$(stat -c %i "$syms")
	if [ $r -eq 1 ]; then
		first_inode=$inode
		continue
	fi
	# read, not saved again (a table refused is replaced)
	[ "$inode" = "$first_inode" ] || fail "reader $r did not use the table reader 1 saved"
	n=$(sed -nE 's/.* ([0-9]+) from earlier readers. caches.*/\1/p' "$log")
	[ "${n:-0}" -gt 0 ] || fail "reader $r answered nothing from earlier readers' caches"
	cached="$cached $n"
done
echo "readers ok $readers readers, kernel frames${module:+ and the module $module (of $nmod)}; addresses from earlier readers' caches:$cached"
