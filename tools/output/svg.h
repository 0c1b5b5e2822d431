/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A flame graph in one self-contained SVG, drawn as flamegraph.pl draws one
 * from folded stacks: a box per frame, as wide as its samples, each
 * function above its caller, under a root "all". Its script (svg_script.h)
 * zooms into a frame on click, searches names by regular expression and
 * shows a frame's count and share under the pointer; the file opens in any
 * browser without a network.
 *
 * The frames are pk_folded_lines', so they are the folded output's: the
 * same roots (comm, or comm-PID, comm-PID/TID, cpu-N;comm with P->group),
 * names, units (samples, or microseconds off-CPU) and the same one-event
 * rule. Each frame's <g> carries its kind as its class ("r" a root, "u" a
 * user function, "i" a frame inlined into one, "k" a kernel frame, shown
 * without folded's "_[k]"), and data-d, data-x and data-n: its depth (0:
 * "all"), its first sample and its count, with the samples laid out from
 * 0 in folded stacks' byte order.
 */
#ifndef PK_SVG_H
#define PK_SVG_H

#include <stdio.h>

#include "profile/profile.h"

/* P as a flame graph, titled P->title ("Flame Graph" when NULL). 0;
 * -EINVAL for samples of several events; -ENOMEM; -EIO. */
int pk_svg_write(FILE *f, const struct pk_profile *p);

#endif
