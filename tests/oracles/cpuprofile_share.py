#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# cpuprofile_share.py DIR OUTER INNER LEAF: V8's own view of a run, from
# the one .cpuprofile `node --cpu-prof --cpu-prof-dir DIR` wrote (Chrome's
# format: "nodes", each with its callFrame and children ids, and
# "samples", a node id per sample), read by Python's json module. Prints
# "N L": N samples under INNER called by OUTER (frames named so, INNER
# right under OUTER, as V8's profiler names functions), L of them with LEAF
# under INNER. Exit 1 with a line on stderr when DIR holds no one profile.
import json
import os
import sys


def main():
    d, outer, inner, leaf = sys.argv[1:5]
    files = [f for f in os.listdir(d) if f.endswith(".cpuprofile")]
    if len(files) != 1:
        print("cpuprofile_share: %d .cpuprofile files in %s" % (len(files), d), file=sys.stderr)
        return 1
    with open(os.path.join(d, files[0]), encoding="utf-8") as f:
        prof = json.load(f)
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
    return 0


if __name__ == "__main__":
    sys.exit(main())
