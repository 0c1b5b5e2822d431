// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, a program run from overlayfs, as in every container. Since
 * Linux 6.8 the VMA of a file mapped through an overlay holds a backing
 * file, the layer's real file, while /proc/PID/maps shows the overlay's
 * device and inode (file_user_inode()), which probe-load keys its tables
 * by, and map_files the overlay's path (file_user_path()). The BPF walk
 * must key the file as maps does, or it finds no table for it, reports it
 * and leaves its stacks to be finished in user space; the mapping report
 * must name the user's path, or a reader that comes after the process
 * exited finds no file to symbolize.
 *
 * Before 6.8 (Debian 12's 6.1) the VMA holds the layer's file itself, which
 * maps and the walk key by the layer's device, under the overlay's path,
 * where stat() gives the overlay's device: the reader follows the path to
 * the layer that provides it (lib/overlay.h) to name the frames of a
 * process that exited, and probe-load -- FILE, which keys files by stat()
 * before the command maps them, keys the layer's file too.
 *
 * The test mounts an overlay of its own, in a mount namespace of its own
 * (unshare in check's forked test process: nothing of it outlives the
 * test), on a tmpfs: a copy of a fixture without frame pointers in its
 * lower layer. The fixture, run from the overlay and held stopped once its
 * files are mapped, is profiled with probe-load -p, or run as probe-load's
 * command; the reader runs only after it exited. The oracles: its /proc/PID/maps line (the key), the
 * pinned unwind_seen map (the files the BPF walk found no table for: none
 * may be), probe-read's walk ends (none "no table yet", no copied stack)
 * and the fixture's known chain (every sample whole and exact).
 */
#include <bpf/bpf.h>
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/profile_session.h"
#include "lib/proc_maps.h"
#include "lib/session.h"
#include "lib/unwind_store.h"
#include "test_util.h"

#define FIXTURE		"chain5-clang-nopie"
#define COMM		"chain5"
/* CPU seconds the fixture spins: about 200 samples at 99 Hz. */
#define SPIN_STR	"2"
#define MIN_SAMPLES	100
/* The share of the samples in f5, the rest in its setup and exit. */
#define IN_F5_MIN	0.90

struct overlay {
	char base[64];		/* the tmpfs */
	char merged[96];	/* the overlay */
	char lower_file[160];	/* the fixture in the lower layer */
	char file[160];		/* the fixture as run: through the overlay */
};

/* A tmpfs at a new directory of /tmp, in a mount namespace of this test
 * process's own, holding lower/, upper/, work/ and the overlay of them at
 * merged/, with a copy of FIXTURE in the lower layer. */
static void overlay_mount(struct overlay *o, const char *fixture)
{
	char lower[96], upper[96], work[96], opts[400];
	char *cp[] = { "cp", (char *)fixture, o->lower_file, NULL };

	ck_assert_msg(unshare(CLONE_NEWNS) == 0, "unshare(CLONE_NEWNS): %s", strerror(errno));
	/* nothing mounted here propagates out */
	ck_assert_int_eq(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL), 0);
	snprintf(o->base, sizeof(o->base), "/tmp/pk-overlay-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(o->base));
	ck_assert_msg(mount("tmpfs", o->base, "tmpfs", 0, "size=64m") == 0, "tmpfs: %s",
		      strerror(errno));
	snprintf(lower, sizeof(lower), "%s/lower", o->base);
	snprintf(upper, sizeof(upper), "%s/upper", o->base);
	snprintf(work, sizeof(work), "%s/work", o->base);
	snprintf(o->merged, sizeof(o->merged), "%s/merged", o->base);
	ck_assert_int_eq(mkdir(lower, 0755), 0);
	ck_assert_int_eq(mkdir(upper, 0755), 0);
	ck_assert_int_eq(mkdir(work, 0755), 0);
	ck_assert_int_eq(mkdir(o->merged, 0755), 0);
	snprintf(o->lower_file, sizeof(o->lower_file), "%s/" COMM, lower);
	snprintf(o->file, sizeof(o->file), "%s/" COMM, o->merged);
	ck_assert_int_eq(pk_test_run(cp, NULL, NULL), 0);
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, upper, work);
	ck_assert_msg(mount("overlay", o->merged, "overlay", 0, opts) == 0, "overlay: %s",
		      strerror(errno));
}

static void overlay_umount(struct overlay *o)
{
	ck_assert_int_eq(umount(o->merged), 0);
	ck_assert_int_eq(umount(o->base), 0);
	ck_assert_int_eq(rmdir(o->base), 0);
}

/* The key of PATH's executable mapping in PID's /proc/PID/maps. */
static struct pk_file_key maps_key(pid_t pid, const char *path)
{
	struct pk_file_key key = { 0, 0 };
	struct pk_maps maps;

	ck_assert_int_eq(pk_maps_read(NULL, pid, true, &maps), 0);
	for (size_t i = 0; i < maps.n && !key.ino; i++)
		if (maps.v[i].kind == PK_MAP_FILE && !strcmp(maps.v[i].name, path))
			key = (struct pk_file_key){
				pk_kernel_dev(maps.v[i].dev_major, maps.v[i].dev_minor),
				maps.v[i].inode };
	pk_maps_free(&maps);
	ck_assert_msg(key.ino, "no executable mapping of %s in /proc/%d/maps", path, (int)pid);
	return key;
}

/* The keys the BPF walk reported without a table (unwind_seen), printed;
 * how many of them are the fixture's file as the overlay or as its layer
 * (a command's child also runs probe-load's own code, from fork to exec,
 * whose files have no table: not this test's). */
static int reported_without_table(int seen_fd, const char *file, const char *layer_file)
{
	struct pk_file_key key, next, mine[2];
	struct stat st;
	int n = 0;

	ck_assert_int_eq(stat(file, &st), 0);
	mine[0] = (struct pk_file_key){ pk_kernel_dev(major(st.st_dev), minor(st.st_dev)),
					st.st_ino };
	ck_assert_int_eq(stat(layer_file, &st), 0);
	mine[1] = (struct pk_file_key){ pk_kernel_dev(major(st.st_dev), minor(st.st_dev)),
					st.st_ino };
	for (int ret = bpf_map_get_next_key(seen_fd, NULL, &next); !ret;
	     ret = bpf_map_get_next_key(seen_fd, &key, &next)) {
		bool fixture = !memcmp(&next, &mine[0], sizeof(next)) ||
			       !memcmp(&next, &mine[1], sizeof(next));

		fprintf(stderr, "  reported without a table: dev %u:%u ino %llu%s\n",
			(unsigned int)(next.dev >> 20), (unsigned int)(next.dev & 0xfffff),
			(unsigned long long)next.ino, fixture ? ", the fixture's" : "");
		key = next;
		n += fixture;
	}
	return n;
}

/* Whether the user frames of STACK ("comm;frame;...", kernel frames last,
 * "_[k]") begin at _start, into main or, once main returned, into exit
 * (a slow machine samples the exit too), or into ld.so's start-up (a
 * command is sampled from its first instruction), and, when the leaf is
 * f5 (*IN_F5), are exactly the fixture's chain down to it. *USER: whether
 * it has user frames at all (not a sample in exit, after the process let
 * its memory go). */
static bool chain5_whole(const char *stack, bool *in_f5, bool *user_frames)
{
	static const char *const start[] = {
		"_start", "__libc_start_main*", "__libc_start_call_main", "main" };
	static const char *const chain[] = { "f1", "f2", "f3", "f4", "f5" };
	char *copy = strdup(stack), *save = NULL, *frame;
	const char *user[64];
	size_t n = 0;
	bool whole = true;

	ck_assert_ptr_nonnull(copy);
	strtok_r(copy, ";", &save);	/* the comm */
	while ((frame = strtok_r(NULL, ";", &save)) && n < 64) {
		size_t len = strlen(frame);

		if (len > 4 && !strcmp(frame + len - 4, "_[k]"))
			break;
		user[n++] = frame;
	}
	*user_frames = n > 0;
	*in_f5 = n > 0 && !strcmp(user[n - 1], "f5");
	for (size_t i = 0; i < 4 && whole; i++) {
		if (i == 1 && n > 1 && !strcmp(user[0], "_start") && !strcmp(user[1], "_dl_start"))
			break;
		whole = i < n && (!fnmatch(start[i], user[i], 0) ||
				  (i == 3 && !strcmp(user[i], "exit")));
	}
	if (whole && *in_f5) {
		whole = n == 4 + 5;
		for (size_t i = 0; i < 5 && whole; i++)
			whole = !strcmp(user[4 + i], chain[i]);
	}
	free(copy);
	return whole;
}

/* STACK has a frame of the fixture's chain, f1 to f5. */
static bool in_chain(const char *stack)
{
	static const char *const chain[] = { ";f1;", ";f2;", ";f3;", ";f4;", ";f5;", ";f5" };

	for (size_t i = 0; i < sizeof(chain) / sizeof(chain[0]); i++) {
		const char *p = strstr(stack, chain[i]);

		if (p && (i < 5 || !p[3]))
			return true;
	}
	return false;
}

/*
 * After the fixture ran from the overlay and exited: the BPF walk found a
 * table for every file it walked through (none reported without one), and
 * the reader, which comes only now, names each sample's whole chain through
 * the path the kernel reported. Reads, unloads and unmounts. COMMAND: it
 * ran as probe-load's command.
 */
static void assert_walked_and_named(struct overlay *o, bool command)
{
	const char *read[] = { "-d", "60", NULL };
	char *out = NULL, *err = NULL;
	struct pk_unwind_fds ufds;
	struct pk_folded f;
	const char *bad = NULL;
	unsigned long total = 0, whole = 0, in_f5 = 0;
	int reported, rc;

	ck_assert_int_eq(pk_unwind_fds_open(pk_e2e_pin_dir(), &ufds), 0);
	reported = reported_without_table(ufds.seen, o->file, o->lower_file);
	pk_unwind_fds_close(&ufds);

	rc = pk_e2e_read(read, &out, &err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	overlay_umount(o);
	fprintf(stderr, "overlay: %.*s\n", (int)strcspn(err, "\n"), err);
	if (strstr(err, "user stacks:"))
		fprintf(stderr, "overlay: %.*s\n", (int)strcspn(strstr(err, "user stacks:"), "\n"),
			strstr(err, "user stacks:"));
	ck_assert_msg(reported == 0, "the BPF walk found no table for the fixture's file");
	/* a command's child runs probe-load's code from fork to exec, which
	 * has no table: its walks may wait for one, not the fixture's */
	ck_assert_msg(command || (!strstr(err, "no table yet") && !strstr(err, "copied")),
		      "walks waited for a table:\n%s", err);

	ck_assert_msg(pk_folded_parse(out, &f, &bad), "not folded format: '%s'", bad);
	for (size_t i = 0; i < f.n; i++) {
		bool f5, user, ok;

		if (strncmp(f.lines[i].stack, COMM ";", strlen(COMM ";")))
			continue;
		ok = chain5_whole(f.lines[i].stack, &f5, &user);
		/* no user stack to walk: none, or the process's memory is
		 * being unmapped at its exit (what is left is the leaf), or
		 * exec is replacing it (a command's first moments) */
		if (!user || strstr(f.lines[i].stack, ";exit_mmap_[k]") ||
		    strstr(f.lines[i].stack, ";__x64_sys_execve_[k]"))
			continue;
		/* a command is sampled from its fork: probe-load's code until
		 * the exec, ld.so, constructors; judged in its chain only */
		if (command && !in_chain(f.lines[i].stack))
			continue;
		total += f.lines[i].count;
		if (ok)
			whole += f.lines[i].count;
		else
			fprintf(stderr, "  not whole: %lu %s\n", f.lines[i].count,
				f.lines[i].stack);
		if (f5)
			in_f5 += f.lines[i].count;
	}
	fprintf(stderr, "overlay: %lu samples, %lu whole, %lu in f5\n", total, whole, in_f5);
	ck_assert_uint_ge(total, MIN_SAMPLES);
	ck_assert_uint_eq(whole, total);
	ck_assert_msg(in_f5 >= IN_F5_MIN * total, "only %lu of %lu samples in f5", in_f5, total);
	pk_folded_free(&f);
	free(out);
	free(err);
}

/* probe-load -p: the fixture's file keyed as /proc/PID/maps has it. */
START_TEST(test_overlay_file_keyed_as_maps)
{
	char fixture[4096], pid_str[16];
	const char *load[] = { "-F", "99", "-p", pid_str, NULL };
	struct pk_file_key key, layer;
	struct pk_unwind_fds ufds;
	struct pk_file_info fi;
	struct overlay o;
	struct stat st;
	int status, rc;
	pid_t pid;

	pk_e2e_fixture_nofp(FIXTURE, fixture, sizeof(fixture));
	overlay_mount(&o, fixture);
	{
		char *argv[] = { "sh", "-c", "PK_FIXTURE_HOLD=1 exec \"$0\" " SPIN_STR,
				 o.file, NULL };

		pid = pk_test_spawn(argv, NULL);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status),
		      "the fixture did not stop itself");
	/* the key as /proc/PID/maps has it, and the layer's real file's: the
	 * same before 6.8 (the VMA's file is the real one, its path the
	 * overlay's), not since (maps shows the overlay's inode) */
	key = maps_key(pid, o.file);
	ck_assert_int_eq(stat(o.lower_file, &st), 0);
	layer = (struct pk_file_key){ pk_kernel_dev(major(st.st_dev), minor(st.st_dev)),
				      st.st_ino };
	fprintf(stderr, "overlay: %s in maps as dev %u:%u ino %llu; its layer's file "
		"dev %u:%u ino %llu\n", o.file, (unsigned int)(key.dev >> 20),
		(unsigned int)(key.dev & 0xfffff), (unsigned long long)key.ino,
		major(st.st_dev), minor(st.st_dev), (unsigned long long)layer.ino);

	snprintf(pid_str, sizeof(pid_str), "%d", (int)pid);
	rc = pk_e2e_load(load);
	if (rc) {
		kill(pid, SIGKILL);
		pk_test_wait(pid);
	}
	ck_assert_int_eq(rc, 0);
	ck_assert_int_eq(pk_unwind_fds_open(pk_e2e_pin_dir(), &ufds), 0);
	/* probe-load gave the fixture's file a table, under the maps key */
	ck_assert_msg(bpf_map_lookup_elem(ufds.files, &key, &fi) == 0,
		      "no table under the maps key");
	pk_unwind_fds_close(&ufds);
	ck_assert_int_eq(kill(pid, SIGCONT), 0);
	status = pk_test_wait(pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the fixture ended with status %#x", status);
	assert_walked_and_named(&o, false);
}
END_TEST

/* probe-load -- FILE: keyed from stat() of the path, before the command
 * runs, which before 6.8 is not the key the kernel walks by (the overlay's
 * device, not the layer's): the loader keys the layer's file too. */
START_TEST(test_overlay_command_keyed_as_kernel)
{
	char fixture[4096];
	struct overlay o;

	pk_e2e_fixture_nofp(FIXTURE, fixture, sizeof(fixture));
	overlay_mount(&o, fixture);
	{
		const char *load[] = { "-F", "99", "--", o.file, SPIN_STR, NULL };

		ck_assert_int_eq(pk_e2e_load(load), 0);
	}
	ck_assert_int_eq(pk_e2e_wait_targets_exit(600), 0);
	assert_walked_and_named(&o, true);
}
END_TEST

Suite *suite_overlay(void)
{
	Suite *s = suite_create("overlay");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs and mounts an overlay"))
		return s;
	tc = pk_e2e_tcase(s, "overlay", 240);
	tcase_add_test(tc, test_overlay_file_keyed_as_maps);
	tcase_add_test(tc, test_overlay_command_keyed_as_kernel);
	return s;
}
