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
 * - lines, -Xint: in the same run's pprof, every Hot.main, Hot.top and
 *   Hot.mid frame (over Hot.leaf) of the chain is in Hot.java at the line
 *   Java's own stack trace gives that call site (Hot run with "stack":
 *   Throwable.getStackTrace() at leaf's first call), and every Hot.leaf
 *   frame at one of leaf's lines (javap -l's LineNumberTable).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/pprof_decode.h"
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

/* The chain's lines as Java sees them: Hot run with "stack" by ARGV's JVM
 * (ARGV holds "Hot" then the seconds: the mode goes after them). */
struct java_lines {
	unsigned int leaf, mid, top, main;
	unsigned int leaf_min, leaf_max;	/* leaf's LineNumberTable */
};

static void java_oracle(const char *argv[], const char *fix, struct java_lines *o)
{
	char *args[16], *out = NULL, *p;
	char javap[] = "/usr/lib/jvm/java-17-openjdk-amd64/bin/javap";
	char *jp[] = { javap, "-l", "-cp", (char *)fix, "Hot", NULL };
	size_t n = 0;
	int st;

	for (; argv[n]; n++)
		args[n] = (char *)argv[n];
	args[n++] = "stack";
	args[n] = NULL;
	st = pk_test_run(args, &out, NULL);
	ck_assert_msg(st == 0 && out, "%s Hot stack: status %d", args[0], st);
	p = strstr(out, "stack Hot.leaf:");
	ck_assert_msg(p && sscanf(p, "stack Hot.leaf:%u Hot.mid:%u Hot.top:%u Hot.main:%u",
				  &o->leaf, &o->mid, &o->top, &o->main) == 4,
		      "no stack line in: %s", out);
	free(out);
	out = NULL;
	ck_assert_int_eq(pk_test_run(jp, &out, NULL), 0);
	p = strstr(out, "void leaf(int[]);");
	ck_assert_msg(p && (p = strstr(p, "LineNumberTable:")), "javap -l: %s", out);
	o->leaf_min = ~0u;
	o->leaf_max = 0;
	for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		unsigned int line, bci;

		if (sscanf(p + 1, " line %u: %u", &line, &bci) != 2)
			break;
		o->leaf_min = line < o->leaf_min ? line : o->leaf_min;
		o->leaf_max = line > o->leaf_max ? line : o->leaf_max;
	}
	ck_assert_uint_lt(o->leaf_min, o->leaf_max);
	free(out);
}

/* Frames of the chain in a pprof sample, root first: name and line. */
struct jframe {
	const char *name;
	unsigned int line;
};

/* Of the samples in PATH whose frames hold Hot.top: the Java frames of
 * Hot.main, Hot.top and Hot.mid over Hot.leaf, and of Hot.leaf, and of
 * those the ones at O's lines in Hot.java, each counted as many times as
 * its stack was sampled. */
static void pprof_lines(const char *path, const struct java_lines *o, unsigned long *frames,
			unsigned long *ok, char *bad, size_t badlen)
{
	Perftools__Profiles__Profile *p = pk_test_pprof_load(path);

	*frames = *ok = 0;
	bad[0] = 0;
	for (size_t i = 0; i < p->n_sample; i++) {
		const Perftools__Profiles__Sample *smp = p->sample[i];
		/* its samples: pprof sums a stack's */
		unsigned long w = smp->n_value ? (unsigned long)smp->value[0] : 0;
		struct jframe fr[256];
		size_t nf = 0;
		bool in_top = false;

		for (size_t k = smp->n_location_id; k-- > 0;) {
			const Perftools__Profiles__Location *loc =
				pk_test_pprof_location(p, smp->location_id[k]);

			for (size_t l = loc->n_line; l-- > 0 && nf < 256;) {
				const Perftools__Profiles__Function *fn =
					pk_test_pprof_function(p, loc->line[l]->function_id);
				const char *name;

				name = pk_test_pprof_str(p, fn->name);
				if (strncmp(name, "Hot.", 4))
					continue;
				ck_assert_str_eq(pk_test_pprof_str(p, fn->filename), "Hot.java");
				in_top |= !strcmp(name, "Hot.top");
				fr[nf++] = (struct jframe){ name, loc->line[l]->line };
			}
		}
		for (size_t f = 0; in_top && f < nf; f++) {
			const char *nm = fr[f].name;
			unsigned int want = !strcmp(nm, "Hot.main") ? o->main :
					    !strcmp(nm, "Hot.top") ? o->top :
					    !strcmp(nm, "Hot.mid") && f + 1 < nf ? o->mid : 0;
			bool good;

			if (!strcmp(nm, "Hot.leaf"))
				good = fr[f].line >= o->leaf_min && fr[f].line <= o->leaf_max;
			else if (want)
				good = fr[f].line == want;
			else
				continue;	/* mid over the sort: that call's line */
			*frames += w;
			*ok += good ? w : 0;
			if (!good && strlen(bad) + 64 < badlen)
				snprintf(bad + strlen(bad), badlen - strlen(bad), " %s:%u", nm,
					 fr[f].line);
		}
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* The Java frames' lines in the pprof at PB (removed) against Java's own
 * view (java_oracle() by ARGV's JVM, the class files in FIX). */
static void assert_lines(int version, const char *flag, const char *argv[], const char *fix,
			 const char *pb)
{
	struct java_lines o;
	unsigned long frames, ok;
	char bad[512];

	java_oracle(argv, fix, &o);
	pprof_lines(pb, &o, &frames, &ok, bad, sizeof(bad));
	unlink(pb);
	fprintf(stderr, "hotspot_walk: JDK %d %s: Java says main:%u top:%u mid:%u leaf:%u "
		"(leaf's lines %u-%u); %lu of %lu chain frames at those lines\n", version, flag,
		o.main, o.top, o.mid, o.leaf, o.leaf_min, o.leaf_max, ok, frames);
	/* main and top in each sample of the chain at least */
	ck_assert_uint_ge(frames, 2 * PK_WHOLE_MIN_SAMPLES);
	ck_assert_msg(ok == frames, "JDK %d: %lu of %lu frames at other lines:%s", version,
		      frames - ok, frames, bad);
}

/* The main thread's samples in the fixture's loop, and the whole chain
 * (then any frames, the kernel's too). */
static const char *const in[] = { "~*;Hot.main;Hot.top;~*|K", NULL };
static const char *const chain[] = {
	JAVA_MAIN_START ";Hot.top;Hot.mid;Hot.leaf|java.util.Arrays.sort;~*|K", NULL };

START_TEST(test_hot_chain)
{
	char fix[4096], secs[16], in_root[4096], root[4096];
	const char *host[] = { runs[_i].java, runs[_i].flag, "-cp", fix, "Hot", secs, NULL };
	const char *rooted[] = { in_root, "-o", fix, root, runs[_i].java, runs[_i].flag, "-cp",
				 "/mnt/out", "Hot", secs, NULL };
	const char *through[] = { JAVA_MAIN_START ";Hot.top;~*|K", NULL };
	char pb[4096], folded[4096];
	const char *read_extra[] = { "-f", "folded", "-o", folded, "-f", "pprof", "-o", pb,
				     NULL };
	struct pk_tally c, t;
	struct pk_run r;
	char *bad;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	if (runs[_i].root)
		pk_test_roots_path(runs[_i].root, root, sizeof(root));
	snprintf(pb, sizeof(pb), "%s", pk_test_path_in(pk_test_cache_dir(), "hot.pb"));
	snprintf(folded, sizeof(folded), "%s", pk_test_path_in(pk_test_cache_dir(), "hot.folded"));
	/* ~5 s of CPU at 99 Hz: 500 samples of the loop */
	snprintf(secs, sizeof(secs), "%g", 5.0);
	pk_profile_command_read(NULL, runs[_i].root ? rooted : host,
				runs[_i].chain ? read_extra : NULL, runs[_i].chain ? folded : NULL,
				&r);
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
	if (runs[_i].chain)
		assert_lines(runs[_i].version, runs[_i].flag, runs[_i].root ? rooted : host, fix, pb);
	pk_run_free(&r);
}
END_TEST

/* A JVM read after it exited: probe-load -- java ...; probe-read once it
 * is gone. Its Java frames are named, with their lines, from what the
 * kernel reported while it ran (the whole chain from start_thread, its
 * native frames named from the files of its root the session kept, is
 * printed: the walk's share is hot_chain's to assert). JDK 25 in its root,
 * -Xint, 2.5 s of CPU. */
START_TEST(test_hot_exited)
{
	char fix[4096], in_root[4096], root[4096], pb[4096], folded[4096];
	const char *argv[] = { in_root, "-o", fix, root,
			       "/usr/lib/jvm/java-25-openjdk-amd64/bin/java", "-Xint", "-cp",
			       "/mnt/out", "Hot", "2.5", NULL };
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", argv[0], argv[1], argv[2], argv[3],
			       argv[4], argv[5], argv[6], argv[7], argv[8], argv[9], NULL };
	const char *rd[] = { "-d", "1", "-f", "folded", "-o", folded, "-f", "pprof", "-o", pb,
			     NULL };
	/* its Java frames named, whatever the native ones below */
	const char *const named[] = {
		"~*;Hot.main;Hot.top;Hot.mid;Hot.leaf|java.util.Arrays.sort;~*|K", NULL };
	struct pk_folded f;
	struct pk_tally c, n;
	char *out = NULL, *err = NULL, *text, *bad;
	int rc;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	pk_test_roots_path("sid", root, sizeof(root));
	snprintf(pb, sizeof(pb), "%s", pk_test_path_in(pk_test_cache_dir(), "exited.pb"));
	snprintf(folded, sizeof(folded), "%s",
		 pk_test_path_in(pk_test_cache_dir(), "exited.folded"));
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(300), 0);
	rc = pk_e2e_read(rd, &out, &err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, err);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	text = pk_test_read_file(folded, NULL);
	ck_assert_ptr_nonnull(text);
	unlink(folded);
	pk_e2e_parse_folded(text, &f);
	c = pk_count_whole_in(&f, "java", in, chain);
	n = pk_count_whole_in(&f, "java", in, named);
	fprintf(stderr, "hotspot_walk: JDK 25 -Xint read after its exit: %lu samples in Hot.top, "
		"%lu with the Java chain named (%.1f%%), %lu the whole chain from start_thread "
		"(%.1f%%)\n", n.total, n.whole, 100 * pk_tally_share(n), c.whole,
		100 * pk_tally_share(c));
	ck_assert_uint_ge(n.total, PK_WHOLE_MIN_SAMPLES);
	bad = pk_not_whole_text(&f, "java", in, named, 5);
	ck_assert_msg(pk_tally_share(n) >= 0.99, "read after exit: %lu of %lu named:\n%s",
		      n.whole, n.total, bad);
	free(bad);
	ck_assert_msg(!strstr(text, "[java:"), "a Java frame not named:\n%s", text);
	assert_lines(25, "-Xint, read after its exit", argv, fix, pb);
	pk_folded_free(&f);
	free(text);
	free(out);
	free(err);
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
	tc = tcase_create("exited");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_hot_exited);
	suite_add_tcase(s, tc);
	return s;
}
