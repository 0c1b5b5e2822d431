#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The guest's first init, in the initramfs (busybox): load the modules that
# reach the host's root file system, mount it read-only over virtio-9p with
# a tmpfs over it (overlayfs), so that the guest sees the host's tree at the
# same paths and writes only to its own memory, then hand over to
# guest.sh, which boot.sh named on the kernel command line (pkguest=PATH).
PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

die() {
	echo "init: $*" >&2
	echo o > /proc/sysrq-trigger
	sleep 10
}

while read -r ko; do
	insmod "/mods/$ko" || die "cannot load module $ko"
done < /mods/order

guest=
for arg in $(cat /proc/cmdline); do
	case $arg in pkguest=*) guest=${arg#pkguest=} ;; esac
done
[ -n "$guest" ] || die "no pkguest= on the kernel command line"

mkdir -p /mnt/lower /mnt/rw /mnt/root
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=1048576,cache=loose \
	pkroot /mnt/lower || die "cannot mount the host's root over 9p"
mount -t tmpfs -o mode=0755 rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work \
	root /mnt/root || die "cannot mount the overlay root"
umount /proc /sys
mount --move /dev /mnt/root/dev
exec switch_root /mnt/root /bin/bash "$guest"
