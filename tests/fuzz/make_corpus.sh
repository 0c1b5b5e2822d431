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
# corpus/record/NAME: ring-buffer records as bpf/probekit.h lays them out:
#   samples of layout 1 (frames at 56), layout 2 (frames at 96, with and
#   without a DWARF walk), layout 3 (frames at 112: weight and event) and
#   layout 4 (frames at 120, a stack copy after them), layout 5 (frames at
#   128, Python frames after the user frames), layout 6 (frames at 136:
#   the definition of an aggregated stack), no-table events and Python
#   code reports.
# corpus/gopclntab/main-goVER: the Go fixture's .gopclntab (tests/go.mk)
#   cut down to package main's functions, per toolchain
#   (gopclntab_seed.py).
# corpus/py_linetable/NAME: a first line (4 bytes little-endian) and a
#   CPython 3.11 location table, of real functions (python3.11).
# corpus/py_debug_offsets/NAME: the first 1 KiB of _PyRuntime (its
#   _Py_DebugOffsets) of the test roots' python3.13, 3.14 and -dbg builds
#   (tests/roots/README.md; PROBEKIT_ROOTS, default /var/cache/probekit-roots).
# corpus/hotspot/jdk17-layout: a JVM's vmStructs tables as fuzz_hotspot
#   reads them, with OpenJDK 17's entry layouts (hotspot_seed.py).
# corpus/hs_lines/leaf-jdkN: Hot.leaf's line number table (fuzz_hs_lines's
#   input: coding byte, bci 13, the table) in JDK 17's and 21's int
#   codings; made once by hand from Hot.class's pairs, not regenerated.
# corpus/hs_scopes/hot-jdkN: an nmethod's PcDescs, scopes and metadata
#   (fuzz_hs_scopes's input) as HotSpot lays them out for top inlining mid
#   inlining leaf, in JDK 17's and 21's int codings; made once by hand
#   (test_hotspot_scopes.c's nmethod), not regenerated.
# corpus/v8/nodeN-libnode: the test roots' libnode metadata (every v8dbg_
#   symbol and its value) in a small ELF, node 20 and 24 (v8_seed.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
B=${1:-build}
OUT=tests/fuzz/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# le N V: V as N bytes little-endian
le() {
	local n=$1 v=$2 i

	for ((i = 0; i < n; i++)); do
		printf "\\x$(printf %02x $(((v >> (8 * i)) & 255)))"
	done
}

le32() {
	le 4 "$1"
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
# sample NAME LAYOUT(1|2|3) FLAGS END FP_FRAMES "FP_MASK_WORDS" "KERNEL" "USER"
#        [WEIGHT EVENT]: pid 42, tid 43, cpu 1, comm fp_chain; frames leaf first.
sample() {
	local name=$1 layout=$2 flags=$3 end=$4 fpn=$5 mask=$6 k=($7) u=($8)
	local weight=${9:-0} event=${10:-0} off=56 w a

	[ "$layout" = 2 ] && off=96
	[ "$layout" = 3 ] && off=112
	{ le 2 1; le 2 $((off + 8 * (${#k[@]} + ${#u[@]}))); le 4 "$flags"
	  le 8 123456789; le 4 42; le 4 43; le 4 1
	  le 2 ${#k[@]}; le 2 ${#u[@]}; le 2 $off; le 6 0
	  printf 'fp_chain'; le 8 0
	  if [ "$layout" -ge 2 ]; then
		le 1 "$end"; le 1 0; le 2 "$fpn"; le 4 0
		for w in $mask; do le 8 "$w"; done
	  fi
	  if [ "$layout" = 3 ]; then
		le 8 "$weight"; le 2 "$event"; le 6 0
	  fi
	  for a in "${k[@]}" "${u[@]}"; do le 8 "$a"; done
	} > "$OUT/record/$name"
}

# sample_copy NAME "KERNEL" "USER" LEN: layout 4, a DWARF walk that stopped
# for want of a table (PK_END_NO_TABLE) with the last user frame's registers
# (RSP 0x7ffd10000100), the initial SP 0x7ffd10001000, and LEN bytes of
# stack from RSP - 128 after the frames.
sample_copy() {
	local name=$1 k=($2) u=($3) len=$4 off=120 a r copy_off
	local last=${u[${#u[@]} - 1]}

	copy_off=$((off + 8 * (${#k[@]} + ${#u[@]})))
	{ le 2 1; le 2 $((copy_off + 168 + len)); le 4 48
	  le 8 123456789; le 4 42; le 4 43; le 4 1
	  le 2 ${#k[@]}; le 2 ${#u[@]}; le 2 $off; le 6 0
	  printf 'fp_chain'; le 8 0
	  le 1 3; le 1 0; le 2 0; le 4 0; le 8 0; le 8 0; le 8 0; le 8 0
	  le 8 1; le 2 0; le 6 0
	  le 2 "$copy_off"; le 6 0
	  for a in "${k[@]}" "${u[@]}"; do le 8 "$a"; done
	  for r in $(seq 0 16); do
		case $r in 7) le 8 0x7ffd10000100;; 16) le 8 "$last";; *) le 8 $((r + 1));; esac
	  done
	  le 4 0x1ffff; le 4 1; le 8 $((0x7ffd10000100 - 128)); le 4 "$len"; le 4 0
	  le 8 0x7ffd10001000
	  for ((a = 0; a < len; a += 8)); do le 8 0x555555554080; done
	} > "$OUT/record/$name"
}

# no_table NAME DEV INO START END PGOFF PID
no_table() {
	{ le 2 2; le 2 56; le 4 0
	  le 8 "$2"; le 8 "$3"; le 8 "$4"; le 8 "$5"; le 8 "$6"; le 4 "$7"; le 4 0
	} > "$OUT/record/$1"
}

mkdir -p "$OUT/record"
kern="0xffffffff81000000 0xffffffff81000010 0xffffffff81000020 0xffffffff81000030 0xffffffff81000040"
user4="0x555555554000 0x555555554020 0x555555554040 0x555555554060"
user6="$user4 0x555555554080 0x5555555540a0"
sample sample_kernel 1 0 0 0 "" "$kern" "$user4"
sample sample_user 1 0 0 0 "" "" "$user6"
sample sample_fp 2 8 0 0 "0 0 0 0" "$kern" "$user6"
# PK_SAMPLE_USTACK_DWARF, PK_END_FP_FALLBACK, frames 2 and 5 by frame pointer
sample sample_dwarf 2 16 7 2 "0x24 0 0 0" "$kern" "$user6"
sample sample_dwarf_empty 2 18 5 0 "0 0 0 0" "" ""
# layout 3: off-cpu (event 1, 2.5 ms blocked) with a DWARF walk; a probe hit
# (event 3, one in 10 sampled) with frame pointers
sample sample_offcpu 3 16 1 0 "0 0 0 0" "$kern" "$user6" 2500000 1
sample sample_probe 3 0 0 0 "0 0 0 0" "$kern" "$user4" 10 3
# layout 4: the walk stopped at its third user frame, 256 bytes of stack
sample_copy sample_copy "$kern" "0x555555554000 0x555555554020 0x555555554040" 256
# the vDSO (dev 0, ino ~0) and a file on 8:3
no_table no_table 0x800003 1234 0x7fabcdef0000 0x7fabcdef3000 5 42
no_table no_table_vdso 0 -1 0x7ffd1000 0x7ffd3000 0 42

# sample_py NAME "USER" "PYTHON": layout 5, a complete DWARF walk of the
# user frames and a complete Python walk.
sample_py() {
	local name=$1 u=($2) p=($3) off=128 a

	{ le 2 1; le 2 $((off + 8 * (${#u[@]} + ${#p[@]}))); le 4 80
	  le 8 123456789; le 4 42; le 4 43; le 4 1
	  le 2 0; le 2 ${#u[@]}; le 2 $off; le 6 0
	  printf 'python3\0'; le 8 0
	  le 1 1; le 1 0; le 2 0; le 4 0; le 8 0; le 8 0; le 8 0; le 8 0
	  le 8 10101010; le 2 0; le 6 0
	  le 2 0; le 6 0
	  le 2 ${#p[@]}; le 1 1; le 1 0; le 4 0
	  for a in "${u[@]}" "${p[@]}"; do le 8 "$a"; done
	} > "$OUT/record/$name"
}

# sample_agg NAME "KERNEL" "USER" KEY: layout 6, a complete DWARF walk
# sent as the definition of aggregated stack KEY (PK_SAMPLE_AGG_DEF).
sample_agg() {
	local name=$1 k=($2) u=($3) key=$4 off=136 a

	{ le 2 1; le 2 $((off + 8 * (${#k[@]} + ${#u[@]}))); le 4 144
	  le 8 123456789; le 4 42; le 4 43; le 4 1
	  le 2 ${#k[@]}; le 2 ${#u[@]}; le 2 $off; le 6 0
	  printf 'fp_chain'; le 8 0
	  le 1 1; le 1 0; le 2 0; le 4 0; le 8 0; le 8 0; le 8 0; le 8 0
	  le 8 10101010; le 2 0; le 6 0
	  le 2 0; le 6 0
	  le 2 0; le 1 0; le 1 0; le 4 0
	  le 8 "$key"
	  for a in "${k[@]}" "${u[@]}"; do le 8 "$a"; done
	} > "$OUT/record/$name"
}

# py_code NAME FLAGS CODE QUALNAME FILE LINETABLE_HEX
py_code() {
	local name=$1 flags=$2 code=$3 q=$4 f=$5 lt=$6
	local size=$((48 + ${#q} + ${#f} + ${#lt} / 2))

	{ le 2 4; le 2 "$size"; le 4 "$flags"
	  le 4 42; le 4 0x030b02f0; le 8 "$code"; le 4 12; le 4 1
	  le 2 ${#q}; le 2 ${#f}; le 2 $((${#lt} / 2)); le 6 0
	  le 4 0	# the struct's tail padding: its data starts at 48
	  printf "%s%s" "$q" "$f"; printf "$(printf %s "$lt" | sed "s/../\\\\x&/g")"
	} > "$OUT/record/$name"
}

# v8_sfi NAME FLAGS SFI FUNCTION SCRIPT
v8_sfi() {
	local name=$1 flags=$2 sfi=$3 fn=$4 f=$5
	local size=$((32 + ${#fn} + ${#f}))

	{ le 2 6; le 2 "$size"; le 4 "$flags"
	  le 4 42; le 4 0; le 8 "$sfi"
	  le 2 ${#fn}; le 2 ${#f}; le 4 0
	  printf "%s%s" "$fn" "$f"
	} > "$OUT/record/$name"
}

# eval, a C call, eval, main; Python: a leaf, the frame that entered the
# first eval call, the module that entered the second
sample_py sample_python "0x555555560000 0x555555561000 0x555555560010 0x555555554000" \
	"$(((3 << 48) | 0x7f0000001000)) $(((9 << 48) | (1 << 63) | 0x7f0000002000)) \
	 $(((1 << 48) | (1 << 63) | 0x7f0000003000))"
sample_agg sample_agg_def "$kern" "$user4" 0x0123456789abcdef
py_code py_code 0 0x7f0000001000 Job.run /srv/app/job.py 8000d80809882189038041d80b0c8048
py_code py_code_trunc 6 0x7f0000002000 "<module>" ...app/main.py 80f0480300018000
v8_sfi v8_sfi 0 0x3f0012345679 leaf /srv/app/hot.js
v8_sfi v8_sfi_unreadable 12 0x3f0012345681 "" ""

mkdir -p "$OUT/py_linetable"
/usr/bin/python3.11 - "$OUT/py_linetable" <<'PY'
import argparse, struct, sys, textwrap
def walk(co):
    yield co
    for c in co.co_consts:
        if hasattr(c, 'co_linetable'):
            yield from walk(c)
out = sys.argv[1]
seeds = {
    'textwrap-fill': textwrap.fill.__code__,
    'textwrap-wrap': textwrap.TextWrapper._wrap_chunks.__code__,
    'argparse-parse-known': argparse.ArgumentParser._parse_known_args.__code__,
}
src = compile(open(argparse.__file__).read(), argparse.__file__, 'exec')
seeds['argparse-module'] = src
for name, co in seeds.items():
    with open(f'{out}/{name}', 'wb') as f:
        f.write(struct.pack('<i', co.co_firstlineno) + co.co_linetable[:2048])
PY

mkdir -p "$OUT/py_debug_offsets"
roots=${PROBEKIT_ROOTS:-/var/cache/probekit-roots}
for f in trixie/usr/bin/python3.13 trixie/usr/bin/python3.13d sid/usr/bin/python3.14 \
	 sid/usr/bin/python3.14d; do
	{ readelf -W --dyn-syms "$roots/$f"; readelf -W -S "$roots/$f"; } |
	python3 -c '
import re, sys
lines = sys.stdin.read().splitlines()
addr = next(int(l.split()[1], 16) for l in lines if l.split()[-1:] == ["_PyRuntime"])
for l in lines:
    m = re.match(r"\s*\[\s*\d+\]\s+\S+\s+(\S+)\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", l)
    if m and m.group(1) != "NOBITS":
        a, o, n = (int(m.group(i), 16) for i in (2, 3, 4))
        if a and a <= addr < a + n:
            data = open(sys.argv[1], "rb").read()
            open(sys.argv[2], "wb").write(data[o + addr - a:o + addr - a + 1024])
' "$roots/$f" "$OUT/py_debug_offsets/${f##*/}"
done

mkdir -p "$OUT/gopclntab"
for v in go1.19 go1.24 go1.27; do
	tests/fuzz/gopclntab_seed.py "$B/fixtures_go/gochain-$v-strip" "$OUT/gopclntab/main-$v"
done

mkdir -p "$OUT/hotspot"
tests/fuzz/hotspot_seed.py "$OUT/hotspot/jdk17-layout"
mkdir -p "$OUT/v8"
tests/fuzz/v8_seed.py "$roots/trixie/usr/lib/x86_64-linux-gnu/libnode.so.115" \
	"$OUT/v8/node20-libnode"
tests/fuzz/v8_seed.py "$roots/sid/usr/lib/x86_64-linux-gnu/libnode.so.137" \
	"$OUT/v8/node24-libnode"

du -sh "$OUT"
