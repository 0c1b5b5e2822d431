/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * probe-load's modules do not print: they return a negative errno and put
 * one line (no newline) into an error buffer, which main prints once. That
 * keeps the "exactly one clear line" rule in one place, and lets the tests
 * assert the messages without running the program.
 */
#ifndef PK_ERRMSG_H
#define PK_ERRMSG_H

#define PK_ERR_LEN	512

/* Format into ERR and return RET (a negative errno). */
__attribute__((format(printf, 3, 4)))
int pk_err(char err[PK_ERR_LEN], int ret, const char *fmt, ...);

#endif
