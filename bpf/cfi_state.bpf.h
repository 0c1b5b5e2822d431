/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The DWARF walk's maps and state (bpf/cfi_walk.bpf.h): the unwind maps
 * that probe-load and probe-read fill (bpf/probekit.h), the two levels of
 * caches of recent rule lookups, the window of user stack uw_read() serves
 * the rule evaluation shared with user space (eh_frame/unwind_step.h)
 * from, and the per-CPU state of a walk (struct uw_state).
 */
#ifndef PK_CFI_STATE_BPF_H
#define PK_CFI_STATE_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "eh_frame/unwind_table.h"
#include "bpf/vma.bpf.h"

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

#endif /* PK_CFI_STATE_BPF_H */
