// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * table_room FILE...: what the unwind tables of FILEs cost in the kernel and
 * to load and give back, through the unwind store (lib/unwind_store.h) on
 * maps made as probe-load makes them (no program, nothing pinned). The
 * tables come from the eh2table cache (PROBEKIT_CACHE_DIR): warm it first,
 * or the first add builds them. Used by bench/table-room.sh.
 *
 * Prints one line, "FILES TABLES ROWS RULES BYTES ADD_NS FREE_NS":
 *   BYTES    the kernel bytes the tables take (unwind_alloc, which the unit
 *            test checks against the kernel's fdinfo memlock);
 *   ADD_NS   pk_unwind_store_add of every FILE: the cache files read, one
 *            array made, filled by memcpy and inserted per table;
 *   FREE_NS  pk_unwind_store_reclaim giving them all back (no process maps
 *            FILEs: they must not be mapped by this process): the scan of
 *            every /proc/PID/maps included.
 * Times are wall clock (CLOCK_MONOTONIC): the kernel's work of making and
 * freeing the arrays is not this process's CPU time alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "bpf/profile_sizes.h"
#include "lib/unwind_store.h"

static __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct pk_unwind_alloc caps = { .max_tables = PK_UNWIND_TABLES_MAX,
					.max_bytes = PK_TABLE_MEMORY_MAX };
	struct pk_unwind_store_opts so = { .cache_dir = getenv("PROBEKIT_CACHE_DIR"),
					   .prog = "table_room" };
	char dir[] = "/tmp/pk-table-room-XXXXXX", err[PK_ERR_LEN];
	struct pk_unwind_file *files = calloc(argc, sizeof(*files));
	struct pk_unwind_stats st = { 0 };
	struct pk_unwind_store *s = NULL;
	struct pk_unwind_alloc a;
	struct pk_unwind_fds fds;
	__u64 t0, add_ns, free_ns;
	int n = argc - 1, ret;

	if (n < 1 || !files) {
		fprintf(stderr, "usage: table_room FILE...\n");
		return 2;
	}
	for (int i = 0; i < n; i++) {
		struct stat sb;

		if (stat(argv[i + 1], &sb)) {
			fprintf(stderr, "table_room: %s: %s\n", argv[i + 1], strerror(errno));
			return 1;
		}
		files[i] = (struct pk_unwind_file){ .path = argv[i + 1],
			.key = { pk_kernel_dev(major(sb.st_dev), minor(sb.st_dev)), sb.st_ino } };
	}
	if (!mkdtemp(dir)) {
		perror("table_room: mkdtemp");
		return 1;
	}
	ret = pk_unwind_maps_create(&caps, PK_UNWIND_FILES_MAX, &fds);
	if (ret) {
		fprintf(stderr, "table_room: cannot make the unwind maps: %s\n", strerror(-ret));
		rmdir(dir);
		return 1;
	}
	ret = pk_unwind_store_create(&fds, &caps, dir, &so, &s, err);
	t0 = now_ns();
	if (!ret)
		ret = pk_unwind_store_add(s, files, n, NULL, err);
	add_ns = now_ns() - t0;
	if (!ret)
		ret = pk_unwind_store_alloc(s, &a);
	t0 = now_ns();
	if (!ret)
		ret = pk_unwind_store_reclaim(s, &st, err);
	free_ns = now_ns() - t0;
	if (ret)
		fprintf(stderr, "table_room: %s\n", err[0] ? err : strerror(-ret));
	else if (st.freed != a.live)
		fprintf(stderr, "table_room: %u of %u tables given back (is a FILE mapped?)\n",
			st.freed, a.live);
	else
		printf("%d %u %u %u %llu %llu %llu\n", n, a.live, a.rows, a.rules,
		       (unsigned long long)a.bytes, (unsigned long long)add_ns,
		       (unsigned long long)free_ns);
	pk_unwind_store_free(s);
	pk_unwind_fds_close(&fds);
	rmdir(dir);
	free(files);
	return ret || st.freed != a.live ? 1 : 0;
}
