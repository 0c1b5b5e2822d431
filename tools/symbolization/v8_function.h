/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* JavaScript functions as the kernel names them (bpf/v8_records.h). */
#ifndef PK_V8_FUNCTION_H
#define PK_V8_FUNCTION_H

#include <linux/types.h>
#include <stddef.h>

/* A JavaScript function as the kernel named it (struct pk_v8_sfi_event,
 * validated): its name (empty: anonymous, or unreadable by the flags) and
 * its script's, Latin-1, not NUL-terminated. */
struct pk_v8_sfi_desc {
	__u32 pid;
	__u32 flags;		/* enum pk_v8_sfi_flags */
	__u64 sfi;		/* not 0, within PK_V8_SFI_MASK */
	const char *name;	/* "leaf" */
	size_t name_len;
	const char *file;	/* "/work/hot.js" */
	size_t file_len;
	__u32 line;		/* where the function starts, 0: not known */
};

#endif
