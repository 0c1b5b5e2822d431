/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The pin directory's life: claim it for a new session, pin into it, and
 * remove every pin (on --unload, or when a load fails half-way).
 *
 * bpffs does not rename directories, so a load cannot be published with one
 * rename(2). Instead the links/ directory is the claim (mkdir is atomic: a
 * second loader fails on it), the session map is pinned last (a reader that
 * finds it finds a complete session), and a failed load removes what it
 * pinned. links/ is also what a reader locks, and its removal what tells
 * the reader that the session is gone (lib/session_lock.h): --unload
 * removes it after the links in it, before the maps.
 */
#ifndef PK_PINS_H
#define PK_PINS_H

#include <stdbool.h>

#include "eh_frame/errmsg.h"

/* The pin directory of a load in progress. */
struct pk_pins {
	const char *dir;
	bool created_dir;	/* remove DIR itself on failure */
	bool claimed;		/* DIR/links is ours */
};

/* Make sure DIR can hold pins (mounting bpffs at /sys/fs/bpf when DIR is
 * below it and nothing is mounted there), create it if needed and claim it.
 * -EEXIST when a session is already loaded there. */
int pk_pins_claim(struct pk_pins *p, const char *dir, char err[PK_ERR_LEN]);
/* Pin FD as DIR/NAME (NAME may be "links/cpu0"). */
int pk_pins_add(struct pk_pins *p, int fd, const char *name, char err[PK_ERR_LEN]);
/* Undo pk_pins_claim() and every pk_pins_add() after a failed load. */
void pk_pins_abort(struct pk_pins *p);

/* Unpin every link under DIR/links, which detaches them (no process holds
 * them): the session's programs stop running, its maps and DIR/links stay.
 * The first error other than "was not there". */
int pk_pins_detach(const char *dir);

/* probe-load --unload: unpin links (which detaches them), then the maps,
 * then remove the directories. -ENOENT when no session is loaded at DIR. */
int pk_pins_unload(const char *dir, char err[PK_ERR_LEN]);

#endif
