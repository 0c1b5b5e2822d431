/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite reader (test_reader.c: stacks merged and freed,
 * spans, events, --aggregate, bad records; test_reader_walks.c: walks and
 * unwind tables; test_reader_python.c: Python frames): probe-read's reader
 * without the ring buffer, on the fake /proc of harness/elf_fixture.h.
 */
#ifndef PK_READER_RUN_H
#define PK_READER_RUN_H

#include <check.h>
#include <linux/types.h>
#include <stddef.h>
#include <stdio.h>

#include "profile/profile.h"
#include "reading/reader.h"

/* A sample record: kernel then user addresses, each leaf first. */
size_t pk_rd_record(unsigned char *buf, __u32 pid, const char *comm, const __u64 *k, __u16 nk,
		    const __u64 *u, __u16 nu);
/* A reader of O, on the fixture's /proc and kallsyms (<dir>/kallsyms). */
struct pk_reader *pk_rd_new_reader_opts(struct pk_reader_opts o);
struct pk_reader *pk_rd_new_reader_with(const struct pk_table_sink *tables, FILE *log);
struct pk_reader *pk_rd_new_reader(void);
/* P folded, as a string. */
char *pk_rd_folded(const struct pk_profile *p);
/* Everything R handled, folded. */
char *pk_rd_output(struct pk_reader *r);
/* Every stack, location and mapping P reaches has an id below P's counts,
 * and no two have one id. */
void pk_rd_assert_dense_ids(const struct pk_profile *p);
/* PID's process exits: its fake /proc entry is gone. */
void pk_rd_fake_exit(__u32 pid);
/* What PRINT makes of ST is WANT. */
void pk_rd_check_summary(void (*print)(FILE *, const struct pk_reader_stats *),
			 const struct pk_reader_stats *st, const char *want);

/* The tests of the suite's other files, added to its one tcase in order. */
void pk_rd_walk_tests(TCase *tc);
void pk_rd_python_tests(TCase *tc);

#endif
