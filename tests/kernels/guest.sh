#!/bin/bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# PID 1 of a matrix guest, on the host's tree, read-only (see init.sh):
# mount what a profiler needs as a machine booted normally has it, tmpfs
# where programs write, run the job boot.sh left in the shared output
# folder, keep its status there, and power off.
# Named on the kernel command line by boot.sh: pkout=, the output folder,
# shared read-write at the same path.
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root TERM=dumb LANG=C.UTF-8

off() {
	sync
	echo o > /proc/sysrq-trigger
	sleep 60
}
trap off EXIT

mount -t proc proc /proc
mount -t sysfs sysfs /sys
mkdir -p /dev/pts /dev/shm
mount -t devpts -o newinstance,ptmxmode=0666 devpts /dev/pts
mount -t tmpfs tmpfs /dev/shm
mount -t bpf bpf /sys/fs/bpf
mount -t tracefs tracefs /sys/kernel/tracing
mount -t debugfs debugfs /sys/kernel/debug
mount -t cgroup2 cgroup2 /sys/fs/cgroup 2>/dev/null
ip link set lo up 2>/dev/null
hostname pk-guest

for arg in $(cat /proc/cmdline); do
	case $arg in
	pkout=*) out=${arg#pkout=} ;;
	pkkeep=*) keep=${arg#pkkeep=} ;;
	esac
done
# Where programs write, tmpfs: their temporary files, perf's ~/.debug, the
# unwind table cache in /var/cache/probekit. The host's tree stays at
# /mnt/host, so that the folders the job needs (pkkeep=: the source and the
# build, say a clone in /tmp) are put back in place over the tmpfs.
mount -t tmpfs tmpfs /mnt
mkdir /mnt/host
mount --bind / /mnt/host
for d in /tmp /run /var/tmp /var/cache /root; do
	mount -t tmpfs tmpfs "$d"
done
# /tmp on a disk of its own, where boot.sh gives one: the tests of block
# I/O and major faults need a block device under their files.
if [ -b /dev/vda ]; then
	umount /tmp
	mount -t ext4 /dev/vda /tmp && chmod 1777 /tmp
fi
for k in ${keep//:/ }; do
	mkdir -p "$k" 2>/dev/null
	mount --bind "/mnt/host$k" "$k" 2>/dev/null || true
done
mkdir -p "$out"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=1048576 pkout "$out" || {
	echo "guest: cannot mount the output folder" >&2; exit 1; }

echo "$(uname -r) up in $(cut -d' ' -f1 /proc/uptime) s" > "$out/up"
cd "$out"
bash "$out/job" > "$out/job.log" 2>&1 < /dev/null
echo $? > "$out/status.tmp" && mv "$out/status.tmp" "$out/status"
