// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <bpf/bpf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/util/clock.h"
#include "reading/bpf_cost.h"

struct pk_bpf_cost {
	int stats_fd;		/* BPF_ENABLE_STATS holder; -1: the sysctl was on */
	unsigned int nprogs;
	__u32 *ids;		/* ascending */
	int *fds;		/* per program, -1 when it could not be opened:
				 * held so the ids name the same programs at
				 * print time */
	struct pk_prog_run *before;
	__u64 start_ns;		/* CLOCK_MONOTONIC */
};

static int cmp_u32(const void *a, const void *b)
{
	__u32 x = *(const __u32 *)a, y = *(const __u32 *)b;

	return x < y ? -1 : x > y;
}

unsigned int pk_bpf_cost_prog_ids(const struct pk_event_desc *ev, unsigned int n, __u32 *ids)
{
	unsigned int k = 0, u = 0;

	for (unsigned int i = 0; i < n; i++)
		for (unsigned int j = 0; j < 2; j++)
			if (ev[i].prog_ids[j])
				ids[k++] = ev[i].prog_ids[j];
	qsort(ids, k, sizeof(*ids), cmp_u32);
	for (unsigned int i = 0; i < k; i++)
		if (!u || ids[u - 1] != ids[i])
			ids[u++] = ids[i];
	return u;
}

static int read_prog(int fd, struct pk_prog_run *r)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);
	int ret;

	memset(&info, 0, sizeof(info));
	ret = bpf_obj_get_info_by_fd(fd, &info, &len);
	if (ret < 0)
		return r->err = -errno;
	r->err = 0;
	r->run_time_ns = info.run_time_ns;
	r->run_cnt = info.run_cnt;
	return 0;
}

/* kernel.bpf_stats_enabled is 1 (someone else keeps the statistics on). */
static bool stats_sysctl_on(void)
{
	FILE *f = fopen("/proc/sys/kernel/bpf_stats_enabled", "r");
	int c = EOF;

	if (f) {
		c = fgetc(f);
		fclose(f);
	}
	return c == '1';
}

int pk_bpf_cost_start(const struct pk_event_desc *ev, unsigned int n,
		       struct pk_bpf_cost **out, char err[PK_ERR_LEN])
{
	struct pk_bpf_cost *c;
	int ret;

	*out = NULL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return pk_err(err, -ENOMEM, "bpf stats: out of memory");
	c->stats_fd = -1;
	c->ids = calloc(2 * (size_t)n + 1, sizeof(*c->ids));
	c->fds = calloc(2 * (size_t)n + 1, sizeof(*c->fds));
	c->before = calloc(2 * (size_t)n + 1, sizeof(*c->before));
	if (!c->ids || !c->fds || !c->before) {
		ret = pk_err(err, -ENOMEM, "bpf stats: out of memory");
		goto fail;
	}
	c->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (c->stats_fd < 0) {
		ret = -errno;
		c->stats_fd = -1;
		/* An older kernel without BPF_ENABLE_STATS, or no right to
		 * it: statistics someone keeps on through the sysctl do. */
		if (!stats_sysctl_on()) {
			pk_err(err, ret, "cannot enable BPF run-time statistics: %s%s",
			       strerror(-ret), ret == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
			goto fail;
		}
	}
	c->nprogs = pk_bpf_cost_prog_ids(ev, n, c->ids);
	for (unsigned int i = 0; i < c->nprogs; i++) {
		struct pk_prog_run *r = &c->before[i];

		r->id = c->ids[i];
		c->fds[i] = bpf_prog_get_fd_by_id(r->id);
		if (c->fds[i] < 0) {
			r->err = -errno;
			c->fds[i] = -1;
		} else {
			read_prog(c->fds[i], r);
		}
		/* Gone since the session listed it: print says so. Anything
		 * else is not being allowed to look. */
		if (r->err && r->err != -ENOENT) {
			ret = pk_err(err, r->err, "BPF program %u: %s", r->id, strerror(-r->err));
			goto fail;
		}
	}
	c->start_ns = pk_now_ns();
	*out = c;
	return 0;
fail:
	pk_bpf_cost_free(c);
	return ret;
}

void pk_bpf_cost_free(struct pk_bpf_cost *c)
{
	if (!c)
		return;
	for (unsigned int i = 0; i < c->nprogs; i++)
		if (c->fds[i] >= 0)
			close(c->fds[i]);
	if (c->stats_fd >= 0)
		close(c->stats_fd);
	free(c->ids);
	free(c->fds);
	free(c->before);
	free(c);
}

void pk_bpf_cost_print(const struct pk_bpf_cost *c, const struct pk_event_desc *ev,
			unsigned int n, const __u64 (*counts)[PK_ECNT_SLOTS], FILE *f)
{
	struct pk_prog_run *after = calloc(c->nprogs + 1, sizeof(*after));

	if (!after) {
		fputs("BPF cost: out of memory\n", f);
		return;
	}
	for (unsigned int i = 0; i < c->nprogs; i++) {
		after[i].id = c->ids[i];
		if (c->fds[i] < 0)
			after[i].err = c->before[i].err;
		else
			read_prog(c->fds[i], &after[i]);
	}
	pk_bpf_cost_report(f, ev, n, counts, c->before, after, c->nprogs, pk_now_ns() - c->start_ns);
	free(after);
}

/* --- the report: no kernel below ---------------------------------------- */

static const struct pk_prog_run *find_run(const struct pk_prog_run *runs, unsigned int nprogs,
					  __u32 id)
{
	unsigned int lo = 0, hi = nprogs;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (runs[mid].id == id)
			return &runs[mid];
		if (runs[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

/* Runs and run time of program ID over the interval; false, with WHY, when
 * there is nothing to say about it. */
static bool prog_delta(const struct pk_prog_run *before, const struct pk_prog_run *after,
		       unsigned int nprogs, __u32 id, __u64 *runs, __u64 *ns, const char **why)
{
	const struct pk_prog_run *b = find_run(before, nprogs, id);
	const struct pk_prog_run *a = find_run(after, nprogs, id);

	if (!a || !b || a->err || b->err) {
		*why = (a && a->err == -ENOENT) || (b && b->err == -ENOENT) ? "gone" : "unreadable";
		return false;
	}
	/* The counters only grow while the program lives (its fd is held). */
	if (a->run_cnt < b->run_cnt || a->run_time_ns < b->run_time_ns) {
		*why = "unreadable";
		return false;
	}
	*runs = a->run_cnt - b->run_cnt;
	*ns = a->run_time_ns - b->run_time_ns;
	if (!*runs) {
		*why = "not run";
		return false;
	}
	return true;
}

static void print_shared(FILE *f, const struct pk_event_desc *ev, unsigned int n,
			 unsigned int self, __u32 id)
{
	const char *sep = ", shared with ";

	for (unsigned int i = 0; i < n; i++) {
		if (i == self || (ev[i].prog_ids[0] != id && ev[i].prog_ids[1] != id))
			continue;
		fprintf(f, "%s%s", sep, ev[i].name);
		sep = ", ";
	}
}

/* "96 ns added per context switch (48211 switches, program 58)" */
static void print_prog(FILE *f, const struct pk_event_desc *ev, unsigned int n,
		       unsigned int self, unsigned int slot,
		       const struct pk_prog_run *before, const struct pk_prog_run *after,
		       unsigned int nprogs)
{
	bool offcpu = ev[self].kind == PK_EVK_OFFCPU;
	__u32 id = ev[self].prog_ids[slot];
	const char *what = "per run", *runs_name = "runs", *why;
	__u64 runs, ns;

	if (offcpu && slot == 0) {
		what = "added per context switch";
		runs_name = "switches";
	} else if (offcpu) {
		what = "per block sampled";
	}
	if (!prog_delta(before, after, nprogs, id, &runs, &ns, &why)) {
		fprintf(f, "program %u %s", id, why);
	} else {
		fprintf(f, "%.0f ns %s (%llu %s, program %u", (double)ns / runs, what,
			(unsigned long long)runs, runs_name, id);
		print_shared(f, ev, n, self, id);
		fputc(')', f);
	}
}

static void print_counts(FILE *f, const struct pk_event_desc *e, const __u64 *cnt)
{
	bool probe = e->kind == PK_EVK_KPROBE || e->kind == PK_EVK_TRACEPOINT ||
		     e->kind == PK_EVK_UPROBE || e->kind == PK_EVK_USDT;

	fprintf(f, " %llu hits, %llu samples", (unsigned long long)cnt[PK_ECNT_HITS],
		(unsigned long long)cnt[PK_ECNT_SAMPLES]);
	/* One in N is skipped in BPF for probes only: perf events' periods
	 * are the kernel's, before any program runs. */
	if (cnt[PK_ECNT_SKIPPED] || (probe && e->sample_every > 1))
		fprintf(f, ", %llu skipped (one in %llu sampled)",
			(unsigned long long)cnt[PK_ECNT_SKIPPED],
			(unsigned long long)(e->sample_every ? e->sample_every : 1));
	if (e->kind == PK_EVK_OFFCPU || cnt[PK_ECNT_SHORT])
		fprintf(f, ", %llu short blocks (< %g us)", (unsigned long long)cnt[PK_ECNT_SHORT],
			e->min_block_ns / 1000.0);
	fprintf(f, ", %llu lost;", (unsigned long long)cnt[PK_ECNT_LOST]);
}

void pk_bpf_cost_report(FILE *f, const struct pk_event_desc *ev, unsigned int n,
			const __u64 (*counts)[PK_ECNT_SLOTS],
			const struct pk_prog_run *before, const struct pk_prog_run *after,
			unsigned int nprogs, __u64 interval_ns)
{
	__u64 total_ns = 0;

	if (!n)
		return;
	fprintf(f, "events (%sBPF run time over the last %.1f s, kernel.bpf_stats):\n",
		counts ? "counters since the session began; " : "", interval_ns / 1e9);
	for (unsigned int i = 0; i < n; i++) {
		const char *sep = " BPF ";

		fprintf(f, "  %s:", ev[i].name);
		if (counts)
			print_counts(f, &ev[i], counts[i]);
		for (unsigned int slot = 0; slot < 2; slot++) {
			if (!ev[i].prog_ids[slot])
				continue;
			fputs(sep, f);
			print_prog(f, ev, n, i, slot, before, after, nprogs);
			sep = "; ";
		}
		if (!ev[i].prog_ids[0] && !ev[i].prog_ids[1])
			fputs(" BPF program not known", f);
		fputc('\n', f);
	}
	for (unsigned int p = 0; p < nprogs; p++) {
		__u64 runs, ns;
		const char *why;

		if (prog_delta(before, after, nprogs, before[p].id, &runs, &ns, &why))
			total_ns += ns;
	}
	if (interval_ns)
		fprintf(f, "  BPF in all: %.3f ms of CPU, %.3f%% of one CPU\n", total_ns / 1e6,
			100.0 * total_ns / interval_ns);
}
