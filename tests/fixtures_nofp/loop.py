# SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
# Debian's python3.11 (built without frame pointers) running a loop:
# python3.11 loop.py SECONDS, of CPU time (ITIMER_PROF counts the process's
# CPU time, as tests/cpu_budget.h does). The interpreter's C stack, from
# _start through main, Py_BytesMain, Py_RunMain to _PyEval_EvalFrameDefault,
# is found only by unwinding its frameless code with CFI.
import signal
import sys

stop = False


def on_alarm(sig, frame):
    global stop
    stop = True


def spin():
    x = 0
    while not stop:
        x = (x * 31 + 7) & 0xffffffff
    return x


signal.signal(signal.SIGPROF, on_alarm)
signal.setitimer(signal.ITIMER_PROF, float(sys.argv[1]))
spin()
