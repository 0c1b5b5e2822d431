/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite pprof (test_pprof.c: the message decoded field by
 * field, the writer's errors; test_pprof_tools.c: go tool pprof -raw and
 * gzip(1) on it; test_pprof_events.c: several events, Python frames,
 * cgroups): the profile built by hand, the model, and what it says
 * computed from it alone, never from the writer's output.
 */
#ifndef PK_PPROF_RUN_H
#define PK_PPROF_RUN_H

#include <check.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "gen/profile.pb-c.h"
#include "profile/profile.h"

#define PERIOD_NS	10101010ULL	/* 99 Hz */
#define NMAPS 7		/* id 6: reached by no sample */
#define NLOCS 13	/* id 12: reached by no sample */
#define NSTACKS 5
#define NSAMPLES 10

/* The model's parts the tests name. */
extern const struct pk_map pk_pp_map_app100, pk_pp_map_libc100, pk_pp_map_kernel,
	pk_pp_map_nosym200;
extern const struct pk_loc pk_pp_L_compute;
extern const struct pk_stack_view pk_pp_S0, pk_pp_S2, pk_pp_S3;
extern const struct pk_sample_view pk_pp_samples[NSAMPLES];
struct pk_profile pk_pp_model(void);

/* Samples merged by (stack, tid, cpu), with a linear search: a handful. */
struct want_sample {
	const struct pk_stack_view *stack;
	__u32 tid, cpu;
	__u64 count;
	bool matched;
};

size_t pk_pp_want_samples(const struct pk_sample_view *v, size_t nv, struct want_sample *w);
/* Every location the samples reach, each once, by id. */
const struct pk_loc *pk_pp_reached_loc(size_t id);
const struct pk_map *pk_pp_reached_map(size_t id);

struct flags {
	bool fn, fl, ln, in;
};

/* What the symbolizer found in MAP's locations (pprof.h's definition). */
struct flags pk_pp_want_flags(const struct pk_map *map);
/* The number of distinct (name, file) among the reached frames. */
size_t pk_pp_want_nfunctions(void);

/* P written to a new file under /tmp, its path (the caller unlinks and
 * frees it); to memory, what pk_pprof_write() returned in RET. */
char *pk_pp_write_to_file(const struct pk_profile *p);
char *pk_pp_write_to_memory(const struct pk_profile *p, size_t *len, int *ret);
/* P written (it must be) and decoded: free with
 * perftools__profiles__profile__free_unpacked(). */
Perftools__Profiles__Profile *pk_pp_written(const struct pk_profile *p);
/* qsort's comparison of two strings (char *) */
int pk_pp_cmp_strp(const void *a, const void *b);
/* S's one label KEY: there must be exactly one. */
const Perftools__Profiles__Label *pk_pp_label(const Perftools__Profiles__Profile *m,
					      const Perftools__Profiles__Sample *s,
					      const char *key);
/* Skip when go is missing, unless CI=true. */
bool pk_pp_need_go(void);
/* An inconsistent profile is refused before anything is written. */
void pk_pp_check_refused(const struct pk_profile *p);

/* The tests of the suite's other files, added to its one tcase in order. */
void pk_pp_tools_tests(TCase *tc);
void pk_pp_events_tests(TCase *tc);

#endif
