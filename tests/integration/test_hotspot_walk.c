// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Java walk end to end (bpf/hotspot_walk.bpf.h, the symbolizer's Java
 * frames): the Hot fixture (tests/fixtures/java/Hot.java: main -> top ->
 * mid -> leaf, and Arrays.sort from mid) under Debian 12's OpenJDK 17 on
 * the host, Debian 13's 21 and sid's 25 in their test roots
 * (tests/roots/in_root.sh, as a container runs them), profiled with the real tools (probe-load -- java ...; probe-read), its
 * main thread's samples in the fixture's loop (under Hot.main;Hot.top:
 * main's own start-up, ThreadMXBean's class loading, is not the chain).
 *
 * - interpreter only (-Xint): at least 99% of them are whole from
 *   start_thread through the JVM's JavaCalls::call_helper and its call
 *   stub to Hot.main;Hot.top;Hot.mid, then Hot.leaf or Arrays.sort, each
 *   Java frame named from the method the kernel reported;
 * - C1 only (-XX:TieredStopAtLevel=1) and default flags (C1 and C2): at
 *   least 99% of them are whole from start_thread to Hot.main;Hot.top,
 *   through the JVM and through compiled frames. mid, leaf and the sort
 *   are inlined into top's compiled code there, and inlined methods are
 *   not expanded yet (the nmethod's scopes): the chain's share is printed,
 *   not asserted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "integration/whole_stacks.h"
#include "test_util.h"

/* From the main Java thread's start to the JVM's call into main (the
 * roots' libc has no symbols: its frames are [libc.so.6+0x...]). */
#define JAVA_MAIN_START	"clone3|[];start_thread|[];ThreadJavaMain;JavaMain;+*;" \
			"JavaCalls::call_helper*;[];Hot.main"

static const struct {
	const char *root;	/* a test root's name, or NULL: the host */
	int version;
	const char *java;	/* in the root */
	const char *flag;	/* the mode's flag */
	bool chain;		/* the whole chain asserted */
} runs[] = {
#define JDK17	NULL, 17, "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
#define JDK21	"trixie", 21, "/usr/lib/jvm/java-21-openjdk-amd64/bin/java"
#define JDK25	"sid", 25, "/usr/lib/jvm/java-25-openjdk-amd64/bin/java"
	{ JDK17, "-Xint", true },
	{ JDK17, "-XX:TieredStopAtLevel=1", false },
	{ JDK17, "-Dpk.mode=default", false },
	{ JDK21, "-Xint", true },
	{ JDK21, "-XX:TieredStopAtLevel=1", false },
	{ JDK21, "-Dpk.mode=default", false },
	{ JDK25, "-Xint", true },
	{ JDK25, "-XX:TieredStopAtLevel=1", false },
	{ JDK25, "-Dpk.mode=default", false },
};

START_TEST(test_hot_chain)
{
	char fix[4096], secs[16], in_root[4096], root[4096];
	const char *host[] = { runs[_i].java, runs[_i].flag, "-cp", fix, "Hot", secs, NULL };
	const char *rooted[] = { in_root, "-o", fix, root, runs[_i].java, runs[_i].flag, "-cp",
				 "/mnt/out", "Hot", secs, NULL };
	const char *in[] = { "~*;Hot.main;Hot.top;~*|K", NULL };
	/* then any frames, the kernel's too */
	const char *chain[] = {
		JAVA_MAIN_START ";Hot.top;Hot.mid;Hot.leaf|java.util.Arrays.sort;~*|K", NULL };
	const char *through[] = { JAVA_MAIN_START ";Hot.top;~*|K", NULL };
	struct pk_tally c, t;
	struct pk_run r;
	char *bad;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	if (runs[_i].root)
		pk_test_roots_path(runs[_i].root, root, sizeof(root));
	/* ~5 s of CPU at 99 Hz: 500 samples of the loop */
	snprintf(secs, sizeof(secs), "%g", 5.0);
	pk_profile_command(NULL, runs[_i].root ? rooted : host, &r);
	/* the JVM's main thread, whoever started it */
	c = pk_count_whole_in(&r.f, "java", in, chain);
	t = pk_count_whole_in(&r.f, "java", in, through);
	fprintf(stderr, "hotspot_walk: JDK %d %s: %lu samples in Hot.top, %lu whole through the "
		"JVM (%.1f%%), %lu the chain main;top;mid;leaf|sort (%.1f%%)\n", runs[_i].version,
		runs[_i].flag, t.total, t.whole, 100 * pk_tally_share(t), c.whole,
		100 * pk_tally_share(c));
	pk_print_user_stacks_line(runs[_i].flag, r.err);
	ck_assert_uint_ge(t.total, PK_WHOLE_MIN_SAMPLES);
	bad = pk_not_whole_text(&r.f, "java", in, runs[_i].chain ? chain : through, 5);
	if (runs[_i].chain)
		ck_assert_msg(pk_tally_share(c) >= 0.99, "JDK %d %s: %lu of %lu whole:\n%s",
			      runs[_i].version, runs[_i].flag, c.whole, c.total, bad);
	ck_assert_msg(pk_tally_share(t) >= 0.99, "JDK %d %s: %lu of %lu whole through the JVM:\n%s",
		      runs[_i].version, runs[_i].flag, t.whole, t.total, bad);
	free(bad);
	pk_run_free(&r);
}
END_TEST

Suite *suite_hotspot_walk(void)
{
	Suite *s = suite_create("hotspot_walk");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF"))
		return s;
	tc = tcase_create("hot");
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, test_hot_chain, 0, sizeof(runs) / sizeof(runs[0]));
	suite_add_tcase(s, tc);
	return s;
}
