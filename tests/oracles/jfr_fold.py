#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
"""The JVM's own sampler as an oracle: a JFR recording's execution samples
as folded stacks.

Usage: jfr_fold.py JFR RECORDING

Runs JFR (the JDK's `jfr` tool) as `jfr print --json --stack-depth 256
--events jdk.ExecutionSample RECORDING` and prints one line per distinct
stack: "THREAD;root;...;leaf COUNT", THREAD the sampled thread's Java name
("(unknown thread)" where JFR no longer describes it),
each frame `package.Class.method` (the method's class with its '/' as '.',
as probekit names a Java frame), sorted by bytes. JFR's samples are of
threads running Java code only (jdk.ExecutionSample; those in native code
are jdk.NativeMethodSample, not read here).

Exit status: 0; 4 a stack was cut at the depth (the folded stacks would not
start at their root); 2 bad usage or jfr failed; 1 this script failed.
"""
import collections
import json
import subprocess
import sys

DEPTH = 256


def main():
    if len(sys.argv) != 3:
        sys.stderr.write(__doc__)
        return 2
    jfr, recording = sys.argv[1], sys.argv[2]
    run = subprocess.run([jfr, "print", "--json", "--stack-depth", str(DEPTH),
                          "--events", "jdk.ExecutionSample", recording],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if run.returncode:
        sys.stderr.write(f"jfr_fold: jfr print exited {run.returncode}: "
                         f"{run.stderr.decode(errors='replace')}\n")
        return 2
    doc = json.loads(run.stdout)
    stacks = collections.Counter()
    for event in doc["recording"]["events"]:
        values = event["values"]
        trace = values["stackTrace"]
        if trace["truncated"]:
            sys.stderr.write(f"jfr_fold: a stack deeper than {DEPTH} frames\n")
            return 4
        # a thread JFR no longer describes (it ended before the chunk
        # was written; seen under load) has none: not the main thread
        thread = values.get("sampledThread") or {}
        names = [thread.get("javaName") or "(unknown thread)"]
        # JFR lists the leaf first
        for frame in reversed(trace["frames"]):
            method = frame["method"]
            names.append(method["type"]["name"].replace("/", ".") + "." + method["name"])
        stacks[";".join(names)] += 1
    for stack in sorted(stacks, key=lambda s: s.encode()):
        print(stack, stacks[stack])
    return 0


if __name__ == "__main__":
    sys.exit(main())
