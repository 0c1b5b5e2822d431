/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The user-stack unwinder: walks a user stack with the unwind tables that
 * probe-load and probe-read put in the unwind maps (bpf/probekit.h), up to
 * PK_MAX_USTACK_DEPTH frames, from any BPF program type that may call
 * bpf_loop() (perf_event, kprobe, tracepoint, fentry). Needs Linux 6.1+
 * (the maple tree of VMAs) and bpf_loop (5.17).
 *
 * Addresses to tables: at each frame, a lookup in the mm's VMA tree gives
 * the VMA that holds the PC as the kernel sees it now, its file's inode and
 * vm_pgoff (uw_vma_lookup says why not bpf_find_vma).
 * The inode (dev, ino) keys unwind_files. Nothing follows exec, mmap,
 * dlclose or exit: the VMA tree is always current, a range that another
 * library reuses has another inode, and a process that starts while no
 * probekit process runs needs nothing but tables for its files.
 *
 * Cost: one VMA lookup per frame outside the VMA of the frame before it,
 * and a binary search only for PCs that miss a per-CPU cache of recent
 * (table, PC) -> rule lookups.
 *
 * Include after vmlinux.h, bpf_helpers.h, bpf_core_read.h and probekit.h;
 * the includer defines count() and count_add() for the counters map.
 */
#ifndef PK_UNWIND_BPF_H
#define PK_UNWIND_BPF_H

#include "eh_frame/unwind_table.h"

/* Set by probe-load: walk user stacks with the tables (--unwind dwarf). */
const volatile bool dwarf = false;
/* Set by probe-load with --unwind fp on a kernel with the maple tree of
 * VMAs (6.1+): report the mappings of the frames bpf_get_stack() found, as
 * the DWARF walk does of its own. */
const volatile bool fp_mappings = false;

/* The unwind maps. Sizes are probe-load's (bpf/profile_sizes.h); 1 here so that
 * --unwind fp costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
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

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_pcs_chunk);
} unwind_pcs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_rule_ids_chunk);
} unwind_rule_ids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(map_flags, BPF_F_MMAPABLE);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_unwind_rule);
} unwind_rules SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_unwind_alloc);
} unwind_alloc SEC(".maps");

/* Files already reported with PK_EVENT_NO_TABLE: one event per file. LRU,
 * so a file whose table could not be made is reported again some time. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct pk_file_key);
	__type(value, __u8);
} unwind_seen SEC(".maps");

/* (process, mapping)s already sent as PK_EVENT_MAPPING. LRU: a forgotten
 * one is sent again, which costs a reader nothing. */
struct uw_mapping_key {
	__u32 pid;
	__u32 __pad;
	__u64 vm_start, vm_pgoff;
	struct pk_file_key file;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct uw_mapping_key);
	__type(value, __u8);
} mappings_seen SEC(".maps");

/* The sample under assembly, per CPU: kernel frames, then user frames. */
struct pk_sample_buf {
	struct pk_sample s;
	__u64 frames[PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pk_sample_buf);
} scratch SEC(".maps");

/* Recent rule lookups, direct-mapped. Table indices are never reused within
 * a session, so an entry cannot go stale. */
#define UW_CACHE_SLOTS	4096

struct uw_cache_slot {
	__u32 table_plus1;	/* 0: empty */
	__u32 rel_pc;		/* PC - pc_base */
	__u32 rule;		/* index into unwind_rules; PK_TABLE_NONE: END */
	__u32 __pad;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UW_CACHE_SLOTS);
	__type(key, __u32);
	__type(value, struct uw_cache_slot);
} uw_cache SEC(".maps");

/* What a VMA lookup found for the range [start, end) of the walk's PCs. */
enum uw_kind {
	UW_NONE = 0,		/* nothing looked up yet */
	UW_TABLE,		/* a file with a table: vaddr = PC + delta */
	UW_REFUSED,		/* a file with no table for good: frame pointers */
	UW_MISSING,		/* a file whose table is not loaded (yet) */
	UW_ANON,		/* anonymous or special memory (JIT): frame pointers */
};

/* Mappings a walk has found, to find again: a stack goes back and forth
 * between the program and its libraries, and a VMA lookup is the dearest
 * part of a frame. Only within one walk: between samples a range may be
 * unmapped and reused. */
#define UW_RANGES	4

struct uw_range {
	__u64 start, end;	/* st->start, st->end_addr */
	__s64 delta;
	__u32 table;
	__u8 kind;
	__u8 __pad[3];
};

/* Room to build a path backwards in: the path ends at UW_PATH_BUF. */
#define UW_PATH_BUF	512
#define UW_PATH_DEPTH	32	/* components, mount points included */

struct uw_state {
	/* The walk. */
	__u64 pc, sp, bp;
	__u64 regs[17];		/* the leaf's registers, DWARF numbering */
	__u32 kbase;		/* user frames start at frames[kbase] */
	__u32 n;		/* user frames written */
	__u8 end;		/* enum pk_ustack_end once stopped */
	__u8 bp_valid;
	__u8 exact_pc;		/* pc is where execution stopped, not a return
				 * address: look it up as it is, not pc - 1 */
	__u8 kind;		/* enum uw_kind of [start, end) */
	__u16 fp_frames, missing_frames;
	__u32 table;
	/* The VMA (or the part of it one ELF segment covers) of the last PC. */
	__u64 start, end_addr;
	__s64 delta;
	/* The last VMA found. */
	__u64 vm_start, vm_end, vm_pgoff;
	struct uw_range ranges[UW_RANGES];
	__u32 nranges;		/* found so far in this walk (ranges[n % UW_RANGES]) */
	__u64 pivots[15];	/* a maple node's, while looking one up */
	__u64 win_base;		/* user address of win[0] (uw_read) */
	__u8 win[4096];		/* UW_WIN bytes of the user stack */
	__u64 fp_mask[PK_MAX_USTACK_DEPTH / 64];
	struct pk_no_table ev;	/* a PK_EVENT_NO_TABLE under assembly */
	struct pk_mapping_event mev;	/* a PK_EVENT_MAPPING under assembly */
	__u64 path_dentry, path_vfsmnt;	/* uw_path_step's walk */
	__u32 path_pos;
	__u32 path_done;
	char pathbuf[UW_PATH_BUF + PK_MAPPING_PATH_MAX];	/* built backwards */
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
static __always_inline void uw_regs_from(struct uw_state *st, const struct pt_regs *r)
{
	st->regs[0] = r->ax;	st->regs[1] = r->dx;	st->regs[2] = r->cx;
	st->regs[3] = r->bx;	st->regs[4] = r->si;	st->regs[5] = r->di;
	st->regs[6] = r->bp;	st->regs[7] = r->sp;	st->regs[8] = r->r8;
	st->regs[9] = r->r9;	st->regs[10] = r->r10;	st->regs[11] = r->r11;
	st->regs[12] = r->r12;	st->regs[13] = r->r13;	st->regs[14] = r->r14;
	st->regs[15] = r->r15;	st->regs[16] = r->ip;
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
 * VMA that the containment check below rejects.
 */
#define UW_MT_NODE_MASK		255ul	/* MAPLE_NODE_MASK */
#define UW_MT_TYPE_SHIFT	3	/* MAPLE_NODE_TYPE_SHIFT */
#define UW_MT_LEAF_64		1	/* enum maple_type */
#define UW_MT_RANGE_64		2
#define UW_MT_ARANGE_64		3
#define UW_MT_MAX_DEPTH		8

static __always_inline struct vm_area_struct *uw_vma_lookup(struct uw_state *st, __u64 addr)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct vm_area_struct *vma;
	unsigned long entry;

	entry = (unsigned long)BPF_CORE_READ(task, mm, mm_mt.ma_root);
	/* xa_is_node(): the root is a node (MAPLE_ROOT_NODE set), not a
	 * single entry, as in any mm with more than one VMA. */
	if ((entry & 3) != 2 || entry <= 4096)
		return NULL;
	for (int depth = 0; depth < UW_MT_MAX_DEPTH; depth++) {
		struct maple_node *node;
		unsigned int type, npivots, off;
		void **slots;

		if (entry <= 4096)
			return NULL;
		node = (struct maple_node *)(entry & ~UW_MT_NODE_MASK);
		type = (entry >> UW_MT_TYPE_SHIFT) & 15;
		if (type == UW_MT_ARANGE_64) {
			npivots = 9;
			if (bpf_probe_read_kernel(st->pivots, 9 * sizeof(__u64), &node->ma64.pivot))
				return NULL;
			slots = node->ma64.slot;
		} else if (type == UW_MT_RANGE_64 || type == UW_MT_LEAF_64) {
			npivots = 15;
			if (bpf_probe_read_kernel(st->pivots, 15 * sizeof(__u64), &node->mr64.pivot))
				return NULL;
			slots = node->mr64.slot;
		} else {
			return NULL;
		}
		for (off = 0; off < 15; off++)
			if (off >= npivots || st->pivots[off] >= addr)
				break;
		if (bpf_probe_read_kernel(&entry, sizeof(entry), &slots[off & 15]))
			return NULL;
		if (type == UW_MT_LEAF_64) {
			vma = (struct vm_area_struct *)entry;
			if (!vma || BPF_CORE_READ(vma, vm_start) > addr ||
			    BPF_CORE_READ(vma, vm_end) <= addr)
				return NULL;
			return vma;
		}
	}
	return NULL;
}

/* Tell user space once about a file that has no table. */
static __always_inline void uw_report_missing(struct uw_state *st, struct pk_file_key *key)
{
	__u8 one = 1;

	if (bpf_map_update_elem(&unwind_seen, key, &one, BPF_NOEXIST))
		return;		/* reported already (or the map is busy) */
	st->ev.hdr.type = PK_EVENT_NO_TABLE;
	st->ev.hdr.size = sizeof(st->ev);
	st->ev.hdr.flags = 0;
	st->ev.dev = key->dev;
	st->ev.ino = key->ino;
	st->ev.vm_start = st->vm_start;
	st->ev.vm_end = st->vm_end;
	st->ev.vm_pgoff = st->vm_pgoff;
	st->ev.pid = bpf_get_current_pid_tgid() >> 32;
	if (bpf_ringbuf_output(&events, &st->ev, sizeof(st->ev), BPF_RB_FORCE_WAKEUP)) {
		/* Try again at a later sample. */
		bpf_map_delete_elem(&unwind_seen, key);
		count(PK_CNT_NO_TABLE_LOST);
		return;
	}
	count(PK_CNT_NO_TABLE_EVENTS);
}

/*
 * F's path into st->mev.path, the way the kernel's d_path() builds it: from
 * the dentry up to its mount's root, then on from the mount point in the
 * parent mount, up to the root of the mount tree (or UW_PATH_DEPTH
 * components, or PK_MAPPING_PATH_MAX bytes: then PK_MAPPING_PATH_TRUNC).
 * A deleted file keeps its last name. One bpf_loop step per component: an
 * unrolled walk costs the verifier more than the whole unwinder.
 */
static long uw_path_step(__u32 i, void *ctx)
{
	struct uw_state *st = uw_state_get();
	struct dentry *d, *parent;
	struct vfsmount *vfsmnt;
	struct mount *up;
	__u32 len;

	if (!st)
		return 1;
	d = (struct dentry *)st->path_dentry;
	vfsmnt = (struct vfsmount *)st->path_vfsmnt;
	if (d == BPF_CORE_READ(vfsmnt, mnt_root)) {
		struct mount *mnt = container_of(vfsmnt, struct mount, mnt);

		up = BPF_CORE_READ(mnt, mnt_parent);
		if (up == mnt) {
			st->path_done = 1;
			return 1;
		}
		st->path_dentry = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		st->path_vfsmnt = (__u64)&up->mnt;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (parent == d) {	/* the root of a tree with no mount above */
		st->path_done = 1;
		return 1;
	}
	len = BPF_CORE_READ(d, d_name.len);
	/* The path with this component must still fit in mev.path. */
	if (len + 1 + (UW_PATH_BUF - st->path_pos) >= PK_MAPPING_PATH_MAX)
		return 1;
	st->path_pos -= len;
	if (bpf_probe_read_kernel(&st->pathbuf[st->path_pos & (UW_PATH_BUF - 1)],
				  len & (PK_MAPPING_PATH_MAX - 1), BPF_CORE_READ(d, d_name.name)))
		return 1;
	st->path_pos--;
	st->pathbuf[st->path_pos & (UW_PATH_BUF - 1)] = '/';
	st->path_dentry = (__u64)parent;
	return 0;
}

static __always_inline void uw_file_path(struct uw_state *st, struct file *f)
{
	__u32 len;

	st->path_dentry = (__u64)BPF_CORE_READ(f, f_path.dentry);
	st->path_vfsmnt = (__u64)BPF_CORE_READ(f, f_path.mnt);
	st->path_pos = UW_PATH_BUF;
	st->path_done = 0;
	bpf_loop(UW_PATH_DEPTH, uw_path_step, NULL, 0);
	if (!st->path_done)
		st->mev.hdr.flags |= PK_MAPPING_PATH_TRUNC;
	/* < PK_MAPPING_PATH_MAX, as each step checks; the mask tells the
	 * verifier (after the barrier, so that the compiler keeps it). */
	len = UW_PATH_BUF - st->path_pos;
	barrier_var(len);
	len &= PK_MAPPING_PATH_MAX - 1;
	st->mev.path_len = len;
	if (len)
		bpf_probe_read_kernel(st->mev.path, len,
				      &st->pathbuf[st->path_pos & (UW_PATH_BUF - 1)]);
	st->mev.path[len] = '\0';
}

/* Tell user space once per process where the file KEY (F; NULL: the vDSO)
 * is mapped, before the sample that goes through it. */
static __always_inline void uw_report_mapping(struct uw_state *st, struct file *f,
					      const struct pk_file_key *key, __u32 table)
{
	struct uw_mapping_key mk = {
		.pid = bpf_get_current_pid_tgid() >> 32,
		.vm_start = st->vm_start, .vm_pgoff = st->vm_pgoff, .file = *key,
	};
	__u8 one = 1;

	if (bpf_map_lookup_elem(&mappings_seen, &mk) ||
	    bpf_map_update_elem(&mappings_seen, &mk, &one, BPF_NOEXIST))
		return;		/* sent already (or the map is busy) */
	st->mev.hdr.type = PK_EVENT_MAPPING;
	st->mev.hdr.size = sizeof(st->mev);
	st->mev.hdr.flags = f ? 0 : PK_MAPPING_VDSO;
	st->mev.pid = mk.pid;
	st->mev.table = table;
	st->mev.vm_start = st->vm_start;
	st->mev.vm_end = st->vm_end;
	st->mev.vm_pgoff = st->vm_pgoff;
	st->mev.dev = key->dev;
	st->mev.ino = key->ino;
	st->mev.path_len = 0;
	st->mev.path[0] = '\0';
	if (f)
		uw_file_path(st, f);
	if (bpf_ringbuf_output(&events, &st->mev, sizeof(st->mev), 0)) {
		bpf_map_delete_elem(&mappings_seen, &mk);
		count(PK_CNT_MAPPING_LOST);
		return;
	}
	count(PK_CNT_MAPPING_EVENTS);
}

/*
 * The VMA that holds ADDR into st (vm_start, vm_end, vm_pgoff, and [start,
 * end_addr) for the next frames), and what it maps: the file's inode in
 * *KEY and the file in *F (NULL for the vDSO, keyed PK_VDSO_*). Returns 1
 * for a file or the vDSO, 0 for anonymous or special memory, -1 when no VMA
 * holds ADDR.
 */
static __always_inline int uw_vma_at(struct uw_state *st, __u64 addr, struct pk_file_key *key,
				     struct file **f)
{
	struct vm_area_struct *vma = uw_vma_lookup(st, addr);

	if (!vma)
		return -1;
	st->vm_start = st->start = BPF_CORE_READ(vma, vm_start);
	st->vm_end = st->end_addr = BPF_CORE_READ(vma, vm_end);
	st->vm_pgoff = BPF_CORE_READ(vma, vm_pgoff);
	*f = BPF_CORE_READ(vma, vm_file);
	if (*f) {
		key->ino = BPF_CORE_READ(*f, f_inode, i_ino);
		key->dev = BPF_CORE_READ(*f, f_inode, i_sb, s_dev);
		return 1;
	}
	if (st->vm_start == (__u64)BPF_CORE_READ(vma, vm_mm, context.vdso)) {
		key->dev = PK_VDSO_DEV;
		key->ino = PK_VDSO_INO;
		st->vm_pgoff = 0;
		return 1;
	}
	return 0;
}

/* Look ADDR's mapping up: st->kind, and for tables st->table and st->delta,
 * valid for [st->start, st->end_addr). false when no VMA holds ADDR. */
static __always_inline bool uw_lookup_mapping(struct uw_state *st, __u64 addr)
{
	struct pk_file_info *fi;
	struct pk_file_key key;
	struct file *f;
	__u64 off;
	int found;

	found = uw_vma_at(st, addr, &key, &f);
	if (found < 0)
		return false;
	if (!found) {
		st->kind = UW_ANON;
		return true;
	}
	st->kind = UW_TABLE;
	fi = bpf_map_lookup_elem(&unwind_files, &key);
	uw_report_mapping(st, f, &key, fi ? fi->table : PK_TABLE_NONE);
	if (!fi) {
		st->kind = UW_MISSING;
		uw_report_missing(st, &key);
		return true;
	}
	if (fi->table == PK_TABLE_NONE) {
		st->kind = UW_REFUSED;
		return true;
	}
	/* File offset -> ELF vaddr, through the executable segment that holds it. */
	off = addr - st->vm_start + (st->vm_pgoff << 12);
	for (int i = 0; i < PK_FILE_MAX_SEGS; i++) {
		if (i >= fi->nsegs)
			break;
		if (off < fi->segs[i].off || off >= fi->segs[i].end)
			continue;
		st->table = fi->table;
		st->delta = (__s64)((st->vm_pgoff << 12) - st->vm_start) + fi->segs[i].bias;
		/* The segment's part of the VMA. */
		if (fi->segs[i].off > (st->vm_pgoff << 12) &&
		    st->vm_start + fi->segs[i].off - (st->vm_pgoff << 12) > st->start)
			st->start = st->vm_start + fi->segs[i].off - (st->vm_pgoff << 12);
		if (st->vm_start + fi->segs[i].end - (st->vm_pgoff << 12) < st->end_addr)
			st->end_addr = st->vm_start + fi->segs[i].end - (st->vm_pgoff << 12);
		return true;
	}
	/* In the file but in no executable segment: not code we have rows for. */
	st->kind = UW_REFUSED;
	return true;
}

/* Make st's mapping the one of the ranges this walk found that holds ADDR:
 * true when one does. */
static __always_inline bool uw_recall_range(struct uw_state *st, __u64 addr)
{
	struct uw_range *r;

	for (__u32 i = 0; i < UW_RANGES; i++) {
		if (i >= st->nranges)
			break;
		r = &st->ranges[i & (UW_RANGES - 1)];
		if (addr >= r->start && addr < r->end) {
			st->kind = r->kind;
			st->start = r->start;
			st->end_addr = r->end;
			st->table = r->table;
			st->delta = r->delta;
			return true;
		}
	}
	return false;
}

/* Remember st's mapping, just looked up, in place of the oldest. */
static __always_inline void uw_remember_range(struct uw_state *st)
{
	struct uw_range *r = &st->ranges[st->nranges++ & (UW_RANGES - 1)];

	r->start = st->start;
	r->end = st->end_addr;
	r->kind = st->kind;
	r->table = st->table;
	r->delta = st->delta;
}

/* What covers ADDR, as uw_lookup_mapping() says, from the ranges this walk
 * has found when one holds it. Its mapping was reported when first found. */
static __always_inline bool uw_find_mapping(struct uw_state *st, __u64 addr)
{
	if (st->kind != UW_NONE && addr >= st->start && addr < st->end_addr)
		return true;
	if (uw_recall_range(st, addr))
		return true;
	if (!uw_lookup_mapping(st, addr))
		return false;
	uw_remember_range(st);
	return true;
}

/* The rule for ELF vaddr VADDR of table st->table: an index into
 * unwind_rules, PK_TABLE_NONE for END, or -1 when the maps are inconsistent. */
static __always_inline long uw_find_rule(struct uw_state *st, __u64 vaddr)
{
	struct pk_table_info *t;
	struct uw_cache_slot *slot;
	struct pk_pcs_chunk *chunk;
	struct pk_rule_ids_chunk *ids;
	__u32 table = st->table, rel, lo, hi, idx, slot_idx;
	long rule;

	t = bpf_map_lookup_elem(&unwind_tables, &table);
	if (!t)
		return -1;
	if (vaddr < t->pc_base || vaddr >= t->pc_end)
		return PK_TABLE_NONE;
	rel = vaddr - t->pc_base;
	slot_idx = (rel * 2654435761u ^ table * 40503u) % UW_CACHE_SLOTS;
	slot = bpf_map_lookup_elem(&uw_cache, &slot_idx);
	if (slot && slot->table_plus1 == table + 1 && slot->rel_pc == rel)
		return slot->rule;

	/* The last row whose PC is <= rel; pcs[0] == 0, so there is one. */
	lo = 0;
	hi = t->nrows;
	for (int i = 0; i < 27; i++) {	/* rows < 2^26 (eh_frame/README.md) */
		__u32 mid, key;

		if (hi - lo <= 1)
			break;
		mid = lo + (hi - lo) / 2;
		idx = t->row_start + mid;
		key = idx / PK_PCS_PER_CHUNK;
		chunk = bpf_map_lookup_elem(&unwind_pcs, &key);
		if (!chunk)
			return -1;
		if (chunk->pcs[idx % PK_PCS_PER_CHUNK] <= rel)
			lo = mid;
		else
			hi = mid;
	}
	idx = t->row_start + lo;
	{
		__u32 key = idx / PK_RULE_IDS_PER_CHUNK;

		ids = bpf_map_lookup_elem(&unwind_rule_ids, &key);
		if (!ids)
			return -1;
		rule = t->rule_start + ids->ids[idx % PK_RULE_IDS_PER_CHUNK];
	}
	if (slot) {
		slot->table_plus1 = table + 1;
		slot->rel_pc = rel;
		slot->rule = rule;
	}
	return rule;
}

/*
 * A user word. The walk reads a few words per frame, upwards through a few
 * pages of stack: each read is served from a copy of the page it is in,
 * taken with one bpf_probe_read_user when the walk first reaches that
 * page, instead of one helper call per word. A page that cannot be copied
 * whole (not resident) is read word by word.
 */
#define UW_WIN		4096

static __always_inline bool uw_read(struct uw_state *st, __u64 *dst, __u64 addr)
{
	__u64 off = addr - st->win_base;

	if (off > UW_WIN - sizeof(*dst)) {
		__u64 base = addr & ~(__u64)(UW_WIN - 1);

		off = addr - base;
		if (off > UW_WIN - sizeof(*dst) ||
		    bpf_probe_read_user(st->win, UW_WIN, (const void *)base)) {
			st->win_base = 1;	/* no window: 1 is never a page start */
			return bpf_probe_read_user(dst, sizeof(*dst), (const void *)addr) == 0;
		}
		st->win_base = base;
	}
	*dst = *(__u64 *)&st->win[off & (UW_WIN - 1)];
	return true;
}

/* A frame-pointer step from st->pc's frame, for code without a table: the
 * caller's PC in *ra. Counted whether it succeeds or not: the frame had no
 * table. */
static __always_inline int uw_fp_step(struct uw_state *st, __u64 *ra)
{
	__u64 next_bp;
	int stop = st->kind == UW_MISSING ? PK_END_NO_TABLE : PK_END_FP_FALLBACK;

	st->fp_frames++;
	if (st->kind == UW_MISSING)
		st->missing_frames++;
	/* RBP below the stack pointer is no frame pointer (frameless code). */
	if (!st->bp_valid || !st->bp || st->bp + 16 <= st->sp)
		return stop;
	if (!uw_read(st, &next_bp, st->bp) || !uw_read(st, ra, st->bp + 8))
		return stop;
	st->sp = st->bp + 16;
	st->bp = next_bp;
	return 0;
}

/* rt_sigframe: the handler returns into __restore_rt with RSP at the
 * ucontext; the interrupted registers are in uc_mcontext (struct
 * sigcontext, at 40 bytes into the ucontext). */
#define UW_UC_MCONTEXT	40
#define UW_SC_RBP	(UW_UC_MCONTEXT + 10 * 8)
#define UW_SC_RSP	(UW_UC_MCONTEXT + 15 * 8)
#define UW_SC_RIP	(UW_UC_MCONTEXT + 16 * 8)

/* One step with a rule: the caller's PC in *ra. 0, or how the walk ends. */
static __always_inline int uw_rule_step(struct uw_state *st, __u32 rule_idx, __u64 *ra)
{
	struct pk_unwind_rule *r = bpf_map_lookup_elem(&unwind_rules, &rule_idx);
	bool leaf = st->n == 1;
	__u64 cfa, base, v;

	if (!r)
		return PK_END_UNSUPPORTED;
	switch (r->cfa_type) {
	case PK_CFA_END:
		return PK_END_COMPLETE;
	case PK_CFA_RSP:
		cfa = st->sp + r->cfa_offset;
		break;
	case PK_CFA_RBP:
		if (!st->bp_valid)
			return PK_END_UNSUPPORTED;
		cfa = st->bp + r->cfa_offset;
		break;
	case PK_CFA_PLT1:
		cfa = st->sp + 8 + ((st->pc & 15) >= 11 ? 8 : 0);
		break;
	case PK_CFA_PLT2:
		cfa = st->sp + 8 + ((st->pc & 15) >= 10 ? 8 : 0);
		break;
	case PK_CFA_DEREF:
		if (r->cfa_reg == 7)
			base = st->sp;
		else if (r->cfa_reg == 6 && st->bp_valid)
			base = st->bp;
		else if (leaf && r->cfa_reg < 17)
			base = st->regs[r->cfa_reg];
		else
			return PK_END_UNSUPPORTED;
		if (!uw_read(st, &v, base + r->cfa_offset))
			return PK_END_READ_FAULT;
		cfa = v + r->cfa_deref_offset;
		break;
	case PK_CFA_REG:
		if (!leaf || r->cfa_reg >= 17)
			return PK_END_UNSUPPORTED;
		cfa = st->regs[r->cfa_reg] + r->cfa_offset;
		break;
	case PK_CFA_SIGNAL:
		/* Continue in the interrupted frame, at the interrupted PC. */
		if (!uw_read(st, &st->bp, st->sp + UW_SC_RBP) ||
		    !uw_read(st, &v, st->sp + UW_SC_RSP) ||
		    !uw_read(st, ra, st->sp + UW_SC_RIP))
			return PK_END_READ_FAULT;
		/* A handler may run on another stack (sigaltstack): no
		 * "moves up" check here; the depth bounds a cycle. */
		st->sp = v;
		st->bp_valid = 1;
		st->exact_pc = 1;
		return 0;
	default:
		return PK_END_UNSUPPORTED;
	}
	if (cfa <= st->sp)
		return PK_END_LOOP;
	if (r->ra_type == PK_RA_UNDEFINED)
		return PK_END_COMPLETE;
	if (r->ra_type != PK_RA_CFA_OFFSET)
		return PK_END_UNSUPPORTED;
	if (!uw_read(st, ra, cfa + r->ra_offset))
		return PK_END_READ_FAULT;
	if (r->fp_type == PK_FP_CFA_OFFSET) {
		if (!uw_read(st, &st->bp, cfa + r->fp_offset))
			return PK_END_READ_FAULT;
		st->bp_valid = 1;
	} else if (r->fp_type != PK_FP_UNCHANGED) {
		st->bp_valid = 0;
	}
	st->sp = cfa;
	st->exact_pc = 0;
	return 0;
}

/* bpf_loop body: record st->pc as user frame n, then find its caller. */
static long uw_step(__u32 i, void *ctx)
{
	struct pk_sample_buf *b;
	struct uw_state *st = uw_state_get();
	__u32 zero = 0, idx;
	__u64 ra = 0, lookup;
	bool by_fp = false;
	long rule;
	int end;

	b = bpf_map_lookup_elem(&scratch, &zero);
	if (!st || !b)
		return 1;
	if (st->n >= PK_MAX_USTACK_DEPTH) {
		st->end = PK_END_DEPTH;
		return 1;
	}
	idx = st->kbase + st->n;
	if (idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
		return 1;
	b->frames[idx] = st->pc;
	st->n++;

	/* A return address points after the call, maybe past the end of the
	 * caller's FDE (a noreturn call last in a function): look up PC - 1. */
	lookup = st->exact_pc ? st->pc : st->pc - 1;
	if (!uw_find_mapping(st, lookup)) {
		st->end = PK_END_READ_FAULT;
		return 1;
	}
	if (st->kind == UW_TABLE) {
		rule = uw_find_rule(st, lookup + st->delta);
		if (rule < 0) {
			st->end = PK_END_UNSUPPORTED;
			return 1;
		}
		if (rule == PK_TABLE_NONE) {
			st->end = PK_END_COMPLETE;
			return 1;
		}
		end = uw_rule_step(st, rule, &ra);
	} else {
		end = uw_fp_step(st, &ra);
		by_fp = true;
	}
	if (end) {
		st->end = end;
		return 1;
	}
	if (!ra) {		/* a zeroed return address ends some runtimes' stacks */
		st->end = PK_END_COMPLETE;
		return 1;
	}
	/* the caller, frame n, was found by a frame-pointer step; marked only
	 * now that it will be recorded (not when the walk ends here) */
	if (by_fp && st->n < PK_MAX_USTACK_DEPTH)
		st->fp_mask[(st->n / 64) & 3] |= 1ull << (st->n % 64);
	st->pc = ra;
	return 0;
}

/*
 * Walk the user stack whose registers are REGS (the user's, never a kernel
 * pt_regs) into b->frames[kbase...]; fills b->s's user fields and flags.
 * Returns the number of user frames.
 */
static __always_inline __u32 pk_unwind_user(struct pk_sample_buf *b, __u32 kbase,
					    const struct pt_regs *regs)
{
	struct uw_state *st = uw_state_get();

	if (!st)
		return 0;
	uw_regs_from(st, regs);
	st->pc = regs->ip;
	st->sp = regs->sp;
	st->bp = regs->bp;
	st->bp_valid = 1;
	st->exact_pc = 1;
	st->kbase = kbase;
	st->n = 0;
	st->end = PK_END_NONE;
	st->kind = UW_NONE;
	st->nranges = 0;
	st->fp_frames = 0;
	st->missing_frames = 0;
	st->fp_mask[0] = st->fp_mask[1] = st->fp_mask[2] = st->fp_mask[3] = 0;
	st->win_base = 1;
	bpf_loop(PK_MAX_USTACK_DEPTH + 1, uw_step, NULL, 0);
	if (st->end == PK_END_NONE)	/* the loop ran out: cannot happen */
		st->end = PK_END_DEPTH;

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

/* bpf_loop body of pk_note_mappings: report the mapping of user frame I. */
static long uw_note_step(__u32 i, void *ctx)
{
	struct uw_state *st = uw_state_get();
	struct pk_sample_buf *b;
	struct pk_file_key key;
	struct file *f;
	__u32 zero = 0;
	__u64 addr, idx;
	int found;

	b = bpf_map_lookup_elem(&scratch, &zero);
	if (!st || !b)
		return 1;
	/* 64-bit: a 32-bit index is bounded on its subregister only, and
	 * clang's zero extension loses that before the load */
	idx = (__u64)st->kbase + i;
	if (idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
		return 1;
	addr = b->frames[idx] - (i > 0);	/* a return address: its call */
	if (st->kind != UW_NONE && addr >= st->start && addr < st->end_addr)
		return 0;
	if (uw_recall_range(st, addr))
		return 0;	/* reported when first found */
	found = uw_vma_at(st, addr, &key, &f);
	if (found < 0)
		return 0;
	st->kind = UW_ANON;	/* any kind: [start, end) is looked up */
	uw_remember_range(st);
	if (found)
		uw_report_mapping(st, f, &key, PK_TABLE_NONE);
	return 0;
}

/* --unwind fp (fp_mappings): report the mappings of the N user frames at
 * b->frames[kbase...] that were not reported for this process yet. */
static __always_inline void pk_note_mappings(__u32 kbase, __u32 n)
{
	struct uw_state *st = uw_state_get();

	if (!st)
		return;
	st->kbase = kbase;
	st->kind = UW_NONE;
	st->nranges = 0;
	bpf_loop(n, uw_note_step, NULL, 0);
}

/*
 * The user registers of the current task: the sample's own when it
 * interrupted user mode (CTX_REGS), else the ones saved at kernel entry.
 * false for kernel threads, which have no user stack.
 */
static __always_inline bool pk_user_regs(const struct pt_regs *ctx_regs, struct pt_regs *out)
{
	struct task_struct *task = bpf_get_current_task_btf();

	if (task->flags & 0x00200000 /* PF_KTHREAD */)
		return false;
	if (ctx_regs && (BPF_CORE_READ(ctx_regs, cs) & 3)) {
		return bpf_probe_read_kernel(out, sizeof(*out), ctx_regs) == 0;
	}
	return bpf_probe_read_kernel(out, sizeof(*out), (void *)bpf_task_pt_regs(task)) == 0;
}

#endif /* PK_UNWIND_BPF_H */
