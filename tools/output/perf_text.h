/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The text `perf script` prints for a profile recorded with call chains,
 * so that the tools written for it (stackcollapse-perf.pl, speedscope, the
 * Firefox Profiler) read probe-read's profiles. Per sample, in time order:
 *
 *   COMM PID/TID [CPU] SECS.USECS:     PERIOD EVENT:
 *   \t    ADDR SYM+0xOFF (MODULE)        one line per frame, leaf first:
 *   ...                                  the kernel part, then the user part
 *   (a blank line)
 *
 * laid out with perf 6.1's widths ("%s %5d/%-5d [%03d] %12s: %10lu %s: ",
 * "\t%16lx"), the fields perf prints by default for a system-wide record
 * plus the pid (perf script -F +pid).
 *
 *   SECS.USECS  the sample's CLOCK_BOOTTIME time. perf's own times come
 *               from its perf clock (local_clock, near CLOCK_MONOTONIC):
 *               the two differ by the time the machine was suspended.
 *   PERIOD      the sample's weight in its event's unit, as perf prints a
 *               sample's period: CPU nanoseconds for cpu-clock (period_ns
 *               for samples from before events), nanoseconds blocked for
 *               off-cpu, the occurrences it stands for otherwise (what
 *               stackcollapse-perf.pl adds up). A sample whose count is
 *               above 1 is printed count times, its weight shared out
 *               (the remainder on the first), so that readers that count
 *               lines and readers that add periods both see all of it.
 *   EVENT       the sample's event as the session names it (pk_event_desc
 *               name: "cpu-clock", "off-cpu", "tracepoint:sched:sched_switch"),
 *               as perf names each sample's event; readers that take one
 *               event (speedscope) tell them apart by it.
 *   ADDR        the runtime address as sampled, hex, as recent perf prints
 *               it (perf 6.1 printed the file offset instead).
 *   SYM+0xOFF   the symbol and the offset in it; "[unknown]" when no
 *               symbol holds the address.
 *   MODULE      the mapped file's path, "[kernel.kallsyms]" or
 *               "[MODNAME]" for the kernel, "[unknown]" outside any map.
 *
 * Code inlined at an address gets a line of its own before the line of
 * the function it was inlined into, same ADDR, innermost first, as perf
 * script --inline prints it: "NAME+0xOFF (inlined)". stackcollapse-perf.pl
 * and speedscope take each such line as one frame.
 *
 * With p->lines, after each frame line the source line as perf script
 * -F +srcline prints it: "  FILE:LINE" (the file without its directories),
 * "  MODULE[ADDR]" where the line is unknown (MODULE without directories,
 * ADDR in the file as ELF numbers it), nothing after "[unknown] ([unknown])"
 * -- so that every frame line but that one is followed by exactly one
 * source line, which is what stackcollapse-perf.pl --srcline reads. (perf
 * prints an inlined frame's source line before its " (inlined)", splitting
 * that frame's line in two; here " (inlined)" stays on the frame line.)
 *
 * Names are printed as they are, but for control characters (a newline
 * would end the line), which become spaces; an empty thread name is
 * "[unknown]". p->group adds nothing: every header already names the pid,
 * tid and CPU.
 */
#ifndef PK_PERF_TEXT_H
#define PK_PERF_TEXT_H

#include <stdio.h>

#include "profile/profile.h"

/* Write P to F. 0; -EINVAL (nothing written) for a sample without a stack
 * or of an event P has not; -EIO when writing failed. */
int pk_perf_text_write(FILE *f, const struct pk_profile *p);

#endif
