/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The harness of suite srcline (test_srcline.c: pk_srcline against
 * eu-addr2line and llvm-symbolizer at every instruction of the fixtures
 * and of libc; test_srcline_files.c: where debug info is, corrupt debug
 * info, the API): modules as the symbolizer reports them, and the
 * instructions of a file.
 */
#ifndef PK_SRCLINE_RUN_H
#define PK_SRCLINE_RUN_H

#include <check.h>
#include <elfutils/libdwfl.h>
#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "harness/addr2line_oracle.h"
#include "symbolization/srcline.h"

#define MAX_FRAMES PK_A2L_MAX_FRAMES

struct mod {
	Dwfl *dwfl;
	Dwfl_Module *dm;
};

/* PATH as the only module of a Dwfl, at bias 0; dm NULL when libdwfl
 * cannot read it. */
struct mod pk_sl_mod_open(const char *path);
void pk_sl_mod_close(struct mod *m);
/* pk_srcline_lookup() at ADDR into F (MAX_FRAMES), which must work. */
int pk_sl_lookup(struct pk_srcline *sl, __u64 addr, struct pk_srcline_frame *f);

struct addrs {
	__u64 *v;
	size_t n;
};

void pk_sl_addrs_add(struct addrs *a, __u64 addr);
/* Every instruction objdump -d lists in PATH (between START and STOP when
 * STOP is not 0): lines "  ADDR:\tINSN". */
void pk_sl_insn_addrs(const char *path, __u64 start, __u64 stop, struct addrs *a);

/* The fixture NAME of tests/dbg.mk, its path into BUF. */
const char *pk_sl_fixture(const char *name, char *buf, size_t len);
/* Whether PATH has a section named WANT. */
bool pk_sl_has_section(const char *path, const char *want);

/* The suite's tcase of its other file. */
void pk_sl_files_tcase(Suite *s);

#endif
