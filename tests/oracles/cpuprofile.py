#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# V8's own view of a run, from the one .cpuprofile that
# `node --cpu-prof --cpu-prof-dir DIR` wrote (Chrome's format: "nodes",
# each with its callFrame and children ids, and "samples", a node id per
# sample), read by Python's json module:
#   cpuprofile.py share DIR OUTER INNER LEAF
#       "N L": N samples under INNER called by OUTER (INNER right under
#       OUTER, functions as V8's profiler names them), L of them with LEAF
#       under INNER;
#   cpuprofile.py names DIR SUFFIX
#       "LINE NAME" per function of the script whose URL ends in SUFFIX:
#       the line it starts at (1: the first) and its name as V8's profiler
#       shows it, "(anonymous)" for an empty one.
# Exit 1 with a line on stderr when DIR holds no one profile.
import json
import os
import sys


def load(d):
    files = [f for f in os.listdir(d) if f.endswith(".cpuprofile")]
    if len(files) != 1:
        print("cpuprofile.py: %d .cpuprofile files in %s" % (len(files), d), file=sys.stderr)
        sys.exit(1)
    with open(os.path.join(d, files[0]), encoding="utf-8") as f:
        return json.load(f)


def share(prof, outer, inner, leaf):
    parent, name = {}, {}
    for n in prof["nodes"]:
        name[n["id"]] = n["callFrame"]["functionName"]
        for c in n.get("children", []):
            parent[c] = n["id"]
    under = with_leaf = 0
    for s in prof["samples"]:
        chain = []
        while s is not None:
            chain.append(name[s])
            s = parent.get(s)
        chain.reverse()
        for i in range(1, len(chain)):
            if chain[i - 1] == outer and chain[i] == inner:
                under += 1
                with_leaf += leaf in chain[i + 1:]
                break
    print(under, with_leaf)


def names(prof, suffix):
    seen = set()
    for n in prof["nodes"]:
        cf = n["callFrame"]
        if cf["url"].endswith(suffix):
            seen.add((cf["lineNumber"] + 1, cf["functionName"] or "(anonymous)"))
    for line, name in sorted(seen):
        print(line, name)


def main():
    if len(sys.argv) == 6 and sys.argv[1] == "share":
        share(load(sys.argv[2]), *sys.argv[3:6])
    elif len(sys.argv) == 4 and sys.argv[1] == "names":
        names(load(sys.argv[2]), sys.argv[3])
    else:
        print("usage: cpuprofile.py share DIR OUTER INNER LEAF | names DIR SUFFIX",
              file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
