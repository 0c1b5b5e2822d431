/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The terminal of a live view (probe-read --top): keys read one at a time
 * without echo, the screen's size, the cursor hidden while the view is
 * redrawn in place, and all of it given back as it was found, however the
 * view ends (signals end it through the caller's loop, never here).
 */
#ifndef PK_TERMINAL_H
#define PK_TERMINAL_H

#include <stdbool.h>
#include <stdio.h>
#include <termios.h>

struct pk_term {
	int in;			/* keys from here; -1: none (not a terminal) */
	FILE *out;
	bool ansi;		/* OUT is a terminal: escapes, redrawn in place */
	bool saved_valid;
	struct termios saved;
};

/* Take IN (when it is a terminal: no echo, a key at a time, signals kept
 * so that Ctrl-C still interrupts) and OUT (when it is one: cleared, the
 * cursor hidden). Never fails: what is not a terminal is used as it is. */
void pk_term_open(struct pk_term *t, int in, FILE *out);
/* The terminal as it was, the cursor shown again, below the last view. */
void pk_term_close(struct pk_term *t);
/* The next key pressed, or -1 when none is waiting. */
int pk_term_key(struct pk_term *t);
/* OUT's rows and columns; 0 where it is not a terminal. */
void pk_term_size(const struct pk_term *t, unsigned int *rows, unsigned int *cols);

#endif
