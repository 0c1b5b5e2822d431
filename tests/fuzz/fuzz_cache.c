// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target over the cache-file reader: eh_unwind_table_open() on
 * arbitrary bytes written to a memfd (opened by its /proc/self/fd path, as
 * a cache file would be). A file it accepts must be a well-formed table;
 * everything else must be rejected with one line of reason, never used.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "fuzz/table_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN] = "";
	int ret;

	if (fd < 0) {
		fd = memfd_create("fuzz-cache", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	ret = eh_unwind_table_open(path, &t, err);
	fuzz_check_result(ret, t, err);
	return 0;
}
