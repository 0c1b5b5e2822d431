/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A parser of `perf script` call-graph output, the independent side of the
 * stack oracle: perf's own unwinder and symbolizer, turned into probe-read's
 * folded-stack format so that the two can be compared line for line.
 *
 * Input: `perf script -F comm,pid,tid,ip,sym,dso --no-inline` (perf 6.1) of
 * a `perf record --call-graph ...` file. Each sample is a header line
 *     COMM PID/TID
 * then one line per frame, leaf first,
 *     <tab>          IP SYM (DSO)
 * then a blank line. COMM and SYM may hold spaces. When perf could not
 * resolve a sample's call chain it prints the sample's IP SYM (DSO) on the
 * header line instead: a one-frame stack.
 *
 * Output, as probe-read prints it: "comm;outermost;...;leaf COUNT" lines,
 * sorted and merged, user frames first, then kernel frames with "_[k]".
 * A frame is a kernel frame when its DSO is [kernel.kallsyms] or its address
 * lies in the upper half of the address space (kernel modules: perf prints
 * them with the module's name as DSO). Names are perf's, "[unknown]" where
 * perf has no symbol.
 */
#ifndef PERF_SCRIPT_H
#define PERF_SCRIPT_H

#include <stddef.h>

struct ps_stacks {
	char *folded;		/* the folded lines, "" when there were no samples */
	unsigned long samples;
	/* Distinct files (absolute paths) that user frames were found in,
	 * sorted: where the other side's names can be looked up. */
	char **dsos;
	size_t ndsos;
};

/*
 * Parse SCRIPT. 0; -EBADMSG with one line in ERR naming the input line and
 * what is wrong with it (a frame line outside a sample, a line that is not
 * "IP SYM (DSO)", an inlined frame: run perf script with --no-inline, a
 * kernel frame below a user frame); -ENOMEM. Free OUT with ps_stacks_free()
 * in every case.
 */
int ps_stacks_parse(const char *script, struct ps_stacks *out, char *err, size_t errlen);
void ps_stacks_free(struct ps_stacks *s);

#endif
