// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "loader/load_log.h"

#define PROG_PREFIX	"libbpf: prog '"
#define LOG_BEGIN	"-- BEGIN PROG LOAD LOG --"
#define LOG_END		"-- END PROG LOAD LOG --"

static bool starts(const char *s, size_t n, const char *prefix)
{
	size_t p = strlen(prefix);

	return n >= p && !memcmp(s, prefix, p);
}

/* The statistics the verifier prints after every verdict, refused or not. */
static bool is_stats(const char *s, size_t n)
{
	return starts(s, n, "processed ") || starts(s, n, "verification time ") ||
	       starts(s, n, "stack depth ");
}

/* A line of the program or of the verifier's state rather than a message:
 * "855: (85) call bpf_ringbuf_output#130", "0: R1=ctx() R10=fp0", a source
 * line "; ...", a branch "from 9 to 15: ...", precision backtracking and
 * the indented lines of a state. */
static bool is_code(const char *s, size_t n)
{
	size_t d = 0;

	while (d < n && isdigit((unsigned char)s[d]))
		d++;
	if (d && d < n && s[d] == ':')
		return true;
	return (n && (s[0] == ';' || s[0] == ' ' || s[0] == '\t')) || starts(s, n, "from ") ||
	       starts(s, n, "last_idx ") || starts(s, n, "regs=") || starts(s, n, "parent ") ||
	       starts(s, n, "caller:") || starts(s, n, "callee:") || starts(s, n, "mark_precise:") ||
	       starts(s, n, "frame");
}

static void log_line(struct pk_load_log *log, const char *s, size_t n)
{
	if (!n || is_stats(s, n))
		return;
	snprintf(log->last, sizeof(log->last), "%.*s", (int)n, s);
	if (is_code(s, n)) {
		log->ntail = 0;
		return;
	}
	if (log->ntail == PK_LOAD_LOG_TAIL) {
		memmove(log->tail[0], log->tail[1], sizeof(log->tail) - sizeof(log->tail[0]));
		log->ntail--;
	}
	snprintf(log->tail[log->ntail++], sizeof(log->tail[0]), "%.*s", (int)n, s);
}

/* The verifier's reason: the message lines after its last line of code
 * (an error such as "invalid access to map value, ..." is followed by its
 * summary "R1 max value is outside of the allowed memory range"), else its
 * last line. */
static void log_verdict(struct pk_load_log *log)
{
	if (!log->ntail) {
		snprintf(log->why, sizeof(log->why), "%s", log->last);
		return;
	}
	snprintf(log->why, sizeof(log->why), "%s", log->tail[0]);
	for (unsigned int i = 1; i < log->ntail; i++) {
		size_t len = strlen(log->why);

		snprintf(log->why + len, sizeof(log->why) - len, "; %s", log->tail[i]);
	}
}

/* "libbpf: prog 'NAME': MESSAGE" */
static bool prog_line(struct pk_load_log *log, const char *s, size_t n)
{
	const char *name = s + strlen(PROG_PREFIX), *end = s + n, *q, *msg;
	size_t len, mlen;

	q = memmem(name, end - name, "': ", 3);
	if (!q)
		return false;
	len = q - name;
	msg = q + 3;
	mlen = end - msg;
	if (len >= sizeof(log->prog) || strncmp(log->prog, name, len) || log->prog[len]) {
		memset(log, 0, sizeof(*log));
		snprintf(log->prog, sizeof(log->prog), "%.*s", (int)len, name);
	}
	if (starts(msg, mlen, LOG_BEGIN)) {
		log->in_log = log->has_log = true;
		log->ntail = 0;
		log->last[0] = log->why[0] = '\0';
	} else if (starts(msg, mlen, "failed to load: ")) {
		log->refused = true;
		if (!log->why[0])
			snprintf(log->why, sizeof(log->why), "%s", log->first);
	} else if (!log->first[0]) {
		snprintf(log->first, sizeof(log->first), "%.*s", (int)mlen, msg);
	}
	return true;
}

static bool feed_line(struct pk_load_log *log, const char *s, size_t n)
{
	if (log->in_log) {
		size_t e = strlen(LOG_END);
		bool end = n >= e && !memcmp(s + n - e, LOG_END, e);

		/* a log that does not end in a newline runs into the END line */
		log_line(log, s, end ? n - e : n);
		if (end) {
			log->in_log = false;
			log_verdict(log);
		}
		return true;
	}
	if (starts(s, n, PROG_PREFIX))
		return prog_line(log, s, n);
	/* "failed to load object 'profile_bpf'", "... BPF skeleton ..." */
	return log->refused && starts(s, n, "libbpf: failed to load ");
}

bool pk_load_log_feed(struct pk_load_log *log, const char *text)
{
	bool about = false;

	while (*text) {
		const char *end = strchrnul(text, '\n');

		about |= feed_line(log, text, end - text);
		text = *end ? end + 1 : end;
	}
	return about;
}
