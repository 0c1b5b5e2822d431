/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The one error carrier of the project. Code below main() does not print:
 * a function that can fail returns a negative errno and, where the user
 * must be told why, puts one line (no newline) into an error buffer that
 * main() prints once. That keeps the "exactly one clear line" rule in one
 * place, and lets the tests assert the messages without running a program.
 *
 * It lives in the eh_frame library, the lowest layer, so that the library
 * and every program above it (probe-load, probe-read, eh2table) share it;
 * like the table format's pk_unwind_* types, it keeps the project's prefix.
 */
#ifndef PK_ERRMSG_H
#define PK_ERRMSG_H

#define PK_ERR_LEN	512

/* Format into ERR (may be NULL when the caller wants only the errno) and
 * return RET (a negative errno). */
__attribute__((format(printf, 3, 4)))
int pk_err(char err[PK_ERR_LEN], int ret, const char *fmt, ...);

#endif
