// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Java walk (bpf/hotspot_walk.bpf.h, the symbolizer's Java frames)
 * against the JVM's own view of its threads:
 *
 * - JFR, the JVM's sampler, Debian 12's JDK 17 on the host: the Hot
 *   fixture (tests/fixtures/java/Hot.java) recorded by JFR
 *   (-XX:StartFlightRecording, method-profiling=max: a sample a
 *   millisecond) and profiled by probekit at 999 Hz, one run.
 *   In the main thread, the share of Hot.leaf against the sort
 *   (java.util.Arrays.sort and what it calls) under Hot.main;Hot.top;
 *   Hot.mid is JFR's within 0.05. Two runs: -Xint, and default flags,
 *   where C1 and C2 inline mid, leaf and the sort into top's compiled code
 *   and each side names them from the nmethod's scopes (JFR itself,
 *   probekit from the nmethod's report).
 * - jcmd's thread dump, Debian 12's JDK 17 on the host, 13's 21 and sid's
 *   25 in their test roots (tests/roots/in_root.sh; jcmd in the JVM's root
 *   and namespaces): the Idle fixture with two threads blocked in Java
 *   over and over, 2 ms at a time (tests/fixtures/java/Idle.java:
 *   "pk-sleep" in Thread.sleep, "pk-wait" in Object.wait), profiled
 *   off-CPU (probe-load -e off-cpu -- java ...), each thread's blocks
 *   counted by the fixture: once the tables of the JVM's files are loaded
 *   (warm_up()), 200 blocks of each, then jcmd. The Java frames of each
 *   thread's samples from then on (perf text's frames in [java], leaf
 *   first) are those `jcmd PID Thread.print` gives for the thread (its
 *   "at CLASS.METHOD(...)" lines, leaf first), frame for frame, in 99% of
 *   its samples at least; the others must have those frames from the
 *   fixture's leaf-most one (Idle.nap, Idle.await) to the root, and other
 *   JDK frames, or none, above it: the thread blocked elsewhere in the
 *   same call (at a safepoint poll of the loop between two sleeps, or, JDK
 *   21 on, in Thread.sleep's own Java code: beforeSleep ->
 *   ThreadSleepEvent.isTurnedOn waiting for the compiler's lock). A walk
 *   cut short, a sample without Java frames or a frame misnamed fails. The mapping of names: jcmd's CLASS.METHOD
 *   is the text between "at " and "(", probekit's the frame's symbol, and
 *   each side names every frame it has as it is: the native methods the
 *   threads block in (17: Thread.sleep and Object.wait; 21: Thread.sleep0
 *   called by Thread.sleep, Object.wait0 by Object.wait; 25:
 *   Thread.sleepNanos0 by sleepNanos by sleep), and the JDK's own frames
 *   that call Idle.run (21 and 25: Thread.runWith) alike; nothing is
 *   renamed or dropped on either side; the parentheses (module, file,
 *   line) and jcmd's "- waiting on" and "- locked" lines, which are not
 *   frames, are not compared.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness/oracles.h"
#include "integration/jvm_run.h"
#include "integration/whole_stacks.h"
#include "test_util.h"

#define JDK17_HOME	"/usr/lib/jvm/java-17-openjdk-amd64"

/* The main thread's samples in mid, and of them leaf's and the sort's
 * (then any frames, the kernel's too). */
static const char *const in_mid[] = { "~*;Hot.main;Hot.top;Hot.mid;~*|K", NULL };
static const char *const in_leaf[] = { "~*;Hot.main;Hot.top;Hot.mid;Hot.leaf;~*|K", NULL };
static const char *const in_sort[] = {
	"~*;Hot.main;Hot.top;Hot.mid;java.util.Arrays.sort;~*|K", NULL };

struct leaf_share {
	unsigned long mid, leaf, sort;
	double share;		/* leaf / (leaf + sort) */
};

/* Of COMM's samples in F. */
static struct leaf_share leaf_share(const struct pk_folded *f, const char *comm)
{
	struct leaf_share s = {
		.mid = pk_count_whole(f, comm, in_mid).whole,
		.leaf = pk_count_whole(f, comm, in_leaf).whole,
		.sort = pk_count_whole(f, comm, in_sort).whole,
	};

	s.share = s.leaf + s.sort ? (double)s.leaf / (s.leaf + s.sort) : 0;
	return s;
}

/* Each side's share from this many samples of leaf or the sort at least:
 * a standard error of 0.016 at most (the shares are near one half), the
 * bound 0.05 three of them. */
#define JFR_MIN_SAMPLES	1000

/* The interpreter only, and default flags (C1 and C2: leaf, mid and the
 * sort inlined into top's compiled code, expanded from its scopes on both
 * sides). */
static const char *const jfr_modes[] = { "-Xint", "-Dpk.mode=default" };

START_TEST(test_jfr_leaf_share)
{
	char fix[4096], dir[4096], rec[4200], start[4300], *out = NULL, *err = NULL;
	char *jtext = NULL;
	const char *load[] = { "-F", "999", "--", JDK17_HOME "/bin/java", start, jfr_modes[_i],
			       "-cp", fix, "Hot", "3", NULL };
	struct pk_folded pf, jf;
	struct leaf_share p, j;
	int rc;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	snprintf(dir, sizeof(dir), "%s", pk_test_path_in(pk_test_cache_dir(), "jfr-XXXXXX"));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(rec, sizeof(rec), "%s/hot.jfr", dir);
	snprintf(start, sizeof(start), "-XX:StartFlightRecording=filename=%s,method-profiling=max",
		 rec);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_e2e_read_until_exit(&out, &err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(out, &pf);
	rc = pk_test_jfr_fold(JDK17_HOME "/bin/jfr", rec, &jtext);
	if (pk_test_oracle_missing(rc, "JDK 17's jfr, /usr/bin/python3"))
		goto out;
	ck_assert_msg(rc == 0, "jfr_fold.py: %d", rc);
	pk_e2e_parse_folded(jtext, &jf);

	p = leaf_share(&pf, "java");
	j = leaf_share(&jf, "main");
	fprintf(stderr, "hotspot_jvm: JDK 17 %s, Hot.leaf against the sort in the main thread: "
		"probekit %.3f (%lu leaf, %lu sort of %lu in mid), JFR %.3f (%lu leaf, %lu sort of "
		"%lu in mid), difference %.3f\n", jfr_modes[_i], p.share, p.leaf, p.sort, p.mid,
		j.share, j.leaf, j.sort, j.mid, p.share - j.share);
	pk_print_user_stacks_line(jfr_modes[_i], err);
	ck_assert_uint_ge(p.leaf + p.sort, JFR_MIN_SAMPLES);
	ck_assert_uint_ge(j.leaf + j.sort, JFR_MIN_SAMPLES);
	ck_assert_msg(p.share - j.share <= 0.05 && j.share - p.share <= 0.05,
		      "leaf's share: probekit %.3f, JFR %.3f", p.share, j.share);
	pk_folded_free(&jf);
out:
	pk_folded_free(&pf);
	free(jtext);
	free(out);
	free(err);
	unlink(rec);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* The JDKs of the off-CPU case: Debian 12's 17 on the host, 13's 21 and
 * sid's 25 in their test roots (tests/roots/in_root.sh). */
static const struct jdk {
	const char *root;	/* a test root's name, or NULL: the host */
	int version;
	const char *home;	/* in the root */
} jdks[] = {
	{ NULL, 17, JDK17_HOME },
	{ "trixie", 21, "/usr/lib/jvm/java-21-openjdk-amd64" },
	{ "sid", 25, "/usr/lib/jvm/java-25-openjdk-amd64" },
};

/* Up to this many Java frames in a thread's stack are compared. */
#define JSTACK_MAX	64

struct jstack {
	char *v[JSTACK_MAX];	/* leaf first */
	size_t n;
};

static void jstack_free(struct jstack *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	s->n = 0;
}

static void jstack_push(struct jstack *s, const char *name, size_t len)
{
	ck_assert_uint_lt(s->n, JSTACK_MAX);
	s->v[s->n] = strndup(name, len);
	ck_assert_ptr_nonnull(s->v[s->n]);
	s->n++;
}

/* "a;b;c" of S, into BUF, for the messages. */
static const char *jstack_text(const struct jstack *s, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (size_t i = 0; i < s->n && at < len; i++)
		at += snprintf(buf + at, len - at, "%s%s", i ? ";" : "", s->v[i]);
	return buf;
}

/* jcmd's frames of THREAD in DUMP (Thread.print's text): the "\tat
 * CLASS.METHOD(...)" lines of its entry, CLASS.METHOD each. */
static void jcmd_frames(const char *dump, const char *thread, struct jstack *s)
{
	char head[64];
	const char *l;

	snprintf(head, sizeof(head), "\n\"%s\" ", thread);
	l = strstr(dump, head);
	ck_assert_msg(l, "no thread %s in jcmd's dump:\n%s", thread, dump);
	/* to the blank line that ends the entry */
	for (l = strchr(l + 1, '\n'); l && l[1] && l[1] != '\n'; l = strchr(l + 1, '\n')) {
		const char *name = l + 1, *paren;

		if (strncmp(name, "\tat ", 4))
			continue;
		name += 4;
		paren = strchr(name, '(');
		ck_assert_msg(paren && paren < strchr(name, '\n'), "jcmd: %.80s", name);
		jstack_push(s, name, paren - name);
	}
	ck_assert_uint_gt(s->n, 0);
}

/* The index of S's leaf-most frame of the fixture's class (Idle.*), or
 * S->n: where its own frames start, the JDK's above them. */
static size_t jstack_own(const struct jstack *s)
{
	size_t i = 0;

	while (i < s->n && strncmp(s->v[i], "Idle.", 5))
		i++;
	return i;
}

/* Whether the Java frames A are WANT (true, *ELSEWHERE false), or blocked
 * elsewhere in the same call of the fixture's code (true, *ELSEWHERE
 * true): the same frames from the fixture's leaf-most one to the root,
 * other frames of the JDK's, or none, above it. */
static bool jstack_match(const struct jstack *a, const struct jstack *want, bool *elsewhere)
{
	size_t oa = jstack_own(a), ow = jstack_own(want);

	if (oa == a->n || a->n - oa != want->n - ow)
		return false;
	for (size_t i = 0; i < a->n - oa; i++)
		if (strcmp(a->v[oa + i], want->v[ow + i]))
			return false;
	*elsewhere = a->n != want->n;
	for (size_t i = 0; i < oa && !*elsewhere; i++)
		*elsewhere = strcmp(a->v[i], want->v[i]) != 0;
	return true;
}

struct jmatch {
	unsigned long samples, equal, elsewhere;
	char bad[2048];		/* the first stacks that do not match: the
				 * first whole (its user frames), then their
				 * Java frames */
};

/* The lines of perf text [FROM, TO) but the kernel's into BUF (LEN
 * bytes), for a failure's message. */
static void user_frames(const char *from, const char *to, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (const char *l = from; l && l < to && at < len; l = strchr(l, '\n'), l = l ? l + 1 : l) {
		size_t n = strcspn(l, "\n");

		if (!memmem(l, n, "[kernel.kallsyms]", 17))
			at += snprintf(buf + at, len - at, "%.*s\n", (int)n, l);
	}
}

/* The off-CPU samples of THREAD in the perf text PERF from boot time
 * SINCE on, each sample's Java frames (" ([java])" frame lines, leaf
 * first) against WANT. */
static struct jmatch perf_match(const char *perf, const char *thread, const struct jstack *want,
				double since)
{
	struct jmatch m = { 0 };
	size_t tlen = strlen(thread);
	const char *l = perf;

	while (l && *l) {
		const char *start = l;
		struct jstack s = { .n = 0 };
		bool mine = !strncmp(l, thread, tlen) && l[tlen] == ' ', elsewhere = false;
		const char *at = strstr(l, "] ");
		double time;

		/* "COMM PID/TID [CPU] TIME: WEIGHT EVENT:" */
		if (mine) {
			ck_assert_msg(at && sscanf(at + 2, "%lf:", &time) == 1, "perf text: %.80s", l);
			mine = time >= since;
		}

		/* the sample's frame lines, to its blank line */
		for (l = strchr(l, '\n'); l && l[1] == '\t'; l = strchr(l + 1, '\n')) {
			const char *end = strchr(l + 1, '\n'), *sym;

			if (!mine || !end || end - l < 10 || memcmp(end - 9, " ([java])", 9))
				continue;
			/* "\t    ADDR SYMBOL ([java])" */
			sym = strchr(l + 1 + strspn(l + 1, "\t "), ' ');
			ck_assert_ptr_nonnull(sym);
			jstack_push(&s, sym + 1, end - 9 - (sym + 1));
		}
		l = l ? l + 1 + strspn(l + 1, "\n") : NULL;
		if (!mine)
			continue;
		m.samples++;
		if (jstack_match(&s, want, &elsewhere) && !elsewhere) {
			m.equal++;
			jstack_free(&s);
			continue;
		}
		m.elsewhere += elsewhere;
		if (!m.bad[0])
			user_frames(start, l, m.bad, sizeof(m.bad) / 2);
		if (strlen(m.bad) < sizeof(m.bad) - 600) {
			char buf[512];

			snprintf(m.bad + strlen(m.bad), sizeof(m.bad) - strlen(m.bad), "  %s\n",
				 jstack_text(&s, buf, sizeof(buf)));
		}
		jstack_free(&s);
	}
	return m;
}

/* The JVM's first blocks come before probe-load loaded the tables of its
 * libjvm (the walk stops in it then, as in any program's first samples):
 * rounds of 20 blocks of each thread until one in which no walk stopped
 * for want of a table. The boot time after it: the samples from then on
 * are compared. */
static double warm_up(struct pk_jvm *vm)
{
	__u64 before[PK_CNT__MAX], after[PK_CNT__MAX];
	struct timespec ts;

	for (int round = 0;; round++) {
		ck_assert_msg(round < 100, "the tables of the JVM's files are not loaded");
		pk_e2e_counters(before);
		ck_assert_int_eq(write(vm->in, "20\n", 3), 3);
		pk_jvm_wait_line(vm, "blocked", NULL, 0);
		pk_e2e_counters(after);
		if (after[PK_CNT_SAMPLES] > before[PK_CNT_SAMPLES] &&
		    after[PK_CNT_END_NO_TABLE] == before[PK_CNT_END_NO_TABLE]) {
			fprintf(stderr, "hotspot_jvm: off-CPU: the tables loaded after %d rounds\n",
				round + 1);
			break;
		}
	}
	ck_assert_int_eq(clock_gettime(CLOCK_BOOTTIME, &ts), 0);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* probe-load's lines about a JVM the walk cannot read, on stderr: why a
 * run's samples would have no Java frame. */
static void said_unreadable(int version)
{
	char *log = pk_e2e_load_log();

	for (const char *l = log; l && (l = strstr(l, "the walk cannot read")); l++) {
		const char *start = l;

		while (start > log && start[-1] != '\n')
			start--;
		fprintf(stderr, "hotspot_jvm: JDK %d: probe-load said: %.*s\n", version,
			(int)strcspn(start, "\n"), start);
	}
	free(log);
}

/* Blocks of each thread counted in the run. */
#define BLOCKS		"200"

START_TEST(test_offcpu_vs_jcmd)
{
	static const char *const threads[] = { "pk-sleep", "pk-wait" };
	const struct jdk *j = &jdks[_i];
	char dir[4096], in[4200], out[4200], perf[4200], fix[4096], pid[32], jbuf[1024];
	char java[512], jcmd_path[512], in_root[4096], root[4096], host_pid[32];
	const char *host[] = { "-e", "off-cpu", "--", "/bin/sh", "-c",
			       "exec \"$0\" -cp \"$1\" Idle blocked <\"$2\" >\"$3\"",
			       java, fix, in, out, NULL };
	const char *rooted[] = { "-e", "off-cpu", "--", "/bin/sh", "-c",
				 "exec \"$0\" -o \"$1\" \"$2\" \"$3\" -cp /mnt/out Idle blocked "
				 "<\"$4\" >\"$5\"", in_root, fix, root, java, in, out, NULL };
	const char *rd[] = { "-f", "perf", "-o", perf, NULL };
	/* in the JVM's root and namespaces for the roots' JDKs */
	char *jcmd_host[] = { jcmd_path, pid, "Thread.print", NULL };
	char *jcmd_root[] = { "nsenter", "-t", host_pid, "-m", "-p", "-r", "-w", jcmd_path, pid,
			      "Thread.print", NULL };
	char *dump = NULL, *rout = NULL, *rerr = NULL, *text;
	pid_t jvm;
	struct jstack want[2] = { { .n = 0 }, { .n = 0 } };
	struct pk_jvm vm = { 0 };
	double since;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	if (j->root)
		pk_test_roots_path(j->root, root, sizeof(root));
	snprintf(java, sizeof(java), "%s/bin/java", j->home);
	snprintf(jcmd_path, sizeof(jcmd_path), "%s/bin/jcmd", j->home);
	snprintf(dir, sizeof(dir), "%s", pk_test_path_in(pk_test_cache_dir(), "offcpu-XXXXXX"));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(perf, sizeof(perf), "%s/offcpu.perf", dir);
	ck_assert_int_eq(mkfifo(in, 0600), 0);
	ck_assert_int_eq(mkfifo(out, 0600), 0);
	/* both ends ours too: opening them blocks neither side, and the JVM's
	 * stdin ends when we close it */
	vm.in = open(in, O_RDWR | O_CLOEXEC);
	vm.out = open(out, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(vm.in, 0);
	ck_assert_int_ge(vm.out, 0);

	ck_assert_int_eq(pk_e2e_load(j->root ? rooted : host), 0);
	pk_jvm_wait_line(&vm, "ready", pid, sizeof(pid));
	/* under probe-load, in_root.sh, its unshare and chroot */
	jvm = pk_jvm_find(getpid(), 5);
	ck_assert_msg(jvm > 0, "JDK %d: no java under the test", j->version);
	ck_assert_int_eq(pk_jvm_ns_pid(jvm), atoi(pid));
	snprintf(host_pid, sizeof(host_pid), "%d", (int)jvm);
	since = warm_up(&vm);
	ck_assert_int_eq(write(vm.in, BLOCKS "\n", sizeof(BLOCKS)), (ssize_t)sizeof(BLOCKS));
	pk_jvm_wait_line(&vm, "blocked", NULL, 0);
	ck_assert_int_eq(pk_test_run(j->root ? jcmd_root : jcmd_host, &dump, NULL), 0);
	for (int t = 0; t < 2; t++)
		jcmd_frames(dump, threads[t], &want[t]);
	close(vm.in);
	pk_e2e_read_until_exit_with(rd, &rout, &rerr);
	said_unreadable(j->version);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	close(vm.out);
	text = pk_test_read_file(perf, NULL);
	ck_assert_ptr_nonnull(text);
	snprintf(jbuf, sizeof(jbuf), "JDK %d off-CPU", j->version);
	pk_print_user_stacks_line(jbuf, rerr);

	for (int t = 0; t < 2; t++) {
		struct jmatch m = perf_match(text, threads[t], &want[t], since);

		fprintf(stderr, "hotspot_jvm: JDK %d off-CPU, %s: jcmd %s; %lu samples, %lu with "
			"those Java frames (%.1f%%), %lu blocked elsewhere above Idle's frames, %lu "
			"others\n",
			j->version, threads[t], jstack_text(&want[t], jbuf, sizeof(jbuf)), m.samples, m.equal,
			m.samples ? 100.0 * m.equal / m.samples : 0, m.elsewhere,
			m.samples - m.equal - m.elsewhere);
		ck_assert_uint_ge(m.samples, 200);
		ck_assert_msg(m.equal + m.elsewhere == m.samples, "JDK %d %s: %lu samples with other Java "
			      "frames than jcmd's %s, such as:\n%s", j->version, threads[t],
			      m.samples - m.equal - m.elsewhere, jbuf, m.bad);
		ck_assert_msg(m.equal >= 0.99 * m.samples, "JDK %d %s: %lu of %lu samples with "
			      "jcmd's Java frames, others such as:\n%s", j->version, threads[t],
			      m.equal, m.samples, m.bad);
		jstack_free(&want[t]);
	}
	free(text);
	free(dump);
	free(rout);
	free(rerr);
	unlink(perf);
	unlink(in);
	unlink(out);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

Suite *suite_hotspot_jvm(void)
{
	Suite *s = suite_create("hotspot_jvm");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF"))
		return s;
	tc = tcase_create("jfr");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_jfr_leaf_share, 0, sizeof(jfr_modes) / sizeof(jfr_modes[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("jcmd");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, test_offcpu_vs_jcmd, 0, sizeof(jdks) / sizeof(jdks[0]));
	suite_add_tcase(s, tc);
	return s;
}
