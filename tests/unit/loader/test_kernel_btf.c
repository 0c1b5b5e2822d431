// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * loader/kernel_btf.c: the kernel types the BPF object relocates against,
 * made by bpftool once a boot and kept. The oracle for what they are is
 * libbpf itself: every program relocated against them must be, instruction
 * for instruction, the program libbpf relocates against the kernel's whole
 * BTF, which the kernel's tag of each loaded program shows (it hashes the
 * instructions as loaded, map references zeroed).
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bpf/profile.skel.h"
#include "lib/boot_id.h"
#include "loader/kernel_btf.h"
#include "loader/system.h"
#include "test_util.h"

static char root[64];

static void setup(void)
{
	snprintf(root, sizeof(root), "/tmp/pk-kernel-btf-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	unsetenv(PK_BPFTOOL_ENV);
}

static void teardown(void)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
	unsetenv(PK_BPFTOOL_ENV);
}

static int kernel_btf(char *path, size_t len)
{
	size_t obj_len;
	const void *obj = profile_bpf__elf_bytes(&obj_len);

	return pk_kernel_btf_for(obj, obj_len, root, path, len);
}

/* The names in ROOT/kernel, sorted, joined by spaces. */
static void kernel_dir(char *buf, size_t len)
{
	char dir[128];
	struct dirent **names;
	int n;

	snprintf(dir, sizeof(dir), "%s/kernel", root);
	buf[0] = '\0';
	n = scandir(dir, &names, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") && strcmp(names[i]->d_name, ".."))
			snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? " " : "",
				 names[i]->d_name);
		free(names[i]);
	}
	if (n >= 0)
		free(names);
}

static bool btf_with_struct(const char *path, const char *name)
{
	struct btf *btf = btf__parse_raw(path);
	bool found = btf && btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT) > 0;

	btf__free(btf);
	return found;
}

START_TEST(test_made_once_then_kept)
{
	char path[4096], again[4096], boot[64], want[256], names[512];
	struct stat st;

	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	ck_assert_int_eq(pk_boot_id(boot, sizeof(boot)), 0);
	ck_assert_msg(strstr(path, boot), "%s: not under this boot's id %s", path, boot);
	/* a few KiB, and the types the walk reads */
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_gt(st.st_size, 0);
	ck_assert_int_lt(st.st_size, 64 * 1024);
	ck_assert(btf_with_struct(path, "task_struct"));
	ck_assert(btf_with_struct(path, "mm_struct"));
	ck_assert(btf_with_struct(path, "maple_node"));
	/* probe-load's question for --unwind fp, answered from the file as
	 * from the kernel's whole BTF */
	ck_assert_int_eq(pk_kernel_has_struct(path, "maple_tree"),
			 pk_kernel_has_struct(NULL, "maple_tree"));
	ck_assert(!pk_kernel_has_struct(path, "pk_no_such_struct"));
	/* kept: the next load needs no bpftool */
	setenv(PK_BPFTOOL_ENV, "/nonexistent/bpftool", 1);
	ck_assert_int_eq(kernel_btf(again, sizeof(again)), 0);
	ck_assert_str_eq(again, path);
	/* nothing but the file: no temporary left */
	snprintf(want, sizeof(want), "%s", strrchr(path, '/') + 1);
	kernel_dir(names, sizeof(names));
	ck_assert_str_eq(names, want);
}
END_TEST

START_TEST(test_unreadable_file_made_again)
{
	char path[4096];
	FILE *f;

	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs("not BTF", f);
	fclose(f);
	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	ck_assert(btf_with_struct(path, "task_struct"));
}
END_TEST

START_TEST(test_no_bpftool_leaves_nothing)
{
	char path[4096], names[512];

	setenv(PK_BPFTOOL_ENV, "/nonexistent/bpftool", 1);
	ck_assert_int_eq(kernel_btf(path, sizeof(path)), -ENOENT);
	kernel_dir(names, sizeof(names));
	ck_assert_str_eq(names, "");
}
END_TEST

START_TEST(test_failing_bpftool_leaves_nothing)
{
	char path[4096], names[512];

	setenv(PK_BPFTOOL_ENV, "false", 1);	/* looked for in $PATH */
	ck_assert_int_eq(kernel_btf(path, sizeof(path)), -ECHILD);
	kernel_dir(names, sizeof(names));
	ck_assert_str_eq(names, "");
}
END_TEST

/* Another boot's file goes once this boot's is made; another object's of
 * this boot stays (a second probe-load build must not make each other's
 * again), and probe-read's kernel symbols are not probe-load's to delete. */
START_TEST(test_other_boots_forgotten)
{
	char path[4096], dir[128], other[192], syms[192], sibling[256], boot[64];

	ck_assert_int_eq(pk_boot_id(boot, sizeof(boot)), 0);
	snprintf(dir, sizeof(dir), "%s/kernel", root);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	snprintf(other, sizeof(other), "%s/00000000-0000-0000-0000-000000000000-0.btf", dir);
	snprintf(syms, sizeof(syms), "%s/00000000-0000-0000-0000-000000000000.syms", dir);
	snprintf(sibling, sizeof(sibling), "%s/%s-0000000000000000.btf", dir, boot);
	pk_test_copy_file("/proc/self/stat", other, 0644);
	pk_test_copy_file("/proc/self/stat", syms, 0644);
	pk_test_copy_file("/proc/self/stat", sibling, 0644);
	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	ck_assert_str_ne(path, sibling);
	ck_assert_int_eq(access(path, F_OK), 0);
	ck_assert_msg(access(other, F_OK) && errno == ENOENT, "another boot's file kept");
	ck_assert_int_eq(access(syms, F_OK), 0);
	ck_assert_int_eq(access(sibling, F_OK), 0);
}
END_TEST

/* The object opened with the kernel types at BTF_PATH (NULL: the kernel's
 * whole BTF, libbpf's default), loaded with the programs that need no
 * attach target of probe-load's (the fentry ones) or, with SESSION, only
 * those a system-wide session loads; libbpf's log kept. */
static struct profile_bpf *load(const char *btf_path, bool session)
{
	LIBBPF_OPTS(bpf_object_open_opts, opts, .btf_custom_path = btf_path);
	struct profile_bpf *skel;
	struct bpf_program *prog;
	const char *log;
	int err;

	pk_test_libbpf_log_start();
	skel = profile_bpf__open_opts(&opts);
	ck_assert_ptr_nonnull(skel);
	bpf_object__for_each_program(prog, skel->obj) {
		const char *name = bpf_program__name(prog);
		bool on = session ? !strcmp(name, "pk_perf_event") ||
					    !strcmp(name, "pk_code_report") ||
					    !strcmp(name, "pk_follow_fork") ||
					    !strcmp(name, "pk_forget_exit") :
				    strncmp(name, "pk_fentry", 9) != 0;

		bpf_program__set_autoload(prog, on);
	}
	err = profile_bpf__load(skel);
	pk_test_libbpf_log_stop();
	log = pk_test_libbpf_log();
	ck_assert_msg(err == 0, "load failed: %s", log + (strlen(log) > 4000 ? strlen(log) - 4000 : 0));
	return skel;
}

static void prog_tag(const struct bpf_program *prog, __u8 tag[BPF_TAG_SIZE])
{
	struct bpf_prog_info info = {};
	__u32 len = sizeof(info);

	ck_assert_int_eq(bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len), 0);
	memcpy(tag, info.tag, BPF_TAG_SIZE);
}

START_TEST(test_relocates_as_whole_btf)
{
	struct profile_bpf *mine, *whole;
	struct bpf_program *prog;
	char path[4096];
	int compared = 0;

	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	mine = load(path, false);
	whole = load(NULL, false);
	bpf_object__for_each_program(prog, mine->obj) {
		struct bpf_program *twin;
		__u8 a[BPF_TAG_SIZE], b[BPF_TAG_SIZE];

		if (!bpf_program__autoload(prog))
			continue;
		twin = bpf_object__find_program_by_name(whole->obj, bpf_program__name(prog));
		ck_assert_ptr_nonnull(twin);
		prog_tag(prog, a);
		prog_tag(twin, b);
		ck_assert_msg(!memcmp(a, b, sizeof(a)),
			      "%s: relocated otherwise against %s than against the kernel's BTF",
			      bpf_program__name(prog), path);
		compared++;
	}
	/* perf_event, tracepoint, kprobe, uprobe, off-cpu and the bookkeeping */
	ck_assert_int_ge(compared, 8);
	profile_bpf__destroy(mine);
	profile_bpf__destroy(whole);
}
END_TEST

/* The oracle sees what it must: the same file with task_struct.tgid 4
 * bytes further changes the programs that read it. */
START_TEST(test_tags_see_a_moved_field)
{
	struct profile_bpf *mine, *moved;
	char path[4096], moved_path[192];
	const struct btf_type *t;
	struct btf_member *m;
	struct btf *btf;
	const void *raw;
	__u32 raw_len;
	__u8 a[BPF_TAG_SIZE], b[BPF_TAG_SIZE];
	FILE *f;
	int found = 0;

	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	btf = btf__parse_raw(path);
	ck_assert_ptr_nonnull(btf);
	t = btf__type_by_id(btf, btf__find_by_name_kind(btf, "task_struct", BTF_KIND_STRUCT));
	ck_assert_ptr_nonnull(t);
	m = (struct btf_member *)btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++)
		if (!strcmp(btf__name_by_offset(btf, m->name_off), "tgid")) {
			m->offset += 32;	/* bits, and no bitfield here */
			found++;
		}
	ck_assert_int_eq(found, 1);
	raw = btf__raw_data(btf, &raw_len);
	snprintf(moved_path, sizeof(moved_path), "%s/moved.btf", root);
	f = fopen(moved_path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fwrite(raw, 1, raw_len, f), raw_len);
	fclose(f);
	btf__free(btf);
	mine = load(path, true);
	moved = load(moved_path, true);
	prog_tag(mine->progs.pk_follow_fork, a);
	prog_tag(moved->progs.pk_follow_fork, b);
	ck_assert(memcmp(a, b, sizeof(a)) != 0);
	profile_bpf__destroy(mine);
	profile_bpf__destroy(moved);
}
END_TEST

/* What the file is for: a system-wide session's programs load without
 * libbpf reading the kernel's BTF at all. */
START_TEST(test_session_reads_no_kernel_btf)
{
	struct profile_bpf *skel;
	char path[4096];

	ck_assert_int_eq(kernel_btf(path, sizeof(path)), 0);
	skel = load(path, true);
	ck_assert_msg(!strstr(pk_test_libbpf_log(), "loading kernel BTF"),
		      "libbpf read the kernel's BTF");
	ck_assert_ptr_nonnull(strstr(pk_test_libbpf_log(), "CO-RE relocating"));
	profile_bpf__destroy(skel);
	/* and the log would show it: without the file, it does */
	skel = load(NULL, true);
	ck_assert_ptr_nonnull(strstr(pk_test_libbpf_log(), "loading kernel BTF"));
	profile_bpf__destroy(skel);
}
END_TEST

Suite *suite_kernel_btf(void)
{
	Suite *s = suite_create("kernel_btf");
	TCase *tc = tcase_create("cache");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_made_once_then_kept);
	tcase_add_test(tc, test_unreadable_file_made_again);
	tcase_add_test(tc, test_no_bpftool_leaves_nothing);
	tcase_add_test(tc, test_failing_bpftool_leaves_nothing);
	tcase_add_test(tc, test_other_boots_forgotten);
	suite_add_tcase(s, tc);
	tc = tcase_create("relocations");
	tcase_add_checked_fixture(tc, setup, teardown);
	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tcase_add_test(tc, test_relocates_as_whole_btf);
	tcase_add_test(tc, test_tags_see_a_moved_field);
	tcase_add_test(tc, test_session_reads_no_kernel_btf);
	suite_add_tcase(s, tc);
	return s;
}
