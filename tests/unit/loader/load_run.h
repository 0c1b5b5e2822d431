/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite load_session (test_load_session.c: pins, failed
 * loads, programs the kernel refuses; test_load_targets.c: the targets,
 * the command in the foreground, when a session stops; test_load_samples.c:
 * what the sampler delivers): probe-load run against a pin directory of
 * each test's own, and what it left pinned.
 */
#ifndef PK_LOAD_RUN_H
#define PK_LOAD_RUN_H

#include <check.h>
#include <linux/types.h>
#include <stdbool.h>
#include <sys/types.h>

#include "lib/session.h"

extern pid_t pk_ld_runner;	/* set when the suite is built, before check forks */
extern char pk_ld_dir[128];	/* this test's pin directory */

/* Run probe-load --pin-dir DIR ARGS...; returns its exit code. */
#define LOAD(out, err, ...) \
	pk_ld_run((const char *[]){ "--pin-dir", pk_ld_dir, __VA_ARGS__, NULL }, out, err)
int pk_ld_run(const char **args, char **out, char **err);

#define UNWIND_SUMMARY	"probe-load: unwind tables: "
const char *pk_ld_past_unwind_lines(const char *err);

/* Run with ARGS and insist it worked, silently but for the unwind lines. */
#define LOAD_OK(...) do {						\
	char *out_, *err_;						\
	int rc_ = LOAD(&out_, &err_, __VA_ARGS__);			\
	ck_assert_msg(rc_ == 0, "probe-load exited %d: %s", rc_, err_);	\
	ck_assert_str_eq(out_, "");					\
	ck_assert_str_eq(pk_ld_past_unwind_lines(err_), "");		\
	free(out_);							\
	free(err_);							\
} while (0)

/* Run and expect exit STATUS (1 an error, 2 bad usage) with exactly MSG on
 * stderr, nothing on stdout. */
#define LOAD_FAILS(status, msg, ...) do {				\
	char *out_, *err_;						\
	int rc_ = LOAD(&out_, &err_, __VA_ARGS__);			\
	ck_assert_int_eq(rc_, (status));				\
	ck_assert_str_eq(err_, (msg));					\
	ck_assert_str_eq(out_, "");					\
	free(out_);							\
	free(err_);							\
} while (0)
#define LOAD_REFUSED(msg, ...) LOAD_FAILS(1, msg, __VA_ARGS__)

bool pk_ld_pinned(const char *name);
bool pk_ld_dir_exists(void);
int pk_ld_pinned_link_ids(__u32 *ids, int max);
void pk_ld_sleep_ms(long ms);
void pk_ld_read_counters(__u64 c[PK_CNT__MAX]);
void pk_ld_wait_counter(int counter, __u64 c[PK_CNT__MAX]);
pid_t pk_ld_spin_child(void);
/* PID's enum pk_target_state, 0: not a target. */
int pk_ld_target_state(pid_t pid);

/* A case of root tests, each with its own pin directory, removed after the
 * case even when a test died half-way. */
TCase *pk_ld_root_case(Suite *s, const char *name);
/* The cases of the suite's other files, added to it in its order. */
void pk_ld_targets_tcase(Suite *s);
void pk_ld_foreground_tcase(Suite *s);
void pk_ld_stops_tcase(Suite *s);
void pk_ld_samples_tcase(Suite *s);

#endif
