/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A sample's user stack, copied for user space to walk on: where the DWARF
 * walk (bpf/cfi_walk.bpf.h) stopped in a file whose table the kernel does
 * not have yet, probe-read finishes the walk from the registers and bytes
 * sent with the sample once it has loaded the table
 * (tools/reading/ustack_finish.c).
 */
#ifndef PK_USTACK_COPY_BPF_H
#define PK_USTACK_COPY_BPF_H

#include "bpf/cfi_walk.bpf.h"

/*
 * The sample with the rest of its user stack: where the walk stopped in a
 * file with no table yet (PK_END_NO_TABLE), the registers of that frame and
 * up to PK_USTACK_COPY_MAX bytes of stack from its RSP up (never past the
 * end of the VMA that holds RSP), after the frames, so that user space can
 * finish the walk once it has the file's table. Assembled per CPU (under
 * busy_cpu, as the sample): one contiguous record for bpf_ringbuf_output,
 * too big for the sample scratch (which off-cpu slots hold a copy of).
 */
struct uw_copy_buf {
	/* a page more than a record holds: room for the verifier to see */
	__u8 data[sizeof(struct pk_sample_buf) + sizeof(struct pk_ustack_copy) +
		  PK_USTACK_COPY_MAX + PK_PAGE_SIZE];
};

/* Set by probe-load (--stack-copy): bytes of stack copied at most, <=
 * PK_USTACK_COPY_MAX; 0: the walk stops without a copy. */
const volatile __u32 stack_copy = PK_STACK_COPY_DEFAULT;

/* One per CPU, indexed by CPU: a per-CPU map's value may not pass 32 KiB.
 * probe-load sizes it to the possible CPUs (--unwind dwarf). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct uw_copy_buf);
} uw_copy_bufs SEC(".maps");

/* bpf_loop body: page I of pk_ustack_copy_attach's copy, from the state
 * in uw_states. A loop the verifier checks once: as a bounded loop it
 * followed every page of it, a tenth of the perf_event program's
 * verification. */
static long uw_copy_step(__u32 i, void *ctx)
{
	__u32 cpu = bpf_get_smp_processor_id(), chunk;
	struct uw_copy_buf *cb = bpf_map_lookup_elem(&uw_copy_bufs, &cpu);
	struct uw_state *st = uw_state_get();
	__u64 addr, at;

	(void)ctx;
	if (!cb || !st || st->copy_done >= st->copy_len || st->copy_done > PK_USTACK_COPY_MAX)
		return 1;
	addr = st->copy_start + st->copy_done;
	at = (__u64)st->copy_at + st->copy_done;
	chunk = PK_PAGE_SIZE - (addr & (PK_PAGE_SIZE - 1));
	/* where the chunk goes, bounded where it is used: a page of cb is
	 * left for it */
	barrier_var(at);
	if (at > sizeof(cb->data) - PK_PAGE_SIZE)
		return 1;
	if (chunk > st->copy_len - st->copy_done)
		chunk = st->copy_len - st->copy_done;
	/* <= PK_PAGE_SIZE already; the mask (after the barrier, so that the
	 * compiler keeps it) tells the verifier */
	barrier_var(chunk);
	chunk &= 2 * PK_PAGE_SIZE - 1;
	if (chunk > PK_PAGE_SIZE)
		return 1;
	if (bpf_probe_read_user(&cb->data[at], chunk, (const void *)addr))
		st->copy_holes |= 1u << (i & 31);
	st->copy_done += chunk;
	return 0;
}

/* The record to send for the sample in B (*SIZE bytes) as its walk left
 * it: B itself, or the per-CPU copy buffer with the stack copy appended
 * (*SIZE updated) when the walk stopped for want of a table. Call right
 * after the walk, on the thread it walked. */
static __always_inline const void *pk_ustack_copy_attach(const struct pk_sample_buf *b,
							 __u32 *size)
{
	__u32 cpu = bpf_get_smp_processor_id(), off = *size, len = 0, total;
	struct uw_state *st = uw_state_get();
	struct uw_copy_buf *cb = bpf_map_lookup_elem(&uw_copy_bufs, &cpu);
	struct vm_area_struct *vma;
	struct pk_ustack_copy *c;
	struct pk_sample *s;
	__u64 top;

	if (!dwarf || !stack_copy || b->s.ustack_end != PK_END_NO_TABLE || !st || !cb)
		return b;
	off = (off + 7) & ~7u;	/* frames are 8 bytes: already aligned */
	if (off > sizeof(struct pk_sample_buf) || bpf_probe_read_kernel(cb->data, off, b))
		return b;
	c = (struct pk_ustack_copy *)&cb->data[off];
	/* the frame's registers as the walk knows them (the leaf: all) */
	c->flags = st->f.exact_pc ? PK_COPY_EXACT_PC : 0;
	for (int i = 0; i < PK_UNWIND_NREGS; i++)
		c->regs[i] = st->f.regs[i];
	c->regs[PK_DWARF_RSP] = st->f.sp;
	c->regs[PK_DWARF_RIP] = st->f.pc;
	c->regs_valid = st->f.valid | PK_UNWIND_REG(PK_DWARF_RSP) | PK_UNWIND_REG(PK_DWARF_RIP);
	c->start_stack = st->start_stack;
	/* from the red zone up, within the VMA that holds RSP */
	c->start = st->f.sp;
	vma = vma_lookup(st->f.sp);
	if (vma) {
		top = BPF_CORE_READ(vma, vm_end);
		if (st->f.sp - PK_USTACK_COPY_BELOW >= BPF_CORE_READ(vma, vm_start))
			c->start = st->f.sp - PK_USTACK_COPY_BELOW;
		len = top - c->start > stack_copy ? stack_copy : top - c->start;
		if (top - c->start > stack_copy)
			c->flags |= PK_COPY_TRUNC;
	}
	/* the verifier's bounds, which the lines above keep */
	if (len > PK_USTACK_COPY_MAX)
		len = PK_USTACK_COPY_MAX;
	/* hdr.size is 16 bits: with Python frames too, the frames may leave
	 * less than PK_USTACK_COPY_MAX of it for the copy */
	if (len > 0xffff - sizeof(*c) - off) {
		len = 0xffff - sizeof(*c) - off;
		c->flags |= PK_COPY_TRUNC;
	}
	/* Page by page: a page of a big frame that was never touched cannot
	 * be read (it is not there), and one such page must not lose the
	 * rest. It is left zero and marked. */
	st->copy_start = c->start;
	st->copy_at = off + sizeof(*c);
	st->copy_len = len;
	st->copy_done = 0;
	st->copy_holes = 0;
	bpf_loop(PK_USTACK_COPY_MAX / PK_PAGE_SIZE + 1, uw_copy_step, NULL, 0);
	c->holes = st->copy_holes;
	if (c->holes)
		c->flags |= PK_COPY_HOLES;
	c->len = len;
	if (!len)
		c->flags |= PK_COPY_TRUNC;
	total = off + sizeof(*c) + len;
	if (total > PK_SAMPLE_COPY_MAX_SIZE)
		return b;
	s = (struct pk_sample *)cb->data;
	s->hdr.flags |= PK_SAMPLE_USTACK_COPY;
	s->hdr.size = total;
	s->copy_off = off;
	*size = total;
	return cb;
}

#endif /* PK_USTACK_COPY_BPF_H */
