// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite pprof, the writer's output read by independent tools (pprof_run.h):
 * `go tool pprof -raw` (stacks, counts, labels, mappings against the
 * model, also past one part of the message), the parser of its output,
 * and gzip(1).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen/profile.pb-c.h"
#include "harness/pprof_decode.h"
#include "harness/pprof_raw.h"
#include "output/pprof.h"
#include "test_util.h"
#include "unit/output/pprof_run.h"

/* --- (b) go tool pprof -raw ------------------------------------------------ */

/* One line per sample: values, labels, then each frame with its file:line
 * and where its address lies (file, build-id, offset in the mapping, which
 * pprof keeps when it joins one file's mappings of several processes). */
static char *want_line(const struct want_sample *w)
{
	const struct pk_stack_view *st = w->stack;
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	fprintf(f, "%llu %llu comm=%s cpu=%u pid=%u tid=%u |",
		(unsigned long long)w->count, (unsigned long long)(w->count * PERIOD_NS),
		st->comm, w->cpu, st->pid, w->tid);
	for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++) {
		const struct pk_loc *l = st->locs[j];

		if (l->map)
			fprintf(f, " @%s{%s}+%#llx", l->map->module->path,
				l->map->module->build_id ? l->map->module->build_id : "",
				(unsigned long long)(l->addr - l->map->start));
		else
			fprintf(f, " @%#llx", (unsigned long long)l->addr);
		for (size_t k = 0; k < l->nframes; k++)
			fprintf(f, " %s:%s:%u", l->frames[k].name,
				l->frames[k].file ? l->frames[k].file : "", l->frames[k].line);
	}
	fclose(f);
	return line;
}

static char *got_line(const struct ppr_sample *s)
{
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);
	const char *keys[] = { "comm", "cpu", "pid", "tid" };

	ck_assert_uint_eq(s->nvalues, 2);
	ck_assert_uint_eq(s->nlabels, 4);
	fprintf(f, "%lld %lld", s->values[0], s->values[1]);
	for (size_t i = 0; i < 4; i++) {
		const char *v = ppr_label(s, keys[i]);

		ck_assert_msg(v, "go tool pprof shows no label %s", keys[i]);
		fprintf(f, " %s=%s", keys[i], v);
	}
	for (size_t i = 0; i < s->nlabels; i++) {
		const struct ppr_label *l = &s->labels[i];

		ck_assert_int_eq(l->num, strcmp(l->key, "comm") != 0);
		ck_assert_str_eq(l->unit, l->num ? l->key : "");
	}
	fprintf(f, " |");
	for (size_t j = 0; j < s->nlocs; j++) {
		const struct ppr_location *l = s->locs[j];

		if (l->mapping)
			fprintf(f, " @%s{%s}+%#llx", l->mapping->file, l->mapping->build_id,
				l->address - l->mapping->start);
		else
			fprintf(f, " @%#llx", l->address);
		for (size_t k = 0; k < l->nlines; k++)
			fprintf(f, " %s:%s:%lld", l->lines[k].name, l->lines[k].file,
				l->lines[k].line);
	}
	fclose(f);
	return line;
}

START_TEST(test_go_pprof)
{
	struct pk_profile p = pk_pp_model();
	struct want_sample want[NSAMPLES];
	size_t nwant = pk_pp_want_samples(pk_pp_samples, NSAMPLES, want);
	char *wants[NSAMPLES], **gots, *path, *text, err[512];
	struct ppr_profile got;

	if (!pk_pp_need_go())
		return;
	path = pk_pp_write_to_file(&p);
	ck_assert_msg(ppr_run(path, &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse(text, &got, err, sizeof(err)) == 0, "%s\n%s", err, text);

	ck_assert_str_eq(got.period_type, "cpu nanoseconds");
	ck_assert_int_eq(got.period, PERIOD_NS);
	ck_assert_uint_eq(got.ntypes, 2);
	ck_assert_str_eq(got.sample_types[0], "samples/count");
	ck_assert_str_eq(got.sample_types[1], "cpu/nanoseconds");

	/* the samples, as sorted lines */
	ck_assert_uint_eq(got.nsamples, nwant);
	ck_assert_ptr_nonnull(gots = calloc(got.nsamples, sizeof(*gots)));
	for (size_t i = 0; i < nwant; i++) {
		wants[i] = want_line(&want[i]);
		gots[i] = got_line(&got.samples[i]);
	}
	qsort(wants, nwant, sizeof(*wants), pk_pp_cmp_strp);
	qsort(gots, nwant, sizeof(*gots), pk_pp_cmp_strp);
	for (size_t i = 0; i < nwant; i++) {
		ck_assert_str_eq(gots[i], wants[i]);
		free(wants[i]);
		free(gots[i]);
	}
	free(gots);

	/* the frames helper: leaf first, inline frames expanded */
	for (size_t i = 0; i < got.nsamples; i++) {
		const struct ppr_sample *s = &got.samples[i];

		if (s->nlocs == 3 && s->locs[0]->nlines == 2) {
			ck_assert_uint_eq(s->nframes, 4);
			ck_assert_str_eq(s->frames[0], "helper_inlined");
			ck_assert_str_eq(s->frames[1], "compute(int, char const*)");
			ck_assert_str_eq(s->frames[2], "main");
			ck_assert_str_eq(s->frames[3], "__libc_start_call_main");
		}
	}

	/* every mapping pprof shows is one of the model's, with its file,
	 * build-id and bits; every module reached is shown */
	for (size_t i = 0; i < got.nmappings; i++) {
		const struct ppr_mapping *gm = &got.mappings[i];
		bool found = false;

		for (size_t id = 0; id < NMAPS && !found; id++) {
			const struct pk_map *map = pk_pp_reached_map(id);
			struct flags f;

			if (!map || strcmp(map->module->path, gm->file))
				continue;
			f = pk_pp_want_flags(map);
			found = !strcmp(map->module->build_id ? map->module->build_id : "",
					gm->build_id) &&
				gm->start == map->start && gm->limit == map->end &&
				gm->offset == map->pgoff && f.fn == gm->has_functions &&
				f.fl == gm->has_filenames && f.ln == gm->has_line_numbers &&
				f.in == gm->has_inline_frames;
		}
		ck_assert_msg(found, "go tool pprof shows mapping %s {%s} that is not in the model",
			      gm->file, gm->build_id);
	}
	for (size_t id = 0; id < NMAPS; id++) {
		const struct pk_map *map = pk_pp_reached_map(id);
		bool found = false;

		for (size_t i = 0; map && i < got.nmappings && !found; i++)
			found = !strcmp(got.mappings[i].file, map->module->path);
		ck_assert_msg(!map || found, "go tool pprof lost mapping %s",
			      map ? map->module->path : "");
	}
	ppr_free(&got);
	free(text);
	unlink(path);
	free(path);
}
END_TEST

/* The parser on text written by hand from go 1.19's printing code
 * (profile.go: Profile.String and friends), with what the writer never
 * produces: [F], a system name, "??", a location without lines, numeric
 * labels without units or alone, empty mapping fields. */
START_TEST(test_raw_parse)
{
	static const char text[] =
		"PeriodType: cpu nanoseconds\n"
		"Period: 1000\n"
		"Time: 2023-11-14 22:13:25 +0000 UTC\n"
		"Duration: 2.5s\n"
		"Samples:\n"
		"samples/count cpu/nanoseconds[dflt]\n"
		"          3       3000: 1 2 \n"
		"                cpu:[7] pid:[42]\n"
		"          1       1000: 3 \n"
		"          2       2000: 2 \n"
		"                comm:[a b]c] thread:[x]\n"
		"                cpu:[0 cpu]\n"
		"Locations\n"
		"     1: 0x10 M=1 [F] operator new(unsigned long) /x.cc:3 s=1(_Znwm)\n"
		"             caller /y.c:9 s=0\n"
		"     2: 0x20 M=2 ??\n"
		"     3: 0x30 \n"
		"Mappings\n"
		"1: 0x0/0x1000/0x0 /opt/a b/lib.so abcd [FN][IN]\n"
		"2: 0x2000/0x3000/0x10   \n";
	struct ppr_profile p;
	const struct ppr_sample *s;
	char err[256];

	ck_assert_msg(ppr_parse(text, &p, err, sizeof(err)) == 0, "%s", err);
	ck_assert_str_eq(p.period_type, "cpu nanoseconds");
	ck_assert_int_eq(p.period, 1000);
	ck_assert_uint_eq(p.ntypes, 2);
	ck_assert_str_eq(p.sample_types[1], "cpu/nanoseconds");
	ck_assert_uint_eq(p.nsamples, 3);

	s = &p.samples[0];
	ck_assert_int_eq(s->values[0], 3);
	ck_assert_int_eq(s->values[1], 3000);
	ck_assert_uint_eq(s->nframes, 3);
	ck_assert_str_eq(s->frames[0], "operator new(unsigned long)");
	ck_assert_str_eq(s->frames[1], "caller");
	ck_assert_str_eq(s->frames[2], "??");
	ck_assert_uint_eq(s->nlabels, 2);
	ck_assert_str_eq(ppr_label(s, "pid"), "42");
	ck_assert(s->labels[0].num && s->labels[1].num);
	ck_assert_str_eq(s->labels[0].unit, "");

	s = &p.samples[1];
	ck_assert_uint_eq(s->nlocs, 1);
	ck_assert_uint_eq(s->nframes, 0);
	ck_assert_ptr_null(s->locs[0]->mapping);
	ck_assert_uint_eq(s->locs[0]->address, 0x30);
	ck_assert_uint_eq(s->nlabels, 0);

	s = &p.samples[2];
	ck_assert_uint_eq(s->nlabels, 3);
	/* a value ends at the first ] that ends the line or a " KEY:[" follows */
	ck_assert_str_eq(ppr_label(s, "comm"), "a b]c");
	ck_assert_str_eq(ppr_label(s, "thread"), "x");
	ck_assert_str_eq(ppr_label(s, "cpu"), "0");
	ck_assert(!s->labels[0].num && !s->labels[1].num && s->labels[2].num);
	ck_assert_str_eq(s->labels[2].unit, "cpu");

	s = &p.samples[0];
	ck_assert_uint_eq(s->locs[0]->nlines, 2);
	ck_assert_str_eq(s->locs[0]->lines[0].file, "/x.cc");
	ck_assert_int_eq(s->locs[0]->lines[0].line, 3);
	ck_assert_str_eq(s->locs[0]->lines[1].file, "/y.c");
	ck_assert_int_eq(s->locs[0]->lines[1].line, 9);
	ck_assert_str_eq(s->locs[0]->mapping->file, "/opt/a b/lib.so");
	ck_assert_str_eq(s->locs[0]->mapping->build_id, "abcd");
	ck_assert(s->locs[0]->mapping->has_functions && s->locs[0]->mapping->has_inline_frames);
	ck_assert(!s->locs[0]->mapping->has_filenames && !s->locs[0]->mapping->has_line_numbers);
	ck_assert_str_eq(s->locs[1]->mapping->file, "");
	ck_assert_str_eq(s->locs[1]->mapping->build_id, "");
	ck_assert_uint_eq(s->locs[1]->mapping->offset, 0x10);
	ppr_free(&p);

	ck_assert_int_eq(ppr_parse("Samples:\nsamples/count\n  x: 1\n", &p, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "go tool pprof -raw line 3: sample value is not a number");
	ppr_free(&p);
	ck_assert_int_eq(ppr_parse("Samples:\nsamples/count\n 1: 9 \nLocations\nMappings\n",
				   &p, err, sizeof(err)), -EBADMSG);
	ck_assert_str_eq(err, "go tool pprof -raw: sample 1 names location 9, which is not there");
	ppr_free(&p);
}
END_TEST

/* More samples than the writer packs in one part of the message. */
START_TEST(test_many_samples)
{
	enum { N = 5000 };
	struct pk_profile p = pk_pp_model();
	struct pk_sample_view *v = calloc(N, sizeof(*v));
	struct want_sample *want = calloc(N, sizeof(*want));
	Perftools__Profiles__Profile *m;
	size_t nwant;
	long long total = 0, got_total = 0;
	char *path, *text, err[512];
	struct ppr_profile got;

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(want);
	for (size_t i = 0; i < N; i++) {
		/* every third one repeats an earlier key */
		__u32 tid = i % 3 == 2 ? (__u32)(i - 1) : (__u32)i;

		v[i] = (struct pk_sample_view){ 6000000000ULL + i, tid, tid % 2, 1 + i % 4,
						i % 5 ? &pk_pp_S2 : &pk_pp_S3 };
		total += v[i].count;
	}
	nwant = pk_pp_want_samples(v, N, want);
	ck_assert_uint_gt(nwant, 2 * 1024);	/* the model crosses parts */
	ck_assert_uint_lt(nwant, N);		/* and merges */
	p.samples = v;
	p.nsamples = N;

	m = pk_pp_written(&p);
	ck_assert_uint_eq(m->n_sample, nwant);
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		__u32 tid = pk_pp_label(m, s, "tid")->num, cpu = pk_pp_label(m, s, "cpu")->num;
		size_t j;

		for (j = 0; j < nwant; j++)
			if (want[j].tid == tid && want[j].cpu == cpu &&
			    (__u32)pk_pp_label(m, s, "pid")->num == want[j].stack->pid &&
			    s->n_location_id == (size_t)want[j].stack->nkernel + want[j].stack->nuser)
				break;
		ck_assert_msg(j < nwant && !want[j].matched, "sample %zu: tid %u cpu %u", i, tid, cpu);
		want[j].matched = true;
		ck_assert_int_eq(s->value[0], want[j].count);
		ck_assert_int_eq(s->value[1], want[j].count * PERIOD_NS);
	}
	perftools__profiles__profile__free_unpacked(m, NULL);

	if (pk_pp_need_go()) {
		path = pk_pp_write_to_file(&p);
		ck_assert_msg(ppr_run(path, &text, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(ppr_parse(text, &got, err, sizeof(err)) == 0, "%s", err);
		ck_assert_uint_eq(got.nsamples, nwant);
		for (size_t i = 0; i < got.nsamples; i++)
			got_total += got.samples[i].values[0];
		ck_assert_int_eq(got_total, total);
		ppr_free(&got);
		free(text);
		unlink(path);
		free(path);
	}
	free(v);
	free(want);
}
END_TEST

/* gzip(1) agrees that the file is gzip. */
START_TEST(test_gzip_tool)
{
	struct pk_profile p = pk_pp_model();
	char *path = pk_pp_write_to_file(&p);
	char *argv[] = { "gzip", "-t", path, NULL };
	int st = pk_test_run(argv, NULL, NULL);

	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(path);
	free(path);
}
END_TEST


void pk_pp_tools_tests(TCase *tc)
{
	tcase_add_test(tc, test_go_pprof);
	tcase_add_test(tc, test_many_samples);
	tcase_add_test(tc, test_raw_parse);
	tcase_add_test(tc, test_gzip_tool);
}
