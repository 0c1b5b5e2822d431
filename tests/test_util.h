/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Helpers shared by the check suites. */
#ifndef PK_TEST_UTIL_H
#define PK_TEST_UTIL_H

#include <check.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* $PROBEKIT_BUILD/<rel> (the build directory make check tests), in BUF. */
const char *pk_test_build_path(const char *rel, char *buf, size_t len);
/* $PROBEKIT_SRC/<rel> (the source tree), in BUF. */
const char *pk_test_src_path(const char *rel, char *buf, size_t len);
/* <rel> in a folder on a disk's file system, for block I/O and major page
 * faults (a tmpfs has no disk): $PROBEKIT_DISK if set (the kernel matrix's
 * guests, whose build is on a read-only 9p), else the build directory. */
const char *pk_test_disk_path(const char *rel, char *buf, size_t len);

/* DIR/NAME, in one of 8 buffers used in turn: for a test's paths in its
 * own folder, a few at a time in one call. */
const char *pk_test_path_in(const char *dir, const char *name);

/* $PROBEKIT_ROOTS/<rel>: the Debian roots `make test-deps` made
 * (tests/roots/README.md; default /var/cache/probekit-roots), in BUF. */
const char *pk_test_roots_path(const char *rel, char *buf, size_t len);
/* Hold the test roots for this test alone until its process exits (check
 * forks one per test): for a test that needs a fixed path in a root, such
 * as the /tmp/perf-1.map of a fixture that is PID 1 there, while another
 * make check runs beside this one on the same roots. */
void pk_test_roots_hold(void);

/* The cache root of every tool the tests run (PROBEKIT_CACHE_DIR): a
 * folder of the run's own, so that the machine's default,
 * /var/cache/probekit, is left as it was. The runner makes it before the
 * first suite (pk_test_cache_begin) and removes it after the last
 * (pk_test_cache_end); a test that sets PROBEKIT_CACHE_DIR in the runner
 * process puts this back. NULL before. */
const char *pk_test_cache_dir(void);
void pk_test_cache_begin(void);
void pk_test_cache_end(void);

/* How many times slower than the machine the tests were written on this one
 * runs them, as check's CK_TIMEOUT_MULTIPLIER says it (30 in a TCG guest of
 * the kernel matrix): a test whose work is a fixed program (a compiler's
 * input), not a CPU budget, sizes it by this. 1 when unset. */
unsigned int pk_test_slowdown(void);

/*
 * Integration tests need root (BPF, perf events). Suites that need it call
 * this when building their Suite: it returns true when the test cases may be
 * added. Not root: false, with a note on stderr, so the tests are not run --
 * unless CI=true, where the suite gets a failing case instead: in CI a skip
 * is a failure.
 */
bool pk_test_need_root(Suite *s, const char *why);

/* Run ARGV (NULL-terminated), capturing stdout and stderr into malloc'ed,
 * NUL-terminated buffers (either may be NULL to discard). Returns the exit
 * status as from waitpid (use WIFEXITED/WEXITSTATUS), or -1. */
int pk_test_run(char *const argv[], char **out, char **err);

/* Start ARGV (NULL-terminated) with stdin from /dev/null and stdout and
 * stderr appended to OUT_PATH (NULL: /dev/null). Returns the pid or -1. */
pid_t pk_test_spawn(char *const argv[], const char *out_path);
/* In a child just forked: die (SIGKILL) when the process that forked it
 * does, so that a test that fails half-way leaves no process behind.
 * Kept across exec; call it before exec. */
void pk_test_die_with_parent(pid_t parent);
/* Wait for PID; returns its status as from waitpid, or -1. */
int pk_test_wait(pid_t pid);

/* Read a whole file into a malloc'ed NUL-terminated buffer, NULL on error. */
char *pk_test_read_file(const char *path, size_t *len);
/* FROM's bytes into a new file TO with MODE (check assertions on failure). */
void pk_test_copy_file(const char *from, const char *to, mode_t mode);

/* The build-id of FILE in hex, as readelf -n prints it (the oracle: not
 * our ELF code), into HEX. */
void pk_test_readelf_build_id(const char *file, char *hex, size_t len);
/* Where a debug directory DIR holds the file of build-id HEX,
 * DIR/.build-id/xx/yyyy.debug, into PATH; its folders are made. */
void pk_test_build_id_path(const char *dir, const char *hex, char *path, size_t len);
/* Remove PATH (from pk_test_build_id_path) and the folders made for it:
 * DIR is left as it was. */
void pk_test_build_id_remove(const char *dir, const char *path);

/* Room for element N of array V that holds N elements of SIZE bytes, its
 * capacity the next power of two: only a full array (N a power of two, or
 * 0) grows, to twice N. NULL when out of memory, V untouched. */
void *pk_test_grow(void *v, size_t n, size_t size);

/* libbpf's messages, every level, kept in memory instead of printed from
 * pk_test_libbpf_log_start() to pk_test_libbpf_log_stop() (the first MiB
 * of them); pk_test_libbpf_log() is what was kept, NUL-terminated. */
void pk_test_libbpf_log_start(void);
void pk_test_libbpf_log_stop(void);
const char *pk_test_libbpf_log(void);

#endif
