// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The Java walk (bpf/hotspot_walk.bpf.h, the symbolizer's Java frames)
 * against the JVM's own view of its threads, Debian 12's OpenJDK 17 on the
 * host:
 *
 * - JFR, the JVM's sampler: the Hot fixture (tests/fixtures/java/Hot.java)
 *   recorded by JFR (-XX:StartFlightRecording, method-profiling=max: a
 *   sample a millisecond) and profiled by probekit at 999 Hz, one run.
 *   In the main thread, the share of Hot.leaf against the sort
 *   (java.util.Arrays.sort and what it calls) under Hot.main;Hot.top;
 *   Hot.mid is JFR's within 0.05. The run is -Xint: compiled code inlines
 *   leaf and the sort into top, whose inlined methods the walk does not
 *   expand yet, where JFR names them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/oracles.h"
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

START_TEST(test_jfr_leaf_share)
{
	char fix[4096], dir[4096], rec[4200], start[4300], *out = NULL, *err = NULL;
	char *jtext = NULL;
	const char *load[] = { "-F", "999", "--", JDK17_HOME "/bin/java", start, "-Xint", "-cp",
			       fix, "Hot", "3", NULL };
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
	fprintf(stderr, "hotspot_jvm: JDK 17 -Xint, Hot.leaf against the sort in the main thread: "
		"probekit %.3f (%lu leaf, %lu sort of %lu in mid), JFR %.3f (%lu leaf, %lu sort of "
		"%lu in mid), difference %.3f\n", p.share, p.leaf, p.sort, p.mid, j.share, j.leaf,
		j.sort, j.mid, p.share - j.share);
	pk_print_user_stacks_line("-Xint with JFR", err);
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

Suite *suite_hotspot_jvm(void)
{
	Suite *s = suite_create("hotspot_jvm");
	TCase *tc;

	if (!pk_test_need_root(s, "profiling loads BPF"))
		return s;
	tc = tcase_create("jfr");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_jfr_leaf_share);
	suite_add_tcase(s, tc);
	return s;
}
