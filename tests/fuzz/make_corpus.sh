#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Regenerate the fuzz seed corpora from real CFI; run by hand after `make
# test-programs` (the output is committed, it must stay small):
#   tests/fuzz/make_corpus.sh [BUILD]
# corpus/cfi/NAME: 1 byte syntax (1 .eh_frame, 0 .debug_frame), the section's
#   address as 4 bytes little-endian, then the section's bytes: whole small
#   sections of the oracle fixtures and a few CIE+FDE slices of system
#   libraries (cut at entry boundaries, so FDEs keep their CIEs).
# corpus/cache/NAME: cache files eh2table writes for some fixtures.
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
OUT=tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

le32() {
	local v=$1 i

	for i in 0 1 2 3; do
		printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"
	done
}

section_addr() {
	readelf -S -W "$1" | awk -v s="$2" '$2 == s { print "0x" $4 }'
}

# Entry offsets of SECTION as readelf prints them (CIEs and FDEs).
entry_offsets() {
	# readelf exits 1 on libc.so.6 (no interpreter name) after a full dump
	{ readelf --debug-dump=frames "$1" 2>/dev/null || true; } | awk -v s="$2" '
		/^Contents of the / { on = index($0, "of the " s " section") > 0; next }
		on && /^[0-9a-f]+ [0-9a-f]+ [0-9a-f]+ (CIE|FDE)/ { print $1 }' |
	while read -r off; do echo $((16#$off)); done
}

# seed NAME ELF SECTION [FIRST_ENTRY_OFFSET NUMBER_OF_ENTRIES]
seed() {
	local name=$1 elf=$2 sec=$3 first=${4:-} count=${5:-}
	local eh=0 addr start=0 len end

	[ "$sec" = .eh_frame ] && eh=1
	objcopy --dump-section "$sec=$tmp/sec" "$elf" "$tmp/junk"
	addr=$(($(section_addr "$elf" "$sec")))
	len=$(stat -c %s "$tmp/sec")
	if [ -n "$first" ]; then
		start=$first
		end=$(entry_offsets "$elf" "$sec" | awk -v f="$first" -v n="$count" \
			'$1 >= f && !done { if (k++ == n) { print; done = 1 } }')
		len=$((${end:-$len} - start))
	fi
	{ printf "\\x0$eh"; le32 $((addr + start)); \
	  dd if="$tmp/sec" bs=1 skip="$start" count="$len" status=none; } > "$OUT/cfi/$name"
}

mkdir -p "$OUT/cfi" "$OUT/cache"
seed c-gcc-O2 "$B/oracle/cfi_c-gcc-O2" .eh_frame
seed cxx-gcc-O2 "$B/oracle/cfi_cxx-gcc-O2" .eh_frame
seed cxx-clang-O0 "$B/oracle/cfi_cxx-clang-O0" .eh_frame 0 40
seed asm-gcc-eh "$B/oracle/cfi_asm-gcc" .eh_frame
seed asm-gcc-debug "$B/oracle/cfi_asm-gcc" .debug_frame
seed dbg-clang-O2 "$B/oracle/cfi_dbg-clang-O2" .debug_frame
libc=/usr/lib/x86_64-linux-gnu/libc.so.6
seed libc-head "$libc" .eh_frame 0 24
sig=$((16#$({ readelf --debug-dump=frames-interp "$libc" || true; } | awk '/CIE "zRS"/ && !n++ { print $1 }')))
seed libc-sigreturn "$libc" .eh_frame "$sig" 2
seed libstdc++-head /usr/lib/x86_64-linux-gnu/libstdc++.so.6 .eh_frame 0 24
seed python-head /usr/bin/python3.11 .eh_frame 0 24

for f in cfi_c-gcc-O2 cfi_cxx-gcc-O2 cfi_asm-clang; do
	"$B/eh2table" --cache-dir "$tmp/cache" --force "$B/oracle/$f" > /dev/null
done
rm -f "$OUT"/cache/*.unwind
find "$tmp/cache" -name '*.unwind' | sort | while read -r f; do
	cp "$f" "$OUT/cache/$(basename "$f" .unwind | cut -c1-12).unwind"
done
du -sh "$OUT"
