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
 * - C1 only (-XX:TieredStopAtLevel=1) and default flags (C1 and C2):
 *   likewise, through compiled frames: mid, leaf and the sort are inlined
 *   into top's (or main's) compiled code there, and each compiled frame
 *   is expanded into the methods inlined at its PC (its nmethod's scopes,
 *   symbolization/hotspot_scopes.h);
 * - lines, every mode: in the same run's pprof, every Hot.main, Hot.top
 *   and Hot.mid frame (over Hot.leaf) of the chain, inlined or not, is in
 *   Hot.java at the line Java's own stack trace gives that call site (Hot
 *   run with "stack": Throwable.getStackTrace() at leaf's first call), and
 *   every Hot.leaf frame, and Hot.top sampled in its own code, at one of
 *   that method's lines (javap -l's LineNumberTable); with -Xint, 90% of
 *   Hot.leaf's in its inner loop (the sampled bytecode's line, not the one
 *   its frame last saved; compiled code has a scope at its calls and
 *   safepoints only).
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
} runs[] = {
#define JDK17	NULL, 17, "/usr/lib/jvm/java-17-openjdk-amd64/bin/java"
#define JDK21	"trixie", 21, "/usr/lib/jvm/java-21-openjdk-amd64/bin/java"
#define JDK25	"sid", 25, "/usr/lib/jvm/java-25-openjdk-amd64/bin/java"
	{ JDK17, "-Xint" },
	{ JDK17, "-XX:TieredStopAtLevel=1" },
	{ JDK17, "-Dpk.mode=default" },
	{ JDK21, "-Xint" },
	{ JDK21, "-XX:TieredStopAtLevel=1" },
	{ JDK21, "-Dpk.mode=default" },
	{ JDK25, "-Xint" },
	{ JDK25, "-XX:TieredStopAtLevel=1" },
	{ JDK25, "-Dpk.mode=default" },
};

/* The chain's lines as Java sees them: Hot run with "stack" by ARGV's JVM
 * (ARGV holds "Hot" then the seconds: the mode goes after them). */
struct java_lines {
	unsigned int leaf, mid, top, main;
	unsigned int leaf_min, leaf_max;	/* leaf's LineNumberTable */
	unsigned int top_min, top_max;		/* top's */
	unsigned int loop_min, loop_max;	/* leaf's inner loop, in Hot.java */
};

/* The lines of Hot.java marked "the inner loop". */
static void source_loop(struct java_lines *o)
{
	char path[4096], *text;
	unsigned int line = 1;

	pk_test_src_path("tests/fixtures/java/Hot.java", path, sizeof(path));
	text = pk_test_read_file(path, NULL);
	ck_assert_ptr_nonnull(text);
	o->loop_min = ~0u;
	o->loop_max = 0;
	for (const char *l = text; *l; line++) {
		size_t end = strcspn(l, "\n");

		if (memmem(l, end, "// the inner loop", 17)) {
			o->loop_min = line < o->loop_min ? line : o->loop_min;
			o->loop_max = line;
		}
		l += end + (l[end] == '\n');
	}
	free(text);
	ck_assert_uint_le(o->loop_min, o->loop_max);
}

/* The lowest and highest line of the method DECL's LineNumberTable in
 * OUT, javap -l's text. */
static void javap_lines(const char *out, const char *decl, unsigned int *min, unsigned int *max)
{
	const char *p = strstr(out, decl);

	ck_assert_msg(p && (p = strstr(p, "LineNumberTable:")), "javap -l: no %s in %s", decl,
		      out);
	*min = ~0u;
	*max = 0;
	for (p = strchr(p, '\n'); p && p[1]; p = strchr(p + 1, '\n')) {
		unsigned int line, bci;

		if (sscanf(p + 1, " line %u: %u", &line, &bci) != 2)
			break;
		*min = line < *min ? line : *min;
		*max = line > *max ? line : *max;
	}
	ck_assert_uint_lt(*min, *max);
}

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
	javap_lines(out, "void leaf(int[]);", &o->leaf_min, &o->leaf_max);
	javap_lines(out, "void top();", &o->top_min, &o->top_max);
	free(out);
	source_loop(o);
}

/* Frames of the chain in a pprof sample, root first: name and line. */
struct jframe {
	const char *name;
	unsigned int line;
};

/* The chain's frames in a pprof, each counted as many times as its stack
 * was sampled. */
struct line_tally {
	unsigned long frames, ok;	/* the frames judged, those at O's lines */
	unsigned long leaf, loop;	/* Hot.leaf's frames, in the inner loop */
	unsigned long unknown;		/* of FRAMES, those of no line */
	char bad[512];			/* the first at other lines */
};

/* Of the samples in PATH whose frames hold Hot.top: the Java frames of
 * Hot.main, Hot.top and Hot.mid over Hot.leaf, and of Hot.leaf, and of
 * those the ones at O's lines in Hot.java, into T. */
static void pprof_lines(const char *path, const struct java_lines *o, struct line_tally *t)
{
	Perftools__Profiles__Profile *p = pk_test_pprof_load(path);

	memset(t, 0, sizeof(*t));
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

			if (!strcmp(nm, "Hot.leaf")) {
				good = fr[f].line >= o->leaf_min && fr[f].line <= o->leaf_max;
				t->leaf += w;
				if (fr[f].line >= o->loop_min && fr[f].line <= o->loop_max)
					t->loop += w;
			}
			else if (!strcmp(nm, "Hot.top") && f + 1 == nf)
				/* in top's own code, between its calls */
				good = fr[f].line >= o->top_min && fr[f].line <= o->top_max;
			else if (want)
				good = fr[f].line == want;
			else
				continue;	/* mid over the sort: that call's line */
			t->frames += w;
			t->ok += good ? w : 0;
			t->unknown += fr[f].line ? 0 : w;
			if (!good && strlen(t->bad) + 64 < sizeof(t->bad))
				snprintf(t->bad + strlen(t->bad), sizeof(t->bad) - strlen(t->bad),
					 " %s:%u", nm, fr[f].line);
		}
	}
	perftools__profiles__profile__free_unpacked(p, NULL);
}

/* The Java frames' lines in the pprof at PB (removed) against Java's own
 * view (java_oracle() by ARGV's JVM, the class files in FIX). Hot.leaf's
 * lines tell the sampled frame's bytecode from the one its frame last
 * saved (at its start, leaf's first line: a walk that reads only that
 * puts every sample there), so that most are in leaf's inner loop, where
 * it runs 24 steps of the generator for each value it stores. */
static void assert_lines(int version, const char *flag, const char *argv[], const char *fix,
			 const char *pb)
{
	struct java_lines o;
	struct line_tally t;

	java_oracle(argv, fix, &o);
	pprof_lines(pb, &o, &t);
	unlink(pb);
	fprintf(stderr, "hotspot_walk: JDK %d %s: Java says main:%u top:%u mid:%u leaf:%u "
		"(leaf's lines %u-%u); %lu of %lu chain frames at those lines, %lu of no line; "
		"%lu of %lu of Hot.leaf in its inner loop (%u-%u)\n", version, flag, o.main,
		o.top, o.mid, o.leaf, o.leaf_min, o.leaf_max, t.ok, t.frames, t.unknown, t.loop,
		t.leaf, o.loop_min, o.loop_max);
	/* main and top in each sample of the chain at least */
	ck_assert_uint_ge(t.frames, 2 * PK_WHOLE_MIN_SAMPLES);
	/* a compiled frame whose PC its nmethod's scopes do not cover is its
	 * method's, with no line (never another's): 1 in 500 at most */
	if (!strncmp(flag, "-Xint", 5) || t.unknown > t.frames / 500)
		ck_assert_msg(t.ok == t.frames, "JDK %d: %lu of %lu frames at other lines:%s",
			      version, t.frames - t.ok, t.frames, t.bad);
	else
		ck_assert_msg(t.ok + t.unknown == t.frames, "JDK %d: %lu of %lu frames at other "
			      "lines:%s", version, t.frames - t.ok, t.frames, t.bad);
	/* leaf's weight against the sort is the JIT's: with default flags,
	 * JDK 21's C2 left it 2-4% of the chain's samples (12 of 498), where
	 * JDK 17's gave it 35% as JFR does (hotspot_jvm's jfr case) */
	ck_assert_uint_ge(t.leaf, strncmp(flag, "-Dpk.mode=default", 17) ?
			  PK_WHOLE_MIN_SAMPLES / 4 : 1);
	/* compiled code has a scope (a bytecode index) at its calls and
	 * safepoints only: a PC is named by the next one's, as JFR's are */
	if (!strncmp(flag, "-Xint", 5))
		ck_assert_msg(t.loop >= 0.9 * t.leaf, "JDK %d: %lu of %lu Hot.leaf frames in its "
			      "inner loop (lines %u-%u)", version, t.loop, t.leaf, o.loop_min,
			      o.loop_max);
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
				read_extra, folded, &r);
	/* the JVM's main thread, whoever started it */
	c = pk_count_whole_in(&r.f, "java", in, chain);
	t = pk_count_whole_in(&r.f, "java", in, through);
	fprintf(stderr, "hotspot_walk: JDK %d %s: %lu samples in Hot.top, %lu whole through the "
		"JVM (%.1f%%), %lu the chain main;top;mid;leaf|sort (%.1f%%)\n", runs[_i].version,
		runs[_i].flag, t.total, t.whole, 100 * pk_tally_share(t), c.whole,
		100 * pk_tally_share(c));
	pk_print_user_stacks_line(runs[_i].flag, r.err);
	ck_assert_uint_ge(t.total, PK_WHOLE_MIN_SAMPLES);
	bad = pk_not_whole_text(&r.f, "java", in, chain, 5);
	ck_assert_msg(pk_tally_share(c) >= 0.99, "JDK %d %s: %lu of %lu whole:\n%s",
		      runs[_i].version, runs[_i].flag, c.whole, c.total, bad);
	ck_assert_msg(pk_tally_share(t) >= 0.99, "JDK %d %s: %lu of %lu whole through the JVM:\n%s",
		      runs[_i].version, runs[_i].flag, t.whole, t.total, bad);
	free(bad);
	assert_lines(runs[_i].version, runs[_i].flag, runs[_i].root ? rooted : host, fix, pb);
	pk_run_free(&r);
}
END_TEST

/* No "[java:0x...]" frame in the folded TEXT: the first such stacks in
 * the failure's message (check's messages are bounded). */
static void unnamed_java(const char *text)
{
	char lines[2048] = "";
	size_t len = 0;
	int n = 0;

	for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		size_t end = strcspn(l, "\n");
		const char *at = memmem(l, end, "[java:", 6);

		if (!at)
			continue;
		if (n++ < 3 && len < sizeof(lines))
			len += snprintf(lines + len, sizeof(lines) - len, "  %.*s\n",
					end > 600 ? 600 : (int)end, l);
	}
	ck_assert_msg(n == 0, "%d stacks with a Java frame not named, such as:\n%s", n, lines);
}

/* A JVM read after it exited: probe-load -- java ...; probe-read once it
 * is gone. Its Java frames are named, with their lines, from what the
 * kernel reported while it ran (the whole chain from start_thread, its
 * native frames named from the files of its root the session kept, is
 * printed: the walk's share is hot_chain's to assert). JDK 25 in its root,
 * 2.5 s of CPU, -Xint and default flags (its compiled frames' inlined
 * methods named from the nmethods' reports). */
static const char *const exited_modes[] = { "-Xint", "-Dpk.mode=default" };

START_TEST(test_hot_exited)
{
	char fix[4096], in_root[4096], root[4096], pb[4096], folded[4096], perf[4096], mode[64];
	const char *argv[] = { in_root, "-o", fix, root,
			       "/usr/lib/jvm/java-25-openjdk-amd64/bin/java", exited_modes[_i],
			       "-cp", "/mnt/out", "Hot", "2.5", NULL };
	const char *load[] = { "-F", PK_WHOLE_FREQ, "--", argv[0], argv[1], argv[2], argv[3],
			       argv[4], argv[5], argv[6], argv[7], argv[8], argv[9], NULL };
	const char *rd[] = { "-d", "1", "-f", "folded", "-o", folded, "-f", "pprof", "-o", pb,
			     "-f", "perf", "-o", perf, NULL };
	/* its Java frames named, whatever the native ones below: down to
	 * leaf or the sort, or ending in top's or mid's own code */
	const char *const named[] = {
		"~*;Hot.main;Hot.top;Hot.mid;Hot.leaf|java.util.Arrays.sort;~*|K",
		"~*;Hot.main;Hot.top;%Hot.mid;~K", NULL };
	struct pk_folded f;
	struct pk_tally c, n;
	char *out = NULL, *err = NULL, *text, *ptext, *bad;
	int rc;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	pk_test_roots_path("sid", root, sizeof(root));
	snprintf(pb, sizeof(pb), "%s", pk_test_path_in(pk_test_cache_dir(), "exited.pb"));
	snprintf(folded, sizeof(folded), "%s",
		 pk_test_path_in(pk_test_cache_dir(), "exited.folded"));
	snprintf(perf, sizeof(perf), "%s", pk_test_path_in(pk_test_cache_dir(), "exited.perf"));
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
	fprintf(stderr, "hotspot_walk: JDK 25 %s read after its exit: %lu samples in Hot.top, "
		"%lu with the Java chain named (%.1f%%), %lu the whole chain from start_thread "
		"(%.1f%%)\n", exited_modes[_i], n.total, n.whole, 100 * pk_tally_share(n), c.whole,
		100 * pk_tally_share(c));
	ck_assert_uint_ge(n.total, PK_WHOLE_MIN_SAMPLES);
	bad = pk_not_whole_text(&f, "java", in, named, 5);
	if (n.whole < n.total)
		fprintf(stderr, "  not named:\n%s", bad);
	ck_assert_msg(pk_tally_share(n) >= 0.99, "read after exit: %lu of %lu named:\n%s",
		      n.whole, n.total, bad);
	free(bad);
	unnamed_java(text);
	/* perf text: each a line of its own, "ADDR Hot.top ([java])" */
	ptext = pk_test_read_file(perf, NULL);
	ck_assert_ptr_nonnull(ptext);
	unlink(perf);
	n.whole = 0;
	for (const char *l = ptext; (l = strstr(l, " Hot.top ([java])\n")); l++)
		n.whole++;
	fprintf(stderr, "hotspot_walk: perf text: %lu frames of Hot.top in [java]\n", n.whole);
	ck_assert_uint_ge(n.whole, n.total);
	free(ptext);
	snprintf(mode, sizeof(mode), "%s, read after its exit", exited_modes[_i]);
	assert_lines(25, mode, argv, fix, pb);
	pk_folded_free(&f);
	free(text);
	free(out);
	free(err);
}
END_TEST

/* JDK 17 as a copy of its own at DIR: bin/java and lib/server/libjvm.so
 * copied, the rest links to the JDK (the launcher finds its libraries
 * from its own path). */
#define JDK17_HOME	"/usr/lib/jvm/java-17-openjdk-amd64"

/* Links in DIR to each entry of FROM but SKIP. */
static void link_all(const char *from, const char *dir, const char *skip)
{
	char src[4096], dst[4096];
	struct dirent *e;
	DIR *d = opendir(from);

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, skip))
			continue;
		snprintf(src, sizeof(src), "%s/%s", from, e->d_name);
		snprintf(dst, sizeof(dst), "%s/%s", dir, e->d_name);
		ck_assert_int_eq(symlink(src, dst), 0);
	}
	closedir(d);
}

/* Remove DIR's entries (links and files) and DIR. */
static void remove_dir(const char *dir)
{
	char path[4096];
	struct dirent *e;
	DIR *d = opendir(dir);

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		ck_assert_int_eq(unlink(path), 0);
	}
	closedir(d);
	ck_assert_int_eq(rmdir(dir), 0);
}

/*
 * A HotSpot the walk cannot read: JDK 17 with a libjvm whose vmStructs
 * name CodeBlob's _frame_complete_offset otherwise (the one string of
 * it in .rodata changed: the tables describe it no more, the JVM runs as
 * before). probe-load -- its java -Xint Hot (2 s of CPU): one line, from
 * whichever tool loaded libjvm's table, names the file and what is
 * missing; its samples keep their native frames, from start_thread to
 * the JVM's call into Java, and have no Java frame.
 */
START_TEST(test_unreadable_jvm)
{
	static const char field[] = "_frame_complete_offset";
	char home[2048], bin[4096], lib[4096], server[4096], java[4096], jvm[4096], fix[4096];
	char want[8192], *data, *at, *load_err = NULL, *out = NULL, *err = NULL;
	const char *argv[] = { "-F", PK_WHOLE_FREQ, "--", java, "-Xint", "-cp", fix, "Hot", "2",
			       NULL };
	const char *rd[] = { "-d", "300", NULL };
	const char *native[] = { "clone3|[];start_thread|[];ThreadJavaMain;JavaMain;+*;"
				 "JavaCalls::call_helper*;~*|K", NULL };
	struct pk_folded f;
	struct pk_tally t;
	size_t len;
	int fd, rc, lines = 0;

	pk_test_build_path("fixtures_java", fix, sizeof(fix));
	snprintf(home, sizeof(home), "%s", pk_test_path_in(pk_test_cache_dir(), "jdk-XXXXXX"));
	ck_assert_ptr_nonnull(mkdtemp(home));
	snprintf(bin, sizeof(bin), "%s/bin", home);
	snprintf(lib, sizeof(lib), "%s/lib", home);
	snprintf(server, sizeof(server), "%s/lib/server", home);
	snprintf(java, sizeof(java), "%s/bin/java", home);
	snprintf(jvm, sizeof(jvm), "%s/lib/server/libjvm.so", home);
	link_all(JDK17_HOME, home, "bin");
	/* lib and lib/server are directories of their own */
	ck_assert_int_eq(unlink(lib), 0);
	ck_assert_int_eq(mkdir(bin, 0755), 0);
	ck_assert_int_eq(mkdir(lib, 0755), 0);
	ck_assert_int_eq(mkdir(server, 0755), 0);
	pk_test_copy_file(JDK17_HOME "/bin/java", java, 0755);
	link_all(JDK17_HOME "/lib", lib, "server");
	link_all(JDK17_HOME "/lib/server", server, "libjvm.so");
	data = pk_test_read_file(JDK17_HOME "/lib/server/libjvm.so", &len);
	ck_assert_ptr_nonnull(data);
	at = memmem(data, len, "\0_frame_complete_offset\0", sizeof(field) + 1);
	ck_assert_ptr_nonnull(at);
	ck_assert_ptr_null(memmem(at + 1, len - (at + 1 - data), "\0_frame_complete_offset\0",
				  sizeof(field) + 1));
	at[sizeof(field) - 1] = 'X';
	fd = open(jvm, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(data);

	ck_assert_int_eq(pk_e2e_load_err(argv, &load_err), 0);
	rc = pk_e2e_read(rd, &out, &err);
	ck_assert_msg(rc == 0, "probe-read exited %d: %s", rc, err);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(5), 0);
	free(load_err);
	load_err = pk_e2e_load_log();
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_e2e_parse_folded(out, &f);
	snprintf(want, sizeof(want), "%s: a HotSpot JVM the walk cannot read (HotSpot describes "
		 "no CodeBlob._frame_complete_offset): native frames only\n", jvm);
	for (const char *txt[] = { load_err ? load_err : "", err, NULL }, **p = txt; *p; p++)
		for (const char *l = *p; (l = strstr(l, "the walk cannot read")); l++)
			lines++;
	t = pk_count_whole(&f, "java", native);
	fprintf(stderr, "hotspot_walk: unreadable JVM: %d line(s) of it; %lu samples of java, "
		"%lu with native frames from start_thread to JavaCalls::call_helper\n", lines,
		t.total, t.whole);
	ck_assert_msg(lines == 1, "%d lines about the JVM:\n%s\n%s", lines, load_err, err);
	ck_assert_msg(strstr(load_err ? load_err : "", want) || strstr(err, want),
		      "no '%s' in:\n%s\n%s", want, load_err, err);
	ck_assert_uint_ge(t.whole, PK_WHOLE_MIN_SAMPLES);
	ck_assert_msg(!strstr(out, ";Hot.") && !strstr(out, "[java:"), "Java frames:\n%s", out);
	pk_folded_free(&f);
	free(load_err);
	free(out);
	free(err);
	remove_dir(server);
	remove_dir(lib);
	remove_dir(bin);
	remove_dir(home);
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
	tcase_add_loop_test(tc, test_hot_exited, 0,
			    sizeof(exited_modes) / sizeof(exited_modes[0]));
	suite_add_tcase(s, tc);
	tc = tcase_create("unreadable");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_unreadable_jvm);
	suite_add_tcase(s, tc);
	return s;
}
