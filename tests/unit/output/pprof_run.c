// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The harness of suite pprof (pprof_run.h): the profile built by hand (the
 * model), what it says computed from it alone, the writer run into a file
 * or memory, and the decoded message's labels.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "gen/profile.pb-c.h"
#include "harness/pprof_decode.h"
#include "harness/pprof_raw.h"
#include "output/pprof.h"
#include "test_util.h"
#include "unit/output/pprof_run.h"

/* --- the model ------------------------------------------------------------ */

static const struct pk_module mod_app = {
	0, "/usr/bin/app", "0123456789abcdef0123456789abcdef01234567" };
static const struct pk_module mod_libc = {
	1, "/usr/lib/x86_64-linux-gnu/libc.so.6", "c0ffee00c0ffee00c0ffee00c0ffee00c0ffee00" };
static const struct pk_module mod_kernel = { 2, "[kernel.kallsyms]", NULL };
/* a path with a space, no build-id, no symbols */
static const struct pk_module mod_nosym = { 3, "/opt/my tools/libnosym.so", NULL };

const struct pk_map pk_pp_map_app100 = { 0, 0x400000, 0x402000, 0, &mod_app };
const struct pk_map pk_pp_map_libc100 = { 1, 0x7f0000028000, 0x7f00001a0000, 0x28000, &mod_libc };
static const struct pk_map map_app200 = { 2, 0x555555555000, 0x555555556000, 0x1000, &mod_app };
/* libc again in another process, same offset and size: pprof makes one
 * mapping of the two */
static const struct pk_map map_libc200 = { 3, 0x7f3000028000, 0x7f30001a0000, 0x28000, &mod_libc };
const struct pk_map pk_pp_map_kernel = { 4, 0xffffffff81000000, 0xffffffff83000000, 0, &mod_kernel };
const struct pk_map pk_pp_map_nosym200 = { 5, 0x7f3000400000, 0x7f3000410000, 0, &mod_nosym };

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

const struct pk_loc pk_pp_L_compute = LOC(0, false, 0x401234, &pk_pp_map_app100, 0x14, fr_compute, 2);
static const struct pk_loc L_main100 = LOC(1, false, 0x401100, &pk_pp_map_app100, 0x20, &fr_main100, 1);
static const struct pk_loc L_start100 = LOC(2, false, 0x7f0000029d90, &pk_pp_map_libc100, 0x80, &fr_libc_start, 1);
static const struct pk_loc L_unknown = LOC(3, false, 0x7f5500001000, NULL, PK_LOC_NO_SYM, &fr_unknown, 1);
static const struct pk_loc L_ksys_read = LOC(4, true, 0xffffffff81400010, &pk_pp_map_kernel, 0x10, &fr_ksys_read, 1);
static const struct pk_loc L_do_syscall = LOC(5, true, 0xffffffff81e00020, &pk_pp_map_kernel, 0x20, &fr_do_syscall, 1);
static const struct pk_loc L_entry = LOC(6, true, 0xffffffff82000030, &pk_pp_map_kernel, 0x30, &fr_entry, 1);
static const struct pk_loc L_bpf = LOC(7, true, 0xffffffffc0001000, NULL, 0x10, &fr_bpf, 1);
static const struct pk_loc L_main200 = LOC(8, false, 0x555555555100, &map_app200, 0x24, &fr_main200, 1);
static const struct pk_loc L_read200 = LOC(9, false, 0x7f3000100010, &map_libc200, 0x10, &fr_read, 1);
static const struct pk_loc L_app_nosym = LOC(10, false, 0x555555555234, &map_app200, PK_LOC_NO_SYM, &fr_app_nosym, 1);
static const struct pk_loc L_nosym = LOC(11, false, 0x7f30004005a0, &pk_pp_map_nosym200, PK_LOC_NO_SYM, &fr_nosym, 1);

static const struct pk_loc *const S0_locs[] = { &pk_pp_L_compute, &L_main100, &L_start100 };
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

const struct pk_stack_view pk_pp_S0 = { 0, 100, "app", 0, 3, S0_locs };
static const struct pk_stack_view S1 = { 1, 100, "app", 3, 3, S1_locs };
const struct pk_stack_view pk_pp_S2 = { 2, 200, "my prog", 3, 4, S2_locs };
const struct pk_stack_view pk_pp_S3 = { 3, 0, "swapper/1", 2, 0, S3_locs };
static const struct pk_stack_view S4 = { 4, 200, "my prog", 0, 1, S4_locs };

/* time, tid, cpu, count, stack */
const struct pk_sample_view pk_pp_samples[] = {
	{ 5000000100, 100, 0, 1, &pk_pp_S0 },
	{ 5000000200, 101, 1, 2, &pk_pp_S0 },
	{ 5000000300, 100, 0, 1, &S1 },
	{ 5000000400, 100, 0, 3, &pk_pp_S0 },	/* merges with the first */
	{ 5000000500, 200, 1, 1, &pk_pp_S2 },
	{ 5000000600, 200, 1, 1, &pk_pp_S2 },	/* merges */
	{ 5000000700, 200, 0, 5, &pk_pp_S2 },	/* another CPU: apart */
	{ 5000000800, 0, 1, 7, &pk_pp_S3 },
	{ 5000000900, 100, 0, 2, &S1 },		/* merges */
	{ 5000001000, 201, 1, 1, &S4 },
};

struct pk_profile pk_pp_model(void)
{
	return (struct pk_profile){
		.freq_hz = 99,
		.period_ns = PERIOD_NS,
		.start_ns = 5000000000ULL,
		.end_ns = 7500000000ULL,
		.boot_to_real_ns = 1700000000000000000LL,
		.group = PK_GROUP_NONE,
		.nsamples = NSAMPLES,
		.samples = pk_pp_samples,
		.nstacks = NSTACKS,
		.nlocs = NLOCS,
		.nmaps = NMAPS,
		.nmodules = 4,
	};
}

/* --- what the model says, computed from it alone -------------------------- */

size_t pk_pp_want_samples(const struct pk_sample_view *v, size_t nv, struct want_sample *w)
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
const struct pk_loc *pk_pp_reached_loc(size_t id)
{
	for (size_t i = 0; i < NSAMPLES; i++) {
		const struct pk_stack_view *st = pk_pp_samples[i].stack;

		for (size_t j = 0; j < (size_t)st->nkernel + st->nuser; j++)
			if (st->locs[j]->id == id)
				return st->locs[j];
	}
	return NULL;
}

const struct pk_map *pk_pp_reached_map(size_t id)
{
	for (size_t l = 0; l < NLOCS; l++) {
		const struct pk_loc *loc = pk_pp_reached_loc(l);

		if (loc && loc->map && loc->map->id == id)
			return loc->map;
	}
	return NULL;
}

/* What the symbolizer found in MAP's locations (pprof.h's definition). */
struct flags pk_pp_want_flags(const struct pk_map *map)
{
	struct flags f = { 0 };

	for (size_t l = 0; l < NLOCS; l++) {
		const struct pk_loc *loc = pk_pp_reached_loc(l);

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
size_t pk_pp_want_nfunctions(void)
{
	const struct pk_frame *seen[64];
	size_t n = 0;

	for (size_t l = 0; l < NLOCS; l++) {
		const struct pk_loc *loc = pk_pp_reached_loc(l);

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

char *pk_pp_write_to_file(const struct pk_profile *p)
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

char *pk_pp_write_to_memory(const struct pk_profile *p, size_t *len, int *ret)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	*ret = pk_pprof_write(f, p);
	ck_assert_int_eq(fclose(f), 0);
	return buf;
}

Perftools__Profiles__Profile *pk_pp_written(const struct pk_profile *p)
{
	Perftools__Profiles__Profile *m;
	size_t len;
	int ret;
	unsigned char *buf = (unsigned char *)pk_pp_write_to_memory(p, &len, &ret);

	ck_assert_int_eq(ret, 0);
	m = pk_test_pprof_decode(buf, len);
	free(buf);
	return m;
}

int pk_pp_cmp_strp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

const Perftools__Profiles__Label *pk_pp_label(const Perftools__Profiles__Profile *m,
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

/* Skip when go is missing, unless CI=true. */
bool pk_pp_need_go(void)
{
	const char *ci = getenv("CI");

	if (ppr_go_available())
		return true;
	ck_assert_msg(!ci || strcmp(ci, "true") != 0,
		      "go (Debian golang-go) is missing and CI=true: a skip is a failure");
	fprintf(stderr, "SKIP: go is missing: no go tool pprof oracle\n");
	return false;
}

/* An inconsistent profile is refused before anything is written. */
void pk_pp_check_refused(const struct pk_profile *p)
{
	size_t len;
	int ret;
	char *buf = pk_pp_write_to_memory(p, &len, &ret);

	ck_assert_int_eq(ret, -EINVAL);
	ck_assert_uint_eq(len, 0);
	free(buf);
}

