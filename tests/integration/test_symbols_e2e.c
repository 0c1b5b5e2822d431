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

	ck_assert_ptr_nonnull(mkdtemp(dir));
	pk_e2e_fixture_nofp("chain5-gcc-pie", src, sizeof(src));
	snprintf(bin, sizeof(bin), "%s/chain5-deleted", dir);
	pk_test_copy_file(src, bin, 0755);
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
			/* a sample inside the command's execve carries its name
			 * (since probe-load names it before the exec) and the old
			 * image's registers: no profiler names that one */
			ck_assert_uint_eq(t.unnamed - t.in_exec, 0);
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

/* --- a root's file and the host's at the same path -------------------------- */

#define ROOT_LIBC	"/usr/lib/x86_64-linux-gnu/libc.so.6"

/* A function symbol of a file's .dynsym: [start, start + size). */
struct dynsym {
	unsigned long long start, size;
	char name[128];
};

/* The sized function symbols of FILE's .dynsym (nm -D -S, the oracle),
 * names without their version; their number into *N. */
static struct dynsym *dynsyms(const char *file, size_t *n)
{
	char *argv[] = { "nm", "-D", "-S", "--defined-only", (char *)file, NULL };
	char *out = NULL, *line, *save = NULL;
	struct dynsym *v = NULL;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	*n = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct dynsym d;
		char type, *at;

		if (sscanf(line, "%llx %llx %c %127s", &d.start, &d.size, &type, d.name) != 4 ||
		    !strchr("TtWi", type))
			continue;
		at = strchr(d.name, '@');
		if (at)
			*at = '\0';
		v = pk_test_grow(v, *n, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[(*n)++] = d;
	}
	free(out);
	return v;
}

/* Whether a symbol named NAME (or, NAME NULL, any) of V holds ADDR. */
static bool dynsym_holds(const struct dynsym *v, size_t n, const char *name,
			 unsigned long long addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= v[i].start && addr - v[i].start < v[i].size &&
		    (!name || !strcmp(v[i].name, name)))
			return true;
	return false;
}

/*
 * A root's file and a host file at the same path are never taken for
 * each other (issue 32): python3.13 in the Debian 13 root copies memory
 * in its libc (glibc 2.41, no libc6-dbg in the root), read once it has
 * exited. The host's libc (2.36) is at the same path in the root's terms,
 * and the host's libc6-dbg names every address of it
 * (__memmove_avx_unaligned_erms, which no .dynsym has). Two containers:
 * in_root.sh's chroot (the kernel reports the root's files at paths of
 * the host, under the root), and a pivot_root into a bind mount of the
 * root (the kernel reports them at the root's own paths, the root's libc
 * at the host's libc's path; /proc/PID/root reads "/": the root is found
 * through the mounts, lib/root_records.h; the umount it runs in the root
 * lives a millisecond, often too short for anyone to keep its root, and
 * is named through python3.13's, which holds the very same libc). In the
 * pprof: every mapping of the root's libc has its build-id and the path
 * the kernel reported, the host's libc its own; every frame of the root's libc is named as its own
 * .dynsym names the address (nm -D, the oracle), or [libc.so.6+0xADDR]
 * where no symbol of it holds the address, and some by a symbol (the file
 * was found, in its root, after the exit); no frame of python3.13 is
 * unnamed (its -dbg debug file, in the root's /usr/lib/debug, was found).
 */
START_TEST(test_root_file_not_host_file)
{
	/* 4 s of CPU: probe-load keeps the root when it takes the exec's
	 * report, after loading the tables of the files reported before it
	 * (sh's, unshare's, cold in the test's cache), which took longer
	 * than 2 s on a busy machine: the root was lost (README.md,
	 * "Processes in other roots") */
	static const char code[] =
		"import time\n"
		"b = bytearray(1 << 20); c = bytes(1 << 20)\n"
		"t = time.process_time()\n"
		"while time.process_time() - t < 4: b[:] = c\n";
	static const char pivot[] =
		"r=$1; shift; mount --bind \"$r\" \"$r\" && mount -t proc proc \"$r/proc\" && "
		"cd \"$r\" && pivot_root . mnt && umount -l /mnt && exec \"$@\"";
	char tool[4096], root[4096], root_libc[4096], pb[4096], rel[256];
	char root_id[128], host_id[128], host_libc[4096], reported[4096];
	const char *chroot_load[] = { "-F", FREQ_STR, "--", tool, root, "python3.13", "-c", code,
				      NULL };
	const char *pivot_load[] = { "-F", FREQ_STR, "--", "unshare", "--mount", "--pid",
				     "--fork", "--propagation", "private", "--", "/bin/sh", "-c",
				     pivot, "pivot", root, "python3.13", "-c", code, NULL };
	const char **load = _i ? pivot_load : chroot_load;
	unsigned long long py_unnamed = 0;
	const char *read[] = { "-d", "1", "-f", "pprof", "-o", pb, NULL };
	Perftools__Profiles__Profile *p;
	unsigned long long in_root = 0, named = 0, unnamed = 0, host = 0;
	struct dynsym *syms;
	char *out = NULL, *err = NULL, *real;
	unsigned char *buf;
	size_t nsyms, len;

	pk_test_src_path("tests/roots/in_root.sh", tool, sizeof(tool));
	pk_test_roots_path("trixie", root, sizeof(root));
	snprintf(rel, sizeof(rel), "trixie%s", ROOT_LIBC);
	pk_test_roots_path(rel, root_libc, sizeof(root_libc));
	real = realpath(root_libc, NULL);	/* the path the kernel reports */
	ck_assert_msg(real, "%s: %m", root_libc);
	snprintf(root_libc, sizeof(root_libc), "%s", real);
	free(real);
	real = realpath(ROOT_LIBC, NULL);
	ck_assert_ptr_nonnull(real);
	snprintf(host_libc, sizeof(host_libc), "%s", real);
	free(real);
	pk_test_readelf_build_id(root_libc, root_id, sizeof(root_id));
	pk_test_readelf_build_id(host_libc, host_id, sizeof(host_id));
	ck_assert_str_ne(root_id, host_id);
	/* the root's libc as the kernel reports it */
	snprintf(reported, sizeof(reported), "%s", _i ? ROOT_LIBC : root_libc);
	syms = dynsyms(root_libc, &nsyms);
	ck_assert_uint_gt(nsyms, 1000);
	pk_test_build_path("root-libc.pb.gz", pb, sizeof(pb));

	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(120), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	buf = (unsigned char *)pk_test_read_file(pb, &len);
	ck_assert_msg(buf, "%s: no pprof: %s", pb, err);
	p = pk_test_pprof_decode(buf, len);

	for (size_t m = 0; m < p->n_mapping; m++) {
		const Perftools__Profiles__Mapping *mp = p->mapping[m];
		const char *file = pk_test_pprof_str(p, mp->filename), *id = pk_test_pprof_str(p, mp->build_id);

		if (!strcmp(id, root_id))
			ck_assert_str_eq(file, reported);
		if (!strcmp(id, host_id))
			ck_assert_str_eq(file, host_libc);
		/* chroot: the root's path is the root's libc's alone (with
		 * pivot_root it is the host's libc's path too: the build-id
		 * tells them apart, above) */
		if (!_i && !strcmp(file, reported))
			ck_assert_str_eq(id, root_id);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];
		const Perftools__Profiles__Mapping *mp = NULL;
		unsigned long long elf;
		const char *name;
		char want[64];

		for (size_t m = 0; m < p->n_mapping && !mp; m++)
			if (p->mapping[m]->id == loc->mapping_id)
				mp = p->mapping[m];
		for (size_t l = 0; l < loc->n_line; l++)
			py_unnamed += !strncmp(pk_test_pprof_str(p, pk_test_pprof_function(
					p, loc->line[l]->function_id)->name), "[python3.13+0x", 14);
		if (!mp)
			continue;
		host += !strcmp(pk_test_pprof_str(p, mp->build_id), host_id);
		if (strcmp(pk_test_pprof_str(p, mp->build_id), root_id))
			continue;
		in_root++;
		/* libc's segments have their file offsets as addresses */
		elf = loc->address - mp->memory_start + mp->file_offset;
		ck_assert_uint_eq(loc->n_line, 1);	/* no DWARF of it anywhere */
		name = pk_test_pprof_str(p, pk_test_pprof_function(p, loc->line[0]->function_id)->name);
		if (name[0] == '[') {
			/* the address, or the one before (a return address) */
			unsigned long long at;

			ck_assert_msg(sscanf(name, "[libc.so.6+0x%llx]", &at) == 1, "%s", name);
			ck_assert_msg(at == elf || at + 1 == elf, "%s at 0x%llx", name, elf);
			ck_assert_msg(!dynsym_holds(syms, nsyms, NULL, at), "%s: a symbol holds it",
				      name);
			unnamed++;
			continue;
		}
		snprintf(want, sizeof(want), "%s", name);
		ck_assert_msg(dynsym_holds(syms, nsyms, want, elf) ||
			      dynsym_holds(syms, nsyms, want, elf - 1),
			      "0x%llx of the root's libc named %s: no symbol of it", elf, name);
		named++;
	}
	fprintf(stderr, "root's libc (%s): %llu locations (%llu named by its .dynsym, %llu "
		"[libc.so.6+0x...]), %llu locations of the host's libc; %llu of python3.13 "
		"unnamed\n", _i ? "pivot_root" : "chroot", in_root, named, unnamed, host,
		py_unnamed);
	ck_assert_uint_ge(in_root, 3);
	ck_assert_uint_gt(unnamed, 0);	/* the copy loop, which no .dynsym names */
	ck_assert_uint_gt(named, 0);	/* the file read: __libc_start_main */
	ck_assert_uint_eq(py_unnamed, 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(buf);
	free(syms);
	free(out);
	free(err);
	unlink(pb);
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
	tcase_add_test(tc, test_jit_perf_map);
	tcase_add_test(tc, test_no_inline);
	tc = pk_e2e_tcase(s, "roots", 180);
	tcase_add_loop_test(tc, test_root_file_not_host_file, 0, 2);
	tc = pk_e2e_tcase(s, "clang", 300);
	tcase_add_test(tc, test_clang_names_hold);
	tc = pk_e2e_tcase(s, "output", 60);
	tcase_add_test(tc, test_intervals_add_up);
	tcase_add_test(tc, test_groupings);
	return s;
}
