#!/bin/sh
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# The guest's first init, in the initramfs (busybox): load the modules that
# reach the host's root file system, mount it read-only over virtio-9p, so
# that the guest sees the host's tree at the same paths, then hand over to
# guest.sh (named on the kernel command line, pkguest=PATH), which puts
# tmpfs where the guest writes. Not an overlay: files on overlayfs have
# another inode in /proc/PID/maps than stat() gives (a case of its own,
# tested as such), and every file of the tree would be one.
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

mkdir -p /mnt/root
mount -t 9p -o ro,trans=virtio,version=9p2000.L,msize=1048576,cache=loose \
	pkroot /mnt/root || die "cannot mount the host's root over 9p"
umount /proc /sys
mount --move /dev /mnt/root/dev
exec switch_root /mnt/root /bin/bash "$guest"
