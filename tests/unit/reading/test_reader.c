// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Records in, folded stacks out: probe-read without the ring buffer. Here:
 * stacks merged, named and freed take after take, spans, several events,
 * --aggregate and bad records; reader_run.h names the suite's other files.
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probekit.h"
#include "harness/elf_fixture.h"
#include "reading/reader.h"
#include "reading/summary.h"
#include "test_util.h"
#include "unit/reading/reader_run.h"

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

		r = pk_rd_new_reader();
		size = pk_rd_record(buf, PK_FX_PID, "prog", k, 2, u, 3);
		ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
		ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	}
	out = pk_rd_output(r);
	ck_assert_str_eq(out, "prog;main;tail_caller;die;k_outer_[k];k_leaf_[k] 2\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

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
	r = pk_rd_new_reader();
	{
		const __u64 ua[] = { bias + die, bias + main_addr + 1 }, ub[] = { bias + main_addr };

		pk_reader_handle(r, buf, pk_rd_record(buf, a, "a", k, 1, ua, 2));
		pk_reader_handle(r, buf, pk_rd_record(buf, a, "a", k, 1, ua, 2));
		pk_reader_handle(r, buf, pk_rd_record(buf, b, "b", NULL, 0, ub, 1));
	}
	pk_reader_take(r, 0, 0, &p);
	ck_assert_uint_eq(p.nstacks, 2);
	pk_rd_assert_dense_ids(&p);
	out = pk_rd_folded(&p);
	ck_assert_str_eq(out, "a;main;die;k_leaf_[k] 2\nb;main 1\n");
	free(out);

	/* a exits; b goes on, through its old stack and a new one */
	pk_rd_fake_exit(a);
	{
		const __u64 ub[] = { bias + main_addr }, ub2[] = { bias + die, bias + main_addr + 1 };

		pk_reader_handle(r, buf, pk_rd_record(buf, b, "b", NULL, 0, ub, 1));
		pk_reader_handle(r, buf, pk_rd_record(buf, b, "b", NULL, 0, ub2, 2));
	}
	pk_reader_take(r, 0, 0, &p);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.stacks_dropped, 1);	/* a's */
	ck_assert_uint_eq(st.procs_forgotten, 1);	/* a */
	ck_assert_uint_eq(p.nstacks, 2);
	pk_rd_assert_dense_ids(&p);
	out = pk_rd_folded(&p);
	ck_assert_str_eq(out, "b;main 1\nb;main;die 1\n");
	free(out);

	/* a's pid again, the program mapped elsewhere: its own names */
	bias2 = pk_fx_fake_maps(prog, PK_FX_PIE_BASE + 0x10000000, maps2, sizeof(maps2));
	pk_fx_set_maps(a, maps2);
	{
		const __u64 ua[] = { bias2 + die, bias2 + main_addr + 1 };

		pk_reader_handle(r, buf, pk_rd_record(buf, a, "a2", NULL, 0, ua, 2));
	}
	pk_reader_take(r, 0, 0, &p);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.stacks_dropped, 3);	/* b's two */
	ck_assert_uint_eq(st.procs_forgotten, 1);	/* b lives */
	ck_assert_uint_eq(st.stacks, 4);		/* distinct ever */
	ck_assert_uint_eq(p.nstacks, 1);
	pk_rd_assert_dense_ids(&p);
	out = pk_rd_folded(&p);
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
	r = pk_rd_new_reader();
	{
		const __u64 ua[] = { bias_a + main_a }, ub[] = { bias_b + main_b };

		pk_reader_handle(r, buf, pk_rd_record(buf, a, "a", NULL, 0, ua, 1));
		pk_reader_handle(r, buf, pk_rd_record(buf, b, "b", NULL, 0, ub, 1));
	}
	pk_reader_take(r, 0, 0, &p);
	out = pk_rd_folded(&p);
	ck_assert_str_eq(out, "a;main 1\nb;main 1\n");
	free(out);

	/* a exits: forgotten at the next take, its file at the one after */
	pk_rd_fake_exit(a);
	for (int take = 2; take <= 3; take++) {
		const __u64 ub[] = { bias_b + main_b };

		pk_reader_handle(r, buf, pk_rd_record(buf, b, "b", NULL, 0, ub, 1));
		pk_reader_take(r, 0, 0, &p);
		pk_reader_stats(r, &st);
		ck_assert_uint_eq(st.procs_forgotten, 1);
		ck_assert_uint_eq(st.files_freed, take == 2 ? 0 : 1);
		out = pk_rd_folded(&p);
		ck_assert_str_eq(out, "b;main 1\n");
		free(out);
	}

	/* a's program again, in a new process: read anew, named alike */
	pk_fx_set_maps(a, maps_a);
	{
		const __u64 ua[] = { bias_a + main_a }, ub[] = { bias_b + main_b };

		pk_reader_handle(r, buf, pk_rd_record(buf, a, "a2", NULL, 0, ua, 1));
		pk_reader_handle(r, buf, pk_rd_record(buf, b, "b", NULL, 0, ub, 1));
	}
	pk_reader_take(r, 0, 0, &p);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.files_freed, 1);
	out = pk_rd_folded(&p);
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
	r = pk_rd_new_reader();
	for (__u64 off = 0; off < 3; off++) {
		const __u64 u[] = { bias + fn + off };

		pk_reader_handle(r, buf, pk_rd_record(buf, PK_FX_PID, "zeta", NULL, 0, u, 1));
	}
	{
		const __u64 u[] = { bias + fn };
		const __u64 k[] = { 0xffffffff81000150 };

		pk_reader_handle(r, buf, pk_rd_record(buf, PK_FX_PID + 1, "alpha;x", NULL, 0,
						      u, 1));
		/* A kernel thread: no user frames. */
		pk_reader_handle(r, buf, pk_rd_record(buf, 2, "kthreadd", k, 1, NULL, 0));
		/* An address outside any mapping, and a dead process. */
		const __u64 bad[] = { 0x1234 };

		pk_reader_handle(r, buf, pk_rd_record(buf, PK_FX_PID, "zeta", NULL, 0, bad, 1));
		pk_reader_handle(r, buf, pk_rd_record(buf, 999999, "gone", NULL, 0, u, 1));
	}
	out = pk_rd_output(r);
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

/* A kernel thread's sample taken at TIME_NS, handled by R. */
static void sample_at(struct pk_reader *r, __u64 time_ns)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	size_t size = pk_rd_record(buf, 2, "kthreadd", k, 1, NULL, 0);

	memcpy(buf + offsetof(struct pk_sample, time_ns), &time_ns, sizeof(time_ns));
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
}

/* A profile's span is its first sample to its last, merged samples
 * included, and the reading time when it has none. */
START_TEST(test_span_of_samples)
{
	struct pk_reader *r = pk_rd_new_reader();
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
	struct pk_reader *r = pk_rd_new_reader_opts((struct pk_reader_opts){ .from_ns = 1000,
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
	pk_rd_check_summary(pk_summary_from_now, &st,
			    "probe-read: 1 of them sampled before this reader started, dropped (--from-now)\n");
	st.before_from = 0;
	pk_rd_check_summary(pk_summary_from_now, &st, "");
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

	pk_rd_check_summary(pk_summary_symbols, &st, line);
	st.go_refused = 1;
	snprintf(st.go_err, sizeof(st.go_err), "/srv/app: Go .gopclntab of an unknown layout");
	snprintf(want, sizeof(want), "%ssymbols: /srv/app: Go .gopclntab of an unknown layout\n",
		 line);
	pk_rd_check_summary(pk_summary_symbols, &st, want);
	st.go_refused = 3;
	snprintf(want, sizeof(want), "%ssymbols: /srv/app: Go .gopclntab of an unknown layout "
		 "(and 2 more Go files)\n", line);
	pk_rd_check_summary(pk_summary_symbols, &st, want);
}
END_TEST

/* A kernel thread's sample of kernel frame K weighing WEIGHT, the
 * definition of aggregated stack KEY (0: an ordinary sample). */
static size_t agg_record(unsigned char *buf, __u64 k, __u64 weight, __u64 key)
{
	size_t size = pk_rd_record(buf, 2, "kthreadd", &k, 1, NULL, 0);
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
	struct pk_reader *r = pk_rd_new_reader();
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
	out = pk_rd_folded(&p);
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
	out = pk_rd_folded(&p);
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
	struct pk_reader *r = pk_rd_new_reader();
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
	/* a type no writer sends (record's tests use 99 too) */
	struct pk_event_hdr other = { .type = 99, .size = sizeof(other) };
	struct pk_reader_stats st;
	struct pk_reader *r = pk_rd_new_reader();
	size_t size = pk_rd_record(buf, 2, "kthreadd", k, 1, NULL, 0);
	char *out;

	ck_assert_int_eq(pk_reader_handle(r, buf, size - 1), 0);	/* truncated */
	ck_assert_int_eq(pk_reader_handle(r, buf, 3), 0);
	ck_assert_int_eq(pk_reader_handle(r, &other, sizeof(other)), 0);	/* unknown type */
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.bad, 2);
	ck_assert_uint_eq(st.skipped, 1);
	out = pk_rd_output(r);
	ck_assert_str_eq(out, "kthreadd;k_middle_[k] 1\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

/* A kernel-only sample of EVENT with WEIGHT. */
static size_t event_record(unsigned char *buf, __u32 tid, __u32 cpu, __u16 event, __u64 weight)
{
	static const __u64 k[] = { 0xffffffff81000150, 0xffffffff81000010 };
	size_t size = pk_rd_record(buf, 2, "kthreadd", k, 2, NULL, 0);

	memcpy(buf + offsetof(struct pk_sample, tid), &tid, sizeof(tid));
	memcpy(buf + offsetof(struct pk_sample, cpu), &cpu, sizeof(cpu));
	memcpy(buf + offsetof(struct pk_sample, event), &event, sizeof(event));
	memcpy(buf + offsetof(struct pk_sample, weight), &weight, sizeof(weight));
	return size;
}

static struct pk_reader *new_events_reader(unsigned int nevents, unsigned int keep_event,
					   bool timed)
{
	return pk_rd_new_reader_opts((struct pk_reader_opts){ .nevents = nevents,
							      .keep_event = keep_event,
							      .timed = timed });
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
	pk_rd_walk_tests(tc);
	pk_rd_python_tests(tc);
	tcase_add_test(tc, test_agg_counts);
	tcase_add_test(tc, test_agg_bad_def);
	suite_add_tcase(s, tc);
	return s;
}
