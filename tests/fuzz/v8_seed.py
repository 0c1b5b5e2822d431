#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# v8_seed.py LIBNODE OUT: a seed of fuzz_v8 (tests/fuzz/fuzz_v8.c): a small
# 64-bit ELF with LIBNODE's postmortem metadata, every v8dbg_ symbol of its
# .dynsym (readelf --dyn-syms) with the int it has in the file (from the
# bytes of its section; 0 for those in .bss), laid out again: the nonzero
# ones in a .data, the zero ones in a .bss, a .dynsym and a .dynstr.
import struct
import subprocess
import sys

lib, out = sys.argv[1], sys.argv[2]


def sections(path):
    """index -> (type, addr, offset, size), from readelf -S."""
    res = {}
    text = subprocess.run(["readelf", "-SW", path], capture_output=True, text=True,
                          check=True).stdout
    for line in text.splitlines():
        line = line.replace("[ ", "[")
        if not line.strip().startswith("[") or "Nr]" in line:
            continue
        f = line.split()
        idx = int(f[0].strip("[]"))
        res[idx] = (f[2], int(f[3], 16), int(f[4], 16), int(f[5], 16))
    return res


secs = sections(lib)
syms = []
text = subprocess.run(["readelf", "-W", "--dyn-syms", lib], capture_output=True, text=True,
                      check=True).stdout
with open(lib, "rb") as f:
    for line in text.splitlines():
        fl = line.split()
        if len(fl) < 8 or not fl[7].startswith("v8dbg_") or not fl[6].isdigit():
            continue
        kind, addr, off, _ = secs[int(fl[6])]
        value = 0
        if kind == "PROGBITS":
            f.seek(off + int(fl[1], 16) - addr)
            value = struct.unpack("<i", f.read(4))[0]
        syms.append((fl[7].split("@")[0], value))

DATA, BSS = 0x1000, 0x100000
data, dynstr, dynsym = b"", b"\0", b"\0" * 24
nbss = 0
for name, value in syms:
    if value:
        st = (len(dynstr), 0x11, 0, 1, DATA + len(data), 4)
        data += struct.pack("<i", value)
    else:
        st = (len(dynstr), 0x11, 0, 2, BSS + 4 * nbss, 4)
        nbss += 1
    dynsym += struct.pack("<IBBHQQ", *st)
    dynstr += name.encode() + b"\0"
shstr = b"\0.data\0.bss\0.dynsym\0.dynstr\0.shstrtab\0"
o_data = 64
o_sym = o_data + len(data)
o_str = o_sym + len(dynsym)
o_shstr = o_str + len(dynstr)
o_sh = (o_shstr + len(shstr) + 7) & ~7


def shdr(name, typ, flags, addr, off, size, link=0, info=0, align=1, ent=0):
    return struct.pack("<IIQQQQIIQQ", name, typ, flags, addr, off, size, link, info, align, ent)


ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
        struct.pack("<HHIQQQIHHHHHH", 3, 62, 1, 0, 0, o_sh, 0, 64, 0, 0, 64, 6, 5))
body = ehdr + data + dynsym + dynstr + shstr
body += b"\0" * (o_sh - len(body))
body += shdr(0, 0, 0, 0, 0, 0)
body += shdr(1, 1, 3, DATA, o_data, len(data), align=4)
body += shdr(7, 8, 3, BSS, o_sym, 4 * nbss, align=4)
body += shdr(12, 11, 2, 0, o_sym, len(dynsym), link=4, info=1, align=8, ent=24)
body += shdr(20, 3, 2, 0, o_str, len(dynstr))
body += shdr(28, 3, 0, 0, o_shstr, len(shstr))
with open(out, "wb") as f:
    f.write(body)
