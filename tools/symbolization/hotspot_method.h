/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Java methods as the kernel names them (bpf/hotspot_records.h). */
#ifndef PK_HOTSPOT_METHOD_H
#define PK_HOTSPOT_METHOD_H

#include <linux/types.h>
#include <stddef.h>

/* A Java method as the kernel named it (struct pk_hs_method_event,
 * validated): its holder's and its own name and its source file, not
 * NUL-terminated, and its line number table (hotspot_lines.h). */
struct pk_hs_method_desc {
	__u32 pid;
	__u32 flags;		/* enum pk_hs_method_flags */
	__u64 method;		/* the Method*: not 0, within PK_HS_METHOD_MASK */
	const char *klass;	/* "java/util/Arrays" */
	size_t klass_len;
	const char *name;	/* "sort" */
	size_t name_len;
	const char *file;	/* "Arrays.java" */
	size_t file_len;
	const __u8 *lines;	/* PK_HS_LINES_NO_ZERO in flags: JDK 21's coding */
	size_t lines_len;
};

#endif
