// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * From CFI sections to a table: rows of every FDE in pc order, an explicit
 * END row wherever no FDE covers a pc (so a gap never inherits the previous
 * function's rule), identical neighbours merged, .eh_frame laid over
 * .debug_frame, rules interned into the dictionary.
 *
 * FDEs are sorted once (not rows: an FDE's rows come out of the interpreter
 * already in order) and rows are appended to one growing array, so the cost
 * is one sort of a few thousand FDEs plus a linear pass.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "eh_frame/eh_internal.h"
#include "eh_frame/go_pclntab.h"
#include "lib/util/array.h"

const struct pk_unwind_rule eh_end_rule = {
	.cfa_type = PK_CFA_END,
	.fp_type = PK_FP_UNCHANGED,
	.ra_type = PK_RA_UNDEFINED,
};

static bool same_rule(const struct pk_unwind_rule *a, const struct pk_unwind_rule *b)
{
	return !memcmp(a, b, sizeof(*a));
}

void eh_rows_free(struct eh_rows *rows)
{
	free(rows->v);
	memset(rows, 0, sizeof(*rows));
}

int eh_rows_push(struct eh_rows *rows, __u64 pc, const struct pk_unwind_rule *rule)
{
	if (rows->n) {
		struct eh_row *last = &rows->v[rows->n - 1];

		if (pc < last->pc)
			return -EINVAL;
		if (pc == last->pc) {
			last->rule = *rule;
			if (rows->n >= 2 && same_rule(&last[-1].rule, rule))
				rows->n--;
			return 0;
		}
		if (same_rule(&last->rule, rule))
			return 0;
	}
	if (rows->n == rows->cap && rows->n >= EH_MAX_ROWS)
		return -E2BIG;
	if (pk_array_reserve((void **)&rows->v, &rows->cap, sizeof(*rows->v), rows->n + 1, 1024))
		return -ENOMEM;
	rows->v[rows->n].pc = pc;
	rows->v[rows->n].rule = *rule;
	rows->n++;
	return 0;
}


static int cmp_fde(const void *a, const void *b)
{
	const struct cfi_fde *x = a, *y = b;

	if (x->pc_begin != y->pc_begin)
		return x->pc_begin < y->pc_begin ? -1 : 1;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

int eh_rows_push_checked(struct eh_rows *rows, __u64 pc,
			 const struct pk_unwind_rule *rule, char err[PK_ERR_LEN])
{
	int ret = eh_rows_push(rows, pc, rule);

	if (ret == -EINVAL)
		return pk_err(err, -EINVAL, "rows out of order at 0x%llx",
			      (unsigned long long)pc);
	if (ret == -E2BIG)
		return pk_err(err, -E2BIG, "more than %u rows", EH_MAX_ROWS);
	if (ret)
		return pk_err(err, ret, "cannot append row: %s", strerror(-ret));
	return 0;
}

struct row_sink {
	struct eh_rows *rows;
	bool signal;
	char *err;
};

static int on_row(void *arg, __u64 pc, const struct cfi_state *state)
{
	struct row_sink *sink = arg;
	struct pk_unwind_rule rule;

	eh_classify(state, sink->signal, &rule);
	return eh_rows_push_checked(sink->rows, pc, &rule, sink->err);
}

static int rows_from_parsed(struct eh_rows *rows, struct cfi_section *s,
			    char err[PK_ERR_LEN])
{
	struct cfi_state *inits;
	__u64 last_end = 0;
	size_t i;
	int ret = 0;

	inits = calloc(s->ncies ? s->ncies : 1, sizeof(*inits));
	if (!inits)
		return pk_err(err, -ENOMEM, "out of memory");
	for (i = 0; i < s->ncies && !ret; i++)
		ret = eh_cfi_run_cie(s, &s->cies[i], &inits[i], err);

	qsort(s->fdes, s->nfdes, sizeof(*s->fdes), cmp_fde);
	for (i = 0; i < s->nfdes && !ret; i++) {
		const struct cfi_fde *fde = &s->fdes[i];
		struct row_sink sink = { rows, s->cies[fde->cie].signal, err };

		/* Empty FDEs cover nothing; in .debug_frame, address 0 marks
		 * the FDE of a function the linker discarded. */
		if (fde->pc_begin == fde->pc_end ||
		    (!s->eh_frame && fde->pc_begin == 0))
			continue;
		if (rows->n && fde->pc_begin > last_end)
			ret = eh_rows_push_checked(rows, last_end, &eh_end_rule, err);
		/* Overlapping FDEs (not emitted by compilers): the later
		 * start wins from its first byte on. */
		while (rows->n && rows->v[rows->n - 1].pc >= fde->pc_begin)
			rows->n--;
		if (!ret)
			ret = eh_cfi_run_fde(s, fde, &inits[fde->cie], on_row, &sink, err);
		last_end = fde->pc_end;
	}
	if (!ret && rows->n)
		ret = eh_rows_push_checked(rows, last_end, &eh_end_rule, err);
	free(inits);
	return ret;
}

int eh_rows_from_section(struct eh_rows *rows, const void *data, size_t size,
			 __u64 vaddr, bool eh_frame, char err[PK_ERR_LEN])
{
	struct cfi_section s;
	int ret;

	ret = eh_cfi_section_parse(&s, data, size, vaddr, eh_frame, err);
	if (ret)
		return ret;
	ret = rows_from_parsed(rows, &s, err);
	eh_cfi_section_free(&s);
	return ret;
}

int eh_rows_overlay(struct eh_rows *out, const struct eh_rows *primary,
		    const struct eh_rows *secondary)
{
	size_t i = 0, j = 0;

	while (i < primary->n || j < secondary->n) {
		const struct pk_unwind_rule *p = &eh_end_rule, *s = &eh_end_rule;
		__u64 pc;
		int ret;

		if (j == secondary->n ||
		    (i < primary->n && primary->v[i].pc <= secondary->v[j].pc))
			pc = primary->v[i].pc;
		else
			pc = secondary->v[j].pc;
		while (i < primary->n && primary->v[i].pc <= pc)
			i++;
		while (j < secondary->n && secondary->v[j].pc <= pc)
			j++;
		if (i)
			p = &primary->v[i - 1].rule;
		if (j)
			s = &secondary->v[j - 1].rule;
		ret = eh_rows_push(out, pc, p->cfa_type != PK_CFA_END ? p : s);
		if (ret)
			return ret;
	}
	return 0;
}

/* Rule -> id, open addressing over the dictionary being built. */
struct interner {
	__u32 *slots;		/* id + 1, 0 = empty */
	size_t mask;
	struct pk_unwind_rule *rules;
	__u32 n;
};

static size_t rule_hash(const struct pk_unwind_rule *r)
{
	__u64 w[sizeof(*r) / sizeof(__u64)];

	_Static_assert(sizeof(*r) % sizeof(__u64) == 0, "a rule is whole words");
	memcpy(w, r, sizeof(w));
	return (size_t)eh_hash_final(eh_hash_update(EH_HASH_INIT, w, sizeof(w)), 0);
}

static int intern(struct interner *in, const struct pk_unwind_rule *r, __u16 *id)
{
	size_t h = rule_hash(r) & in->mask;

	for (;; h = (h + 1) & in->mask) {
		__u32 s = in->slots[h];

		if (!s)
			break;
		if (same_rule(&in->rules[s - 1], r)) {
			*id = (__u16)(s - 1);
			return 0;
		}
	}
	if (in->n == PK_UNWIND_MAX_RULES)
		return -E2BIG;
	in->rules[in->n] = *r;
	in->slots[h] = ++in->n;
	*id = (__u16)(in->n - 1);
	return 0;
}

int eh_table_from_rows(const struct eh_rows *rows, __u16 flags,
		       const __u8 *build_id, size_t build_id_len,
		       struct eh_unwind_table **out, char err[PK_ERR_LEN])
{
	struct interner in = { 0 };
	struct pk_unwind_header h, *hp;
	struct eh_unwind_table *t = NULL;
	size_t nslots = 1, i, cap;
	__u16 *ids = NULL;
	__u32 *pcs;
	__u64 base;
	int ret;

	if (!rows->n)
		return pk_err(err, -ENODATA, "no FDEs in the unwind sections");
	base = rows->v[0].pc;
	if (rows->v[rows->n - 1].pc - base > UINT32_MAX)
		return pk_err(err, -E2BIG, "covered addresses span more than 4 GiB");
	if (build_id_len > PK_UNWIND_BUILD_ID_MAX)
		return pk_err(err, -EINVAL, "build-id longer than %d bytes",
			       PK_UNWIND_BUILD_ID_MAX);

	cap = rows->n < PK_UNWIND_MAX_RULES ? rows->n : PK_UNWIND_MAX_RULES;
	while (nslots < 2 * cap)
		nslots <<= 1;
	in.slots = calloc(nslots, sizeof(*in.slots));
	in.rules = malloc(cap * sizeof(*in.rules));
	ids = malloc(rows->n * sizeof(*ids));
	if (!in.slots || !in.rules || !ids) {
		ret = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	in.mask = nslots - 1;
	for (i = 0; i < rows->n; i++) {
		if (intern(&in, &rows->v[i].rule, &ids[i])) {
			ret = pk_err(err, -E2BIG, "more than %d distinct unwind rules",
				      PK_UNWIND_MAX_RULES);
			goto out;
		}
	}

	memset(&h, 0, sizeof(h));
	eh_table_layout((__u32)rows->n, in.n, &h);
	t = calloc(1, sizeof(*t));
	if (t)
		t->buf = calloc(1, h.file_size);	/* padding stays zero */
	if (!t || !t->buf) {
		ret = pk_err(err, -ENOMEM, "out of memory");
		goto out;
	}
	t->size = h.file_size;
	hp = t->buf;
	*hp = h;
	memcpy(hp->magic, PK_UNWIND_MAGIC, sizeof(hp->magic));
	hp->version = PK_UNWIND_VERSION;
	hp->arch = 62;	/* EM_X86_64 */
	hp->flags = flags;
	if (build_id_len)
		memcpy(hp->build_id, build_id, build_id_len);
	hp->build_id_len = (__u32)build_id_len;
	hp->pc_base = base;
	hp->pc_end = rows->v[rows->n - 1].pc;
	pcs = (__u32 *)((char *)t->buf + hp->pcs_off);
	for (i = 0; i < rows->n; i++)
		pcs[i] = (__u32)(rows->v[i].pc - base);
	memcpy((char *)t->buf + hp->rule_ids_off, ids, rows->n * sizeof(*ids));
	memcpy((char *)t->buf + hp->rules_off, in.rules, in.n * sizeof(*in.rules));
	hp->checksum = eh_table_checksum(t->buf, t->size);
	*out = t;
	t = NULL;
	ret = 0;
out:
	eh_unwind_table_free(t);
	free(in.slots);
	free(in.rules);
	free(ids);
	return ret;
}

int eh_unwind_table_from_section(const void *data, size_t size, __u64 vaddr,
			       bool eh_frame, struct eh_unwind_table **out,
			       char err[PK_ERR_LEN])
{
	struct eh_rows rows = { 0 };
	int ret;

	ret = eh_rows_from_section(&rows, data, size, vaddr, eh_frame, err);
	if (!ret)
		ret = eh_table_from_rows(&rows, eh_frame ? PK_UNWIND_HAS_EH_FRAME :
					 PK_UNWIND_HAS_DEBUG_FRAME, NULL, 0, out, err);
	eh_rows_free(&rows);
	return ret;
}

/* Rows of FILE's .debug_frame, or its separate debug file's. -ENOENT when
 * neither has one. */
static int debug_frame_rows(struct eh_elf_file *ef, const char *path,
			    const char *debug_root, struct eh_rows *rows,
			    char err[PK_ERR_LEN])
{
	struct eh_elf_file *dbg = NULL;
	struct elf_section sec;
	int ret;

	ret = eh_elf_file_section(ef, ".debug_frame", &sec, err);
	if (ret == -ENOENT) {
		dbg = eh_elf_file_open_debug(ef, path, debug_root);
		if (dbg)
			ret = eh_elf_file_section(dbg, ".debug_frame", &sec, err);
	}
	if (!ret)
		ret = eh_rows_from_section(rows, sec.data, sec.size, sec.vaddr,
					   false, err);
	eh_elf_file_close(dbg);
	return ret;
}

/* Rows of a file without CFI from its Go .gopclntab. A Go binary with
 * CFI keeps it (Go's linker writes .debug_frame from the same SP deltas).
 * -ENODATA, as for any file without CFI, when it has no table or one
 * that gives no rows (the reason added: an older Go's layout, a bad
 * table); -ENOMEM. */
static int go_rows(struct eh_elf_file *ef, struct eh_rows *rows, char err[PK_ERR_LEN])
{
	struct pk_gopclntab *t = NULL;
	char why[PK_ERR_LEN];
	int ret;

	ret = pk_gopclntab_from_elf(eh_elf_file_elf(ef), &t, why);
	if (!ret)
		ret = eh_rows_from_gopclntab(rows, t, why);
	pk_gopclntab_free(t);
	if (ret == -ENOENT)
		return pk_err(err, -ENODATA, "no .eh_frame or .debug_frame section");
	if (ret == -ENOMEM)
		return pk_err(err, -ENOMEM, "out of memory");
	if (ret)
		return pk_err(err, -ENODATA, "no .eh_frame or .debug_frame section, and %s", why);
	return 0;
}

int eh_table_from_elf_file(struct eh_elf_file *ef, const char *path,
			   const struct eh_unwind_build_opts *opts,
			   struct eh_unwind_table **out, char err[PK_ERR_LEN])
{
	struct eh_rows eh = { 0 }, dbg = { 0 }, both = { 0 };
	const struct eh_rows *rows = &eh;
	const char *debug_root = EH_OPT(opts, debug_root, NULL);
	struct elf_section sec;
	const __u8 *build_id;
	size_t build_id_len;
	__u16 flags = 0;
	int ret;

	ret = eh_elf_file_section(ef, ".eh_frame", &sec, err);
	if (!ret) {
		ret = eh_rows_from_section(&eh, sec.data, sec.size, sec.vaddr, true, err);
		flags |= PK_UNWIND_HAS_EH_FRAME;
	}
	if (ret && ret != -ENOENT)
		goto out;
	if (!EH_OPT(opts, no_debug_frame, false)) {
		ret = debug_frame_rows(ef, path, debug_root ? debug_root : "/usr/lib/debug",
				       &dbg, err);
		if (!ret)
			flags |= PK_UNWIND_HAS_DEBUG_FRAME;
		else if (ret != -ENOENT)
			goto out;
	}
	if (!flags) {
		ret = go_rows(ef, &eh, err);
		if (ret)
			goto out;
		flags |= PK_UNWIND_HAS_GOPCLNTAB;
	}
	if (eh.n && dbg.n) {
		ret = eh_rows_overlay(&both, &eh, &dbg);
		if (ret) {
			ret = pk_err(err, ret, "cannot merge .eh_frame and .debug_frame rows");
			goto out;
		}
		rows = &both;
	} else if (dbg.n) {
		rows = &dbg;
	}
	build_id = eh_elf_file_build_id(ef, &build_id_len);
	if (!build_id_len)
		flags |= PK_UNWIND_NO_BUILD_ID;
	ret = eh_table_from_rows(rows, flags, build_id, build_id_len, out, err);
out:
	eh_rows_free(&eh);
	eh_rows_free(&dbg);
	eh_rows_free(&both);
	return ret;
}

int eh_unwind_table_from_elf(const char *path, const struct eh_unwind_build_opts *opts,
			   struct eh_unwind_table **out, char err[PK_ERR_LEN])
{
	struct eh_elf_file *ef;
	int ret;

	ret = eh_elf_file_open(path, &ef, err);
	if (ret)
		return ret;
	ret = eh_table_from_elf_file(ef, path, opts, out, err);
	eh_elf_file_close(ef);
	return ret;
}
