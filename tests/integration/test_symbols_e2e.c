// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, symbols that outlive their process, and the shape of
 * probe-read's output over time: a process that exited before probe-read
 * started, one whose binary was deleted while it ran, --interval files and
 * the --per-* groupings, with the real tools.
 */
#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/elf_fixture.h"
#include "harness/pprof_decode.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define FREQ_STR	"199"

/* Samples of the fixture whose stacks hold CHAIN, and all of its samples;
 * unnamed counts samples with a user frame that has no symbol name
 * ("[unknown]", "[file+0xOFF]", "[anon]"), chain_unnamed those of them
 * that hold CHAIN. */
struct tally {
	unsigned long total, chain, unnamed, chain_unnamed;
	/* of unnamed: samples taken inside execve(), whose user registers are
	 * the replaced image's while the memory is already the new one's: no
	 * mapping names them, in any profiler */
	unsigned long in_exec;
};

static bool unnamed_user_frame(const char *stack)
{
	const char *p = stack;

	while (p && *p) {
		size_t len = strcspn(p, ";");
		bool kernel = len >= 4 && !strncmp(p + len - 4, "_[k]", 4);

		if (!kernel && p[0] == '[')
			return true;
		p = p[len] ? p + len + 1 : NULL;
	}
	return false;
}

static struct tally tally(const struct pk_folded *f, const char *root, const char *chain)
{
	struct tally t = { 0, 0, 0, 0, 0 };
	size_t len = strlen(root);

	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->lines[i].stack;

		if (strncmp(s, root, len) || (s[len] != ';' && s[len]))
			continue;
		t.total += f->lines[i].count;
		bool in_chain = strstr(s, chain) != NULL, unnamed = unnamed_user_frame(s + len);

		if (in_chain)
			t.chain += f->lines[i].count;
		if (unnamed)
			t.unnamed += f->lines[i].count;
		if (unnamed && strstr(s, "_execve"))
			t.in_exec += f->lines[i].count;
		if (in_chain && unnamed)
			t.chain_unnamed += f->lines[i].count;
	}
	return t;
}

static void parse_or_fail(const char *out, struct pk_folded *f)
{
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(out, f, &bad), "not folded format: '%s'", bad);
}

static void run_to_exit(char *const argv[])
{
	pid_t pid = pk_test_spawn(argv, NULL);

	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(pk_test_wait(pid), 0);
}

/* The heaviest stacks of ROOT, for a failure message. */
static void show(const struct pk_folded *f, const char *root)
{
	int shown = 0;

	for (size_t i = 0; i < f->n && shown < 10; i++)
		if (!strncmp(f->lines[i].stack, root, strlen(root))) {
			fprintf(stderr, "  %lu %s\n", f->lines[i].count, f->lines[i].stack);
			shown++;
		}
}

/*
 * A program started after a machine-wide load runs 0.3 s and exits, all
 * before probe-read starts: nothing read its maps while it lived. Its
 * frames are named from the mappings the kernel reported at sample time,
 * by the DWARF walk and, with --unwind fp, after bpf_get_stack().
 * fp_chain has frame pointers: the walk is whole without a table (no
 * reader built one while it ran). With --unwind fp, a sample that lands
 * in ld.so while it loads the program (built without frame pointers)
 * ends in junk "return addresses" no symbolizer can name: there, the
 * chain's samples must be all named; with dwarf, every sample but one taken
 * inside execve (the old image's registers over the new image's memory,
 * seen once in CI).
 */
START_TEST(test_exited_before_read)
{
	const char *load[] = { "-F", FREQ_STR, "--unwind", _i ? "fp" : "dwarf", NULL };
	const char *read[] = { "-d", "0.5", NULL };
	char path[4096];
	char *argv[] = { path, "0.3", NULL };
	char *out = NULL, *err = NULL;
	struct pk_folded f = { 0 };
	struct tally t;

	snprintf(path, sizeof(path), "%s", pk_e2e_fixture("fp_chain"));
	ck_assert_int_eq(pk_e2e_load(load), 0);
	run_to_exit(argv);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	parse_or_fail(out, &f);
	t = tally(&f, "fp_chain", ";main;a;b;c;hot");
	fprintf(stderr, "exited before read (%s): %lu samples, %lu main;a;b;c;hot, %lu unnamed "
		"(%lu inside execve)\n", load[3], t.total, t.chain, t.unnamed, t.in_exec);
	if (t.chain < t.total * 9 / 10 || t.unnamed)
		show(&f, "fp_chain");
	/* 0.3 s at 199 Hz: about 60 samples */
	ck_assert_uint_ge(t.total, 30);
	ck_assert_uint_ge(t.chain, t.total * 9 / 10);
	ck_assert_uint_eq(_i ? t.chain_unnamed : t.unnamed - t.in_exec, 0);
	pk_folded_free(&f);
	free(out);
	free(err);
}
END_TEST

/* A copy of the chain5 fixture (its path into SRC) as DIR/NAME (into BIN),
 * DIR made from its mkdtemp() template. */
static void chain5_copy(char *dir, const char *name, char *src, size_t srclen, char *bin,
			size_t binlen)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	pk_e2e_fixture_nofp("chain5-gcc-pie", src, srclen);
	snprintf(bin, binlen, "%s/%s", dir, name);
	pk_test_copy_file(src, bin, 0755);
}

/*
 * probe-load -- CMD samples the command from its exec on. Before it, its
 * child runs probe-load's own code (execvp's search of PATH), whose files
 * have no table: such samples would be the command's by name and end
 * unnamed. Made long on purpose here: a PATH of ~40,000 missing
 * directories before the fixture's makes execvp fail as many execve()s,
 * about 0.1 s of CPU (measured before the child was held until its exec:
 * 91 of 396 samples at 999 Hz were in execvp).
 */
START_TEST(test_command_sampled_from_exec)
{
	char dir[] = "/tmp/pk-fromexec-XXXXXX", bin[4200], src[4096];
	const char *load[] = { "-F", "999", "--", "chain5-fromexec", "0.3", NULL };
	const char *read[] = { "-d", "0.5", NULL };
	char *out = NULL, *err = NULL, *path, *p;
	size_t len = 128 * 1024 - 64;	/* MAX_ARG_STRLEN is 128 KiB */
	struct pk_folded f = { 0 };
	struct tally t;

	chain5_copy(dir, "chain5-fromexec", src, sizeof(src), bin, sizeof(bin));
	path = malloc(len + 1);
	ck_assert_ptr_nonnull(path);
	for (p = path; p + 3 + strlen(dir) < path + len; p += 3)
		memcpy(p, "/n:", 3);
	strcpy(p, dir);
	/* this test's own process (check forks one per test) */
	ck_assert_int_eq(setenv("PATH", path, 1), 0);
	free(path);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	parse_or_fail(out, &f);
	t = tally(&f, "chain5-fromexec", ";f1;f2;f3;f4;f5");	/* 15 bytes: all of it */
	fprintf(stderr, "command from its exec: %lu samples, %lu f1..f5, %lu unnamed, %s\n",
		t.total, t.chain, t.unnamed, strstr(out, "execvp") ? "some in execvp" : "none in execvp");
	if (t.unnamed)
		show(&f, "chain5-fromexec");
	ck_assert_uint_ge(t.total, 30);
	ck_assert_uint_eq(t.unnamed, 0);
	ck_assert_ptr_null(strstr(out, "execvp"));
	pk_folded_free(&f);
	free(out);
	free(err);
	unlink(bin);
	rmdir(dir);
}
END_TEST

/*
 * A binary deleted while its process ran, and the process gone before
 * probe-read starts: no path, no /proc. The kernel reported the mapping
 * with its unwind table, whose build-id finds a copy in a --debug-dir
 * (laid out as /usr/lib/debug/.build-id/xx/yyyy.debug). Without the copy,
 * the same frames are only [file+0xOFF]: the copy is what names them.
 */
START_TEST(test_deleted_binary_by_build_id)
{
	/* _i 0: the copy as a debug file, DIR/.build-id/xx/yyyy.debug; 1:
	 * as debuginfod's clients keep an executable, DIR/.build-id/xx/yyyy */
	char dir[] = "/tmp/pk-deleted-XXXXXX", bin[4200], dbg[4500];
	char src[4096], hex[129];
	const char *load[] = { "-F", FREQ_STR, "--", bin, "1", NULL };
	const char *read_with[] = { "-d", "0.5", "--debug-dir", dir, NULL };
	const char *read_without[] = { "-d", "0.5", NULL };
	char *out = NULL, *err = NULL;
	struct pk_folded f = { 0 };
	struct tally t;

	chain5_copy(dir, "chain5-deleted", src, sizeof(src), bin, sizeof(bin));
	pk_test_readelf_build_id(src, hex, sizeof(hex));
	pk_test_build_id_path(dir, hex, dbg, sizeof(dbg));
	if (_i == 1)
		dbg[strlen(dbg) - strlen(".debug")] = '\0';
	pk_test_copy_file(src, dbg, 0644);

	for (int with = 1; with >= 0; with--) {
		/* probe-load -- BIN loads BIN's table first: its build-id is
		 * in the kernel's maps before the first sample */
		ck_assert_int_eq(pk_e2e_load(load), 0);
		usleep(300 * 1000);
		if (access(bin, F_OK) == 0)
			ck_assert_int_eq(unlink(bin), 0);
		/* the process has exited: it spins 1 s of CPU time, longer
		 * on the wall when the machine is busy */
		ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
		ck_assert_int_eq(pk_e2e_read(with ? read_with : read_without, &out, &err), 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
		parse_or_fail(out, &f);
		t = tally(&f, "chain5-deleted", ";f1;f2;f3;f4;f5");
		fprintf(stderr, "deleted binary, %s --debug-dir: %lu samples, %lu f1..f5, %lu unnamed "
			"(%lu inside execve)\n", with ? "with" : "without", t.total, t.chain,
			t.unnamed, t.in_exec);
		ck_assert_uint_ge(t.total, 50);
		if (with) {
			if (t.chain < t.total * 9 / 10 || t.unnamed)
				show(&f, "chain5-deleted");
			ck_assert_uint_ge(t.chain, t.total * 9 / 10);
			/* the command is sampled from its exec on: none of
			 * probe-load's code before it (no table of its files),
			 * nor the old image's registers inside execve */
			ck_assert_uint_eq(t.unnamed, 0);
		} else {
			/* the control: nothing else names them */
			ck_assert_uint_eq(t.chain, 0);
			ck_assert_uint_ge(t.unnamed, t.total * 9 / 10);
		}
		pk_folded_free(&f);
		free(out);
		free(err);
		out = err = NULL;
		pk_test_copy_file(src, bin, 0755);	/* for the next round */
	}
	unlink(bin);
	pk_test_build_id_remove(dir, dbg);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/*
 * JIT code: a fixture spins in code it copied into anonymous memory and
 * announced in /tmp/perf-PID.map. Its leaf frame is named by the map; the
 * control, without a map, is "[anon]".
 */
START_TEST(test_jit_perf_map)
{
	char path[4096];
	const char *read[] = { "-d", "60", NULL };
	char *out = NULL, *err = NULL;
	struct pk_folded f = { 0 };

	snprintf(path, sizeof(path), "%s", pk_e2e_fixture("jit"));
	for (int with = 1; with >= 0; with--) {
		/* spins 1 s, lingers 2 s: read while it still lives */
		const char *load[] = { "-F", FREQ_STR, "--", path, "1", "2",
				       with ? NULL : "nomap", NULL };
		struct tally named, anon;

		ck_assert_int_eq(pk_e2e_load(load), 0);
		ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
		parse_or_fail(out, &f);
		named = tally(&f, "jit", ";jit_spin_loop");
		anon = tally(&f, "jit", ";[anon]");
		fprintf(stderr, "jit %s map: %lu samples, %lu jit_spin_loop, %lu [anon]\n",
			with ? "with" : "without", named.total, named.chain, anon.chain);
		ck_assert_uint_ge(named.total, 100);
		if (with) {
			if (named.chain < named.total * 9 / 10)
				show(&f, "jit");
			ck_assert_uint_ge(named.chain, named.total * 9 / 10);
		} else {
			ck_assert_uint_eq(named.chain, 0);
			ck_assert_uint_ge(anon.chain, anon.total * 9 / 10);
		}
		pk_folded_free(&f);
		free(out);
		free(err);
		out = err = NULL;
	}
}
END_TEST

/* probe-read's "symbols:" line: shares of user frames named, with a line,
 * inlined. */
static void symbols_line(const char *err, double *named, double *lines, double *inlined)
{
	const char *l = strstr(err, "symbols: ");

	ck_assert_msg(l, "no symbols line in: %s", err);
	ck_assert_int_eq(sscanf(l, "symbols: %lf%% of user frames named, %lf%% with a source line, %lf%% inlined",
				named, lines, inlined), 3);
}

/*
 * qsort under libc's msort (libc6-dbg: DWARF with inlined code): by
 * default frames carry source lines and inline frames; --no-inline reads
 * no DWARF, and names the same functions from the symbol tables alone
 * (perf's text: no frame marked inlined).
 */
START_TEST(test_no_inline)
{
	char path[4096];
	const char *load[] = { "-F", FREQ_STR, "--", path, "1", NULL };
	const char *with[] = { "-d", "60", "-f", "perf", NULL };
	const char *without[] = { "-d", "60", "-f", "perf", "--no-inline", NULL };
	double named[2], lines[2], inlined[2];

	pk_e2e_fixture_nofp("qsort-gcc-pie", path, sizeof(path));
	for (int i = 0; i < 2; i++) {
		char *out = NULL, *err = NULL;

		ck_assert_int_eq(pk_e2e_load(load), 0);
		ck_assert_int_eq(pk_e2e_read(i ? without : with, &out, &err), 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
		symbols_line(err, &named[i], &lines[i], &inlined[i]);
		fprintf(stderr, "qsort%s: %.1f%% named, %.1f%% with a line, %.1f%% inlined\n",
			i ? " --no-inline" : "", named[i], lines[i], inlined[i]);
		/* msort_with_tmp.part.0 and its inlined head are both
		 * msort_with_tmp: perf's text marks the inlined one */
		ck_assert_msg(!strstr(out, " (inlined)\n") == !!i, "inline frames %s:\n%.2000s",
			      i ? "with --no-inline" : "missing", out);
		free(out);
		free(err);
	}
	ck_assert(named[0] >= 99.0 && named[1] >= 99.0);
	ck_assert(lines[0] >= 50.0 && inlined[0] >= 10.0);
	ck_assert(lines[1] == 0.0 && inlined[1] == 0.0);
}
END_TEST

/* Sum of the counts of a folded file. */
static unsigned long folded_file_total(const char *path)
{
	size_t len;
	char *text = pk_test_read_file(path, &len);
	struct pk_folded f = { 0 };
	unsigned long sum = 0;

	ck_assert_ptr_nonnull(text);
	parse_or_fail(text, &f);
	for (size_t i = 0; i < f.n; i++)
		sum += f.lines[i].count;
	pk_folded_free(&f);
	free(text);
	return sum;
}

/*
 * --interval 1 for 5 s: five files, named by their start, whose counts add
 * up to the samples probe-read read (the kernel's count of what it sent
 * since the session started, read alone). Nothing lost or counted twice.
 *
 * probe-read names a file by the wall clock when it opens it, after the
 * previous interval's profile is written; an interval that took more than
 * a second to symbolize and write makes the next two open in the same
 * second, and the later file replaces the earlier. A session of the whole
 * machine had every process of a busy machine to symbolize per interval,
 * under a reader that got a share of a CPU: 3 files of 5. So the session
 * samples one fixture (-p), spinning for longer than the reader reads:
 * each interval's profile is small, whatever else the machine runs.
 */
START_TEST(test_intervals_add_up)
{
	char dir[] = "/tmp/pk-interval-XXXXXX", pattern[4200], path[4400], pid_str[16];
	char *fixture[] = { "sh", "-c", "PK_FIXTURE_HOLD=1 exec \"$0\" 60",
			    (char *)pk_e2e_fixture("fp_chain"), NULL };
	const char *load[] = { "-p", pid_str, "-F", FREQ_STR, NULL };
	const char *read[] = { "-d", "5", "--interval", "1", "-o", pattern, NULL };
	char *out = NULL, *err = NULL, *names[16];
	struct pk_e2e_summary sum;
	unsigned long total = 0;
	int n = 0, rc, status;
	pid_t pid;
	DIR *d;
	struct dirent *e;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%Y%%m%%dT%%H%%M%%S.folded", dir);
	pid = pk_test_spawn(fixture, NULL);
	ck_assert_int_gt(pid, 0);
	snprintf(pid_str, sizeof(pid_str), "%d", (int)pid);
	ck_assert_msg(waitpid(pid, &status, WUNTRACED) == pid && WIFSTOPPED(status),
		      "the fixture did not stop itself");
	ck_assert_int_eq(pk_e2e_load(load), 0);
	kill(pid, SIGCONT);
	rc = pk_e2e_read(read, &out, &err);
	kill(pid, SIGKILL);
	pk_test_wait(pid);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_str_eq(out, "");
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary in %s", err);
	d = opendir(dir);
	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		ck_assert_int_lt(n, 16);
		ck_assert_msg(!fnmatch("cpu-2[0-9][0-9][0-9][01][0-9][0-3][0-9]T[0-2][0-9][0-5][0-9][0-6][0-9].folded",
				       e->d_name, 0), "file %s", e->d_name);
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	ck_assert_int_eq(n, 5);
	for (int i = 0; i < n; i++) {
		unsigned long c;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		c = folded_file_total(path);
		fprintf(stderr, "interval %s: %lu samples\n", names[i], c);
		total += c;
		unlink(path);
		free(names[i]);
	}
	fprintf(stderr, "intervals: %lu samples in 5 files, %llu read\n", total, sum.read);
	ck_assert_uint_gt(total, 0);
	ck_assert_uint_eq(total, sum.read);
	ck_assert_int_eq(rmdir(dir), 0);
	free(out);
	free(err);
}
END_TEST

/*
 * --per-pid, --per-tid and --per-cpu on one fixture: the root frame names
 * its process (comm-PID), thread (comm-PID/TID) or CPU (cpu-N, then comm).
 */
START_TEST(test_groupings)
{
	static const char *const opts[] = { "--per-pid", "--per-tid", "--per-cpu" };
	char path[4096], root[64];
	const char *load[] = { "-F", FREQ_STR, "--", path, "1", NULL };
	char *out = NULL, *err = NULL;
	struct pk_folded f = { 0 };
	long ncpus = sysconf(_SC_NPROCESSORS_ONLN);

	snprintf(path, sizeof(path), "%s", pk_e2e_fixture("fp_chain"));
	for (size_t o = 0; o < 3; o++) {
		const char *read[] = { "-d", "30", (char *)opts[o], NULL };
		unsigned long total = 0, grouped = 0;
		int pid;

		ck_assert_int_eq(pk_e2e_load(load), 0);
		ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
		ck_assert_int_eq(pk_e2e_unload(), 0);
		parse_or_fail(out, &f);
		ck_assert_ptr_nonnull(strstr(err, "samples read"));
		for (size_t i = 0; i < f.n; i++) {
			const char *s = f.lines[i].stack;
			int cpu, tid, n = 0;

			total += f.lines[i].count;
			if (o == 0 && sscanf(s, "fp_chain-%d%n", &pid, &n) == 1 && s[n] == ';')
				grouped += f.lines[i].count;
			if (o == 1 && sscanf(s, "fp_chain-%d/%d%n", &pid, &tid, &n) == 2 &&
			    s[n] == ';' && tid == pid)	/* one thread: the main one */
				grouped += f.lines[i].count;
			if (o == 2 && sscanf(s, "cpu-%d%n", &cpu, &n) == 1 && cpu >= 0 &&
			    cpu < ncpus && !strncmp(s + n, ";fp_chain;", 10))
				grouped += f.lines[i].count;
		}
		snprintf(root, sizeof(root), "%s", opts[o]);
		fprintf(stderr, "%s: %lu of %lu samples under the group's root\n", root, grouped,
			total);
		ck_assert_uint_ge(total, 50);
		ck_assert_uint_eq(grouped, total);
		pk_folded_free(&f);
		free(out);
		free(err);
		out = err = NULL;
	}
}
END_TEST

/* A function symbol of LIBS (pk_fx_dynamic_functions) called NAME holds
 * offset OFF: sized and longer than OFF, or unsized and OFF 0. */
static int cmp_sym_name(const void *a, const void *b)
{
	return strcmp(((const struct pk_fx_sym *)a)->name, ((const struct pk_fx_sym *)b)->name);
}

static bool name_holds(const struct pk_fx_sym *v, size_t n, const char *name, __u64 off)
{
	struct pk_fx_sym key = { .name = (char *)name };
	const struct pk_fx_sym *hit = bsearch(&key, v, n, sizeof(*v), cmp_sym_name);

	if (!hit)
		return false;
	while (hit > v && !strcmp(hit[-1].name, name))
		hit--;
	for (; hit < v + n && !strcmp(hit->name, name); hit++)
		if (hit->size ? off < hit->size : off == 0)
			return true;
	return false;
}

/*
 * clang compiling C: its frames in libclang-cpp.so.14 and libLLVM-14.so.1,
 * whose 77 and 62 unsized .dynsym functions used to name the stripped
 * static functions after them (convertToErrorCode() const+0x68c3bf). In
 * perf's text every frame named SYM+0xOFF in them (but PLT stubs) must be
 * a symbol of that name whose range holds the offset (nm -D -S: its size,
 * or its own address when it has none).
 */
START_TEST(test_clang_names_hold)
{
	static const char *const libs[] = {
		"/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14",
		"/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1",
	};
	char dir[] = "/tmp/pk-clang-XXXXXX", src[64];
	const char *load[] = { "-F", FREQ_STR, "--table-rows", "4M", "--", "/usr/bin/clang-14",
			       "-O2", "-c", src, "-o", "/dev/null", NULL };
	const char *read[] = { "-d", "120", "-f", "perf", NULL };
	struct pk_fx_sym *v = NULL, *w;
	size_t n = 0, m, named = 0, bad = 0;
	char *out = NULL, *err = NULL, *line, *save;
	FILE *f;

	for (size_t i = 0; i < 2; i++) {
		m = pk_fx_dynamic_functions(libs[i], &w);
		v = realloc(v, (n + m) * sizeof(*v));
		ck_assert_ptr_nonnull(v);
		memcpy(v + n, w, m * sizeof(*w));
		n += m;
		free(w);
	}
	qsort(v, n, sizeof(*v), cmp_sym_name);
	/* a C file clang spends a few seconds of CPU on */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/big.c", dir);
	f = fopen(src, "w");
	ck_assert_ptr_nonnull(f);
	for (int i = 0; i < 600; i++)
		fprintf(f, "struct s%d { int a[%d]; double d; };\n"
			"static int h%d(struct s%d *s, int n) { int acc = 0;\n"
			"  for (int k = 0; k < n; k++) switch ((k * %d) %% 5) {\n"
			"  case 0: acc += s->a[k %% %d] * %d; break;\n"
			"  case 1: acc ^= (int)(s->d * k); break;\n"
			"  case 2: acc -= k << (%d %% 7); break;\n"
			"  default: acc += n / (k + 1); }\n  return acc; }\n"
			"int api%d(int n) { struct s%d s = { { 0 }, n * 0.5 };\n"
			"  return h%d(&s, n) + (n > 3 ? api%d(n - 1) : 0); }\n",
			i, i % 7 + 2, i, i, i + 3, i % 7 + 2, i, i, i, i, i, i ? i - 1 : 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	unlink(src);
	ck_assert_int_eq(rmdir(dir), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *dso = strrchr(line, '('), *sym, *plus;
		unsigned long long off;

		if (!dso || (!strstr(dso, "/libclang-cpp.so.14)") && !strstr(dso, "/libLLVM-14.so.1)")))
			continue;
		sym = line + strspn(line, "\t ");
		sym += strspn(sym, "0123456789abcdef");
		sym += strspn(sym, " ");
		dso[-1] = '\0';			/* the space before "(" */
		plus = strrchr(sym, '+');
		if (!plus || sscanf(plus, "+0x%llx", &off) != 1)
			continue;		/* [unknown] */
		*plus = '\0';
		if (plus - sym > 4 && !strcmp(plus - 4, "@plt"))
			continue;		/* a PLT stub (test_plt.c) */
		named++;
		if (!name_holds(v, n, sym, off) && bad++ < 10)
			fprintf(stderr, "clang: %s+0x%llx: no symbol of that name holds it\n", sym,
				off);
	}
	fprintf(stderr, "clang: %zu frames named in libclang-cpp and libLLVM, %zu by a symbol "
		"that does not hold them\n", named, bad);
	ck_assert_uint_ge(named, 100);
	ck_assert_uint_eq(bad, 0);
	pk_fx_syms_free(v, n);
	free(out);
	free(err);
}
END_TEST

Suite *suite_symbols_e2e(void)
{
	Suite *s = suite_create("symbols_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "names", 90);
	tcase_add_loop_test(tc, test_exited_before_read, 0, 2);
	tcase_add_loop_test(tc, test_deleted_binary_by_build_id, 0, 2);
	tcase_add_test(tc, test_command_sampled_from_exec);
	tcase_add_test(tc, test_jit_perf_map);
	tcase_add_test(tc, test_no_inline);
	tc = pk_e2e_tcase(s, "clang", 300);
	tcase_add_test(tc, test_clang_names_hold);
	tc = pk_e2e_tcase(s, "output", 60);
	tcase_add_test(tc, test_intervals_add_up);
	tcase_add_test(tc, test_groupings);
	return s;
}
