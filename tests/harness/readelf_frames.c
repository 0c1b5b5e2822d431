// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Parser for readelf's frame dumps (see readelf_frames.h). It mirrors what
 * binutils' display_debug_frames() prints, including its quirks: an FDE of
 * only DW_CFA_nop prints no rows; a row is printed at every advance (before
 * the location moves) and once at the end; the remember_state stack lives
 * for a whole section; a register rule prints as "r10 (r10)".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/readelf_frames.h"

enum section { SEC_NONE, SEC_EH, SEC_DEBUG };

/* A CIE or FDE header line: "00000018 0000000000000024 0000001c FDE ...". */
struct chunk_line {
	uint64_t offset;
	bool cie, fde, zero;
	const char *rest;	/* after "CIE"/"FDE" */
};

/* What the raw dump tells about one CIE or FDE. */
struct raw_chunk {
	enum section sec;
	uint64_t offset;
	bool cie;
	char augmentation[16];	/* CIE */
	char **snaps;		/* FDE: CFA expression text at each printed row */
	int nsnaps;
};

struct raw {
	struct raw_chunk *chunks;
	int n;
};

/* An interp CIE: its augmentation and initial row. */
struct cie {
	enum section sec;
	uint64_t offset;
	char augmentation[16];
	bool has_row;
	struct rf_row row;
};

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EBADMSG;
}

/*
 * Append one zeroed element of SIZE to the array *ARR_P of *N elements; NULL
 * on ENOMEM. The capacity is implied by N: 16, then doubled whenever N
 * reaches a power of two, so appends stay amortized O(1) over tens of
 * thousands of FDEs without a capacity field.
 */
static void *append(void *arr_p, int *n, size_t size)
{
	void **arr = arr_p;
	char *p = *arr;

	if (*n == 0 || (*n >= 16 && !(*n & (*n - 1)))) {
		p = realloc(p, (size_t)(*n ? *n * 2 : 16) * size);
		if (!p)
			return NULL;
		*arr = p;
	}
	memset(p + (size_t)*n * size, 0, size);
	return p + (size_t)(*n)++ * size;
}

static enum section section_of(const char *line, enum section cur)
{
	if (strncmp(line, "Contents of the .eh_frame section", 33) == 0)
		return SEC_EH;
	if (strncmp(line, "Contents of the .debug_frame section", 36) == 0)
		return SEC_DEBUG;
	if (strncmp(line, "Contents of the ", 16) == 0)
		return SEC_NONE;
	return cur;
}

static bool parse_chunk_line(const char *line, struct chunk_line *c)
{
	char kind[16];
	int n = 0;

	memset(c, 0, sizeof(*c));
	if (!isxdigit((unsigned char)line[0]))
		return false;
	if (sscanf(line, "%" SCNx64 " ZERO terminator%n", &c->offset, &n) == 1 && n) {
		c->zero = true;
		return true;
	}
	if (sscanf(line, "%" SCNx64 " %*x %*x %15s%n", &c->offset, kind, &n) != 2)
		return false;
	c->cie = strcmp(kind, "CIE") == 0;
	c->fde = strcmp(kind, "FDE") == 0;
	c->rest = line + n;
	return c->cie || c->fde;
}

int rf_split_columns(char *line, char **cols, int max)
{
	int n = 0;
	char *p = line;

	while (*p) {
		while (isspace((unsigned char)*p))
			*p++ = '\0';
		if (!*p)
			break;
		/* "r10 (r10)": the parenthesized name belongs to the column
		 * before it. */
		if (*p == '(' && n > 0) {
			p[-1] = ' ';
		} else {
			if (n == max)
				break;
			cols[n++] = p;
		}
		while (*p && !isspace((unsigned char)*p))
			p++;
	}
	return n;
}

/* Copy a quoted augmentation string ("zRS") from S. */
static void copy_augmentation(const char *s, char *out, size_t len)
{
	const char *q = strchr(s, '"');
	size_t n = 0;

	out[0] = '\0';
	if (!q)
		return;
	for (q++; *q && *q != '"' && n + 1 < len; q++)
		out[n++] = *q;
	out[n] = '\0';
}

/* --- raw dump: augmentations and CFA expression texts -------------------- */

static void raw_free(struct raw *r)
{
	for (int i = 0; i < r->n; i++) {
		for (int k = 0; k < r->chunks[i].nsnaps; k++)
			free(r->chunks[i].snaps[k]);
		free(r->chunks[i].snaps);
	}
	free(r->chunks);
}

static int snapshot(struct raw_chunk *c, const char *expr)
{
	char **s = append(&c->snaps, &c->nsnaps, sizeof(*c->snaps));

	if (!s)
		return -ENOMEM;
	if (expr && !(*s = strdup(expr)))
		return -ENOMEM;
	return 0;
}

/* The remember_state stack: the CFA expression part of it. */
struct expr_stack {
	char **items;
	int n;
};

static void expr_stack_clear(struct expr_stack *st)
{
	for (int i = 0; i < st->n; i++)
		free(st->items[i]);
	free(st->items);
	memset(st, 0, sizeof(*st));
}

static int parse_raw(const char *text, struct raw *out, char *err, size_t errlen)
{
	enum section sec = SEC_NONE;
	struct raw_chunk *cur = NULL;
	struct expr_stack st = {};
	char *expr = NULL, *copy = strdup(text), *line, *save = NULL;
	bool all_nops = true;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	if (!copy)
		return -ENOMEM;
	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		enum section next = section_of(line, sec);
		struct chunk_line cl;
		bool is_chunk = parse_chunk_line(line, &cl);

		/* The end of a chunk: readelf prints its last row unless
		 * the chunk was nothing but DW_CFA_nop. */
		if ((next != sec || is_chunk) && cur) {
			if (!cur->cie && !all_nops && (ret = snapshot(cur, expr)))
				goto out;
			cur = NULL;
		}
		if (next != sec) {
			sec = next;
			expr_stack_clear(&st);
			continue;
		}
		if (is_chunk) {
			if (cl.zero || sec == SEC_NONE)
				continue;
			cur = append(&out->chunks, &out->n, sizeof(*cur));
			if (!cur) {
				ret = -ENOMEM;
				goto out;
			}
			cur->sec = sec;
			cur->offset = cl.offset;
			cur->cie = cl.cie;
			all_nops = true;
			/* readelf starts every chunk without a CFA
			 * expression, even when its CIE had one. */
			free(expr);
			expr = NULL;
			continue;
		}
		if (!cur)
			continue;
		if (cur->cie && strncmp(line, "  Augmentation:", 15) == 0) {
			copy_augmentation(line, cur->augmentation, sizeof(cur->augmentation));
			continue;
		}
		if (strncmp(line, "  DW_CFA_", 9) != 0)
			continue;

		const char *op = line + 2;

		if (strcmp(op, "DW_CFA_nop") != 0)
			all_nops = false;
		if (strncmp(op, "DW_CFA_advance_loc", 18) == 0 ||
		    strncmp(op, "DW_CFA_set_loc", 14) == 0 ||
		    strncmp(op, "DW_CFA_MIPS_advance_loc8", 24) == 0) {
			if (!cur->cie && (ret = snapshot(cur, expr)))
				goto out;
		} else if (strncmp(op, "DW_CFA_def_cfa_expression (", 27) == 0) {
			const char *b = op + 27, *e = strrchr(op, ')');

			free(expr);
			expr = e && e >= b ? strndup(b, e - b) : strdup("");
			if (!expr) {
				ret = -ENOMEM;
				goto out;
			}
		} else if (strncmp(op, "DW_CFA_def_cfa:", 15) == 0 ||
			   strncmp(op, "DW_CFA_def_cfa_sf:", 18) == 0 ||
			   strncmp(op, "DW_CFA_def_cfa_register:", 24) == 0) {
			free(expr);
			expr = NULL;
		} else if (strcmp(op, "DW_CFA_remember_state") == 0) {
			char **slot = append(&st.items, &st.n, sizeof(*st.items));

			if (!slot || (expr && !(*slot = strdup(expr)))) {
				ret = -ENOMEM;
				goto out;
			}
		} else if (strcmp(op, "DW_CFA_restore_state") == 0 && st.n) {
			free(expr);
			expr = st.items[--st.n];
		}
	}
	if (cur && !cur->cie && !all_nops)
		ret = snapshot(cur, expr);
out:
	free(expr);
	expr_stack_clear(&st);
	free(copy);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}

static const struct raw_chunk *raw_find(const struct raw *r, enum section sec,
					uint64_t offset)
{
	int lo = 0, hi = r->n;

	/* readelf prints each section's chunks in offset order, sections one
	 * after the other: sorted by (section order, offset). */
	while (lo < hi) {
		int mid = (lo + hi) / 2;
		const struct raw_chunk *c = &r->chunks[mid];

		if (c->sec < sec || (c->sec == sec && c->offset < offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < r->n && r->chunks[lo].sec == sec && r->chunks[lo].offset == offset)
		return &r->chunks[lo];
	return NULL;
}

/* --- interp dump -------------------------------------------------------- */

/* Fill ROW from the columns of a row line, given the header's columns. */
static int parse_row(char *line, char *const *header, int nheader,
		     struct rf_row *row, char *err, size_t errlen)
{
	static const char *const saved_names[] = { "rbx", "r12", "r13", "r14", "r15" };
	char *cols[64];
	int n = rf_split_columns(line, cols, 64);

	if (n != nheader)
		return fail(err, errlen, "row '%s...' has %d columns, header %d",
			    cols[0], n, nheader);
	row->pc = strtoull(cols[0], NULL, 16);
	snprintf(row->cfa, sizeof(row->cfa), "%s", cols[1]);
	for (int i = 2; i < n; i++) {
		if (strcmp(header[i], "rbp") == 0)
			snprintf(row->rbp, sizeof(row->rbp), "%s", cols[i]);
		else if (strcmp(header[i], "ra") == 0)
			snprintf(row->ra, sizeof(row->ra), "%s", cols[i]);
		for (int k = 0; k < 5; k++)
			if (strcmp(header[i], saved_names[k]) == 0)
				snprintf(row->saved[k], sizeof(row->saved[k]), "%s", cols[i]);
	}
	return 0;
}

void rf_frames_free(struct rf_frames *f)
{
	for (int i = 0; i < f->nfdes; i++) {
		for (int k = 0; k < f->fdes[i].nrows; k++)
			free(f->fdes[i].rows[k].cfa_expr);
		free(f->fdes[i].rows);
	}
	free(f->fdes);
	memset(f, 0, sizeof(*f));
}

static const struct cie *cie_find(const struct cie *cies, int n, enum section sec,
				  uint64_t offset)
{
	for (int i = n - 1; i >= 0; i--)
		if (cies[i].sec == sec && cies[i].offset == offset)
			return &cies[i];
	return NULL;
}

/* Attach expression texts and CIE facts to a finished FDE. */
static int finish_fde(struct rf_fde *fde, uint64_t cie_off, const struct cie *cies,
		      int ncies, const struct raw *raw, char *err, size_t errlen)
{
	enum section sec = fde->debug_frame ? SEC_DEBUG : SEC_EH;
	const struct raw_chunk *rc = raw_find(raw, sec, fde->offset);
	const struct raw_chunk *rcie = raw_find(raw, sec, cie_off);
	const struct cie *cie = cie_find(cies, ncies, sec, cie_off);

	if (!rc || rc->cie)
		return fail(err, errlen, "FDE %#" PRIx64 " missing from the raw dump",
			    fde->offset);
	if (!cie || !rcie || !rcie->cie)
		return fail(err, errlen, "FDE %#" PRIx64 ": CIE %#" PRIx64 " not found",
			    fde->offset, cie_off);
	if (strcmp(cie->augmentation, rcie->augmentation) != 0)
		return fail(err, errlen, "CIE %#" PRIx64 ": augmentation \"%s\" vs raw \"%s\"",
			    cie_off, cie->augmentation, rcie->augmentation);
	snprintf(fde->augmentation, sizeof(fde->augmentation), "%s", cie->augmentation);
	fde->signal = strchr(cie->augmentation, 'S') != NULL;

	if (fde->nrows == 0) {
		/* All DW_CFA_nop: the CIE's initial rules, whole range. */
		struct rf_row *row = append(&fde->rows, &fde->nrows, sizeof(*row));

		if (!row)
			return -ENOMEM;
		if (cie->has_row)
			*row = cie->row;
		row->cfa_expr = NULL;
		row->pc = fde->pc_begin;
		if (strcmp(row->cfa, "exp") == 0)
			return fail(err, errlen, "FDE %#" PRIx64 ": CIE with a CFA expression",
				    fde->offset);
		if (rc->nsnaps)
			return fail(err, errlen, "FDE %#" PRIx64 ": rows in raw dump only",
				    fde->offset);
		return 0;
	}
	if (rc->nsnaps != fde->nrows)
		return fail(err, errlen, "FDE %#" PRIx64 ": %d interp rows, %d in the raw dump",
			    fde->offset, fde->nrows, rc->nsnaps);
	for (int i = 0; i < fde->nrows; i++) {
		struct rf_row *row = &fde->rows[i];

		if (strcmp(row->cfa, "exp") != 0)
			continue;
		if (!rc->snaps[i])
			return fail(err, errlen, "FDE %#" PRIx64 " row %#" PRIx64
				    ": exp without a DW_CFA_def_cfa_expression",
				    fde->offset, row->pc);
		row->cfa_expr = strdup(rc->snaps[i]);
		if (!row->cfa_expr)
			return -ENOMEM;
	}
	return 0;
}

int rf_frames_parse(const char *interp, const char *raw_text, struct rf_frames *out,
		    char *err, size_t errlen)
{
	enum section sec = SEC_NONE;
	struct raw raw;
	struct cie *cies = NULL;
	int ncies = 0, nheader = 0, ret;
	char *copy = NULL, *line, *save = NULL, *header[64], header_buf[1024];
	struct cie *cur_cie = NULL;
	struct rf_fde *cur_fde = NULL;
	uint64_t cur_cie_off = 0;
	bool sections = false;

	memset(out, 0, sizeof(*out));
	ret = parse_raw(raw_text, &raw, err, errlen);
	if (ret)
		return ret;
	copy = strdup(interp);
	if (!copy) {
		ret = -ENOMEM;
		goto out;
	}

	for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		enum section next = section_of(line, sec);
		struct chunk_line cl;
		bool is_chunk = parse_chunk_line(line, &cl);

		if ((next != sec || is_chunk) && cur_fde) {
			ret = finish_fde(cur_fde, cur_cie_off, cies, ncies, &raw, err, errlen);
			if (ret)
				goto out;
			cur_fde = NULL;
		}
		if (next != sec || is_chunk)
			cur_cie = NULL;
		if (next != sec) {
			sec = next;
			sections |= sec != SEC_NONE;
			continue;
		}
		if (sec == SEC_NONE)
			continue;
		if (is_chunk) {
			if (cl.zero)
				continue;
			if (cl.cie) {
				cur_cie = append(&cies, &ncies, sizeof(*cies));
				if (!cur_cie) {
					ret = -ENOMEM;
					goto out;
				}
				cur_cie->sec = sec;
				cur_cie->offset = cl.offset;
				copy_augmentation(cl.rest, cur_cie->augmentation,
						  sizeof(cur_cie->augmentation));
				continue;
			}
			cur_fde = append(&out->fdes, &out->nfdes, sizeof(*cur_fde));
			if (!cur_fde) {
				ret = -ENOMEM;
				goto out;
			}
			cur_fde->debug_frame = sec == SEC_DEBUG;
			cur_fde->offset = cl.offset;
			if (sscanf(cl.rest, " cie=%" SCNx64 " pc=%" SCNx64 "..%" SCNx64,
				   &cur_cie_off, &cur_fde->pc_begin, &cur_fde->pc_end) != 3) {
				ret = fail(err, errlen, "bad FDE line '%s'", line);
				goto out;
			}
			continue;
		}
		if (strncmp(line, "   LOC ", 7) == 0) {
			snprintf(header_buf, sizeof(header_buf), "%s", line);
			nheader = rf_split_columns(header_buf, header, 64);
			continue;
		}
		if (!isxdigit((unsigned char)line[0]) || (!cur_cie && !cur_fde))
			continue;
		if (!nheader) {
			ret = fail(err, errlen, "row before a column header: '%s'", line);
			goto out;
		}
		if (cur_cie) {
			/* The CIE's last row is its initial state. */
			ret = parse_row(line, header, nheader, &cur_cie->row, err, errlen);
			cur_cie->has_row = true;
		} else {
			struct rf_row *row = append(&cur_fde->rows, &cur_fde->nrows,
						    sizeof(*row));

			ret = row ? parse_row(line, header, nheader, row, err, errlen) : -ENOMEM;
		}
		if (ret)
			goto out;
	}
	if (cur_fde)
		ret = finish_fde(cur_fde, cur_cie_off, cies, ncies, &raw, err, errlen);
	if (!ret && !sections)
		ret = fail(err, errlen, "no .eh_frame or .debug_frame contents in readelf's output");
out:
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	free(copy);
	free(cies);
	raw_free(&raw);
	return ret;
}
