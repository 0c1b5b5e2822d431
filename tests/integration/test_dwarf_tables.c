// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite dwarf's cases of tables that come at run time (a library dlopen()ed
 * after the start, another mapped where a dlclose()d one was, a command
 * profiled from its first instruction, a process started after a
 * system-wide load) and of room for LLVM's (clang-14 with libclang-cpp and
 * libLLVM), added to the suite's tcases by test_dwarf.c
 * (dwarf_fixtures.h).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/dwarf_fixtures.h"
#include "integration/profile_session.h"
#include "integration/whole_stacks.h"
#include "lib/util/clock.h"
#include "test_util.h"

/*
 * A library dlopen()ed a second after the session started: its table can
 * only come from probe-read, when the kernel reports the new file. The
 * first reader sees the dlopen while the fixture is stopped after a second
 * of CPU time in the plugin; the stacks read by a second reader, once it
 * runs on, must be whole. Stopping it, rather than giving the first reader
 * a wall time, keeps most of the run for the second on a slow machine too.
 */
START_TEST(test_dlopen_after_start)
{
	static const char *const pats[] = {
		PK_START ";use_plugin;plugin_fn;plugin_spin;~K", NULL };
	const char *variant = pk_dwarf_variants[_i];
	char path[4096], what[64];
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", path, "1", "7", NULL };
	const char *first_args[] = { "-d", "1", NULL };
	struct pk_run first, later;
	struct pk_tally t1;
	int stopped;

	pk_dwarf_nofp_path("dlopen", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "dlopen-%s, later", variant);
	memset(&first, 0, sizeof(first));
	memset(&later, 0, sizeof(later));
	pk_e2e_comm_of(path, first.comm);
	pk_e2e_comm_of(path, later.comm);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(1.0, 120), 0);
	stopped = pk_e2e_signal_targets(SIGSTOP);
	ck_assert_int_eq(pk_e2e_read(first_args, &first.out, &first.err), 0);
	ck_assert_int_eq(pk_e2e_signal_targets(SIGCONT), stopped);
	ck_assert_msg(stopped == 1, "stopped %d fixtures", stopped);
	pk_e2e_read_until_exit(&later.out, &later.err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(first.out, &first.f);
	pk_e2e_parse_folded(later.out, &later.f);
	ck_assert(pk_e2e_parse_summary(later.err, &later.sum));
	t1 = pk_count_whole(&first.f, first.comm, pats);
	fprintf(stderr, "dwarf dlopen-%s, first reader (1 s of CPU after start): %lu of %lu "
		"whole (%.1f%%)\n", variant, t1.whole, t1.total, 100 * pk_tally_share(t1));
	pk_print_user_stacks_line("first reader", first.err);
	pk_assert_whole(what, &later, "use_plugin|plugin_fn|plugin_spin", pats);
	pk_run_free(&first);
	pk_run_free(&later);
}
END_TEST

/* In every stack, the caller of CALLEE (when there is one) is CALLER. */
static unsigned long wrong_callers(const struct pk_folded *f, const char *callee,
				   const char *caller, char **example)
{
	unsigned long n = 0;

	for (size_t i = 0; i < f->n; i++) {
		struct pk_frames fr;

		pk_frames_split(f->lines[i].stack, &fr);
		for (size_t k = 2; k < fr.n; k++)
			if (!strcmp(fr.v[k], callee) && strcmp(fr.v[k - 1], caller)) {
				n += f->lines[i].count;
				if (!*example)
					*example = strdup(f->lines[i].stack);
				break;
			}
		pk_frames_free(&fr);
	}
	return n;
}

/*
 * dlclose(lib1), then lib2 mapped where lib1 was (the fixture checks
 * /proc/self/maps and reports it). Tables go by file, not by address: lib2's
 * stacks are unwound with lib2's table, never lib1's, whose frames have
 * other sizes. run_lib leaves junk in %rbp, so a frame-pointer fallback
 * cannot make up callers either: any caller of lib2_spin other than lib2_fn
 * (or of lib2_fn other than run_lib) is a wrong table.
 */
START_TEST(test_dlclose_reuse)
{
	static const char *const lib2_pats[] = {
		PK_START ";phase;run_lib;lib2_fn;lib2_spin;~K", NULL };
	static const char *const lib2_any[] = { "~*;lib2_fn|lib2_spin;~K", NULL };
	static const char *const lib1_pats[] = {
		PK_START ";phase;run_lib;lib1_fn;lib1_spin;~K", NULL };
	const char *variant = pk_dwarf_variants[_i];
	char path[4096], report[] = "/tmp/pk-reuse-XXXXXX", what[64], *text, *example = NULL;
	const char *argv[] = { path, PK_DWARF_RUN_STR, report, NULL };
	int fd = mkstemp(report);
	struct pk_tally lib1, lib2;
	unsigned long wrong;
	struct pk_run r;

	ck_assert_int_ge(fd, 0);
	close(fd);
	pk_dwarf_nofp_path("dlclose_reuse", variant, path, sizeof(path));
	snprintf(what, sizeof(what), "dlclose_reuse-%s, lib2", variant);
	pk_profile_command(NULL, argv, &r);
	text = pk_test_read_file(report, NULL);
	unlink(report);
	ck_assert_msg(text && strstr(text, "reused "), "the fixture wrote no report");
	fprintf(stderr, "dlclose_reuse-%s: %s", variant, text);
	ck_assert_msg(strstr(text, "reused yes"), "lib2 was not mapped where lib1 was: the "
		      "test proves nothing\n%s", text);

	wrong = wrong_callers(&r.f, "lib2_spin", "lib2_fn", &example) +
		wrong_callers(&r.f, "lib2_fn", "run_lib", &example) +
		wrong_callers(&r.f, "lib1_spin", "lib1_fn", &example) +
		wrong_callers(&r.f, "lib1_fn", "run_lib", &example);
	ck_assert_msg(wrong == 0, "%lu samples with a wrong caller in lib1 or lib2, e.g. %s",
		      wrong, example);
	lib1 = pk_count_whole(&r.f, r.comm, lib1_pats);
	lib2 = pk_count_whole(&r.f, r.comm, lib2_any);
	fprintf(stderr, "  lib1: %lu whole samples, lib2: %lu samples, of %lu\n", lib1.whole,
		lib2.whole, lib1.total);
	/* the fixture spins as long in each: a lib1 frame in more than 3/4
	 * of the samples is lib2's code named with lib1's symbols */
	ck_assert_msg(lib1.whole * 4 <= lib1.total * 3 && lib2.whole * 4 >= lib2.total,
		      "lib1 in %lu and lib2 in %lu of %lu samples, where each ran half "
		      "the time: lib2's addresses attributed to lib1", lib1.whole,
		      lib2.whole, lib1.total);
	/* the whole-stack share over lib2's samples only */
	pk_assert_whole(what, &r, "lib2_fn|lib2_spin", lib2_pats);
	free(text);
	free(example);
	pk_run_free(&r);
}
END_TEST

/*
 * A command profiled from its first instruction, with no reader at all
 * while it runs: the tables of the program and its libraries must be in
 * place before it starts (probe-load), or its samples lose their callers.
 */
START_TEST(test_command_from_first_instruction)
{
	char path[4096];
	/* spins 2 s of CPU time, then sleeps 4 s: the reader comes after the
	 * spinning, while the process is still there to be symbolized */
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", path, "2", "4", NULL };
	struct pk_run r;

	memset(&r, 0, sizeof(r));
	pk_e2e_fixture_nofp("chain5-clang-nopie", path, sizeof(path));
	pk_e2e_comm_of(path, r.comm);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	/* nobody reads while the fixture spins, however long a busy machine
	 * makes its 2 s of CPU time on the wall */
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(2.0, 60), 0);
	pk_e2e_read_until_exit(&r.out, &r.err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(r.out, &r.f);
	ck_assert(pk_e2e_parse_summary(r.err, &r.sum));
	pk_assert_whole("chain5-clang-nopie, no reader while it ran", &r, PK_DWARF_CHAIN5_HOT,
			pk_dwarf_chain5_pats);
	pk_run_free(&r);
}
END_TEST

/*
 * probe-load for the whole machine (no -p, no command) while one instance
 * of a program sleeps, so that its files get tables; then a second instance
 * starts and spins while no reader runs; probe-read afterwards: the new
 * process's samples must be whole, though no probekit process ran while it
 * was sampled and nothing told the kernel side about it.
 */
START_TEST(test_process_after_systemwide_load)
{
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--skip-idle", NULL };
	const char *read[] = { "-d", "2", NULL };
	char path[4096];
	/* first: only there so that its files are mapped (it must spin a
	 * little: 0 s is refused); it holds itself stopped once they are */
	char *first_argv[] = { "sh", "-c", "PK_FIXTURE_HOLD=1 exec \"$0\" 1 60", path, NULL };
	/* second: spins 2 s of CPU time, then sleeps: still there to be
	 * symbolized when read */
	char *argv[] = { path, "2", "30", NULL };
	struct pk_run r;
	pid_t first, pid;
	int rc, spun, status;

	memset(&r, 0, sizeof(r));
	pk_e2e_fixture_nofp("chain5-gcc-pie", path, sizeof(path));
	pk_e2e_comm_of(path, r.comm);
	first = pk_test_spawn(first_argv, NULL);
	ck_assert_int_gt(first, 0);
	ck_assert_msg(waitpid(first, &status, WUNTRACED) == first && WIFSTOPPED(status),
		      "the first instance did not stop itself");
	rc = pk_e2e_load(load);
	kill(first, SIGKILL);
	pk_test_wait(first);
	ck_assert_int_eq(rc, 0);
	pid = pk_test_spawn(argv, NULL);
	ck_assert_int_gt(pid, 0);
	/* nobody reads while it spins: until it has used its 2 s of CPU time
	 * (no targets in a machine-wide session: by its pid); -d 2 then reads
	 * what the ring buffer holds */
	spun = pk_e2e_wait_cpu(pid, 2.0, 60);
	rc = spun ? -1 : pk_e2e_read(read, &r.out, &r.err);
	kill(pid, SIGKILL);
	pk_test_wait(pid);
	ck_assert_msg(spun == 0, "the second instance did not use its 2 s of CPU time: %s",
		      strerror(-spun));
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r.err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(r.out, &r.f);
	ck_assert(pk_e2e_parse_summary(r.err, &r.sum));
	pk_assert_whole("chain5-gcc-pie started after a system-wide load", &r, PK_DWARF_CHAIN5_HOT,
		     pk_dwarf_chain5_pats);
	pk_run_free(&r);
}
END_TEST

/*
 * Room for LLVM: `probe-load -- clang-14 -O2 -c BIG.c` with default options
 * loads the tables of clang, libclang-cpp.so.14 (1.0 M rows), libLLVM-14
 * (0.95 M) and the rest of what clang maps; none may be refused, and the
 * stacks of both clang processes (the driver and the -cc1 it execs) must be
 * whole: from _start, through __libc_start_call_main, or through ld.so's
 * _dl_start while the dynamic linker relocates those libraries. BIG.c is made here: a few
 * hundred functions, a few CPU seconds of -O2.
 */
#define CLANG		"/usr/bin/clang-14"
#define CLANG_WHOLE_MIN	0.95

/* clang's whole stacks: from _start through __libc_start_call_main, or
 * through ld.so's _dl_start while it relocates, or from _dl_start_user as
 * ld.so runs the libraries' constructors (libLLVM's, 8% of a small
 * compile in a TCG guest). */
static const char *const clang_pats[] = {
	"_start;__libc_start_main*;__libc_start_call_main;~*|K",
	"_start;_dl_start;~*|K",
	"_dl_start_user;_dl_init;~*|K",
	NULL,
};

/* No line of probe-load's ERR refuses a table for room (what
 * lib/unwind_store.c says then); a file of data only (libicudata: no
 * code, no FDEs) is refused for another reason. */
static void assert_none_refused_for_room(const char *err)
{
	static const char *const room[] = { "(probe-load --table-memory)", "(probe-load --table-rows)",
		"the most there is room for", "the kernel has no room" };

	for (size_t i = 0; i < sizeof(room) / sizeof(room[0]); i++)
		ck_assert_msg(!strstr(err, room[i]), "a table refused for room:\n%s", err);
}

/* At least CLANG_WHOLE_MIN of at least PK_WHOLE_MIN_SAMPLES samples of clang whole. */
static void assert_clang_whole(const char *what, const struct pk_run *r)
{
	struct pk_tally t = pk_count_whole(&r->f, r->comm, clang_pats);
	char *bad = pk_not_whole_text(&r->f, r->comm, NULL, clang_pats, 12);

	fprintf(stderr, "dwarf %s: %lu of %lu samples whole (%.1f%%), lost %llu\n", what,
		t.whole, t.total, 100 * pk_tally_share(t), r->sum.lost);
	pk_print_user_stacks_line(what, r->err);
	ck_assert_msg(t.total >= PK_WHOLE_MIN_SAMPLES, "%s: only %lu samples of clang", what, t.total);
	ck_assert_msg(pk_tally_share(t) >= CLANG_WHOLE_MIN, "%s: %.1f%% of clang's %lu samples whole "
		      "(need %.0f%%); first stacks that are not:\n%s", what, 100 * pk_tally_share(t),
		      t.total, 100 * CLANG_WHOLE_MIN, bad);
	free(bad);
}

/* Functions in the source clang compiles: a few CPU seconds of -O2 here,
 * fewer on a slower machine, where clang's own start takes that (a TCG
 * guest ran 300 for over 15 minutes, past the reader's -d). */
#define BIG_C_FUNCS	(int)(300 / pk_test_slowdown() + 10)

static void write_big_c(const char *path, int nfuncs)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	fputs("#include <string.h>\n", f);
	for (int i = 0; i < nfuncs; i++)
		fprintf(f, "int fn%d(int n);\n", i);
	for (int i = 0; i < nfuncs; i++)
		fprintf(f,
			"struct s%d { int a[%d]; double d; char name[%d]; };\n"
			"static int helper%d(struct s%d *p, int n)\n{\n\tint acc = 0;\n"
			"\tfor (int k = 0; k < n; k++) {\n\t\tswitch ((k * %d) %% 5) {\n"
			"\t\tcase 0: acc += p->a[k %% %d] * %d; break;\n"
			"\t\tcase 1: acc ^= (int)(p->d * k); break;\n"
			"\t\tcase 2: acc -= (int)strlen(p->name) + k; break;\n"
			"\t\tcase 3: p->d += acc / (k + 1.0); break;\n"
			"\t\tdefault: acc = acc * 31 + %d;\n\t\t}\n\t}\n\treturn acc;\n}\n"
			"int fn%d(int n)\n{\n\tstruct s%d x;\n\n\tmemset(&x, %d, sizeof(x));\n"
			"\tx.name[sizeof(x.name) - 1] = 0;\n"
			"\treturn helper%d(&x, n) + (n > 1 ? fn%d(n - 1) : 0);\n}\n",
			i, i % 7 + 3, i % 13 + 4, i, i, i + 3, i % 7 + 3, i + 1, i, i, i,
			i % 250, i, (i + 1) % nfuncs);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_clang_llvm_tables_fit)
{
	char dir[] = "/tmp/pk-clang-XXXXXX", src[64], obj[64], *load_err = NULL;
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", CLANG, "-O2", "-w", "-c", src, "-o", obj,
			       NULL };
	const char *libs[] = { "/usr/lib/x86_64-linux-gnu/libclang-cpp.so.14",
			       "/usr/lib/x86_64-linux-gnu/libLLVM-14.so.1" };
	unsigned int tables, refused;
	struct pk_run r;

	ck_assert_msg(access(CLANG, X_OK) == 0, "needs %s (apt-get install clang-14)", CLANG);
	for (size_t i = 0; i < 2; i++)
		ck_assert_msg(access(libs[i], R_OK) == 0, "needs %s (clang-14)", libs[i]);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/big.c", dir);
	snprintf(obj, sizeof(obj), "%s/big.o", dir);
	write_big_c(src, BIG_C_FUNCS);

	memset(&r, 0, sizeof(r));
	pk_e2e_comm_of(CLANG, r.comm);	/* the driver execs -cc1 as clang-14 too */
	ck_assert_int_eq(pk_e2e_load_err(load, &load_err), 0);
	ck_assert_ptr_nonnull(load_err);
	fprintf(stderr, "%s", load_err);
	assert_none_refused_for_room(load_err);
	ck_assert_int_eq(sscanf(strstr(load_err, "unwind tables: "),
				"unwind tables: %u tables, %*u rows, %*u kernel bytes (%*u built, "
				"%*u cached, %u refused)", &tables, &refused), 2);
	ck_assert_uint_le(refused, 1);
	ck_assert_uint_ge(tables, 4);	/* clang, libclang-cpp, libLLVM, libc at least */
	{
		/* --stats says what the tables hold: what probe-load loaded
		 * at least (probe-read may have added), within the default */
		/* until clang exits: over a minute in a TCG guest */
		const char *args[] = { "-d", "600", "--stats", NULL };
		const char *fmt = "unwind tables: %u tables, %u rows, %*u rules, %llu KiB of "
				  "%llu KiB kernel memory, %u given back";
		const char *all = strstr(load_err, "; in all "), *line;
		unsigned int t[2], rows[2], freed;
		unsigned long long kib[2], limit;
		int rc = pk_e2e_read(args, &r.out, &r.err);

		ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r.err);
		ck_assert_ptr_nonnull(all);
		ck_assert_int_eq(sscanf(all, "; in all %u tables, %u rows, %*u rules, %llu KiB",
					&t[0], &rows[0], &kib[0]), 3);
		/* the first "unwind tables: " line may be the reader's own
		 * (files reported without a table) */
		for (line = strstr(r.err, "\nunwind tables: "); line;
		     line = strstr(line + 1, "\nunwind tables: "))
			if (sscanf(line + 1, fmt, &t[1], &rows[1], &kib[1], &limit, &freed) == 5)
				break;
		ck_assert_msg(line, "no unwind tables line from --stats:\n%s", r.err);
		ck_assert_uint_eq(t[0], tables);
		ck_assert_uint_ge(t[1], t[0]);
		ck_assert_uint_ge(rows[1], rows[0]);
		ck_assert_uint_ge(rows[0], 1950000);	/* libclang-cpp and libLLVM */
		ck_assert_uint_ge(kib[1], kib[0]);
		ck_assert_uint_eq(limit, 256 << 10);
	}
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_msg(access(obj, R_OK) == 0, "clang did not compile %s", src);
	pk_e2e_parse_folded(r.out, &r.f);
	ck_assert(pk_e2e_parse_summary(r.err, &r.sum));
	assert_clang_whole("clang -O2 -c", &r);
	free(load_err);
	unlink(src);
	unlink(obj);
	rmdir(dir);
	pk_run_free(&r);
}
END_TEST

/* Wait (at most 30 s) until PID maps a file whose path holds WHAT. */
static bool wait_mapped(pid_t pid, const char *what)
{
	char path[64];
	double t0 = pk_now_s();

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	while (pk_now_s() - t0 < 30) {
		char *maps = pk_test_read_file(path, NULL);
		bool found = maps && strstr(maps, what);

		free(maps);
		if (found)
			return true;
		usleep(10000);
	}
	return false;
}

/*
 * The same system-wide: probe-load for the whole machine while a clang-14
 * waits (on a FIFO) with its libraries mapped, then a clang -O2 -c of BIG.c
 * compiles while no reader runs: no table refused for room, and its stacks
 * whole from the tables loaded at start.
 */
START_TEST(test_clang_systemwide)
{
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--skip-idle", NULL };
	const char *read[] = { "-d", "2", NULL };
	char dir[] = "/tmp/pk-clang-XXXXXX", src[64], obj[64], fifo[64], *load_err = NULL;
	char *hold[] = { CLANG, "-x", "c", "-E", "-o", "/dev/null", fifo, NULL };
	char *cc[] = { CLANG, "-O2", "-w", "-c", src, "-o", obj, NULL };
	struct pk_run r;
	pid_t held, pid;
	int rc, status;

	ck_assert_msg(access(CLANG, X_OK) == 0, "needs %s (apt-get install clang-14)", CLANG);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/big.c", dir);
	snprintf(obj, sizeof(obj), "%s/big.o", dir);
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	write_big_c(src, BIG_C_FUNCS);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	memset(&r, 0, sizeof(r));
	pk_e2e_comm_of(CLANG, r.comm);

	held = pk_test_spawn(hold, NULL);
	ck_assert_int_gt(held, 0);
	if (!wait_mapped(held, "libLLVM-14")) {
		kill(held, SIGKILL);
		pk_test_wait(held);
		ck_abort_msg("the held clang-14 did not map libLLVM-14");
	}
	rc = pk_e2e_load_err(load, &load_err);
	kill(held, SIGKILL);
	pk_test_wait(held);
	ck_assert_int_eq(rc, 0);
	ck_assert_ptr_nonnull(load_err);
	fprintf(stderr, "%s", load_err);
	assert_none_refused_for_room(load_err);
	/* nobody reads while it compiles; -d 2 then reads the ring buffer */
	pid = pk_test_spawn(cc, NULL);
	ck_assert_int_gt(pid, 0);
	status = pk_test_wait(pid);
	rc = pk_e2e_read(read, &r.out, &r.err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "clang failed");
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, r.err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(r.out, &r.f);
	ck_assert(pk_e2e_parse_summary(r.err, &r.sum));
	assert_clang_whole("system-wide clang -O2 -c", &r);
	free(load_err);
	unlink(src);
	unlink(obj);
	unlink(fifo);
	rmdir(dir);
	pk_run_free(&r);
}
END_TEST

void pk_dwarf_tables_tests(TCase *tc)
{
	tcase_add_loop_test(tc, test_dlopen_after_start, 0, PK_DWARF_NCORE_VARIANTS);
	tcase_add_loop_test(tc, test_dlclose_reuse, 0, PK_DWARF_NCORE_VARIANTS);
	tcase_add_test(tc, test_command_from_first_instruction);
	tcase_add_test(tc, test_process_after_systemwide_load);
}

void pk_dwarf_tables_more_variants(TCase *tc)
{
	tcase_add_loop_test(tc, test_dlopen_after_start, PK_DWARF_NCORE_VARIANTS,
			    PK_DWARF_NVARIANTS);
	tcase_add_loop_test(tc, test_dlclose_reuse, PK_DWARF_NCORE_VARIANTS, PK_DWARF_NVARIANTS);
}

void pk_dwarf_room_tests(TCase *tc)
{
	tcase_add_test(tc, test_clang_llvm_tables_fit);
	tcase_add_test(tc, test_clang_systemwide);
}
