// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * rbpos PINNED_RINGBUF: print the ring buffer's producer and consumer
 * positions, "PRODUCER CONSUMER". The producer position is every byte the
 * BPF programs ever reserved in it (records, their 8-byte headers and
 * padding), so bench/dwarf.sh reads the bytes a session sent through it.
 */
#include <bpf/bpf.h>
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile unsigned long *cons, *prod;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: rbpos PINNED_RINGBUF\n");
		return 2;
	}
	fd = bpf_obj_get(argv[1]);
	if (fd < 0) {
		fprintf(stderr, "rbpos: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	cons = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	prod = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, page);
	if (cons == MAP_FAILED || prod == MAP_FAILED) {
		fprintf(stderr, "rbpos: mmap %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%lu %lu\n", *prod, *cons);
	return 0;
}
