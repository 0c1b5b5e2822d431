/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The VMA that holds a user address, from the current mm's maple tree of
 * VMAs (Linux 6.1+), and a cursor that remembers the last mappings found
 * so that a walk through the same few mappings looks each up once.
 */
#ifndef PK_VMA_BPF_H
#define PK_VMA_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf/probekit.h"
#include "bpf/kernel_fields.bpf.h"

/* PAGE_SHIFT of x86-64 (arch/x86/include/asm/page_types.h): vm_pgoff
 * counts pages of this size. Not in BTF. */
#define PK_PAGE_SHIFT		12
#define PK_PAGE_SIZE		(1ul << PK_PAGE_SHIFT)

/* Maple tree encodings, #defines of the kernel that BTF does not carry. */
#define MT_NODE_MASK		255ul	/* MAPLE_NODE_MASK, include/linux/maple_tree.h */
#define MT_TYPE_SHIFT		3	/* MAPLE_NODE_TYPE_SHIFT, lib/maple_tree.c */
#define MT_TYPE_MASK		15	/* MAPLE_NODE_TYPE_MASK, lib/maple_tree.c */
/* xa_is_node() (include/linux/xarray.h): an internal entry (low bits 10)
 * above the range of error and retry entries. */
#define XA_INTERNAL_MASK	3ul
#define XA_INTERNAL		2ul
#define XA_NODE_MIN		4096ul
/* Levels walked at most: a tree of millions of VMAs has fewer. */
#define MT_MAX_DEPTH		8
/* Pivots of the widest node read (maple_range_64), as vmlinux.h has it: the
 * room to copy a node's pivots to. The running kernel's counts come from
 * its BTF (vma_lookup). */
#define MT_PIVOTS_MAX		(sizeof(((struct maple_range_64 *)0)->pivot) / \
				 sizeof(((struct maple_range_64 *)0)->pivot[0]))

/* What the cursor's user found for the range [start, end_addr); the cursor
 * only keeps it. */
enum vma_kind {
	VMA_NONE = 0,		/* nothing looked up yet */
	VMA_TABLE,		/* a file with a table: vaddr = PC + delta */
	VMA_REFUSED,		/* a file with no table for good: frame pointers */
	VMA_MISSING,		/* a file whose table is not loaded (yet) */
	VMA_ANON,		/* anonymous or special memory (JIT): frame pointers */
};

/* Mappings a walk has found, to find again: a stack goes back and forth
 * between the program and its libraries, and a VMA lookup is the dearest
 * part of a frame. Only within one walk: between samples a range may be
 * unmapped and reused. */
#define VMA_RANGES		4

struct vma_range {
	__u64 start, end;	/* vma_cursor's start, end_addr */
	__s64 delta;
	__u32 table;
	__u8 kind;
	__u8 __pad[3];
};

/* Lives in a per-CPU map value: too big for the BPF stack. */
struct vma_cursor {
	/* The last VMA found. */
	__u64 vm_start, vm_end, vm_pgoff;
	/* The VMA (or the part of it its user narrowed it to) of the last
	 * address, what is known of it, and for tables the table and the
	 * delta to its ELF vaddrs. */
	__u64 start, end_addr;
	__s64 delta;
	__u32 table;
	__u8 kind;		/* enum vma_kind */
	__u8 __pad[3];
	struct vma_range ranges[VMA_RANGES];
	__u32 nranges;		/* found so far in this walk (ranges[n % VMA_RANGES]) */
	__u32 __pad2;
};

/* Forget what an earlier walk found. */
static __always_inline void vma_cursor_reset(struct vma_cursor *v)
{
	v->kind = VMA_NONE;
	v->nranges = 0;
}

/* vma_lookup's descent, per CPU (under busy_cpu, as the sample that
 * asks): the node to look into next, and the leaf's VMA once found. */
struct vma_descent {
	__u64 entry;		/* the next node, as its parent's slot holds it */
	__u64 addr;
	__u64 vma;		/* 0: none (yet) */
	__u64 pivots[MT_PIVOTS_MAX];	/* the node's, copied */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vma_descent);
} vma_descents SEC(".maps");

/* bpf_loop body of vma_lookup: one level of the tree. A loop the verifier
 * checks once: unrolled, it followed each level's ways on through the
 * levels below, most of the verification of every program that looks a
 * VMA up. */
static long vma_descend_step(__u32 i, void *ctx)
{
	__u32 zero = 0;
	struct vma_descent *d = bpf_map_lookup_elem(&vma_descents, &zero);
	struct maple_node *node;
	unsigned int type, npivots, off;
	__u64 entry, addr, start, end;
	__u32 size;
	void **slots;
	void *pivots;

	(void)i;
	(void)ctx;
	if (!d || d->entry <= XA_NODE_MIN)
		return 1;
	entry = d->entry;
	addr = d->addr;
	node = (struct maple_node *)(entry & ~MT_NODE_MASK);
	type = (entry >> MT_TYPE_SHIFT) & MT_TYPE_MASK;
	if (type == bpf_core_enum_value(enum maple_type, maple_arange_64)) {
		size = bpf_core_field_size(node->ma64.pivot);
		pivots = &node->ma64.pivot;
		slots = node->ma64.slot;
	} else if (type == bpf_core_enum_value(enum maple_type, maple_range_64) ||
		   type == bpf_core_enum_value(enum maple_type, maple_leaf_64)) {
		size = bpf_core_field_size(node->mr64.pivot);
		pivots = &node->mr64.pivot;
		slots = node->mr64.slot;
	} else {
		return 1;
	}
	if (size > sizeof(d->pivots) ||
	    bpf_probe_read_kernel(d->pivots, size, pivots))
		return 1;
	npivots = size / sizeof(d->pivots[0]);
	for (off = 0; off < MT_PIVOTS_MAX; off++)
		if (off >= npivots || d->pivots[off] >= addr)
			break;
	if (bpf_probe_read_kernel(&entry, sizeof(entry), &slots[off]))
		return 1;
	if (type != bpf_core_enum_value(enum maple_type, maple_leaf_64)) {
		d->entry = entry;
		return 0;
	}
	start = BPF_CORE_READ((struct vm_area_struct *)entry, vm_start);
	end = BPF_CORE_READ((struct vm_area_struct *)entry, vm_end);
	if (entry && start <= addr && addr < end)
		d->vma = entry;
	return 1;
}

/*
 * The VMA that holds ADDR, or NULL. bpf_find_vma() cannot serve here: in a
 * program that runs with interrupts off (perf_event), it releases mmap_lock
 * through a per-CPU irq_work that stays queued until the interrupt returns,
 * so every call after the first in one run fails with -EBUSY. Instead this
 * walks the mm's maple tree the way the kernel's own lockless lookup
 * (mtree_lookup_walk) does: nodes are freed only after an RCU grace period,
 * BPF programs run inside an RCU read section, and every read is a
 * bpf_probe_read_kernel, so a concurrent munmap gives at worst a miss or a
 * VMA that the containment check rejects.
 */
static __always_inline struct vm_area_struct *vma_lookup(__u64 addr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 zero = 0;
	struct vma_descent *d = bpf_map_lookup_elem(&vma_descents, &zero);
	unsigned long entry;

	if (!d)
		return NULL;
	entry = (unsigned long)BPF_CORE_READ(task, mm, mm_mt.ma_root);
	/* xa_is_node(): the root is a node (MAPLE_ROOT_NODE set), not a
	 * single entry, as in any mm with more than one VMA. */
	if ((entry & XA_INTERNAL_MASK) != XA_INTERNAL || entry <= XA_NODE_MIN)
		return NULL;
	d->entry = entry;
	d->addr = addr;
	d->vma = 0;
	bpf_loop(MT_MAX_DEPTH, vma_descend_step, NULL, 0);
	return (struct vm_area_struct *)d->vma;
}

/* VM_EXEC, include/linux/mm.h (a #define: not in BTF). */
#define UW_VM_EXEC	0x00000004

/*
 * Executable VMAs found by earlier samples on this CPU, to find again
 * without the maple-tree descent and the VMA's fields: at 99 Hz every
 * sample finds those cache lines cold, and the two or three lookups of a
 * walk (the program, libc) were most of its fixed cost. An entry holds while
 * its mm has not changed its VMAs since: mm_lock_seq (a seqcount since
 * Linux 6.13) is odd while mmap_lock is held for writing and moves on at
 * every write unlock, and every change of a VMA's range, file or
 * protection holds it. The mm's address can be reused by a later mm whose
 * count stands where the old one stood: the key also has the process and
 * its initial stack pointer (randomized), so that a reused mm_struct
 * matches only by a coincidence of all three. Before 6.13 (an int, or no
 * field without CONFIG_PER_VMA_LOCK: pk_mm_vma_seq) nothing is remembered.
 */
#define VMA_MEMO_SLOTS		8
_Static_assert((VMA_MEMO_SLOTS & (VMA_MEMO_SLOTS - 1)) == 0, "a mask of slots");

struct vma_memo_entry {
	__u64 mm, start_stack;
	__u64 seq;		/* the count + 1: an empty entry (0) matches none */
	__u64 vm_start, vm_end, vm_pgoff;
	struct pk_file_key key;
	__u64 file;		/* struct file *, held by the VMA */
	__u32 tgid;
	__s32 found;		/* vma_at()'s result: 0 or 1 */
	/* What the DWARF walk made of it (bpf/cfi_lookup.bpf.h), kept once its
	 * mapping report is sent for good and its table loaded, so that a
	 * later sample skips the unwind_files and mappings_seen lookups
	 * too: the range of one executable segment, its table (valid while
	 * the table's gen holds) and delta. walk_kind VMA_NONE: none kept. */
	__u64 walk_start, walk_end;
	__s64 walk_delta;
	__u32 walk_table, walk_gen;
	__u8 walk_kind;		/* enum vma_kind: VMA_NONE or VMA_TABLE */
	__u8 walk_python;	/* the file has PK_FILE_PYTHON */
	__u8 walk_hotspot;	/* the file has PK_FILE_HOTSPOT */
	__u8 walk_v8;		/* the file has PK_FILE_V8 */
	/* the reader generation (pk_report_gen()) its report went to: a
	 * later reader's samples report the mapping again */
	__u32 walk_report_gen;
};

struct vma_memo {
	struct vma_memo_entry e[VMA_MEMO_SLOTS];
	struct vma_memo_entry key;	/* the current lookup's: not on the
					 * stack, which 6.1 bounds at 512
					 * bytes for the calls together */
	__u32 next;		/* the entry to replace (next % VMA_MEMO_SLOTS) */
	/* The entry of the last vma_at()'s VMA, VMA_MEMO_SLOTS for none,
	 * and whether its mapping report was sent for good: its user's,
	 * here in map memory rather than in registers, where the verifier
	 * would walk the rest of a walk step once for each value. */
	__u32 cur;
	__u32 cur_reported;
	__u32 __pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vma_memo);
} vma_memos SEC(".maps");

/* The memo key of the current task's mm: false when there is none (no
 * seqcount, or its VMAs are being changed). */
static __always_inline bool vma_memo_key(struct task_struct *task, struct vma_memo_entry *k)
{
	struct mm_struct *mm = BPF_CORE_READ(task, mm);
	__u32 seq;

	if (!pk_mm_vma_seq(mm, &seq))
		return false;
	k->mm = (__u64)mm;
	k->seq = (__u64)seq + 1;
	k->start_stack = BPF_CORE_READ(mm, start_stack);
	k->tgid = BPF_CORE_READ(task, tgid);
	return true;
}

/*
 * The VMA that holds ADDR into V (vm_start, vm_end, vm_pgoff, and [start,
 * end_addr) for the next addresses), and what it maps: the file's inode in
 * *KEY and the file in *F (NULL for the vDSO, keyed PK_VDSO_*). Returns 1
 * for a file or the vDSO, 0 for anonymous or special memory, -1 when no
 * executable VMA holds ADDR. vma_memos' cur: the memo entry that holds the
 * VMA now, for its user to keep more in (VMA_MEMO_SLOTS: none).
 */
static __always_inline int vma_at(struct vma_cursor *v, __u64 addr, struct pk_file_key *key,
				  struct file **f)
{
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 zero = 0;
	struct vma_memo *memo = bpf_map_lookup_elem(&vma_memos, &zero);
	struct vm_area_struct *vma;
	struct vma_memo_entry *e;
	int found;

	if (memo)
		memo->cur = VMA_MEMO_SLOTS;
	if (memo && !vma_memo_key(task, &memo->key))
		memo = NULL;
	if (memo) {
		for (__u32 i = 0; i < VMA_MEMO_SLOTS; i++) {
			e = &memo->e[i];
			if (e->seq == memo->key.seq && e->mm == memo->key.mm &&
			    e->tgid == memo->key.tgid &&
			    e->start_stack == memo->key.start_stack &&
			    addr >= e->vm_start && addr < e->vm_end) {
				memo->cur = i;
				break;
			}
		}
		/* after the loop, from map memory: one way on for the
		 * verifier to check, not one per slot */
		if (memo->cur < VMA_MEMO_SLOTS) {
			e = &memo->e[memo->cur & (VMA_MEMO_SLOTS - 1)];
			v->vm_start = v->start = e->vm_start;
			v->vm_end = v->end_addr = e->vm_end;
			v->vm_pgoff = e->vm_pgoff;
			*key = e->key;
			*f = (struct file *)e->file;
			return e->found;
		}
	}

	vma = vma_lookup(addr);
	/* A PC is in code: an address in memory that is not executable (a
	 * return address a frame-pointer step read from data) is no frame. */
	if (!vma || !(BPF_CORE_READ(vma, vm_flags) & UW_VM_EXEC))
		return -1;
	v->vm_start = v->start = BPF_CORE_READ(vma, vm_start);
	v->vm_end = v->end_addr = BPF_CORE_READ(vma, vm_end);
	v->vm_pgoff = BPF_CORE_READ(vma, vm_pgoff);
	*f = BPF_CORE_READ(vma, vm_file);
	key->dev = key->ino = 0;
	found = 0;
	if (*f) {
		/* as /proc/PID/maps has it, which user space keys tables by:
		 * not the layer's file that overlayfs maps */
		struct inode *inode = pk_file_user_inode(*f);

		key->ino = BPF_CORE_READ(inode, i_ino);
		key->dev = BPF_CORE_READ(inode, i_sb, s_dev);
		found = 1;
	} else if (v->vm_start == (__u64)BPF_CORE_READ(vma, vm_mm, context.vdso)) {
		key->dev = PK_VDSO_DEV;
		key->ino = PK_VDSO_INO;
		v->vm_pgoff = 0;
		found = 1;
	}
	if (memo) {
		memo->cur = memo->next++ % VMA_MEMO_SLOTS;
		e = &memo->e[memo->cur];
		*e = memo->key;
		e->vm_start = v->vm_start;
		e->vm_end = v->vm_end;
		e->vm_pgoff = v->vm_pgoff;
		e->key = *key;
		e->file = (__u64)*f;
		e->found = found;
		e->walk_kind = VMA_NONE;	/* a new VMA: nothing kept of it */
	}
	return found;
}

/* The memo entry of the last vma_at()'s VMA, or NULL. */
static __always_inline struct vma_memo_entry *vma_memo_cur(void)
{
	__u32 zero = 0;
	struct vma_memo *memo = bpf_map_lookup_elem(&vma_memos, &zero);

	if (!memo || memo->cur >= VMA_MEMO_SLOTS)
		return NULL;
	return &memo->e[memo->cur & (VMA_MEMO_SLOTS - 1)];
}

/* Note whether the mapping of the last vma_at()'s VMA is reported for good. */
static __always_inline void vma_memo_reported(bool reported)
{
	__u32 zero = 0;
	struct vma_memo *memo = bpf_map_lookup_elem(&vma_memos, &zero);

	if (memo)
		memo->cur_reported = reported;
}

/* Whether the range last looked up holds ADDR. */
static __always_inline bool vma_holds(const struct vma_cursor *v, __u64 addr)
{
	return v->kind != VMA_NONE && addr >= v->start && addr < v->end_addr;
}

/* Make V's mapping the one of the ranges this walk found that holds ADDR:
 * true when one does. */
static __always_inline bool vma_recall(struct vma_cursor *v, __u64 addr)
{
	struct vma_range *r;

	for (__u32 i = 0; i < VMA_RANGES; i++) {
		if (i >= v->nranges)
			break;
		r = &v->ranges[i & (VMA_RANGES - 1)];
		if (addr >= r->start && addr < r->end) {
			v->kind = r->kind;
			v->start = r->start;
			v->end_addr = r->end;
			v->table = r->table;
			v->delta = r->delta;
			return true;
		}
	}
	return false;
}

/* Remember V's mapping, just looked up, in place of the oldest. */
static __always_inline void vma_remember(struct vma_cursor *v)
{
	struct vma_range *r = &v->ranges[v->nranges++ & (VMA_RANGES - 1)];

	r->start = v->start;
	r->end = v->end_addr;
	r->kind = v->kind;
	r->table = v->table;
	r->delta = v->delta;
}

#endif /* PK_VMA_BPF_H */
