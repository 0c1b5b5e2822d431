#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""Reads a flame graph probe-read wrote (-f svg) with Python's own XML
parser, and a screenshot of one.

Usage: svg_check.py frames FILE.svg
       svg_check.py png FILE.png

frames  the file is XML (xml.etree), an SVG whose frames (<g> in
        <g id="frames">, tools/output/svg.h) nest: each frame's samples
        [data-x, data-x + data-n) lie inside one frame a row below it,
        frames of a row do not overlap, the root "all" holds them all, and
        every box is drawn where its samples say (x and width to 0.1 px)
        and titled with its count. Prints one line per frame but the root:
        "KIND R,G,B COUNT PATH", PATH its frames from the root as folded
        stacks name them (kernel frames, KIND k, with "_[k]"), sorted.
png     the PNG (8-bit RGB or RGBA, as Chromium writes them) shows a flame
        graph: prints "WIDTH HEIGHT WARM" where WARM counts the pixels of
        the user frames' palette (red to yellow).

Exit status: 0; 4 the file is not what it should be (one line on stderr
says why); 2 bad usage or unreadable file; 1 this script failed.
"""
import re
import struct
import sys
import xml.etree.ElementTree as ET
import zlib

NS = "{http://www.w3.org/2000/svg}"


class Invalid(Exception):
    pass


def frames(path):
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise Invalid(f"not XML: {e}")
    if root.tag != NS + "svg":
        raise Invalid(f"root element {root.tag}, not svg")
    group = root.find(f".//{NS}g[@id='frames']")
    if group is None:
        raise Invalid("no <g id='frames'>")
    total = int(group.get("data-total"))
    width = float(group.get("data-width"))
    xpad = float(group.get("data-xpad"))
    scale = (width - 2 * xpad) / total
    boxes = []
    for g in group.findall(NS + "g"):
        title = g.find(NS + "title").text
        name, _, about = title.rpartition(" (")
        rect = g.find(NS + "rect")
        b = {"kind": g.get("class"), "d": int(g.get("data-d")),
             "x": int(g.get("data-x")), "n": int(g.get("data-n")), "name": name}
        if b["n"] <= 0 or b["x"] < 0 or b["x"] + b["n"] > total:
            raise Invalid(f"frame {title!r}: samples out of range")
        if not re.fullmatch(r"%d (samples|us), \d+\.\d\d%%\)" % b["n"], about):
            raise Invalid(f"frame {title!r}: the title does not give its count")
        if abs(float(rect.get("x")) - (xpad + b["x"] * scale)) > 0.1 or \
           abs(float(rect.get("width")) - b["n"] * scale) > 0.1:
            raise Invalid(f"frame {title!r}: drawn elsewhere than its samples")
        m = re.fullmatch(r"rgb\((\d+),(\d+),(\d+)\)", rect.get("fill"))
        if not m:
            raise Invalid(f"frame {title!r}: fill {rect.get('fill')!r}")
        b["rgb"] = ",".join(m.groups())
        boxes.append(b)
    rows = {}
    for b in boxes:
        rows.setdefault(b["d"], []).append(b)
    if [(b["name"], b["x"], b["n"]) for b in rows.get(0, [])] != [("all", 0, total)]:
        raise Invalid("the root is not one frame 'all' holding every sample")
    for d in sorted(rows):
        row = sorted(rows[d], key=lambda b: b["x"])
        for a, b in zip(row, row[1:]):
            if a["x"] + a["n"] > b["x"]:
                raise Invalid(f"frames {a['name']!r} and {b['name']!r} overlap")
        if d == 0:
            continue
        below = sorted(rows.get(d - 1, []), key=lambda b: b["x"])
        i = 0
        for b in row:
            while i < len(below) and below[i]["x"] + below[i]["n"] <= b["x"]:
                i += 1
            if i == len(below) or below[i]["x"] > b["x"] or \
               below[i]["x"] + below[i]["n"] < b["x"] + b["n"]:
                raise Invalid(f"frame {b['name']!r} has no caller under it")
            parent = below[i]
            name = b["name"] + ("_[k]" if b["kind"] == "k" else "")
            b["path"] = name if d == 1 else parent["path"] + ";" + name
    lines = sorted(f"{b['kind']} {b['rgb']} {b['n']} {b['path']}"
                   for b in boxes if b["d"] > 0)
    sys.stdout.write("".join(line + "\n" for line in lines))


def png(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise Invalid("not a PNG")
    pos, idat, hdr = 8, b"", None
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            hdr = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    w, h, depth, ctype, _, _, interlace = hdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        raise Invalid(f"PNG of depth {depth}, colour type {ctype}: not read here")
    bpp = 3 if ctype == 2 else 4
    raw = zlib.decompress(idat)
    stride = w * bpp
    prev = bytearray(stride)
    warm = 0
    for y in range(h):
        ftype = raw[y * (stride + 1)]
        line = bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b = prev[i]
            c = prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 0xff
            elif ftype == 2:
                line[i] = (line[i] + b) & 0xff
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 0xff
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                pred = a if pa <= pb and pa <= pc else b if pb <= pc else c
                line[i] = (line[i] + pred) & 0xff
        for i in range(0, stride, bpp):
            r, g, b = line[i], line[i + 1], line[i + 2]
            if r >= 205 and b <= 55 and g <= 230 and r - b > 150:
                warm += 1
        prev = line
    print(w, h, warm)


def main():
    if len(sys.argv) != 3 or sys.argv[1] not in ("frames", "png"):
        sys.stderr.write(__doc__)
        return 2
    try:
        (frames if sys.argv[1] == "frames" else png)(sys.argv[2])
    except OSError as e:
        sys.stderr.write(f"svg_check: {e}\n")
        return 2
    except (Invalid, TypeError, ValueError, KeyError, AttributeError, zlib.error,
            struct.error) as e:
        sys.stderr.write(f"svg_check: {sys.argv[2]}: {e}\n")
        return 4
    return 0


sys.exit(main())
