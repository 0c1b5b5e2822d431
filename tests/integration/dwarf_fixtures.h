/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the two files of suite dwarf share: test_dwarf.c (the fixtures'
 * whole stacks, registers carried from the leaf, hostile stacks, the
 * frame-pointer control) defines the fixtures' variants; test_dwarf_tables.c
 * (tables that come at run time, and room for LLVM's) adds its cases to the
 * suite's tcases.
 */
#ifndef PK_DWARF_FIXTURES_H
#define PK_DWARF_FIXTURES_H

#include <check.h>
#include <stddef.h>

/* Seconds each fixture runs: about 400 samples of one busy CPU at 99 Hz. */
#define PK_DWARF_RUN_STR	"4"

/* The variants each nofp fixture is built in (gcc/clang x pie/nopie); the
 * first PK_DWARF_NCORE_VARIANTS hold both compilers and both kinds of
 * executable (test_dwarf.c says why). */
#define PK_DWARF_NVARIANTS	4
#define PK_DWARF_NCORE_VARIANTS	2
extern const char *const pk_dwarf_variants[PK_DWARF_NVARIANTS];

/* chain5's whole stacks and its measured code. */
extern const char *const pk_dwarf_chain5_pats[];
#define PK_DWARF_CHAIN5_HOT	"f1|f2|f3|f4|f5"

/* The path of fixture NAME built in VARIANT. */
void pk_dwarf_nofp_path(const char *name, const char *variant, char *buf, size_t len);

/* The cases of test_dwarf_tables.c, added to TC: tcase tables_at_run_time's
 * (on the core variants), more_variants' (the others) and room's. */
void pk_dwarf_tables_tests(TCase *tc);
void pk_dwarf_tables_more_variants(TCase *tc);
void pk_dwarf_room_tests(TCase *tc);

#endif
