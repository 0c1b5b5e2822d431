/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The Java (HotSpot) walk (bpf/hotspot_records.h): the DWARF walk's
 * step over a frame in a JVM's code cache, where there is no CFI and, in
 * compiled code, no frame pointer.
 *
 * The JVM is found as Python's interpreter is: a DWARF walk that passes
 * through its libjvm (PK_FILE_HOTSPOT: bpf/cfi_lookup.bpf.h notes its file
 * and load bias) makes pk_hotspot_sample() read the process's code cache
 * bounds, heaps and interpreter once into hs_procs; the walks of the
 * process's later samples step over Java frames with them. Its first
 * samples, before any walk went through libjvm, get frame-pointer steps
 * as before.
 *
 * A step (pk_hs_step), at a PC in the code cache:
 * - in the interpreter's codelets: an interpreted frame, built on the
 *   frame pointer: the Method* and the bytecode pointer are its slots
 *   (pk_hs_file frame_interp_*), the caller's return address and frame
 *   pointer above it, the caller's SP the sender sp slot (a compiled
 *   caller's frame is counted from it, an adapter having extended it);
 * - else the CodeBlob holding the PC, found through its heap's segment
 *   map (each byte a step back toward the block's first segment, which
 *   holds 0; 0xff: free), in HS_SEGMAP_STEPS reads at most: with a frame
 *   size, the return address is its top word and the saved frame pointer
 *   the one below, the caller's SP above it; before its frame complete
 *   offset (the prologue), the frame is not built: the return address is
 *   at SP. An nmethod (its name "nmethod", or "native nmethod" for a JNI
 *   wrapper) is a Java frame: its PC and compile id (the nmethod itself
 *   noted for its report, which names the PC with its scopes); a stub
 *   keeps its PC. A blob of no frame size (the call stub, the buffers of
 *   generated code) is left to a frame-pointer step.
 * A leaf frame at a RET has popped its frame; one right after its
 * prologue's PUSH RBP has the return address above the saved frame pointer.
 * Not handled yet: the rest of an nmethod's epilogue (the safepoint poll
 * between POP RBP and RET), where the step reads a wrong return address.
 */
#ifndef PK_HOTSPOT_WALK_BPF_H
#define PK_HOTSPOT_WALK_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "bpf/profile_sizes.h"
#include "bpf/cfi_walk.bpf.h"
#include "bpf/runtime_report.bpf.h"

/* libjvm files (user space writes them with their tables). Sized by
 * probe-load; 1 here so that --unwind fp costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct pk_file_key);
	__type(value, struct pk_hs_file);
} hs_files SEC(".maps");

/* Code heaps a JVM has at most: non-nmethods, profiled and non-profiled
 * nmethods with SegmentedCodeCache, else one. */
#define HS_MAX_HEAPS		3
/* Segment map reads to a blob's start at most: a byte steps back up to
 * 254 segments (of 64 or 128 bytes), so a blob of 500 KiB. */
#define HS_SEGMAP_STEPS		32
/* Frame sizes above this many words are no frame the walk trusts. */
#define HS_MAX_FRAME_WORDS	8192

struct hs_heap {
	__u64 low, high;	/* its reserved memory */
	__u64 segmap;		/* its segment map's bytes */
	__u32 log2_segment;
	__u32 __pad;
};

/* What the walk knows of a process's JVM, read once. mm as in py_proc. */
struct hs_proc {
	struct pk_file_key key;
	__s64 bias;
	__u64 mm;
	__u64 cc_low, cc_high;		/* the code cache */
	__u64 interp_low, interp_high;	/* the interpreter's codelets */
	struct hs_heap heaps[HS_MAX_HEAPS];
	__u32 nheaps;
	__u32 __pad;
	struct pk_hs_file f;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);	/* tgid */
	__type(value, struct hs_proc);
} hs_procs SEC(".maps");

/* hs_proc under assembly, per CPU (not on the stack). */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_proc);
} hs_build SEC(".maps");

/* The SIZE bytes (1, 4 or 8) at user address ADDR into *V, zero-extended;
 * false when they cannot be read. */
static __always_inline bool hs_read(__u64 addr, __u64 *v, __u32 size)
{
	*v = 0;
	return !bpf_probe_read_user(v, size & 15, (const void *)addr);
}

static __always_inline bool hs_ptr(__u64 addr, __u64 *v)
{
	return hs_read(addr, v, 8);
}

static __always_inline bool hs_int(__u64 addr, __s64 *v)
{
	__s32 i = 0;

	if (bpf_probe_read_user(&i, sizeof(i), (const void *)addr))
		return false;
	*v = i;
	return true;
}

/* The current process's JVM, valid for its address space, or NULL. */
static __always_inline struct hs_proc *hs_proc_get(__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct hs_proc *p = bpf_map_lookup_elem(&hs_procs, &tgid);

	if (!p || p->mm != (__u64)task->mm)
		return NULL;
	return p;
}

/* The heaps of the JVM whose hs_file is P->f into P: false when the code
 * cache is not set up yet (the JVM starting) or cannot be read. */
static __always_inline bool hs_read_heaps(struct hs_proc *p)
{
	const struct pk_hs_file *f = &p->f;
	__u64 heaps, data, h;
	__s64 n, log2;

	if (!hs_ptr(f->codecache_heaps + p->bias, &heaps) || !heaps ||
	    !hs_int(heaps + f->garray_len, &n) || n <= 0 ||
	    !hs_ptr(heaps + f->garray_data, &data) || !data)
		return false;
	if (n > HS_MAX_HEAPS)
		n = HS_MAX_HEAPS;
	p->nheaps = n;
	for (__s64 i = 0; i < HS_MAX_HEAPS; i++) {
		struct hs_heap *hp = &p->heaps[i];

		if (i >= n)
			break;
		if (!hs_ptr(data + 8 * i, &h) || !h ||
		    !hs_ptr(h + f->codeheap_memory + f->vspace_low, &hp->low) ||
		    !hs_ptr(h + f->codeheap_memory + f->vspace_high_boundary, &hp->high) ||
		    !hs_ptr(h + f->codeheap_segmap + f->vspace_low, &hp->segmap) ||
		    !hs_int(h + f->codeheap_log2_segment_size, &log2) ||
		    log2 < 0 || log2 > 20 || hp->low >= hp->high || !hp->segmap)
			return false;
		hp->log2_segment = log2;
	}
	return true;
}

/* Read the JVM the walk just went through (uw->hs_key at uw->hs_bias) into
 * hs_procs for TGID. */
static __always_inline void hs_learn(const struct uw_state *uw, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct pk_hs_file *f = bpf_map_lookup_elem(&hs_files, &uw->hs_key);
	__u32 zero = 0;
	struct hs_proc *p = bpf_map_lookup_elem(&hs_build, &zero);
	__u64 stubs, q;
	__s64 limit;

	if (!f || !p)
		return;
	p->key = uw->hs_key;
	p->bias = uw->hs_bias;
	p->mm = (__u64)task->mm;
	p->f = *f;
	if (!hs_ptr(f->codecache_low_bound + p->bias, &p->cc_low) ||
	    !hs_ptr(f->codecache_high_bound + p->bias, &p->cc_high) ||
	    p->cc_low >= p->cc_high ||
	    !hs_ptr(f->interp_code + p->bias, &q) || !q ||
	    !hs_ptr(q + f->stubqueue_buffer, &stubs) || !stubs ||
	    !hs_int(q + f->stubqueue_buffer_limit, &limit) || limit <= 0)
		return;
	p->interp_low = stubs;
	p->interp_high = stubs + limit;
	if (!hs_read_heaps(p))
		return;
	bpf_map_update_elem(&hs_procs, &tgid, p, BPF_ANY);
}

/* The caller of st->f is at PC, SP, its frame pointer FP. */
static __always_inline void hs_caller(struct uw_state *st, __u64 pc, __u64 sp, __u64 fp)
{
	st->f.regs[PK_DWARF_RBP] = fp;
	st->f.valid |= PK_UNWIND_REG(PK_DWARF_RBP);
	pk_unwind_regs_caller(&st->f, pc, sp, PK_UNWIND_REG(PK_DWARF_RBP));
}

/* The bytecode the interpreter runs in st->f, whose method's ConstMethod
 * is at CM, into *BCP if it is known better than the frame's slot: the
 * x86-64 template interpreter keeps its bytecode pointer in r13 and stores
 * it in the slot only before a call (of a method, of the VM), so that in
 * the frame a sample interrupted the slot is stale (the method's first
 * bytecode, or its last call). r13 is known in that frame, or in one that
 * returns to it through native code that kept or saved it; taken when it
 * points into the method's own bytecodes (a native method's entry holds
 * its caller's). */
static __always_inline void hs_live_bcp(const struct uw_state *st, const struct pk_hs_file *f,
					__u64 cm, __u64 *bcp)
{
	__u64 r13 = st->f.regs[13], code = cm + f->constmethod_size, code_size;

	if (!(st->f.valid & PK_UNWIND_REG(13)) || r13 < code || r13 - code >= 0xffff ||
	    !hs_read(cm + f->constmethod_code_size, &code_size, 2) || r13 - code >= code_size)
		return;
	*bcp = r13;
}

/* An interpreted frame at st->f (FP its frame pointer). */
static __always_inline int hs_interpreted(struct uw_state *st, const struct hs_proc *p)
{
	const struct pk_hs_file *f = &p->f;
	__u64 fp, method = 0, bcp = 0, cm = 0, next_fp, ra, sender_sp, bci = 0;

	if (!(st->f.valid & PK_UNWIND_REG(PK_DWARF_RBP)))
		return -1;
	fp = st->f.regs[PK_DWARF_RBP];
	if (!fp || (fp & 7) || fp < st->f.sp)
		return -1;
	if (!hs_ptr(fp, &next_fp) || !hs_ptr(fp + 8, &ra) ||
	    !hs_ptr(fp + 8 * (__s64)f->frame_interp_sender_sp, &sender_sp))
		return PK_END_READ_FAULT;
	hs_ptr(fp + 8 * (__s64)f->frame_interp_method, &method);
	hs_ptr(fp + 8 * (__s64)f->frame_interp_bcp, &bcp);
	/* the bytecodes follow the ConstMethod */
	if (method && hs_ptr(method + f->method_const_method, &cm) && cm) {
		hs_live_bcp(st, f, cm, &bcp);
		if (bcp >= cm + f->constmethod_size &&
		    bcp - cm - f->constmethod_size < PK_HS_INFO_MASK - 1)
			bci = bcp - cm - f->constmethod_size + 1;
	}
	st->hs_frame = pk_hs_frame(method, bci, PK_HS_INTERPRETED);
	if (!ra)
		return PK_END_COMPLETE;
	hs_caller(st, ra, sender_sp > fp ? sender_sp : fp + 16, next_fp);
	return 0;
}

/* The segment map's step for the blob search: st->hs_frame holds the
 * segment, ctx the map. */
struct hs_search {
	__u64 segmap;
	__u64 seg;
	int found;		/* 1 found, -1 free or unreadable */
};

static long hs_segmap_step(__u32 i, void *ctx)
{
	struct hs_search *s = ctx;
	__u64 b;

	(void)i;
	if (!hs_read(s->segmap + s->seg, &b, 1) || b == 0xff) {
		s->found = -1;
		return 1;
	}
	if (!b) {
		s->found = 1;
		return 1;
	}
	if (b > s->seg) {
		s->found = -1;
		return 1;
	}
	s->seg -= b;
	return 0;
}

/* "nmethod" and "native nmethod" with their NULs, as little-endian words:
 * the names HotSpot gives its nmethods' CodeBlobs. */
#define HS_NMETHOD		0x646f6874656d6eull	/* "nmethod\0" */
#define HS_NATIVE_N		0x6e2065766974616eull	/* "native n" */
#define HS_METHOD		0x646f6874656dull	/* "method\0" */
#define HS_7_BYTES		0x00ffffffffffffffull

/* Whether a CodeBlob's _name NAME is an nmethod's. */
static __always_inline bool hs_is_nmethod(__u64 name)
{
	__u64 w[2] = {};

	if (!name || bpf_probe_read_user(w, sizeof(w), (const void *)name))
		return false;
	return w[0] == HS_NMETHOD || (w[0] == HS_NATIVE_N && (w[1] & HS_7_BYTES) == HS_METHOD);
}

/* The code begin of the CodeBlob at BLOB into *CODE: a pointer (JDK 17,
 * 21) or an int from the blob (25). */
static __always_inline bool hs_code_begin(const struct pk_hs_file *f, __u64 blob, __u64 *code)
{
	__s64 off;

	if (!(f->flags & PK_HS_CODE_OFFSET))
		return hs_ptr(blob + f->codeblob_code_begin, code);
	if (!hs_int(blob + f->codeblob_code_begin, &off))
		return false;
	*code = blob + off;
	return true;
}

/* x86_64 opcodes: RET, and PUSH RBP (a compiled method's prologue builds
 * its frame with it, then SUB RSP; its epilogue pops it before RET). */
#define HS_RET		0xc3
#define HS_PUSH_RBP	0x55

/* A frame at a PC of a blob in heap H. */
static __always_inline int hs_compiled(struct uw_state *st, const struct hs_proc *p,
				       const struct hs_heap *h)
{
	const struct pk_hs_file *f = &p->f;
	struct hs_search s = { .segmap = h->segmap };
	__u64 pc = st->f.pc, blob, code, name = 0, ra, fp, sp = st->f.sp, insn;
	__s64 frame_size, complete, cid = 0;

	s.seg = (pc - h->low) >> (h->log2_segment & 31);
	bpf_loop(HS_SEGMAP_STEPS, hs_segmap_step, &s, 0);
	if (s.found != 1)
		return -1;
	blob = h->low + (s.seg << (h->log2_segment & 31)) + p->f.heapblock_size;
	if (!hs_int(blob + f->codeblob_frame_size, &frame_size) ||
	    !hs_int(blob + f->codeblob_frame_complete_offset, &complete))
		return PK_END_READ_FAULT;
	if (f->frame_complete_width == 2)	/* JDK 25's int16_t */
		complete = (__s16)complete;
	if (!hs_code_begin(f, blob, &code))
		return PK_END_READ_FAULT;
	if (frame_size <= 0 || frame_size > HS_MAX_FRAME_WORDS)
		return -1;
	hs_ptr(blob + f->codeblob_name, &name);
	if (hs_is_nmethod(name)) {
		/* its PC, named with its scopes by the reader from the
		 * nmethod's report (pk_hs_note_nmethod) */
		hs_int(blob + f->nmethod_compile_id, &cid);
		st->hs_frame = pk_hs_frame(pc, cid, PK_HS_COMPILED);
		st->hs_blob[(st->n - 1) & (PK_MAX_USTACK_DEPTH - 1)] = blob;
	}
	if ((complete > 0 && pc >= code && pc < code + complete) ||
	    (st->f.exact_pc && hs_read(pc, &insn, 1) && insn == HS_RET)) {
		/* the prologue, or at the return: no frame (yet, or any
		 * more), the return address at SP; or past the prologue's
		 * PUSH RBP, above the saved frame pointer */
		fp = st->f.regs[PK_DWARF_RBP];
		if (st->f.exact_pc && pc > code && hs_read(pc - 1, &insn, 1) && insn == HS_PUSH_RBP) {
			if (!hs_ptr(sp, &fp))
				return PK_END_READ_FAULT;
			sp += 8;
		}
		if (!hs_ptr(sp, &ra))
			return PK_END_READ_FAULT;
		if (!ra)
			return PK_END_COMPLETE;
		hs_caller(st, ra, sp + 8, fp);
		return 0;
	}
	sp += 8 * frame_size;
	if (!hs_ptr(sp - 8, &ra) || !hs_ptr(sp - 16, &fp))
		return PK_END_READ_FAULT;
	if (!ra)
		return PK_END_COMPLETE;
	hs_caller(st, ra, sp, fp);
	return 0;
}

__noinline int pk_hs_step(struct uw_state *st)
{
	const struct hs_proc *p;
	__u64 pc;

	if (!st)
		return -1;
	st->hs_frame = 0;
	if (st->rt_none & UW_RT_HOTSPOT)
		return -1;
	p = hs_proc_get(bpf_get_current_pid_tgid() >> 32);
	if (!p) {
		st->rt_none |= UW_RT_HOTSPOT;	/* not within this walk either */
		return -1;
	}
	pc = st->f.pc;
	if (pc < p->cc_low || pc >= p->cc_high)
		return -1;
	if (pc >= p->interp_low && pc < p->interp_high)
		return hs_interpreted(st, p);
	for (__u32 i = 0; i < HS_MAX_HEAPS; i++) {
		if (i >= p->nheaps)
			break;
		if (pc >= p->heaps[i].low && pc < p->heaps[i].high)
			return hs_compiled(st, p, &p->heaps[i]);
	}
	return -1;
}

/* Methods reported per process, with the stamp they had (in the reader
 * generation they went to: pk_report_stamp()). */
struct hs_method_key {
	__u32 tgid;
	__u32 __pad;
	__u64 method;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct hs_method_key);
	__type(value, __u64);
} hs_method_seen SEC(".maps");

/* A pk_hs_method_event under assembly: the holder's name at data[0], the
 * method's at data[klass_len], the source file's and the line table after
 * them; each start masked for the verifier (HS_AT_MASK, then twice and four
 * times as wide), so the buffer has room for the last at its mask's end. */
#define HS_AT_MASK	(PK_HS_SYM_MAX - 1)
#define HS_FILE_AT_MASK	(2 * PK_HS_SYM_MAX - 1)
#define HS_LINES_AT_MASK	(4 * PK_HS_SYM_MAX - 1)

struct hs_method_buf {
	struct pk_hs_method_event e;
	__u8 data[4 * PK_HS_SYM_MAX + PK_HS_LINES_MAX];
};
_Static_assert(PK_HS_LINES_MAX <= PK_HS_SYM_MAX, "the line table fits the buffer");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hs_method_buf);
} hs_method_bufs SEC(".maps");

/* The bytes of Symbol SYM into DST (room for PK_HS_SYM_MAX): their number,
 * *TRUNC when there were more; -1 when it cannot be read. */
static __always_inline long hs_read_symbol(const struct pk_hs_file *f, __u8 *dst, __u64 sym,
					   bool *trunc)
{
	__u64 len;

	*trunc = false;
	if (!sym || !hs_read(sym + f->symbol_length, &len, 2))
		return -1;
	if (len > PK_HS_SYM_MAX) {
		len = PK_HS_SYM_MAX;
		*trunc = true;
	}
	barrier_var(len);
	if (len > PK_HS_SYM_MAX)
		return -1;
	if (len && bpf_probe_read_user(dst, len, (const void *)(sym + f->symbol_body)))
		return -1;
	return len;
}

/* The source file name of the class of pool CP into MB's data at AT (its
 * SourceFile attribute, a Symbol of the pool): AT past it. */
static __always_inline __u32 hs_note_file(const struct pk_hs_file *f, struct hs_method_buf *mb,
					  __u64 cp, __u32 at, __u32 *flags)
{
	__u64 idx, sym;
	bool trunc;
	long n;

	if (f->cpool_source_file_name_index == PK_HS_NONE ||
	    !hs_read(cp + f->cpool_source_file_name_index, &idx, 2) || !idx ||
	    !hs_ptr(cp + f->cpool_size + 8 * idx, &sym))
		return at;
	n = hs_read_symbol(f, &mb->data[at], sym, &trunc);
	if (n <= 0)
		return at;
	*flags |= trunc ? PK_HS_FILE_TRUNC : 0;
	mb->e.file_len = n;
	return at + n;
}

/* The line number table of ConstMethod CM into MB's data at AT, when its
 * flags say it has one: the PK_HS_LINES_MAX bytes after its bytecodes (or
 * those to the end of their page when the next cannot be read): AT past
 * them. */
static __always_inline __u32 hs_note_lines(const struct pk_hs_file *f, struct hs_method_buf *mb,
					   __u64 cm, __u32 at, __u32 *flags)
{
	__u64 cflags, code_size, table, room;

	if (f->constmethod_flags == PK_HS_NONE || !f->linetable_flag ||
	    !hs_read(cm + f->constmethod_flags, &cflags, 4))
		return at;
	/* a u2 in JDK 17: the next bytes are ConstMethod's too */
	if (f->constmethod_flags_width == 2)
		cflags &= 0xffff;
	if (!(cflags & f->linetable_flag) ||
	    !hs_read(cm + f->constmethod_code_size, &code_size, 2))
		return at;
	table = cm + f->constmethod_size + code_size;
	room = PK_HS_LINES_MAX;
	if (bpf_probe_read_user(&mb->data[at], PK_HS_LINES_MAX, (const void *)table)) {
		room = 4096 - (table & 4095);
		if (room > PK_HS_LINES_MAX)
			room = PK_HS_LINES_MAX;
		barrier_var(room);
		if (!room || room > PK_HS_LINES_MAX ||
		    bpf_probe_read_user(&mb->data[at], room, (const void *)table))
			return at;
	}
	if (f->flags & PK_HS_LINES_U5)
		*flags |= PK_HS_LINES_NO_ZERO;
	mb->e.lines_len = room;
	return at + room;
}

/*
 * Report METHOD of process TGID (whose JVM is P) unless reported with the
 * same stamp: its holder's name (Method -> ConstMethod -> ConstantPool ->
 * pool holder Klass -> name) and its name (the pool's Symbol at the
 * ConstMethod's name index), its source file and line table. A global
 * function: verified once.
 */
__noinline int pk_hs_note_method(__u32 tgid, __u64 method)
{
	struct hs_method_key key = { .tgid = tgid, .method = method };
	const struct pk_hs_file *f;
	struct hs_method_buf *mb;
	struct hs_proc *p;
	__u64 cm, cp, holder, ksym = 0, nsym = 0, idx, stamp;
	__u32 zero = 0, flags = 0, at;
	bool trunc;
	long n;

	p = hs_proc_get(tgid);
	mb = bpf_map_lookup_elem(&hs_method_bufs, &zero);
	if (!p || !mb || !method)
		return 0;
	f = &p->f;
	if (!hs_ptr(method + f->method_const_method, &cm) || !cm ||
	    !hs_ptr(cm + f->constmethod_constants, &cp) || !cp ||
	    !hs_ptr(cp + f->cpool_pool_holder, &holder) || !holder ||
	    !hs_ptr(holder + f->klass_name, &ksym) ||
	    !hs_read(cm + f->constmethod_name_index, &idx, 2) ||
	    !hs_ptr(cp + f->cpool_size + 8 * idx, &nsym))
		return 0;	/* not now: a later sample tries again */
	stamp = (cm * 0x9e3779b97f4a7c15ull ^ ksym) * 0x9e3779b97f4a7c15ull ^ nsym;
	stamp = pk_report_stamp(stamp ^ p->mm);
	if (pk_report_seen(&hs_method_seen, &key, stamp))
		return 0;
	mb->e.pid = tgid;
	mb->e.method = method;
	mb->e.klass_len = mb->e.name_len = mb->e.file_len = mb->e.lines_len = 0;
	at = 0;
	n = hs_read_symbol(f, mb->data, ksym, &trunc);
	if (n < 0)
		return 0;
	flags |= trunc ? PK_HS_KLASS_TRUNC : 0;
	mb->e.klass_len = n;
	at = n & HS_AT_MASK;
	/* a holder of PK_HS_SYM_MAX bytes exactly: its last byte
	 * gives way for the mask */
	if (n == PK_HS_SYM_MAX) {
		mb->e.klass_len = at = HS_AT_MASK;
		flags |= PK_HS_KLASS_TRUNC;
	}
	n = hs_read_symbol(f, &mb->data[at], nsym, &trunc);
	if (n < 0)
		return 0;
	flags |= trunc ? PK_HS_NAME_TRUNC : 0;
	mb->e.name_len = n;
	at += n;
	at = hs_note_file(f, mb, cp, at & HS_FILE_AT_MASK, &flags);
	at = hs_note_lines(f, mb, cm, at & HS_LINES_AT_MASK, &flags);
	pk_report_send(mb, sizeof(mb->e) + at, sizeof(*mb), PK_EVENT_HS_METHOD, flags,
		       &hs_method_seen, &key, &stamp);
	return 0;
}

#include "bpf/hotspot_nmethod.bpf.h"

/* rt_note_frames() body: each Java frame's method, or nmethod, reported. */
static long hs_note_step(__u32 i, void *ctx)
{
	struct rt_note *nt = ctx;
	struct uw_state *uw;
	__u64 frame;

	if (!rt_note_frame(i, nt, &frame))
		return 1;
	uw = uw_state_get();
	if (!uw)
		return 1;
	if (!(frame & PK_HS_FRAME))
		return 0;
	if ((frame >> PK_HS_KIND_SHIFT & 3) == PK_HS_COMPILED)
		pk_hs_note_nmethod(nt->tgid, uw->hs_blob[i & (PK_MAX_USTACK_DEPTH - 1)],
				   frame >> PK_HS_INFO_SHIFT & PK_HS_INFO_MASK);
	else
		pk_hs_note_method(nt->tgid, frame & PK_HS_METHOD_MASK);
	return 0;
}

/* After the DWARF walk of the sample in B (user frames from BASE, N of
 * them): the process's JVM learnt, when the walk went through its libjvm
 * and it is not known yet; the methods of its Java frames reported. A
 * subprogram of its own: inlined, its stack made the programs' frames 48
 * bytes deeper, and the deepest call chain (the walk's step, a mapping
 * report, its path) 544 bytes, which 6.1's verifier refuses (512). */
static __noinline int pk_hotspot_sample(__u32 base, __u32 n)
{
	struct uw_state *uw = uw_state_get();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct hs_proc *p;

	if (!dwarf || !uw)
		return 0;
	/* neither libjvm nor a Java frame in the walk: nothing to learn or
	 * report, and no lookup for the samples of every other program */
	if (!uw->hs_seen && !(uw->rt_framed & UW_RT_HOTSPOT))
		return 0;
	p = hs_proc_get(tgid);
	if (uw->hs_seen && !(p && p->bias == uw->hs_bias && p->key.dev == uw->hs_key.dev &&
			     p->key.ino == uw->hs_key.ino))
		hs_learn(uw, tgid);
	else if (p)
		rt_note_frames(base, n, tgid, hs_note_step);
	return 0;
}

/* The process TGID runs another program (exec) or none (exit). */
static __always_inline void pk_hotspot_forget(__u32 tgid)
{
	if (dwarf)
		bpf_map_delete_elem(&hs_procs, &tgid);
}

#endif
