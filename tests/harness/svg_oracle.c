// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/svg_oracle.h"
#include "test_util.h"

/* Debian's interpreter (the python3 first on PATH may be another one). */
#define PYTHON		"/usr/bin/python3"
#define XMLLINT		"/usr/bin/xmllint"
#define CHROMIUM	"/usr/bin/chromium"

static void first_line(const char *text, char err[PK_ORACLE_ERR_LEN])
{
	size_t n = text ? strcspn(text, "\n") : 0;

	if (n >= PK_ORACLE_ERR_LEN)
		n = PK_ORACLE_ERR_LEN - 1;
	memcpy(err, text ? text : "", n);
	err[n] = '\0';
}

/* ARGV's output in *OUT (NULL: dropped); BAD is the exit status that
 * means the file is bad. */
static int run_tool(char *const argv[], int bad, char **out, char err[PK_ORACLE_ERR_LEN])
{
	char *text = NULL, *errtext = NULL;
	int st, ret = 0;

	err[0] = '\0';
	if (out)
		*out = NULL;
	if (access(argv[0], X_OK))
		return -ENOENT;
	st = pk_test_run(argv, &text, &errtext);
	st = st >= 0 && WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (st == 0 && out) {
		*out = text;
		text = NULL;
	} else if (st == bad) {
		first_line(errtext, err);
		ret = -EBADMSG;
	} else if (st) {
		first_line(errtext && errtext[0] ? errtext : text, err);
		ret = st == 2 ? -EIO : -EPROTO;
	}
	free(text);
	free(errtext);
	return ret;
}

int pk_test_xmllint(const char *path, char err[PK_ORACLE_ERR_LEN])
{
	char *argv[] = { XMLLINT, "--noout", (char *)path, NULL };

	/* 1: not well-formed; the others are usage or I/O */
	return run_tool(argv, 1, NULL, err);
}

static int svg_check(const char *what, const char *path, char **out, char err[PK_ORACLE_ERR_LEN])
{
	char script[512];
	char *argv[] = { PYTHON, script, (char *)what, (char *)path, NULL };

	pk_test_src_path("tests/oracles/svg_check.py", script, sizeof(script));
	return run_tool(argv, 4, out, err);
}

int pk_test_svg_frames(const char *path, char **out, char err[PK_ORACLE_ERR_LEN])
{
	return svg_check("frames", path, out, err);
}

/* Chromium's arguments for a headless run as root, on a machine without a
 * GPU or a user profile of its own. */
#define CHROMIUM_ARGS CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", \
	"--hide-scrollbars", "--no-first-run"

int pk_test_svg_screenshot(const char *svg_path, const char *png_path, int width, int height,
			   unsigned long *warm, char err[PK_ORACLE_ERR_LEN])
{
	char dir[] = "/tmp/pk-chromium-XXXXXX", shot[4200], size[64], url[4200], udd[64];
	char *argv[] = { CHROMIUM_ARGS, udd, shot, size, url, NULL };
	char *out = NULL;
	int w, h, ret;

	if (access(CHROMIUM, X_OK))
		return -ENOENT;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(udd, sizeof(udd), "--user-data-dir=%s", dir);
	snprintf(shot, sizeof(shot), "--screenshot=%s", png_path);
	snprintf(size, sizeof(size), "--window-size=%d,%d", width, height);
	snprintf(url, sizeof(url), "file://%s", svg_path);
	unlink(png_path);
	ret = run_tool(argv, -2, NULL, err);
	pk_test_run((char *[]){ "rm", "-rf", dir, NULL }, NULL, NULL);
	if (ret)
		return ret;
	if (access(png_path, R_OK)) {
		snprintf(err, PK_ORACLE_ERR_LEN, "chromium wrote no %s", png_path);
		return -EBADMSG;
	}
	ret = svg_check("png", png_path, &out, err);
	if (!ret && sscanf(out, "%d %d %lu", &w, &h, warm) != 3)
		ret = -EPROTO;
	if (!ret && (w != width || h != height)) {
		snprintf(err, PK_ORACLE_ERR_LEN, "screenshot %dx%d, not %dx%d", w, h, width, height);
		ret = -EBADMSG;
	}
	free(out);
	return ret;
}

int pk_test_svg_dom(const char *svg_path, const char *fragment, char **out,
		    char err[PK_ORACLE_ERR_LEN])
{
	char dir[] = "/tmp/pk-chromium-XXXXXX", url[4200], udd[64];
	char *argv[] = { CHROMIUM_ARGS, udd, "--dump-dom", url, NULL };
	int ret;

	*out = NULL;
	if (access(CHROMIUM, X_OK))
		return -ENOENT;
	if (!mkdtemp(dir))
		return -errno;
	snprintf(udd, sizeof(udd), "--user-data-dir=%s", dir);
	snprintf(url, sizeof(url), "file://%s%s%s", svg_path, fragment ? "#" : "",
		 fragment ? fragment : "");
	ret = run_tool(argv, -2, out, err);
	pk_test_run((char *[]){ "rm", "-rf", dir, NULL }, NULL, NULL);
	return ret;
}

struct path_count {
	char *path;
	unsigned long long n;
	char kind;
	int rgb[3];
};

static int cmp_path(const void *a, const void *b)
{
	return strcmp(((const struct path_count *)a)->path, ((const struct path_count *)b)->path);
}

static void push(struct path_count **v, size_t *n, size_t *cap, struct path_count pc)
{
	if (*n == *cap) {
		*cap = *cap ? 2 * *cap : 256;
		*v = pk_test_grow(*v, *cap, sizeof(**v));
		ck_assert_ptr_nonnull(*v);
	}
	(*v)[(*n)++] = pc;
}

/* Every path from a root of the folded TEXT with the count of the lines
 * through it, sorted, merged, without those of no count. */
static size_t folded_paths(const char *text, struct path_count **out)
{
	struct path_count *v = NULL;
	size_t n = 0, cap = 0, m = 0;

	for (const char *line = text; *line;) {
		size_t len = strcspn(line, "\n");
		const char *sp = memrchr(line, ' ', len);
		unsigned long long count;

		ck_assert_msg(sp, "folded line without a count: %.*s", (int)len, line);
		count = strtoull(sp + 1, NULL, 10);
		for (const char *c = line; c <= sp; c++)
			if (*c == ';' || c == sp)
				push(&v, &n, &cap, (struct path_count){ strndup(line, c - line), count });
		line += len + (line[len] == '\n');
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_path);
	for (size_t i = 0; i < n; i++) {
		if (m && !strcmp(v[m - 1].path, v[i].path)) {
			v[m - 1].n += v[i].n;
			free(v[i].path);
		} else {
			v[m++] = v[i];
		}
	}
	n = m;
	m = 0;
	for (size_t i = 0; i < n; i++) {
		if (v[i].n)
			v[m++] = v[i];
		else
			free(v[i].path);
	}
	*out = v;
	return m;
}

/* svg_check.py's "KIND R,G,B COUNT PATH" lines, sorted by path. */
static size_t svg_paths(char *text, struct path_count **out)
{
	struct path_count *v = NULL;
	size_t n = 0, cap = 0;
	char *save = NULL;

	for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct path_count pc = { 0 };
		int at = 0;

		ck_assert_msg(sscanf(line, "%c %d,%d,%d %llu %n", &pc.kind, &pc.rgb[0], &pc.rgb[1],
				     &pc.rgb[2], &pc.n, &at) == 5 && at,
			      "svg_check.py: %s", line);
		pc.path = strdup(line + at);
		push(&v, &n, &cap, pc);
	}
	if (n)
		qsort(v, n, sizeof(*v), cmp_path);
	*out = v;
	return n;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t len = strlen(s), slen = strlen(suffix);

	return len >= slen && !strcmp(s + len - slen, suffix);
}

static void check_kind(const struct path_count *f)
{
	const int *c = f->rgb;

	ck_assert_msg(ends_with(f->path, "_[k]") == (f->kind == 'k'), "kind %c: %s", f->kind,
		      f->path);
	if (!strchr(f->path, ';'))
		ck_assert_msg(f->kind == 'r', "a root of kind %c: %s", f->kind, f->path);
	switch (f->kind) {
	case 'k':	/* orange */
		ck_assert_msg(c[0] >= 190 && c[1] >= 90 && c[1] < c[0] && c[2] == 0,
			      "kernel frame in rgb(%d,%d,%d): %s", c[0], c[1], c[2], f->path);
		break;
	case 'i':	/* aqua */
		ck_assert_msg(c[0] <= 110 && c[1] >= 165 && c[2] >= 165,
			      "inlined frame in rgb(%d,%d,%d): %s", c[0], c[1], c[2], f->path);
		break;
	case 'u':	/* red to yellow */
	case 'r':
		ck_assert_msg(c[0] >= 205 && c[2] <= 55, "user frame in rgb(%d,%d,%d): %s", c[0],
			      c[1], c[2], f->path);
		break;
	default:
		ck_abort_msg("frame of kind %c: %s", f->kind, f->path);
	}
}

int pk_test_svg_assert_folded(const char *path, const char *folded, char **frames)
{
	char err[PK_ORACLE_ERR_LEN], *text = NULL;
	struct path_count *want = NULL, *got = NULL;
	size_t nwant, ngot, shown = 0;
	int ret = pk_test_xmllint(path, err);

	if (frames)
		*frames = NULL;
	if (ret == -ENOENT)
		return ret;
	ck_assert_msg(ret == 0, "xmllint --noout %s: %s", path, err);
	ret = pk_test_svg_frames(path, &text, err);
	if (ret == -ENOENT)
		return ret;
	ck_assert_msg(ret == 0, "svg_check.py frames %s: %s", path, err);
	if (frames)
		*frames = strdup(text);
	nwant = folded_paths(folded, &want);
	ngot = svg_paths(text, &got);
	for (size_t i = 0, j = 0; i < nwant || j < ngot;) {
		int c = i == nwant ? 1 : j == ngot ? -1 : strcmp(want[i].path, got[j].path);

		if (c == 0 && want[i].n == got[j].n) {
			check_kind(&got[j]);
			i++, j++;
			continue;
		}
		if (shown++ < 8)
			fprintf(stderr, "svg frame: folded %llu, svg %llu: %s\n",
				c <= 0 ? want[i].n : 0, c >= 0 ? got[j].n : 0,
				c <= 0 ? want[i].path : got[j].path);
		i += c <= 0;
		j += c >= 0;
	}
	ck_assert_msg(!shown, "%s: %zu frames, folded has %zu paths: they differ (above)", path,
		      ngot, nwant);
	for (size_t i = 0; i < nwant; i++)
		free(want[i].path);
	for (size_t j = 0; j < ngot; j++)
		free(got[j].path);
	free(want);
	free(got);
	free(text);
	return 0;
}
