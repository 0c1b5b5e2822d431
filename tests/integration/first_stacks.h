/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * When a first sample's stack is whole (suite first_samples,
 * test_first_samples.c says what that is): the tally of the stacks a
 * session read, and what probe-read says it finished in user space.
 */
#ifndef PK_FIRST_STACKS_H
#define PK_FIRST_STACKS_H

#include <stdbool.h>

#include "integration/profile_session.h"

struct pk_fs_tally {
	unsigned long samples, counted, whole;
	/* the counted of a fresh program (pk_fs_tally_add), and of those the
	 * whole ones through its own _start */
	unsigned long fresh_counted, fresh;
	char example[2048];	/* incomplete stacks, for the message */
};

/* Is FRAME a kernel frame ("..._[k]")? */
bool pk_fs_is_kernel(const char *frame);

/*
 * Add the folded stacks of F whose comm is one of COMMS (NULL: all) to T:
 * whole, of those not inside execve/exit. FRESH (NULL: none) names the
 * programs whose own file the kernel had no table for while they ran,
 * counted apart in t->fresh_counted too: a whole stack of one of them
 * through its own _start (the outermost frame, under __libc_start_main;
 * not ld.so's, which starts the process) was whole only because it was
 * finished in user space, and counts in t->fresh.
 */
void pk_fs_tally_add(const struct pk_folded *f, const char *const *comms,
		     const char *const *fresh, struct pk_fs_tally *t);

/* The share of samples probe-read finished in user space, from its line
 * "user stacks: ...; F% finished in user space (N of C copied stacks)". */
double pk_fs_finished_share(const char *err);

/* N of that line: how many samples probe-read finished in user space. */
unsigned long pk_fs_finished_count(const char *err);

#endif
