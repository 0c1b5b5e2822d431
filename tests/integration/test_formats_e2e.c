// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, every output format read back by its consumer on a real
 * profile: one probe-read writes folded, pprof, perf text and speedscope
 * from the same samples (-f/-o pairs), and each consumer's reading must
 * give exactly the folded stacks and counts:
 *   pprof       go tool pprof -raw (tests/harness/pprof_raw.h)
 *   perf        speedscope's perf script reader, folded as
 *               stackcollapse-perf.pl --kernel folds (tests/harness/oracles.h)
 *   speedscope  speedscope's schema, then its stacks and weights
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/oracles.h"
#include "harness/pprof_raw.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define FREQ		199
#define FREQ_STR	"199"

/* A folded profile as a sorted, merged list of (stack, count). */
struct fold {
	char **stacks;
	unsigned long long *counts;
	size_t n, cap;
};

static void fold_add(struct fold *f, const char *stack, unsigned long long count)
{
	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->stacks[i], stack)) {
			f->counts[i] += count;
			return;
		}
	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 64;
		f->stacks = pk_test_grow(f->stacks, f->cap, sizeof(*f->stacks));
		f->counts = pk_test_grow(f->counts, f->cap, sizeof(*f->counts));
	}
	f->stacks[f->n] = strdup(stack);
	f->counts[f->n++] = count;
}

static void fold_free(struct fold *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->stacks[i]);
	free(f->stacks);
	free(f->counts);
	memset(f, 0, sizeof(*f));
}

/* IN with every frame folded names by its address, "[FILE+0xOFF]" (no
 * symbol holds it: a resolver's PLT entry, code of a stripped file), as
 * perf text names it: "[unknown]", perf script's word, which is all its
 * readers get. */
static void fold_as_perf_text(const struct fold *in, struct fold *out)
{
	for (size_t i = 0; i < in->n; i++) {
		char *stack = malloc(strlen(in->stacks[i]) + 1), *o = stack;
		const char *p = in->stacks[i];

		ck_assert_ptr_nonnull(stack);
		while (*p) {
			size_t len = strcspn(p, ";");

			if (p[0] == '[' && p[len - 1] == ']' && memmem(p, len, "+0x", 3)) {
				strcpy(o, "[unknown]");
				o += strlen(o);
			} else {
				memcpy(o, p, len);
				o += len;
			}
			p += len;
			if (*p)
				*o++ = *p++;
		}
		*o = '\0';
		fold_add(out, stack, in->counts[i]);
		free(stack);
	}
}

/* "STACK COUNT" lines (flamegraph.pl's rule: the count after the last space). */
static void fold_parse(struct fold *f, const char *text)
{
	struct pk_folded pf = { 0 };
	const char *bad = NULL;

	ck_assert_msg(pk_folded_parse(text, &pf, &bad), "not folded: '%s'", bad);
	for (size_t i = 0; i < pf.n; i++)
		fold_add(f, pf.lines[i].stack, pf.lines[i].count);
	pk_folded_free(&pf);
}

static unsigned long long fold_total(const struct fold *f)
{
	unsigned long long t = 0;

	for (size_t i = 0; i < f->n; i++)
		t += f->counts[i];
	return t;
}

/* A and B hold the same stacks with the same counts; WHAT names B. */
static void fold_assert_equal(const struct fold *a, const struct fold *b, const char *what)
{
	size_t shown = 0;
	bool same = a->n == b->n;

	for (size_t i = 0; i < a->n; i++) {
		size_t j;

		for (j = 0; j < b->n && strcmp(a->stacks[i], b->stacks[j]); j++)
			;
		if (j == b->n || b->counts[j] != a->counts[i]) {
			same = false;
			if (shown++ < 5)
				fprintf(stderr, "%s: folded %llu, %s %llu: %s\n", what, a->counts[i],
					what, j == b->n ? 0ULL : b->counts[j], a->stacks[i]);
		}
	}
	for (size_t j = 0; j < b->n; j++) {
		size_t i;

		for (i = 0; i < a->n && strcmp(a->stacks[i], b->stacks[j]); i++)
			;
		if (i == a->n && shown++ < 10)
			fprintf(stderr, "%s only: %llu %s\n", what, b->counts[j], b->stacks[j]);
	}
	ck_assert_msg(same, "%s: %zu stacks, folded %zu: they differ (above)", what, b->n, a->n);
}

static bool kernel_mapping(const struct ppr_mapping *m)
{
	return m && m->file[0] == '[' && strcmp(m->file, "[vdso]") != 0;
}

/* The pprof file folded the way probe-read folds: comm label, then the
 * frames root first (inline frames after the function they are inlined
 * into), kernel frames (locations of the kernel's mappings) suffixed
 * "_[k]"; every label checked on the way. */
static void fold_pprof(struct fold *f, const char *path, __u32 pid, long ncpus)
{
	struct ppr_profile p = { 0 };
	char err[256], *text = NULL;

	if (!ppr_go_available()) {
		ck_assert_msg(!getenv("CI") || strcmp(getenv("CI"), "true"),
			      "go tool pprof is missing (CI=true)");
		fprintf(stderr, "go is not installed: pprof not checked\n");
		return;
	}
	ck_assert_msg(ppr_run(path, &text, err, sizeof(err)) == 0, "go tool pprof: %s", err);
	ck_assert_msg(ppr_parse(text, &p, err, sizeof(err)) == 0, "pprof -raw: %s", err);
	ck_assert_uint_eq(p.ntypes, 2);
	ck_assert_str_eq(p.sample_types[0], "samples/count");
	ck_assert_str_eq(p.sample_types[1], "cpu/nanoseconds");
	ck_assert_str_eq(p.period_type, "cpu nanoseconds");
	ck_assert_int_eq(p.period, 1000000000 / FREQ);
	for (size_t i = 0; i < p.nsamples; i++) {
		const struct ppr_sample *s = &p.samples[i];
		const char *comm = ppr_label(s, "comm"), *spid = ppr_label(s, "pid");
		const char *stid = ppr_label(s, "tid"), *scpu = ppr_label(s, "cpu");
		char *stack = NULL;
		size_t len = 0, frame = s->nframes;
		FILE *m = open_memstream(&stack, &len);

		ck_assert_msg(comm && spid && stid && scpu, "sample %zu lacks a label", i);
		ck_assert_uint_eq(strtoul(spid, NULL, 10), pid);
		ck_assert_uint_eq(strtoul(stid, NULL, 10), pid);	/* one thread */
		ck_assert_int_lt(strtol(scpu, NULL, 10), ncpus);
		ck_assert_int_eq(s->values[1], s->values[0] * p.period);
		fputs(comm, m);
		/* frames are leaf first, a location's lines innermost first */
		for (size_t l = s->nlocs; l-- > 0;) {
			const struct ppr_location *loc = s->locs[l];

			for (size_t k = loc->nlines; k-- > 0;) {
				frame--;
				ck_assert_ptr_eq(s->frames[frame], loc->lines[k].name);
				fprintf(m, ";%s%s", loc->lines[k].name,
					kernel_mapping(loc->mapping) ? "_[k]" : "");
			}
		}
		ck_assert_uint_eq(frame, 0);
		fclose(m);
		fold_add(f, stack, s->values[0]);
		free(stack);
	}
	ppr_free(&p);
	free(text);
}

/* The speedscope file's stacks, "PROFILE;root;...;leaf WEIGHT": the
 * process's profile ("comm (pid N)" or the like) becomes the comm, and
 * weights become counts. */
static void fold_speedscope(struct fold *f, const char *path, const char *comm,
			    unsigned long long *samples)
{
	char err[PK_ORACLE_ERR_LEN], *text = NULL, *line, *save = NULL;
	__u64 n, weight;
	int ret;

	ret = pk_test_speedscope_validate(path, err);
	if (pk_test_oracle_missing(ret, "speedscope's schema"))
		return;
	ck_assert_msg(ret == 0, "speedscope file not valid: %s", err);
	ck_assert_int_eq(pk_test_speedscope_count(path, &n, &weight), 0);
	*samples = n;
	ck_assert_uint_eq(weight, n * (1000000000 / FREQ));
	ck_assert_int_eq(pk_test_speedscope_dump(path, "fold", &text), 0);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *semi = strchr(line, ';'), *sp = strrchr(line, ' '), *stack;

		ck_assert_ptr_nonnull(semi);
		ck_assert_ptr_nonnull(sp);
		*sp = '\0';
		ck_assert_int_ge(asprintf(&stack, "%s%s", comm, semi), 0);
		ck_assert_uint_eq(strtoull(sp + 1, NULL, 10) % (1000000000 / FREQ), 0);
		fold_add(f, stack, strtoull(sp + 1, NULL, 10) / (1000000000 / FREQ));
		free(stack);
	}
	free(text);
}

/*
 * qsort without frame pointers under libc's msort (whose DWARF, from
 * libc6-dbg, gives inline frames): four formats from one read, each read
 * back by its consumer, each the same stacks and counts.
 */
START_TEST(test_formats_agree)
{
	char dir[] = "/tmp/pk-formats-XXXXXX", path[4096], paths[4][4200];
	const char *load[] = { "-F", FREQ_STR, "--", path, "2", NULL };
	const char *read[] = { "-d", "60", "-f", "folded", "-o", paths[0], "-f", "pprof", "-o",
			       paths[1], "-f", "perf", "-o", paths[2], "-f", "speedscope",
			       "-o", paths[3], NULL };
	struct fold folded = { 0 }, folded_perf = { 0 }, pprof = { 0 }, perf = { 0 }, speedscope = { 0 };
	char *out = NULL, *err = NULL, *text, *perf_folded = NULL;
	unsigned long long ss_samples = 0;
	struct pk_e2e_summary sum;
	int ret;
	pid_t pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	pk_e2e_fixture_nofp("qsort-gcc-pie", path, sizeof(path));
	snprintf(paths[0], sizeof(paths[0]), "%s/cpu.folded", dir);
	snprintf(paths[1], sizeof(paths[1]), "%s/cpu.pb.gz", dir);
	snprintf(paths[2], sizeof(paths[2]), "%s/cpu.perf", dir);
	snprintf(paths[3], sizeof(paths[3]), "%s/cpu.speedscope.json", dir);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_str_eq(out, "");
	ck_assert_msg(pk_e2e_parse_summary(err, &sum), "no summary: %s", err);

	text = pk_test_read_file(paths[0], NULL);
	ck_assert_ptr_nonnull(text);
	fold_parse(&folded, text);
	free(text);
	ck_assert_uint_ge(fold_total(&folded), 100);
	ck_assert_uint_eq(fold_total(&folded), sum.read);
	/* the pid, from the perf text's first header: "comm  PID/TID [CPU] ..." */
	text = pk_test_read_file(paths[2], NULL);
	ck_assert_ptr_nonnull(text);
	ck_assert_int_eq(sscanf(text + strcspn(text, " "), " %d/", &pid), 1);
	free(text);

	fold_pprof(&pprof, paths[1], pid, sysconf(_SC_NPROCESSORS_CONF));
	if (pprof.n)
		fold_assert_equal(&folded, &pprof, "go tool pprof -raw");

	ret = pk_test_stackcollapse_perf(paths[2], &perf_folded);
	if (!pk_test_oracle_missing(ret, "speedscope's perf reader")) {
		ck_assert_int_eq(ret, 0);
		fold_parse(&perf, perf_folded);
		fold_as_perf_text(&folded, &folded_perf);
		fold_assert_equal(&folded_perf, &perf, "perf text folded");
	}

	fold_speedscope(&speedscope, paths[3], "qsort-gcc-pie", &ss_samples);
	if (speedscope.n) {
		ck_assert_uint_eq(ss_samples, sum.read);
		fold_assert_equal(&folded, &speedscope, "speedscope");
	}
	fprintf(stderr, "formats: %llu samples, %zu stacks; pprof %zu, perf %zu, speedscope %zu stacks agree\n",
		fold_total(&folded), folded.n, pprof.n, perf.n, speedscope.n);

	for (int i = 0; i < 4; i++)
		unlink(paths[i]);
	ck_assert_int_eq(rmdir(dir), 0);
	fold_free(&folded);
	fold_free(&folded_perf);
	fold_free(&pprof);
	fold_free(&perf);
	fold_free(&speedscope);
	free(perf_folded);
	free(out);
	free(err);
}
END_TEST

/*
 * --per-tid on a program with threads: folded roots "comm-PID/TID" equal
 * what stackcollapse-perf.pl --tid makes of the perf text, and the
 * speedscope file's per-thread profiles ("comm (tid TID)") hold the same
 * stacks and weights.
 */
START_TEST(test_per_tid_agree)
{
	char dir[] = "/tmp/pk-per-tid-XXXXXX", path[4096], paths[3][4200];
	const char *load[] = { "-F", FREQ_STR, "--", path, "2", NULL };
	const char *read[] = { "-d", "60", "--per-tid", "-f", "folded", "-o", paths[0],
			       "-f", "perf", "-o", paths[1], "-f", "speedscope", "-o", paths[2],
			       NULL };
	struct fold folded = { 0 }, folded_perf = { 0 }, perf = { 0 }, speedscope = { 0 };
	char *out = NULL, *err = NULL, *text, *perf_folded = NULL, *ss = NULL, *line, *save;
	char comm[32];
	size_t threads = 0;
	int ret, pid;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	pk_e2e_fixture_nofp("threads-gcc-pie", path, sizeof(path));
	for (int i = 0; i < 3; i++)
		snprintf(paths[i], sizeof(paths[i]), "%s/out%d", dir, i);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	text = pk_test_read_file(paths[0], NULL);
	ck_assert_ptr_nonnull(text);
	fold_parse(&folded, text);
	free(text);
	ck_assert_uint_ge(fold_total(&folded), 100);
	/* every root is comm-PID/TID, one PID, more than one TID */
	snprintf(comm, sizeof(comm), "threads-gcc-pie");
	ck_assert_int_eq(sscanf(folded.stacks[0] + strlen(comm), "-%d/", &pid), 1);
	for (size_t i = 0; i < folded.n; i++) {
		char want[64];
		int tid, n = 0;

		snprintf(want, sizeof(want), "%s-%d/%%d%%n", comm, pid);
		ck_assert_msg(sscanf(folded.stacks[i], want, &tid, &n) == 1 &&
			      folded.stacks[i][n] == ';', "root of %s", folded.stacks[i]);
		if (tid != pid)
			threads++;
	}
	ck_assert_uint_gt(threads, 0);

	ret = pk_test_stackcollapse_perf_tid(paths[1], &perf_folded);
	if (!pk_test_oracle_missing(ret, "speedscope's perf reader")) {
		ck_assert_int_eq(ret, 0);
		fold_parse(&perf, perf_folded);
		fold_as_perf_text(&folded, &folded_perf);
		fold_assert_equal(&folded_perf, &perf, "perf text folded --tid");
	}
	ret = pk_test_speedscope_dump(paths[2], "fold", &ss);
	if (!pk_test_oracle_missing(ret, "speedscope's schema")) {
		ck_assert_int_eq(ret, 0);
		for (line = strtok_r(ss, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
			char *sp = strrchr(line, ' '), *semi = strchr(line, ';'), *stack;
			int tid;

			ck_assert_ptr_nonnull(sp);
			ck_assert_ptr_nonnull(semi);
			*sp = '\0';
			*semi = '\0';
			ck_assert_msg(sscanf(line + strlen(comm), " (tid %d)", &tid) == 1,
				      "profile %s", line);
			ck_assert_int_ge(asprintf(&stack, "%s-%d/%d;%s", comm, pid, tid, semi + 1), 0);
			fold_add(&speedscope, stack, strtoull(sp + 1, NULL, 10) / (1000000000 / FREQ));
			free(stack);
		}
		fold_assert_equal(&folded, &speedscope, "speedscope per thread");
	}
	fprintf(stderr, "per tid: %llu samples, %zu stacks, %zu of other threads; perf %zu, speedscope %zu agree\n",
		fold_total(&folded), folded.n, threads, perf.n, speedscope.n);
	for (int i = 0; i < 3; i++)
		unlink(paths[i]);
	ck_assert_int_eq(rmdir(dir), 0);
	fold_free(&folded);
	fold_free(&folded_perf);
	fold_free(&perf);
	fold_free(&speedscope);
	free(perf_folded);
	free(ss);
	free(out);
	free(err);
}
END_TEST

Suite *suite_formats_e2e(void)
{
	Suite *s = suite_create("formats_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "consumers", 120);
	tcase_add_test(tc, test_formats_agree);
	tcase_add_test(tc, test_per_tid_agree);
	return s;
}
