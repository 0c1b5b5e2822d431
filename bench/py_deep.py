# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# bench/python.sh's workload: a Python stack DEPTH frames deep (<module>,
# run, DEPTH - 3 calls of down, spin), spinning at its leaf until the
# process has used SECONDS of CPU time.
import sys
import time


def spin(seconds):
    end = time.process_time() + seconds
    n = 0
    while time.process_time() < end:
        for i in range(1000):
            n += i
    return n


def down(k, seconds):
    if k:
        return down(k - 1, seconds)
    return spin(seconds)


def run(depth, seconds):
    return down(depth - 3, seconds)


run(int(sys.argv[1]), float(sys.argv[2]))
