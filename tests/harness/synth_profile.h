/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A profile built by hand for the output writers' tests, with what real
 * profiles hold at their edges: three processes, threads of one process
 * named differently, two CPUs, kernel and user frames, a kernel module, a
 * kernel location without a map, a location with an inlined frame (two
 * frames at one address), a location with a map but no symbol and one
 * with neither, one function at two lines, a sample without frames, a
 * sample whose count is 4 (which makes process 200, thread 201 and CPU 1
 * the heaviest of their kind), and names with spaces, ';', quotes, a
 * backslash, a newline, a tab and non-ASCII UTF-8. Module paths hold no
 * space (speedscope's perf reader, the perf text oracle, cannot read one).
 */
#ifndef PK_SYNTH_PROFILE_H
#define PK_SYNTH_PROFILE_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

/* The profile, grouped by GROUP, with source lines when LINES. Its
 * objects are static: nothing to free. */
struct pk_profile pk_synth_profile(enum pk_group group, bool lines);

/*
 * The same stacks sampled by three events, in this order: cpu-clock at 99
 * Hz (weights its periods, one sample with the weight not known, as from
 * before events), off-cpu (nanoseconds blocked, chosen so that rounding
 * to microseconds per sample and per line differ) and
 * tracepoint:syscalls:sys_enter_write sampled one in 10 (weight 10 a
 * sample). Each event has samples on several stacks, threads and CPUs;
 * the first sample in time is off-cpu's.
 */
struct pk_profile pk_synth_profile_events(enum pk_group group, bool lines);
enum { PK_SYNTH_CPU, PK_SYNTH_OFFCPU, PK_SYNTH_TP, PK_SYNTH_NEVENTS };

/*
 * A Python process (pid 400, "python3") as probe-read merges it: Python
 * frames in place of the eval loop's native frames, a C function between
 * two of them, one with its line not known, one with a Latin-1 name made
 * UTF-8, one of a code no report named ([py:0x...], no file), an eval
 * frame left native, a kernel frame. Locations:
 *   Job.run (/srv/app/job.py:12), <module> (/srv/app/main.py:3),
 *   café.über (/srv/app/util.py, line 0), [py:0x7f1200004000],
 *   <module> (/srv/app/other.py:1): two "<module>" in two files;
 * native method_vectorcall_NOARGS, _PyEval_EvalFrameDefault, Py_RunMain
 * in /usr/bin/python3.11, do_syscall_64 in the kernel.
 */
struct pk_profile pk_synth_python_profile(enum pk_group group, bool lines);

/*
 * One process (pid 500, "svc"), one stack (the synthetic profile's
 * plain one: main and do work under libc) in four cgroups, in this order:
 * "/system.slice/docker-ID.scope" (ID PK_SYNTH_CONTAINER_ID, 2 samples),
 * "/user.slice", "cgroup:30" (removed before it was named) and one whose
 * path was not looked up (cgroup NULL), 1 sample each.
 */
#define PK_SYNTH_CONTAINER_ID \
	"0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
struct pk_profile pk_synth_cgroup_profile(enum pk_group group, bool per_cgroup);

/* What the writer WRITE (a format's) makes of P, malloc'ed, its return
 * value in *RET. */
char *pk_synth_write(int (*write)(FILE *f, const struct pk_profile *p),
		     const struct pk_profile *p, int *ret);

#endif
