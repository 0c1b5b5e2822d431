// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The tree's include rules, as bpf/README.md, loader/README.md and
 * tools/README.md state them: every include names its folder, each folder
 * includes only the folders its rule lists, and no folders include each
 * other in a circle. The checker reads the sources as text; its own cases
 * run it on a small tree that breaks each rule, so that it is seen to fail.
 */
#include <ftw.h>
#include <limits.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "test_util.h"

#define MAX_DIRS	64

/* What each folder of product code may include besides itself. A folder
 * missing here is a failure: a new folder states its rule first. eh_frame/
 * is the lowest layer but for the containers of tools/lib/util, which
 * include nothing (it also holds the error line and the ELF opener every
 * part uses); everything above may include it. */
static const struct rule {
	const char *dir;
	const char *may;	/* space-separated folders */
} rules[] = {
	{ "vmlinux", "" },
	{ "eh_frame", "tools/lib/util" },
	{ "bpf", "vmlinux eh_frame" },
	{ "tools/lib/util", "" },
	{ "tools/lib", "tools/lib/util eh_frame bpf" },
	{ "tools/profile", "tools/lib tools/lib/util bpf eh_frame" },
	{ "tools/symbolization", "tools/lib tools/lib/util tools/profile bpf eh_frame" },
	{ "tools/output", "tools/lib tools/lib/util tools/profile bpf eh_frame gen" },
	{ "tools/reading", "tools/lib tools/lib/util tools/profile tools/symbolization "
			   "tools/output bpf eh_frame" },
	{ "tools/eh2table", "tools/lib tools/lib/util eh_frame" },
	{ "tools", "tools/lib tools/lib/util tools/profile tools/symbolization tools/output "
		   "tools/reading tools/eh2table bpf eh_frame" },
	{ "loader/events", "tools/lib tools/lib/util bpf eh_frame" },
	{ "loader", "loader/events tools/lib tools/lib/util bpf eh_frame" },
};

struct layout {
	const char *root;
	char dirs[MAX_DIRS][PATH_MAX];
	int ndirs;
	unsigned char edge[MAX_DIRS][MAX_DIRS];
	bool has_src[MAX_DIRS];		/* holds sources (not only included) */
	char first[MAX_DIRS][MAX_DIRS][PATH_MAX / 8];	/* an include behind each edge */
	FILE *report;
	int bad;
};

static struct layout *cur;
static regex_t include_re;

static int dir_index(struct layout *l, const char *dir)
{
	for (int i = 0; i < l->ndirs; i++)
		if (!strcmp(l->dirs[i], dir))
			return i;
	if (l->ndirs == MAX_DIRS)
		return -1;
	snprintf(l->dirs[l->ndirs], PATH_MAX, "%s", dir);
	return l->ndirs++;
}

static void dir_of(const char *rel, char *out, size_t len)
{
	const char *slash = strrchr(rel, '/');

	size_t n = slash ? (size_t)(slash - rel) : 0;

	if (n >= len)
		n = len - 1;
	memcpy(out, rel, n);
	out[n] = '\0';
}

static bool exists(const char *root, const char *prefix, const char *inc)
{
	struct stat st;
	char *p;
	bool ok;

	if (asprintf(&p, "%s/%s%s", root, prefix, inc) < 0)
		return false;
	ok = !stat(p, &st) && S_ISREG(st.st_mode);
	free(p);
	return ok;
}

/* The folder INC (as written in an include) is in, relative to the root:
 * the tree's root and tools/ are the include roots; bpf/NAME.skel.h and
 * gen/ are generated into the build directory. Empty: it names no file. */
static void resolve(const struct layout *l, const char *inc, char *dir, size_t len)
{
	size_t n = strlen(inc);

	dir[0] = '\0';
	if (!strchr(inc, '/'))
		return;
	if (exists(l->root, "", inc)) {
		dir_of(inc, dir, len);
	} else if (exists(l->root, "tools/", inc)) {
		char rel[PATH_MAX];

		snprintf(rel, sizeof(rel), "tools/%s", inc);
		dir_of(rel, dir, len);
	} else if ((!strncmp(inc, "bpf/", 4) && n > 7 && !strcmp(inc + n - 7, ".skel.h")) ||
		   !strncmp(inc, "gen/", 4)) {
		dir_of(inc, dir, len);
	}
}

static void check_file(struct layout *l, const char *rel)
{
	char path[PATH_MAX], from[PATH_MAX], to[PATH_MAX];
	regmatch_t m[2];
	char *text, *line, *save = NULL;
	int line_no = 0, a, b;

	snprintf(path, sizeof(path), "%s/%s", l->root, rel);
	text = pk_test_read_file(path, NULL);
	if (!text)
		return;
	dir_of(rel, from, sizeof(from));
	a = dir_index(l, from);
	if (a >= 0)
		l->has_src[a] = true;
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char inc[PATH_MAX];

		line_no++;
		if (regexec(&include_re, line, 2, m, 0))
			continue;
		snprintf(inc, sizeof(inc), "%.*s", (int)(m[1].rm_eo - m[1].rm_so), line + m[1].rm_so);
		resolve(l, inc, to, sizeof(to));
		if (!to[0]) {
			fprintf(l->report, "%s: \"%s\" %s\n", rel, inc,
				strchr(inc, '/') ? "names no file of the tree" :
						   "does not name its folder");
			l->bad++;
			continue;
		}
		if (!strcmp(from, to))
			continue;
		b = dir_index(l, to);
		if (a < 0 || b < 0)
			continue;
		if (!l->edge[a][b])
			snprintf(l->first[a][b], sizeof(l->first[a][b]), "%s includes \"%s\"", rel, inc);
		l->edge[a][b] = 1;
	}
	free(text);
}

static int visit(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	const char *rel = path + strlen(cur->root) + 1;
	size_t n = strlen(path);

	if (type == FTW_F && n > 2 && path[n - 2] == '.' && (path[n - 1] == 'c' || path[n - 1] == 'h'))
		check_file(cur, rel);
	return 0;
}

static const struct rule *rule_of(const char *dir)
{
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (!strcmp(rules[i].dir, dir))
			return &rules[i];
	return NULL;
}

static bool may_include(const struct rule *r, const char *dir)
{
	size_t n = strlen(dir);

	for (const char *p = r->may; (p = strstr(p, dir)); p += n)
		if ((p == r->may || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

/* Depth-first search for a circle through folder I: COLOR 1 on the path,
 * 2 done. PATH holds the folders on the path, for the report. */
static bool circle_from(struct layout *l, int i, int *color, int *path, int depth)
{
	color[i] = 1;
	path[depth] = i;
	for (int j = 0; j < l->ndirs; j++) {
		if (!l->edge[i][j])
			continue;
		if (color[j] == 1) {
			int k = depth;

			while (path[k] != j)
				k--;
			fprintf(l->report, "circle:");
			for (; k <= depth; k++)
				fprintf(l->report, " %s ->", l->dirs[path[k]]);
			fprintf(l->report, " %s (%s)\n", l->dirs[j], l->first[i][j]);
			return true;
		}
		if (!color[j] && circle_from(l, j, color, path, depth + 1))
			return true;
	}
	color[i] = 2;
	return false;
}

static const char *const checked[] = { "bpf", "eh_frame", "loader", "tools" };

/* Check the tree at ROOT; the broken rules, one a line, go to REPORT.
 * Returns how many. */
static int layout_check(const char *root, FILE *report)
{
	struct layout *l = calloc(1, sizeof(*l));
	int color[MAX_DIRS] = { 0 }, path[MAX_DIRS], bad;
	char dir[PATH_MAX];

	ck_assert_ptr_nonnull(l);
	ck_assert_int_eq(regcomp(&include_re, "^[ \t]*#[ \t]*include[ \t]*\"([^\"]+)\"",
				 REG_EXTENDED), 0);
	l->root = root;
	l->report = report;
	cur = l;
	for (size_t i = 0; i < sizeof(checked) / sizeof(checked[0]); i++) {
		snprintf(dir, sizeof(dir), "%s/%s", root, checked[i]);
		if (access(dir, F_OK) == 0)
			nftw(dir, visit, 16, FTW_PHYS);
	}
	for (int a = 0; a < l->ndirs; a++) {
		const struct rule *r = rule_of(l->dirs[a]);

		if (!r && l->has_src[a]) {
			fprintf(report, "%s: a folder with no include rule (tests/unit/layout)\n",
				l->dirs[a]);
			l->bad++;
			continue;
		}
		for (int b = 0; r && b < l->ndirs; b++)
			if (l->edge[a][b] && !may_include(r, l->dirs[b])) {
				fprintf(report, "%s may not include %s: %s\n", l->dirs[a],
					l->dirs[b], l->first[a][b]);
				l->bad++;
			}
	}
	for (int i = 0; i < l->ndirs; i++)
		if (!color[i] && circle_from(l, i, color, path, 0)) {
			l->bad++;
			break;
		}
	regfree(&include_re);
	bad = l->bad;
	free(l);
	return bad;
}

START_TEST(test_tree_keeps_its_rules)
{
	char root[PATH_MAX], *text = NULL;
	size_t len = 0;
	FILE *report = open_memstream(&text, &len);
	int bad;

	ck_assert_ptr_nonnull(pk_test_src_path(".", root, sizeof(root)));
	bad = layout_check(root, report);
	fclose(report);
	ck_assert_msg(bad == 0, "%d include rules broken:\n%s", bad, text);
	free(text);
}
END_TEST

static void put(const char *root, const char *rel, const char *text)
{
	char p[PATH_MAX], d[PATH_MAX + 32];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(d, sizeof(d), "mkdir -p \"$(dirname '%s')\"", p);
	ck_assert_int_eq(system(d), 0);
	f = fopen(p, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* A tree that breaks every rule once: each is reported. */
START_TEST(test_broken_tree_fails)
{
	char root[] = "/tmp/pk-layout-XXXXXX", cmd[64], *text = NULL;
	size_t len = 0;
	FILE *report;
	int bad;

	ck_assert_ptr_nonnull(mkdtemp(root));
	put(root, "tools/symbolization/sym.h", "#include \"reading/reader.h\"\n");
	put(root, "tools/reading/reader.h", "#include \"symbolization/sym.h\"\n");
	put(root, "loader/probe-load.c", "#include \"symbolization/sym.h\"\n"
					 "#include \"lib/pins.h\"\n");
	put(root, "tools/lib/pins.h", "#include \"pins_impl.h\"\n");
	put(root, "tools/lib/pins_impl.h", "#include \"lib/gone.h\"\n");
	put(root, "tools/newfolder/x.c", "  #  include \"lib/pins.h\"\n");
	report = open_memstream(&text, &len);
	bad = layout_check(root, report);
	fclose(report);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_msg(strstr(text, "loader may not include tools/symbolization: "
				   "loader/probe-load.c includes \"symbolization/sym.h\""), "%s", text);
	/* where the search enters the circle depends on the order of the walk */
	ck_assert_msg(strstr(text, "circle: tools/symbolization -> tools/reading -> "
				   "tools/symbolization") ||
		      strstr(text, "circle: tools/reading -> tools/symbolization -> "
				   "tools/reading"), "%s", text);
	ck_assert_msg(strstr(text, "tools/lib/pins.h: \"pins_impl.h\" does not name its folder"),
		      "%s", text);
	ck_assert_msg(strstr(text, "tools/lib/pins_impl.h: \"lib/gone.h\" names no file"),
		      "%s", text);
	ck_assert_msg(strstr(text, "tools/newfolder: a folder with no include rule"), "%s", text);
	/* symbolization -> reading is against its rule too: 6 in all */
	ck_assert_msg(strstr(text, "tools/symbolization may not include tools/reading"), "%s", text);
	ck_assert_int_eq(bad, 6);
	free(text);
}
END_TEST

Suite *suite_layout(void)
{
	Suite *s = suite_create("layout");
	TCase *tc = tcase_create("rules");

	tcase_add_test(tc, test_tree_keeps_its_rules);
	tcase_add_test(tc, test_broken_tree_fails);
	suite_add_tcase(s, tc);
	return s;
}
