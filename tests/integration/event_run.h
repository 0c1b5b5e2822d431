/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite event_sources (test_event_sources.c: off-CPU time and
 * several events in one pprof; test_event_probes.c: tracepoints, kprobes,
 * uprobes and USDT, page faults, block requests; test_event_refusals.c:
 * every refusal and --list): the fixtures built without frame pointers
 * (tests/fixtures_nofp/ev_block.c, ev_calls.c) as gcc and clang builds, PIE
 * and not, their truths, and the folded stacks read of a session.
 */
#ifndef PK_EVENT_RUN_H
#define PK_EVENT_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <check.h>

#include "integration/profile_session.h"

extern const char *const pk_ev_variants[];
#define NVARIANTS	4

/* The fixtures' truths (ev_calls.c). */
#define EV_WRITES	1000
#define EV_CALLS	777
#define EV_TICKS	333
#define EV_PAGES	2000
#define EV_DIRECT	64

/*
 * The counts of the lines holding CHAIN (";main;writer;" and the like) and
 * of the other lines. A line with CHAIN must be a whole stack: from _start
 * (after the comm) through main, and hold every one of KFRAMES (kernel
 * frames that must be below it; NULL-terminated, may be NULL).
 */
struct sum {
	unsigned long long chain, other, broken;
	unsigned long long kernel;	/* of chain, with kernel frames */
};

/* CI=true: a skip is a failure. */
bool pk_ev_ci(void);
/* The fixture NAME's build VARIANT (pk_ev_variants[]), its path into BUF. */
const char *pk_ev_fixture(const char *name, int variant, char *buf, size_t len);
void pk_ev_read_folded(const char *const args[], struct pk_folded *f, char **err);
void pk_ev_read_folded_file(const char *path, struct pk_folded *f);
void pk_ev_show(const struct pk_folded *f, const char *part);
struct sum pk_ev_sum_chain(const struct pk_folded *f, const char *chain,
			   const char *const *kframes);
void pk_ev_assert_unpinned(void);
bool pk_ev_kernel_has_kprobes(void);
/* qsort's comparison of two strings (char *) */
int pk_ev_cmp_str(const void *a, const void *b);

/* The cases of the suite's other files, added to it in its order. */
void pk_ev_probes_tcases(Suite *s);
void pk_ev_refusals_tcases(Suite *s);

#endif
