// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probekit as a package: `make install` into a temporary DESTDIR leaves
 * exactly the files the README lists, the programs stripped (libelf reads
 * their sections), each man page renders in man and groff without a
 * warning and holds its program's --help examples, `make uninstall`
 * leaves nothing; the bash completion offers options and events; each
 * --help's examples are the README's; the README's package lists are the
 * makefile's (`make -pn`); the LICENSE holds the texts the SPDX lines name.
 */
#include <fcntl.h>
#include <ftw.h>
#include <gelf.h>
#include <glob.h>
#include <libelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "harness/pprof_decode.h"
#include "integration/profile_session.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

#define PREFIX	"/opt/probekit"

static const char *const programs[] = { "probe-load", "probe-read", "eh2table" };
#define NPROGRAMS (sizeof(programs) / sizeof(programs[0]))

/* What `make install PREFIX=/opt/probekit` installs, and its mode (the
 * service's defaults under SYSCONFDIR, /etc). */
static const struct {
	const char *path;
	mode_t mode;
} installed[] = {
	{ "/etc/default/probekit", 0644 },
	{ PREFIX "/bin/eh2table", 0755 },
	{ PREFIX "/bin/probe-load", 0755 },
	{ PREFIX "/bin/probe-read", 0755 },
	{ PREFIX "/lib/systemd/system/probekit-session.service", 0644 },
	{ PREFIX "/lib/systemd/system/probekit.service", 0644 },
	{ PREFIX "/share/bash-completion/completions/eh2table", 0644 },
	{ PREFIX "/share/bash-completion/completions/probe-load", 0644 },
	{ PREFIX "/share/bash-completion/completions/probe-read", 0644 },
	{ PREFIX "/share/doc/probekit/LICENSE", 0644 },
	{ PREFIX "/share/man/man1/eh2table.1", 0644 },
	{ PREFIX "/share/man/man1/probe-load.1", 0644 },
	{ PREFIX "/share/man/man1/probe-read.1", 0644 },
};
#define NINSTALLED (sizeof(installed) / sizeof(installed[0]))

static char destdir[64];

static void setup(void)
{
	eh_tmpdir(destdir, sizeof(destdir));
}

static void teardown(void)
{
	eh_rmtree(destdir);
}

/* Run ARGV; its stdout (malloc'ed) when it exits 0, else fail with its
 * stderr. */
static char *run_ok(char *const argv[])
{
	char *out = NULL, *err = NULL;
	int status = pk_test_run(argv, &out, &err);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s %s failed (status %d): %s",
		      argv[0], argv[1] ? argv[1] : "", status, err);
	free(err);
	return out;
}

/* make ARGS... (NULL-terminated) in the source tree on the build under
 * test, as a user runs it: not under the make that runs this test (its
 * MAKEFLAGS name a jobserver this process does not hold). Its status as
 * from waitpid; its stdout in *OUT. */
static int make_run(char *const args[], char **out)
{
	char src[4096], build[4096], b[4200], d[200], *err = NULL;
	char *argv[32] = { "env", "-u", "MAKEFLAGS", "-u", "MFLAGS", "-u", "MAKELEVEL", "make",
			   "--no-print-directory", "-C", src, b, "PREFIX=" PREFIX, d };
	int argc = 14, status;
	size_t n;

	pk_test_src_path("", src, sizeof(src));
	/* as the rules name the programs: no trailing slash */
	n = strlen(pk_test_build_path("", build, sizeof(build)));
	while (n > 1 && build[n - 1] == '/')
		build[--n] = '\0';
	snprintf(b, sizeof(b), "BUILD=%s", build);
	snprintf(d, sizeof(d), "DESTDIR=%s", destdir);
	while (*args && argc < 31)
		argv[argc++] = *args++;
	argv[argc] = NULL;
	status = pk_test_run(argv, out, &err);
	if (status)
		fprintf(stderr, "make %s: %s", argv[14], err);
	free(err);
	return status;
}

/* make GOAL (DRY: its database, `make -pn GOAL`); its stdout. */
static char *make(const char *goal, bool dry)
{
	char *out = NULL;
	int status = make_run(dry ? (char *[]){ "-pn", (char *)goal, NULL } :
				    (char *[]){ (char *)goal, NULL }, &out);

	ck_assert_msg(status == 0, "make %s failed (status %d)", goal, status);
	return out;
}

/* The programs must be built already: install must not build them again
 * with other flags than the sanitized build's. */
static void assert_built(void)
{
	char path[NPROGRAMS][4096];

	for (size_t i = 0; i < NPROGRAMS; i++)
		pk_test_build_path(programs[i], path[i], sizeof(path[i]));
	ck_assert_msg(make_run((char *[]){ "-q", path[0], path[1], path[2], NULL }, NULL) == 0,
		      "the programs are not up to date: make test-programs first");
}

static char found[32][512];
static size_t nfound;

static int collect(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
	if (type != FTW_D && type != FTW_DP) {
		ck_assert_uint_lt(nfound, 32);
		snprintf(found[nfound++], sizeof(found[0]), "%s", path + strlen(destdir));
	}
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(a, b);
}

/* Every file (not directory) under DESTDIR, sorted, into found[]. */
static void list_destdir(void)
{
	nfound = 0;
	ck_assert_int_eq(nftw(destdir, collect, 16, FTW_PHYS), 0);
	qsort(found, nfound, sizeof(found[0]), cmp_str);
}

/* No symbol table and no DWARF: what `strip` removes. */
static void assert_stripped(const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	ck_assert_int_ge(fd, 0);
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		ck_assert_ptr_nonnull(gelf_getshdr(scn, &sh));
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		ck_assert_ptr_nonnull(name);
		ck_assert_msg(sh.sh_type != SHT_SYMTAB && strncmp(name, ".debug", 6) &&
			      strncmp(name, ".zdebug", 7), "%s: not stripped: it has %s", path, name);
	}
	elf_end(elf);
	close(fd);
}

START_TEST(test_install_uninstall)
{
	char path[512];

	assert_built();
	free(make("install", false));
	list_destdir();
	ck_assert_uint_eq(nfound, NINSTALLED);
	for (size_t i = 0; i < NINSTALLED; i++) {
		struct stat st;

		ck_assert_str_eq(found[i], installed[i].path);
		snprintf(path, sizeof(path), "%s%s", destdir, installed[i].path);
		ck_assert_int_eq(stat(path, &st), 0);
		ck_assert_msg((st.st_mode & 07777) == installed[i].mode, "%s: mode %o",
			      installed[i].path, st.st_mode & 07777);
	}
	for (size_t i = 0; i < NPROGRAMS; i++) {
		char *out;

		snprintf(path, sizeof(path), "%s" PREFIX "/bin/%s", destdir, programs[i]);
		assert_stripped(path);
		out = run_ok((char *[]){ path, "--version", NULL });	/* and it runs */
		ck_assert_ptr_nonnull(strstr(out, "(probekit)"));
		free(out);
	}
	free(make("uninstall", false));
	list_destdir();
	ck_assert_msg(nfound == 0, "left after make uninstall: %s", found[0]);
	snprintf(path, sizeof(path), "%s" PREFIX "/share/doc/probekit", destdir);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

/* The lines of PROGRAM --help's Examples section that are commands (the
 * others say what the command above does), into CMDS; their number. */
static size_t help_examples(const char *program, char cmds[][256], size_t max, char **help)
{
	char bin[4096], *line, *save = NULL, *text, *ex;
	size_t n = 0, plen = strlen(program);

	*help = run_ok((char *[]){ (char *)pk_test_build_path(program, bin, sizeof(bin)),
				   "--help", NULL });
	ex = strstr(*help, "\nExamples:\n");
	ck_assert_msg(ex, "%s --help has no Examples section", program);
	text = strdup(ex + strlen("\nExamples:\n"));
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		ck_assert_msg(line[0] == ' ', "%s --help: Examples must be its last section: %s",
			      program, line);
		if (!strncmp(line, "  ", 2) && !strncmp(line + 2, program, plen) &&
		    line[2 + plen] == ' ' && n < max)
			snprintf(cmds[n++], 256, "%s", line + 2);
	}
	free(text);
	return n;
}

/* Each --help ends with Examples, each the README's, lines that fit 80
 * columns. */
START_TEST(test_help_examples)
{
	char readme_path[4096], cmds[16][256], *readme, *help;
	size_t n;

	readme = pk_test_read_file(pk_test_src_path("README.md", readme_path,
						    sizeof(readme_path)), NULL);
	ck_assert_ptr_nonnull(readme);
	for (size_t i = 0; i < NPROGRAMS; i++) {
		n = help_examples(programs[i], cmds, 16, &help);
		ck_assert_msg(n >= 3, "%s --help: %zu examples", programs[i], n);
		for (size_t j = 0; j < n; j++)
			ck_assert_msg(strstr(readme, cmds[j]), "%s --help's example is not the "
				      "README's: %s", programs[i], cmds[j]);
		for (char *l = help, *e; *l; l = e + 1) {
			e = strchrnul(l, '\n');
			ck_assert_msg(e - l < 80, "%s --help: a line of %d columns", programs[i],
				      (int)(e - l));
			if (!*e)
				break;
		}
		free(help);
	}
	free(readme);
}
END_TEST

/* Each man page: groff's warnings (-ww) none, man renders it with its
 * sections, and its EXAMPLES are its program's --help examples. */
START_TEST(test_man_pages)
{
	char page[512], cmds[16][256], *help, *out;
	size_t n;

	assert_built();
	free(make("install", false));
	for (size_t i = 0; i < NPROGRAMS; i++) {
		char *groff[] = { "env", "LC_ALL=C", "groff", "-man", "-Tutf8", "-ww", "-z",
				  page, NULL };
		char *man[] = { "env", "LC_ALL=C", "MANWIDTH=200", "MAN_KEEP_FORMATTING=",
				"man", "-l", page, NULL };
		char *err = NULL, want[128];
		int status;

		snprintf(page, sizeof(page), "%s" PREFIX "/share/man/man1/%s.1", destdir,
			 programs[i]);
		status = pk_test_run(groff, NULL, &err);
		ck_assert_int_eq(status, 0);
		ck_assert_msg(!err[0], "groff warns about %s.1: %s", programs[i], err);
		free(err);
		out = run_ok(man);
		snprintf(want, sizeof(want), "NAME\n       %s - ", programs[i]);
		ck_assert_msg(strstr(out, want), "%s.1: no NAME line:\n%s", programs[i], out);
		ck_assert_ptr_nonnull(strstr(out, "\nSYNOPSIS\n"));
		ck_assert_ptr_nonnull(strstr(out, "\nEXIT STATUS\n"));
		ck_assert_ptr_nonnull(strstr(out, "\nSEE ALSO\n"));
		ck_assert_ptr_nonnull(strstr(out, "\nEXAMPLES\n"));
		n = help_examples(programs[i], cmds, 16, &help);
		for (size_t j = 0; j < n; j++)
			ck_assert_msg(strstr(strstr(out, "\nEXAMPLES\n"), cmds[j]),
				      "%s.1: example missing: %s", programs[i], cmds[j]);
		free(help);
		free(out);
	}
	free(make("uninstall", false));
}
END_TEST

static int cmp_word(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The words of S's first LEN bytes, sorted, a line each, malloc'ed. */
static char *sorted_words(const char *s, size_t len)
{
	char *copy = strndup(s, len), *save = NULL, *w, **v = NULL, *out;
	size_t n = 0, olen = 0;

	ck_assert_ptr_nonnull(copy);
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		v = pk_test_grow(v, n, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[n++] = w;
	}
	qsort(v, n, sizeof(*v), cmp_word);
	out = calloc(1, len + 2);
	ck_assert_ptr_nonnull(out);
	for (size_t i = 0; i < n; i++)
		olen += sprintf(out + olen, "%s\n", v[i]);
	free(v);
	free(copy);
	return out;
}

/* What the completion offers for LINE (the cursor at its end), one word a
 * line. The programs are found in the build under test. */
static char *complete(const char *line)
{
	char script[8192], src[4096], build[4096];

	snprintf(script, sizeof(script),
		 "PATH=%s:$PATH; source %s || exit 1; COMP_LINE='%s'; "
		 "COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<<\"$COMP_LINE\"; "
		 "[[ $COMP_LINE == *' ' ]] && COMP_WORDS+=(''); "
		 "COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); _probekit; printf '%%s\\n' \"${COMPREPLY[@]}\"",
		 pk_test_build_path("", build, sizeof(build)),
		 pk_test_src_path("dist/bash-completion/probekit", src, sizeof(src)), line);
	return run_ok((char *[]){ "bash", "--norc", "--noprofile", "-c", script, NULL });
}

START_TEST(test_completion)
{
	static const char *const events[] = { "cpu-clock", "cycles", "instructions",
		"cache-misses", "page-faults", "major-faults", "off-cpu", "kprobe:", "kretprobe:",
		"tracepoint:", "uprobe:", "uretprobe:", "usdt:" };
	static const struct {
		const char *line, *want;
	} lines[] = {
		{ "probe-load -e page", "page-faults\n" },
		/* after a colon, the rest of the word (bash completes after it) */
		{ "probe-load -e tracepoint:sched:sched_swi", "sched_switch\n" },
		{ "probe-load --unw", "--unwind\n" },
		{ "probe-load --unwind ", "dwarf\nfp\n" },
		{ "probe-read --per-", "--per-cgroup\n--per-cpu\n--per-pid\n--per-tid\n" },
		{ "eh2table --v", "--version\n" },
		/* after --, the command's words: no option of ours */
		{ "probe-load -- true --un", "\n" },
	};
	char bin[4096], *out, *help, *err = NULL, *list, *formats;

	/* -f: the formats probe-read knows, as its error lists them */
	pk_test_run((char *[]){ (char *)pk_test_build_path("probe-read", bin, sizeof(bin)),
				"-f", "none", NULL }, NULL, &err);
	list = strstr(err, "unknown format (");
	ck_assert_msg(list, "probe-read -f none: %s", err);
	list += strlen("unknown format (");
	list[strcspn(list, ")")] = '\0';
	for (char *p = list; *p; p++)	/* "a, b or c" -> "a  b or c" */
		if (*p == ',')
			*p = ' ';
	for (char *p; (p = strstr(list, " or "));)
		memcpy(p, "    ", 4);
	formats = sorted_words(list, strlen(list));
	out = complete("probe-read -f ");
	ck_assert_msg(!strcmp(out, formats), "-f: offers\n%sprobe-read knows\n%s", out, formats);
	free(formats);
	free(out);
	free(err);

	/* every event the completion offers is one probe-load --help names */
	help = run_ok((char *[]){ (char *)pk_test_build_path("probe-load", bin, sizeof(bin)),
				  "--help", NULL });
	out = complete("probe-load -e ");
	for (size_t i = 0; i < sizeof(events) / sizeof(events[0]); i++) {
		char word[64];

		snprintf(word, sizeof(word), "\n%s\n", events[i]);
		ck_assert_msg(strstr(out, word + 1) == out || strstr(out, word),
			      "-e: %s not offered:\n%s", events[i], out);
		ck_assert_ptr_nonnull(strstr(help, events[i]));
	}
	free(out);
	free(help);
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		out = complete(lines[i].line);
		ck_assert_msg(!strcmp(out, lines[i].want), "%s: %s", lines[i].line, out);
		free(out);
	}
}
END_TEST

/* VAR's value in `make -pn`'s database DB, sorted. */
static char *make_var(const char *db, const char *var)
{
	char key[64];
	const char *v;

	snprintf(key, sizeof(key), "\n%s := ", var);
	v = strstr(db, key);
	ck_assert_msg(v, "make -pn: no %s", var);
	v += strlen(key);
	return sorted_words(v, strcspn(v, "\n"));
}

/* The packages cell of the README's table row whose first cell is
 * TARGET, sorted. */
static char *readme_row(const char *readme, const char *target)
{
	char key[128];
	const char *row, *cell;

	snprintf(key, sizeof(key), "\n| %s |", target);
	row = strstr(readme, key);
	ck_assert_msg(row, "README: no row for %s", target);
	cell = strchr(row + strlen(key), '|');		/* past "for" */
	ck_assert_ptr_nonnull(cell);
	cell++;
	return sorted_words(cell, strcspn(cell, "|\n"));
}

/* The README lists exactly what make deps and make test-deps install. */
START_TEST(test_deps_readme)
{
	static const struct {
		const char *target, *var;
	} rows[] = {
		{ "`make deps`", "DEB_PKGS" },
		{ "`make test-deps`", "DEB_TEST_PKGS" },
		{ "`make test-deps`, where no `npm` is installed", "DEB_NODE_PKGS" },
	};
	char path[4096], *db = make("deps", true), *readme;

	readme = pk_test_read_file(pk_test_src_path("README.md", path, sizeof(path)), NULL);
	ck_assert_ptr_nonnull(readme);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		char *want = make_var(db, rows[i].var), *got = readme_row(readme, rows[i].target);

		ck_assert_msg(strlen(want) > 4, "%s is empty", rows[i].var);
		ck_assert_msg(!strcmp(got, want), "README's %s row:\n%s\nthe makefile's %s:\n%s",
			      rows[i].target, got, rows[i].var, want);
		free(want);
		free(got);
	}
	free(readme);
	free(db);
}
END_TEST

/* Every SPDX line names the two licenses LICENSE holds, in full (GPL-2
 * as Debian ships it). */
START_TEST(test_license)
{
	char src[4096], path[4200], *spdx, *license, *gpl, *save = NULL;
	size_t nlines = 0;

	pk_test_src_path("", src, sizeof(src));
	/* the files' SPDX lines: a comment's first words */
	spdx = run_ok((char *[]){ "git", "-C", src, "grep", "-h", "-E",
				  "^(// |/\\* |# )SPDX-License-Identifier:", NULL });
	for (char *l = strtok_r(spdx, "\n", &save); l; l = strtok_r(NULL, "\n", &save), nlines++) {
		size_t n = strlen(l);

		if (n >= 3 && !strcmp(l + n - 3, " */"))
			l[n - 3] = '\0';
		ck_assert_str_eq(strchr(l, ' ') + 1,
				 "SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause");
	}
	ck_assert_uint_gt(nlines, 100);
	snprintf(path, sizeof(path), "%s/LICENSE", src);
	license = pk_test_read_file(path, NULL);
	gpl = pk_test_read_file("/usr/share/common-licenses/GPL-2", NULL);
	ck_assert_ptr_nonnull(license);
	ck_assert_ptr_nonnull(gpl);
	ck_assert_ptr_nonnull(strstr(license, "SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause"));
	ck_assert_ptr_nonnull(strstr(license, "2. Redistributions in binary form must reproduce "
				     "the above copyright notice,"));
	ck_assert_ptr_nonnull(strstr(license, "POSSIBILITY OF SUCH DAMAGE."));
	ck_assert_msg(strlen(license) > strlen(gpl) &&
		      !strcmp(license + strlen(license) - strlen(gpl), gpl),
		      "LICENSE does not end with GPL-2's text");
	free(gpl);
	free(license);
	free(spdx);
}
END_TEST

/*
 * The service (dist/systemd/): installed with PREFIX and SYSCONFDIR in the
 * test's folder itself, so that the units name programs and a defaults
 * file that are there, as systemd-analyze wants them.
 */
#define UNIT_LEN	300
static void install_in_place(char service[UNIT_LEN], char session[UNIT_LEN])
{
	char prefix[200], sysconf[200];

	assert_built();
	snprintf(prefix, sizeof(prefix), "PREFIX=%s/usr", destdir);
	snprintf(sysconf, sizeof(sysconf), "SYSCONFDIR=%s/etc", destdir);
	ck_assert_int_eq(make_run((char *[]){ "install", prefix, sysconf, "DESTDIR=", NULL },
				  NULL), 0);
	snprintf(service, UNIT_LEN, "%s/usr/lib/systemd/system/probekit.service", destdir);
	snprintf(session, UNIT_LEN, "%s/usr/lib/systemd/system/probekit-session.service",
		 destdir);
}

static const char *const service_vars[] = {
	"PROBEKIT_PIN_DIR", "PROBEKIT_LOAD_OPTS", "PROBEKIT_INTERVAL", "PROBEKIT_OUTPUT",
	"PROBEKIT_KEEP", "PROBEKIT_KEEP_BYTES", "PROBEKIT_READ_OPTS",
};

/* systemd-analyze verify passes on both units (their programs, their man
 * pages, the one requiring the other), and the defaults file names every
 * setting they read. */
START_TEST(test_service_units_verify)
{
	char u1[UNIT_LEN], u2[UNIT_LEN], manpath[300], path[300];
	char *out = NULL, *err = NULL, *defaults, *unit;
	int status;

	install_in_place(u1, u2);
	snprintf(manpath, sizeof(manpath), "MANPATH=%s/usr/share/man:", destdir);
	status = pk_test_run((char *[]){ "env", manpath, "systemd-analyze", "verify", u1, u2,
					 NULL }, &out, &err);
	ck_assert_msg(status == 0 && !*err, "systemd-analyze verify (status %d): %s", status, err);
	snprintf(path, sizeof(path), "%s/etc/default/probekit", destdir);
	defaults = pk_test_read_file(path, NULL);
	ck_assert_ptr_nonnull(defaults);
	unit = pk_test_read_file(u1, NULL);
	ck_assert_ptr_nonnull(unit);
	for (size_t i = 0; i < sizeof(service_vars) / sizeof(service_vars[0]); i++) {
		char line[64];

		snprintf(line, sizeof(line), "\n#%s=", service_vars[i]);
		ck_assert_msg(strstr(defaults, line), "the defaults file has no %s", service_vars[i]);
	}
	ck_assert_ptr_nonnull(strstr(unit, "Restart=on-failure"));
	free(unit);
	free(defaults);
	free(out);
	free(err);
}
END_TEST

/* The value of NAME in ENV (NAME, VALUE pairs, NULL-terminated). */
static const char *env_value(const char *const *env, const char *name)
{
	for (; env[0]; env += 2)
		if (!strcmp(env[0], name))
			return env[1];
	ck_abort_msg("a unit reads %s, which the test does not set", name);
	return NULL;
}

/* KEY's command line (ExecStart, ExecStop) of the unit at PATH, as systemd
 * expands it: ${NAME} one word, $NAME split at spaces. argv, malloc'ed. */
static char **unit_command(const char *path, const char *key, const char *const *env)
{
	char *text = pk_test_read_file(path, NULL), *line, *save = NULL, *cmd = NULL;
	char **argv = calloc(64, sizeof(*argv));
	size_t n = 0, klen = strlen(key);

	ck_assert_ptr_nonnull(text);
	for (line = strtok_r(text, "\n", &save); line && !cmd; line = strtok_r(NULL, "\n", &save))
		if (!strncmp(line, key, klen) && line[klen] == '=')
			cmd = line + klen + 1;
	ck_assert_msg(cmd, "%s has no %s=", path, key);
	for (char *w = strtok_r(cmd, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		char name[64];

		ck_assert_uint_lt(n, 60);
		if (sscanf(w, "${%63[A-Z_]}", name) == 1) {
			argv[n++] = strdup(env_value(env, name));
		} else if (sscanf(w, "$%63[A-Z_]", name) == 1) {
			char *v = strdup(env_value(env, name)), *vs = NULL;

			for (char *x = strtok_r(v, " ", &vs); x; x = strtok_r(NULL, " ", &vs))
				argv[n++] = strdup(x);
			free(v);
		} else {
			argv[n++] = strdup(w);
		}
	}
	free(text);
	return argv;
}

static void free_argv(char **argv)
{
	for (char **a = argv; *a; a++)
		free(*a);
	free(argv);
}

/* The files GLOB matches, each a pprof profile that decodes: how many,
 * and their samples in *SAMPLES. */
static size_t pprof_files(const char *pattern, size_t *samples)
{
	glob_t g;
	size_t n;

	*samples = 0;
	if (glob(pattern, 0, NULL, &g))
		return 0;
	n = g.gl_pathc;
	for (size_t i = 0; i < n; i++) {
		Perftools__Profiles__Profile *prof;
		size_t len;
		char *text = pk_test_read_file(g.gl_pathv[i], &len);

		ck_assert_ptr_nonnull(text);
		prof = pk_test_pprof_decode((const unsigned char *)text, len);
		ck_assert_msg(prof, "%s: not pprof", g.gl_pathv[i]);
		*samples += prof->n_sample;
		perftools__profiles__profile__free_unpacked(prof, NULL);
		free(text);
	}
	globfree(&g);
	return n;
}

/*
 * The service's command lines, from the installed units, as systemd runs
 * them: the session is loaded (a fixture as its target), the reader writes
 * a profile a second and is stopped (SIGTERM, as systemctl stops and
 * restarts it) while the fixture runs on, then started again. The session
 * stays: the two readers together read every sample the kernel counted,
 * none lost, and --keep 2 leaves two of the four or more files written,
 * pprof that decodes.
 */
START_TEST(test_service_restart)
{
	char session[UNIT_LEN], service[UNIT_LEN], pattern[300], glob_pat[300], opts[64];
	char log1[] = "/tmp/pk-svc-log-XXXXXX", log2[] = "/tmp/pk-svc-log-XXXXXX";
	char *fixture[] = { (char *)pk_e2e_fixture("fp_chain"), "4", NULL };
	const char *env[] = {
		"PROBEKIT_PIN_DIR", pk_e2e_pin_dir(), "PROBEKIT_LOAD_OPTS", opts,
		"PROBEKIT_INTERVAL", "1", "PROBEKIT_OUTPUT", pattern, "PROBEKIT_KEEP", "2",
		"PROBEKIT_KEEP_BYTES", "1G", "PROBEKIT_READ_OPTS", "", NULL,
	};
	struct pk_e2e_summary s1, s2;
	__u64 cnt[PK_CNT__MAX];
	char **load, **read, **stop, *text;
	size_t nfiles, kept_samples;
	pid_t target, r1, r2;
	int status;

	install_in_place(service, session);
	snprintf(pattern, sizeof(pattern), "%s/cpu-%%Y%%m%%dT%%H%%M%%S.pb.gz", destdir);
	snprintf(glob_pat, sizeof(glob_pat), "%s/cpu-*.pb.gz", destdir);
	close(mkstemp(log1));
	close(mkstemp(log2));

	target = pk_test_spawn(fixture, NULL);
	ck_assert_int_gt(target, 0);
	snprintf(opts, sizeof(opts), "-F 99 -p %d", (int)target);
	load = unit_command(session, "ExecStart", env);
	read = unit_command(service, "ExecStart", env);
	stop = unit_command(session, "ExecStop", env);
	status = pk_test_run(load, NULL, NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ExecStart: %d", status);

	r1 = pk_test_spawn(read, log1);
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(1.5, 60), 0);
	kill(r1, SIGTERM);
	status = pk_test_wait(r1);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* a second of the fixture's CPU time with no reader */
	ck_assert_int_eq(pk_e2e_wait_targets_cpu(2.5, 60), 0);
	r2 = pk_test_spawn(read, log2);
	status = pk_test_wait(r2);	/* until the target exits */
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(pk_test_wait(target), 0);
	pk_e2e_counters(cnt);
	status = pk_test_run(stop, NULL, NULL);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "ExecStop: %d", status);

	text = pk_test_read_file(log1, NULL);
	ck_assert_msg(text && pk_e2e_parse_summary(text, &s1), "first reader: %s", text);
	free(text);
	text = pk_test_read_file(log2, NULL);
	ck_assert_msg(text && pk_e2e_parse_summary(text, &s2), "second reader: %s", text);
	free(text);
	nfiles = pprof_files(glob_pat, &kept_samples);
	fprintf(stderr, "service: readers read %llu + %llu, the kernel counted %llu, lost %llu; "
		"%zu files kept\n", s1.read, s2.read, (unsigned long long)cnt[PK_CNT_SAMPLES],
		(unsigned long long)cnt[PK_CNT_RINGBUF_FULL], nfiles);
	ck_assert_uint_gt(s1.read, 0);
	ck_assert_uint_gt(s2.read, 99 / 2);	/* the second without a reader waited */
	ck_assert_uint_eq(s1.read + s2.read, cnt[PK_CNT_SAMPLES]);
	ck_assert_uint_eq(s1.lost + s2.lost, 0);
	ck_assert_uint_eq(cnt[PK_CNT_RINGBUF_FULL], 0);
	ck_assert_uint_eq(nfiles, 2);
	ck_assert_uint_gt(kept_samples, 0);	/* the older of the two: a whole second */
	free_argv(load);
	free_argv(read);
	free_argv(stop);
	unlink(log1);
	unlink(log2);
}
END_TEST

Suite *suite_install(void)
{
	Suite *s = suite_create("install");
	TCase *tc = tcase_create("package");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_install_uninstall);
	tcase_add_test(tc, test_man_pages);
	tcase_add_test(tc, test_completion);
	suite_add_tcase(s, tc);
	tc = tcase_create("docs");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_help_examples);
	tcase_add_test(tc, test_deps_readme);
	tcase_add_test(tc, test_license);
	suite_add_tcase(s, tc);
	tc = tcase_create("service");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_service_units_verify);
	suite_add_tcase(s, tc);
	if (!pk_test_need_root(s, "the service's session loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "service_session", 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_service_restart);
	return s;
}
