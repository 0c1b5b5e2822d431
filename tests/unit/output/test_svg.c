// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/svg_oracle.h"
#include "harness/synth_profile.h"
#include "output/folded.h"
#include "output/svg.h"
#include "test_util.h"

/* P written as svg into a file of its own (path in PATH) and as folded. */
static char *write_both(const struct pk_profile *p, char path[64], char **folded)
{
	char *svg;
	int ret, fd;

	svg = pk_synth_write(pk_svg_write, p, &ret);
	ck_assert_int_eq(ret, 0);
	*folded = pk_synth_write(pk_folded_write, p, &ret);
	ck_assert_int_eq(ret, 0);
	strcpy(path, "/tmp/pk-svg-XXXXXX.svg");
	fd = mkstemps(path, 4);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, svg, strlen(svg)), (ssize_t)strlen(svg));
	close(fd);
	return svg;
}

static unsigned long long folded_total(const char *folded)
{
	unsigned long long total = 0;

	for (const char *l = folded; *l;) {
		size_t len = strcspn(l, "\n");
		const char *sp = memrchr(l, ' ', len);

		ck_assert_ptr_nonnull(sp);
		total += strtoull(sp + 1, NULL, 10);
		l += len + (l[len] == '\n');
	}
	return total;
}

/* Every grouping, with and without lines: the frames Python's XML parser
 * reads are the folded stacks', names with quotes, '<'-free C++, control
 * characters, ';' and non-ASCII UTF-8 included; "helper", inlined into
 * "compute", is an inlined frame; kernel frames are kernel frames. */
START_TEST(test_frames_are_folded)
{
	static const enum pk_group groups[] = { PK_GROUP_NONE, PK_GROUP_PID, PK_GROUP_TID,
						PK_GROUP_CPU };
	struct pk_profile p = pk_synth_profile(groups[_i / 2], _i % 2);
	char path[64], *folded, *frames, *svg = write_both(&p, path, &folded);
	int ret = pk_test_svg_assert_folded(path, folded, &frames);

	if (!pk_test_oracle_missing(ret, "xmllint or /usr/bin/python3")) {
		ck_assert_int_eq(ret, 0);
		size_t helpers = 0;

		for (char *l = frames; *l; l += strcspn(l, "\n") + 1) {
			size_t len = strcspn(l, "\n");
			const char *leaf = memrchr(l, ';', len);

			/* "helper", or with lines "helper (helper.h:12)" */
			if (leaf && !strncmp(leaf, ";helper", 7) && strchr("\n (", leaf[7])) {
				ck_assert_msg(l[0] == 'i', "helper not inlined: %.*s", (int)len, l);
				helpers++;
			}
		}
		ck_assert_uint_gt(helpers, 0);
		ck_assert_ptr_nonnull(strstr(frames, "\nk "));
	}
	free(frames);
	unlink(path);
	free(svg);
	free(folded);
}
END_TEST

/* Python frames are drawn as folded names them. */
START_TEST(test_python)
{
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	char path[64], *folded, *frames = NULL, *svg = write_both(&p, path, &folded);
	int ret = pk_test_svg_assert_folded(path, folded, &frames);

	if (!pk_test_oracle_missing(ret, "xmllint or /usr/bin/python3")) {
		ck_assert_int_eq(ret, 0);
		ck_assert_msg(strstr(frames, ";Job.run (job.py:12)"), "%s", frames);
		ck_assert_msg(strstr(frames, ";<module> (other.py:1);"), "%s", frames);
	}
	free(frames);
	unlink(path);
	free(svg);
	free(folded);
}
END_TEST

/* The kind of the frame at PATH in svg_check.py's FRAMES ("KIND R,G,B
 * COUNT PATH" lines); 0: none. */
static char frame_kind(const char *frames, const char *path)
{
	for (const char *l = frames; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] == '\n')) {
		size_t len = strcspn(l, "\n"), plen = strlen(path);

		if (len > plen && l[len - plen - 1] == ' ' && !strncmp(l + len - plen, path, plen))
			return l[0];
	}
	return 0;
}

/* --per-cgroup: the cgroup's path is a root above the process's (and the
 * CPU's), drawn as folded names it; the subtitle says so. */
START_TEST(test_per_cgroup)
{
	static const enum pk_group groups[] = { PK_GROUP_NONE, PK_GROUP_CPU };
	struct pk_profile p = pk_synth_cgroup_profile(groups[_i], true);
	char path[64], *folded, *frames = NULL, *svg = write_both(&p, path, &folded);
	int ret = pk_test_svg_assert_folded(path, folded, &frames);

	ck_assert_ptr_nonnull(strstr(svg, ", a root per cgroup</text>"));
	ck_assert_ptr_nonnull(strstr(folded, "/user.slice;"));
	if (!pk_test_oracle_missing(ret, "xmllint or /usr/bin/python3")) {
		ck_assert_int_eq(ret, 0);
		ck_assert_msg(strstr(frames, "cgroup:30"), "%s", frames);
		/* the process's frame below the cgroup's is a root too */
		ck_assert_msg(frame_kind(frames, _i ? "/user.slice;cpu-1;svc" : "/user.slice;svc") == 'r',
			      "%s", frames);
		ck_assert_msg(frame_kind(frames, _i ? "/user.slice;cpu-1;svc;__libc_start_call_main" :
					 "/user.slice;svc;__libc_start_call_main") == 'u',
			      "%s", frames);
	}
	free(frames);
	unlink(path);
	free(svg);
	free(folded);
}
END_TEST

/* The same profile gives the same bytes: colours come from names, not
 * from chance, so that two graphs compare. */
START_TEST(test_deterministic)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_TID, true);
	int ret;
	char *a = pk_synth_write(pk_svg_write, &p, &ret), *b;

	ck_assert_int_eq(ret, 0);
	b = pk_synth_write(pk_svg_write, &p, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_str_eq(a, b);
	ck_assert_ptr_nonnull(strstr(a, ">Flame Graph</text>"));
	free(a);
	free(b);
	p.title = "CPU of <my app> & co";
	a = pk_synth_write(pk_svg_write, &p, &ret);
	ck_assert_int_eq(ret, 0);
	ck_assert_ptr_nonnull(strstr(a, ">CPU of &lt;my app&gt; &amp; co</text>"));
	free(a);
}
END_TEST

/* Off-CPU frames count microseconds, as folded lines do; several events
 * in one graph are refused, as in folded. */
START_TEST(test_events)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false), one;
	struct pk_sample_view *v;
	char path[64], *folded, *svg, *frames, want[64];
	int ret;

	svg = pk_synth_write(pk_svg_write, &p, &ret);
	ck_assert_int_eq(ret, -EINVAL);
	free(svg);
	ck_assert_int_eq(pk_profile_select_event(&p, PK_SYNTH_OFFCPU, &one, &v), 0);
	svg = write_both(&one, path, &folded);
	ck_assert_ptr_nonnull(strstr(svg, "data-unit=\"us\""));
	snprintf(want, sizeof(want), ">off-cpu: %llu us", folded_total(folded));
	ck_assert_ptr_nonnull(strstr(svg, want));
	ret = pk_test_svg_assert_folded(path, folded, &frames);
	if (!pk_test_oracle_missing(ret, "xmllint or /usr/bin/python3"))
		ck_assert_int_eq(ret, 0);
	unlink(path);
	free(frames);
	free(svg);
	free(folded);
	free(v);
}
END_TEST

/* No samples: a valid SVG that says so, with no script to run. */
START_TEST(test_empty)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char path[64], *folded, *svg;
	char err[PK_ORACLE_ERR_LEN];
	int ret;

	p.nsamples = 0;
	svg = write_both(&p, path, &folded);
	ck_assert_str_eq(folded, "");
	ck_assert_ptr_nonnull(strstr(svg, ">no samples</text>"));
	ck_assert_ptr_null(strstr(svg, "<script"));
	ret = pk_test_xmllint(path, err);
	if (!pk_test_oracle_missing(ret, "xmllint"))
		ck_assert_msg(ret == 0, "xmllint: %s", err);
	unlink(path);
	free(svg);
	free(folded);
}
END_TEST

/* The embedded script is JavaScript Node can parse. */
START_TEST(test_script_parses)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	char js[] = "/tmp/pk-svg-XXXXXX.js", *svg, *start, *end, *err = NULL;
	char *argv[] = { "node", "--check", js, NULL };
	int ret, fd, st;

	svg = pk_synth_write(pk_svg_write, &p, &ret);
	ck_assert_int_eq(ret, 0);
	start = strstr(svg, "<![CDATA[");
	end = strstr(svg, "]]></script>");
	ck_assert_ptr_nonnull(start);
	ck_assert_ptr_nonnull(end);
	start += strlen("<![CDATA[");
	fd = mkstemps(js, 3);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, start, end - start), end - start);
	close(fd);
	st = pk_test_run(argv, NULL, &err);
	unlink(js);
	if (!pk_test_oracle_missing(WIFEXITED(st) && WEXITSTATUS(st) == 127 ? -ENOENT : 0,
				    "node"))
		ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "node --check: %s", err);
	free(err);
	free(svg);
}
END_TEST

START_TEST(test_write_error)
{
	struct pk_profile p = pk_synth_profile(PK_GROUP_NONE, false);
	FILE *f = fopen("/dev/full", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_svg_write(f, &p), -EIO);
	fclose(f);
}
END_TEST

Suite *suite_svg(void)
{
	Suite *s = suite_create("svg");
	TCase *tc = tcase_create("frames");

	tcase_add_loop_test(tc, test_frames_are_folded, 0, 8);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_empty);
	suite_add_tcase(s, tc);
	tc = tcase_create("file");
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_python);
	tcase_add_loop_test(tc, test_per_cgroup, 0, 2);
	tcase_add_test(tc, test_script_parses);
	tcase_add_test(tc, test_write_error);
	suite_add_tcase(s, tc);
	return s;
}
