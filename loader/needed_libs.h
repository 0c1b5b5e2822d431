/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The shared libraries a dynamic executable will load at start-up, as its
 * own ELF interpreter resolves them (`INTERP --list EXE`, what ldd runs):
 * DT_NEEDED, RPATH/RUNPATH, LD_LIBRARY_PATH, the ld.so cache and hwcaps
 * subdirectories are the loader's business, not ours to imitate. --list
 * maps the libraries and exits before any of their code runs.
 */
#ifndef PK_NEEDED_LIBS_H
#define PK_NEEDED_LIBS_H

#include <stdbool.h>
#include <stddef.h>

/* Call FN for each library path INTERP --list EXE prints (" => PATH ("
 * lines), in its order. 0, or a negative errno when the loader could not
 * be run or failed (a static executable, a missing library): the caller
 * goes on without them. */
int pk_needed_libs(const char *interp, const char *exe,
		   int (*fn)(void *ctx, const char *path), void *ctx);

/* One line of --list output: the path after " => " and before " (0x",
 * copied into BUF; false when the line names no file (the vDSO, the
 * loader itself, "not found"). */
bool pk_needed_libs_parse_line(const char *line, char *buf, size_t len);

#endif
