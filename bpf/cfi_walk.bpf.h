/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The user-stack unwinder (--unwind dwarf): walks a user stack with the
 * unwind tables that probe-load and probe-read put in the unwind maps
 * (bpf/probekit.h), up to PK_MAX_USTACK_DEPTH frames, from any BPF program
 * type that may call bpf_loop() (perf_event, kprobe, tracepoint, fentry).
 * Needs Linux 6.1+ (the maple tree of VMAs, bpf/vma.bpf.h) and bpf_loop
 * (5.17).
 *
 * Addresses to tables: at each frame outside the mappings the walk has
 * found, a VMA lookup gives the VMA that holds the PC as the kernel sees it
 * now, its file's inode and vm_pgoff. The inode (dev, ino) keys
 * unwind_files. Nothing follows exec, mmap, dlclose or exit: the VMA tree
 * is always current, a range that another library reuses has another
 * inode, and a process that starts while no probekit process runs needs
 * nothing but tables for its files.
 *
 * Cost: one VMA lookup per frame outside the mappings of the frames before
 * it (a memo hit for a VMA an earlier sample found, which keeps its table
 * and report too: no unwind_files or mappings_seen lookup), and a binary
 * search only for PCs that miss two levels of per-CPU caches of recent
 * (table, row) -> rule lookups.
 */
#ifndef PK_CFI_WALK_BPF_H
#define PK_CFI_WALK_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf/probekit.h"
#include "eh_frame/unwind_table.h"
#include "bpf/kernel_fields.bpf.h"
#include "bpf/sample.bpf.h"
#include "bpf/vma.bpf.h"
#include "bpf/mapping_report.bpf.h"
#include "bpf/walk_end.h"

/* The walk reads x86-64 registers (pt_regs, DWARF numbers, the signal
 * frame); another architecture needs its own. */
#if !defined(__TARGET_ARCH_x86)
#error "bpf/cfi_walk.bpf.h walks x86-64 stacks only: build with -D__TARGET_ARCH_x86"
#endif

/* Set by probe-load: walk user stacks with the tables (--unwind dwarf). */
const volatile bool dwarf = false;

/* The unwind maps. Sizes are probe-load's (bpf/profile_sizes.h); 1 here so that
 * --unwind fp costs nothing. unwind_files is filled by user space only, a
 * few dozen entries for most machines: made as they come (no
 * preallocation), its 16384 entries' 3 MiB would be zeroed at every load
 * for nothing (0.7 ms here). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, struct pk_file_key);
	__type(value, struct pk_file_info);
} unwind_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_table_info);
} unwind_tables SEC(".maps");

/* A table's array, made by user space to the table's size (BPF_F_INNER_MAP:
 * the size is not part of the inner map's type). Values are union
 * pk_table_page, given by size: BTF has no type for what only inlined code
 * uses, and user space makes the arrays without BTF. */
struct uw_table_pages {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE | BPF_F_INNER_MAP);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(union pk_table_page));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, 1);
	__type(key, __u32);
	__array(values, struct uw_table_pages);
} unwind_rows SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_unwind_alloc);
} unwind_alloc SEC(".maps");

/* Recent rule lookups, direct-mapped, with the rule itself: a hit costs no
 * lookup in the table. A slot holds the row's whole range of PCs and is
 * found by the PC's UW_CACHE_GRAIN-byte grain, so that the interrupted
 * PCs of a hot loop, each one a PC of its own, share the row they are in
 * (rather than each missing once, and each miss a binary search).
 * Keyed by (table, gen): an index handed out again
 * (bpf/probekit.h) has another gen, so an entry never serves a freed
 * table's rule for the new one. Two levels: UW_RECENT_SLOTS in the walk's
 * own state (uw_state.recent), in front of UW_CACHE_SLOTS in uw_cache. A
 * sample's walk runs with cold caches and a cold TLB, and uw_cache spans
 * 40 pages: each lookup there is a page the walk touches for that lookup
 * alone, about 0.3 µs here; a stack whose return addresses were seen a
 * few samples ago finds them in the pages the walk's state is in anyway. */
#define UW_CACHE_SLOTS	4096
#define UW_RECENT_SLOTS	128
#define UW_CACHE_GRAIN	16

struct uw_cache_slot {
	__u32 table_plus1;	/* 0: empty */
	__u32 gen;		/* pk_table_info.gen of the table */
	__u32 rel_lo, rel_hi;	/* the row's PCs - pc_base: [rel_lo, rel_hi) */
	struct pk_unwind_rule rule;
};

/* Whether SLOT holds the rule of PC pc_base + REL in TABLE under GEN. */
static __always_inline bool uw_slot_holds(const struct uw_cache_slot *slot, __u32 table,
					  __u32 gen, __u32 rel)
{
	return slot->table_plus1 == table + 1 && slot->gen == gen &&
	       rel >= slot->rel_lo && rel < slot->rel_hi;
}

/* uw_cache's slots UW_CACHE_GROUP to an entry: the kernel makes each
 * entry of a per-CPU array by an allocation of its own, a sixth of
 * probe-load's map creation when each slot was one. */
#define UW_CACHE_GROUP	32

struct uw_cache_group {
	struct uw_cache_slot slot[UW_CACHE_GROUP];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UW_CACHE_SLOTS / UW_CACHE_GROUP);
	__type(key, __u32);
	__type(value, struct uw_cache_group);
} uw_cache SEC(".maps");

/* The rule uw_find_rule() found last, for uw_rule_step(). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_unwind_rule);
} uw_rule SEC(".maps");

/* The window of user stack uw_read serves words from: an aligned quarter
 * of a page. A sample's walk runs with cold caches (at 99 Hz the workload
 * evicts our maps between samples), so each line of the window written
 * costs a miss: a whole page is 64 of them where most stacks' frames need
 * a few; a window never crosses a page. */
#define UW_WIN		1024
_Static_assert(PK_PAGE_SIZE % UW_WIN == 0, "a window is in one page");

struct uw_window {
	__u64 base;		/* user address of win[0] */
	__u8 win[UW_WIN];	/* UW_WIN bytes of the user stack */
};

/*
 * A user word into *DST: 1, or 0 when it cannot be read. The walk reads a
 * few words per frame, upwards through the stack: each read is served from
 * a copy of the window it is in, taken with one bpf_probe_read_user when
 * the walk first reaches that window, instead of one helper call per word.
 * A window that cannot be copied whole (its page not resident) is read
 * word by word.
 *
 * A global function: the verifier checks it once, on its own, instead of
 * at each of the rule step's dozen reads in every state that reaches them
 * (a tenth of the perf_event program's verification). So its pointers are
 * memory of their types' sizes that may be NULL, and a caller's *DST must
 * be initialized (the verifier checks the read of a global function's
 * memory argument too).
 */
__noinline int uw_read(struct uw_window *w, __u64 *dst, __u64 addr)
{
	__u64 off, base;

	if (!w || !dst)
		return 0;
	off = addr - w->base;
	if (off > UW_WIN - sizeof(*dst)) {
		base = addr & ~(__u64)(UW_WIN - 1);
		off = addr - base;
		if (off > UW_WIN - sizeof(*dst) ||
		    bpf_probe_read_user(w->win, UW_WIN, (const void *)base)) {
			w->base = 1;	/* no window: 1 is never a window's start */
			return bpf_probe_read_user(dst, sizeof(*dst), (const void *)addr) == 0;
		}
		w->base = base;
	}
	/* the bound again where the verifier sees it: W is only as big as
	 * its type, and the compiler drops a test it can prove */
	barrier_var(off);
	if (off > UW_WIN - sizeof(*dst))
		return 0;
	*dst = *(__u64 *)&w->win[off];
	return 1;
}

/* The rule evaluation shared with user space reads through the window. */
#define PK_UNWIND_READ(ctx, dst, addr)	uw_read((struct uw_window *)(ctx), (dst), (addr))
#include "eh_frame/unwind_step.h"

/* The user ABI's signal frame offsets the shared step uses are the ones
 * BTF gives (struct ucontext, struct sigcontext_64). */
#define UW_SC(reg)	(__builtin_offsetof(struct ucontext, uc_mcontext) + \
			 __builtin_offsetof(struct sigcontext_64, reg))
_Static_assert(UW_SC(bp) == PK_SIGFRAME_RBP, "rt_sigframe RBP");
_Static_assert(UW_SC(sp) == PK_SIGFRAME_RSP, "rt_sigframe RSP");
_Static_assert(UW_SC(ip) == PK_SIGFRAME_RIP, "rt_sigframe RIP");

struct uw_state {
	struct pk_unwind_regs f;	/* the frame being unwound */
	__u32 kbase;		/* user frames start at frames[kbase] */
	__u32 n;		/* user frames written */
	__u8 end;		/* enum pk_ustack_end once stopped */
	__u8 fp_stop;		/* the frame-pointer step that found st->f.pc:
				 * how the walk ends if that PC is no code;
				 * 0: st->f.pc was found by a rule */
	__u8 __pad[2];
	__u16 fp_frames, missing_frames;
	__u64 start_stack;	/* the process's initial SP (pk_walk_entry_frame) */
	/* A Python interpreter the walk went through (PK_FILE_PYTHON): its
	 * file and load bias (runtime address - ELF vaddr), for the Python
	 * walk (bpf/python_walk.bpf.h). py_seen 0: none. */
	__u8 py_seen;
	/* A HotSpot libjvm (PK_FILE_HOTSPOT) likewise, for the Java walk
	 * (bpf/hotspot_walk.bpf.h), which remembers the process's JVM. */
	__u8 hs_seen;
	/* Runtimes this walk's process is known not to run (UW_RT_*: no
	 * entry in their per-process map), looked up once a walk; and those
	 * whose frames the walk wrote: a sample with neither a runtime's
	 * file nor its frames needs no look at the runtime's maps after. */
	__u8 rt_none;
	__u8 rt_framed;
	__u8 __pad2[4];
	__s64 py_bias;
	struct pk_file_key py_key;
	__s64 hs_bias;
	struct pk_file_key hs_key;
	/* pk_hs_step's Java frame for the frame it stepped over (0: none,
	 * the frame's PC stays) */
	__u64 hs_frame;
	/* A V8 file (PK_FILE_V8) the walk went through, for the JavaScript
	 * walk (bpf/v8_walk.bpf.h), which remembers the process as a V8's;
	 * v8_seen 0: none. v8_frame: pk_v8_step's JavaScript frame for the
	 * frame a frame-pointer step is about to leave (0: none). */
	__u8 v8_seen;
	__u8 __pad3[7];
	struct pk_file_key v8_key;
	__u64 v8_frame;
	/* The last rule uw_rule_for() found, for VADDR in TABLE: recursion
	 * repeats a return address frame after frame. */
	__u64 rule_vaddr;
	__u32 rule_table;	/* PK_TABLE_NONE: none yet this walk */
	__u32 rule_found;	/* uw_find_rule()'s result, when not < 0 */
	/* uw_find_rule()'s binary search (uw_search_step) */
	__u32 search_table, search_rel, search_lo, search_hi;
	__u32 search_failed;
	/* pk_ustack_copy_attach's copy, page by page (uw_copy_step): from
	 * user address copy_start to uw_copy_bufs' data[copy_at...], bit i
	 * of copy_holes for a page i that could not be read */
	__u64 copy_start;
	__u32 copy_at, copy_len, copy_done, copy_holes;
	struct vma_cursor vma;	/* the mapping of the last PC, and the walk's */
	struct uw_cache_slot recent[UW_RECENT_SLOTS];	/* uw_cache's first level */
	/* uw_read's copy of the user stack, in the lines that
	 * pk_user_regs()'s copy of the registers took before the walk
	 * (uw_regs_from() read them into f): the window's first copy writes
	 * those lines anyway, where registers of their own would be three
	 * more cold lines a sample. */
	union {
		struct uw_window win;
		struct pt_regs uregs;
	};
	__u64 fp_mask[PK_MAX_USTACK_DEPTH / 64];
	/* user frame i's nmethod where the Java walk wrote a compiled frame
	 * there (pk_hs_frame() holds its PC): what its report is read from */
	__u64 hs_blob[PK_MAX_USTACK_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_state);
} uw_states SEC(".maps");

static __always_inline struct uw_state *uw_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&uw_states, &zero);
}

/* x86_64 DWARF register numbers -> pt_regs. */
static __always_inline void uw_regs_from(struct pk_unwind_regs *f, const struct pt_regs *r)
{
	f->regs[0] = r->ax;	f->regs[1] = r->dx;	f->regs[2] = r->cx;
	f->regs[3] = r->bx;	f->regs[4] = r->si;	f->regs[5] = r->di;
	f->regs[PK_DWARF_RBP] = r->bp;	f->regs[PK_DWARF_RSP] = r->sp;
	f->regs[8] = r->r8;
	f->regs[9] = r->r9;	f->regs[10] = r->r10;	f->regs[11] = r->r11;
	f->regs[12] = r->r12;	f->regs[13] = r->r13;	f->regs[14] = r->r14;
	f->regs[15] = r->r15;	f->regs[PK_DWARF_RIP] = r->ip;
	f->pc = r->ip;
	f->sp = r->sp;
	f->valid = PK_UNWIND_ALL_REGS;
	f->exact_pc = 1;
}

/* SYSCALL (0f 05), as the two bytes before a PC read little-endian. */
#define UW_SYSCALL_INSN		0x050f

/*
 * Whether R are a thread's registers at a syscall: its PC the instruction
 * after the SYSCALL. A syscall last in a function that does not return
 * (__restore_rt's rt_sigreturn, _exit's exit_group) leaves that PC past
 * the function's FDE, where the walk found no CFI; the CFI at PC - 1 is
 * the same everywhere else, a syscall moving no register it tracks. So
 * such a frame is looked up as a return address is. orig_ax is the
 * syscall's number, negative at an interrupt (~vector) or an exception
 * without an error code; one with a code (a page fault on the instruction
 * after a SYSCALL) has the same CFI at PC - 1 too.
 */
static __always_inline bool uw_after_syscall(const struct pt_regs *r)
{
	__u16 insn = 0;

	if ((long)r->orig_ax < 0)
		return false;
	return !bpf_probe_read_user(&insn, sizeof(insn), (const void *)(r->ip - 2)) &&
	       insn == UW_SYSCALL_INSN;
}

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

/* The JavaScript walk's look at the frame at st->f, which a frame-pointer
 * step is about to leave (bpf/v8_walk.bpf.h): 1 and st->v8_frame when it
 * is a JavaScript function's frame of a V8 the walk knows (KIND: enum
 * pk_v8_frame_kind, by where its PC is), else 0. */
__noinline int pk_v8_step(struct uw_state *st, int kind);

/* The JavaScript walk's look at a leaf whose PC is in a V8 file's code
 * without CFI (its builtins) and whose frame pointer holds a JavaScript
 * function's frame: 1 when the code at the PC has not built a frame of
 * its own, the return address at SP (or above a pushed RBP) following a
 * call, and st->f is then its caller's, else 0 (bpf/v8_walk.bpf.h). */
__noinline int pk_v8_frameless(struct uw_state *st);

/* The Java walk's step over the frame at st->f, a PC in anonymous memory
 * (bpf/hotspot_walk.bpf.h): -1 when it is no frame of a JVM's code cache
 * the walk knows (a frame-pointer step then, as before), else 0 or how the
 * walk ends. */
__noinline int pk_hs_step(struct uw_state *st);

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

/* A frame-pointer step from st->f's frame, for code without a rule (JIT,
 * anonymous code, a file refused a table, or no FDE at the PC; never a
 * file whose table is not loaded yet, where uw_step stops): 0, or STOP,
 * how the walk ends in this frame. Counted whether it succeeds or not. */
static __always_inline int uw_fp_step(struct uw_state *st, int stop)
{
	int end;

	if (pk_walk_entry_frame(st->f.sp, st->start_stack))
		return PK_END_COMPLETE;
	st->fp_frames++;
	end = pk_walk_fp_end(pk_unwind_fp_step(&st->f, &st->win), stop);
	if (!end)
		st->fp_stop = stop;
	return end;
}

/* Frame IDX of B, whose PC is in code a frame-pointer step leaves (KIND:
 * in a file's text or JIT code), as the JavaScript frame it is, if it is
 * one: true then. */
static __always_inline bool uw_v8_frame(struct uw_state *st, struct pk_sample_buf *b, __u32 idx,
					int kind)
{
	if (pk_v8_step(st, kind) == 1 && idx < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH) {
		b->frames[idx] = st->v8_frame;
		st->rt_framed |= UW_RT_V8;
		return true;
	}
	return false;
}

/*
 * The step from frame IDX of B, in code of a file without CFI: a
 * frame-pointer step, but for a leaf in one of V8's builtins that runs
 * without a frame of its own (a small stub, an inline cache, a builtin in
 * its prologue or epilogue) under a JavaScript function's frame: that
 * frame is its caller's, so the leaf keeps its PC (the builtin, named as
 * itself) and its caller is found by the return address at SP, as CFI
 * finds a leaf's without a frame; the frame pointer stays. Else the leaf
 * would be named the function at the frame pointer, and that function's
 * own frame (the caller's return address) skipped. 0, or how the walk
 * ends.
 */
static __always_inline int uw_no_cfi_step(struct uw_state *st, struct pk_sample_buf *b, __u32 idx)
{
	__u64 pc = st->f.pc;

	if (uw_v8_frame(st, b, idx, PK_V8_INTERPRETED) && st->n == 1 && st->f.exact_pc &&
	    pk_v8_frameless(st) == 1) {
		if (idx < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
			b->frames[idx] = pc;
		/* counted and checked as a frame-pointer step's caller: one
		 * that is no code ends the walk here */
		st->fp_frames++;
		st->fp_stop = PK_END_NO_CFI;
		return 0;
	}
	return uw_fp_step(st, PK_END_NO_CFI);
}

/* An unsupported end, counted by what was not supported. */
static __always_inline int uw_unsupported(__u32 why)
{
	count(why);
	return PK_END_UNSUPPORTED;
}

/* One step with a rule. 0, or how the walk ends. */
static __always_inline int uw_rule_step(struct uw_state *st, __u32 rule_idx)
{
	struct pk_unwind_rule *r = uw_rule_get(rule_idx);
	int step, end;

	if (!r)
		return uw_unsupported(PK_CNT_UNSUP_NO_RULE);
	step = pk_unwind_rule_step(&st->f, r, &st->win);
	end = pk_walk_rule_end(step);
	if (end == PK_END_UNSUPPORTED)
		return uw_unsupported(pk_walk_unsupported_counter(step));
	return end;
}

/* bpf_loop body: record st->f.pc as user frame n, then find its caller. */
static long uw_step(__u32 i, void *ctx)
{
	struct pk_sample_buf *b = sample_buf_get();
	struct uw_state *st = uw_state_get();
	__u32 idx;
	__u64 lookup;
	bool by_fp = false;
	long rule;
	int end;

	(void)i;
	(void)ctx;
	if (!st || !b)
		return 1;
	if (st->n >= PK_MAX_USTACK_DEPTH) {
		st->end = PK_END_DEPTH;
		return 1;
	}
	idx = st->kbase + st->n;
	if (idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
		return 1;
	b->frames[idx] = st->f.pc;
	st->n++;

	/* A return address points after the call, maybe past the end of the
	 * caller's FDE (a noreturn call last in a function): look up PC - 1. */
	lookup = st->f.exact_pc ? st->f.pc : st->f.pc - 1;
	if (!uw_find_mapping(st, lookup)) {
		/* A frame-pointer step read something that is no code: the
		 * frame it found is not a frame, and the walk ends where the
		 * step was taken. */
		if (st->fp_stop) {
			st->n--;
			st->fp_mask[(st->n / 64) & 3] &= ~(1ull << (st->n % 64));
			st->end = st->fp_stop;
			return 1;
		}
		st->end = PK_END_READ_FAULT;
		return 1;
	}
	st->fp_stop = 0;
	if (st->vma.kind == VMA_MISSING) {
		/* A file whose table is not in the kernel yet: its code may
		 * have no frame pointers, and a step through RBP would invent
		 * callers. Stop, and leave the registers and the stack to
		 * user space (pk_ustack_copy_attach), which finishes the walk once it
		 * has the table. */
		st->fp_frames++;
		st->missing_frames++;
		st->end = PK_END_NO_TABLE;
		return 1;
	}
	if (st->vma.kind == VMA_TABLE) {
		rule = uw_rule_for(st, lookup + st->vma.delta);
		if (rule < 0) {
			st->end = uw_unsupported(PK_CNT_UNSUP_NO_RULE);
			return 1;
		}
		/* Outside every FDE (a gap between FDEs is an END row, and
		 * before pc_base or after pc_end there is none): code built
		 * without CFI in a file that has some. */
		end = rule == PK_TABLE_NONE ? PK_END_NO_CFI : uw_rule_step(st, rule);
		if (end == PK_END_NO_CFI) {
			end = uw_no_cfi_step(st, b, idx);
			by_fp = true;
		}
	} else {
		/* JIT code: a JVM's own numbers step over its frames */
		end = st->vma.kind == VMA_ANON ? pk_hs_step(st) : -1;
		if (end < 0) {
			uw_v8_frame(st, b, idx, PK_V8_COMPILED);
			end = uw_fp_step(st, PK_END_FP_FALLBACK);
			by_fp = true;
		} else if (st->hs_frame && idx < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH) {
			b->frames[idx] = st->hs_frame;
			st->rt_framed |= UW_RT_HOTSPOT;
		}
	}
	if (end) {
		st->end = end;
		return 1;
	}
	if (!st->f.pc) {	/* a zeroed return address ends some runtimes' stacks */
		st->end = PK_END_COMPLETE;
		return 1;
	}
	/* the caller, frame n, was found by a frame-pointer step; marked only
	 * now that it will be recorded (not when the walk ends here) */
	if (by_fp && st->n < PK_MAX_USTACK_DEPTH)
		st->fp_mask[(st->n / 64) & 3] |= 1ull << (st->n % 64);
	return 0;
}

/*
 * The walk from the leaf frame in uw_states (f, kbase) into the sample
 * scratch's frames[kbase...]; its result in uw_states. A global function:
 * the verifier checks it once per program, on its own, rather than once
 * for every state in which each program reaches it. Linux 6.1 verifies a
 * bpf_loop callback anew at each such state, and off-cpu's (a raw
 * tracepoint's stack, skipped twice) went past its million instructions.
 * One unwinder for every program type. Always 0.
 *
 * Linux 6.1 verifies a global function even where no call reaches it:
 * `dwarf`, a constant once loaded, makes its body dead code under
 * --unwind fp.
 */
__noinline int pk_walk_user(void)
{
	struct uw_state *st = uw_state_get();

	if (!dwarf || !st)
		return 0;
	st->n = 0;
	st->end = PK_END_NONE;
	st->fp_stop = 0;
	st->start_stack = BPF_CORE_READ(bpf_get_current_task_btf(), mm, start_stack);
	st->py_seen = 0;
	st->hs_seen = 0;
	st->v8_seen = 0;
	st->rt_none = st->rt_framed = 0;
	vma_cursor_reset(&st->vma);
	st->fp_frames = 0;
	st->missing_frames = 0;
	st->fp_mask[0] = st->fp_mask[1] = st->fp_mask[2] = st->fp_mask[3] = 0;
	st->win.base = 1;
	st->rule_table = PK_TABLE_NONE;
	bpf_loop(PK_MAX_USTACK_DEPTH + 1, uw_step, NULL, 0);
	if (st->end == PK_END_NONE)	/* the loop ran out: cannot happen */
		st->end = PK_END_DEPTH;
	return 0;
}

/*
 * Walk the user stack whose registers are REGS (the user's, never a kernel
 * pt_regs) into b->frames[kbase...], B being the scratch sample; fills
 * b->s's user fields and flags. Returns the number of user frames.
 */
static __always_inline __u32 pk_unwind_user(struct pk_sample_buf *b, __u32 kbase,
					    const struct pt_regs *regs)
{
	struct uw_state *st = uw_state_get();

	if (!st)
		return 0;
	uw_regs_from(&st->f, regs);
	st->f.exact_pc = !uw_after_syscall(regs);
	st->kbase = kbase;
	pk_walk_user();

	b->s.ustack_end = st->end;
	b->s.fp_frames = st->fp_frames;
	b->s.fp_mask[0] = st->fp_mask[0];
	b->s.fp_mask[1] = st->fp_mask[1];
	b->s.fp_mask[2] = st->fp_mask[2];
	b->s.fp_mask[3] = st->fp_mask[3];
	b->s.hdr.flags |= PK_SAMPLE_USTACK_DWARF;
	if (st->end == PK_END_DEPTH)
		b->s.hdr.flags |= PK_SAMPLE_USTACK_TRUNC;
	if (st->fp_frames) {
		count_add(PK_CNT_FP_FRAMES, st->fp_frames);
		count_add(PK_CNT_NO_TABLE_FRAMES, st->missing_frames);
	}
	return st->n < PK_MAX_USTACK_DEPTH ? st->n : PK_MAX_USTACK_DEPTH;
}

/*
 * The current process has just mapped code at ADDR (exec, mmap): report the
 * mapping, and its file when it has no table yet, now rather than at the
 * first sample that goes through it, so that probe-read loads the table
 * within milliseconds and the walks that stop for want of it (each with a
 * copy of the stack) last no longer. Not while this CPU builds a sample
 * (the walk's state is in use): the caller holds busy_cpu.
 */
static __always_inline void pk_report_code(__u64 addr)
{
	struct uw_state *st = uw_state_get();
	struct pk_file_info *fi;
	struct pk_file_key key;
	struct file *f;

	if (!dwarf || !st)
		return;
	/* code only: vma_at() refuses memory that is not executable */
	if (vma_at(&st->vma, addr, &key, &f) <= 0 || !f)
		return;
	fi = bpf_map_lookup_elem(&unwind_files, &key);
	report_mapping(&st->vma, (__u64)f, &key, fi ? fi->table : PK_TABLE_NONE);
	if (!fi)
		report_missing(&st->vma, &key);
}

/* PF_KTHREAD, include/linux/sched.h (a #define: not in BTF). */
#define UW_PF_KTHREAD		0x00200000
/*
 * The user registers of the current task, copied into the walk's state
 * until pk_unwind_user() starts the walk (uw_state.uregs): USER_REGS when
 * the sample interrupted user mode (the caller tested pk_regs_user_mode():
 * NULL otherwise), else the ones saved at kernel entry. NULL for kernel
 * threads, which have no user stack. Not on the BPF stack: 168 bytes
 * there put the calls down to report_mapping() past the 512 bytes Linux
 * 6.1 and 6.12 allow a chain of calls.
 */
static __always_inline const struct pt_regs *pk_user_regs(const struct pt_regs *user_regs)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct uw_state *st = uw_state_get();

	if (!st || (task->flags & UW_PF_KTHREAD))
		return NULL;
	if (!user_regs)
		user_regs = (const struct pt_regs *)bpf_task_pt_regs(task);
	if (bpf_probe_read_kernel(&st->uregs, sizeof(st->uregs), user_regs))
		return NULL;
	return &st->uregs;
}

#endif /* PK_CFI_WALK_BPF_H */
