// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end: readers one after the other of one session name the same
 * runtime frames. The BPF walks report a Java method, a Python code object
 * (and a JavaScript function, a mapping) once, remembered in a seen map; a
 * second reader was never told what the first one was, and printed
 * "[java:0x...]" and "[py:0x...]" for them (two probe-read -d 1 of one
 * java -Xint Hot: 15 named lines, then none and 9 unnamed). Each reader
 * starts a new generation of the session (struct pk_session reader_gen),
 * and the reports are sent again once per generation.
 *
 * One session of a JDK 17 java -Xint Hot and a python3.11 chain.py, both
 * running throughout; two readers in turn, each for a second of CPU time
 * of each fixture: each reader's Java and Python frames all named.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "integration/jvm_run.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define JAVA17		"/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
#define PYTHON		"/usr/bin/python3.11"
#define READERS		3
/* at 99 Hz, a second of CPU time of each fixture per reader: ~99 samples
 * each, fewer in the chains when other threads took some of it */
#define MIN_NAMED	40

/* What one reader's folded stacks hold of the fixtures' runtime frames:
 * samples through a named Java method of Hot / a Python function of
 * chain.py, and through an unnamed one. */
struct named {
	unsigned long java, java_unnamed, py, py_unnamed;
};

static void count_named(const struct pk_folded *f, struct named *n)
{
	for (size_t i = 0; i < f->n; i++) {
		const char *s = f->lines[i].stack;
		unsigned long c = f->lines[i].count;

		n->java += strstr(s, ";Hot.top;") ? c : 0;
		n->java_unnamed += strstr(s, "[java:0x") ? c : 0;
		n->py += strstr(s, "hot (") && strstr(s, "chain.py:") ? c : 0;
		n->py_unnamed += strstr(s, "[py:0x") ? c : 0;
	}
}

/* The first stacks with an unnamed runtime frame, for a failure's message. */
static char *unnamed_text(const struct pk_folded *f)
{
	size_t len = 0, max = 2048;
	char *t = calloc(1, max);

	ck_assert_ptr_nonnull(t);
	for (size_t i = 0; i < f->n && len < max - 1; i++) {
		const char *s = f->lines[i].stack;

		if (strstr(s, "[java:0x") || strstr(s, "[py:0x"))
			len += (size_t)snprintf(t + len, max - len, "%s %lu\n", s, f->lines[i].count);
	}
	return t;
}

/* probe-read -f folded -o PATH, from when it holds the session until both
 * fixtures used a second more of CPU time, then SIGINT: what it wrote. */
static void read_once(int i, pid_t java, pid_t py, struct named *n)
{
	char path[4096], log[4096], name[32];
	const char *args[] = { "-f", "folded", "-o", path, NULL };
	struct pk_folded f;
	const char *bad;
	double jcpu, pcpu;
	pid_t reader;
	char *text, *logtext, *msg;
	int status;

	snprintf(name, sizeof(name), "reader%d.folded", i);
	snprintf(path, sizeof(path), "%s", pk_test_path_in(pk_test_cache_dir(), name));
	snprintf(name, sizeof(name), "reader%d.log", i);
	snprintf(log, sizeof(log), "%s", pk_test_path_in(pk_test_cache_dir(), name));
	reader = pk_e2e_spawn_read(args, log);
	ck_assert_int_gt(reader, 0);
	pk_e2e_wait_holder(reader);
	/* from the CPU time they have used so far */
	jcpu = pk_e2e_cpu_s(java);
	pcpu = pk_e2e_cpu_s(py);
	ck_assert_int_eq(pk_e2e_wait_cpu(java, jcpu + 1.0, 120), 0);
	ck_assert_int_eq(pk_e2e_wait_cpu(py, pcpu + 1.0, 120), 0);
	kill(reader, SIGINT);
	status = pk_test_wait(reader);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "reader %d ended with %#x",
		      i + 1, status);
	text = pk_test_read_file(path, NULL);
	logtext = pk_test_read_file(log, NULL);
	ck_assert_ptr_nonnull(logtext);
	ck_assert_ptr_nonnull(text);
	ck_assert_msg(pk_folded_parse(text, &f, &bad), "bad folded line: %s", bad);
	*n = (struct named){ 0 };
	count_named(&f, n);
	fprintf(stderr, "reader_gen: reader %d: %lu samples in Hot.top, %lu through an unnamed "
		"Java frame; %lu in chain.py's hot, %lu through an unnamed Python frame\n",
		i + 1, n->java, n->java_unnamed, n->py, n->py_unnamed);
	msg = unnamed_text(&f);
	ck_assert_msg(n->java_unnamed == 0 && n->py_unnamed == 0,
		      "reader %d of the session has unnamed frames:\n%s", i + 1, msg);
	ck_assert_msg(n->java >= MIN_NAMED && n->py >= MIN_NAMED,
		      "reader %d: %lu samples in Hot.top, %lu in hot: fewer than %d\n%s", i + 1,
		      n->java, n->py, MIN_NAMED, logtext);
	free(msg);
	pk_folded_free(&f);
	free(text);
	free(logtext);
	unlink(path);
	unlink(log);
}

START_TEST(test_readers_in_turn)
{
	const char *jargs[] = { "-Xint", "Hot", "3600", NULL };
	char chain[4096], jpid[16], ppid[16];
	const char *pargv[] = { PYTHON, chain, "0", NULL };
	const char *load[] = { "-F", "99", "-p", jpid, "-p", ppid, NULL };
	struct named n[READERS];
	struct pk_jvm vm;
	char *err = NULL;
	pid_t py;
	int rc;

	pk_test_src_path("tests/fixtures/python/chain.py", chain, sizeof(chain));
	pk_jvm_start(NULL, JAVA17, jargs, &vm);
	py = pk_test_spawn((char *const *)pargv, NULL);
	ck_assert_int_gt(py, 0);
	snprintf(jpid, sizeof(jpid), "%d", (int)vm.pid);
	snprintf(ppid, sizeof(ppid), "%d", (int)py);
	rc = pk_e2e_load_err(load, &err);
	ck_assert_msg(rc == 0, "probe-load failed: %s", err);
	free(err);
	for (int i = 0; i < READERS; i++)
		read_once(i, vm.pid, py, &n[i]);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	kill(py, SIGKILL);
	pk_test_wait(py);
	kill(vm.pid, SIGKILL);
	ck_assert_int_eq(waitpid(vm.child, NULL, 0), vm.child);
	close(vm.in);
	close(vm.out);
}
END_TEST

Suite *suite_reader_gen(void)
{
	Suite *s = suite_create("reader_gen");
	TCase *tc = pk_e2e_tcase(s, "readers_in_turn", 300);

	tcase_add_test(tc, test_readers_in_turn);
	return s;
}
