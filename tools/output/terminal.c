// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <sys/ioctl.h>
#include <unistd.h>

#include "output/terminal.h"

void pk_term_open(struct pk_term *t, int in, FILE *out)
{
	struct termios raw;

	t->in = isatty(in) ? in : -1;
	t->out = out;
	t->ansi = isatty(fileno(out));
	t->saved_valid = t->in >= 0 && tcgetattr(in, &t->saved) == 0;
	if (t->saved_valid) {
		raw = t->saved;
		raw.c_lflag &= ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 0;	/* a read returns at once, a key or none */
		raw.c_cc[VTIME] = 0;
		tcsetattr(in, TCSANOW, &raw);
	}
	if (t->ansi) {
		fputs("\x1b[?25l\x1b[H\x1b[2J", out);	/* hide the cursor, clear */
		fflush(out);
	}
}

void pk_term_close(struct pk_term *t)
{
	if (t->saved_valid)
		tcsetattr(t->in, TCSANOW, &t->saved);
	t->saved_valid = false;
	if (t->ansi) {
		fputs("\x1b[?25h", t->out);
		fflush(t->out);
	}
}

int pk_term_key(struct pk_term *t)
{
	unsigned char c;

	if (t->in < 0 || read(t->in, &c, 1) != 1)
		return -1;
	return c;
}

void pk_term_size(const struct pk_term *t, unsigned int *rows, unsigned int *cols)
{
	struct winsize ws;

	*rows = *cols = 0;
	if (t->ansi && ioctl(fileno(t->out), TIOCGWINSZ, &ws) == 0) {
		*rows = ws.ws_row;
		*cols = ws.ws_col;
	}
}
