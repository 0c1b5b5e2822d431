/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the DWARF walk (bpf/cfi_walk.bpf.h) finds for a PC: the mapping that
 * holds it (remembered per VMA across samples, reported once, and what it
 * tells the runtimes' walks), then the rule of its table for it (two
 * levels of caches of recent lookups in front of a binary search).
 */
#ifndef PK_CFI_LOOKUP_BPF_H
#define PK_CFI_LOOKUP_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "eh_frame/unwind_table.h"
#include "bpf/sample.bpf.h"
#include "bpf/vma.bpf.h"
#include "bpf/mapping_report.bpf.h"
#include "bpf/cfi_state.bpf.h"

/* The walk's python fields for a file with PK_FILE_PYTHON, KEY, whose ELF
 * vaddrs are V's addresses + delta. */
static __always_inline void uw_python_seen(struct uw_state *st, const struct vma_cursor *v,
					   const struct pk_file_key *key)
{
	/* ELF vaddr + bias = runtime address, in every segment of the file:
	 * its data's too */
	st->py_seen = 1;
	st->py_bias = -v->delta;
	st->py_key = *key;
}

/* The walk's HotSpot fields for a file with PK_FILE_HOTSPOT, as
 * uw_python_seen. */
static __always_inline void uw_hotspot_seen(struct uw_state *st, const struct vma_cursor *v,
					    const struct pk_file_key *key)
{
	st->hs_seen = 1;
	st->hs_bias = -v->delta;
	st->hs_key = *key;
}

/* uw_state.rt_none and rt_framed: the runtimes (a walk header each) whose
 * frames the DWARF walk itself writes. */
enum uw_runtime {
	UW_RT_HOTSPOT	= 1 << 0,
	UW_RT_V8	= 1 << 1,
};

/* The walk's V8 fields for a file with PK_FILE_V8 (KEY). */
static __always_inline void uw_v8_seen(struct uw_state *st, const struct pk_file_key *key)
{
	st->v8_seen = 1;
	st->v8_key = *key;
}

/* What an earlier sample made of the VMA vma_at() just found (its memo
 * entry, vma_memo_cur), into the walk's vma, when that holds ADDR and its
 * table is still the one it was: true then. */
static __always_inline bool uw_recall_walk(struct uw_state *st, __u64 addr,
					   const struct pk_file_key *key)
{
	struct vma_memo_entry *e = vma_memo_cur();
	struct vma_cursor *v = &st->vma;
	struct pk_table_info *t;
	__u32 table;

	if (!e || e->walk_kind != VMA_TABLE || addr < e->walk_start || addr >= e->walk_end ||
	    e->walk_report_gen != pk_report_gen())
		return false;
	/* a table given back (nrows 0) or its index handed out again (gen)
	 * is no longer the file's */
	table = e->walk_table;
	t = bpf_map_lookup_elem(&unwind_tables, &table);
	if (!t || !t->nrows || t->gen != e->walk_gen)
		return false;
	v->kind = VMA_TABLE;
	v->start = e->walk_start;
	v->end_addr = e->walk_end;
	v->table = table;
	v->delta = e->walk_delta;
	if (e->walk_python)
		uw_python_seen(st, v, key);
	if (e->walk_hotspot)
		uw_hotspot_seen(st, v, key);
	if (e->walk_v8)
		uw_v8_seen(st, key);
	return true;
}

/* Keep what the walk found of the mapping vma_at() just found (a table)
 * in its memo entry for uw_recall_walk, once its report is sent for good
 * (vma_memo_reported). */
static __always_inline void uw_keep_walk(const struct vma_cursor *v,
					 const struct pk_file_key *key)
{
	struct vma_memo_entry *e = vma_memo_cur();
	struct vma_memo *memo;
	struct pk_table_info *t;
	struct pk_file_info *fi;
	__u32 table = v->table, zero = 0, gen;

	memo = bpf_map_lookup_elem(&vma_memos, &zero);
	if (!e || !memo || !memo->cur_reported)
		return;
	t = bpf_map_lookup_elem(&unwind_tables, &table);
	if (!t || !t->nrows)
		return;
	gen = t->gen;
	/* The file's entry again, after the gen: user space writes a table
	 * before the files that point at it and deletes them before it gives
	 * it back, so a file that still points at TABLE now has it under GEN
	 * or a later gen (which uw_recall_walk refuses). The entry looked up
	 * before report_mapping may have been deleted since, its index
	 * handed out to another file's table, which kept under its new gen
	 * would serve this VMA until the memo dropped it. */
	fi = bpf_map_lookup_elem(&unwind_files, key);
	if (!fi || fi->table != table)
		return;
	e->walk_start = v->start;
	e->walk_end = v->end_addr;
	e->walk_delta = v->delta;
	e->walk_table = table;
	e->walk_gen = gen;
	e->walk_report_gen = pk_report_gen();
	e->walk_python = !!(fi->flags & PK_FILE_PYTHON);
	e->walk_hotspot = !!(fi->flags & PK_FILE_HOTSPOT);
	e->walk_v8 = !!(fi->flags & PK_FILE_V8);
	e->walk_kind = VMA_TABLE;
}

/* Look ADDR's mapping up: vma.kind, and for tables vma.table and vma.delta,
 * valid for [vma.start, vma.end_addr). false when no VMA holds ADDR.
 * A global function, as uw_read: inlined in the step, the verifier walked
 * its paths once for each state of the step that reaches it (a sixth of
 * the perf_event program's verification). */
__noinline int uw_lookup_mapping(struct uw_state *st, __u64 addr)
{
	struct vma_cursor *v;
	struct pk_file_info *fi;
	struct pk_file_key key;
	struct file *f;
	__u64 off, file_start;
	bool in_seg = false;
	int found;

	if (!st)
		return false;
	v = &st->vma;
	found = vma_at(v, addr, &key, &f);
	if (found < 0)
		return false;
	if (!found) {
		v->kind = VMA_ANON;
		return true;
	}
	if (uw_recall_walk(st, addr, &key))
		return true;
	v->kind = VMA_TABLE;
	fi = bpf_map_lookup_elem(&unwind_files, &key);
	vma_memo_reported(report_mapping(v, (__u64)f, &key, fi ? fi->table : PK_TABLE_NONE));
	if (!fi) {
		v->kind = VMA_MISSING;
		report_missing(v, &key);
		return true;
	}
	if (fi->table == PK_TABLE_NONE) {
		v->kind = VMA_REFUSED;
		return true;
	}
	/* File offset -> ELF vaddr, through the executable segment that holds it. */
	file_start = v->vm_pgoff << PK_PAGE_SHIFT;	/* the file offset at vm_start */
	off = addr - v->vm_start + file_start;
	for (__u32 i = 0; i < PK_FILE_MAX_SEGS; i++) {
		if (i >= fi->nsegs)
			break;
		if (off < fi->segs[i].off || off >= fi->segs[i].end)
			continue;
		v->table = fi->table;
		v->delta = (__s64)(file_start - v->vm_start) + fi->segs[i].bias;
		if (fi->flags & PK_FILE_PYTHON)
			uw_python_seen(st, v, &key);
		if (fi->flags & PK_FILE_HOTSPOT)
			uw_hotspot_seen(st, v, &key);
		if (fi->flags & PK_FILE_V8)
			uw_v8_seen(st, &key);
		/* The segment's part of the VMA. */
		if (fi->segs[i].off > file_start &&
		    v->vm_start + fi->segs[i].off - file_start > v->start)
			v->start = v->vm_start + fi->segs[i].off - file_start;
		if (v->vm_start + fi->segs[i].end - file_start < v->end_addr)
			v->end_addr = v->vm_start + fi->segs[i].end - file_start;
		in_seg = true;
		break;
	}
	if (!in_seg) {
		/* In the file but in no executable segment: not code we have
		 * rows for. */
		v->kind = VMA_REFUSED;
		return true;
	}
	/* once, after the loop: in its unrolled steps the verifier would
	 * walk each of its paths */
	uw_keep_walk(v, &key);
	return true;
}

/* What covers ADDR, as uw_lookup_mapping() says, from the ranges this walk
 * has found when one holds it. Its mapping was reported when first found. */
static __always_inline bool uw_find_mapping(struct uw_state *st, __u64 addr)
{
	if (vma_holds(&st->vma, addr))
		return true;
	if (vma_recall(&st->vma, addr))
		return true;
	if (!uw_lookup_mapping(st, addr))
		return false;
	vma_remember(&st->vma);
	return true;
}

/* The rule ID of the walk's current table, as uw_find_rule() found it. */
static __always_inline struct pk_unwind_rule *uw_rule_get(__u32 id)
{
	__u32 zero = 0;

	(void)id;	/* the copy in uw_rule is that rule */
	return bpf_map_lookup_elem(&uw_rule, &zero);
}

/* The page PAGE of a table's array, or NULL. */
static __always_inline union pk_table_page *uw_page(void *pages, __u32 page)
{
	return bpf_map_lookup_elem(pages, &page);
}

/* bpf_loop body: one step of uw_find_rule()'s binary search for the last
 * row of table search_table whose PC is <= search_rel, in
 * [search_lo, search_hi). A loop the verifier checks once: unrolled, or
 * as a bounded loop, it followed every path through the search, a third
 * of this program's verification (and of probe-load's CPU). */
static long uw_search_step(__u32 i, void *ctx)
{
	struct uw_state *st = uw_state_get();
	union pk_table_page *pg;
	void *pages;
	__u32 mid;

	(void)i;
	(void)ctx;
	if (!st)
		return 1;
	if (st->search_hi - st->search_lo <= 1)
		return 1;
	mid = st->search_lo + (st->search_hi - st->search_lo) / 2;
	pages = bpf_map_lookup_elem(&unwind_rows, &st->search_table);
	pg = pages ? uw_page(pages, mid / PK_PCS_PER_PAGE) : NULL;
	if (!pg) {
		st->search_failed = 1;
		return 1;
	}
	if (pg->pcs[mid % PK_PCS_PER_PAGE] <= st->search_rel)
		st->search_lo = mid;
	else
		st->search_hi = mid;
	return 0;
}

/* The PCs of row LO of table T (whose array is PAGES), which holds
 * pc_base + REL, into SLOT's range: only REL where a page cannot be had. */
static __always_inline void uw_row_range(void *pages, const struct pk_table_info *t, __u32 lo,
					 __u32 rel, struct uw_cache_slot *slot)
{
	union pk_table_page *pg = uw_page(pages, lo / PK_PCS_PER_PAGE);

	slot->rel_lo = pg ? pg->pcs[lo % PK_PCS_PER_PAGE] : rel;
	slot->rel_hi = rel + 1;
	if (lo + 1 >= t->nrows) {
		slot->rel_hi = t->pc_end - t->pc_base;
		return;
	}
	pg = uw_page(pages, (lo + 1) / PK_PCS_PER_PAGE);
	if (pg)
		slot->rel_hi = pg->pcs[(lo + 1) % PK_PCS_PER_PAGE];
}

/* The rule for ELF vaddr VADDR of table vma.table, copied into uw_rule: its
 * id in the table, PK_TABLE_NONE for END, or -1 when the maps are
 * inconsistent (the table was given back under the walk). */
static __always_inline long uw_find_rule(struct uw_state *st, __u64 vaddr)
{
	struct pk_table_info *t;
	struct uw_cache_slot *slot = NULL, *recent;
	struct uw_cache_group *group;
	struct pk_unwind_rule *out;
	union pk_table_page *pg;
	__u32 table = st->vma.table, rel, lo, slot_idx, zero = 0, id, at, gen, nrows;
	void *pages;

	t = bpf_map_lookup_elem(&unwind_tables, &table);
	out = bpf_map_lookup_elem(&uw_rule, &zero);
	if (!t || !out)
		return -1;
	gen = t->gen;
	nrows = t->nrows;
	if (vaddr < t->pc_base || vaddr >= t->pc_end)
		return PK_TABLE_NONE;
	rel = vaddr - t->pc_base;
	slot_idx = rel / UW_CACHE_GRAIN * 2654435761u ^ table * 40503u;
	recent = &st->recent[slot_idx % UW_RECENT_SLOTS];
	if (uw_slot_holds(recent, table, gen, rel)) {
		*out = recent->rule;
		return 0;
	}
	slot_idx %= UW_CACHE_SLOTS;
	at = slot_idx / UW_CACHE_GROUP;
	group = bpf_map_lookup_elem(&uw_cache, &at);
	if (group)
		slot = &group->slot[slot_idx % UW_CACHE_GROUP];
	if (slot && uw_slot_holds(slot, table, gen, rel)) {
		*out = slot->rule;
		*recent = *slot;
		return 0;
	}

	pages = bpf_map_lookup_elem(&unwind_rows, &table);
	if (!pages)
		return -1;
	/* The last row whose PC is <= rel; pcs[0] == 0, so there is one. */
	st->search_table = table;
	st->search_rel = rel;
	st->search_lo = 0;
	st->search_hi = nrows;
	st->search_failed = 0;
	bpf_loop(27, uw_search_step, NULL, 0);	/* rows < 2^26 (eh_frame/README.md) */
	if (st->search_failed)
		return -1;
	lo = st->search_lo;
	at = t->rule_ids_at + lo;
	pg = uw_page(pages, at / PK_RULE_IDS_PER_PAGE);
	if (!pg)
		return -1;
	id = pg->rule_ids[at % PK_RULE_IDS_PER_PAGE];
	if (id >= t->nrules)
		return -1;
	pg = uw_page(pages, t->rules_page + id / PK_RULES_PER_PAGE);
	if (!pg)
		return -1;
	/* A rule is 24 bytes, so a page holds 170 and the index is id % 170:
	 * the verifier loses its bound through the compiler's multiply and
	 * subtract, so bound it again where the compiler cannot drop it. */
	at = id % PK_RULES_PER_PAGE;
	asm volatile("" : "+r"(at));
	if (at >= PK_RULES_PER_PAGE)
		return -1;
	*out = pg->rules[at];
	if (slot) {
		slot->table_plus1 = table + 1;
		slot->gen = gen;
		uw_row_range(pages, t, lo, rel, slot);
		slot->rule = *out;
	}
	/* User space may have given the table back and its index to another
	 * table meanwhile (tools/lib/unwind_store.c: out of unwind_rows, then
	 * unwind_tables' entry emptied, then a new array, then a new gen):
	 * then what was read of the rows is the other table's. The entry
	 * shows it, as it changed before any array did. */
	if (*(volatile __u32 *)&t->gen != gen || *(volatile __u32 *)&t->nrows != nrows) {
		if (slot)
			slot->table_plus1 = 0;
		return -1;
	}
	if (slot)
		*recent = *slot;
	return id;
}

/* uw_find_rule() for VADDR in the walk's current table, unless the walk's
 * last lookup was the same: then uw_rule still holds its rule, and the
 * table's and the rule cache's cache lines are not touched again. A deep
 * recursion costs one lookup per distinct return address. */
static __always_inline long uw_rule_for(struct uw_state *st, __u64 vaddr)
{
	long rule;

	if (st->rule_table == st->vma.table && st->rule_vaddr == vaddr)
		return st->rule_found;
	rule = uw_find_rule(st, vaddr);
	if (rule >= 0) {
		st->rule_table = st->vma.table;
		st->rule_vaddr = vaddr;
		st->rule_found = rule;
	}
	return rule;
}

#endif /* PK_CFI_LOOKUP_BPF_H */
