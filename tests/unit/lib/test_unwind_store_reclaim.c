// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite unwind_store, reclaim (unwind_store_run.h): the tables of files
 * no process maps any more are given back, and their room and index
 * reused.
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#include "eh_frame/eh_table.h"
#include "lib/unwind_store.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"
#include "unit/lib/unwind_store_run.h"

/* A process that maps PATH executable until *GO is closed: its pid. */
static pid_t mapper_start(const char *path, int *go)
{
	int ready[2], wait_fd[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(wait_fd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_RDONLY);
		void *p = fd < 0 ? MAP_FAILED : mmap(NULL, 4096, PROT_READ | PROT_EXEC,
						     MAP_PRIVATE, fd, 0);

		close(wait_fd[1]);
		if (write(ready[1], p == MAP_FAILED ? "n" : "y", 1) != 1)
			_exit(1);
		while (read(wait_fd[0], &c, 1) > 0)
			;
		_exit(0);
	}
	close(ready[1]);
	close(wait_fd[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'y');
	close(ready[0]);
	*go = wait_fd[1];
	return pid;
}

static void mapper_stop(pid_t pid, int go)
{
	int status;

	close(go);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* The runtimes' maps of a file's offsets (py_files, hs_files, v8_files),
 * and room for any of their values. */
static const char *const runtimes[] = { "py_files", "hs_files", "v8_files" };
#define NRUNTIMES (sizeof(runtimes) / sizeof(runtimes[0]))
static char rt_value[8192];

static int runtime_fd(const struct env *e, size_t r)
{
	const int fds[NRUNTIMES] = { e->fds.py, e->fds.hs, e->fds.v8 };

	ck_assert_int_ge(fds[r], 0);
	return fds[r];
}

/* The table of a private copy of libc, mapped by a process that then
 * exits, is given back: the bytes come back to the count, the file's
 * entries go (unwind_seen too: it is reported again when mapped again),
 * and the room is used again: libc's own table, too big for the limit
 * while the copy's was there, fits. A file a live process maps keeps its
 * table. */
START_TEST(test_reclaim_gone_file)
{
	struct eh_cache_opts co = { .sz = sizeof(co) };
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	struct eh_unwind_table *t;
	char copy[128], demo[4096], eherr[PK_ERR_LEN], err[PK_ERR_LEN];
	struct pk_unwind_alloc a;
	struct pk_file_info fi;
	__u64 libc_bytes, demo_bytes;
	__u8 one = 1;
	pid_t pid;
	int go;
	struct env e;

	pk_us_env_init(&e, 1 << 20, 4);	/* reset below, to libc's size */
	co.cache_dir = e.cache;
	ck_assert_int_gt(eh_cache_get(EH_TEST_LIBC, &co, &t, NULL, 0, eherr), 0);
	libc_bytes = pk_unwind_table_bytes(eh_unwind_table_header(t)->nrows,
					   eh_unwind_table_header(t)->nrules);
	eh_unwind_table_free(t);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	ck_assert_int_gt(eh_cache_get(demo, &co, &t, NULL, 0, eherr), 0);
	demo_bytes = pk_unwind_table_bytes(eh_unwind_table_header(t)->nrows,
					   eh_unwind_table_header(t)->nrules);
	eh_unwind_table_free(t);
	/* room for one libc-sized table and demo's, not two libc's */
	e.caps.max_bytes = libc_bytes + demo_bytes;
	pk_us_env_renew(&e);

	snprintf(copy, sizeof(copy), "%s/libc-copy.so", e.dir);
	eh_copy_file(EH_TEST_LIBC, copy, SIZE_MAX);
	/* the copy's build-id is libc's: strip it so that it is a table of
	 * its own (keyed by content) */
	{
		char *cmd[] = { "objcopy", "--remove-section=.note.gnu.build-id", copy, NULL };

		ck_assert_int_eq(pk_test_run(cmd, NULL, NULL), 0);
	}
	pid = mapper_start(copy, &go);
	f[0] = pk_us_file_of(copy);
	f[1] = pk_us_file_of(demo);
	pk_us_add(&e, f, 2, &st);
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(pk_us_file_info(&e, f[0].key).table, 0);
	ck_assert_uint_eq(pk_us_expect_table_of(&e, copy, 0), libc_bytes);
	ck_assert_uint_eq(pk_us_expect_table_of(&e, demo, 1), demo_bytes);
	ck_assert_int_eq(bpf_map_update_elem(e.fds.seen, &f[0].key, &one, BPF_ANY), 0);
	/* demo as if it were each runtime's file too: its entries go with it */
	for (size_t r = 0; r < NRUNTIMES; r++)
		ck_assert_int_eq(bpf_map_update_elem(runtime_fd(&e, r), &f[1].key, rt_value,
						     BPF_ANY), 0);

	/* the copy is mapped: nothing to give back (demo: nobody maps it) */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_reclaim(e.s, &st, err), 0);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.freed_bytes, demo_bytes);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.files, &f[1].key, &fi), -ENOENT);
	for (size_t r = 0; r < NRUNTIMES; r++)
		ck_assert_msg(bpf_map_lookup_elem(runtime_fd(&e, r), &f[1].key, rt_value) == -ENOENT,
			      "the %s entry of a file given back is still there", runtimes[r]);
	ck_assert_uint_eq(pk_us_file_info(&e, f[0].key).table, 0);
	ck_assert_int_eq(pk_us_table_array_fd(&e, 1), -1);

	mapper_stop(pid, go);
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_reclaim(e.s, &st, err), 0);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.forgotten, 1);
	ck_assert_uint_eq(st.freed_bytes, libc_bytes);
	a = pk_us_alloc_of(&e);
	ck_assert_uint_eq(a.bytes, 0);
	ck_assert_uint_eq(a.live, 0);
	ck_assert_uint_eq(a.rows, 0);
	ck_assert_uint_eq(a.freed, 2);
	ck_assert_uint_eq(a.freed_bytes, libc_bytes + demo_bytes);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.files, &f[0].key, &fi), -ENOENT);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.seen, &f[0].key, &one), -ENOENT);
	ck_assert_int_eq(pk_us_table_array_fd(&e, 0), -1);

	/* libc (this process maps it) fits in the room given back */
	f[0] = pk_us_file_of(EH_TEST_LIBC);
	memset(&st, 0, sizeof(st));
	pk_us_add(&e, f, 2, &st);
	ck_assert_str_eq(pk_us_env_log(&e), "");
	ck_assert_uint_eq(st.tables, 2);
	ck_assert_uint_eq(st.refused, 0);
	ck_assert_uint_eq(pk_us_alloc_of(&e).bytes, libc_bytes + demo_bytes);
	ck_assert_uint_eq(pk_us_expect_table_of(&e, EH_TEST_LIBC,
						 pk_us_file_info(&e, f[0].key).table),
			  libc_bytes);
	/* and it stays while this process maps it */
	memset(&st, 0, sizeof(st));
	ck_assert_int_eq(pk_unwind_store_reclaim(e.s, &st, err), 0);
	ck_assert_uint_eq(pk_us_file_info(&e, f[0].key).flags, 0);
	pk_us_env_free(&e);
}
END_TEST

/* With every index taken, a table is given back when room is needed, and
 * its index is handed out again under a new gen (what keeps the BPF rule
 * cache from serving the old table's rules). The files of the batch being
 * added are kept even though no process maps them yet. */
START_TEST(test_reclaim_reuses_index)
{
	struct pk_unwind_file f[2];
	struct pk_unwind_stats st = {};
	char copy[128], demo[4096];
	struct pk_table_info ti;
	__u32 zero = 0;
	pid_t pid;
	int go;
	struct env e;

	pk_us_env_init(&e, 16 << 20, 1);
	pk_test_build_path("fixtures/demo", demo, sizeof(demo));
	snprintf(copy, sizeof(copy), "%s/demo-copy", e.dir);
	eh_copy_file(demo, copy, SIZE_MAX);
	pid = mapper_start(copy, &go);
	f[0] = pk_us_file_of(copy);
	pk_us_add(&e, f, 1, &st);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &zero, &ti), 0);
	ck_assert_uint_eq(ti.gen, 1);

	/* libc while the copy is mapped: no index left, nothing to give back */
	f[0] = pk_us_file_of(EH_TEST_LIBC);
	f[0].name = "libc";
	memset(&st, 0, sizeof(st));
	pk_us_add(&e, f, 1, &st);
	ck_assert_str_eq(pk_us_env_log(&e), "test: libc: unwind table refused: 1 tables loaded, the most there is room for\n");
	ck_assert_uint_eq(st.freed, 0);
	ck_assert_int_eq(bpf_map_delete_elem(e.fds.files, &f[0].key), 0);

	mapper_stop(pid, go);
	/* a file nobody maps yet, in the batch: loaded in the room of the copy */
	f[0] = pk_us_file_of(EH_TEST_LIBC);
	f[1] = pk_us_file_of("/bin/true");
	f[1].name = "true";
	memset(&st, 0, sizeof(st));
	pk_us_add(&e, &f[1], 1, &st);
	ck_assert_uint_eq(st.freed, 1);
	ck_assert_uint_eq(st.tables, 1);
	ck_assert_uint_eq(pk_us_file_info(&e, f[1].key).table, 0);
	ck_assert_int_eq(bpf_map_lookup_elem(e.fds.tables, &zero, &ti), 0);
	ck_assert_uint_eq(ti.gen, 2);
	pk_us_expect_table_of(&e, "/bin/true", 0);
	ck_assert_uint_eq(pk_us_alloc_of(&e).tables, 1);
	ck_assert_uint_eq(pk_us_alloc_of(&e).live, 1);
	pk_us_env_free(&e);
}
END_TEST


void pk_us_reclaim_tests(TCase *tc)
{
	tcase_add_test(tc, test_reclaim_gone_file);
	tcase_add_test(tc, test_reclaim_reuses_index);
}
