/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Helpers of the end-to-end suites: run the real probe-load / probe-read from
 * the build under test against a pin directory of the test's own, and read
 * what they print.
 */
#ifndef PK_PROFILE_SESSION_H
#define PK_PROFILE_SESSION_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "bpf/probekit.h"
#include "test_util.h"

/* One pin directory per test: /sys/fs/bpf/probekit-test-<runner pid>-<n>. */
const char *pk_e2e_pin_dir(void);
/* Remove every pin directory this runner created (unchecked teardown: runs
 * in the runner process even when a test died half-way). */
void pk_e2e_cleanup_all(void);

/* A test case of end-to-end tests, TIMEOUT seconds per test, whose pins are
 * removed after the case even when a test died half-way (an unchecked
 * fixture runs in the runner process). */
TCase *pk_e2e_tcase(Suite *s, const char *name, double timeout);

/* True when TEXT is exactly one line (one '\n', at its end). */
bool pk_e2e_one_line(const char *text);

/* Run probe-load --pin-dir <pin dir> ARGS... ; returns exit status (0 ok).
 * With -- CMD, returns 0 as soon as the command is released, probe-load
 * waiting for it in the foreground (the caller's child) while the test
 * reads. */
int pk_e2e_load(const char *const args[]);
/* The same, its stderr (and a command's, written while probe-load ran) into
 * *ERR (malloc'ed). */
int pk_e2e_load_err(const char *const args[], char **err);
/* All that probe-load (and a command of its, with -- CMD) wrote to stderr
 * so far, since the last pk_e2e_load_err(): a command's probe-load goes
 * on writing while it waits (malloc'ed; NULL: none). pk_e2e_unload()
 * removes the log. */
char *pk_e2e_load_log(void);
/* Run probe-load --pin-dir <pin dir> ARGS... -- CMD to its end, as a shell
 * does: its exit status (the command's), 128 + N when signal N killed it. */
int pk_e2e_load_wait(const char *const args[]);
/* Run probe-read --pin-dir <pin dir> ARGS...; stdout into *out, stderr into
 * *err (malloc'ed). Returns exit status. */
int pk_e2e_read(const char *const args[], char **out, char **err);
int pk_e2e_unload(void);
/* Start probe-read --pin-dir <pin dir> ARGS... in the background, its
 * stdout and stderr appended to LOG (NULL: /dev/null): its pid, or -1. */
pid_t pk_e2e_spawn_read(const char *const args[], const char *log);
/* The pid holding the session's reader lock, 0 when none does. */
pid_t pk_e2e_lock_holder(void);
/* Until READER (a pk_e2e_spawn_read()) holds the session: it opens it
 * after starting up. */
void pk_e2e_wait_holder(pid_t reader);
/* PATH --wait, started with a pipe on its stdin: it does nothing until
 * pk_e2e_release() writes to it, so that a session can attach with -p
 * first (tests/fixtures_nofp/ev_calls.c). */
struct pk_e2e_waiting {
	pid_t pid;
	int release_fd;
};
struct pk_e2e_waiting pk_e2e_start_waiting(const char *path);
/* The same with EXTRA (NULL-terminated) after --wait. */
struct pk_e2e_waiting pk_e2e_start_waiting_with(const char *path, const char *const extra[]);
/* Let W go and wait for it: it must exit 0. */
void pk_e2e_release(struct pk_e2e_waiting *w);
/* The session's counters (bpf/probekit.h), summed over CPUs; a session
 * that cannot be read fails the test. */
void pk_e2e_counters(__u64 cnt[PK_CNT__MAX]);

/* The numbers of probe-read's summary line on stderr. */
struct pk_e2e_summary {
	unsigned long long read, lost, failed;
};
bool pk_e2e_parse_summary(const char *err, struct pk_e2e_summary *sum);

/* Wait until every process in the session's targets map (probe-load -p,
 * -- CMD, and the children they forked) has exited, for at most TIMEOUT
 * seconds: a fixture runs for CPU time, so how long it takes on the wall
 * depends on what else the machine runs. 0, or -ETIMEDOUT (or another
 * negative errno). */
int pk_e2e_wait_targets_exit(double timeout);
/* Wait until the session's targets still running have used SECS seconds
 * of CPU time together (or have all exited), for at most TIMEOUT seconds:
 * a test that needs N samples before it goes on waits for N samples' worth
 * of CPU time, not for a wall time. 0, or -ETIMEDOUT (or another negative
 * errno). */
int pk_e2e_wait_targets_cpu(double secs, double timeout);
/* The same for the one process PID (a session without targets): until it
 * has used SECS seconds of CPU time since it started. 0, -ETIMEDOUT, or
 * -ESRCH when it is gone first. */
int pk_e2e_wait_cpu(pid_t pid, double secs, double timeout);
/* The same for SECS seconds more from now: what a process that ran while
 * a session loaded (for as long as the machine made that take) uses once
 * it is sampled. */
int pk_e2e_wait_more_cpu(pid_t pid, double secs, double timeout);
/* Send SIG to each of the session's targets that still runs: how many, or
 * a negative errno. */
int pk_e2e_signal_targets(int sig);
/* CPU time PID has used, all its threads, in seconds; -1 when it is gone. */
double pk_e2e_cpu_s(pid_t pid);

/* Number of perf_event BPF links in the system that no other session
 * holds: links pinned anywhere in bpffs but under this test's pin directory
 * are not counted, so that a make check running beside this one (its
 * sessions are pinned under their own directories) does not move it. A
 * session of this test, or one refused, that left a link behind is counted:
 * the loader has exited, so a link it left is pinned under our directory. */
int pk_e2e_perf_links(void);

/* Folded-stack output as parsed by flamegraph.pl's rule: "STACK COUNT". */
struct pk_folded_line {
	char *stack;
	unsigned long count;
};
struct pk_folded {
	struct pk_folded_line *lines;
	size_t n;
};
/* Parse; false (with *bad_line) if any line breaks the format. */
bool pk_folded_parse(const char *text, struct pk_folded *f, const char **bad_line);
void pk_folded_free(struct pk_folded *f);
/* Sum of counts over lines whose root frame (comm) is COMM. */
unsigned long pk_folded_total(const struct pk_folded *f, const char *comm);

/* Fixture path, fixed pathname buffer. */
const char *pk_e2e_fixture(const char *name);
/* A fixture built without frame pointers (tests/nofp.mk):
 * $PROBEKIT_BUILD/fixtures_nofp/NAME, in BUF. */
const char *pk_e2e_fixture_nofp(const char *name, char *buf, size_t len);

/* probe-read's line about DWARF walks on stderr, "user stacks: P% complete,
 * Q% no table yet, ...": P and Q. False when there is no such line. */
bool pk_e2e_parse_user_stacks(const char *err, double *complete, double *no_table);

#endif
