/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * speedscope's own JSON file format (https://www.speedscope.app/
 * file-format-schema.json), which speedscope opens as it is, with the
 * samples in time order so that its "Time Order" view shows when each
 * stack ran.
 *
 * What a pk_profile becomes:
 *   shared.frames  one per distinct (name, file) -- (name, file, line)
 *                  with p->lines -- over every location a sample reaches:
 *                  a kernel function's name ends in "_[k]" as in the
 *                  folded output; file and line are left out when unknown
 *   profiles       one "sampled" profile per process, named "COMM (pid
 *                  N)" after its main thread (or its first sampled thread
 *                  when the main thread never ran); per thread with
 *                  PK_GROUP_TID, "COMM (tid N)"; per CPU with
 *                  PK_GROUP_CPU, "cpu N", whose stacks then start with the
 *                  thread's name, since one CPU runs many processes.
 *                  With p->per_cgroup every stack starts with its
 *                  cgroup's path (pk_stack_cgroup), above the thread's
 *                  name where there is one.
 *                  Ordered by pid, tid or CPU. With several events (or
 *                  one that is not cpu-clock) one profile per event and
 *                  group, the events in the profile's order, each name
 *                  followed by " [EVENT]".
 *   samples        frame indices root first, as speedscope wants: the user
 *                  part, root to leaf, then the kernel part, root to leaf,
 *                  a location's inlined frames after the function they
 *                  were inlined into; in time order
 *   weights        each sample's weight (pk_sample_weight: count *
 *                  period_ns for cpu-clock samples from before events):
 *                  unit "nanoseconds" for events in nanoseconds (CPU time,
 *                  time blocked off-CPU), "none" for counts (occurrences)
 *   startValue, endValue  in nanoseconds, the span the profile covers
 *                  (pk_profile start_ns, end_ns: CLOCK_BOOTTIME, the clock
 *                  of perf text's timestamps), the same for each of its
 *                  groups; in counts, 0 and the weights' sum, as
 *                  speedscope's own exporter writes them (a count has no
 *                  time). speedscope draws max(end - start, sum of weights)
 *   activeProfileIndex  the profile of the first event with the most weight
 *   name           "probekit profile (FREQ Hz)", or with events named in
 *                  profiles "probekit profile (EVENT, EVENT...)"
 *   exporter       "probekit VERSION"
 *
 * Strings are valid JSON whatever the names hold: quotes, backslashes and
 * control characters escaped, bytes that are not UTF-8 replaced by U+FFFD.
 * The bytes depend on the profile alone: the same input writes the same
 * file.
 */
#ifndef PK_SPEEDSCOPE_H
#define PK_SPEEDSCOPE_H

#include <stdio.h>

#include "profile/profile.h"

/*
 * Write P to F. 0; -EINVAL when P is inconsistent (a stack or location id
 * not below its count, a location without frames, a sample's event not in
 * the table), -ENOMEM, both before
 * anything is written; -EIO when writing failed.
 */
int pk_speedscope_write(FILE *f, const struct pk_profile *p);

#endif
