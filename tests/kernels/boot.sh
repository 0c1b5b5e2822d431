#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# boot.sh KERNEL_DIR OUT_DIR JOB: boot a kernel fetch.sh prepared, run the
# bash script JOB inside, on the host's own tree, and exit with its status.
# Its output is OUT_DIR/job.log, the kernel's console OUT_DIR/console.log.
#
# PK_GUEST_KEEP: folders (colon-separated) the job needs that may lie below
# a folder the guest gives a tmpfs of its own (/tmp, /run, /var/tmp,
# /var/cache, /root), as a clone in /tmp does.
#
# TCG, or KVM with PK_GUEST_ACCEL=kvm. PK_GUEST_CPUS and PK_GUEST_MEM
# size the guest (default 2 CPUs, 4 GiB, the tmpfs the guest writes to
# included), PK_GUEST_DISK the ext4 disk of its /tmp (default 8G, sparse);
# PK_GUEST_TIMEOUT (seconds, default 3600) ends a guest that hangs.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
kdir=$(cd "${1:?usage: boot.sh KERNEL_DIR OUT_DIR JOB}" && pwd)
out=${2:?usage: boot.sh KERNEL_DIR OUT_DIR JOB}
job=${3:?usage: boot.sh KERNEL_DIR OUT_DIR JOB}
mkdir -p "$out"
out=$(cd "$out" && pwd)
rm -f "$out/status" "$out/job.log" "$out/console.log" "$out/up"
cp "$job" "$out/job"

# TCG unless PK_GUEST_ACCEL=kvm. Nested KVM, all these machines offer, has
# failed three ways here: qemu aborting on an MSR it could not set, at
# once or (in CI) only once the guest ran; and an "emulation failure" in
# the kernel's decompressor that pauses the guest for good, a hang no probe
# sees coming. A matrix that must hold on any machine can't bet on it.
# TCG runs one thread for all the guest's CPUs: with a thread each
# (MTTCG), a CPU can run code another has just patched with int3 while the
# kernel patches its text (static keys at boot, tracepoints as BPF attaches)
# and die of the stale breakpoint, as 6.12 did in one boot of four.
case ${PK_GUEST_ACCEL:-tcg} in
tcg)
	accel=tcg
	accel_opts=,thread=single
	cpu=max
	;;
kvm)
	accel=kvm
	accel_opts=
	cpu=host
	;;
*)
	echo "boot.sh: PK_GUEST_ACCEL is tcg or kvm, not '$PK_GUEST_ACCEL'" >&2
	exit 2
	;;
esac
echo "$accel" > "$out/accel"

kver=$(cat "$kdir/release")
# /tmp's disk: an empty ext4 image, sparse, thrown away with the guest.
disk=$out/tmp.img
rm -f "$disk"
truncate -s "${PK_GUEST_DISK:-8G}" "$disk"
mkfs.ext4 -q -F "$disk"
trap 'rm -f "$disk"' EXIT

# A guest that dies before its job starts (no "up" file) is booted again,
# twice at most: under TCG a boot now and then panics early ("IO-APIC +
# timer doesn't work", a stale int3).
for boot in 1 2 3; do
	rc=0
	timeout --foreground -k 10 "${PK_GUEST_TIMEOUT:-3600}" \
	qemu-system-x86_64 -accel "$accel$accel_opts" -cpu "$cpu" \
		-smp "${PK_GUEST_CPUS:-2}" -m "${PK_GUEST_MEM:-4G}" \
		-display none -monitor none -no-reboot -nodefaults \
		-serial "file:$out/console.log" \
		-kernel "$kdir/vmlinuz" -initrd "$kdir/initrd.img" \
		-append "console=ttyS0 panic=-1 loglevel=4 mitigations=off pkguest=$here/guest.sh pkout=$out pkkeep=${PK_GUEST_KEEP:-}" \
		-virtfs "local,path=/,mount_tag=pkroot,security_model=none,readonly=on,multidevs=remap" \
		-virtfs "local,path=$out,mount_tag=pkout,security_model=none,multidevs=remap" \
		-drive "file=$disk,if=virtio,format=raw,cache=unsafe" \
		|| rc=$?
	[ -s "$out/up" ] && break
	# qemu may die before it made the console's file.
	touch "$out/console.log"
	echo "boot.sh: boot $boot of $kver ($accel) died before its job (qemu $rc): $(grep -m1 -i 'panic' "$out/console.log")" >&2
	cp "$out/console.log" "$out/console-$boot.log"
done
if [ ! -s "$out/status" ]; then
	echo "boot.sh: the guest ($kver) ended without a status (qemu $rc);" \
		"its console: $out/console.log" >&2
	tail -n 5 "$out/console.log" >&2 || true
	exit 125
fi
exit "$(cat "$out/status")"
