/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel fields whose type changed between the kernels probekit runs on
 * (6.1 to today), each variant written out and chosen by CO-RE against the
 * running kernel's BTF, never by version. A field that only moved, or went
 * into an anonymous union under the same name (vm_area_struct.vm_flags in
 * 6.3, file.f_path and dentry.d_name later), needs nothing: CO-RE finds it
 * by name. tests/unit/bpf/test_core.c loads each reader on the matrix's
 * kernels (make check-kernels), on both sides of each change.
 */
#ifndef PK_KERNEL_FIELDS_BPF_H
#define PK_KERNEL_FIELDS_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* The privilege level in CS: 3 in user mode (user_mode(),
 * arch/x86/include/asm/ptrace.h; SEGMENT_RPL_MASK). */
#define PK_SEGMENT_RPL_MASK	3

/* pt_regs before FRED (Linux 6.9): cs was an unsigned long. Since, it is a
 * u16 in a union with csx (u64) and fred_cs. */
struct pt_regs___pre_fred {
	unsigned long cs;
} __attribute__((preserve_access_index));

/* Whether REGS were saved in user mode. The selector is the low 16 bits in
 * both layouts; read as wide as this kernel's field is. */
static __always_inline bool pk_regs_user_mode(const struct pt_regs *regs)
{
	__u64 cs = 0;

	if (bpf_core_field_exists(regs->csx)) {
		bpf_core_read(&cs, sizeof(regs->cs), &regs->cs);
	} else {
		const struct pt_regs___pre_fred *old = (const void *)regs;

		bpf_core_read(&cs, sizeof(old->cs), &old->cs);
	}
	return cs & PK_SEGMENT_RPL_MASK;
}

/*
 * The registers a perf event's program was run for: those the event
 * interrupted (user mode's, or the kernel's). Not &ctx->regs: the verifier
 * rewrites loads of the context's fields, but the context pointer itself
 * is the kernel's struct bpf_perf_event_data_kern, which points to them,
 * and a helper given &ctx->regs would read that struct instead.
 */
static __always_inline const struct pt_regs *pk_perf_event_regs(struct bpf_perf_event_data *ctx)
{
	struct bpf_perf_event_data_kern *kctx = (void *)ctx;

	return (const struct pt_regs *)BPF_CORE_READ(kctx, regs);
}

/*
 * FMODE_BACKING (include/linux/fs.h, Linux 6.8+): the file is the `file` of
 * a struct backing_file (fs/file_table.c), which overlayfs and FUSE
 * passthrough, its only users, map in place of their own file
 * (backing_file_mmap(), fs/backing-file.c): its f_path and f_inode are the
 * layer's real file, its user_path the one the process opened. A #define,
 * not in BTF, and it moved: (1 << 25) from 6.8 to 6.13, (1 << 24) since
 * "fsnotify: opt-in for permission events at file open time" (6.14), which
 * a 6.12 may carry as a backport: Debian's 6.12.117 ORs 0x21000000
 * (FMODE_BACKING | FMODE_NOACCOUNT) into f_mode in
 * alloc_empty_backing_file() without the rest of 6.14's series, so no type
 * in BTF tells the two bits apart. The other bit is
 * FMODE_DIO_PARALLEL_WRITE (6.8 to 6.10) or FMODE_NONOTIFY (since), both
 * on plain files too. So a file with either bit is taken for a backing
 * file only when its user_path holds a dentry of overlayfs or FUSE, by
 * their magics (include/uapi/linux/magic.h): past a plain file lies
 * another object, which would have to hold a pointer to such a dentry
 * where user_path is.
 */
#define PK_FMODE_BACKING_ANY		((1u << 25) | (1u << 24))
#define PK_OVERLAYFS_SUPER_MAGIC	0x794c7630
#define PK_FUSE_SUPER_MAGIC		0x65735546

/* The struct backing_file that holds F, if F is one (container_of). */
static __always_inline const struct backing_file *pk_backing_file(const struct file *f)
{
	return (const void *)((const char *)f - bpf_core_field_offset(struct backing_file, file));
}

/* Whether F is a backing file (see above). Before 6.8 (no struct
 * backing_file in BTF), never. */
static __always_inline bool pk_file_is_backing(const struct file *f)
{
	unsigned long magic;

	if (!bpf_core_type_exists(struct backing_file) ||
	    !(BPF_CORE_READ(f, f_mode) & PK_FMODE_BACKING_ANY))
		return false;
	magic = BPF_CORE_READ(pk_backing_file(f), user_path.dentry, d_sb, s_magic);
	return magic == PK_OVERLAYFS_SUPER_MAGIC || magic == PK_FUSE_SUPER_MAGIC;
}

/* The path the process opened F by, as file_user_path() has it
 * (include/linux/fs.h): the one /proc/PID/map_files shows. */
static __always_inline const struct path *pk_file_user_path(const struct file *f)
{
	if (pk_file_is_backing(f))
		return &pk_backing_file(f)->user_path;
	return &f->f_path;
}

/* F's inode as the process sees it, file_user_inode() (include/linux/fs.h):
 * the device and inode /proc/PID/maps shows (fs/proc/task_mmu.c, since
 * 6.8 as backing files). */
static __always_inline struct inode *pk_file_user_inode(const struct file *f)
{
	if (pk_file_is_backing(f))
		return BPF_CORE_READ(pk_backing_file(f), user_path.dentry, d_inode);
	return BPF_CORE_READ(f, f_inode);
}

/* mm_struct since Linux 6.13: mm_lock_seq a seqcount, odd while mmap_lock
 * is held for writing, moved on by every write unlock. Before, an int that
 * counts the unlocks only (no odd state to tell a write in progress by),
 * and no field at all without CONFIG_PER_VMA_LOCK. */
struct mm_struct___seqcount {
	seqcount_t mm_lock_seq;
} __attribute__((preserve_access_index));

/* MM's VMA sequence into *SEQ: true when this kernel has the seqcount and
 * no write of MM's VMAs is under way, so that an equal count later means
 * that none was made in between. */
static __always_inline bool pk_mm_vma_seq(struct mm_struct *mm, __u32 *seq)
{
	struct mm_struct___seqcount *m = (void *)mm;

	if (!bpf_core_field_exists(m->mm_lock_seq) || !mm ||
	    BPF_CORE_READ_INTO(seq, m, mm_lock_seq.sequence))
		return false;
	return !(*seq & 1);
}

#endif /* PK_KERNEL_FIELDS_BPF_H */
