// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The pprof writer on a profile built by hand (pprof_run.h): decoded back
 * with the protobuf-c unpacker, every field against the model, and the
 * writer's errors. pprof_run.h names the suite's other files.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/profile.pb-c.h"
#include "harness/pprof_decode.h"
#include "output/pprof.h"
#include "test_util.h"
#include "unit/output/pprof_run.h"

/* --- (a) the message, field by field -------------------------------------- */

static void check_header(const Perftools__Profiles__Profile *m)
{
	char **sorted;

	ck_assert_uint_ge(m->n_string_table, 1);
	ck_assert_str_eq(m->string_table[0], "");
	/* each string once */
	ck_assert_ptr_nonnull(sorted = malloc(m->n_string_table * sizeof(*sorted)));
	memcpy(sorted, m->string_table, m->n_string_table * sizeof(*sorted));
	qsort(sorted, m->n_string_table, sizeof(*sorted), pk_pp_cmp_strp);
	for (size_t i = 1; i < m->n_string_table; i++)
		ck_assert_msg(strcmp(sorted[i - 1], sorted[i]), "string \"%s\" twice", sorted[i]);
	free(sorted);

	ck_assert_uint_eq(m->n_sample_type, 2);
	ck_assert_str_eq(pk_test_pprof_str(m, m->sample_type[0]->type), "samples");
	ck_assert_str_eq(pk_test_pprof_str(m, m->sample_type[0]->unit), "count");
	ck_assert_str_eq(pk_test_pprof_str(m, m->sample_type[1]->type), "cpu");
	ck_assert_str_eq(pk_test_pprof_str(m, m->sample_type[1]->unit), "nanoseconds");
	ck_assert_ptr_nonnull(m->period_type);
	ck_assert_str_eq(pk_test_pprof_str(m, m->period_type->type), "cpu");
	ck_assert_str_eq(pk_test_pprof_str(m, m->period_type->unit), "nanoseconds");
	ck_assert_int_eq(m->period, PERIOD_NS);
	ck_assert_int_eq(m->time_nanos, 1700000000000000000LL + 5000000000LL);
	ck_assert_int_eq(m->duration_nanos, 2500000000LL);
	ck_assert_int_eq(m->drop_frames, 0);
	ck_assert_int_eq(m->keep_frames, 0);
	ck_assert_uint_eq(m->n_comment, 0);
}

static void check_mappings(const Perftools__Profiles__Profile *m)
{
	size_t want = 0;

	for (size_t id = 0; id < NMAPS; id++)
		want += pk_pp_reached_map(id) != NULL;
	ck_assert_uint_eq(want, 6);	/* the model's own sanity */
	ck_assert_uint_eq(m->n_mapping, want);
	for (size_t i = 0; i < m->n_mapping; i++) {
		const Perftools__Profiles__Mapping *pm = m->mapping[i];
		const struct pk_map *map;
		struct flags f;

		ck_assert_uint_ge(pm->id, 1);
		ck_assert_ptr_nonnull(map = pk_pp_reached_map(pm->id - 1));
		ck_assert_uint_eq(pm->memory_start, map->start);
		ck_assert_uint_eq(pm->memory_limit, map->end);
		ck_assert_uint_eq(pm->file_offset, map->pgoff);
		ck_assert_str_eq(pk_test_pprof_str(m, pm->filename), map->module->path);
		ck_assert_str_eq(pk_test_pprof_str(m, pm->build_id), map->module->build_id ? map->module->build_id : "");
		f = pk_pp_want_flags(map);
		ck_assert_int_eq(pm->has_functions, f.fn);
		ck_assert_int_eq(pm->has_filenames, f.fl);
		ck_assert_int_eq(pm->has_line_numbers, f.ln);
		ck_assert_int_eq(pm->has_inline_frames, f.in);
		if (i)
			ck_assert_uint_gt(pm->id, m->mapping[i - 1]->id);
	}
	/* the flags vary: the model covers both values of each */
	ck_assert(pk_pp_want_flags(&pk_pp_map_app100).in &&
		  !pk_pp_want_flags(&pk_pp_map_libc100).in);
	ck_assert(pk_pp_want_flags(&pk_pp_map_app100).fl &&
		  !pk_pp_want_flags(&pk_pp_map_kernel).fl);
	ck_assert(pk_pp_want_flags(&pk_pp_map_libc100).fn &&
		  !pk_pp_want_flags(&pk_pp_map_nosym200).fn);
}

static void check_locations(const Perftools__Profiles__Profile *m)
{
	size_t want = 0;

	for (size_t id = 0; id < NLOCS; id++)
		want += pk_pp_reached_loc(id) != NULL;
	ck_assert_uint_eq(want, 12);
	ck_assert_uint_eq(m->n_location, want);
	for (size_t i = 0; i < m->n_location; i++) {
		const Perftools__Profiles__Location *pl = m->location[i];
		const struct pk_loc *loc;

		ck_assert_uint_ge(pl->id, 1);
		ck_assert_ptr_nonnull(loc = pk_pp_reached_loc(pl->id - 1));
		ck_assert_uint_eq(pl->address, loc->addr);
		ck_assert_uint_eq(pl->mapping_id, loc->map ? loc->map->id + 1 : 0);
		ck_assert(!pl->is_folded);
		ck_assert_uint_eq(pl->n_line, loc->nframes);
		for (size_t k = 0; k < pl->n_line; k++) {
			const struct pk_frame *fr = &loc->frames[k];
			const Perftools__Profiles__Function *fn =
				pk_test_pprof_function(m, pl->line[k]->function_id);

			ck_assert_str_eq(pk_test_pprof_str(m, fn->name), fr->name);
			ck_assert_str_eq(pk_test_pprof_str(m, fn->system_name), fr->name);
			ck_assert_str_eq(pk_test_pprof_str(m, fn->filename), fr->file ? fr->file : "");
			ck_assert_int_eq(pl->line[k]->line, fr->line);
		}
	}

	/* functions: nonzero distinct ids, each (name, file) once */
	ck_assert_uint_eq(m->n_function, pk_pp_want_nfunctions());
	for (size_t i = 0; i < m->n_function; i++) {
		ck_assert_uint_ge(m->function[i]->id, 1);
		for (size_t j = 0; j < i; j++) {
			ck_assert_uint_ne(m->function[i]->id, m->function[j]->id);
			ck_assert(m->function[i]->name != m->function[j]->name ||
				  m->function[i]->filename != m->function[j]->filename);
		}
	}
}

static void check_samples(const Perftools__Profiles__Profile *m)
{
	struct want_sample want[NSAMPLES];
	size_t nwant = pk_pp_want_samples(pk_pp_samples, NSAMPLES, want);

	ck_assert_uint_eq(nwant, 7);
	ck_assert_uint_eq(m->n_sample, nwant);
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		const Perftools__Profiles__Label *pid = pk_pp_label(m, s, "pid");
		const Perftools__Profiles__Label *tid = pk_pp_label(m, s, "tid");
		const Perftools__Profiles__Label *cpu = pk_pp_label(m, s, "cpu");
		const Perftools__Profiles__Label *comm = pk_pp_label(m, s, "comm");
		struct want_sample *w = NULL;

		ck_assert_uint_eq(s->n_label, 4);
		ck_assert_int_eq(pid->str, 0);
		ck_assert_int_eq(tid->str, 0);
		ck_assert_int_eq(cpu->str, 0);
		ck_assert_int_eq(comm->num, 0);
		ck_assert_str_eq(pk_test_pprof_str(m, pid->num_unit), "pid");
		ck_assert_str_eq(pk_test_pprof_str(m, tid->num_unit), "tid");
		ck_assert_str_eq(pk_test_pprof_str(m, cpu->num_unit), "cpu");
		ck_assert_int_eq(comm->num_unit, 0);
		for (size_t j = 0; j < nwant && !w; j++) {
			const struct pk_stack_view *st = want[j].stack;
			bool same = st->pid == pid->num && want[j].tid == tid->num &&
				want[j].cpu == cpu->num && !strcmp(st->comm, pk_test_pprof_str(m, comm->str)) &&
				s->n_location_id == (size_t)st->nkernel + st->nuser;

			for (size_t k = 0; same && k < s->n_location_id; k++)
				same = s->location_id[k] == st->locs[k]->id + 1;
			if (same)
				w = &want[j];
		}
		ck_assert_msg(w, "sample %zu matches nothing in the model", i);
		ck_assert_msg(!w->matched, "sample %zu written twice", i);
		w->matched = true;
		ck_assert_uint_eq(s->n_value, 2);
		ck_assert_int_eq(s->value[0], w->count);
		ck_assert_int_eq(s->value[1], w->count * PERIOD_NS);
	}
}

START_TEST(test_decode)
{
	struct pk_profile p = pk_pp_model();
	Perftools__Profiles__Profile *m = pk_pp_written(&p);

	check_header(m);
	check_mappings(m);
	check_locations(m);
	check_samples(m);
	perftools__profiles__profile__free_unpacked(m, NULL);
}
END_TEST

START_TEST(test_deterministic)
{
	struct pk_profile p = pk_pp_model();
	size_t l1, l2;
	int r1, r2;
	char *a = pk_pp_write_to_memory(&p, &l1, &r1), *b = pk_pp_write_to_memory(&p, &l2, &r2);

	ck_assert_int_eq(r1, 0);
	ck_assert_int_eq(r2, 0);
	ck_assert_uint_eq(l1, l2);
	ck_assert(memcmp(a, b, l1) == 0);
	free(a);
	free(b);
}
END_TEST

START_TEST(test_empty)
{
	struct pk_profile p = pk_pp_model();
	Perftools__Profiles__Profile *m;

	p.nsamples = 0;
	p.samples = NULL;
	m = pk_pp_written(&p);
	ck_assert_uint_eq(m->n_sample, 0);
	ck_assert_uint_eq(m->n_location, 0);
	ck_assert_uint_eq(m->n_mapping, 0);
	ck_assert_uint_eq(m->n_function, 0);
	ck_assert_uint_eq(m->n_sample_type, 2);
	ck_assert_str_eq(m->string_table[0], "");
	perftools__profiles__profile__free_unpacked(m, NULL);
}
END_TEST

/* --- errors --------------------------------------------------------------- */

START_TEST(test_write_errors)
{
	struct pk_profile p = pk_pp_model();
	char path[] = "/tmp/pk-pprof-ro-XXXXXX";
	int fd = mkstemp(path);
	FILE *f;

	/* a full device: the write fails at the latest when flushed */
	ck_assert_ptr_nonnull(f = fopen("/dev/full", "w"));
	ck_assert_int_eq(pk_pprof_write(f, &p), -ENOSPC);
	fclose(f);

	/* a stream open for reading only */
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_ptr_nonnull(f = fopen(path, "r"));
	ck_assert_int_eq(pk_pprof_write(f, &p), -EBADF);
	fclose(f);
	unlink(path);

	ck_assert_int_eq(pk_pprof_write(NULL, &p), -EINVAL);
}
END_TEST

START_TEST(test_bad_profile)
{
	struct pk_profile p = pk_pp_model();
	struct pk_sample_view s[1] = { { 1, 1, 0, 1, &pk_pp_S0 } };
	struct pk_loc bad_loc = pk_pp_L_compute;
	const struct pk_loc *bad_locs[] = { &bad_loc };
	struct pk_stack_view bad_stack = { 0, 1, "x", 0, 1, bad_locs };
	struct pk_map bad_map = pk_pp_map_app100;

	p.nlocs = 5;			/* locations with ids past it */
	pk_pp_check_refused(&p);
	p = pk_pp_model();
	p.nstacks = 2;			/* stacks with ids past it */
	pk_pp_check_refused(&p);
	p = pk_pp_model();
	p.nmaps = 3;			/* maps with ids past it */
	pk_pp_check_refused(&p);

	/* a location without frames */
	p = pk_pp_model();
	p.samples = s;
	p.nsamples = 1;
	s[0].stack = &bad_stack;
	bad_loc.nframes = 0;
	pk_pp_check_refused(&p);

	/* two locations, two maps, two stacks with one id */
	bad_loc = pk_pp_L_compute;		/* id 0, as pk_pp_L_compute in pk_pp_S0 */
	p.samples = pk_pp_samples;
	p.nsamples = NSAMPLES;
	{
		struct pk_sample_view more[NSAMPLES + 1];

		memcpy(more, pk_pp_samples, sizeof(pk_pp_samples));
		more[NSAMPLES] = (struct pk_sample_view){ 1, 1, 0, 1, &bad_stack };
		bad_stack.id = 4;	/* a new stack: S4 has id 4 */
		p.samples = more;
		p.nsamples = NSAMPLES + 1;
		pk_pp_check_refused(&p);
		bad_stack.id = NSTACKS;	/* past nstacks */
		pk_pp_check_refused(&p);
		p.nstacks = NSTACKS + 1;
		pk_pp_check_refused(&p);	/* the location's id is pk_pp_L_compute's */
		bad_loc.id = NLOCS - 1;
		bad_map.id = 1;		/* pk_pp_map_libc100's */
		bad_loc.map = &bad_map;
		pk_pp_check_refused(&p);
		bad_map.id = NMAPS - 1;	/* unused: now all is consistent */
		{
			size_t len;
			int ret;
			char *buf = pk_pp_write_to_memory(&p, &len, &ret);

			ck_assert_int_eq(ret, 0);
			ck_assert_uint_gt(len, 0);
			free(buf);
		}
	}
}
END_TEST

Suite *suite_pprof(void)
{
	Suite *s = suite_create("pprof");
	TCase *tc = tcase_create("pprof");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_decode);
	tcase_add_test(tc, test_deterministic);
	tcase_add_test(tc, test_empty);
	pk_pp_tools_tests(tc);
	tcase_add_test(tc, test_write_errors);
	tcase_add_test(tc, test_bad_profile);
	pk_pp_events_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}
