/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* Lines of /proc/PID/mountinfo (proc(5)), for overlay's layers and the
 * cgroup v2 hierarchy. */
#ifndef PK_MOUNTINFO_H
#define PK_MOUNTINFO_H

#include <stdbool.h>

/* One mount: fields pointing into LINE, a copy its owner frees. */
struct pk_mount {
	char *line;
	const char *dev;	/* "MAJOR:MINOR" of its file system */
	const char *root;	/* the mount's root in its file system */
	const char *point;	/* where it is mounted */
	const char *fstype;
	const char *options;	/* the super block's */
};

/* Split LINE, one line of mountinfo, in place into *M (root and point
 * unescaped; M->line is not set). False when it is not one. */
bool pk_mount_parse(char *line, struct pk_mount *m);

/* mountinfo escapes space, tab, newline and backslash (and, in overlay's
 * options, ',' and '=') as \NNN octal: undone in place. */
void pk_mount_unescape(char *s);

#endif
