// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, probe-read -f svg on real profiles, written in the same read
 * as the folded stacks: the file is XML to xmllint and to Python's parser,
 * its frames and counts are the folded lines' summed per frame path
 * (tests/harness/svg_oracle.h), headless Chromium draws it (a screenshot
 * kept as $PROBEKIT_BUILD/tests/svg_e2e.png) and runs its script: a search
 * matches the share of samples the folded lines give, a zoom spreads one
 * frame over the width and hides what is not above or below it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/svg_oracle.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define FREQ_STR	"199"
#define SHOT_W		1200
#define SHOT_H		800
/* a box placed as its samples say, to the 0.1 px the file is written in */
#define NEAR(a, b)	((a) - (b) < 0.06 && (b) - (a) < 0.06)

/* The samples of the folded TEXT (sum of its counts), and those of the
 * lines with a frame called NAME. */
static void folded_share(const char *text, const char *name, unsigned long long *total,
			 unsigned long long *with)
{
	size_t nlen = strlen(name);

	*total = *with = 0;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		const char *sp = memrchr(l, ' ', len);
		unsigned long long n;
		bool hit = false;

		ck_assert_ptr_nonnull(sp);
		n = strtoull(sp + 1, NULL, 10);
		for (const char *f = l; f < sp; f += strcspn(f, ";") + 1)
			hit |= (size_t)(sp - f) >= nlen && !strncmp(f, name, nlen) &&
			       (f[nlen] == ';' || f + nlen == sp);
		*total += n;
		*with += hit ? n : 0;
		l += len + (l[len] == '\n');
	}
}

/* One frame of the DOM Chromium dumped: its row, samples and box. */
struct dom_frame {
	unsigned long d, x, n;
	double rx, rw;
	bool hidden, caller;
};

static bool dom_frame(const char *line, struct dom_frame *f)
{
	const char *rect = strstr(line, "<rect ");

	memset(f, 0, sizeof(*f));
	if (strncmp(line, "<g class=", 9) || !rect ||
	    sscanf(strstr(line, "data-d="), "data-d=\"%lu\" data-x=\"%lu\" data-n=\"%lu\"", &f->d,
		   &f->x, &f->n) != 3 ||
	    sscanf(rect, "<rect x=\"%lf\" y=\"%*f\" width=\"%lf\"", &f->rx, &f->rw) != 2)
		return false;
	f->hidden = strstr(line, "display: none") && strstr(line, "display: none") < rect;
	f->caller = !strncmp(line, "<g class=\"caller", 16) || strstr(line, " caller\"");
	return true;
}

/* The widest frame of the SVG text past row 2 with a callee and at most
 * half the samples (so that a zoom into it hides frames): row, first
 * sample and samples in *ZD, *ZX, *ZN; and how many frames are it and its
 * callees, what a zoom into it shows above its callers. */
static unsigned long zoom_target(const char *svg, unsigned long *zd, unsigned long *zx,
				 unsigned long *zn)
{
	struct dom_frame *v = NULL, f;
	size_t n = 0, cap = 0;
	unsigned long above = 0, total = 0;
	char *text = strdup(svg), *save = NULL;

	ck_assert_ptr_nonnull(text);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!dom_frame(l, &f))
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 256;
			v = pk_test_grow(v, cap, sizeof(*v));
			ck_assert_ptr_nonnull(v);
		}
		v[n++] = f;
	}
	*zn = 0;
	for (size_t i = 0; i < n; i++)
		total = v[i].n > total ? v[i].n : total;
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n && v[i].d > 2 && v[i].n > *zn && v[i].n <= total / 2; j++)
			if (v[j].d == v[i].d + 1 && v[j].x >= v[i].x && v[j].x < v[i].x + v[i].n) {
				*zd = v[i].d, *zx = v[i].x, *zn = v[i].n;
				break;
			}
	ck_assert_uint_gt(*zn, 0);
	for (size_t i = 0; i < n; i++)
		above += v[i].d >= *zd && v[i].x >= *zx && v[i].x + v[i].n <= *zx + *zn;
	free(v);
	free(text);
	return above;
}

/* Chromium's reading of the graph: the search of "compare" matches what
 * the folded lines through it hold, and zoomed into a frame with callees,
 * that frame and its callees fill the width, the frames below it are
 * faded callers, the others hidden. */
static void check_script(const char *svg_path, const char *svg, const char *folded)
{
	char frag[128], err[PK_ORACLE_ERR_LEN], want[64], *dom = NULL, *save = NULL;
	unsigned long long total, with;
	unsigned long inside = 0, callers = 0, hidden = 0, zd = 0, zx = 0, zn = 0;
	unsigned long above = zoom_target(svg, &zd, &zx, &zn);
	int ret;

	snprintf(frag, sizeof(frag), "s=%%5Ecompare%%24&z=%lu:%lu", zd, zx);
	ret = pk_test_svg_dom(svg_path, frag, &dom, err);
	if (pk_test_oracle_missing(ret, "chromium"))
		return;
	ck_assert_msg(ret == 0, "chromium --dump-dom: %s", err);
	folded_share(folded, "compare", &total, &with);
	ck_assert_uint_gt(with, 0);
	snprintf(want, sizeof(want), ">Matched: %.2f%%<", 100.0 * with / total);
	ck_assert_msg(strstr(dom, want), "no '%s' in the DOM", want);
	for (char *l = strtok_r(dom, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		struct dom_frame f;
		bool in, below;

		if (!dom_frame(l, &f))
			continue;
		in = f.d >= zd && f.x >= zx && f.x + f.n <= zx + zn;
		below = f.d < zd && f.x <= zx && f.x + f.n >= zx + zn;
		ck_assert_msg(f.hidden == !(in || below), "frame %lu:%lu+%lu hidden %d", f.d, f.x,
			      f.n, f.hidden);
		ck_assert_msg(f.caller == below, "frame %lu:%lu+%lu caller %d", f.d, f.x, f.n,
			      f.caller);
		if (in) {
			double scale = (SHOT_W - 20.0) / zn;

			ck_assert_msg(NEAR(f.rx, 10 + (f.x - zx) * scale) && NEAR(f.rw, f.n * scale),
				      "frame %lu:%lu+%lu at %.1f, %.1f wide", f.d, f.x, f.n, f.rx, f.rw);
			inside++;
		}
		if (below) {
			ck_assert(f.rx == 10 && f.rw == SHOT_W - 20);
			callers++;
		}
		hidden += f.hidden;
	}
	ck_assert_uint_eq(callers, zd);
	ck_assert_uint_eq(inside, above);
	ck_assert_uint_gt(inside, 1);
	ck_assert_uint_gt(hidden, 0);
	fprintf(stderr, "svg script: Matched %.2f%%, zoomed into %lu:%lu: %lu frames above, %lu below, %lu hidden\n",
		100.0 * with / total, zd, zx, inside, callers, hidden);
	free(dom);
}

/* A profile of FIXTURE (without frame pointers) read once as folded
 * stacks and as svg, with the options OPT (NULL-terminated, 2 at most):
 * the files' texts in *FOLDED and *SVG (malloc'ed), the svg's path in
 * SVG_PATH, a temporary file the caller removes. */
static void read_both(const char *fixture, const char *const opt[], char **folded, char **svg,
		      char svg_path[64])
{
	char dir[] = "/tmp/pk-svg-XXXXXX", path[4096], folded_path[64];
	char *out = NULL, *err = NULL;
	const char *load[] = { "-F", FREQ_STR, "--", path, "2", NULL };
	const char *read[] = { "-d", "60", "-f", "folded", "-o", folded_path, "-f", "svg", "-o",
			       svg_path, opt[0], opt[0] ? opt[1] : NULL, NULL };
	struct pk_e2e_summary sum;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	pk_e2e_fixture_nofp(fixture, path, sizeof(path));
	snprintf(folded_path, 64, "%s/cpu.folded", dir);
	snprintf(svg_path, 64, "%s.svg", dir);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_str_eq(out, "");
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary: %s", err);
	ck_assert_uint_ge(sum.read, 100);
	*folded = pk_test_read_file(folded_path, NULL);
	*svg = pk_test_read_file(svg_path, NULL);
	ck_assert_ptr_nonnull(*folded);
	ck_assert_ptr_nonnull(*svg);
	unlink(folded_path);
	ck_assert_int_eq(rmdir(dir), 0);
	free(out);
	free(err);
}

START_TEST(test_svg_is_folded)
{
	const char *opt[] = { "--title", "qsort <msort> & co", NULL };
	char svg_path[64], png[4096], err[PK_ORACLE_ERR_LEN], *folded, *svg;
	unsigned long warm;
	int ret;

	read_both("qsort-gcc-pie", opt, &folded, &svg, svg_path);
	ck_assert_ptr_nonnull(strstr(svg, ">qsort &lt;msort&gt; &amp; co</text>"));
	ret = pk_test_svg_assert_folded(svg_path, folded, NULL);
	if (!pk_test_oracle_missing(ret, "xmllint or /usr/bin/python3"))
		ck_assert_int_eq(ret, 0);

	pk_test_build_path("tests/svg_e2e.png", png, sizeof(png));
	ret = pk_test_svg_screenshot(svg_path, png, SHOT_W, SHOT_H, &warm, err);
	if (!pk_test_oracle_missing(ret, "chromium")) {
		ck_assert_msg(ret == 0, "screenshot: %s", err);
		/* the graph's user frames cover a good part of the picture;
		 * a blank page, or the SVG's source as text, has none */
		ck_assert_msg(warm > SHOT_W * SHOT_H / 50, "%lu warm pixels in %s", warm, png);
		fprintf(stderr, "svg screenshot: %s (%lu of %d pixels in the user palette)\n", png,
			warm, SHOT_W * SHOT_H);
	}

	check_script(svg_path, svg, folded);
	unlink(svg_path);
	free(folded);
	free(svg);
}
END_TEST

/* --per-tid: a root per thread, comm-PID/TID, as in the folded lines. */
START_TEST(test_svg_per_tid)
{
	const char *opt[] = { "--per-tid", NULL };
	char svg_path[64], *folded, *svg, *frames = NULL;
	size_t roots = 0;
	int ret;

	read_both("threads-gcc-pie", opt, &folded, &svg, svg_path);
	ret = pk_test_svg_assert_folded(svg_path, folded, &frames);
	if (!pk_test_oracle_missing(ret, "xmllint or /usr/bin/python3")) {
		ck_assert_int_eq(ret, 0);
		/* roots are lines "r R,G,B COUNT threads-gcc-pie-PID/TID" */
		for (char *l = frames; *l; l += strcspn(l, "\n") + (l[strcspn(l, "\n")] != 0)) {
			size_t len = strcspn(l, "\n");

			if (l[0] == 'r' && !memchr(l, ';', len)) {
				ck_assert_msg(memmem(l, len, " threads-gcc-pie-", 17) && memchr(l, '/', len),
					      "root %.*s", (int)len, l);
				roots++;
			}
		}
		ck_assert_uint_gt(roots, 1);
	}
	unlink(svg_path);
	free(frames);
	free(folded);
	free(svg);
}
END_TEST

Suite *suite_svg_e2e(void)
{
	Suite *s = suite_create("svg_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "flame_graph", 120);
	tcase_add_test(tc, test_svg_is_folded);
	tcase_add_test(tc, test_svg_per_tid);
	return s;
}
