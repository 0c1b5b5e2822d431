/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * libbpf's account of a load, read as it prints it (libbpf_set_print): which
 * program the kernel refused, and why in the verifier's own words, so that
 * probe-load can say it in one line and load the session without it.
 *
 * libbpf stops at the first program refused and prints, at LIBBPF_WARN:
 *   libbpf: prog 'NAME': BPF program load failed: Permission denied
 *   libbpf: prog 'NAME': -- BEGIN PROG LOAD LOG --
 *   ...the verifier's log...
 *   -- END PROG LOAD LOG --
 *   libbpf: prog 'NAME': failed to load: -13
 *   libbpf: failed to load object 'profile_bpf'
 * (a refusal before the verifier, a missing BTF type say, has no log block).
 */
#ifndef PK_LOAD_LOG_H
#define PK_LOAD_LOG_H

#include <stdbool.h>
#include <stddef.h>

#include "eh_frame/errmsg.h"

#define PK_LOAD_LOG_TAIL	2

struct pk_load_log {
	/* the program libbpf's last "prog 'NAME': " message was about */
	char prog[64];
	char first[PK_ERR_LEN];	/* libbpf's first message about it */
	bool in_log;		/* inside its verifier log block */
	bool has_log;		/* a verifier log came for it */
	/* the verifier's message lines since its last line of code, and
	 * its last line of any kind but statistics */
	char tail[PK_LOAD_LOG_TAIL][PK_ERR_LEN];
	unsigned int ntail;
	char last[PK_ERR_LEN];
	/* "failed to load": PROG was refused */
	bool refused;
	char why[PK_ERR_LEN];	/* the verifier's reason, or libbpf's first word */
};

/* Read TEXT, one or more whole lines libbpf printed. True when it was about
 * a program's refusal (probe-load shows it only with -v). */
bool pk_load_log_feed(struct pk_load_log *log, const char *text);

#endif
