// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, Go binaries as containers ship them (-ldflags="-s -w": no
 * .symtab, no DWARF), named from their .gopclntab: the Go fixture
 * (tests/go.mk) as Go 1.19, 1.24 and 1.27 build it, profiled stripped with
 * the real probe-load and probe-read (-f perf --lines: each frame's
 * address, name, inline mark and line). -s -w leaves the code where it
 * was (function by function, the unit suite gopclntab checks it), so each
 * stripped sample is checked frame by frame against what the unstripped
 * build's symbol table and DWARF say of the same addresses, read as
 * probe-read reads them (symfile.h): in at least 99% of the samples every
 * user frame of the Go file is alike, names, inlined frames and lines,
 * and main.step, inlined, is an inlined frame under main.leaf in most
 * samples. A run of the unstripped build is checked alike. The formats
 * show the inlined frame: pprof (read by go tool pprof) and folded.
 *
 * Walked by frame pointers (--unwind fp), both builds lose the caller of
 * a frameless leaf alike (the step from it takes its caller's RBP); the
 * names are compared there. With the default unwinder (dwarf), the
 * unstripped build walks by its .debug_frame and the stripped one by the
 * table eh_frame builds from its .gopclntab's SP deltas (go_table.c):
 * the stacks must be the same, in at least 99% of the stripped samples
 * its whole stack (the names of every user frame, inlined ones too) is
 * one the unstripped run has, each frame named and lined alike.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/pprof_raw.h"
#include "integration/profile_session.h"
#include "lib/util/text.h"
#include "symbolization/symfile.h"
#include "test_util.h"

static const char *const versions[] = { "go1.19", "go1.24", "go1.27" };

/* The fixture's run: CPU seconds, at 199 Hz about 400 samples; the
 * unstripped run whose calls the stripped one's are checked against runs
 * three times as long, so that the runtime's rarer paths (sysmon's, a
 * preemption's) are among them. */
#define CPU_SECS	"2"
#define KNOWN_SECS	"6"
#define MAX_FRAMES	32

/* One user frame of probe-read's perf text. */
struct frame {
	unsigned long long addr;
	char name[256];
	bool inlined;
	bool ours;		/* of the fixture's file (not the vDSO's) */
	char line[128];		/* "main.go:43"; "" none */
};

static const char *fixture(const char *version, const char *kind, char *buf, size_t len)
{
	char rel[64];

	snprintf(rel, sizeof(rel), "fixtures_go/gochain-%s-%s", version, kind);
	return pk_test_build_path(rel, buf, len);
}

/* Profile VERSION's KIND build walked by UNWIND (NULL: the default) for
 * SECS CPU seconds:
 * probe-read's perf text and stderr; with DIR, the same profile as pprof
 * (DIR/go.pb.gz) and folded stacks (DIR/go.folded) too. */
static void profile(const char *version, const char *kind, const char *unwind,
		    const char *secs, const char *dir, char **out, char **err)
{
	char path[512], pb[300], folded[300];
	const char *with[] = { "--unwind", unwind, "-F", "199", "--", path, secs, NULL };
	const char *const *load = unwind ? with : with + 2;
	const char *read[] = { "-d", "120", "--lines", "-f", "perf", "-o", "/dev/stdout",
			       "-f", "pprof", "-o", pb, "-f", "folded", "-o", folded, NULL };

	snprintf(pb, sizeof(pb), "%s/go.pb.gz", dir ? dir : "");
	snprintf(folded, sizeof(folded), "%s/go.folded", dir ? dir : "");
	if (!dir)
		read[5] = NULL;		/* the perf text alone */
	fixture(version, kind, path, sizeof(path));
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(read, out, err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
}

/* How many addresses probe-read's "symbols:" line says came from an
 * earlier reader's location cache. */
static unsigned long cached_addrs(const char *err)
{
	const char *s = strstr(err, " addresses, ");
	unsigned long n = ~0UL;

	ck_assert_msg(s && sscanf(s, " addresses, %lu from earlier", &n) == 1, "%s", err);
	return n;
}

/* Whether the stripped build of V has a location cache in DIR (by its
 * build-id: <dir>/<2 hex>/<rest>.locs, loc_cache.h). */
static bool locs_saved(const char *v, const char *dir)
{
	char path[512], hex[128], locs[700];

	pk_test_readelf_build_id(fixture(v, "strip", path, sizeof(path)), hex, sizeof(hex));
	snprintf(locs, sizeof(locs), "%s/%.2s/%s.locs", dir, hex, hex + 2);
	return access(locs, R_OK) == 0;
}

/* The percentage of user frames named, from probe-read's "symbols:" line. */
static double named_pct(const char *err)
{
	const char *s = strstr(err, "symbols: ");
	double named = -1;

	ck_assert_msg(s && sscanf(s, "symbols: %lf%%", &named) == 1, "%s", err);
	return named;
}

/* A frame line of the perf text ("\t  47bb4b main.step+0xb (inlined)"),
 * into F: false for a kernel frame. */
static bool parse_frame(char *l, struct frame *f)
{
	char *end, *paren = strrchr(l, '(');
	char *plus;

	memset(f, 0, sizeof(*f));
	f->addr = strtoull(l, &end, 16);
	ck_assert_msg(end != l && *end == ' ' && paren, "frame line '%s'", l);
	if (strstr(paren, "[kernel.kallsyms]"))
		return false;
	f->inlined = !strcmp(paren, "(inlined)");
	f->ours = f->inlined || strstr(paren, "fixtures_go/gochain-");
	snprintf(f->name, sizeof(f->name), "%.*s", (int)(paren - end - 2), end + 1);
	plus = strstr(f->name, "+0x");
	if (plus)
		*plus = 0;
	return true;
}

/* Whether the frames of one address, FR[0..N) (innermost first, the last
 * not inlined), are what FULL says of it (RET: a return address, looked
 * up minus one, as probe-read does). */
static bool alike(struct pk_symfile *full, const struct frame *fr, int n, bool ret)
{
	struct pk_srcline_frame exp[MAX_FRAMES];
	const char *name;
	__u64 start;
	int k = pk_symfile_locate(full, fr[0].addr - ret, true, &name, &start, exp, MAX_FRAMES);

	/* another file's frame (the vDSO's), or junk a frame-pointer walk
	 * found under a thread's first frame (runtime.mstart), in no file:
	 * no matter of the Go file's names */
	if (!fr[n - 1].ours)
		return n == 1;
	if (k < 1)		/* no DWARF there: the name alone */
		return n == 1 && (name ? !strcmp(name, fr[0].name) : fr[0].name[0] == '[');
	if (k != n)
		return false;
	for (int i = 0; i < n; i++) {
		const char *want = i == n - 1 && name ? name : exp[i].name;
		char line[128] = "";

		if (exp[i].file && exp[i].line)
			snprintf(line, sizeof(line), "%s:%u", pk_base_name(exp[i].file), exp[i].line);
		if (!want || strcmp(want, fr[i].name) || strcmp(line, fr[i].line) ||
		    fr[i].inlined != (i < n - 1))
			return false;
	}
	return true;
}

/*
 * The formats of one profile of the stripped build: in pprof, as `go tool
 * pprof` reads it (harness/pprof_raw.h), a location holds main.step
 * inlined in main.leaf, innermost first, with their lines; in the folded
 * stacks (--lines), main.step follows main.leaf.
 */
static void check_formats(const char *dir)
{
	char path[300], err[512], *text = NULL, *folded;
	struct ppr_profile p = { 0 };
	size_t len, inlined = 0;

	snprintf(path, sizeof(path), "%s/go.pb.gz", dir);
	ck_assert_msg(ppr_run(path, &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse(text, &p, err, sizeof(err)) == 0, "%s", err);
	for (size_t i = 0; i < p.nlocs; i++) {
		const struct ppr_location *l = &p.locs[i];

		if (l->nlines == 2 && !strcmp(l->lines[0].name, "main.step") &&
		    !strcmp(l->lines[1].name, "main.leaf")) {
			ck_assert_str_eq(pk_base_name(l->lines[0].file), "main.go");
			ck_assert_int_gt(l->lines[0].line, 0);
			ck_assert_int_gt(l->lines[1].line, l->lines[0].line);
			inlined++;
		}
	}
	ck_assert_msg(inlined >= 2, "%zu pprof locations of main.step in main.leaf", inlined);
	ppr_free(&p);
	free(text);
	snprintf(path, sizeof(path), "%s/go.folded", dir);
	folded = pk_test_read_file(path, &len);
	ck_assert_ptr_nonnull(folded);
	ck_assert_msg(strstr(folded, ";main.leaf (main.go:") &&
		      strstr(folded, ");main.step (main.go:"), "%.2000s", folded);
	free(folded);
}

struct tally {
	unsigned long samples, alike, inlined;
	unsigned long whole;	/* down to the goroutine's or thread's first frame */
	unsigned long known;	/* the stack is one of KNOWN's */
	/* the samples in the program's own code (a main. frame), and of
	 * those the ones of KNOWN's stacks: the runtime's scheduler and
	 * sysmon stacks on g0, sampled more as the machine is busier, are
	 * not what a frameless leaf's caller is judged by */
	unsigned long chain, chain_known;
};

/* The names of a sample's user frames, outermost first, ';' between. */
static void stack_key(const struct frame *fr, int n, char *buf, size_t len)
{
	size_t at = 0;

	buf[0] = 0;
	for (int i = n - 1; i >= 0 && at < len; i--)
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i == n - 1 ? "" : ";",
				       fr[i].name);
}

/* Whether the outermost frame is where a Go stack begins: a goroutine's
 * runtime.goexit (under its function), a thread's runtime.mstart or the
 * program's entry runtime.rt0_go. */
static bool whole_stack(const struct frame *fr, int n)
{
	return n > 0 && (!strncmp(fr[n - 1].name, "runtime.goexit", 14) ||
			 !strncmp(fr[n - 1].name, "runtime.mstart", 14) ||
			 !strncmp(fr[n - 1].name, "runtime.rt0_go", 14));
}

/*
 * What a run's stacks are made of: each outermost frame ("^name") and
 * each call, caller to callee ("caller;callee"). A stack of another run
 * is one of these where its outermost frame and every call in it are: a
 * walk that skips a frame makes a call no whole walk has (main.top;
 * main.leaf, without main.mid), and a rare stack of the runtime's
 * (sysmon's, a signal's) made of known calls need not have been sampled
 * in both runs.
 */
struct stacks {
	char **v;
	size_t n;
};

static bool set_has(const struct stacks *set, const char *key)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->v[i], key))
			return true;
	return false;
}

static void set_add(struct stacks *set, const char *key)
{
	if (set_has(set, key))
		return;
	set->v = pk_test_grow(set->v, set->n + 1, sizeof(*set->v));
	set->v[set->n] = strdup(key);
	ck_assert_ptr_nonnull(set->v[set->n++]);
}

/* Into SET (ADD) the parts of the stack FR[0..N), innermost first, or
 * whether SET has them all (!ADD). */
static bool stack_parts(struct stacks *set, const struct frame *fr, int n, bool add)
{
	char key[600];

	if (!n)
		return true;
	for (int i = n - 1; i >= 0; i--) {
		if (i == n - 1)
			snprintf(key, sizeof(key), "^%s", fr[i].name);
		else
			snprintf(key, sizeof(key), "%s;%s", fr[i + 1].name, fr[i].name);
		if (add)
			set_add(set, key);
		else if (!set_has(set, key))
			return false;
	}
	return true;
}

static void stack_add(struct stacks *set, const struct frame *fr, int n)
{
	if (set)
		stack_parts(set, fr, n, true);
}

static bool stack_known(const struct stacks *set, const struct frame *fr, int n)
{
	return set && stack_parts((struct stacks *)set, fr, n, false);
}

static void stacks_free(struct stacks *set)
{
	for (size_t i = 0; i < set->n; i++)
		free(set->v[i]);
	free(set->v);
	memset(set, 0, sizeof(*set));
}

/* Each sample of TEXT (perf text of the stripped build) against FULL;
 * its stack against KNOWN's when there is one; into ADD when there is
 * one. */
static struct tally check_samples(char *text, struct pk_symfile *full,
				  const struct stacks *known, struct stacks *add)
{
	struct frame fr[64];
	struct tally t = { 0 };
	char *save = NULL;
	int n = 0;
	bool in_sample = false;
	char *l = strtok_r(text, "\n", &save);

	for (;; l = strtok_r(NULL, "\n", &save)) {
		if (!l || (l[0] != '\t' && l[0] != ' ')) {
			/* a sample's end: its user frames, address by address */
			if (in_sample) {
				bool ok = n > 0, inl = false;
				char key[4096];

				for (int i = 0, g = 0; ok && i < n; g++) {
					int j = i;

					while (j < n - 1 && fr[j].inlined)
						j++;
					ok = alike(full, fr + i, j - i + 1, g > 0);
					if (!ok)
						fprintf(stderr, "  unlike at %#llx %s\n", fr[i].addr,
							fr[i].name);
					inl |= j > i && !strcmp(fr[i].name, "main.step") &&
					       !strcmp(fr[i + 1].name, "main.leaf");
					i = j + 1;
				}
				stack_add(add, fr, n);
				stack_key(fr, n, key, sizeof(key));
				if (known && !stack_known(known, fr, n))
					fprintf(stderr, "  unknown stack %s\n", key);
				t.samples++;
				t.alike += ok;
				t.inlined += inl;
				t.whole += whole_stack(fr, n);
				t.known += stack_known(known, fr, n);
				for (int i = 0; i < n; i++) {
					if (strncmp(fr[i].name, "main.", 5))
						continue;
					t.chain++;
					t.chain_known += stack_known(known, fr, n);
					break;
				}
			}
			if (!l)
				break;
			in_sample = true;
			n = 0;
			continue;
		}
		if (l[0] == '\t') {
			if (n < 64 && parse_frame(l + 1 + strspn(l + 1, " "), &fr[n]))
				n++;
			else if (n == 64)
				ck_abort_msg("a sample of more than 64 frames");
		} else if (n > 0 && l[0] == ' ' && l[1] == ' ') {
			snprintf(fr[n - 1].line, sizeof(fr[n - 1].line), "%s", l + 2);
		}
	}
	return t;
}

/* A test's cache directory DIR (mkdtemp's template), and VERSION's
 * unstripped build read as probe-read reads it, into FILES. */
static struct pk_symfile *setup(const char *version, struct pk_symfiles *files, char *dir)
{
	struct pk_symfile_source src[2] = { { NULL, true }, { NULL } };
	struct pk_symfile *full;
	char path[512];
	struct stat st;

	ck_assert_ptr_nonnull(files);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	ck_assert_int_eq(setenv("PROBEKIT_CACHE_DIR", dir, 1), 0);
	src[0].path = fixture(version, "full", path, sizeof(path));
	ck_assert_int_eq(stat(path, &st), 0);
	full = pk_symfiles_add(files, st.st_dev, st.st_ino, path, src, NULL, 0);
	ck_assert(full && pk_symfile_loaded(full));
	return full;
}

/*
 * The stripped build, twice with one cache directory of the test's own:
 * the second reader answers from the first one's location cache
 * (loc_cache.h) where the file has a build-id to keep it by (Debian 13's
 * and sid's Go add a GNU one; 1.19's binaries have none), alike.
 */
START_TEST(test_stripped_as_unstripped)
{
	const char *v = versions[_i];
	struct pk_symfiles *files = pk_symfiles_new();
	char dir[] = "/tmp/pk-go-e2e-XXXXXX", *out = NULL, *err = NULL;
	char *const rm[] = { "rm", "-rf", dir, NULL };
	struct pk_symfile *full;
	struct tally t;

	full = setup(v, files, dir);

	for (int run = 0; run < 2; run++) {
		profile(v, "strip", "fp", CPU_SECS, run ? dir : NULL, &out, &err);
		t = check_samples(out, full, NULL, NULL);
		fprintf(stderr, "%s%s: %lu of %lu stripped samples as the unstripped build "
			"reads them, %lu with main.step inlined in main.leaf; %.1f%% of user "
			"frames named, %lu addresses cached\n", v, run ? " (cached)" : "",
			t.alike, t.samples, t.inlined, named_pct(err), cached_addrs(err));
		if (!run && strcmp(v, "go1.19"))
			ck_assert_msg(locs_saved(v, dir), "%s: no location cache in %s", v, dir);
		ck_assert_uint_ge(t.samples, 200);
		ck_assert_msg(t.alike * 100 >= t.samples * 99, "%s: %lu of %lu", v, t.alike,
			      t.samples);
		/* the chain's loop is main.step's: most samples are there */
		ck_assert_msg(t.inlined * 2 >= t.samples, "%s: %lu of %lu", v, t.inlined,
			      t.samples);
		if (run)
			check_formats(dir);
		free(out);
		free(err);
	}

	/* the unstripped build, run: named as well, from its symbols */
	profile(v, "full", "fp", CPU_SECS, NULL, &out, &err);
	t = check_samples(out, full, NULL, NULL);
	ck_assert_msg(t.alike * 100 >= t.samples * 99, "%s: %lu of %lu", v, t.alike, t.samples);
	free(out);
	free(err);
	pk_symfiles_free(files);
	ck_assert_int_eq(pk_test_run(rm, NULL, NULL), 0);
}
END_TEST

/*
 * With the default unwinder: the unstripped build's stacks (walked by its
 * .debug_frame), then the stripped build's (by its .gopclntab's SP
 * deltas): each sample in main's chain a stack of the unstripped run's,
 * every sample's frames named as the unstripped build's DWARF says. The
 * runtime's own stacks (the scheduler's and sysmon's, which a busy
 * machine's preemptions make more of) are named, not judged by a run
 * that may not have sampled them.
 */
START_TEST(test_stacks_as_unstripped)
{
	const char *v = versions[_i];
	struct pk_symfiles *files = pk_symfiles_new();
	char dir[] = "/tmp/pk-go-e2e-XXXXXX", *out = NULL, *err = NULL;
	char *const rm[] = { "rm", "-rf", dir, NULL };
	struct stacks known = { 0 };
	struct pk_symfile *full;
	struct tally t;

	full = setup(v, files, dir);

	profile(v, "full", NULL, KNOWN_SECS, NULL, &out, &err);
	t = check_samples(out, full, NULL, &known);
	fprintf(stderr, "%s unstripped, dwarf: %lu of %lu samples whole, %zu calls and "
		"outermost frames\n", v, t.whole, t.samples, known.n);
	ck_assert_msg(t.alike * 100 >= t.samples * 99, "%s: %lu of %lu", v, t.alike, t.samples);
	free(out);
	free(err);

	profile(v, "strip", NULL, CPU_SECS, NULL, &out, &err);
	t = check_samples(out, full, &known, NULL);
	fprintf(stderr, "%s stripped, dwarf: %lu of %lu samples whole, %lu as the unstripped "
		"run's stacks (%lu of the %lu in main's chain), %lu named alike\n", v, t.whole,
		t.samples, t.known, t.chain_known, t.chain, t.alike);
	ck_assert_uint_ge(t.chain, 200);
	ck_assert_msg(t.chain_known * 100 >= t.chain * 99, "%s: %lu of %lu in main's chain", v,
		      t.chain_known, t.chain);
	ck_assert_msg(t.alike * 100 >= t.samples * 99, "%s: %lu of %lu", v, t.alike, t.samples);
	free(out);
	free(err);
	stacks_free(&known);
	pk_symfiles_free(files);
	ck_assert_int_eq(pk_test_run(rm, NULL, NULL), 0);
}
END_TEST

Suite *suite_go_e2e(void)
{
	Suite *s = suite_create("go_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "stripped", 300);
	tcase_add_loop_test(tc, test_stripped_as_unstripped, 0,
			    sizeof(versions) / sizeof(versions[0]));
	tcase_add_loop_test(tc, test_stacks_as_unstripped, 0,
			    sizeof(versions) / sizeof(versions[0]));
	return s;
}
