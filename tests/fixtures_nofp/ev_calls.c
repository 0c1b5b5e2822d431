// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers, known numbers of known events, each in its own chain.
 * Usage: ev_calls [--wait] [--odirect DIR] [--major FILE]
 *   main -> writer -> write():   EV_WRITES one-byte writes to /dev/null
 *   main -> caller -> hot_fn:    EV_CALLS calls (uprobe)
 *   main -> ticker:              EV_TICKS hits of USDT probe probekit:tick,
 *                                reached only while its semaphore is set
 *                                (probekit_tick_semaphore): a tracer must set it
 *   main -> toucher:             EV_PAGES new pages touched once each (no
 *                                huge pages), one page fault each
 *   main -> direct_writer:       with --odirect, EV_DIRECT O_DIRECT writes
 *                                of EV_DIRECT_SIZE (and fdatasync) to a file
 *                                in DIR: long enough that the writer sleeps
 *                                until each completes (a 4 KiB request could
 *                                complete before the writer waited for it)
 *   main -> major_reader:        with --major FILE, one read of each page of
 *                                FILE mapped after dropping it from the page
 *                                cache, without read-ahead: a major fault each
 * With --wait it reads one byte from stdin first, so that a test can attach
 * to its pid (-p) before anything is counted. It writes nothing else.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include "nofp.h"

#define EV_WRITES	1000
#define EV_CALLS	777
#define EV_TICKS	333
#define EV_PAGES	2000
#define EV_DIRECT	64
#define EV_DIRECT_SIZE	(1 << 20)

unsigned short probekit_tick_semaphore __attribute__((unused, section(".probes")));

NOFP_FN int hot_fn(int i)
{
	nofp_sink += i;
	return (int)nofp_sink;
}

NOFP_FN void caller(void)
{
	for (int i = 0; i < EV_CALLS; i++) {
		hot_fn(i);
		NOFP_AFTER_CALL();
	}
}

NOFP_FN void writer(void)
{
	int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);

	for (int i = 0; i < EV_WRITES; i++)
		if (write(fd, "x", 1) != 1)
			exit(1);
	close(fd);
}

NOFP_FN void ticker(void)
{
	for (int i = 0; i < EV_TICKS; i++) {
		if (probekit_tick_semaphore)
			STAP_PROBE1(probekit, tick, i);
		NOFP_AFTER_CALL();
	}
}

NOFP_FN void toucher(void)
{
	size_t len = (size_t)EV_PAGES * 4096;
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		exit(1);
	madvise((void *)p, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < EV_PAGES; i++)
		p[i * 4096] = 1;
	munmap((void *)p, len);
}

NOFP_FN void direct_writer(const char *dir)
{
	char path[4096];
	void *buf;
	int fd;

	snprintf(path, sizeof(path), "%s/ev_calls-odirect-%d", dir, (int)getpid());
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT | O_CLOEXEC, 0600);
	if (fd < 0 || posix_memalign(&buf, 4096, EV_DIRECT_SIZE))
		exit(3);
	memset(buf, 'x', EV_DIRECT_SIZE);
	for (int i = 0; i < EV_DIRECT; i++)
		if (pwrite(fd, buf, EV_DIRECT_SIZE, (off_t)i * EV_DIRECT_SIZE) != EV_DIRECT_SIZE)
			exit(3);
	fdatasync(fd);
	close(fd);
	unlink(path);
	free(buf);
}

NOFP_FN void major_reader(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	off_t len = fd < 0 ? -1 : lseek(fd, 0, SEEK_END);
	volatile const char *p;

	if (len <= 0 || posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED))
		exit(4);
	p = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED || madvise((void *)p, len, MADV_RANDOM))
		exit(4);
	for (off_t i = 0; i < len; i += 4096)
		nofp_sink += p[i];
	munmap((void *)p, len);
	close(fd);
}

int main(int argc, char **argv)
{
	const char *odirect = NULL, *major = NULL;
	char c;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--wait") && read(0, &c, 1) != 1)
			return 1;
		else if (!strcmp(argv[i], "--odirect") && i + 1 < argc)
			odirect = argv[++i];
		else if (!strcmp(argv[i], "--major") && i + 1 < argc)
			major = argv[++i];
	}
	writer();
	NOFP_AFTER_CALL();
	caller();
	NOFP_AFTER_CALL();
	ticker();
	NOFP_AFTER_CALL();
	toucher();
	NOFP_AFTER_CALL();
	if (odirect)
		direct_writer(odirect);
	NOFP_AFTER_CALL();
	if (major)
		major_reader(major);
	NOFP_AFTER_CALL();
	return 0;
}
