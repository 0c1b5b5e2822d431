// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, whole stacks from a process's first sample: programs exec'd
 * after probe-load (gcc's cc1 and as, python3 under env, the short commands
 * of a shell loop), whose files had no table when the session started. The
 * kernel reports their code as it is mapped, probe-read loads the tables,
 * and until it has them each sample carries a copy of its stack that
 * probe-read walks on in user space; with probe-read started only after
 * the command ended, every such sample is finished from its copy.
 *
 * A stack is whole when its outermost user frame is where the thread
 * began: the program's entry point (`_start`, or in a stripped program
 * `[FILE+0xADDR]` where ADDR is the call in _start, found from its ELF
 * header's entry point with readelf -h and objdump -d, or the entry point
 * itself for a sample at the first instruction), ld.so's
 * (`_dl_start_user`), or a thread's (`clone3`...).
 * Samples taken inside execve or exit, whose user stack is the old
 * program's or none, are not counted. Those in __vfork (its return
 * address in %rdi) and in _dl_runtime_resolve_* (an rbx-based CFA above
 * the leaf) are, as any other: the walk evaluates their rules.
 */
#include <fcntl.h>
#include <signal.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/oracles.h"
#include "integration/cgroup_dirs.h"
#include "integration/first_stacks.h"
#include "integration/profile_session.h"
#include "test_util.h"

/* The bar: whole stacks of the samples not inside execve or exit. */
#define WHOLE_MIN	0.99
#define MIN_SAMPLES	100

/* Read the session with probe-read READ; add its stacks of COMMS (NULL:
 * all) to T, FRESH as pk_fs_tally_add() takes it, and its lost samples to
 * *LOST. Its stderr, for messages, in *ERR (the caller's, freed first). */
static void read_tally(const char *what, const char *const *read, const char *const *comms,
		       const char *const *fresh, struct pk_fs_tally *t, unsigned long long *lost,
		       char **err)
{
	struct pk_e2e_summary sum;
	struct pk_folded f = { 0 };
	char *out = NULL;
	const char *bad = NULL;
	int rc;

	free(*err);
	*err = NULL;
	rc = pk_e2e_read(read, &out, err);
	ck_assert_msg(rc == 0, "%s: probe-read exited %d: %s", what, rc, *err);
	ck_assert_msg(pk_folded_parse(out, &f, &bad), "%s: not folded: '%s'", what, bad);
	ck_assert(pk_e2e_parse_summary(*err, &sum));
	ck_assert_msg(!strstr(*err, "bad records"), "%s: records probe-read could not read:\n%s",
		      what, *err);
	pk_fs_tally_add(&f, comms, fresh, t);
	*lost += sum.lost;
	pk_folded_free(&f);
	free(out);
}

/* The bar: no sample lost, enough of them, WHOLE_MIN of them whole; read
 * AFTER the command, more than MIN_FINISHED percent, FINISHED, finished in
 * user space (no table of its new files was in the kernel: its stacks are
 * whole because they were finished there). FINISHED < 0: not known (not
 * printed); MIN_FINISHED < 0: not asserted. ERR: probe-read's stderr. */
static void assert_whole(const char *what, bool after, const struct pk_fs_tally *t,
			 unsigned long long lost, const char *err, double finished,
			 double min_finished)
{
	char share[64] = "";

	if (finished >= 0)
		snprintf(share, sizeof(share), ", %.1f%% finished in user space", finished);
	fprintf(stderr, "%s%s: %lu samples, %lu outside execve/exit, %lu whole (%.1f%%)%s, "
		"%llu lost\n", what, after ? " (read after)" : "", t->samples, t->counted,
		t->whole, t->counted ? 100.0 * t->whole / t->counted : 0.0, share, lost);
	ck_assert_msg(lost == 0, "%s: %llu samples lost:\n%s", what, lost, err);
	ck_assert_msg(t->counted >= MIN_SAMPLES, "%s: only %lu samples:\n%s", what, t->counted,
		      err);
	ck_assert_msg(t->whole >= WHOLE_MIN * t->counted,
		      "%s: %lu of %lu stacks whole (%.1f%%), e.g.%s\n%s", what, t->whole,
		      t->counted, 100.0 * t->whole / t->counted, t->example, err);
	if (after && min_finished >= 0)
		ck_assert_msg(finished > min_finished, "%s: %.1f%% finished in user space, not "
			      "more than %.0f%%:\n%s", what, finished, min_finished, err);
}

/*
 * Profile CMD from its first instruction, with probe-read running during it
 * (AFTER false) or started only once it has exited (AFTER true), and check
 * that its stacks are whole. At default options but for STACK_COPY (NULL:
 * the default): read after, probe-load has loaded the tables of what the
 * command exec'd and mapped while it waited (the command's short-lived
 * programs, gone before their tables were in, still need their copies).
 */
static void profile_whole(const char *what, const char *const *cmd, bool after,
			  const char *stack_copy)
{
	const char *load[32] = { "-F", "499" };
	const char *read[] = { "-d", "120", NULL };
	unsigned long long lost = 0;
	struct pk_fs_tally t = { 0 };
	char *err = NULL;
	int n = 2;

	if (stack_copy) {
		load[n++] = "--stack-copy";
		load[n++] = stack_copy;
	}
	load[n++] = "--";
	for (int i = 0; cmd[i] && n < 31; i++)
		load[n++] = cmd[i];
	load[n] = NULL;
	ck_assert_int_eq(pk_e2e_load(load), 0);
	if (after)
		ck_assert_int_eq(pk_e2e_wait_targets_exit(120), 0);
	read_tally(what, read, NULL, NULL, &t, &lost, &err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	/* the session holds the command's samples alone: probe-read's share
	 * is of them; how much of it was finished in user space is said, not
	 * asserted (test_make's system-wide session, with no probe-load
	 * waiting, is where every fresh stack is finished there) */
	assert_whole(what, after, &t, lost, err, after ? pk_fs_finished_share(err) : -1, -1);
	free(err);
}

/* gcc -O2 -c of real C files of this tree: cc1 and as start after load;
 * with PROGS, gcc looks for its programs in that folder first (gcc -B
 * PROGS/). */
static void gcc_cmd(const char **argv, char paths[][4096], char *script, size_t len,
		    const char *progs)
{
	static const char *const files[] = {
		"tools/symbolization/srcline.c", "tools/symbolization/symfile.c",
		"tools/symbolization/symbolizer.c", "tools/lib/unwind_store.c",
		"eh_frame/table_build.c", "tools/reading/reader.c",
	};
	char inc[1024], tools[1024], build[1024], prefix[1100] = "";

	pk_test_src_path("", inc, sizeof(inc));
	pk_test_src_path("tools", tools, sizeof(tools));
	pk_test_build_path("", build, sizeof(build));
	if (progs)
		snprintf(prefix, sizeof(prefix), " -B%s/", progs);
	snprintf(script, len, "for f in \"$@\"; do gcc%s -O2 -D_GNU_SOURCE -I%s -I%s -I%s -c \"$f\""
		 " -o /dev/null || exit 1; done", prefix, inc, tools, build);
	argv[0] = "sh";
	argv[1] = "-c";
	argv[2] = script;
	argv[3] = "sh";
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		argv[4 + i] = pk_test_src_path(files[i], paths[i], sizeof(paths[i]));
	argv[4 + sizeof(files) / sizeof(files[0])] = NULL;
}

START_TEST(test_gcc)
{
	static char paths[8][4096];
	static char script[16384];
	const char *argv[16];

	gcc_cmd(argv, paths, script, sizeof(script), NULL);
	/* cc1's ranger recurses ~70 KiB deep: more than the default copy (and
	 * than perf's 8 KiB), so that its samples read after the command are
	 * whole because probe-load gave cc1 its table while it ran (95.1% whole
	 * when they were finished from 32 KiB copies) */
	profile_whole("gcc -O2 -c", argv, _i, NULL);
}
END_TEST

START_TEST(test_python)
{
	const char *argv[] = {
		/* the system's python3, not a wrapper script found first in PATH */
		"env", "PATH=/usr/bin:/bin", "python3", "-c",
		"import json\n"
		"x = 0\n"
		"for i in range(400000):\n"
		"    x += len(json.dumps({'a': [i, i * 2, str(i)]}))\n"
		"print(x)\n",
		NULL,
	};

	profile_whole("env python3", argv, _i, NULL);
}
END_TEST

START_TEST(test_shell_loop)
{
	const char *argv[] = {
		"sh", "-c",
		"for i in $(seq 120); do ls -lR /usr/include/linux > /dev/null; "
		"cat /etc/passwd | wc -l > /dev/null; done",
		NULL,
	};

	/* wc's read() is 33 KiB below main's frame (its 16 KiB buffer, ld.so's
	 * xsave area): a copy of the default 32 KiB, read after, ends short */
	profile_whole("sh -c 'ls; cat | wc' loop", argv, _i, "60K");
}
END_TEST

static char cgroup_mount[4096];

static void find_cgroup_mount(void)
{
	pk_test_cgroup_mount(cgroup_mount, sizeof(cgroup_mount));
}

static void sweep_cgroups(void)
{
	pk_test_cgroup_sweep(cgroup_mount);
}

/* The name a copy of the system's cc1 runs under (its comm): no other
 * process on the machine has it. */
#define FRESH_CC1	"pk-cc1"

/*
 * A copy of the system's cc1 in DIR, for gcc -B DIR/: DIR/cc1 runs
 * DIR/FRESH_CC1, a file no other process can have mapped when the session
 * was loaded, so that the kernel has no table of it (its tables are by
 * file, not by content) until a probe-read adds one; and its samples are
 * told from any other compiler's by their comm.
 */
static void copy_cc1(const char *dir)
{
	char *cmd[] = { "gcc", "-print-prog-name=cc1", NULL };
	char *out = NULL, to[4096];
	FILE *f;

	ck_assert_int_eq(pk_test_run(cmd, &out, NULL), 0);
	out[strcspn(out, "\n")] = '\0';
	ck_assert_msg(out[0] == '/', "no cc1: %s", out);
	snprintf(to, sizeof(to), "%s/" FRESH_CC1, dir);
	pk_test_copy_file(out, to, 0755);
	free(out);
	snprintf(to, sizeof(to), "%s/cc1", dir);
	f = fopen(to, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "#!/bin/sh\nexec %s/" FRESH_CC1 " \"$@\"\n", dir);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(chmod(to, 0755), 0);
}

/*
 * A session of no process (no -p, no command) but of a cgroup the test
 * makes (--cgroup), then `make -j2` of real C files of this tree in it:
 * make, sh, gcc, cc1 and as all start after the load, and the reader
 * learns of them only from the kernel, as system-wide. The cgroup keeps
 * the rest of the machine out of the session: a busy machine's other
 * processes, new programs too whose samples carry stack copies, would
 * fill the ring buffer while no reader runs, and "no sample lost" would
 * not be about make's. Loop index: 0, one probe-read runs while make does
 * (make waits for it to start, and stops it with SIGTERM when done); 1, it
 * starts once make has exited. Only the samples of make's programs count
 * (the cgroup holds the driver's pgrep and sleep too).
 * Read after, what is finished in user space is counted from the stacks of
 * cc1, which takes most of the time: it runs a copy of the system's
 * (copy_cc1), so that no other process on the machine -- another compiler
 * running at load -- gives the kernel its table, and its comm is its own,
 * not that of a cc1, sh or make of someone else's. Each whole stack of it
 * through its own _start was finished in user space; probe-read must say
 * it finished at least as many.
 */
START_TEST(test_make_systemwide)
{
	static const char *const comms[] = { "make", "sh", "gcc", "cc1", FRESH_CC1, "as", NULL };
	static const char *const fresh[] = { FRESH_CC1, NULL };
	static char paths[8][4096];
	static char script[16384];
	/* cc1's ranger recurses ~70 KiB deep: the most a copy may be, as
	 * test_gcc's samples read after the command need */
	char cgroup[4400];
	const char *load[] = { "-F", "499", "--skip-idle", "--ringbuf-size", "64M",
			       "--stack-copy", "60K", "--cgroup", cgroup, NULL };
	/* during make, -d is only a bound (make stops the reader); after it,
	 * -d 2 reads what the ring buffer holds */
	const char *read[] = { "-d", _i ? "2" : "600", NULL };
	char dir[] = "/tmp/pk-make-XXXXXX", mk[64], cc[64], done[64], *err = NULL;
	char reader[4200], run[13300], *status_text;
	char *driver[] = { "sh", "-c", run, NULL };
	const char *argv[16];
	unsigned long long lost = 0;
	struct pk_fs_tally t = { 0 };
	int nfiles;
	pid_t pid;
	FILE *f;

	/* the compiler line and files of test_gcc, one make target each */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	copy_cc1(dir);
	gcc_cmd(argv, paths, script, sizeof(script), dir);
	snprintf(cc, sizeof(cc), "%s/cc.sh", dir);
	f = fopen(cc, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "%s\n", script);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(mk, sizeof(mk), "%s/Makefile", dir);
	f = fopen(mk, "w");
	ck_assert_ptr_nonnull(f);
	for (nfiles = 0; argv[4 + nfiles]; nfiles++)
		;
	fprintf(f, "all:");
	for (int i = 0; i < nfiles; i++)
		fprintf(f, " %s/%d.o", dir, i);
	fprintf(f, "\n");
	for (int i = 0; i < nfiles; i++)
		fprintf(f, "%s/%d.o: %s\n\tsh %s $<\n\ttouch $@\n", dir, i, argv[4 + i], cc);
	ck_assert_int_eq(fclose(f), 0);
	snprintf(done, sizeof(done), "%s/status", dir);
	/* this session's reader, and no other's: by its pin directory */
	snprintf(reader, sizeof(reader), "probe-read --pin-dir %s ", pk_e2e_pin_dir());
	pk_test_cgroup_make(cgroup_mount, "make", cgroup, sizeof(cgroup));
	/* the driver moves itself into the cgroup: make and all it starts are
	 * in it from their first instruction */
	if (_i)
		snprintf(run, sizeof(run), "echo $$ > %s/cgroup.procs || exit 1; "
			 "make -s -j2 -f %s; echo $? > %s", cgroup, mk, done);
	else
		snprintf(run, sizeof(run), "echo $$ > %s/cgroup.procs || exit 1; "
			 "until pgrep -f -- '%s' > /dev/null; do sleep 0.05; done; "
			 "make -s -j2 -f %s; echo $? > %s; pkill -TERM -f -- '%s'", cgroup, reader,
			 mk, done, reader);

	ck_assert_int_eq(pk_e2e_load(load), 0);
	pid = pk_test_spawn(driver, NULL);
	ck_assert_int_gt(pid, 0);
	if (_i)
		pk_test_wait(pid);
	read_tally("system-wide make -j2", read, comms, fresh, &t, &lost, &err);
	if (!_i)
		pk_test_wait(pid);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	status_text = pk_test_read_file(done, NULL);
	ck_assert_msg(status_text && atoi(status_text) == 0, "make failed: %s",
		      status_text ? status_text : "(no status)");
	free(status_text);
	/* read after: of cc1's samples, the share finished in user space (it
	 * had no table); read during, the reader gave it one as it started */
	ck_assert_msg(t.fresh_counted >= MIN_SAMPLES, "only %lu samples of " FRESH_CC1 ":\n%s",
		      t.fresh_counted, err);
	assert_whole("system-wide make -j2", _i, &t, lost, err,
		     _i ? 100.0 * t.fresh / t.fresh_counted : -1, 25);
	if (_i)
		ck_assert_msg(pk_fs_finished_count(err) >= t.fresh, "%lu whole stacks of " FRESH_CC1
			      ", only %lu finished in user space:\n%s", t.fresh,
			      pk_fs_finished_count(err), err);
	free(err);
	for (int i = 0; i < nfiles; i++) {
		char obj[96];

		snprintf(obj, sizeof(obj), "%s/%d.o", dir, i);
		unlink(obj);
	}
	unlink(mk);
	unlink(cc);
	unlink(done);
	for (size_t i = 0; i < 2; i++) {
		char prog[96];

		snprintf(prog, sizeof(prog), "%s/%s", dir, i ? FRESH_CC1 : "cc1");
		unlink(prog);
	}
	ck_assert_int_eq(rmdir(dir), 0);
	pk_test_cgroup_remove(cgroup);
}
END_TEST

/* chain5's user frames, outermost first, as perf and gdb find them. */
static const char *const chain5[] = {
	"_start", "__libc_start_main*", "__libc_start_call_main", "main",
	"f1", "f2", "f3", "f4", "f5", NULL,
};

/* The samples of F whose comm starts with COMM (perf cuts it to 15 bytes)
 * outside execve and exit, into *TOTAL, and how many of them have exactly
 * chain5's user frames from chain5[FIRST] on (what comes before it not
 * looked at); an example of one that has not in EXAMPLE. */
static unsigned long count_chain5(const struct pk_folded *f, const char *comm, int first,
				  unsigned long *total, char *example, size_t len)
{
	unsigned long exact = 0;

	*total = 0;
	for (size_t i = 0; i < f->n; i++) {
		char *copy = strdup(f->lines[i].stack), *save = NULL, *p;
		bool ok = true;
		int k = 0;

		ck_assert_ptr_nonnull(copy);
		p = strtok_r(copy, ";", &save);
		if (strncmp(p, comm, 15) || strstr(f->lines[i].stack, "execve") ||
		    strstr(f->lines[i].stack, "do_exit")) {
			free(copy);
			continue;
		}
		*total += f->lines[i].count;
		p = strtok_r(NULL, ";", &save);
		while (first && p && fnmatch(chain5[first], p, 0))
			p = strtok_r(NULL, ";", &save);
		for (k = first; p && !pk_fs_is_kernel(p); p = strtok_r(NULL, ";", &save))
			ok &= chain5[k] && !fnmatch(chain5[k++], p, 0);
		ok &= !chain5[k];
		if (ok)
			exact += f->lines[i].count;
		else if (!example[0])
			snprintf(example, len, "%s", f->lines[i].stack);
		free(copy);
	}
	return exact;
}

/* perf record --call-graph dwarf of ARGV, folded by stackcollapse-perf. */
static void perf_folded(const char *const *argv, struct pk_folded *f)
{
	char data[] = "/tmp/pk-perf-XXXXXX", text[64], *folded = NULL, *out = NULL;
	const char *rec[32] = { "perf", "record", "-q", "-F", "499", "--call-graph", "dwarf",
				"-o", data, "--" };
	char *script[] = { "perf", "script", "-i", data, NULL };
	const char *bad = NULL;
	int n = 10, fd;

	close(mkstemp(data));
	for (int i = 0; argv[i] && n < 31; i++)
		rec[n++] = argv[i];
	rec[n] = NULL;
	ck_assert_int_eq(pk_test_run((char *const *)rec, NULL, NULL), 0);
	ck_assert_int_eq(pk_test_run(script, &out, NULL), 0);
	snprintf(text, sizeof(text), "%s.txt", data);
	fd = open(text, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, out, strlen(out)), (ssize_t)strlen(out));
	close(fd);
	ck_assert_int_eq(pk_test_stackcollapse_perf(text, &folded), 0);
	ck_assert_msg(pk_folded_parse(folded, f, &bad), "perf's stacks not folded: '%s'", bad);
	unlink(data);
	unlink(text);
	free(out);
	free(folded);
}

/*
 * The exact frames, finished in user space: chain5 (main -> f1 ... f5, no
 * frame pointers, junk in %rbp below f3, frames of different sizes) exec'd
 * after load by sh, held stopped while probe-load -p took it (with -- CMD,
 * probe-load would load chain5's table as it waits), read once it exited:
 * every sample's walk stopped in chain5's first frame and was finished
 * from its copy. The user frames
 * must be exactly chain5's, as perf --call-graph dwarf finds them for the
 * same command (the oracle, run after; from __libc_start_call_main, where
 * its folding starts). Loop index: gcc PIE, clang non-PIE.
 */
START_TEST(test_chain5_finished)
{
	static const char *const variants[] = { "chain5-gcc-pie", "chain5-clang-nopie" };
	char path[4096];
	const char *cmd[] = { "sh", "-c", "exec \"$0\" 2", path, NULL };
	char *held[] = { "sh", "-c", "kill -STOP $$; exec \"$0\" 2", path, NULL };
	char pid_arg[16];
	const char *load[] = { "-F", "499", "--ringbuf-size", "64M", "-p", pid_arg, NULL };
	const char *read[] = { "-d", "0.5", NULL };
	pid_t pid;
	int status;
	unsigned long total, exact, ptotal, pexact;
	char *out = NULL, *err = NULL, example[512] = "", pexample[512] = "";
	struct pk_folded f = { 0 }, pf = { 0 };
	const char *bad = NULL;

	pk_e2e_fixture_nofp(variants[_i], path, sizeof(path));
	pid = pk_test_spawn(held, NULL);
	ck_assert_int_gt(pid, 0);
	ck_assert_msg(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status),
		      "sh did not stop itself");
	snprintf(pid_arg, sizeof(pid_arg), "%d", (int)pid);
	status = pk_e2e_load(load);
	kill(pid, SIGCONT);
	ck_assert_int_eq(status, 0);
	status = pk_test_wait(pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "chain5 ended with %#x",
		      status);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_msg(pk_folded_parse(out, &f, &bad), "not folded: '%s'", bad);
	exact = count_chain5(&f, variants[_i], 0, &total, example, sizeof(example));
	perf_folded(cmd, &pf);
	/* stackcollapse-perf leaves out _start and glibc's inlined
	 * __libc_start_main_impl: perf's chain from __libc_start_call_main */
	pexact = count_chain5(&pf, variants[_i], 2, &ptotal, pexample, sizeof(pexample));
	fprintf(stderr, "%s exec'd after load, read after: %lu samples, %lu exact (%.1f%%), "
		"%.1f%% finished in user space; perf: %lu samples, %lu exact (%.1f%%)\n",
		variants[_i], total, exact, total ? 100.0 * exact / total : 0.0,
		pk_fs_finished_share(err), ptotal, pexact, ptotal ? 100.0 * pexact / ptotal : 0.0);
	ck_assert_msg(total >= 100 && ptotal >= 100, "only %lu samples (perf: %lu):\n%s", total,
		      ptotal, err);
	/* the oracle finds the chain: the fixture and its pattern are right */
	ck_assert_msg(pexact >= WHOLE_MIN * ptotal, "perf: %lu of %lu exact, e.g. %s", pexact,
		      ptotal, pexample);
	ck_assert_msg(exact >= WHOLE_MIN * total, "%lu of %lu exact, e.g. %s\n%s", exact, total,
		      example, err);
	ck_assert_msg(pk_fs_finished_share(err) > 90, "not finished in user space:\n%s", err);
	pk_folded_free(&f);
	pk_folded_free(&pf);
	free(out);
	free(err);
}
END_TEST

/* PATH's GNU build-id in hex, as readelf -n prints it. */
/*
 * A program exec'd after load (so without a table), deleted while it runs,
 * its process gone before probe-read starts: no path, no /proc, no table.
 * The kernel read its build-id from the ELF note in the process's memory
 * when it reported the mapping, and that finds a copy in a --debug-dir
 * (DIR/.build-id/xx/yyyy.debug), which names its frames and whose table
 * finishes its copied stacks. Without the copy (the control), its frames
 * are [file+0xOFF]. Loop index: 1 with the copy, 0 without.
 */
START_TEST(test_deleted_after_exec_by_build_id)
{
	char dir[] = "/tmp/pk-gone-XXXXXX", bin[4200], dbg[4500], src[4096];
	char hex[129], frame[4300];
	const char *load[] = { "-F", "199", "--", "sh", "-c", "exec \"$0\" 2", bin, NULL };
	const char *read_with[] = { "-d", "0.5", "--debug-dir", dir, NULL };
	const char *read_without[] = { "-d", "0.5", NULL };
	unsigned long total = 0, named = 0;
	char *out = NULL, *err = NULL;
	struct pk_folded f = { 0 };
	const char *bad = NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	pk_e2e_fixture_nofp("chain5-gcc-pie", src, sizeof(src));
	snprintf(bin, sizeof(bin), "%s/chain5-gone", dir);
	pk_test_copy_file(src, bin, 0755);
	pk_test_readelf_build_id(src, hex, sizeof(hex));
	pk_test_build_id_path(dir, hex, dbg, sizeof(dbg));
	pk_test_copy_file(src, dbg, 0644);

	ck_assert_int_eq(pk_e2e_load(load), 0);
	/* deleted once it runs (has used some CPU), then gone */
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(0.3, 60), 0);
	ck_assert_int_eq(unlink(bin), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	ck_assert_int_eq(pk_e2e_read(_i ? read_with : read_without, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_msg(pk_folded_parse(out, &f, &bad), "not folded: '%s'", bad);
	/* chain5-gone's user frames in its own file: named, or [chain5-gone+0x...];
	 * not ld.so's, loading it before its main (_dl_start, named from
	 * ld.so's own symbols), which a sample at 199 Hz meets now and then */
	snprintf(frame, sizeof(frame), "[chain5-gone+0x");
	for (size_t i = 0; i < f.n; i++) {
		if (strncmp(f.lines[i].stack, "chain5-gone;", 12) ||
		    strstr(f.lines[i].stack, "execve") || strstr(f.lines[i].stack, ";_dl_start;"))
			continue;
		total += f.lines[i].count;
		if (!strstr(f.lines[i].stack, frame) && strstr(f.lines[i].stack, ";f"))
			named += f.lines[i].count;
	}
	fprintf(stderr, "deleted after exec, %s --debug-dir: %lu samples, %lu named\n",
		_i ? "with" : "without", total, named);
	ck_assert_msg(total >= 100, "only %lu samples:\n%s", total, err);
	if (_i) {
		char example[512] = "";
		unsigned long n, exact = count_chain5(&f, "chain5-gone", 0, &n, example,
						      sizeof(example));

		ck_assert_msg(named == total, "%lu of %lu samples named:\n%s", named, total, out);
		/* and finished from their copies with the copy's table */
		fprintf(stderr, "deleted after exec, with --debug-dir: %lu of %lu whole\n", exact, n);
		ck_assert_msg(exact >= WHOLE_MIN * n, "%lu of %lu whole, e.g. %s\n%s", exact, n,
			      example, err);
	} else {
		ck_assert_msg(named == 0, "%lu samples named without the copy:\n%s", named, out);
	}
	pk_folded_free(&f);
	free(out);
	free(err);
	pk_test_build_id_remove(dir, dbg);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *suite_first_samples(void)
{
	Suite *s = suite_create("first_samples");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF programs"))
		return s;
	/* each test twice: probe-read during the command (0), after it (1) */
	tc = pk_e2e_tcase(s, "exec_after_load", 240);
	tcase_add_loop_test(tc, test_gcc, 0, 2);
	tcase_add_loop_test(tc, test_python, 0, 2);
	tcase_add_loop_test(tc, test_shell_loop, 0, 2);
	tcase_add_loop_test(tc, test_chain5_finished, 0, 2);
	tc = pk_e2e_tcase(s, "systemwide", 240);
	tcase_add_unchecked_fixture(tc, find_cgroup_mount, sweep_cgroups);
	tcase_add_loop_test(tc, test_make_systemwide, 0, 2);
	tc = pk_e2e_tcase(s, "identity", 120);
	tcase_add_loop_test(tc, test_deleted_after_exec_by_build_id, 0, 2);
	return s;
}
