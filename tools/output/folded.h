/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Folded stacks, the format flamegraph.pl and most flame graph tools read:
 * one line per distinct stack, "comm;root;...;leaf COUNT". User frames come
 * before kernel frames, which carry the suffix "_[k]".
 *
 * A frame name never holds ';' (becomes ':') nor a control character such
 * as a newline (becomes ' '), and is never empty ("[unknown]"), so that each
 * line splits back into exactly its frames.
 */
#ifndef PK_FOLDED_H
#define PK_FOLDED_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"

#define PK_FOLD_KERNEL_SUFFIX "_[k]"

/* The line's stack part for one sample, malloc'ed (NULL: no memory). USER
 * and KERNEL are each ordered root (outermost) first. */
char *pk_fold_stack(const char *comm, const char *const *user, size_t nuser,
		    const char *const *kernel, size_t nkernel);

struct pk_fold_item {
	const char *stack;
	__u64 count;
};

/* Write ITEMS sorted by stack (byte order), identical stacks merged with
 * their counts summed, as "STACK COUNT\n" lines. Reorders ITEMS.
 * 0, or -EIO when writing failed. */
int pk_fold_write(FILE *f, struct pk_fold_item *items, size_t n);

/*
 * P as folded stacks, sorted: comm;user root..leaf;kernel root..leaf_[k]
 * with a function's inlined callees after it. With P->group the root is
 * "comm-PID", "comm-PID/TID" (as stackcollapse-perf.pl --pid/--tid name
 * them) or "cpu-N;comm"; with P->lines each frame that has a source line
 * reads "name (file:line)", file without its directories.
 *
 * Lines count samples, except for events that fold time
 * (pk_event_folds_time: off-cpu), whose lines count microseconds, the
 * line's weight in nanoseconds / 1000, rounded. A line cannot mix units:
 * the samples must all be of one event (pk_profile_select_event).
 * 0; -EINVAL for samples of several events, or of an event P has not;
 * -ENOMEM; -EIO.
 */
int pk_folded_write(FILE *f, const struct pk_profile *p);

/*
 * The lines of pk_folded_write, unsorted and not merged (two lines may
 * hold one stack), in *ITEMS (free with pk_fold_items_free), their number
 * in *N; *TIME_US says whether they count microseconds. A frame inlined
 * into a user function carries the suffix INLINED (NULL: none, as in the
 * folded format), for the writers that show inlined frames apart (svg).
 * Errors as pk_folded_write's, less -EIO.
 */
int pk_folded_lines(const struct pk_profile *p, const char *inlined, struct pk_fold_item **items,
		    size_t *n, bool *time_us);
void pk_fold_items_free(struct pk_fold_item *items, size_t n);

#endif
