/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The live view of probe-read --top, as perf top shows one: the functions
 * of the profiles read so far, heaviest first, each with its self share
 * (the samples it was the leaf of) and its total share (the samples it was
 * anywhere in the stack of, counted once per sample however often it
 * recurses). A function is the symbol that holds the address, its inlined
 * callees folded into it, as perf top names it, in one module (kernel
 * frames "[k]", user frames "[.]").
 *
 * Cumulative since the start (or the last pk_top_zero), as perf top is by
 * default: a refresh adds the samples of the last second and redraws.
 * Shares are of the samples' weights, in their event's unit (CPU time,
 * time blocked, hits), so that one view works for any event; the samples
 * must all be of one event.
 */
#ifndef PK_TOP_H
#define PK_TOP_H

#include <stdbool.h>
#include <stdio.h>

#include "profile/profile.h"

struct pk_top;

struct pk_top *pk_top_new(void);
void pk_top_free(struct pk_top *t);

/* Add P's samples (of one event). 0, -ENOMEM or -EINVAL (several events:
 * shares would add up different units). */
int pk_top_add(struct pk_top *t, const struct pk_profile *p);
/* Forget every count: the view starts again from now. */
void pk_top_zero(struct pk_top *t);
/* Order by total share instead of self share, or back. */
void pk_top_toggle_order(struct pk_top *t);

struct pk_top_screen {
	unsigned int rows, cols;	/* what fits; 0: no limit */
	bool ansi;			/* a terminal: redraw in place with
					 * ANSI escapes; else text blocks */
	double seconds;			/* since the view started */
};

/* The view, one screen of it, to F. 0 or -EIO. */
int pk_top_draw(const struct pk_top *t, const struct pk_top_screen *s, FILE *f);

#endif
