#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# make_root.sh NAME CACHE: make CACHE/NAME, the Debian root of roots.list's
# line NAME, with debootstrap (minbase and the line's packages), from the
# Debian mirror this machine's apt sources name; print its path.
#
# The root is kept and reused while its recipe (the line, this script) is
# the same: CACHE/NAME/.probekit-root holds the recipe's hash. A changed
# recipe builds a new root beside the old one and swaps them, so that no
# test ever sees half a root.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
name=${1:?usage: make_root.sh NAME CACHE}
cache=${2:?usage: make_root.sh NAME CACHE}

read -r suite pkgs < <(awk -v n="$name" '$1 == n && !/^#/ { print $2, $3 }' \
	"$here/roots.list")
if [ -z "${suite:-}" ]; then
	echo "make_root.sh: root '$name' is not in $here/roots.list" >&2
	exit 2
fi
command -v debootstrap >/dev/null || {
	echo "make_root.sh: debootstrap is missing (make test-deps installs it)" >&2; exit 2; }

recipe=$( (awk -v n="$name" '$1 == n && !/^#/' "$here/roots.list"; cat "$0") |
	md5sum | cut -c1-12)
root=$cache/$name
if [ "$(cat "$root/.probekit-root" 2>/dev/null)" = "$recipe" ]; then
	echo "$root"
	exit 0
fi

# The mirror of the machine's own release, from its apt sources (deb822
# .sources files or one-line .list files): the first `deb` source whose
# suite is that release.
mirror() {
	local release
	release=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	{
		for f in /etc/apt/sources.list.d/*.sources; do
			[ -r "$f" ] || continue
			awk -v rel="$release" '
				/^[ \t]*$/ { if (deb && hit && uri) print uri
					     deb = hit = 0; uri = ""; next }
				tolower($1) == "types:" { for (i = 2; i <= NF; i++) if ($i == "deb") deb = 1 }
				tolower($1) == "uris:" { uri = $2 }
				tolower($1) == "suites:" { for (i = 2; i <= NF; i++) if ($i == rel) hit = 1 }
				END { if (deb && hit && uri) print uri }' "$f"
		done
		for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
			[ -r "$f" ] || continue
			awk -v rel="$release" '$1 == "deb" {
				i = 2
				if ($i ~ /^\[/) { while (i < NF && $i !~ /\]$/) i++; i++ }
				if ($(i + 1) == rel) print $i }' "$f"
		done
	} | sed -n 1p	# reads all: no SIGPIPE for pipefail to see
}
url=$(mirror)
if [ -z "$url" ]; then
	echo "make_root.sh: no Debian mirror in this machine's apt sources" >&2
	exit 1
fi

mkdir -p "$cache"
new=$(mktemp -d "$cache/.$name.XXXXXX")
log=$cache/$name.log
trap 'rm -rf "$new"' EXIT
echo "make_root.sh: debootstrap $suite into $root ($pkgs), from $url; log: $log" >&2
start=$SECONDS
if ! debootstrap --variant=minbase --include="$pkgs" "$suite" "$new" "$url" \
	>"$log" 2>&1; then
	echo "make_root.sh: debootstrap $suite failed: $(grep -E '^(E|W):' "$log" | tail -n 1)" >&2
	exit 1
fi
# debootstrap's apt lists and .debs are not needed to run anything
rm -rf "$new"/var/cache/apt/archives/*.deb "$new"/var/lib/apt/lists/*_Packages
mkdir -p "$new/mnt/probekit"	# in_root.sh binds the source tree there
echo "$recipe" >"$new/.probekit-root"
if [ -d "$root" ]; then
	mv "$root" "$new.old"
	mv "$new" "$root"
	rm -rf "$new.old"
else
	mv "$new" "$root"
fi
trap - EXIT
echo "make_root.sh: $name made in $((SECONDS - start)) s, $(du -sh "$root" | cut -f1)" >&2
echo "$root"
