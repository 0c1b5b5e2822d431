/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What user space learns of the mappings samples go through, sent to the
 * ring buffer ahead of the samples: PK_EVENT_MAPPING, once per (process,
 * mapping), with the file's path as its dentries name it, and
 * PK_EVENT_NO_TABLE, once per file the DWARF walk found no table for
 * (bpf/probekit.h). With --unwind fp, the mappings of the frames that
 * bpf_get_stack() found are reported too (pk_note_mappings).
 */
#ifndef PK_MAPPING_REPORT_BPF_H
#define PK_MAPPING_REPORT_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf/probekit.h"
#include "bpf/sample.bpf.h"
#include "bpf/vma.bpf.h"

/* Set by probe-load with --unwind fp on a kernel with the maple tree of
 * VMAs (6.1+): report the mappings of the frames bpf_get_stack() found, as
 * the DWARF walk does of its own. */
const volatile bool fp_mappings = false;

/* Set by probe-load -- CMD (--unwind dwarf): each no-table report is sent
 * to `missing` too, the small ring that probe-load drains while it waits
 * for the command, so that the files the command execs and maps get their
 * tables when no reader runs (the samples' ring is probe-read's alone). */
const volatile bool missing_ring = false;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PK_MISSING_RING_BYTES);
} missing SEC(".maps");

/* Files already reported with PK_EVENT_NO_TABLE: one event per file. LRU,
 * so a file whose table could not be made is reported again some time.
 * Sizes are probe-load's (bpf/profile_sizes.h); 1 here so that --unwind fp
 * costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct pk_file_key);
	__type(value, __u8);
} unwind_seen SEC(".maps");

/* (process, mapping)s already sent as PK_EVENT_MAPPING, with the reader
 * generation they were sent in (pk_report_gen()): one of an earlier
 * generation is sent again. LRU: a forgotten one is sent again, which
 * costs a reader nothing. */
struct report_mapping_key {
	__u32 pid;
	__u32 __pad;
	__u64 vm_start, vm_pgoff;
	struct pk_file_key file;
};

/* tries 1: sent with its build-id (or none to read); more: sent tries - 1
 * times without, tried again until REPORT_BUILD_ID_TRIES */
struct report_mapping_seen {
	__u32 gen;
	__u32 tries;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct report_mapping_key);
	__type(value, struct report_mapping_seen);
} mappings_seen SEC(".maps");

/* Room to build a path backwards in: the path ends at REPORT_PATH_BUF. */
#define REPORT_PATH_BUF		512
#define REPORT_PATH_DEPTH	32	/* components, mount points included */

/* ELF64, as the x86-64 ABI lays it out: what the build-id note is found
 * by (the kernel's uapi/linux/elf.h; BTF does not carry it). */
#define ELF_PT_NOTE		4
#define ELF_NT_GNU_BUILD_ID	3
#define ELF_PHDR_SIZE		56	/* sizeof(Elf64_Phdr) */
#define REPORT_PHDRS_MAX	16	/* program headers looked at */
#define REPORT_NOTES_BUF	512	/* bytes of a PT_NOTE read */
#define REPORT_NOTES_MAX	8	/* notes of it looked at */
/* Reports of a mapping whose build-id could not be read yet: the first
 * and this many more at later samples. */
#define REPORT_BUILD_ID_TRIES	4

struct report_elf_hdr {		/* Elf64_Ehdr */
	__u8 ident[16];
	__u16 type, machine;
	__u32 version;
	__u64 entry, phoff, shoff;
	__u32 flags;
	__u16 ehsize, phentsize, phnum, shentsize, shnum, shstrndx;
};

struct report_elf_phdr {	/* Elf64_Phdr */
	__u32 type, flags;
	__u64 offset, vaddr, paddr, filesz, memsz, align;
};

/* Per CPU: the records under assembly are too big for the BPF stack. */
struct report_state {
	struct pk_no_table ev;		/* a PK_EVENT_NO_TABLE under assembly */
	struct pk_mapping_event mev;	/* a PK_EVENT_MAPPING under assembly */
	__u64 path_dentry, path_vfsmnt;	/* report_path_step's walk */
	__u32 path_pos;
	__u32 path_done;
	char pathbuf[REPORT_PATH_BUF + PK_MAPPING_PATH_MAX];	/* built backwards */
	/* report_build_id's look at the mapped ELF */
	__u64 elf_base;
	struct report_elf_hdr eh;
	struct report_elf_phdr ph;
	__u8 notes[REPORT_NOTES_BUF + 64];
	__u32 elf_note_off, elf_note_size;	/* report_elf_note_step's place */
	/* pk_note_mappings' walk: the user frames at scratch's frames[kbase...] */
	__u32 note_kbase;
	__u32 __pad;
	struct vma_cursor note;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct report_state);
} report_states SEC(".maps");

static __always_inline struct report_state *report_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&report_states, &zero);
}

/* Tell user space once about a file that has no table, in V's VMA. */
static __always_inline void report_missing(const struct vma_cursor *v, struct pk_file_key *key)
{
	struct report_state *rs;
	__u8 one = 1;

	if (bpf_map_update_elem(&unwind_seen, key, &one, BPF_NOEXIST))
		return;		/* reported already (or the map is busy) */
	/* the record's room only for a file reported now: the walk meets a
	 * known file at almost every step */
	rs = report_state_get();
	if (!rs) {
		bpf_map_delete_elem(&unwind_seen, key);
		return;
	}
	rs->ev.hdr.type = PK_EVENT_NO_TABLE;
	rs->ev.hdr.size = sizeof(rs->ev);
	rs->ev.hdr.flags = 0;
	rs->ev.dev = key->dev;
	rs->ev.ino = key->ino;
	rs->ev.vm_start = v->vm_start;
	rs->ev.vm_end = v->vm_end;
	rs->ev.vm_pgoff = v->vm_pgoff;
	rs->ev.pid = bpf_get_current_pid_tgid() >> 32;
	/* Whatever the samples' ring does: a full one is retried at a later
	 * sample, which probe-load takes as a file it has seen. */
	if (missing_ring)
		bpf_ringbuf_output(&missing, &rs->ev, sizeof(rs->ev), BPF_RB_FORCE_WAKEUP);
	if (bpf_ringbuf_output(&events, &rs->ev, sizeof(rs->ev), BPF_RB_FORCE_WAKEUP)) {
		/* Try again at a later sample. */
		bpf_map_delete_elem(&unwind_seen, key);
		count(PK_CNT_NO_TABLE_LOST);
		return;
	}
	count(PK_CNT_NO_TABLE_EVENTS);
}

/*
 * F's path into mev.path, the way the kernel's d_path() builds it: from
 * the dentry up to its mount's root, then on from the mount point in the
 * parent mount, up to the root of the mount tree (or REPORT_PATH_DEPTH
 * components, or PK_MAPPING_PATH_MAX bytes: then PK_MAPPING_PATH_TRUNC).
 * A deleted file keeps its last name. One bpf_loop step per component: an
 * unrolled walk costs the verifier more than the whole unwinder.
 */
static long report_path_step(__u32 i, void *ctx)
{
	struct report_state *rs = report_state_get();
	struct dentry *d, *parent;
	struct vfsmount *vfsmnt;
	struct mount *up;
	__u32 len;

	(void)i;
	(void)ctx;
	if (!rs)
		return 1;
	d = (struct dentry *)rs->path_dentry;
	vfsmnt = (struct vfsmount *)rs->path_vfsmnt;
	if (d == BPF_CORE_READ(vfsmnt, mnt_root)) {
		struct mount *mnt = container_of(vfsmnt, struct mount, mnt);

		up = BPF_CORE_READ(mnt, mnt_parent);
		if (up == mnt) {
			rs->path_done = 1;
			return 1;
		}
		rs->path_dentry = (__u64)BPF_CORE_READ(mnt, mnt_mountpoint);
		rs->path_vfsmnt = (__u64)&up->mnt;
		return 0;
	}
	parent = BPF_CORE_READ(d, d_parent);
	if (parent == d) {	/* the root of a tree with no mount above */
		rs->path_done = 1;
		return 1;
	}
	len = BPF_CORE_READ(d, d_name.len);
	/* The path with this component must still fit in mev.path. */
	if (len + 1 + (REPORT_PATH_BUF - rs->path_pos) >= PK_MAPPING_PATH_MAX)
		return 1;
	rs->path_pos -= len;
	if (bpf_probe_read_kernel(&rs->pathbuf[rs->path_pos & (REPORT_PATH_BUF - 1)],
				  len & (PK_MAPPING_PATH_MAX - 1), BPF_CORE_READ(d, d_name.name)))
		return 1;
	rs->path_pos--;
	rs->pathbuf[rs->path_pos & (REPORT_PATH_BUF - 1)] = '/';
	rs->path_dentry = (__u64)parent;
	return 0;
}

static __always_inline void report_file_path(struct report_state *rs, struct file *f)
{
	/* the user's path (an overlay's), not its layer's */
	const struct path *p = pk_file_user_path(f);
	__u32 len;

	rs->path_dentry = (__u64)BPF_CORE_READ(p, dentry);
	rs->path_vfsmnt = (__u64)BPF_CORE_READ(p, mnt);
	rs->path_pos = REPORT_PATH_BUF;
	rs->path_done = 0;
	bpf_loop(REPORT_PATH_DEPTH, report_path_step, NULL, 0);
	if (!rs->path_done)
		rs->mev.hdr.flags |= PK_MAPPING_PATH_TRUNC;
	/* < PK_MAPPING_PATH_MAX, as each step checks; the mask tells the
	 * verifier (after the barrier, so that the compiler keeps it). */
	len = REPORT_PATH_BUF - rs->path_pos;
	barrier_var(len);
	len &= PK_MAPPING_PATH_MAX - 1;
	rs->mev.path_len = len;
	if (len)
		bpf_probe_read_kernel(rs->mev.path, len,
				      &rs->pathbuf[rs->path_pos & (REPORT_PATH_BUF - 1)]);
	rs->mev.path[len] = '\0';
}

/* bpf_loop body of report_scan_notes: the note at elf_note_off of the
 * elf_note_size bytes in notes; 1 once the GNU build-id is in rs->mev or
 * none is left. A loop the verifier checks once (unrolled, it followed
 * each note's way out of the loop on its own). */
static long report_elf_note_step(__u32 i, void *ctx)
{
	struct report_state *rs = report_state_get();
	__u32 off, size, namesz, descsz, type, name, desc;

	(void)i;
	(void)ctx;
	if (!rs)
		return 1;
	off = rs->elf_note_off;
	size = rs->elf_note_size;
	if (off + 12 > size || off > REPORT_NOTES_BUF)
		return 1;
	namesz = *(__u32 *)&rs->notes[off & (REPORT_NOTES_BUF - 1)];
	descsz = *(__u32 *)&rs->notes[(off + 4) & (REPORT_NOTES_BUF - 1)];
	type = *(__u32 *)&rs->notes[(off + 8) & (REPORT_NOTES_BUF - 1)];
	if (namesz > REPORT_NOTES_BUF || descsz > REPORT_NOTES_BUF)
		return 1;
	name = off + 12;
	desc = name + ((namesz + 3) & ~3u);
	if (type == ELF_NT_GNU_BUILD_ID && namesz == 4 && descsz &&
	    descsz <= PK_MAPPING_BUILD_ID_MAX && desc + descsz <= size &&
	    *(__u32 *)&rs->notes[name & (REPORT_NOTES_BUF - 1)] == 0x00554e47 /* "GNU" */) {
		/* <= PK_MAPPING_BUILD_ID_MAX already; the verifier's bound */
		barrier_var(descsz);
		descsz &= 2 * PK_MAPPING_BUILD_ID_MAX - 1;
		if (descsz > PK_MAPPING_BUILD_ID_MAX ||
		    bpf_probe_read_kernel(rs->mev.build_id, descsz,
					  &rs->notes[desc & (REPORT_NOTES_BUF - 1)]))
			return 1;
		rs->mev.build_id_len = descsz;
		return 1;
	}
	rs->elf_note_off = desc + ((descsz + 3) & ~3u);
	return 0;
}

/* The GNU build-id note in RS->notes (SIZE bytes) into rs->mev. */
static __always_inline void report_scan_notes(struct report_state *rs, __u32 size)
{
	rs->elf_note_off = 0;
	rs->elf_note_size = size;
	bpf_loop(REPORT_NOTES_MAX, report_elf_note_step, NULL, 0);
}

/* bpf_loop body of report_build_id: program header I, a PT_NOTE? */
static long report_phdr_step(__u32 i, void *ctx)
{
	struct report_state *rs = report_state_get();
	__u32 size;

	(void)ctx;
	if (!rs || i >= rs->eh.phnum || rs->mev.build_id_len)
		return 1;
	if (bpf_probe_read_user(&rs->ph, sizeof(rs->ph),
				(const void *)(rs->elf_base + rs->eh.phoff + (__u64)i * ELF_PHDR_SIZE)))
		return 1;
	if (rs->ph.type != ELF_PT_NOTE)
		return 0;
	size = rs->ph.filesz > REPORT_NOTES_BUF ? REPORT_NOTES_BUF : rs->ph.filesz;
	barrier_var(size);
	size &= 2 * REPORT_NOTES_BUF - 1;
	if (size > REPORT_NOTES_BUF || !size ||
	    bpf_probe_read_user(rs->notes, size, (const void *)(rs->elf_base + rs->ph.offset)))
		return 0;
	report_scan_notes(rs, size);
	return 0;
}

/*
 * The build-id of the file V maps, from its ELF note as the process has it
 * mapped: the ELF header at V's start less its file offset (the first
 * segments of an ELF map at offset == address; a file that does not is not
 * an ELF there and is left without), its program headers, the PT_NOTE.
 * No page is faulted in: one not resident leaves the build-id unread.
 */
static __always_inline void report_build_id(struct report_state *rs, const struct vma_cursor *v)
{
	rs->mev.build_id_len = 0;
	rs->elf_base = v->vm_start - (v->vm_pgoff << PK_PAGE_SHIFT);
	if (v->vm_pgoff << PK_PAGE_SHIFT > v->vm_start ||
	    bpf_probe_read_user(&rs->eh, sizeof(rs->eh), (const void *)rs->elf_base))
		return;
	if (rs->eh.ident[0] != 0x7f || rs->eh.ident[1] != 'E' || rs->eh.ident[2] != 'L' ||
	    rs->eh.ident[3] != 'F' || rs->eh.ident[4] != 2 /* ELFCLASS64 */ ||
	    rs->eh.phentsize != ELF_PHDR_SIZE)
		return;
	bpf_loop(REPORT_PHDRS_MAX, report_phdr_step, NULL, 0);
}

/* Tell user space once per process where the file KEY (FILE, a struct
 * file *; 0: the vDSO) is mapped, V's VMA, before the sample that goes
 * through it. true when it is sent for good (with its build-id, or with
 * none to read, or out of tries), so that its caller may stop asking;
 * false while it is not sent yet (the ring buffer was full, the map busy)
 * or is to be sent again for its build-id.
 *
 * A global function, which the verifier checks once per program rather
 * than at each state of each caller that reaches it (a tenth of the
 * perf_event program's verification, a fifth of the report programs').
 * So FILE is a number (a global function's arguments are scalars or
 * memory; F is only ever read through BPF_CORE_READ), and V and KEY may be
 * NULL. */
__noinline int report_mapping(const struct vma_cursor *v, __u64 file,
			      const struct pk_file_key *key, __u32 table)
{
	struct file *f = (struct file *)file;
	struct report_state *rs;
	struct report_mapping_key mk = {};
	struct report_mapping_seen one = { .gen = pk_report_gen(), .tries = 1 }, *seen;
	__u32 tries = 0;

	if (!v || !key)
		return false;
	mk.pid = bpf_get_current_pid_tgid() >> 32;
	mk.vm_start = v->vm_start;
	mk.vm_pgoff = v->vm_pgoff;
	mk.file = *key;
	seen = bpf_map_lookup_elem(&mappings_seen, &mk);
	/* one of an earlier reader generation went to another reader:
	 * this one has not had it (its entry stays, rewritten when sent) */
	if (seen && seen->gen == one.gen)
		tries = seen->tries;
	if (tries == 1 || tries > REPORT_BUILD_ID_TRIES)
		return true;	/* sent already */
	if (!seen && bpf_map_update_elem(&mappings_seen, &mk, &one, BPF_NOEXIST))
		return false;	/* the map is busy */
	rs = report_state_get();
	if (!rs) {
		if (!seen)
			bpf_map_delete_elem(&mappings_seen, &mk);
		return false;
	}
	rs->mev.hdr.type = PK_EVENT_MAPPING;
	rs->mev.hdr.size = sizeof(rs->mev);
	rs->mev.hdr.flags = f ? 0 : PK_MAPPING_VDSO;
	rs->mev.pid = mk.pid;
	rs->mev.table = table;
	rs->mev.vm_start = v->vm_start;
	rs->mev.vm_end = v->vm_end;
	rs->mev.vm_pgoff = v->vm_pgoff;
	rs->mev.dev = key->dev;
	rs->mev.ino = key->ino;
	rs->mev.path_len = 0;
	rs->mev.path[0] = '\0';
	rs->mev.build_id_len = 0;
	rs->mev.__pad2 = 0;
	if (f) {
		report_file_path(rs, f);
		report_build_id(rs, v);
	}
	if (bpf_ringbuf_output(&events, &rs->mev, sizeof(rs->mev), 0)) {
		if (!seen)
			bpf_map_delete_elem(&mappings_seen, &mk);
		count(PK_CNT_MAPPING_LOST);
		return false;
	}
	count(PK_CNT_MAPPING_EVENTS);
	if (f && !rs->mev.build_id_len) {
		struct report_mapping_seen next = { .gen = one.gen, .tries = tries ? tries + 1 : 2 };

		bpf_map_update_elem(&mappings_seen, &mk, &next, BPF_ANY);
		return next.tries > REPORT_BUILD_ID_TRIES;
	}
	if (seen)
		bpf_map_update_elem(&mappings_seen, &mk, &one, BPF_ANY);
	return true;
}

/* bpf_loop body of pk_note_mappings: report the mapping of user frame I. */
static long report_note_step(__u32 i, void *ctx)
{
	struct report_state *rs = report_state_get();
	struct pk_sample_buf *b = sample_buf_get();
	struct vma_cursor *v;
	struct pk_file_key key;
	struct file *f;
	__u64 addr, idx;
	int found;

	(void)ctx;
	if (!rs || !b)
		return 1;
	v = &rs->note;
	/* 64-bit: a 32-bit index is bounded on its subregister only, and
	 * clang's zero extension loses that before the load */
	idx = (__u64)rs->note_kbase + i;
	if (idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH)
		return 1;
	addr = b->frames[idx] - (i > 0);	/* a return address: its call */
	if (vma_holds(v, addr))
		return 0;
	if (vma_recall(v, addr))
		return 0;	/* reported when first found */
	found = vma_at(v, addr, &key, &f);
	if (found < 0)
		return 0;
	v->kind = VMA_ANON;	/* any kind: [start, end) is looked up */
	vma_remember(v);
	if (found)
		report_mapping(v, (__u64)f, &key, PK_TABLE_NONE);
	return 0;
}

/* --unwind fp (fp_mappings): report the mappings of the N user frames at
 * the scratch sample's frames[kbase...] that were not reported for this
 * process yet. */
static __always_inline void pk_note_mappings(__u32 kbase, __u32 n)
{
	struct report_state *rs = report_state_get();

	if (!rs)
		return;
	rs->note_kbase = kbase;
	vma_cursor_reset(&rs->note);
	bpf_loop(n, report_note_step, NULL, 0);
}

#endif /* PK_MAPPING_REPORT_BPF_H */
