#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# fetch.sh NAME CACHE: make CACHE/NAME-VERSION/{vmlinuz,initrd.img,modules}
# for a kernel of kernels.list, from Debian's own package, and print that
# directory. The package comes from `apt-get download` (the only network
# there is) and is kept, so a second run costs nothing.
#
# The initramfs holds busybox, the modules that reach the host's root file
# system over virtio-9p, overlayfs (for the tests of files on it: the host
# has no /lib/modules of the guest's kernel), virtio-blk and ext4 (a disk
# for /tmp: block I/O, major faults), and init.sh. The modules come from the package itself, in the order
# depmod gives them, decompressed because busybox's insmod reads plain .ko.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: fetch.sh NAME CACHE}
cache=${2:?usage: fetch.sh NAME CACHE}

read -r pkg version < <(awk -v n="$name" '$1 == n && !/^#/ { print $2, $3 }' \
	"$here/kernels.list")
if [ -z "${pkg:-}" ]; then
	echo "fetch.sh: kernel '$name' is not in $here/kernels.list" >&2
	exit 2
fi
for tool in apt-get dpkg-deb depmod modprobe busybox xz; do
	command -v $tool >/dev/null || {
		echo "fetch.sh: $tool is missing (make test-deps installs it)" >&2; exit 2; }
done

# The folder is named by the recipe too: a change to this script or to
# init.sh builds a new initramfs.
recipe=$(cat "$here/fetch.sh" "$here/init.sh" | md5sum | cut -c1-8)
dir=$cache/$name-$version-$recipe
if [ -s "$dir/vmlinuz" ] && [ -s "$dir/initrd.img" ]; then
	echo "$dir"
	exit 0
fi
mkdir -p "$cache"
deb="$cache/${pkg}_${version}_amd64.deb"
deb=${deb//:/%3a}
if [ ! -s "$deb" ]; then
	# apt's sandbox user cannot write root's cache: download as root, into
	# a private folder, then move the file in whole.
	dl=$(mktemp -d "$cache/.dl.XXXXXX")
	if ! (cd "$dl" && apt-get download -q "$pkg=$version" >/dev/null 2>"$dl/err"); then
		echo "fetch.sh: apt-get download $pkg=$version failed:" \
			"$(grep -v '^W:' "$dl/err" | tail -n 1)" >&2
		echo "fetch.sh: if the archive dropped that version, move the pin in" \
			"$here/kernels.list to one \`apt-cache madison $pkg\` lists" >&2
		rm -rf "$dl"
		exit 1
	fi
	mv "$dl"/*.deb "$deb"
	rm -rf "$dl"
fi

tmp=$(mktemp -d "$cache/.x.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -x "$deb" "$tmp/pkg"
kver=$(ls "$tmp/pkg/lib/modules")
depmod -b "$tmp/pkg" "$kver"

# the initramfs: busybox and its applets, the modules, init.sh
ird=$tmp/initrd
mkdir -p "$ird/bin" "$ird/mods" "$ird/dev" "$ird/proc" "$ird/sys" "$ird/mnt"
cp /bin/busybox "$ird/bin/busybox"
for a in $("$ird/bin/busybox" --list); do
	[ "$a" = busybox ] || ln -s busybox "$ird/bin/$a"
done
modprobe -d "$tmp/pkg" -S "$kver" -a --show-depends \
		virtio_pci 9pnet_virtio 9p overlay virtio_blk ext4 |
	awk '$1 == "insmod" && !seen[$2]++ { print $2 }' |
	while read -r ko; do
		ko_name=$(basename "$ko"); ko_name=${ko_name%.xz}; ko_name=${ko_name%.zst}
		case $ko in
		*.xz) xz -dc "$ko" ;;
		*.zst) zstd -qdc "$ko" ;;
		*) cat "$ko" ;;
		esac > "$ird/mods/$ko_name"
		echo "$ko_name" >> "$ird/mods/order"
	done
cp "$here/init.sh" "$ird/init"
chmod 0755 "$ird/init"

mkdir -p "$tmp/out"
(cd "$ird" && find . | busybox cpio -o -H newc 2>/dev/null | gzip -1) > "$tmp/out/initrd.img"
cp "$tmp/pkg/boot/vmlinuz-$kver" "$tmp/out/vmlinuz"
cp "$tmp/pkg/boot/config-$kver" "$tmp/out/config"
echo "$kver" > "$tmp/out/release"
rm -rf "$dir"
mv "$tmp/out" "$dir"
echo "$dir"
