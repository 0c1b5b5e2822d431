// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "harness/share_compare.h"

struct entry {
	const char *stack;
	unsigned long count;
	int side;		/* 0: a, 1: b */
};

static int cmp_entry(const void *x, const void *y)
{
	return strcmp(((const struct entry *)x)->stack, ((const struct entry *)y)->stack);
}

static double share_of(const struct sc_row *r)
{
	return r->share_a > r->share_b ? r->share_a : r->share_b;
}

static int cmp_row(const void *x, const void *y)
{
	const struct sc_row *a = x, *b = y;
	double sa = share_of(a), sb = share_of(b);

	if (sa != sb)
		return sa > sb ? -1 : 1;
	return strcmp(a->stack, b->stack);
}

/* Rows of the merged, stack-sorted entries E, with the counts filled in. */
static int make_rows(const struct entry *e, size_t n, struct sc_result *out)
{
	out->rows = calloc(n ? n : 1, sizeof(*out->rows));
	if (!out->rows)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		struct sc_row *r;

		if (!out->nrows || strcmp(out->rows[out->nrows - 1].stack, e[i].stack))
			out->rows[out->nrows++].stack = e[i].stack;
		r = &out->rows[out->nrows - 1];
		if (e[i].side)
			r->b += e[i].count;
		else
			r->a += e[i].count;
	}
	return 0;
}

static void judge(struct sc_row *r, const struct sc_result *res, double threshold,
		  double sigmas)
{
	double na = res->total_a, nb = res->total_b;
	double p = (r->a + r->b) / (na + nb);

	r->share_a = r->a / na;
	r->share_b = r->b / nb;
	r->tolerance = sigmas * sqrt(p * (1 - p) * (1 / na + 1 / nb));
	r->significant = r->share_a >= threshold || r->share_b >= threshold;
	r->agree = fabs(r->share_a - r->share_b) <= r->tolerance;
}

int sc_compare(const struct sc_count *a, size_t na, const struct sc_count *b, size_t nb,
	       double threshold, double sigmas, struct sc_result *out)
{
	struct entry *e = calloc(na + nb ? na + nb : 1, sizeof(*e));
	int ret;

	memset(out, 0, sizeof(*out));
	if (!e)
		return -ENOMEM;
	for (size_t i = 0; i < na; i++) {
		e[i] = (struct entry){ a[i].stack, a[i].count, 0 };
		out->total_a += a[i].count;
	}
	for (size_t i = 0; i < nb; i++) {
		e[na + i] = (struct entry){ b[i].stack, b[i].count, 1 };
		out->total_b += b[i].count;
	}
	ret = !out->total_a || !out->total_b ? -EINVAL : 0;
	if (!ret) {
		qsort(e, na + nb, sizeof(*e), cmp_entry);
		ret = make_rows(e, na + nb, out);
	}
	for (size_t i = 0; !ret && i < out->nrows; i++) {
		struct sc_row *r = &out->rows[i];

		judge(r, out, threshold, sigmas);
		if (!r->b)
			out->only_a += r->share_a;
		if (!r->a)
			out->only_b += r->share_b;
		if (r->significant && !r->agree)
			out->disagree++;
	}
	if (!ret && out->nrows)
		qsort(out->rows, out->nrows, sizeof(*out->rows), cmp_row);
	free(e);
	return ret;
}

void sc_result_free(struct sc_result *r)
{
	free(r->rows);
	memset(r, 0, sizeof(*r));
}

void sc_result_print(FILE *f, const struct sc_result *r, const char *name_a,
		     const char *name_b)
{
	fprintf(f, "%8s %8s %9s  verdict     stack\n", name_a, name_b, "tolerance");
	for (size_t i = 0; i < r->nrows; i++) {
		const struct sc_row *row = &r->rows[i];
		const char *verdict = !row->significant ? "(minor)" :
				      row->agree ? "agree" : "DISAGREE";

		fprintf(f, "%7.2f%% %7.2f%% %8.2f%%  %-10s  %s\n", 100 * row->share_a,
			100 * row->share_b, 100 * row->tolerance, verdict, row->stack);
	}
	fprintf(f, "%lu and %lu samples; only in %s: %.2f%%, only in %s: %.2f%%\n",
		r->total_a, r->total_b, name_a, 100 * r->only_a, name_b, 100 * r->only_b);
}
