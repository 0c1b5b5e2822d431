#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# hotspot_seed.py OUT: a seed of fuzz_hotspot (tests/fuzz/fuzz_hotspot.c):
# a JVM's memory as that target reads it, at 0x10000: 20 words, the values
# of the gHotSpotVM* symbols (in enum pk_hotspot_sym's order: the entry
# layouts of Debian's OpenJDK 17, the four tables' addresses), then the
# tables and their names, each entry as HotSpot lays it out, with every
# member struct pk_hotspot_vm requires (the values of OpenJDK 17).
import struct
import sys

BASE = 0x10000
STRUCTS = [
    ("CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", 1, 0x7f0000000000),
    ("CodeCache", "_low_bound", "address", 1, 0x7f0000000020),
    ("CodeCache", "_high_bound", "address", 1, 0x7f0000000018),
    ("GrowableArrayBase", "_len", "int", 0, 0),
    ("GrowableArray<int>", "_data", "int*", 0, 8),
    ("CodeHeap", "_memory", "VirtualSpace", 0, 8),
    ("CodeHeap", "_segmap", "VirtualSpace", 0, 120),
    ("CodeHeap", "_log2_segment_size", "int", 0, 256),
    ("VirtualSpace", "_low_boundary", "char*", 0, 0),
    ("VirtualSpace", "_high_boundary", "char*", 0, 8),
    ("VirtualSpace", "_low", "char*", 0, 16),
    ("VirtualSpace", "_high", "char*", 0, 24),
    ("CodeBlob", "_name", "char*", 0, 96),
    ("CodeBlob", "_size", "int", 0, 12),
    ("CodeBlob", "_frame_complete_offset", "int", 0, 20),
    ("CodeBlob", "_frame_size", "int", 0, 28),
    ("CodeBlob", "_code_begin", "address", 0, 32),
    ("CodeBlob", "_code_end", "address", 0, 40),
    ("CompiledMethod", "_method", "Method*", 0, 112),
    ("nmethod", "_compile_id", "int", 0, 304),
    ("Method", "_constMethod", "ConstMethod*", 0, 8),
    ("ConstMethod", "_constants", "ConstantPool*", 0, 8),
    ("ConstMethod", "_code_size", "u2", 0, 32),
    ("ConstMethod", "_name_index", "u2", 0, 34),
    ("ConstMethod", "_signature_index", "u2", 0, 36),
    ("ConstantPool", "_pool_holder", "InstanceKlass*", 0, 24),
    ("Klass", "_name", "Symbol*", 0, 24),
    ("Symbol", "_length", "u2", 0, 4),
    ("Symbol", "_body", "u1", 0, 6),
]
TYPES = [("int", 4), ("u2", 2), ("u1", 1), ("HeapBlock", 16), ("CodeBlob", 104),
         ("ConstMethod", 48), ("ConstantPool", 72)]
INTS = [("frame::interpreter_frame_sender_sp_offset", -1),
        ("frame::interpreter_frame_last_sp_offset", -2)]
LONGS = [("markWord::age_mask", 15)]

img = bytearray(20 * 8)
names = {}


def name(s):
    if s not in names:
        names[s] = BASE + len(img)
        img.extend(s.encode() + b"\0")
    return names[s]


def align():
    img.extend(b"\0" * (-len(img) % 16))


# the names first, then the arrays
for t, f, ts, st, v in STRUCTS:
    name(t), name(f), name(ts)
for t, _ in TYPES:
    name(t)
for n, _ in INTS + LONGS:
    name(n)
align()
structs = BASE + len(img)
for t, f, ts, st, v in STRUCTS:
    img.extend(struct.pack("<QQQiiQQ", name(t), name(f), name(ts), st, 0,
                           0 if st else v, v if st else 0))
img.extend(b"\0" * 48)
types = BASE + len(img)
for t, size in TYPES:
    img.extend(struct.pack("<QQiiiiQ", name(t), 0, 0, 1, 0, 0, size))
img.extend(b"\0" * 40)
ints = BASE + len(img)
for n, v in INTS:
    img.extend(struct.pack("<Qii", name(n), v, 0))
img.extend(b"\0" * 16)
longs = BASE + len(img)
for n, v in LONGS:
    img.extend(struct.pack("<Qq", name(n), v))
img.extend(b"\0" * 16)
# enum pk_hotspot_sym: structs, stride, type name, field name, type string,
# is static, offset, address; types, stride, name, size; ints, stride,
# name, value; longs, stride, name, value
syms = [structs, 48, 0, 8, 16, 24, 32, 40, types, 40, 0, 32,
        ints, 16, 0, 8, longs, 16, 0, 8]
img[0:160] = struct.pack("<20Q", *syms)
sys.stdout.buffer.write(img) if sys.argv[1] == "-" else open(sys.argv[1], "wb").write(img)
