#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""gopclntab_seed.py BINARY OUT: a seed of tests/fuzz/fuzz_gopclntab.c
from a Go binary (tests/go.mk's fixtures): its .gopclntab cut down to the
functions of package main (a few kB where the whole is hundreds), each
with its pc tables, its files and its inline tree, renumbered into a
table of the same layout; then go:func.* of just those trees. Written
as the fuzz input: flags 0, the go:func.* length, the text address, the
table, go:func.*. Run by make_corpus.sh."""
import struct
import subprocess
import sys

binary, out = sys.argv[1], sys.argv[2]
data = open(binary, 'rb').read()


def sections():
    r = {}
    for line in subprocess.run(['readelf', '-SW', binary], capture_output=True,
                               text=True, check=True).stdout.splitlines():
        if ']' not in line or 'Nr]' in line:
            continue
        f = line.split(']')[1].split()
        if len(f) > 4:
            r[f[0]] = (int(f[2], 16), int(f[3], 16), int(f[4], 16))
    return r


secs = sections()
addr, off, size = secs['.gopclntab']
tab = data[off:off + size]
magic, = struct.unpack_from('<I', tab, 0)
ps = tab[7]
assert ps == 8 and magic in (0xfffffff0, 0xfffffff1)
hdr = struct.unpack_from('<8Q', tab, 8)
nfunc, nfiles, text, o_name, o_cu, o_file, o_pc, o_pcln = hdr
text = text or secs['.text'][0]
fsize, inl_size, inl_name = (40, 20, 12) if magic == 0xfffffff0 else (44, 16, 4)
pcln = tab[o_pcln:]
ftab = [struct.unpack_from('<II', pcln, 8 * i) for i in range(nfunc + 1)]


def cstr(base, o):
    return tab[base + o:tab.index(b'\0', base + o)]


def uvarint(b, i):
    v = s = 0
    while True:
        c = b[i]
        i += 1
        v |= (c & 0x7f) << s
        s += 7
        if not c & 0x80:
            return v, i


def pctable(o):
    """The bytes of the pc-value table at O of pctab, and its values."""
    b, i, first, val, vals = tab[o_pc:], o, True, -1, []
    while True:
        uv, i = uvarint(b, i)
        if uv == 0 and not first:
            return b[o:i], vals
        first = False
        val += -(uv & 1) ^ (uv >> 1)
        vals.append(val)
        _, i = uvarint(b, i)


# go:func.*, where the inline trees are: from runtime.firstmoduledata,
# found as gopclntab.c finds it (its first words: the table's address and
# its funcnametab's), the word after .rodata's address
gofunc = None
for name, (a, o, z) in secs.items():
    blob = data[o:o + z] if a else b''
    for at in range(0, len(blob) - 49 * 8, 8):
        w = struct.unpack_from('<49Q', blob, at)
        if w[0] != addr or w[1] != addr + o_name:
            continue
        gofunc = [w[i + 1] for i in range(30, 48) if w[i] == secs['.rodata'][0]][-1]
        break
    if gofunc:
        break
for name, (a, o, z) in secs.items():
    if a and a <= gofunc < a + z:
        gofunc_bytes = data[o + gofunc - a:o + z]

picked = [i for i in range(nfunc)
          if cstr(o_name, struct.unpack_from('<i', pcln, ftab[i][1] + 4)[0]).startswith(b'main.')]
lo, hi = min(picked), max(picked)
names, cutab, filetab, pctab, gof, funcs = bytearray(), [], bytearray(), bytearray(b'\0'), \
    bytearray(), []
name_at, file_at, pc_at = {}, {}, {}


def new_name(o):
    s = cstr(o_name, o)
    if s not in name_at:
        name_at[s] = len(names)
        names.extend(s + b'\0')
    return name_at[s]


def new_pc(o):
    if not o:
        return 0, []
    b, vals = pctable(o)
    if o not in pc_at:
        pc_at[o] = len(pctab)
        pctab.extend(b)
    return pc_at[o], vals


for i in range(lo, hi + 1):
    fo = ftab[i][1]
    npc, = struct.unpack_from('<I', pcln, fo + 28)
    nfd = pcln[fo + fsize - 1]
    f = bytearray(pcln[fo:fo + fsize + 4 * (npc + nfd)])
    struct.pack_into('<i', f, 4, new_name(struct.unpack_from('<i', f, 4)[0]))
    for fld in (16, 20, 24):
        o, vals = new_pc(struct.unpack_from('<I', f, fld)[0])
        struct.pack_into('<I', f, fld, o)
        if fld == 20:
            cu, = struct.unpack_from('<I', f, 32)
            struct.pack_into('<I', f, 32, len(cutab))
            for k in range(max(vals) + 1 if vals else 0):
                fo2, = struct.unpack_from('<I', tab, o_cu + 4 * (cu + k))
                if fo2 == 0xffffffff:
                    cutab.append(fo2)
                    continue
                s = cstr(o_file, fo2)
                if s not in file_at:
                    file_at[s] = len(filetab)
                    filetab.extend(s + b'\0')
                cutab.append(file_at[s])
    ninl = 0
    for k in range(npc):
        o, vals = new_pc(struct.unpack_from('<I', f, fsize + 4 * k)[0])
        struct.pack_into('<I', f, fsize + 4 * k, o)
        if k == 2 and vals:
            ninl = max(vals) + 1
    for k in range(nfd):
        at = fsize + 4 * (npc + k)
        o, = struct.unpack_from('<I', f, at)
        if k != 3 or o == 0xffffffff or not ninl:
            struct.pack_into('<I', f, at, 0xffffffff)
            continue
        struct.pack_into('<I', f, at, len(gof))
        for j in range(ninl):
            call = bytearray(gofunc_bytes[o + j * inl_size:o + (j + 1) * inl_size])
            struct.pack_into('<i', call, inl_name,
                             new_name(struct.unpack_from('<i', call, inl_name)[0]))
            gof.extend(call)
    funcs.append((ftab[i][0], bytes(f)))

# the function table, then the functions
ft = bytearray()
body = bytearray()
for entry, f in funcs:
    ft.extend(struct.pack('<II', entry, 8 * (len(funcs) + 1) + len(body)))
    body.extend(f)
ft.extend(struct.pack('<II', ftab[hi + 1][0], 0))
parts = [bytes(names), b''.join(struct.pack('<I', c) for c in cutab), bytes(filetab),
         bytes(pctab), bytes(ft + body)]
offs, at = [], 72
for p in parts:
    offs.append(at)
    at += len(p)
new = struct.pack('<IBBBB', magic, 0, 0, tab[6], ps) + \
    struct.pack('<8Q', len(funcs), len(file_at), text if magic == 0xfffffff0 else 0, *offs) + \
    b''.join(parts)
with open(out, 'wb') as fh:
    fh.write(bytes([0]) + struct.pack('<IQ', len(gof), text) + new + bytes(gof))
