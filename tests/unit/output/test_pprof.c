// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The pprof writer on a profile built by hand: decoded back with the
 * protobuf-c unpacker (every field against the model), and read by the
 * independent reader, `go tool pprof -raw` (stacks, counts, labels,
 * mappings against the model). Every expectation is computed here from
 * the model, never from the writer's output.
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
#include "harness/synth_profile.h"
#include "output/pprof.h"
#include "test_util.h"

/* --- the model ------------------------------------------------------------ */

#define PERIOD_NS	10101010ULL	/* 99 Hz */

static const struct pk_module mod_app = {
	0, "/usr/bin/app", "0123456789abcdef0123456789abcdef01234567" };
static const struct pk_module mod_libc = {
	1, "/usr/lib/x86_64-linux-gnu/libc.so.6", "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00" };
static const struct pk_module mod_kernel = { 2, "[kernel.kallsyms]", NULL };
/* a path with a space, no build-id, no symbols */
static const struct pk_module mod_nosym = { 3, "/opt/my tools/libnosym.so", NULL };

static const struct pk_map map_app100 = { 0, 0x400000, 0x402000, 0, &mod_app };
static const struct pk_map map_libc100 = { 1, 0x7f0000028000, 0x7f00001a0000, 0x28000, &mod_libc };
static const struct pk_map map_app200 = { 2, 0x555555555000, 0x555555556000, 0x1000, &mod_app };
/* libc again in another process, same offset and size: pprof makes one
 * mapping of the two */
static const struct pk_map map_libc200 = { 3, 0x7f3000028000, 0x7f30001a0000, 0x28000, &mod_libc };
static const struct pk_map map_kernel = { 4, 0xffffffff81000000, 0xffffffff83000000, 0, &mod_kernel };
static const struct pk_map map_nosym200 = { 5, 0x7f3000400000, 0x7f3000410000, 0, &mod_nosym };
#define NMAPS 7		/* id 6: reached by no sample */

static const struct pk_frame fr_compute[] = {
	{ "helper_inlined", "/src/helper.h", 5 },	/* inlined into: */
	{ "compute(int, char const*)", "/src/app.c", 20 },
};
static const struct pk_frame fr_main100 = { "main", "/src/app.c", 10 };
/* the same function as fr_main100, another line */
static const struct pk_frame fr_main200 = { "main", "/src/app.c", 12 };
static const struct pk_frame fr_libc_start = { "__libc_start_call_main", NULL, 0 };
static const struct pk_frame fr_unknown = { "[unknown]", NULL, 0 };
static const struct pk_frame fr_read = { "read", NULL, 0 };
static const struct pk_frame fr_app_nosym = { "[/usr/bin/app+0x1234]", NULL, 0 };
static const struct pk_frame fr_nosym = { "[/opt/my tools/libnosym.so+0x5a0]", NULL, 0 };
static const struct pk_frame fr_ksys_read = { "ksys_read", NULL, 0 };
static const struct pk_frame fr_do_syscall = { "do_syscall_64", NULL, 0 };
static const struct pk_frame fr_entry = { "entry_SYSCALL_64", NULL, 0 };
static const struct pk_frame fr_bpf = { "bpf_prog_6deef7357e7b4530_probe", NULL, 0 };

/* module_addr: the writer does not read it */
#define LOC(ID, K, ADDR, MAP, SYMOFF, FR, N) \
	{ .id = ID, .kernel = K, .nframes = N, .addr = ADDR, .map = MAP, \
	  .sym_off = SYMOFF, .frames = FR }

static const struct pk_loc L_compute = LOC(0, false, 0x401234, &map_app100, 0x14, fr_compute, 2);
static const struct pk_loc L_main100 = LOC(1, false, 0x401100, &map_app100, 0x20, &fr_main100, 1);
static const struct pk_loc L_start100 = LOC(2, false, 0x7f0000029d90, &map_libc100, 0x80, &fr_libc_start, 1);
static const struct pk_loc L_unknown = LOC(3, false, 0x7f5500001000, NULL, PK_LOC_NO_SYM, &fr_unknown, 1);
static const struct pk_loc L_ksys_read = LOC(4, true, 0xffffffff81400010, &map_kernel, 0x10, &fr_ksys_read, 1);
static const struct pk_loc L_do_syscall = LOC(5, true, 0xffffffff81e00020, &map_kernel, 0x20, &fr_do_syscall, 1);
static const struct pk_loc L_entry = LOC(6, true, 0xffffffff82000030, &map_kernel, 0x30, &fr_entry, 1);
static const struct pk_loc L_bpf = LOC(7, true, 0xffffffffc0001000, NULL, 0x10, &fr_bpf, 1);
static const struct pk_loc L_main200 = LOC(8, false, 0x555555555100, &map_app200, 0x24, &fr_main200, 1);
static const struct pk_loc L_read200 = LOC(9, false, 0x7f3000100010, &map_libc200, 0x10, &fr_read, 1);
static const struct pk_loc L_app_nosym = LOC(10, false, 0x555555555234, &map_app200, PK_LOC_NO_SYM, &fr_app_nosym, 1);
static const struct pk_loc L_nosym = LOC(11, false, 0x7f30004005a0, &map_nosym200, PK_LOC_NO_SYM, &fr_nosym, 1);
#define NLOCS 13	/* id 12: reached by no sample */

static const struct pk_loc *const S0_locs[] = { &L_compute, &L_main100, &L_start100 };
static const struct pk_loc *const S1_locs[] = {
	&L_ksys_read, &L_do_syscall, &L_entry,		/* kernel, leaf first */
	&L_unknown, &L_main100, &L_start100,		/* user, leaf first */
};
static const struct pk_loc *const S2_locs[] = {
	&L_bpf, &L_do_syscall, &L_entry,
	&L_read200, &L_nosym, &L_app_nosym, &L_main200,
};
static const struct pk_loc *const S3_locs[] = { &L_do_syscall, &L_entry };
static const struct pk_loc *const S4_locs[] = { &L_main200 };

static const struct pk_stack_view S0 = { 0, 100, "app", 0, 3, S0_locs };
static const struct pk_stack_view S1 = { 1, 100, "app", 3, 3, S1_locs };
static const struct pk_stack_view S2 = { 2, 200, "my prog", 3, 4, S2_locs };
static const struct pk_stack_view S3 = { 3, 0, "swapper/1", 2, 0, S3_locs };
static const struct pk_stack_view S4 = { 4, 200, "my prog", 0, 1, S4_locs };
#define NSTACKS 5

/* time, tid, cpu, count, stack */
static const struct pk_sample_view samples[] = {
	{ 5000000100, 100, 0, 1, &S0 },
	{ 5000000200, 101, 1, 2, &S0 },
	{ 5000000300, 100, 0, 1, &S1 },
	{ 5000000400, 100, 0, 3, &S0 },		/* merges with the first */
	{ 5000000500, 200, 1, 1, &S2 },
	{ 5000000600, 200, 1, 1, &S2 },		/* merges */
	{ 5000000700, 200, 0, 5, &S2 },		/* another CPU: apart */
	{ 5000000800, 0, 1, 7, &S3 },
	{ 5000000900, 100, 0, 2, &S1 },		/* merges */
	{ 5000001000, 201, 1, 1, &S4 },
};
#define NSAMPLES (sizeof(samples) / sizeof(samples[0]))

static struct pk_profile model(void)
{
	return (struct pk_profile){
		.freq_hz = 99,
		.period_ns = PERIOD_NS,
		.start_ns = 5000000000ULL,
		.end_ns = 7500000000ULL,
		.boot_to_real_ns = 1700000000000000000LL,
		.group = PK_GROUP_NONE,
		.nsamples = NSAMPLES,
		.samples = samples,
		.nstacks = NSTACKS,
		.nlocs = NLOCS,
		.nmaps = NMAPS,
		.nmodules = 4,
	};
}

/* --- what the model says, computed from it alone -------------------------- */

/* Samples merged by (stack, tid, cpu), with a linear search: a handful. */
struct want_sample {
	const struct pk_stack_view *stack;
	__u32 tid, cpu;
	__u64 count;
	bool matched;
};

static size_t want_samples(const struct pk_sample_view *v, size_t nv, struct want_sample *w)
{
	size_t n = 0;

	for (size_t i = 0; i < nv; i++) {
		const struct pk_sample_view *s = &v[i];
		size_t j;

		for (j = 0; j < n; j++)
			if (w[j].stack == s->stack && w[j].tid == s->tid && w[j].cpu == s->cpu)
				break;
		if (j == n)
			w[n++] = (struct want_sample){ s->stack, s->tid, s->cpu, 0, false };
		w[j].count += s->count;
	}
	return n;
}

/* Every location the samples reach, each once, by id. */
static const struct pk_loc *reached_loc(size_t id)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		const struct pk_stack_view *st = samples[i].stack;

		for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
			if (st->locs[j]->id == id)
				return st->locs[j];
	}
	return NULL;
}

static const struct pk_map *reached_map(size_t id)
{
	for (size_t l = 0; l < NLOCS; l++) {
		const struct pk_loc *loc = reached_loc(l);

		if (loc && loc->map && loc->map->id == id)
			return loc->map;
	}
	return NULL;
}

struct flags {
	bool fn, fl, ln, in;
};

/* What the symbolizer found in MAP's locations (pprof.h's definition). */
static struct flags want_flags(const struct pk_map *map)
{
	struct flags f = { 0 };

	for (size_t l = 0; l < NLOCS; l++) {
		const struct pk_loc *loc = reached_loc(l);

		if (!loc || loc->map != map)
			continue;
		f.fn |= loc->sym_off != PK_LOC_NO_SYM;
		f.in |= loc->nframes > 1;
		for (size_t k = 0; k < loc->nframes; k++) {
			f.fl |= loc->frames[k].file != NULL;
			f.ln |= loc->frames[k].line != 0;
			f.in |= loc->frames[k].line != 0;
		}
	}
	return f;
}

/* The number of distinct (name, file) among the reached frames. */
static size_t want_nfunctions(void)
{
	const struct pk_frame *seen[64];
	size_t n = 0;

	for (size_t l = 0; l < NLOCS; l++) {
		const struct pk_loc *loc = reached_loc(l);

		for (size_t k = 0; loc && k < loc->nframes; k++) {
			const struct pk_frame *f = &loc->frames[k];
			size_t j;

			for (j = 0; j < n; j++)
				if (!strcmp(seen[j]->name, f->name) &&
				    !strcmp(seen[j]->file ? seen[j]->file : "", f->file ? f->file : ""))
					break;
			if (j == n) {
				ck_assert_uint_lt(n, 64);
				seen[n++] = f;
			}
		}
	}
	return n;
}

/* --- writing and decoding ------------------------------------------------- */

static char *write_to_file(const struct pk_profile *p)
{
	char *path = strdup("/tmp/pk-pprof-test-XXXXXX");
	int fd;
	FILE *f;

	ck_assert_ptr_nonnull(path);
	ck_assert_int_ge(fd = mkstemp(path), 0);
	ck_assert_ptr_nonnull(f = fdopen(fd, "w"));
	ck_assert_int_eq(pk_pprof_write(f, p), 0);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

static char *write_to_memory(const struct pk_profile *p, size_t *len, int *ret)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	*ret = pk_pprof_write(f, p);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

static int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* --- (a) the message, field by field -------------------------------------- */

static void check_header(const Perftools__Profiles__Profile *m)
{
	char **sorted;

	ck_assert_uint_ge(m->n_string_table, 1);
	ck_assert_str_eq(m->string_table[0], "");
	/* each string once */
	ck_assert_ptr_nonnull(sorted = malloc(m->n_string_table * sizeof(*sorted)));
	memcpy(sorted, m->string_table, m->n_string_table * sizeof(*sorted));
	qsort(sorted, m->n_string_table, sizeof(*sorted), cmp_strp);
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
		want += reached_map(id) != NULL;
	ck_assert_uint_eq(want, 6);	/* the model's own sanity */
	ck_assert_uint_eq(m->n_mapping, want);
	for (size_t i = 0; i < m->n_mapping; i++) {
		const Perftools__Profiles__Mapping *pm = m->mapping[i];
		const struct pk_map *map;
		struct flags f;

		ck_assert_uint_ge(pm->id, 1);
		ck_assert_ptr_nonnull(map = reached_map(pm->id - 1));
		ck_assert_uint_eq(pm->memory_start, map->start);
		ck_assert_uint_eq(pm->memory_limit, map->end);
		ck_assert_uint_eq(pm->file_offset, map->pgoff);
		ck_assert_str_eq(pk_test_pprof_str(m, pm->filename), map->module->path);
		ck_assert_str_eq(pk_test_pprof_str(m, pm->build_id), map->module->build_id ? map->module->build_id : "");
		f = want_flags(map);
		ck_assert_int_eq(pm->has_functions, f.fn);
		ck_assert_int_eq(pm->has_filenames, f.fl);
		ck_assert_int_eq(pm->has_line_numbers, f.ln);
		ck_assert_int_eq(pm->has_inline_frames, f.in);
		if (i)
			ck_assert_uint_gt(pm->id, m->mapping[i - 1]->id);
	}
	/* the flags vary: the model covers both values of each */
	ck_assert(want_flags(&map_app100).in && !want_flags(&map_libc100).in);
	ck_assert(want_flags(&map_app100).fl && !want_flags(&map_kernel).fl);
	ck_assert(want_flags(&map_libc100).fn && !want_flags(&map_nosym200).fn);
}

static void check_locations(const Perftools__Profiles__Profile *m)
{
	size_t want = 0;

	for (size_t id = 0; id < NLOCS; id++)
		want += reached_loc(id) != NULL;
	ck_assert_uint_eq(want, 12);
	ck_assert_uint_eq(m->n_location, want);
	for (size_t i = 0; i < m->n_location; i++) {
		const Perftools__Profiles__Location *pl = m->location[i];
		const struct pk_loc *loc;

		ck_assert_uint_ge(pl->id, 1);
		ck_assert_ptr_nonnull(loc = reached_loc(pl->id - 1));
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
	ck_assert_uint_eq(m->n_function, want_nfunctions());
	for (size_t i = 0; i < m->n_function; i++) {
		ck_assert_uint_ge(m->function[i]->id, 1);
		for (size_t j = 0; j < i; j++) {
			ck_assert_uint_ne(m->function[i]->id, m->function[j]->id);
			ck_assert(m->function[i]->name != m->function[j]->name ||
				  m->function[i]->filename != m->function[j]->filename);
		}
	}
}

static const Perftools__Profiles__Label *label(const Perftools__Profiles__Profile *m,
					       const Perftools__Profiles__Sample *s,
					       const char *key)
{
	const Perftools__Profiles__Label *found = NULL;

	for (size_t i = 0; i < s->n_label; i++)
		if (strcmp(pk_test_pprof_str(m, s->label[i]->key), key) == 0) {
			ck_assert_msg(!found, "label %s twice", key);
			found = s->label[i];
		}
	ck_assert_msg(found, "no label %s", key);
	return found;
}

static void check_samples(const Perftools__Profiles__Profile *m)
{
	struct want_sample want[NSAMPLES];
	size_t nwant = want_samples(samples, NSAMPLES, want);

	ck_assert_uint_eq(nwant, 7);
	ck_assert_uint_eq(m->n_sample, nwant);
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		const Perftools__Profiles__Label *pid = label(m, s, "pid");
		const Perftools__Profiles__Label *tid = label(m, s, "tid");
		const Perftools__Profiles__Label *cpu = label(m, s, "cpu");
		const Perftools__Profiles__Label *comm = label(m, s, "comm");
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
	struct pk_profile p = model();
	size_t len;
	int ret;
	unsigned char *buf = (unsigned char *)write_to_memory(&p, &len, &ret);
	Perftools__Profiles__Profile *m;

	ck_assert_int_eq(ret, 0);
	m = pk_test_pprof_decode(buf, len);
	check_header(m);
	check_mappings(m);
	check_locations(m);
	check_samples(m);
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(buf);
}
END_TEST

START_TEST(test_deterministic)
{
	struct pk_profile p = model();
	size_t l1, l2;
	int r1, r2;
	char *a = write_to_memory(&p, &l1, &r1), *b = write_to_memory(&p, &l2, &r2);

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
	struct pk_profile p = model();
	Perftools__Profiles__Profile *m;
	size_t len;
	int ret;
	unsigned char *buf;

	p.nsamples = 0;
	p.samples = NULL;
	buf = (unsigned char *)write_to_memory(&p, &len, &ret);
	ck_assert_int_eq(ret, 0);
	m = pk_test_pprof_decode(buf, len);
	ck_assert_uint_eq(m->n_sample, 0);
	ck_assert_uint_eq(m->n_location, 0);
	ck_assert_uint_eq(m->n_mapping, 0);
	ck_assert_uint_eq(m->n_function, 0);
	ck_assert_uint_eq(m->n_sample_type, 2);
	ck_assert_str_eq(m->string_table[0], "");
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(buf);
}
END_TEST

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

/* Skip when go is missing, unless CI=true. */
static bool need_go(void)
{
	const char *ci = getenv("CI");

	if (ppr_go_available())
		return true;
	ck_assert_msg(!ci || strcmp(ci, "true") != 0,
		      "go (Debian golang-go) is missing and CI=true: a skip is a failure");
	fprintf(stderr, "SKIP: go is missing: no go tool pprof oracle\n");
	return false;
}

START_TEST(test_go_pprof)
{
	struct pk_profile p = model();
	struct want_sample want[NSAMPLES];
	size_t nwant = want_samples(samples, NSAMPLES, want);
	char *wants[NSAMPLES], **gots, *path, *text, err[512];
	struct ppr_profile got;

	if (!need_go())
		return;
	path = write_to_file(&p);
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
	qsort(wants, nwant, sizeof(*wants), cmp_strp);
	qsort(gots, nwant, sizeof(*gots), cmp_strp);
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
			const struct pk_map *map = reached_map(id);
			struct flags f;

			if (!map || strcmp(map->module->path, gm->file))
				continue;
			f = want_flags(map);
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
		const struct pk_map *map = reached_map(id);
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
	struct pk_profile p = model();
	struct pk_sample_view *v = calloc(N, sizeof(*v));
	struct want_sample *want = calloc(N, sizeof(*want));
	Perftools__Profiles__Profile *m;
	size_t nwant, len;
	long long total = 0, got_total = 0;
	unsigned char *buf;
	char *path, *text, err[512];
	struct ppr_profile got;
	int ret;

	ck_assert_ptr_nonnull(v);
	ck_assert_ptr_nonnull(want);
	for (size_t i = 0; i < N; i++) {
		/* every third one repeats an earlier key */
		__u32 tid = i % 3 == 2 ? (__u32)(i - 1) : (__u32)i;

		v[i] = (struct pk_sample_view){ 6000000000ULL + i, tid, tid % 2, 1 + i % 4,
						i % 5 ? &S2 : &S3 };
		total += v[i].count;
	}
	nwant = want_samples(v, N, want);
	ck_assert_uint_gt(nwant, 2 * 1024);	/* the model crosses parts */
	ck_assert_uint_lt(nwant, N);		/* and merges */
	p.samples = v;
	p.nsamples = N;

	buf = (unsigned char *)write_to_memory(&p, &len, &ret);
	ck_assert_int_eq(ret, 0);
	m = pk_test_pprof_decode(buf, len);
	ck_assert_uint_eq(m->n_sample, nwant);
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		__u32 tid = label(m, s, "tid")->num, cpu = label(m, s, "cpu")->num;
		size_t j;

		for (j = 0; j < nwant; j++)
			if (want[j].tid == tid && want[j].cpu == cpu &&
			    (__u32)label(m, s, "pid")->num == want[j].stack->pid &&
			    s->n_location_id == (size_t)want[j].stack->nkernel + want[j].stack->nuser)
				break;
		ck_assert_msg(j < nwant && !want[j].matched, "sample %zu: tid %u cpu %u", i, tid, cpu);
		want[j].matched = true;
		ck_assert_int_eq(s->value[0], want[j].count);
		ck_assert_int_eq(s->value[1], want[j].count * PERIOD_NS);
	}
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(buf);

	if (need_go()) {
		path = write_to_file(&p);
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

/* --- several events -------------------------------------------------------- */

static void check_refused(const struct pk_profile *p);

/* The types of the synthetic profile's events, in order, "TYPE/UNIT". */
static const char *const ev_types[2 * PK_SYNTH_NEVENTS] = {
	"samples/count", "cpu/nanoseconds",
	"off-cpu-samples/count", "off-cpu/nanoseconds",
	"tracepoint:syscalls:sys_enter_write-samples/count",
	"tracepoint:syscalls:sys_enter_write/count",
};

/* A merged sample of the model: (stack, tid, cpu, event), its count and
 * weight, the weight a cpu-clock sample does not know being its count
 * times 1e9 / 99 ns. */
struct want_ev {
	const struct pk_stack_view *stack;
	__u32 tid, cpu, event;
	__u64 count, weight;
	bool matched;
};

static size_t want_events(const struct pk_profile *p, struct want_ev *w)
{
	size_t n = 0;

	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_sample_view *s = &p->samples[i];
		size_t j;

		for (j = 0; j < n; j++)
			if (w[j].stack == s->stack && w[j].tid == s->tid && w[j].cpu == s->cpu &&
			    w[j].event == s->event)
				break;
		if (j == n)
			w[n++] = (struct want_ev){ s->stack, s->tid, s->cpu, s->event, 0, 0, false };
		w[j].count += s->count;
		w[j].weight += s->weight ? s->weight : s->count * (1000000000ULL / 99);
	}
	return n;
}

START_TEST(test_events_decode)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	struct want_ev want[32];
	size_t nwant = want_events(&p, want), len;
	__u64 totals[2 * PK_SYNTH_NEVENTS] = { 0 }, got_totals[2 * PK_SYNTH_NEVENTS] = { 0 };
	Perftools__Profiles__Profile *m;
	unsigned char *buf;
	int ret;

	buf = (unsigned char *)write_to_memory(&p, &len, &ret);
	ck_assert_int_eq(ret, 0);
	m = pk_test_pprof_decode(buf, len);
	ck_assert_uint_eq(m->n_sample_type, 2 * PK_SYNTH_NEVENTS);
	for (size_t t = 0; t < m->n_sample_type; t++) {
		char name[300];

		snprintf(name, sizeof(name), "%s/%s", pk_test_pprof_str(m, m->sample_type[t]->type),
			 pk_test_pprof_str(m, m->sample_type[t]->unit));
		ck_assert_str_eq(name, ev_types[t]);
	}
	ck_assert_str_eq(pk_test_pprof_str(m, m->default_sample_type), "cpu");
	ck_assert_str_eq(pk_test_pprof_str(m, m->period_type->type), "cpu");
	ck_assert_str_eq(pk_test_pprof_str(m, m->period_type->unit), "nanoseconds");
	ck_assert_int_eq(m->period, 1000000000 / 99);
	ck_assert_uint_eq(m->n_sample, nwant);
	for (size_t i = 0; i < nwant; i++) {
		totals[2 * want[i].event] += want[i].count;
		totals[2 * want[i].event + 1] += want[i].weight;
	}
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		__u32 tid = label(m, s, "tid")->num, cpu = label(m, s, "cpu")->num;
		int event = -1;
		struct want_ev *w = NULL;

		ck_assert_uint_eq(s->n_value, 2 * PK_SYNTH_NEVENTS);
		/* one event's pair only, the others' values 0 */
		for (int e = 0; e < PK_SYNTH_NEVENTS; e++) {
			if (!s->value[2 * e] && !s->value[2 * e + 1])
				continue;
			ck_assert_msg(event < 0, "sample %zu has values of two events", i);
			event = e;
		}
		ck_assert_int_ge(event, 0);
		for (size_t j = 0; j < nwant && !w; j++) {
			const struct pk_stack_view *st = want[j].stack;
			bool same = want[j].event == (__u32)event && want[j].tid == tid &&
				    want[j].cpu == cpu && (__u32)label(m, s, "pid")->num == st->pid &&
				    s->n_location_id == (size_t)st->nkernel + st->nuser;

			for (size_t k = 0; same && k < s->n_location_id; k++)
				same = s->location_id[k] == st->locs[k]->id + 1;
			if (same && !want[j].matched)
				w = &want[j];
		}
		ck_assert_msg(w, "sample %zu (event %d, tid %u, cpu %u) matches nothing in the model",
			      i, event, tid, cpu);
		w->matched = true;
		ck_assert_int_eq(s->value[2 * event], w->count);
		ck_assert_int_eq(s->value[2 * event + 1], w->weight);
		for (int t = 0; t < 2 * PK_SYNTH_NEVENTS; t++)
			got_totals[t] += s->value[t];
	}
	for (int t = 0; t < 2 * PK_SYNTH_NEVENTS; t++)
		ck_assert_uint_eq(got_totals[t], totals[t]);
	/* the model's own sanity: off-cpu's weight is its own */
	ck_assert_uint_eq(totals[3], 700 + 700 + 1499 + 2500 + 100000000);
	ck_assert_uint_eq(totals[5], 50);
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(buf);

	/* an event past the table: refused */
	p.nevents = 2;
	check_refused(&p);
}
END_TEST

static bool has_control(const struct pk_stack_view *st)
{
	for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
		for (size_t k = 0; k < st->locs[j]->nframes; k++)
			for (const char *c = st->locs[j]->frames[k].name; *c; c++)
				if ((unsigned char)*c < 0x20)
					return true;
	return false;
}

static char *want_trace(const struct want_ev *w, long long value)
{
	const struct pk_stack_view *st = w->stack;
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	fprintf(f, "%lld comm=%s cpu=%u pid=%u tid=%u |", value, st->comm, w->cpu, st->pid,
		w->tid);
	for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
		for (size_t k = 0; k < st->locs[j]->nframes; k++)
			fprintf(f, " %s", st->locs[j]->frames[k].name);
	fclose(f);
	return line;
}

static char *got_trace(const struct ppr_trace *t)
{
	static const char *const keys[] = { "comm", "cpu", "pid", "tid" };
	char *line = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&line, &len);

	fprintf(f, "%lld", t->value);
	ck_assert_uint_eq(t->nlabels, 4);
	for (size_t i = 0; i < 4; i++) {
		const char *v = NULL;

		for (size_t k = 0; k < t->nlabels; k++)
			if (!strcmp(t->labels[k].key, keys[i]))
				v = t->labels[k].value;
		ck_assert_msg(v, "no label %s", keys[i]);
		fprintf(f, " %s=%s", keys[i], v);
	}
	fputs(" |", f);
	for (size_t k = 0; k < t->nframes; k++)
		fprintf(f, " %s", t->frames[k]);
	fclose(f);
	return line;
}

/* go tool pprof -sample_index=TYPE shows each event's samples alone, with
 * their counts or weights, for each of the six types. */
START_TEST(test_events_go)
{
	struct pk_profile p = pk_synth_profile_events(PK_GROUP_NONE, false);
	struct pk_sample_view v[32];
	struct want_ev want[32];
	size_t n = 0, nwant;
	char *path, *text, err[512];

	if (!need_go())
		return;
	/* pprof's text cannot carry a newline in a name, and -traces prints
	 * no sample without frames: those stacks out */
	for (size_t i = 0; i < p.nsamples; i++)
		if (!has_control(p.samples[i].stack) &&
		    p.samples[i].stack->nkernel + p.samples[i].stack->nuser)
			v[n++] = p.samples[i];
	ck_assert_uint_lt(n, p.nsamples);
	p.samples = v;
	p.nsamples = n;
	nwant = want_events(&p, want);
	path = write_to_file(&p);
	for (int t = 0; t < 2 * PK_SYNTH_NEVENTS; t++) {
		char type[300], *wants[32], *gots[32];
		struct ppr_traces got;
		size_t nw = 0, k;

		snprintf(type, sizeof(type), "%.*s", (int)strcspn(ev_types[t], "/"), ev_types[t]);
		for (size_t i = 0; i < nwant; i++) {
			long long value = t % 2 ? want[i].weight : want[i].count;

			if (want[i].event == (__u32)t / 2 && value)
				wants[nw++] = want_trace(&want[i], value);
		}
		ck_assert_uint_gt(nw, 0);
		memset(gots, 0, sizeof(gots));
		ck_assert_msg(ppr_run_traces(path, type, &text, err, sizeof(err)) == 0, "%s", err);
		ck_assert_msg(ppr_parse_traces(text, &got, err, sizeof(err)) == 0, "%s\n%s", err, text);
		ck_assert_str_eq(got.type, type);
		/* every sample, those of the other events with 0; pprof merges
		 * samples of one stack and labels (their values summed), so
		 * that only the event of TYPE adds to each value */
		ck_assert_msg(got.ntraces <= nwant && got.ntraces >= nw,
			      "-sample_index=%s: %zu traces, %zu in the model\n%s",
			      type, got.ntraces, nwant, text);
		k = 0;
		for (size_t i = 0; i < got.ntraces; i++)
			if (got.traces[i].value) {
				ck_assert_uint_lt(k, nw);
				gots[k++] = got_trace(&got.traces[i]);
			}
		ck_assert_msg(k == nw, "-sample_index=%s: %zu samples with a value, %zu in the model\n%s",
			      type, k, nw, text);
		qsort(wants, nw, sizeof(*wants), cmp_strp);
		qsort(gots, nw, sizeof(*gots), cmp_strp);
		for (size_t i = 0; i < nw; i++) {
			ck_assert_msg(gots[i], "-sample_index=%s: %zu samples with a value, %zu in the model", type, i, nw);
			ck_assert_str_eq(gots[i], wants[i]);
			free(gots[i]);
			free(wants[i]);
		}
		ppr_traces_free(&got);
		free(text);
	}
	unlink(path);
	free(path);
}
END_TEST

/* Python frames as Go's pprof reads them: function QUALNAME in FILE, the
 * line on the location's line, no mapping; -traces shows the stacks with
 * the Python names in place of the eval loop's. */
START_TEST(test_python_go)
{
	static const struct {
		const char *name, *file;
		long long line;
	} want_locs[] = {
		{ "Job.run", "/srv/app/job.py", 12 },
		{ "<module>", "/srv/app/main.py", 3 },
		{ "caf\xc3\xa9.\xc3\xbc" "ber", "/srv/app/util.py", 0 },
		{ "[py:0x7f1200004000]", "", 0 },
		{ "<module>", "/srv/app/other.py", 1 },
	};
	static const struct {
		const char *frames;
		long long value;
	} want_traces[] = {
		{ "Job.run|method_vectorcall_NOARGS|<module>|Py_RunMain", 3 },
		{ "do_syscall_64|caf\xc3\xa9.\xc3\xbc" "ber|Job.run|<module>|Py_RunMain", 1 },
		{ "[py:0x7f1200004000]|_PyEval_EvalFrameDefault|<module>|Py_RunMain", 1 },
	};
	struct pk_profile p = pk_synth_python_profile(PK_GROUP_NONE, false);
	long long got_values[3] = { 0 };
	struct ppr_profile got;
	struct ppr_traces traces;
	char *path, *text, err[512];

	if (!need_go())
		return;
	path = write_to_file(&p);
	ck_assert_msg(ppr_run(path, &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse(text, &got, err, sizeof(err)) == 0, "%s\n%s", err, text);
	for (size_t w = 0; w < sizeof(want_locs) / sizeof(want_locs[0]); w++) {
		size_t found = 0;

		for (size_t i = 0; i < got.nlocs; i++) {
			const struct ppr_location *l = &got.locs[i];

			if (l->nlines != 1 || strcmp(l->lines[0].name, want_locs[w].name) ||
			    strcmp(l->lines[0].file, want_locs[w].file))
				continue;
			ck_assert_ptr_null(l->mapping);
			ck_assert_int_eq(l->lines[0].line, want_locs[w].line);
			found++;
		}
		ck_assert_msg(found == 1, "%s in %s: %zu locations\n%s", want_locs[w].name,
			      want_locs[w].file, found, text);
	}
	ppr_free(&got);
	free(text);

	ck_assert_msg(ppr_run_traces(path, "samples", &text, err, sizeof(err)) == 0, "%s", err);
	ck_assert_msg(ppr_parse_traces(text, &traces, err, sizeof(err)) == 0, "%s\n%s", err, text);
	for (size_t i = 0; i < traces.ntraces; i++) {
		char joined[512] = "";
		size_t w;

		if (!traces.traces[i].value && !traces.traces[i].nframes)
			continue;	/* what the parser makes of the closing rule */
		for (size_t k = 0; k < traces.traces[i].nframes; k++) {
			if (k)
				strcat(joined, "|");
			strncat(joined, traces.traces[i].frames[k], 100);
		}
		for (w = 0; w < 3; w++)
			if (!strcmp(joined, want_traces[w].frames))
				break;
		ck_assert_msg(w < 3, "trace %s is not in the model\n%s", joined, text);
		got_values[w] += traces.traces[i].value;
	}
	for (size_t w = 0; w < 3; w++)
		ck_assert_msg(got_values[w] == want_traces[w].value, "%s: %lld samples\n%s",
			      want_traces[w].frames, got_values[w], text);
	ppr_traces_free(&traces);
	free(text);
	unlink(path);
	free(path);
}
END_TEST

/* The label KEY of S, or NULL when S has none. */
static const Perftools__Profiles__Label *label_or_null(const Perftools__Profiles__Profile *m,
						       const Perftools__Profiles__Sample *s,
						       const char *key)
{
	for (size_t i = 0; i < s->n_label; i++)
		if (strcmp(pk_test_pprof_str(m, s->label[i]->key), key) == 0)
			return s->label[i];
	return NULL;
}

/* Every sample whose cgroup was named carries it as the label "cgroup",
 * and the container's id as "container_id" where the path names one; a
 * stack whose cgroup was not looked up has neither. */
START_TEST(test_cgroup_labels)
{
	static const struct {
		const char *cgroup, *container;
		long long count;
	} want[] = {
		{ "/system.slice/docker-" PK_SYNTH_CONTAINER_ID ".scope", PK_SYNTH_CONTAINER_ID, 2 },
		{ "/user.slice", NULL, 1 },
		{ "cgroup:30", NULL, 1 },
		{ NULL, NULL, 1 },
	};
	struct pk_profile p = pk_synth_cgroup_profile(PK_GROUP_NONE, false);
	bool seen[4] = { false };
	size_t len;
	int ret;
	unsigned char *buf = (unsigned char *)write_to_memory(&p, &len, &ret);
	Perftools__Profiles__Profile *m;

	ck_assert_int_eq(ret, 0);
	m = pk_test_pprof_decode(buf, len);
	ck_assert_uint_eq(m->n_sample, 4);
	for (size_t i = 0; i < m->n_sample; i++) {
		const Perftools__Profiles__Sample *s = m->sample[i];
		const Perftools__Profiles__Label *cg = label_or_null(m, s, "cgroup");
		const Perftools__Profiles__Label *cid = label_or_null(m, s, "container_id");
		size_t w;

		for (w = 0; w < 4; w++)
			if (want[w].cgroup ? cg && !strcmp(pk_test_pprof_str(m, cg->str), want[w].cgroup) : !cg)
				break;
		ck_assert_msg(w < 4, "sample %zu: cgroup %s", i, cg ? pk_test_pprof_str(m, cg->str) : "(none)");
		ck_assert(!seen[w]);
		seen[w] = true;
		ck_assert_int_eq(s->value[0], want[w].count);
		ck_assert_str_eq(pk_test_pprof_str(m, label(m, s, "comm")->str), "svc");
		if (want[w].container) {
			ck_assert_ptr_nonnull(cid);
			ck_assert_str_eq(pk_test_pprof_str(m, cid->str), want[w].container);
			ck_assert_int_eq(cid->num, 0);
		} else {
			ck_assert_ptr_null(cid);
		}
		ck_assert_uint_eq(s->n_label, 4 + (cg != NULL) + (cid != NULL));
		if (cg)
			ck_assert_int_eq(cg->num, 0);
	}
	perftools__profiles__profile__free_unpacked(m, NULL);
	free(buf);
}
END_TEST

/* gzip(1) agrees that the file is gzip. */
START_TEST(test_gzip_tool)
{
	struct pk_profile p = model();
	char *path = write_to_file(&p);
	char *argv[] = { "gzip", "-t", path, NULL };
	int st = pk_test_run(argv, NULL, NULL);

	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	unlink(path);
	free(path);
}
END_TEST

/* --- errors --------------------------------------------------------------- */

START_TEST(test_write_errors)
{
	struct pk_profile p = model();
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

/* An inconsistent profile is refused before anything is written. */
static void check_refused(const struct pk_profile *p)
{
	size_t len;
	int ret;
	char *buf = write_to_memory(p, &len, &ret);

	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_uint_eq(len, 0);
	free(buf);
}

START_TEST(test_bad_profile)
{
	struct pk_profile p = model();
	struct pk_sample_view s[1] = { { 1, 1, 0, 1, &S0 } };
	struct pk_loc bad_loc = L_compute;
	const struct pk_loc *bad_locs[] = { &bad_loc };
	struct pk_stack_view bad_stack = { 0, 1, "x", 0, 1, bad_locs };
	struct pk_map bad_map = map_app100;

	p.nlocs = 5;			/* locations with ids past it */
	check_refused(&p);
	p = model();
	p.nstacks = 2;			/* stacks with ids past it */
	check_refused(&p);
	p = model();
	p.nmaps = 3;			/* maps with ids past it */
	check_refused(&p);

	/* a location without frames */
	p = model();
	p.samples = s;
	p.nsamples = 1;
	s[0].stack = &bad_stack;
	bad_loc.nframes = 0;
	check_refused(&p);

	/* two locations, two maps, two stacks with one id */
	bad_loc = L_compute;		/* id 0, as L_compute in S0 */
	p.samples = samples;
	p.nsamples = NSAMPLES;
	{
		struct pk_sample_view more[NSAMPLES + 1];

		memcpy(more, samples, sizeof(samples));
		more[NSAMPLES] = (struct pk_sample_view){ 1, 1, 0, 1, &bad_stack };
		bad_stack.id = 4;	/* a new stack: S4 has id 4 */
		p.samples = more;
		p.nsamples = NSAMPLES + 1;
		check_refused(&p);
		bad_stack.id = NSTACKS;	/* past nstacks */
		check_refused(&p);
		p.nstacks = NSTACKS + 1;
		check_refused(&p);	/* the location's id is L_compute's */
		bad_loc.id = NLOCS - 1;
		bad_map.id = 1;		/* map_libc100's */
		bad_loc.map = &bad_map;
		check_refused(&p);
		bad_map.id = NMAPS - 1;	/* unused: now all is consistent */
		{
			size_t len;
			int ret;
			char *buf = write_to_memory(&p, &len, &ret);

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
	tcase_add_test(tc, test_go_pprof);
	tcase_add_test(tc, test_many_samples);
	tcase_add_test(tc, test_raw_parse);
	tcase_add_test(tc, test_gzip_tool);
	tcase_add_test(tc, test_write_errors);
	tcase_add_test(tc, test_bad_profile);
	tcase_add_test(tc, test_events_decode);
	tcase_add_test(tc, test_events_go);
	tcase_add_test(tc, test_python_go);
	tcase_add_test(tc, test_cgroup_labels);
	suite_add_tcase(s, tc);
	return s;
}
