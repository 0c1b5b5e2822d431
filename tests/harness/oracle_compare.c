// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* The readelf oracle's classification and comparison (oracle_compare.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "harness/oracle_compare.h"

/* The two CFA expressions of glibc's (and ld's) .plt entries, as readelf
 * prints them: CFA = RSP + 8 + (((RIP & 15) >= 11 or 10) << 3). */
static const char plt1_expr[] =
	"DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; "
	"DW_OP_lit11; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus";
static const char plt2_expr[] =
	"DW_OP_breg7 (rsp): 8; DW_OP_breg16 (rip): 0; DW_OP_lit15; DW_OP_and; "
	"DW_OP_lit10; DW_OP_ge; DW_OP_lit3; DW_OP_shl; DW_OP_plus";

static void format_deref(const char *reg, long n, long m, char *buf, size_t len)
{
	snprintf(buf, len, "*(%s%+ld)%+ld", reg, n, m);
}

void oc_classify_expr(const char *expr, char *buf, size_t len)
{
	unsigned int breg;
	char reg[16];
	long n;
	unsigned long m = 0;
	int at = -1, end = -1;

	if (strcmp(expr, plt1_expr) == 0) {
		snprintf(buf, len, "plt1");
		return;
	}
	if (strcmp(expr, plt2_expr) == 0) {
		snprintf(buf, len, "plt2");
		return;
	}
	/* DW_OP_bregN (name): n; DW_OP_deref [; DW_OP_plus_uconst: m] */
	if (sscanf(expr, "DW_OP_breg%u (%15[a-z0-9]): %ld; DW_OP_deref%n",
		   &breg, reg, &n, &at) == 3 && at > 0 &&
	    (expr[at] == '\0' ||
	     (sscanf(expr + at, "; DW_OP_plus_uconst: %lu%n", &m, &end) == 1 &&
	      end > 0 && expr[at + end] == '\0'))) {
		format_deref(reg, n, (long)m, buf, len);
		return;
	}
	snprintf(buf, len, "unsupported");
}

static bool is_cfa_offset(const char *s)
{
	char *end;

	if (s[0] != 'c' || (s[1] != '+' && s[1] != '-'))
		return false;
	strtol(s + 1, &end, 10);
	return end > s + 2 && *end == '\0';
}

/* A return address in a register, "r5 (rdi)": the register's name, for
 * the general registers but RSP; anything else is unsupported. */
static void expect_ra_register(const char *col, char *buf, size_t len)
{
	unsigned int reg;
	char name[16];
	int end = -1;

	if (sscanf(col, "r%u (%15[a-z0-9])%n", &reg, name, &end) == 2 && end > 0 &&
	    !col[end] && reg < 16 && reg != 7)
		snprintf(buf, len, "%s", name);
	else
		snprintf(buf, len, "unsupported");
}

/* A callee-saved register's column: "u" when not saved (as RBP's), c+N
 * for a multiple of 8 the table holds (CFA + 8 * a signed byte, never 0),
 * else unsupported. */
static void expect_saved(const char *col, char *buf, size_t len)
{
	long n;

	if (!col[0] || !strcmp(col, "u") || !strcmp(col, "s")) {
		snprintf(buf, len, "u");
		return;
	}
	if (is_cfa_offset(col)) {
		n = strtol(col + 1, NULL, 10);
		if (n && n % 8 == 0 && n >= -1024 && n <= 1016) {
			snprintf(buf, len, "%s", col);
			return;
		}
	}
	snprintf(buf, len, "unsupported");
}

void oc_expect(const struct rf_fde *fde, const struct rf_row *row, struct oc_rule *out)
{
	memset(out, 0, sizeof(*out));
	if (fde->signal)
		snprintf(out->cfa, sizeof(out->cfa), "signal");
	else if (strcmp(row->cfa, "exp") == 0)
		oc_classify_expr(row->cfa_expr ? row->cfa_expr : "", out->cfa, sizeof(out->cfa));
	else if (row->cfa[0])
		snprintf(out->cfa, sizeof(out->cfa), "%s", row->cfa);
	else
		snprintf(out->cfa, sizeof(out->cfa), "unsupported");

	/* readelf prints "u" for a register the FDE mentions but has not
	 * saved yet, and nothing when it never mentions it. */
	if (!row->rbp[0] || !strcmp(row->rbp, "u") || !strcmp(row->rbp, "s"))
		snprintf(out->rbp, sizeof(out->rbp), "u");
	else if (is_cfa_offset(row->rbp))
		snprintf(out->rbp, sizeof(out->rbp), "%s", row->rbp);
	else
		snprintf(out->rbp, sizeof(out->rbp), "unsupported");

	if (!strcmp(row->ra, "c-8") || !strcmp(row->ra, "u"))
		snprintf(out->ra, sizeof(out->ra), "%s", row->ra);
	else if (!row->ra[0])
		snprintf(out->ra, sizeof(out->ra), "u");
	else
		expect_ra_register(row->ra, out->ra, sizeof(out->ra));

	for (int k = 0; k < 5; k++)
		expect_saved(row->saved[k], out->saved[k], sizeof(out->saved[k]));
}

/* --- our dump ----------------------------------------------------------- */

/* "*(rsp+8)" and "*(rsp+8)+0" are the same rule: write the canonical form. */
static void canonical_cfa(char *cfa, size_t len)
{
	char reg[16];
	long n, m = 0;
	int at = -1, end = -1;

	if (strncmp(cfa, "*(", 2) != 0)
		return;
	if (sscanf(cfa, "*(%15[a-z0-9]%ld)%n", reg, &n, &at) != 2 || at < 0)
		return;
	if (cfa[at] && (sscanf(cfa + at, "%ld%n", &m, &end) != 1 || cfa[at + end]))
		return;
	format_deref(reg, n, m, cfa, len);
}

void oc_table_free(struct oc_table *t)
{
	free(t->rows);
	t->rows = NULL;
	t->n = 0;
}

int oc_parse_dump(const char *text, struct oc_table *out, char *err, size_t errlen)
{
	const char *line = text;
	int cap = 0, lineno = 0;

	memset(out, 0, sizeof(*out));
	for (; *line; line = strchrnul(line, '\n'), line += *line == '\n') {
		const char *eol = strchrnul(line, '\n');
		char buf[256], extra[2];
		struct oc_row row = {};

		lineno++;
		if (*line == '#' || eol == line)
			continue;
		if ((size_t)(eol - line) >= sizeof(buf)) {
			snprintf(err, errlen, "dump line %d too long", lineno);
			goto bad;
		}
		memcpy(buf, line, eol - line);
		buf[eol - line] = '\0';
		if (sscanf(buf, "%" SCNx64 " %63s %31s %31s %31s %31s %31s %31s %31s %1s",
			   &row.pc, row.rule.cfa, row.rule.rbp, row.rule.ra, row.rule.saved[0],
			   row.rule.saved[1], row.rule.saved[2], row.rule.saved[3],
			   row.rule.saved[4], extra) != 9) {
			snprintf(err, errlen, "dump line %d: '%s' is not '<pc> <cfa> <rbp> <ra> "
				 "<rbx> <r12> <r13> <r14> <r15>'", lineno, buf);
			goto bad;
		}
		canonical_cfa(row.rule.cfa, sizeof(row.rule.cfa));
		if (out->n && row.pc <= out->rows[out->n - 1].pc) {
			snprintf(err, errlen, "dump line %d: pc %#" PRIx64 " not above %#" PRIx64,
				 lineno, row.pc, out->rows[out->n - 1].pc);
			goto bad;
		}
		if (out->n == cap) {
			struct oc_row *p = realloc(out->rows, (cap = cap ? 2 * cap : 1024) *
						   sizeof(*p));
			if (!p) {
				snprintf(err, errlen, "out of memory");
				oc_table_free(out);
				return -ENOMEM;
			}
			out->rows = p;
		}
		out->rows[out->n++] = row;
	}
	return 0;
bad:
	oc_table_free(out);
	return -EBADMSG;
}

/* --- comparison --------------------------------------------------------- */

/* A part of the address space claimed by one FDE. */
struct piece {
	uint64_t a, b;
	int fde;
};

struct pieces {
	struct piece *p;
	int n, cap;
};

static int piece_add(struct pieces *ps, uint64_t a, uint64_t b, int fde)
{
	if (ps->n == ps->cap) {
		struct piece *p = realloc(ps->p, (ps->cap = ps->cap ? 2 * ps->cap : 1024) *
					  sizeof(*p));
		if (!p)
			return -ENOMEM;
		ps->p = p;
	}
	ps->p[ps->n++] = (struct piece){ a, b, fde };
	return 0;
}

static int by_begin(const void *x, const void *y, void *frames)
{
	const struct rf_fde *a = &((const struct rf_frames *)frames)->fdes[*(const int *)x];
	const struct rf_fde *b = &((const struct rf_frames *)frames)->fdes[*(const int *)y];

	if (a->pc_begin != b->pc_begin)
		return a->pc_begin < b->pc_begin ? -1 : 1;
	return *(const int *)x - *(const int *)y;
}

static int by_piece_start(const void *x, const void *y)
{
	const struct piece *a = x, *b = y;

	return a->a < b->a ? -1 : a->a > b->a;
}

/*
 * Claim the ranges of the FDEs of one section. Where FDEs overlap (compilers
 * do not emit that), a PC belongs to the FDE with the greatest start at or
 * below it (the later one in the section on a tie), and only up to that
 * FDE's end: the lookup libgcc does through .eh_frame_hdr's sorted table.
 * In .debug_frame, an FDE at address 0 is a function the linker discarded.
 */
static int claim_section(const struct rf_frames *f, bool debug, struct pieces *out,
			 struct oc_stats *st)
{
	int *idx = malloc((f->nfdes + 1) * sizeof(*idx)), n = 0, ret = 0;

	if (!idx)
		return -ENOMEM;
	for (int i = 0; i < f->nfdes; i++) {
		const struct rf_fde *fde = &f->fdes[i];

		if (fde->debug_frame == debug && fde->pc_begin < fde->pc_end &&
		    !(debug && fde->pc_begin == 0))
			idx[n++] = i;
	}
	qsort_r(idx, n, sizeof(*idx), by_begin, (void *)f);
	for (int k = 0; k < n && !ret; k++) {
		const struct rf_fde *fde = &f->fdes[idx[k]];
		uint64_t b = fde->pc_end;

		if (k + 1 < n && f->fdes[idx[k + 1]].pc_begin < b) {
			st->overlaps++;
			b = f->fdes[idx[k + 1]].pc_begin;
		}
		if (fde->pc_begin < b)
			ret = piece_add(out, fde->pc_begin, b, idx[k]);
	}
	if (debug)
		st->fdes_debug += n;
	else
		st->fdes_eh += n;
	free(idx);
	return ret;
}

/* Add the parts of DBG's pieces that EH's (sorted, disjoint) do not cover. */
static int subtract(const struct pieces *dbg, const struct pieces *eh, struct pieces *out)
{
	for (int i = 0; i < dbg->n; i++) {
		uint64_t a = dbg->p[i].a, b = dbg->p[i].b;
		int lo = 0, hi = eh->n;

		/* first eh piece ending after a */
		while (lo < hi) {
			int mid = (lo + hi) / 2;

			if (eh->p[mid].b <= a)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (int k = lo; k < eh->n && eh->p[k].a < b && a < b; k++) {
			if (eh->p[k].a > a && piece_add(out, a, eh->p[k].a, dbg->p[i].fde))
				return -ENOMEM;
			if (eh->p[k].b > a)
				a = eh->p[k].b;
		}
		if (a < b && piece_add(out, a, b, dbg->p[i].fde))
			return -ENOMEM;
	}
	return 0;
}

static const struct oc_rule end_rule = { "end", "-", "-" };

/* Index of the first row of T with pc > PC. */
static int first_row_above(const struct oc_table *t, uint64_t pc)
{
	int lo = 0, hi = t->n;

	while (lo < hi) {
		int mid = (lo + hi) / 2;

		if (t->rows[mid].pc <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Our rule at PC: the last row at or below it; "end" before the first. */
static const struct oc_rule *ours_at(const struct oc_table *t, uint64_t pc)
{
	int i = first_row_above(t, pc);

	return i ? &t->rows[i - 1].rule : &end_rule;
}

static bool same_rule(const struct oc_rule *a, const struct oc_rule *b)
{
	for (int k = 0; k < 5; k++)
		if (strcmp(a->saved[k], b->saved[k]))
			return false;
	return !strcmp(a->cfa, b->cfa) && !strcmp(a->rbp, b->rbp) && !strcmp(a->ra, b->ra);
}

/* The callee-saved columns of R, space-separated, into BUF. */
static const char *saved_cols(const struct oc_rule *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s %s %s", r->saved[0], r->saved[1], r->saved[2],
		 r->saved[3], r->saved[4]);
	return buf;
}

struct cmp {
	const struct oc_table *ours;
	struct oc_stats *st;
	FILE *report;
	int max_report, reported;
};

static void report_fde(struct cmp *c, uint64_t pc, const struct rf_fde *fde,
		       const struct rf_row *row, const struct oc_rule *want,
		       const struct oc_rule *got)
{
	char ws[5 * 32 + 5], gs[5 * 32 + 5];

	if (!c->report || c->reported++ >= c->max_report)
		return;
	fprintf(c->report, "  %#" PRIx64 ": %s FDE %#" PRIx64 "%s: readelf '%s %s %s'%s%s%s"
		" wants '%s %s %s %s', table has '%s %s %s %s'\n",
		pc, fde->debug_frame ? ".debug_frame" : ".eh_frame", fde->offset,
		fde->signal ? " (signal CIE)" : "", row->cfa,
		row->rbp[0] ? row->rbp : "-", row->ra[0] ? row->ra : "-",
		row->cfa_expr ? " [" : "", row->cfa_expr ? row->cfa_expr : "",
		row->cfa_expr ? "]" : "", want->cfa, want->rbp, want->ra,
		saved_cols(want, ws, sizeof(ws)), got->cfa, got->rbp, got->ra,
		saved_cols(got, gs, sizeof(gs)));
}

/* Compare every point of [a, b) where a rule starts on either side. */
static void compare_range(struct cmp *c, uint64_t a, uint64_t b, const struct rf_fde *fde,
			  const struct rf_row *row)
{
	struct oc_rule want;
	uint64_t pc = a;
	int next = first_row_above(c->ours, a);

	if (fde)
		oc_expect(fde, row, &want);
	for (;;) {
		const struct oc_rule *got = ours_at(c->ours, pc);

		if (fde) {
			c->st->compared++;
			if (same_rule(&want, got))
				c->st->agreed++;
			else
				report_fde(c, pc, fde, row, &want, got);
		} else {
			c->st->gap_compared++;
			if (!strcmp(got->cfa, "end"))
				c->st->gap_agreed++;
			else if (c->report && c->reported++ < c->max_report)
				fprintf(c->report, "  %#" PRIx64 ": no FDE covers it, table has"
					" '%s %s %s' instead of end\n",
					pc, got->cfa, got->rbp, got->ra);
		}
		if (next >= c->ours->n || c->ours->rows[next].pc >= b)
			break;
		pc = c->ours->rows[next++].pc;
	}
}

static void compare_piece(struct cmp *c, const struct rf_frames *f, const struct piece *p)
{
	const struct rf_fde *fde = &f->fdes[p->fde];

	for (int k = 0; k < fde->nrows; k++) {
		uint64_t a = fde->rows[k].pc, b = k + 1 < fde->nrows ?
			     fde->rows[k + 1].pc : fde->pc_end;

		if (a < p->a)
			a = p->a;
		if (b > p->b)
			b = p->b;
		if (a < b)
			compare_range(c, a, b, fde, &fde->rows[k]);
	}
}

int oc_compare(const struct rf_frames *frames, const struct oc_table *ours,
	       struct oc_stats *stats, FILE *report, int max_report)
{
	struct pieces eh = {}, dbg = {}, all = {};
	struct cmp c = { ours, stats, report, max_report, 0 };
	uint64_t gap = 0;
	int ret;

	memset(stats, 0, sizeof(*stats));
	ret = claim_section(frames, false, &eh, stats);
	if (!ret)
		ret = claim_section(frames, true, &dbg, stats);
	for (int i = 0; !ret && i < eh.n; i++)
		ret = piece_add(&all, eh.p[i].a, eh.p[i].b, eh.p[i].fde);
	if (!ret)
		ret = subtract(&dbg, &eh, &all);
	if (ret)
		goto out;
	qsort(all.p, all.n, sizeof(*all.p), by_piece_start);

	for (int i = 0; i < all.n; i++) {
		if (all.p[i].a > gap)
			compare_range(&c, gap, all.p[i].a, NULL, NULL);
		compare_piece(&c, frames, &all.p[i]);
		gap = all.p[i].b;
	}
	compare_range(&c, gap, UINT64_MAX, NULL, NULL);
out:
	free(eh.p);
	free(dbg.p);
	free(all.p);
	return ret;
}
