// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Records in, folded stacks out: probe-read without the ring buffer. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "bpf/probekit.h"
#include "harness/elf_fixture.h"
#include "output/folded.h"
#include "reading/reader.h"
#include "reading/summary.h"
#include "test_util.h"

static const char KALLSYMS[] =
	"ffffffff81000000 T k_outer\n"
	"ffffffff81000100 T k_middle\n"
	"ffffffff81000200 T k_leaf\n"
	"ffffffff82000000 D k_data\n";

/* A sample record: kernel then user addresses, each leaf first. */
static size_t record(unsigned char *buf, __u32 pid, const char *comm, const __u64 *k, __u16 nk,
		     const __u64 *u, __u16 nu)
{
	struct pk_sample s = {
		.hdr = { .type = PK_EVENT_SAMPLE },
		.pid = pid, .tid = pid, .kstack_len = nk, .ustack_len = nu,
		.frames_off = sizeof(s),
	};

	s.hdr.size = sizeof(s) + 8 * (nk + nu);
	strncpy(s.comm, comm, sizeof(s.comm) - 1);
	memcpy(buf, &s, sizeof(s));
	if (nk)
		memcpy(buf + sizeof(s), k, 8 * nk);
	if (nu)
		memcpy(buf + sizeof(s) + 8 * nk, u, 8 * nu);
	return s.hdr.size;
}

/* The same, from a DWARF walk that ended with END. */
static size_t dwarf_record(unsigned char *buf, __u32 pid, const char *comm, const __u64 *k,
			   __u16 nk, const __u64 *u, __u16 nu, __u8 end)
{
	size_t size = record(buf, pid, comm, k, nk, u, nu);
	__u32 flags = PK_SAMPLE_USTACK_DWARF;

	memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
	buf[offsetof(struct pk_sample, ustack_end)] = end;
	return size;
}

/* A reader of O, on the fixture's /proc and kallsyms (<dir>/kallsyms). */
static struct pk_reader *new_reader_opts(struct pk_reader_opts o)
{
	char kallsyms[256];

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", pk_fx_dir());
	pk_fx_write_file(kallsyms, KALLSYMS);
	o.proc_root = pk_fx_proc_root();
	o.kernel_root = pk_fx_dir();
	return pk_reader_new(&o);
}

static struct pk_reader *new_reader_with(const struct pk_table_sink *tables, FILE *log)
{
	return new_reader_opts((struct pk_reader_opts){ .tables = tables, .log = log });
}

static struct pk_reader *new_reader(void)
{
	return new_reader_with(NULL, NULL);
}

/* P folded, as a string. */
static char *folded(const struct pk_profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(pk_folded_write(f, p), 0);
	fclose(f);
	return buf;
}

/* Everything R handled, folded. */
static char *output(struct pk_reader *r)
{
	struct pk_profile p = { 0 };

	pk_reader_take(r, 0, 0, &p);
	return folded(&p);
}

/* The interrupted address is looked up as is, every return address minus
 * one: a call that ends its function (here to a noreturn function) belongs
 * to the caller, not to whatever follows. */
START_TEST(test_return_addresses)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 die, die_size, caller, caller_size, main_addr, main_size, bias;
	char maps[4096] = "", *out;
	struct pk_reader *r;
	size_t size;

	pk_fx_symbol(prog, "die", &die, &die_size);
	pk_fx_symbol(prog, "tail_caller", &caller, &caller_size);
	pk_fx_symbol(prog, "main", &main_addr, &main_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	{
		/* Leaf at the very start of die; return address one past the
		 * end of tail_caller; then somewhere in main. Kernel: the
		 * leaf at k_leaf's first byte, a return address at the start
		 * of k_middle (the call ended k_outer). */
		const __u64 u[] = { bias + die, bias + caller + caller_size,
				    bias + main_addr + main_size / 2 };
		const __u64 k[] = { 0xffffffff81000200, 0xffffffff81000100 };

		r = new_reader();
		size = record(buf, PK_FX_PID, "prog", k, 2, u, 3);
		ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
		ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	}
	out = output(r);
	ck_assert_str_eq(out, "prog;main;tail_caller;die;k_outer_[k];k_leaf_[k] 2\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

/* Every stack, location and mapping P reaches has an id below P's counts,
 * and no two have one id. */
static void assert_dense_ids(const struct pk_profile *p)
{
	const void *stacks[64] = { 0 }, *locs[64] = { 0 }, *maps[64] = { 0 };

	ck_assert_uint_le(p->nstacks, 64);
	ck_assert_uint_le(p->nlocs, 64);
	ck_assert_uint_le(p->nmaps, 64);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_stack_view *st = p->samples[i].stack;

		ck_assert_uint_lt(st->id, p->nstacks);
		ck_assert(!stacks[st->id] || stacks[st->id] == st);
		stacks[st->id] = st;
		for (size_t k = 0; k < (size_t)st->nkernel + st->nuser; k++) {
			const struct pk_loc *l = st->locs[k];

			ck_assert_uint_lt(l->id, p->nlocs);
			ck_assert(!locs[l->id] || locs[l->id] == l);
			locs[l->id] = l;
			if (!l->map)
				continue;
			ck_assert_uint_lt(l->map->id, p->nmaps);
			ck_assert(!maps[l->map->id] || maps[l->map->id] == l->map);
			maps[l->map->id] = l->map;
		}
	}
}

/* PID's process exits: its fake /proc entry is gone. */
static void fake_exit(__u32 pid)
{
	char path[300];

	snprintf(path, sizeof(path), "%s/%u/maps", pk_fx_proc_root(), pid);
	ck_assert_int_eq(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/%u", pk_fx_proc_root(), pid);
	ck_assert_int_eq(rmdir(path), 0);
}

/* Profile after profile, what the last one alone held is freed: stacks no
 * sample of the new one holds, processes gone that only they named. Ids
 * start from 0 in each; a pid used again by a process mapping the program
 * elsewhere is named from its own mappings. */
START_TEST(test_takes_free_what_is_gone)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 die, main_addr, size, bias, bias2;
	char maps[4096] = "", maps2[4096] = "", *out;
	const __u32 a = PK_FX_PID, b = PK_FX_PID + 1;
	const __u64 k[] = { 0xffffffff81000250 };
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r;

	pk_fx_symbol(prog, "die", &die, &size);
	pk_fx_symbol(prog, "main", &main_addr, &size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(a, maps);
	pk_fx_set_maps(b, maps);
	r = new_reader();
	{
		const __u64 ua[] = { bias + die, bias + main_addr + 1 }, ub[] = { bias + main_addr };

		pk_reader_handle(r, buf, record(buf, a, "a", k, 1, ua, 2));
		pk_reader_handle(r, buf, record(buf, a, "a", k, 1, ua, 2));
		pk_reader_handle(r, buf, record(buf, b, "b", NULL, 0, ub, 1));
	}
	pk_reader_take(r, 0, 0, &p);
	ck_assert_uint_eq(p.nstacks, 2);
	assert_dense_ids(&p);
	out = folded(&p);
	ck_assert_str_eq(out, "a;main;die;k_leaf_[k] 2\nb;main 1\n");
	free(out);

	/* a exits; b goes on, through its old stack and a new one */
	fake_exit(a);
	{
		const __u64 ub[] = { bias + main_addr }, ub2[] = { bias + die, bias + main_addr + 1 };

		pk_reader_handle(r, buf, record(buf, b, "b", NULL, 0, ub, 1));
		pk_reader_handle(r, buf, record(buf, b, "b", NULL, 0, ub2, 2));
	}
	pk_reader_take(r, 0, 0, &p);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.stacks_dropped, 1);	/* a's */
	ck_assert_uint_eq(st.procs_forgotten, 1);	/* a */
	ck_assert_uint_eq(p.nstacks, 2);
	assert_dense_ids(&p);
	out = folded(&p);
	ck_assert_str_eq(out, "b;main 1\nb;main;die 1\n");
	free(out);

	/* a's pid again, the program mapped elsewhere: its own names */
	bias2 = pk_fx_fake_maps(prog, PK_FX_PIE_BASE + 0x10000000, maps2, sizeof(maps2));
	pk_fx_set_maps(a, maps2);
	{
		const __u64 ua[] = { bias2 + die, bias2 + main_addr + 1 };

		pk_reader_handle(r, buf, record(buf, a, "a2", NULL, 0, ua, 2));
	}
	pk_reader_take(r, 0, 0, &p);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.stacks_dropped, 3);	/* b's two */
	ck_assert_uint_eq(st.procs_forgotten, 1);	/* b lives */
	ck_assert_uint_eq(st.stacks, 4);		/* distinct ever */
	ck_assert_uint_eq(p.nstacks, 1);
	assert_dense_ids(&p);
	out = folded(&p);
	ck_assert_str_eq(out, "a2;main;die 1\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

/* A file is let go of a take after the last process that named it was
 * forgotten (one take of grace: a program run again soon keeps it), its
 * symbols with it; a process that maps it later has it read anew and
 * named alike. */
START_TEST(test_takes_free_files)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	char prog_a[256], prog_b[256], maps_a[4096] = "", maps_b[4096] = "", *out;
	__u64 main_a, main_b, size, bias_a, bias_b;
	const __u32 a = PK_FX_PID, b = PK_FX_PID + 1;
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r;

	snprintf(prog_a, sizeof(prog_a), "%s", pk_fx_build("cprog", pk_fx_c_src, false, "-pie"));
	snprintf(prog_b, sizeof(prog_b), "%s", pk_fx_build("cxxprog", pk_fx_cxx_src, true, "-pie"));
	pk_fx_symbol(prog_a, "main", &main_a, &size);
	pk_fx_symbol(prog_b, "main", &main_b, &size);
	bias_a = pk_fx_fake_maps(prog_a, PK_FX_PIE_BASE, maps_a, sizeof(maps_a));
	bias_b = pk_fx_fake_maps(prog_b, PK_FX_PIE_BASE, maps_b, sizeof(maps_b));
	pk_fx_set_maps(a, maps_a);
	pk_fx_set_maps(b, maps_b);
	r = new_reader();
	{
		const __u64 ua[] = { bias_a + main_a }, ub[] = { bias_b + main_b };

		pk_reader_handle(r, buf, record(buf, a, "a", NULL, 0, ua, 1));
		pk_reader_handle(r, buf, record(buf, b, "b", NULL, 0, ub, 1));
	}
	pk_reader_take(r, 0, 0, &p);
	out = folded(&p);
	ck_assert_str_eq(out, "a;main 1\nb;main 1\n");
	free(out);

	/* a exits: forgotten at the next take, its file at the one after */
	fake_exit(a);
	for (int take = 2; take <= 3; take++) {
		const __u64 ub[] = { bias_b + main_b };

		pk_reader_handle(r, buf, record(buf, b, "b", NULL, 0, ub, 1));
		pk_reader_take(r, 0, 0, &p);
		pk_reader_stats(r, &st);
		ck_assert_uint_eq(st.procs_forgotten, 1);
		ck_assert_uint_eq(st.files_freed, take == 2 ? 0 : 1);
		out = folded(&p);
		ck_assert_str_eq(out, "b;main 1\n");
		free(out);
	}

	/* a's program again, in a new process: read anew, named alike */
	pk_fx_set_maps(a, maps_a);
	{
		const __u64 ua[] = { bias_a + main_a }, ub[] = { bias_b + main_b };

		pk_reader_handle(r, buf, record(buf, a, "a2", NULL, 0, ua, 1));
		pk_reader_handle(r, buf, record(buf, b, "b", NULL, 0, ub, 1));
	}
	pk_reader_take(r, 0, 0, &p);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.files_freed, 1);
	out = folded(&p);
	ck_assert_str_eq(out, "a2;main 1\nb;main 1\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

/* Different raw stacks with the same names are one line; lines sorted. */
START_TEST(test_merge_and_sort)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 fn, fn_size, bias;
	char maps[4096] = "", *out;
	struct pk_reader *r;
	struct pk_reader_stats st;

	pk_fx_symbol(prog, "after_tail", &fn, &fn_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	pk_fx_set_maps(PK_FX_PID + 1, maps);
	r = new_reader();
	for (__u64 off = 0; off < 3; off++) {
		const __u64 u[] = { bias + fn + off };

		pk_reader_handle(r, buf, record(buf, PK_FX_PID, "zeta", NULL, 0, u, 1));
	}
	{
		const __u64 u[] = { bias + fn };
		const __u64 k[] = { 0xffffffff81000150 };

		pk_reader_handle(r, buf, record(buf, PK_FX_PID + 1, "alpha;x", NULL, 0, u, 1));
		/* A kernel thread: no user frames. */
		pk_reader_handle(r, buf, record(buf, 2, "kthreadd", k, 1, NULL, 0));
		/* An address outside any mapping, and a dead process. */
		const __u64 bad[] = { 0x1234 };

		pk_reader_handle(r, buf, record(buf, PK_FX_PID, "zeta", NULL, 0, bad, 1));
		pk_reader_handle(r, buf, record(buf, 999999, "gone", NULL, 0, u, 1));
	}
	out = output(r);
	ck_assert_str_eq(out,
			 "alpha:x;after_tail 1\n"
			 "gone;[unknown] 1\n"
			 "kthreadd;k_middle_[k] 1\n"
			 "zeta;[unknown] 1\n"
			 "zeta;after_tail 3\n");
	free(out);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 7);
	ck_assert_uint_eq(st.stacks, 7);
	ck_assert_uint_eq(st.bad, 0);
	pk_reader_free(r);
}
END_TEST

/* What PRINT makes of ST is WANT. */
static void check_summary(void (*print)(FILE *, const struct pk_reader_stats *),
			  const struct pk_reader_stats *st, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	print(f, st);
	fclose(f);
	ck_assert_str_eq(buf, want);
	free(buf);
}

/* A kernel thread's sample taken at TIME_NS, handled by R. */
static void sample_at(struct pk_reader *r, __u64 time_ns)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	size_t size = record(buf, 2, "kthreadd", k, 1, NULL, 0);

	memcpy(buf + offsetof(struct pk_sample, time_ns), &time_ns, sizeof(time_ns));
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
}

/* A profile's span is its first sample to its last, merged samples
 * included, and the reading time when it has none. */
START_TEST(test_span_of_samples)
{
	struct pk_reader *r = new_reader();
	struct pk_profile p = { 0 };

	/* one stack: merged into one sample, which keeps the first time */
	sample_at(r, 500);
	sample_at(r, 300);
	sample_at(r, 900);
	pk_reader_take(r, 1000, 2000, &p);
	ck_assert_uint_eq(p.nsamples, 1);
	ck_assert_uint_eq(p.start_ns, 300);
	ck_assert_uint_eq(p.end_ns, 900);
	pk_reader_take(r, 2000, 3000, &p);
	ck_assert_uint_eq(p.nsamples, 0);
	ck_assert_uint_eq(p.start_ns, 2000);
	ck_assert_uint_eq(p.end_ns, 3000);
	pk_reader_free(r);
}
END_TEST

/* --from-now: the samples taken before it are read and dropped, and the
 * span is the reading time, widened by a sample read after its end. */
START_TEST(test_span_from_now)
{
	struct pk_reader *r = new_reader_opts((struct pk_reader_opts){ .from_ns = 1000,
								       .timed = true });
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };

	sample_at(r, 999);
	sample_at(r, 1000);
	sample_at(r, 1500);
	pk_reader_take(r, 1000, 2000, &p);
	ck_assert_uint_eq(p.nsamples, 2);
	ck_assert_uint_eq(p.samples[0].time_ns, 1000);
	ck_assert_uint_eq(p.start_ns, 1000);
	ck_assert_uint_eq(p.end_ns, 2000);
	/* the next interval reads one taken in the last */
	sample_at(r, 1900);
	sample_at(r, 2500);
	pk_reader_take(r, 2000, 3000, &p);
	ck_assert_uint_eq(p.start_ns, 1900);
	ck_assert_uint_eq(p.end_ns, 3000);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 5);
	ck_assert_uint_eq(st.before_from, 1);
	ck_assert_uint_eq(st.event_samples[0], 4);
	check_summary(pk_summary_from_now, &st,
		      "probe-read: 1 of them sampled before this reader started, dropped (--from-now)\n");
	st.before_from = 0;
	check_summary(pk_summary_from_now, &st, "");
	pk_reader_free(r);
}
END_TEST

/* A Go binary whose .gopclntab was refused: the symbols line says why,
 * once, with how many more there were. */
START_TEST(test_go_refused_line)
{
	struct pk_reader_stats st = { .user_frames = 4, .user_named = 2 };
	const char *line = "symbols: 50.0% of user frames named, 0.0% with a source line, "
			   "0.0% inlined\n";
	char want[1024];

	check_summary(pk_summary_symbols, &st, line);
	st.go_refused = 1;
	snprintf(st.go_err, sizeof(st.go_err), "/srv/app: Go .gopclntab of an unknown layout");
	snprintf(want, sizeof(want), "%ssymbols: /srv/app: Go .gopclntab of an unknown layout\n",
		 line);
	check_summary(pk_summary_symbols, &st, want);
	st.go_refused = 3;
	snprintf(want, sizeof(want), "%ssymbols: /srv/app: Go .gopclntab of an unknown layout "
		 "(and 2 more Go files)\n", line);
	check_summary(pk_summary_symbols, &st, want);
}
END_TEST

/* A kernel thread's sample of kernel frame K weighing WEIGHT, the
 * definition of aggregated stack KEY (0: an ordinary sample). */
static size_t agg_record(unsigned char *buf, __u64 k, __u64 weight, __u64 key)
{
	size_t size = record(buf, 2, "kthreadd", &k, 1, NULL, 0);
	__u32 flags = key ? PK_SAMPLE_AGG_DEF : 0;

	memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
	memcpy(buf + offsetof(struct pk_sample, weight), &weight, sizeof(weight));
	memcpy(buf + offsetof(struct pk_sample, agg_hash), &key, sizeof(key));
	return size;
}

/* Counts of KEY read at TIME_NS. */
static void add_counts(struct pk_reader *r, __u64 key, __u64 count, __u64 weight,
		       __u64 time_ns)
{
	struct pk_agg_value v = { .count = count, .weight = weight };

	ck_assert_int_eq(pk_reader_add_counts(r, key, &v, time_ns), 0);
}

/* The weight of P's samples of stack ID. */
static __u64 stack_weight(const struct pk_profile *p, const char *leaf, __u64 *count)
{
	__u64 w = 0;

	*count = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct pk_stack_view *v = p->samples[i].stack;

		if (strcmp(v->locs[0]->frames[0].name, leaf) == 0) {
			w += p->samples[i].weight;
			*count += p->samples[i].count;
		}
	}
	return w;
}

/* --aggregate: counts are samples of the stack their definition names,
 * those read before it wait for it, and those of a definition never
 * read are counted as lost. */
START_TEST(test_agg_counts)
{
	const __u64 key_a = 0xa, key_b = 0xb, key_c = 0xc;
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_reader *r = new_reader();
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	__u64 n;
	char *out;

	/* A defined, then counted; B counted before its definition */
	ck_assert_int_eq(pk_reader_handle(r, buf, agg_record(buf, 0xffffffff81000250, 10, key_a)),
			 0);
	add_counts(r, key_a, 4, 40, 100);
	add_counts(r, key_a, 0, 0, 100);	/* only the definition's sample */
	add_counts(r, key_b, 3, 30, 100);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.agg_pending, 3);
	pk_reader_take(r, 0, 0, &p);
	out = folded(&p);
	ck_assert_str_eq(out, "kthreadd;k_leaf_[k] 5\n");
	free(out);
	ck_assert_uint_eq(stack_weight(&p, "k_leaf", &n), 50);
	ck_assert_uint_eq(n, 5);
	/* B's definition comes: its sample and the 3 waiting */
	ck_assert_int_eq(pk_reader_handle(r, buf, agg_record(buf, 0xffffffff81000150, 7, key_b)),
			 0);
	add_counts(r, key_b, 2, 20, 200);
	/* an ordinary sample of B's stack merges with them */
	ck_assert_int_eq(pk_reader_handle(r, buf, agg_record(buf, 0xffffffff81000150, 5, 0)), 0);
	pk_reader_take(r, 0, 0, &p);
	out = folded(&p);
	ck_assert_str_eq(out, "kthreadd;k_middle_[k] 7\n");
	free(out);
	ck_assert_uint_eq(stack_weight(&p, "k_middle", &n), 7 + 30 + 20 + 5);
	ck_assert_uint_eq(n, 7);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.agg_pending, 0);
	ck_assert_uint_eq(st.agg_defs, 2);
	ck_assert_uint_eq(st.agg_counted, 4 + 3 + 2);
	ck_assert_uint_eq(st.samples, 5 + 7);
	ck_assert_uint_eq(st.event_samples[0], 12);
	ck_assert_uint_eq(st.event_weight[0], 50 + 62);
	/* A was last used two takes ago: its definition is forgotten (the
	 * kernel sends it again with each map it is counted in); C never
	 * had one */
	add_counts(r, key_a, 1, 10, 300);
	add_counts(r, key_c, 2, 20, 300);
	pk_reader_take(r, 0, 0, &p);
	ck_assert_uint_eq(p.nsamples, 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.agg_pending, 3);
	ck_assert_uint_eq(st.samples, 12);
	{
		__u64 cnt[PK_CNT__MAX] = { [PK_CNT_AGG_COUNTED] = 9, [PK_CNT_AGG_FULL] = 4 };
		char *buf2 = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf2, &len);

		pk_summary_aggregate(f, &st, cnt);
		pk_summary_aggregate(f, &(struct pk_reader_stats){ 0 }, NULL);
		fclose(f);
		ck_assert_str_eq(buf2,
				 "probe-read: 9 of them counted in the kernel (--aggregate), 2 sent to define their stacks; 4 sent whole (the counts map was full: probe-load --aggregate-entries)\n"
				 "probe-read: 3 samples counted in the kernel under stacks whose definition was lost (ring buffer full): not in the profile\n");
		free(buf2);
	}
	pk_reader_free(r);
}
END_TEST

/* A definition the reader cannot use (an event the session does not
 * have) is a bad record, and names no counts. */
START_TEST(test_agg_bad_def)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_reader *r = new_reader();
	struct pk_reader_stats st;
	size_t size = agg_record(buf, 0xffffffff81000250, 10, 0xd);
	__u16 event = 1;

	memcpy(buf + offsetof(struct pk_sample, event), &event, sizeof(event));
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	add_counts(r, 0xd, 2, 20, 100);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.bad, 1);
	ck_assert_uint_eq(st.agg_defs, 0);
	ck_assert_uint_eq(st.agg_pending, 2);
	ck_assert_uint_eq(st.samples, 0);
	pk_reader_free(r);
}
END_TEST

START_TEST(test_bad_records)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	struct pk_event_hdr other = { .type = 7, .size = sizeof(other) };
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader();
	size_t size = record(buf, 2, "kthreadd", k, 1, NULL, 0);
	char *out;

	ck_assert_int_eq(pk_reader_handle(r, buf, size - 1), 0);	/* truncated */
	ck_assert_int_eq(pk_reader_handle(r, buf, 3), 0);
	ck_assert_int_eq(pk_reader_handle(r, &other, sizeof(other)), 0);	/* unknown type */
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.bad, 2);
	ck_assert_uint_eq(st.skipped, 1);
	out = output(r);
	ck_assert_str_eq(out, "kthreadd;k_middle_[k] 1\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

/* A kernel-only sample of EVENT with WEIGHT. */
static size_t event_record(unsigned char *buf, __u32 tid, __u32 cpu, __u16 event, __u64 weight)
{
	static const __u64 k[] = { 0xffffffff81000150, 0xffffffff81000010 };
	size_t size = record(buf, 2, "kthreadd", k, 2, NULL, 0);

	memcpy(buf + offsetof(struct pk_sample, tid), &tid, sizeof(tid));
	memcpy(buf + offsetof(struct pk_sample, cpu), &cpu, sizeof(cpu));
	memcpy(buf + offsetof(struct pk_sample, event), &event, sizeof(event));
	memcpy(buf + offsetof(struct pk_sample, weight), &weight, sizeof(weight));
	return size;
}

static struct pk_reader *new_events_reader(unsigned int nevents, unsigned int keep_event,
					   bool timed)
{
	char kallsyms[256];
	struct pk_reader_opts o = { .proc_root = pk_fx_proc_root(),
				    .kernel_root = pk_fx_dir(), .nevents = nevents,
				    .keep_event = keep_event, .timed = timed };

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", pk_fx_dir());
	pk_fx_write_file(kallsyms, KALLSYMS);
	return pk_reader_new(&o);
}

/* Samples of several events on one stack: merged per event only, their
 * weights summed; an event the session does not have is a bad record. */
START_TEST(test_events)
{
	/* event, tid, cpu, weight */
	static const struct { __u16 ev; __u32 tid, cpu; __u64 w; } in[] = {
		{ 0, 10, 0, 1000000 }, { 1, 10, 0, 2500000 }, { 0, 10, 0, 1000000 },
		{ 1, 10, 0, 7500000 }, { 1, 11, 0, 4000 }, { 2, 10, 0, 1 },
		{ 0, 10, 1, 999 }, { 1, 10, 0, ~0ULL }, { 5, 10, 0, 1 },
	};
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r = new_events_reader(2, 0, false);
	bool seen[4] = { false };

	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++)
		ck_assert_int_eq(pk_reader_handle(r, buf, event_record(buf, in[i].tid, in[i].cpu,
									  in[i].ev, in[i].w)), 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 7);
	ck_assert_uint_eq(st.bad, 2);		/* events 2 and 5 of 2 */
	ck_assert_uint_eq(st.filtered, 0);
	ck_assert_uint_eq(st.event_samples[0], 3);
	ck_assert_uint_eq(st.event_samples[1], 4);
	ck_assert_uint_eq(st.event_samples[2], 0);
	ck_assert_uint_eq(st.event_weight[0], 2000999);
	ck_assert_uint_eq(st.event_weight[1], ~0ULL);	/* saturated */
	ck_assert_uint_eq(st.stacks, 1);		/* one stack for all */
	pk_reader_take(r, 0, 0, &p);
	/* (event 0, tid 10, cpu 0) x2; (1, 10, 0) x3; (1, 11, 0); (0, 10, 1) */
	ck_assert_uint_eq(p.nsamples, 4);
	for (size_t i = 0; i < p.nsamples; i++) {
		const struct pk_sample_view *v = &p.samples[i];

		if (v->event == 0 && v->cpu == 0) {
			ck_assert_uint_eq(v->count, 2);
			ck_assert_uint_eq(v->weight, 2000000);
			seen[0] = true;
		} else if (v->event == 1 && v->tid == 10) {
			ck_assert_uint_eq(v->count, 3);
			ck_assert_uint_eq(v->weight, ~0ULL);
			seen[1] = true;
		} else if (v->event == 1) {
			ck_assert_uint_eq(v->count, 1);
			ck_assert_uint_eq(v->weight, 4000);
			seen[2] = true;
		} else {
			ck_assert_uint_eq(v->event, 0);
			ck_assert_uint_eq(v->cpu, 1);
			ck_assert_uint_eq(v->weight, 999);
			seen[3] = true;
		}
	}
	ck_assert(seen[0] && seen[1] && seen[2] && seen[3]);
	pk_reader_free(r);

	/* Timed: each sample its own entry, in order, with its weight. */
	r = new_events_reader(2, 0, true);
	for (size_t i = 0; i < 4; i++)
		pk_reader_handle(r, buf, event_record(buf, in[i].tid, in[i].cpu, in[i].ev, in[i].w));
	pk_reader_take(r, 0, 0, &p);
	ck_assert_uint_eq(p.nsamples, 4);
	for (size_t i = 0; i < 4; i++) {
		ck_assert_uint_eq(p.samples[i].event, in[i].ev);
		ck_assert_uint_eq(p.samples[i].weight, in[i].w);
		ck_assert_uint_eq(p.samples[i].count, 1);
	}
	pk_reader_free(r);

	/* nevents 0: only event 0 is known */
	r = new_events_reader(0, 0, false);
	pk_reader_handle(r, buf, event_record(buf, 1, 0, 1, 5));
	pk_reader_handle(r, buf, event_record(buf, 1, 0, 0, 5));
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.bad, 1);
	pk_reader_free(r);
}
END_TEST

/* --event: the other events' samples are counted, never kept. */
START_TEST(test_keep_event)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r = new_events_reader(3, 2, false);	/* event 1 */

	pk_reader_handle(r, buf, event_record(buf, 10, 0, 0, 100));
	pk_reader_handle(r, buf, event_record(buf, 10, 0, 1, 200));
	pk_reader_handle(r, buf, event_record(buf, 10, 0, 2, 300));
	pk_reader_handle(r, buf, event_record(buf, 10, 0, 1, 400));
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 4);
	ck_assert_uint_eq(st.filtered, 2);
	ck_assert_uint_eq(st.event_samples[0], 1);
	ck_assert_uint_eq(st.event_samples[1], 2);
	ck_assert_uint_eq(st.event_samples[2], 1);
	ck_assert_uint_eq(st.kernel_frames, 4);	/* of the kept samples only */
	pk_reader_take(r, 0, 0, &p);
	ck_assert_uint_eq(p.nsamples, 1);
	ck_assert_uint_eq(p.samples[0].event, 1);
	ck_assert_uint_eq(p.samples[0].count, 2);
	ck_assert_uint_eq(p.samples[0].weight, 600);
	pk_reader_free(r);
}
END_TEST

/* A walk that stopped early still shows the frames it found, and the
 * deepest stacks (a full DWARF walk under a full kernel stack) fit. */
START_TEST(test_incomplete_walks)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 fn, fn_size, main_addr, main_size, bias;
	__u64 u[PK_MAX_USTACK_DEPTH], k[PK_MAX_STACK_DEPTH];
	char maps[4096] = "", *out, *want;
	size_t len = 0;
	FILE *f = open_memstream(&want, &len);
	struct pk_reader_stats st;
	struct pk_reader *r;

	pk_fx_symbol(prog, "after_tail", &fn, &fn_size);
	pk_fx_symbol(prog, "main", &main_addr, &main_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	for (size_t i = 0; i < PK_MAX_USTACK_DEPTH; i++)
		u[i] = bias + fn + fn_size / 2;
	for (size_t i = 0; i < PK_MAX_STACK_DEPTH; i++)
		k[i] = 0xffffffff81000210;
	r = new_reader();
	ck_assert_int_eq(pk_reader_handle(r, buf, dwarf_record(buf, PK_FX_PID, "deep", k,
							       PK_MAX_STACK_DEPTH, u,
							       PK_MAX_USTACK_DEPTH,
							       PK_END_DEPTH)), 0);
	u[1] = bias + main_addr + main_size / 2;
	for (__u8 end = PK_END_NO_TABLE; end < PK_END__MAX; end++)
		ck_assert_int_eq(pk_reader_handle(r, buf, dwarf_record(buf, PK_FX_PID, "cut", NULL,
								       0, u, 2, end)), 0);
	/* Nothing found at all: the sample still counts, under its comm. */
	ck_assert_int_eq(pk_reader_handle(r, buf, dwarf_record(buf, PK_FX_PID, "none", NULL, 0,
							       NULL, 0, PK_END_READ_FAULT)), 0);
	out = output(r);
	fprintf(f, "cut;main;after_tail %d\n", PK_END__MAX - PK_END_NO_TABLE);
	fputs("deep", f);
	for (size_t i = 0; i < PK_MAX_USTACK_DEPTH; i++)
		fputs(";after_tail", f);
	for (size_t i = 0; i < PK_MAX_STACK_DEPTH; i++)
		fputs(";k_leaf_[k]", f);
	fputs(" 1\nnone 1\n", f);
	fclose(f);
	ck_assert_str_eq(out, want);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 2 + PK_END__MAX - PK_END_NO_TABLE);
	ck_assert_uint_eq(st.dwarf, st.samples);
	ck_assert_uint_eq(st.bad, 0);
	free(out);
	free(want);
	pk_reader_free(r);
}
END_TEST

/* The walks that stopped at an unsupported rule, by kind: only the kinds
 * some walk met, in the counters' order; nothing when none did. */
START_TEST(test_unsupported_kinds)
{
	__u64 cnt[PK_CNT__MAX] = { 0 };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	pk_summary_unsupported(f, cnt);
	cnt[PK_CNT_UNSUP_CFA] = 3;
	cnt[PK_CNT_UNSUP_RA_REG] = 1;
	cnt[PK_CNT_END_UNSUPPORTED] = 4;
	pk_summary_unsupported(f, cnt);
	fclose(f);
	ck_assert_str_eq(buf, "unsupported rules: 3 CFA expression, 1 return-address register "
			 "not known\n");
	free(buf);
}
END_TEST

/* How walks ended, counted per sample that had one; old and fp samples are
 * not walks. */
START_TEST(test_walk_ends)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader();
	__u32 dwarf = PK_SAMPLE_USTACK_DWARF;
	__u16 v1_off = 56;
	size_t size;

	for (int i = 0; i < 7; i++)
		pk_reader_handle(r, buf, dwarf_record(buf, 2, "kthreadd", k, 1, NULL, 0,
						      PK_END_COMPLETE));
	for (int i = 0; i < 2; i++)
		pk_reader_handle(r, buf, dwarf_record(buf, 2, "kthreadd", k, 1, NULL, 0,
						      PK_END_NO_TABLE));
	pk_reader_handle(r, buf, dwarf_record(buf, 2, "kthreadd", k, 1, NULL, 0,
					      PK_END_READ_FAULT));
	/* Not walks: --unwind fp, and a layout 1 record whatever its flags say. */
	for (int i = 0; i < 3; i++)
		pk_reader_handle(r, buf, record(buf, 2, "kthreadd", k, 1, NULL, 0));
	size = record(buf, 2, "kthreadd", NULL, 0, NULL, 0);
	memcpy(buf + offsetof(struct pk_event_hdr, flags), &dwarf, sizeof(dwarf));
	memcpy(buf + offsetof(struct pk_sample, frames_off), &v1_off, sizeof(v1_off));
	pk_reader_handle(r, buf, size);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 14);
	ck_assert_uint_eq(st.dwarf, 10);
	ck_assert_uint_eq(st.ends[PK_END_COMPLETE], 7);
	ck_assert_uint_eq(st.ends[PK_END_NO_TABLE], 2);
	ck_assert_uint_eq(st.ends[PK_END_READ_FAULT], 1);
	ck_assert_uint_eq(st.ends[PK_END_LOOP], 0);
	check_summary(pk_summary_ustack_ends, &st,
		      "user stacks: 70.0% complete, 20.0% no table yet, 10.0% read fault\n");
	pk_reader_free(r);
}
END_TEST

START_TEST(test_walk_ends_line)
{
	struct pk_reader_stats st = { .samples = 9 };

	/* No walk: no line. */
	check_summary(pk_summary_ustack_ends, &st, "");
	/* Walks that ended only in ways this reader has no name for: no line. */
	st.dwarf = 2;
	st.ends[PK_END_NONE] = 2;
	check_summary(pk_summary_ustack_ends, &st, "");
	/* Every name, in enum order. */
	st.dwarf = 8;
	st.ends[PK_END_NONE] = 0;
	for (int e = PK_END_COMPLETE; e < PK_END__MAX; e++)
		st.ends[e] = 1;
	check_summary(pk_summary_ustack_ends, &st,
		      "user stacks: 12.5% complete, 12.5% depth limit, 12.5% no table yet, "
		      "12.5% unsupported rule, 12.5% read fault, 12.5% loop, "
		      "12.5% frame-pointer fallback, 12.5% no CFI at PC\n");
	/* A rare reason is not shown as 0.0%; an unknown one only dilutes. */
	memset(st.ends, 0, sizeof(st.ends));
	st.dwarf = 4001;
	st.ends[PK_END_COMPLETE] = 3999;
	st.ends[PK_END_LOOP] = 1;
	check_summary(pk_summary_ustack_ends, &st, "user stacks: 100.0% complete, <0.1% loop\n");
	st.dwarf = 8;
	st.ends[PK_END_COMPLETE] = 5;
	st.ends[PK_END_LOOP] = 0;
	st.ends[PK_END_FP_FALLBACK] = 2;
	check_summary(pk_summary_ustack_ends, &st,
		      "user stacks: 62.5% complete, 25.0% frame-pointer fallback\n");
}
END_TEST

/* What the reader gave the table sink. */
struct sink_log {
	int calls;
	bool path_null, name_null;
	char path[512], name[512];
	struct pk_file_key key;
	int ret;		/* what add() returns */
	int forgets;
	struct pk_file_key forgot;
};

static void sink_forget(void *ctx, const struct pk_file_key *key)
{
	struct sink_log *l = ctx;

	l->forgets++;
	l->forgot = *key;
}

static int sink_add(void *ctx, const struct pk_unwind_file *file, char err[PK_ERR_LEN])
{
	struct sink_log *l = ctx;

	l->calls++;
	l->path_null = !file->path;
	l->name_null = !file->name;
	snprintf(l->path, sizeof(l->path), "%s", file->path ? file->path : "");
	snprintf(l->name, sizeof(l->name), "%s", file->name ? file->name : "");
	l->key = file->key;
	return l->ret ? pk_err(err, l->ret, "store failure %d", l->calls) : 0;
}

static size_t no_table(unsigned char *buf, __u32 pid, __u64 dev, __u64 ino, __u64 start,
		       __u64 end)
{
	struct pk_no_table e = {
		.hdr = { .type = PK_EVENT_NO_TABLE, .size = sizeof(e) },
		.dev = dev, .ino = ino, .vm_start = start, .vm_end = end, .pid = pid,
	};

	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

/* <fake proc>/PID/map_files/NAME, a link to TARGET as the kernel has it
 * while the range is mapped. */
static void add_map_file(__u32 pid, const char *name, const char *target)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%u", pk_fx_proc_root(), pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/map_files", pk_fx_proc_root(), pid);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/%u/map_files/%s", pk_fx_proc_root(), pid, name);
	ck_assert_int_eq(symlink(target, path), 0);
}

START_TEST(test_no_table_events)
{
	struct sink_log log = { 0 };
	struct pk_table_sink sink = { .add = sink_add, .forget = sink_forget, .ctx = &log };
	unsigned char buf[sizeof(struct pk_no_table)];
	char want[512];
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader_with(&sink, NULL);

	add_map_file(PK_FX_PID, "7fabcdef0000-7fabcdef3000", "/usr/lib/libfoo.so.1");
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID, 0x800003, 1234,
							   0x7fabcdef0000, 0x7fabcdef3000)), 0);
	ck_assert_int_eq(log.calls, 1);
	snprintf(want, sizeof(want), "%s/4242/map_files/7fabcdef0000-7fabcdef3000",
		 pk_fx_proc_root());
	ck_assert_str_eq(log.path, want);
	ck_assert_str_eq(log.name, "/usr/lib/libfoo.so.1");
	ck_assert_uint_eq(log.key.dev, 0x800003);
	ck_assert_uint_eq(log.key.ino, 1234);
	ck_assert_int_eq(log.forgets, 0);
	/* The process exited: nothing to read the file through, nothing added;
	 * the kernel may report the file again. */
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID + 1, 0x800003, 99,
							   0x1000, 0x2000)), 0);
	ck_assert_int_eq(log.calls, 1);
	ck_assert_int_eq(log.forgets, 1);
	ck_assert_uint_eq(log.forgot.dev, 0x800003);
	ck_assert_uint_eq(log.forgot.ino, 99);
	/* The vDSO is no file: read from this process. */
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID + 1, PK_VDSO_DEV,
							   PK_VDSO_INO, 0x7ffd0000, 0x7ffd2000)), 0);
	ck_assert_int_eq(log.calls, 2);
	ck_assert(log.path_null);
	ck_assert(log.name_null);
	ck_assert_uint_eq(log.key.dev, PK_VDSO_DEV);
	ck_assert_uint_eq(log.key.ino, PK_VDSO_INO);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.no_table, 3);
	ck_assert_uint_eq(st.tables_added, 2);
	ck_assert_uint_eq(st.tables_gone, 1);
	ck_assert_uint_eq(st.tables_failed, 0);
	ck_assert_uint_eq(st.samples, 0);
	ck_assert_uint_eq(st.bad + st.skipped, 0);
	check_summary(pk_summary_no_table, &st,
		      "unwind tables: 3 files reported without one, 2 added, 1 gone (process exited)\n");
	pk_reader_free(r);
}
END_TEST

/* A PK_EVENT_MAPPING record for the executable mapping of PATH that the
 * fake maps line MAPS_LINE describes ("start-end r-xp offset dev ino path"),
 * as the kernel sends it: its dev_t is MAJOR << 20 | MINOR. */
static size_t mapping_record(unsigned char *buf, __u32 pid, const char *maps_line,
			     const char *path)
{
	struct pk_mapping_event e = { .hdr = { .type = PK_EVENT_MAPPING, .size = sizeof(e) },
				      .pid = pid, .table = PK_TABLE_NONE };
	unsigned long long start, end, off, ino;
	unsigned int maj, min;
	struct stat st;

	ck_assert_int_eq(sscanf(maps_line, "%llx-%llx r-xp %llx %x:%x %llu", &start, &end, &off,
				&maj, &min, &ino), 6);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_ino, ino);
	e.vm_start = start;
	e.vm_end = end;
	e.vm_pgoff = off / 4096;
	e.dev = (__u64)major(st.st_dev) << 20 | minor(st.st_dev);
	e.ino = st.st_ino;
	e.path_len = strlen(path);
	ck_assert_uint_lt(e.path_len, sizeof(e.path));
	memcpy(e.path, path, e.path_len);
	memcpy(buf, &e, sizeof(e));
	return sizeof(e);
}

/*
 * A process with no /proc entry at all (gone before the reader started):
 * the mapping the kernel reported names its frames. Another file mapped
 * over the same range later (dlclose, dlopen) starts new stacks: the same
 * address is named after the new file from then on, and the old stack
 * keeps its old name.
 */
START_TEST(test_kernel_mappings)
{
	char prog[256], other[256];
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 die, die_size, bias;
	char maps[4096] = "", maps2[4096] = "", *out;
	const __u32 gone = PK_FX_PID + 17;	/* no /proc/PID in the fake root */
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader();
	__u64 u[1];

	/* pk_fx_build returns the same buffer each time */
	snprintf(prog, sizeof(prog), "%s", pk_fx_build("prog", pk_fx_c_src, false, "-pie"));
	snprintf(other, sizeof(other), "%s", pk_fx_build("other", pk_fx_cxx_src, true, "-pie"));
	pk_fx_symbol(prog, "die", &die, &die_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_fake_maps(other, PK_FX_PIE_BASE, maps2, sizeof(maps2));
	u[0] = bias + die;
	ck_assert_int_eq(pk_reader_handle(r, buf, mapping_record(buf, gone, maps, prog)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, record(buf, gone, "prog", NULL, 0, u, 1)), 0);
	/* the same mapping again changes nothing */
	ck_assert_int_eq(pk_reader_handle(r, buf, mapping_record(buf, gone, maps, prog)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, record(buf, gone, "prog", NULL, 0, u, 1)), 0);
	/* another file at the same place: its own names, a new stack */
	ck_assert_int_eq(pk_reader_handle(r, buf, mapping_record(buf, gone, maps2, other)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, record(buf, gone, "prog", NULL, 0, u, 1)), 0);
	out = output(r);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.mappings, 3);
	ck_assert_uint_eq(st.stacks, 2);
	ck_assert_uint_eq(st.user_frames, 3);
	ck_assert_uint_eq(st.user_named, 3);
	/* in "other", die's address is other code: two lines, die's twice */
	ck_assert_msg(strncmp(out, "prog;die 2\nprog;", 16) == 0 ||
		      (strstr(out, "\nprog;die 2\n") && !strncmp(out, "prog;", 5)), "got %s", out);
	ck_assert_int_eq(strchr(strchr(out, '\n') + 1, '\n') - out + 1, (long)strlen(out));
	ck_assert_msg(!strstr(out, "prog;die 1\n"), "got %s", out);
	free(out);
	pk_reader_free(r);
}
END_TEST

/* A failing store is no reason to stop reading: one line, then a count. */
START_TEST(test_no_table_failures)
{
	struct sink_log log = { .ret = -EIO };
	struct pk_table_sink sink = { .add = sink_add, .ctx = &log };
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	char *logged = NULL, *out;
	size_t len = 0;
	FILE *f = open_memstream(&logged, &len);
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader_with(&sink, f);

	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, 1, PK_VDSO_DEV, PK_VDSO_INO,
								   0x1000, 0x2000)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, record(buf, 2, "kthreadd", k, 1, NULL, 0)), 0);
	fclose(f);
	ck_assert_int_eq(log.calls, 3);
	ck_assert_str_eq(logged, "probe-read: store failure 1\n");
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.tables_failed, 3);
	ck_assert_uint_eq(st.tables_added, 0);
	check_summary(pk_summary_no_table, &st,
		      "unwind tables: 3 files reported without one, 0 added, 3 failed\n");
	out = output(r);
	ck_assert_str_eq(out, "kthreadd;k_middle_[k] 1\n");
	free(out);
	free(logged);
	pk_reader_free(r);
}
END_TEST

/* A session without unwind maps: events counted, nothing else. */
START_TEST(test_no_table_without_sink)
{
	unsigned char buf[sizeof(struct pk_no_table)];
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader();

	add_map_file(PK_FX_PID, "1000-2000", "/bin/true");
	ck_assert_int_eq(pk_reader_handle(r, buf, no_table(buf, PK_FX_PID, 1, 2, 0x1000, 0x2000)),
			 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.no_table, 1);
	ck_assert_uint_eq(st.tables_added + st.tables_gone + st.tables_failed, 0);
	pk_reader_free(r);
}
END_TEST

/* --- Python ---------------------------------------------------------------- */

/* Native functions named as CPython's: the eval loop, a C function that
 * calls back into Python, the interpreter's main. */
static const char py_src[] =
	"volatile int sink;\n"
	"__attribute__((noinline)) void _PyEval_EvalFrameDefault(void)\n"
	"{ for (int i = 0; i < 100; i++) sink += i * sink; }\n"
	"__attribute__((noinline)) void method_call(void) { _PyEval_EvalFrameDefault(); }\n"
	"__attribute__((noinline)) void Py_RunMain(void) { method_call(); _PyEval_EvalFrameDefault(); }\n"
	"int main(void) { Py_RunMain(); return 0; }\n";

#define CODE_RUN	0x7f0000001000ULL
#define CODE_MOD	0x7f0000002000ULL
#define CODE_CAFE	0x7f0000003000ULL

/* A sample with a Python walk: K, U, then NP Python frames PY. */
static size_t py_record(unsigned char *buf, __u32 pid, const __u64 *u, __u16 nu,
			const __u64 *py, __u16 np)
{
	__u64 frames[64];
	size_t size;
	__u32 flags = PK_SAMPLE_PY;

	if (nu)
		memcpy(frames, u, 8 * nu);
	memcpy(frames + nu, py, 8 * np);
	size = record(buf, pid, "py", NULL, 0, frames, nu + np);
	memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
	memcpy(buf + offsetof(struct pk_sample, ustack_len), &nu, sizeof(nu));
	memcpy(buf + offsetof(struct pk_sample, py_len), &np, sizeof(np));
	buf[offsetof(struct pk_sample, py_end)] = PK_PY_END_COMPLETE;
	return size;
}

/* A code report of PID. */
static size_t code_record(unsigned char *buf, __u32 pid, __u64 code, __u32 flags,
			  const char *name, const char *file, __s32 first, const __u8 *lt,
			  __u16 lt_len)
{
	struct pk_py_code_event e = {
		.hdr = { .type = PK_EVENT_PY_CODE, .flags = flags },
		.pid = pid, .version = 0x030b02f0, .code = code, .firstlineno = first,
		.name_len = strlen(name), .file_len = strlen(file), .linetable_len = lt_len,
	};

	e.hdr.size = sizeof(e) + e.name_len + e.file_len + lt_len;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), name, e.name_len);
	memcpy(buf + sizeof(e) + e.name_len, file, e.file_len);
	memcpy(buf + sizeof(e) + e.name_len + e.file_len, lt, lt_len);
	return e.hdr.size;
}

/* The three codes of the tests: Job.run (units 0-1 at line 12, 2-5 at
 * 15), <module> (line 1), and a Latin-1 name whose truncated table has
 * 2 units. */
static void py_codes(struct pk_reader *r, __u32 pid)
{
	static const __u8 lt_run[] = { 0x81, 0x00, 0x80 | 13 << 3 | 3, 0x06 };
	static const __u8 lt_mod[] = { 0x87, 0x00 }, lt_cafe[] = { 0x81, 0x00 };
	unsigned char buf[1024];

	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, pid, CODE_RUN, 0, "Job.run",
							      "/srv/app/job.py", 12, lt_run,
							      sizeof(lt_run))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, pid, CODE_MOD, 0, "<module>",
							      "/srv/app/main.py", 1, lt_mod,
							      sizeof(lt_mod))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, pid, CODE_CAFE,
							      PK_PY_NAME_LATIN1 | PK_PY_LINES_TRUNC,
							      "caf\xe9", "/srv/app/util.py", 30,
							      lt_cafe, sizeof(lt_cafe))), 0);
}

/* A reader of the py fixture's process, its codes reported, and U: the
 * native stack eval, method_call, eval, Py_RunMain, main (leaf first). */
static struct pk_reader *py_reader(__u64 u[5])
{
	const char *prog = pk_fx_build("py", py_src, false, "-pie");
	const char *const names[] = { "_PyEval_EvalFrameDefault", "method_call",
				      "_PyEval_EvalFrameDefault", "Py_RunMain", "main" };
	const unsigned int off[] = { 1, 2, 3, 2, 2 };
	char maps[4096] = "";
	__u64 addr, size, bias;
	struct pk_reader *r;

	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	for (int i = 0; i < 5; i++) {
		pk_fx_symbol(prog, names[i], &addr, &size);
		u[i] = bias + addr + off[i];
	}
	r = new_reader();
	py_codes(r, PK_FX_PID);
	return r;
}

/* Each native frame of the eval loop, leaf first, takes the Python frames
 * up to the next that entered it; what is left of either is counted. */
START_TEST(test_python_merge)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 u[5];
	char *out;
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r;

	r = py_reader(u);
	{
		/* Python: café (index 4), Job.run (index 3) entered the leaf
		 * eval call; <module> (index 1) the outer one */
		const __u64 py[] = { pk_py_frame(CODE_CAFE, 5, 0), pk_py_frame(CODE_RUN, 4, 1),
				     pk_py_frame(CODE_MOD, 2, 1) };
		const __u64 unknown[] = { pk_py_frame(0x7f0000009000, 1, 1) };

		/* the whole of both */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 5, py, 3)), 0);
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 5, py, 3)), 0);
		/* the native walk cut after the leaf eval call: <module>
		 * outermost */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 1, py, 3)), 0);
		/* the Python walk cut: the outer eval frame stays native */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 5, py, 2)), 0);
		/* no Python walk: native as ever, no mismatch */
		ck_assert_int_eq(pk_reader_handle(r, buf, record(buf, PK_FX_PID, "py", NULL, 0, u, 3)),
				 0);
		/* a code no report named */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u + 2, 3, unknown,
								    1)), 0);
	}
	pk_reader_take(r, 0, 0, &p);
	assert_dense_ids(&p);
	out = folded(&p);
	ck_assert_str_eq(out,
			 "py;<module> (main.py:1);Job.run (job.py:15);caf\xc3\xa9 (util.py) 1\n"
			 "py;_PyEval_EvalFrameDefault;method_call;_PyEval_EvalFrameDefault 1\n"
			 "py;main;Py_RunMain;<module> (main.py:1);method_call;Job.run (job.py:15);"
			 "caf\xc3\xa9 (util.py) 2\n"
			 "py;main;Py_RunMain;[py:0x7f0000009000] 1\n"
			 "py;main;Py_RunMain;_PyEval_EvalFrameDefault;method_call;Job.run (job.py:15);"
			 "caf\xc3\xa9 (util.py) 1\n");
	free(out);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.py_codes, 3);
	ck_assert_uint_eq(st.py_samples, 5);
	ck_assert_uint_eq(st.py_ends[PK_PY_END_COMPLETE], 5);
	ck_assert_uint_eq(st.py_frames, 3 + 3 + 3 + 2 + 1);
	ck_assert_uint_eq(st.py_named, 3 + 3 + 3 + 2);
	ck_assert_uint_eq(st.py_lines, 2 + 2 + 2 + 1);	/* café's line is past its table */
	ck_assert_uint_eq(st.py_left, 1);
	ck_assert_uint_eq(st.eval_left, 1);
	/* native frames: those not replaced */
	ck_assert_uint_eq(st.user_frames, 3 + 3 + 0 + 4 + 3 + 2);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		pk_summary_python(f, &st);
		fclose(f);
		ck_assert_str_eq(text, "python: 12 frames in 5 samples with a Python walk, 91.7% named, "
				       "58.3% with a line; 1 past the native frames (put outermost); "
				       "1 eval frames without Python frames (kept native); "
				       "100.0% complete\n");
		free(text);
	}
	pk_reader_free(r);
}
END_TEST

/* Both walks whole, one eval frame more than groups: the call of the eval
 * loop at the leaf has not started its frame (the walk skips it), so the
 * pairs are counted from the root, and the leaf eval frame stays native;
 * from the leaf, every Python frame would sit one eval frame too deep. */
START_TEST(test_python_merge_from_root)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 u[5];
	char *out;
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r;
	__u32 flags = PK_SAMPLE_PY | PK_SAMPLE_USTACK_DWARF;

	r = py_reader(u);
	{
		/* one group: <module> called Job.run within the outer call */
		const __u64 py[] = { pk_py_frame(CODE_RUN, 4, 0), pk_py_frame(CODE_MOD, 2, 1) };

		py_record(buf, PK_FX_PID, u, 5, py, 2);
		memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
		buf[offsetof(struct pk_sample, ustack_end)] = PK_END_COMPLETE;
		ck_assert_int_eq(pk_reader_handle(r, buf, ((struct pk_event_hdr *)buf)->size), 0);
		/* the same frames, the native walk cut (a depth limit): from
		 * the leaf, as ever */
		py_record(buf, PK_FX_PID, u, 4, py, 2);
		memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
		buf[offsetof(struct pk_sample, ustack_end)] = PK_END_DEPTH;
		ck_assert_int_eq(pk_reader_handle(r, buf, ((struct pk_event_hdr *)buf)->size), 0);
	}
	pk_reader_take(r, 0, 0, &p);
	out = folded(&p);
	ck_assert_str_eq(out,
			 "py;Py_RunMain;_PyEval_EvalFrameDefault;method_call;<module> (main.py:1);"
			 "Job.run (job.py:15) 1\n"
			 "py;main;Py_RunMain;<module> (main.py:1);Job.run (job.py:15);method_call;"
			 "_PyEval_EvalFrameDefault 1\n");
	free(out);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.eval_left, 2);
	ck_assert_uint_eq(st.py_left, 0);
	pk_reader_free(r);
}
END_TEST

/* The latest report of a code wins: a code object freed and another made
 * at its address names the frames from then on, those before keep their
 * names. Names outlive the process, as its mappings do. */
START_TEST(test_python_codes_replaced)
{
	static const __u8 lt[] = { 0x87, 0x00 };
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 py[] = { pk_py_frame(CODE_RUN, 1, 1) };
	struct pk_profile p = { 0 };
	struct pk_reader *r = new_reader();
	char *out;

	pk_fx_set_maps(PK_FX_PID, "");
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, PK_FX_PID, CODE_RUN, 0, "old",
							      "/a.py", 5, lt, sizeof(lt))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	/* the same report again: the same stack */
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, PK_FX_PID, CODE_RUN, 0, "old",
							      "/a.py", 5, lt, sizeof(lt))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, PK_FX_PID, CODE_RUN, 0, "new",
							      "/b.py", 7, lt, sizeof(lt))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	/* the process exits; its samples still in the buffer keep names */
	fake_exit(PK_FX_PID);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	pk_reader_take(r, 0, 0, &p);
	assert_dense_ids(&p);
	out = folded(&p);
	ck_assert_str_eq(out, "py;new (b.py:7) 2\npy;old (a.py:5) 2\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

Suite *suite_reader(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("records");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_return_addresses);
	tcase_add_test(tc, test_merge_and_sort);
	tcase_add_test(tc, test_takes_free_what_is_gone);
	tcase_add_test(tc, test_takes_free_files);
	tcase_add_test(tc, test_bad_records);
	tcase_add_test(tc, test_span_of_samples);
	tcase_add_test(tc, test_span_from_now);
	tcase_add_test(tc, test_go_refused_line);
	tcase_add_test(tc, test_events);
	tcase_add_test(tc, test_keep_event);
	tcase_add_test(tc, test_incomplete_walks);
	tcase_add_test(tc, test_walk_ends);
	tcase_add_test(tc, test_unsupported_kinds);
	tcase_add_test(tc, test_walk_ends_line);
	tcase_add_test(tc, test_no_table_events);
	tcase_add_test(tc, test_kernel_mappings);
	tcase_add_test(tc, test_no_table_failures);
	tcase_add_test(tc, test_no_table_without_sink);
	tcase_add_test(tc, test_python_merge);
	tcase_add_test(tc, test_python_merge_from_root);
	tcase_add_test(tc, test_python_codes_replaced);
	tcase_add_test(tc, test_agg_counts);
	tcase_add_test(tc, test_agg_bad_def);
	suite_add_tcase(s, tc);
	return s;
}
