// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * LD_PRELOAD=crash_write.so PK_CRASH_FILE=PART PK_CRASH_SIGNAL=N probe-read ...
 *
 * A crash in the middle of a file: the first write(2) to a file whose
 * path holds PART writes half its bytes (at least one), then raises
 * signal N (SIGSEGV, SIGABRT: what a heap overflow ends in), with the
 * file half-written. stdio writes without going through write(): an
 * fclose(3) of such a file writes half of what its buffer holds, then
 * raises N. The tests of a reader that dies of a fatal signal
 * (tests/integration/test_reader_session.c) use it to check that such a
 * death leaves no partial file under a name a reader takes, and no
 * session locked.
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ssize_t (*next_write)(int, const void *, size_t);

/* Whether FD is open on a file whose path holds $PK_CRASH_FILE. */
static bool doomed(int fd)
{
	const char *part = getenv("PK_CRASH_FILE");
	char link[64], path[4096];
	ssize_t len;

	if (!next_write)
		next_write = (ssize_t (*)(int, const void *, size_t))dlsym(RTLD_NEXT, "write");
	if (fd < 0 || !part || !*part || !getenv("PK_CRASH_SIGNAL"))
		return false;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	len = readlink(link, path, sizeof(path) - 1);
	if (len <= 0)
		return false;
	path[len] = '\0';
	return strstr(path, part) != NULL;
}

/* Half of BUF's N bytes (at least one) to FD, then the signal. */
static void die_halfway(int fd, const void *buf, size_t n)
{
	if (n)
		next_write(fd, buf, n / 2 ? n / 2 : 1);
	raise(atoi(getenv("PK_CRASH_SIGNAL")));
	_exit(99);	/* a signal the process caught and returned from */
}

ssize_t write(int fd, const void *buf, size_t n)
{
	if (doomed(fd) && n)
		die_halfway(fd, buf, n);
	return next_write(fd, buf, n);
}

int fclose(FILE *f)
{
	static int (*next)(FILE *);

	if (!next)
		next = (int (*)(FILE *))dlsym(RTLD_NEXT, "fclose");
	/* glibc's FILE: what is written but not flushed */
	if (doomed(fileno(f)))
		die_halfway(fileno(f), f->_IO_write_base, f->_IO_write_ptr - f->_IO_write_base);
	return next(f);
}
