/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The JavaScript (V8) walk (bpf/v8_records.h): each frame the DWARF
 * walk leaves by a frame-pointer step (no CFI: JIT code, the builtins
 * embedded in node's or libnode's text) is looked at as V8 lays its frames
 * out, with V8's own numbers (its postmortem metadata, v8_files).
 *
 * The process is found as a JVM is (bpf/hotspot_walk.bpf.h): a DWARF walk
 * that passes through a file with PK_FILE_V8 (bpf/cfi_lookup.bpf.h notes
 * it) makes pk_v8_sample() keep the file's value for the process in
 * v8_procs; the walks of its later samples look at its frames. Its first
 * samples, before a walk went through the file, keep their PCs.
 *
 * A frame at frame pointer FP (pk_v8_step):
 * - the word at FP + off_fp_marker is a typed frame's marker when it is a
 *   Smi (an entry, exit, stub or builtin frame: its PC stays), else the
 *   frame's context;
 * - the word at FP + off_fp_function, a heap object whose map's instance
 *   type is a JSFunction's, is the function running; its
 *   SharedFunctionInfo (a heap object of that type) names it;
 * - at a PC in the file (the interpreter's builtins), the Smi at FP +
 *   off_fp_bytecode_offset is the bytecode offset.
 * The leaf frame of a function whose prologue has not built its frame yet
 * is its caller's: its PC is given the caller's name. But a leaf in one of
 * V8's builtins (the file's code without CFI) under a JavaScript frame,
 * with a return address at SP (or above a pushed RBP) after a call to a
 * builtin (pk_v8_frameless), is a builtin without a frame of its own: it
 * keeps its PC, and its caller is that return address, the frame
 * pointer's function above it. The interpreter's bytecode handlers, called
 * by a register (CALL reg), keep the interpreted function's name.
 *
 * A function is named once per (process, SFI) by a pk_v8_sfi_event
 * (pk_v8_note_sfi): the name is name_or_scope_info's String, or the
 * ScopeInfo's function name, which V8 does not place by a described index:
 * the first String from slot first_vars + 2 * the count of context locals
 * (OpenTelemetry's profiler looks for it the same way), among the
 * V8_SCOPE_SLOTS slots from there, however many locals come before it
 * (v8_scope_name); the file is its Script's name. Strings are read as
 * V8 lays them: sequential one-byte, a thin string's actual one, a cons
 * string of two sequential one-byte halves; others (two-byte, external,
 * sliced, deeper cons) are flagged unreadable. The line is that of the
 * function's start position, which the ScopeInfo holds (V8 12.8 on: in
 * its fixed slot scopeinfo_pos; before: the first pair of Smis after its
 * name, as the OpenTelemetry profiler finds it), counted in the Script's
 * source (v8_line: its line terminators up to the position, at most
 * PK_V8_SCAN_MAX characters, once per function): node collects source
 * positions lazily and computes no line ends unless asked, so neither a
 * frame's own position nor the Script's line_ends are there to read.
 */
#ifndef PK_V8_WALK_BPF_H
#define PK_V8_WALK_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include "bpf/probekit.h"
#include "bpf/profile_sizes.h"
#include "bpf/cfi_walk.bpf.h"
#include "bpf/runtime_report.bpf.h"

/* V8 files (user space writes them with their tables). Sized by
 * probe-load; 1 here so that --unwind fp costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct pk_file_key);
	__type(value, struct pk_v8_file);
} v8_files SEC(".maps");

/* A process's V8. mm as in hs_proc: a process that exec'd is another. */
struct v8_proc {
	struct pk_file_key key;
	__u64 mm;
	struct pk_v8_file f;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);	/* tgid */
	__type(value, struct v8_proc);
} v8_procs SEC(".maps");

/* The current process's V8, valid for its address space, or NULL. */
static __always_inline struct v8_proc *v8_proc_get(__u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct v8_proc *p = bpf_map_lookup_elem(&v8_procs, &tgid);

	if (!p || p->mm != (__u64)task->mm)
		return NULL;
	return p;
}

static __always_inline bool v8_word(__u64 addr, __u64 *v)
{
	*v = 0;
	return !bpf_probe_read_user(v, sizeof(*v), (const void *)addr);
}

static __always_inline bool v8_is_smi(const struct pk_v8_file *f, __u64 w)
{
	return (w & f->smi_tag_mask) == f->smi_tag;
}

static __always_inline bool v8_is_object(const struct pk_v8_file *f, __u64 w)
{
	return w && (w & f->heap_object_tag_mask) == f->heap_object_tag;
}

/* The word at member OFF of heap object OBJ (tagged). */
static __always_inline bool v8_member(const struct pk_v8_file *f, __u64 obj, __u32 off, __u64 *v)
{
	return v8_word(obj - f->heap_object_tag + off, v);
}

/* The instance type of heap object OBJ (tagged), or 0 (no type is). */
static __always_inline __u32 v8_type(const struct pk_v8_file *f, __u64 obj)
{
	__u64 map;
	__u16 t = 0;

	if (!v8_is_object(f, obj) || !v8_member(f, obj, f->heap_object_map, &map) ||
	    !v8_is_object(f, map) ||
	    bpf_probe_read_user(&t, sizeof(t),
				(const void *)(map - f->heap_object_tag + f->map_instance_type)))
		return 0;
	return t;
}

__noinline int pk_v8_step(struct uw_state *st, int kind)
{
	const struct pk_v8_file *f;
	struct v8_proc *p;
	__u64 fp, marker, fn, sfi, off, info = 0;
	__u32 t;

	if (!st)
		return 0;
	st->v8_frame = 0;
	if (!(st->f.valid & PK_UNWIND_REG(PK_DWARF_RBP)))
		return 0;
	if (st->rt_none & UW_RT_V8)
		return 0;
	p = v8_proc_get(bpf_get_current_pid_tgid() >> 32);
	if (!p) {
		st->rt_none |= UW_RT_V8;	/* not within this walk either */
		return 0;
	}
	fp = st->f.regs[PK_DWARF_RBP];
	if (!fp || (fp & 7) || fp < st->f.sp)
		return 0;
	f = &p->f;
	if (!v8_word(fp + f->off_fp_marker, &marker) || v8_is_smi(f, marker) ||
	    !v8_word(fp + f->off_fp_function, &fn))
		return 0;
	t = v8_type(f, fn);
	if (t < f->type_js_function_first || t > f->type_js_function_last || !t)
		return 0;
	if (!v8_member(f, fn, f->jsfunction_shared, &sfi) ||
	    v8_type(f, sfi) != f->type_shared_function_info)
		return 0;
	if (kind == PK_V8_INTERPRETED && v8_word(fp + f->off_fp_bytecode_offset, &off) &&
	    v8_is_smi(f, off) && (__s64)off > 0)
		info = ((__s64)off >> (f->smi_shift & 63)) + 1;
	st->v8_frame = pk_v8_frame(sfi, info, kind);
	return 1;
}

/* The bytes before a return address of a call V8 makes to a builtin:
 * CALL rel32 (E8), CALL [r13 + disp32] (41 FF 95: the isolate's builtin
 * table, off the root register), or CALL [base + index * 8 + disp32]
 * ([REX] FF 94 SIB: a table indexed, as the typed arrays' element
 * accessors are called). Not CALL reg, by which the interpreter's entry
 * calls the bytecode handlers, which run in its frame (their PC is the
 * interpreted function's). */
#define V8_CALL_LEN		8

static __always_inline bool v8_after_call(__u64 ra)
{
	__u8 c[V8_CALL_LEN];

	if (ra < V8_CALL_LEN || bpf_probe_read_user(c, sizeof(c), (const void *)(ra - V8_CALL_LEN)))
		return false;
	return c[3] == 0xe8 || (c[1] == 0x41 && c[2] == 0xff && c[3] == 0x95) ||
	       (c[1] == 0xff && c[2] == 0x94);
}

__noinline int pk_v8_frameless(struct uw_state *st)
{
	__u64 at, w = 0, ra = 0;

	if (!st || !(st->f.valid & PK_UNWIND_REG(PK_DWARF_RBP)))
		return 0;
	at = st->f.sp;
	if (!v8_word(at, &w))
		return 0;
	/* right after a prologue's PUSH RBP: the return address above it */
	if (w == st->f.regs[PK_DWARF_RBP]) {
		at += 8;
		if (!v8_word(at, &w))
			return 0;
	}
	ra = w;
	if (!v8_after_call(ra))
		return 0;
	st->f.pc = st->f.regs[PK_DWARF_RIP] = ra;
	st->f.sp = st->f.regs[PK_DWARF_RSP] = at + 8;
	st->f.exact_pc = 0;
	return 1;
}

/* Functions reported per process, with the stamp they had (in the reader
 * generation they went to: pk_report_stamp()). */
struct v8_sfi_key {
	__u32 tgid;
	__u32 __pad;
	__u64 sfi;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct v8_sfi_key);
	__type(value, __u64);
} v8_sfi_seen SEC(".maps");

/* ScopeInfo slots looked at for the function's name, from the end of
 * its variables. */
#define V8_SCOPE_SLOTS	16
/* From this many context locals, V8 keeps their names in a hash table (a
 * slot) rather than inline (kScopeInfoMaxInlinedLocalNamesSize, 75 in
 * V8 11.3 and 13.6: undescribed; v8_walk's line edges check it on the
 * host's node 20, a module of 80 top-level names its functions use, and
 * it was checked by hand on sid's node 24). */
#define V8_SCOPE_HASHED_LOCALS	75
/* More context locals than this: no ScopeInfo the walk believes. */
#define V8_SCOPE_MAX_LOCALS	65536
/* Where a string's bytes go in the event's data: below V8_AT_MASK + 1,
 * with room for PK_V8_FILE_MAX more. */
#define V8_AT_MASK	511
/* Characters of a script's source read at once to count its lines. */
#define V8_SCAN_CHUNK	64

/* A pk_v8_sfi_event under assembly: the name at data[0], the script's
 * name after it; and the ScopeInfo's slots. */
struct v8_sfi_buf {
	struct pk_v8_sfi_event e;
	__u8 data[V8_AT_MASK + 1 + PK_V8_FILE_MAX];
	__u64 slots[V8_SCOPE_SLOTS];
	__u64 scan[V8_SCAN_CHUNK / 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct v8_sfi_buf);
} v8_sfi_bufs SEC(".maps");

/* The characters of sequential one-byte string STR (of type T) into
 * B->data at AT, MAX at most: their number (*TRUNC when there were
 * more), -1 when it is not such a string or cannot be read. */
static __always_inline long v8_seq(const struct pk_v8_file *f, struct v8_sfi_buf *b, __u32 at,
				   __u32 max, __u64 str, __u32 t, bool *trunc)
{
	__s32 len = 0;

	if ((t & f->string_repr_mask) != f->seq_string_tag ||
	    (t & f->string_encoding_mask) != f->one_byte_string_tag ||
	    bpf_probe_read_user(&len, sizeof(len),
				(const void *)(str - f->heap_object_tag + f->string_length)) ||
	    len < 0)
		return -1;
	if ((__u32)len > max) {
		len = max;
		*trunc = true;
	}
	at &= V8_AT_MASK;
	barrier_var(len);
	if (len > PK_V8_FILE_MAX || len < 0)
		return -1;
	if (len && bpf_probe_read_user(&b->data[at], len,
				       (const void *)(str - f->heap_object_tag +
						      f->seq_one_byte_chars)))
		return -1;
	return len;
}

/* String STR into B->data at AT, MAX bytes at most (MAX <= PK_V8_FILE_MAX):
 * their number (*TRUNC when there were more), -1 when the walk does not
 * read such a string. */
static __always_inline long v8_string(const struct pk_v8_file *f, struct v8_sfi_buf *b, __u32 at,
				      __u32 max, __u64 str, bool *trunc)
{
	__u64 first, second;
	__u32 t = v8_type(f, str);
	long n, m;

	*trunc = false;
	if (!t || t >= f->first_nonstring_type)
		return -1;
	if ((t & f->string_repr_mask) == f->thin_string_tag) {
		if (!v8_member(f, str, f->thin_actual, &str))
			return -1;
		t = v8_type(f, str);
		if (!t || t >= f->first_nonstring_type)
			return -1;
	}
	if ((t & f->string_repr_mask) != f->cons_string_tag)
		return v8_seq(f, b, at, max, str, t, trunc);
	if (!v8_member(f, str, f->cons_first, &first) ||
	    !v8_member(f, str, f->cons_second, &second))
		return -1;
	n = v8_seq(f, b, at, max, first, v8_type(f, first), trunc);
	if (n < 0 || *trunc)
		return n;
	m = v8_seq(f, b, at + n, max - n, second, v8_type(f, second), trunc);
	return m < 0 ? -1 : n + m;
}

/* ScopeInfo slot W as a source position: a Smi (its upper half), or a
 * raw int; -1 when it is neither. */
static __always_inline long v8_scope_int(const struct pk_v8_file *f, __u64 w)
{
	if (v8_is_smi(f, w) && !(w & 0xffffffffull))
		return (__s64)w >> (f->smi_shift & 63);
	return w < 0x80000000ull ? (long)w : -1;
}

/* The function's start position as V8 11 lays out its position info
 * past the function's names: the first pair of Smis in B->slots (the
 * ScopeInfo's slots from its variables' end) after slot NAME_AT (the
 * name's, or -1), start below end; -1 when none is found. */
static __always_inline long v8_scope_pos(const struct pk_v8_file *f, struct v8_sfi_buf *b,
					 __s32 name_at)
{
	for (__s32 i = 1; i < V8_SCOPE_SLOTS; i++) {
		__u64 a = b->slots[i - 1], z = b->slots[i];

		if (i - 1 <= name_at || !v8_is_smi(f, a) || !v8_is_smi(f, z) ||
		    (a & 0xffffffffull) || (z & 0xffffffffull))
			continue;
		if ((__s64)a >= 0 && (__s64)a < (__s64)z)
			return (__s64)a >> (f->smi_shift & 63);
	}
	return -1;
}

/* The ScopeInfo SI (tagged)'s slot AT and the V8_SCOPE_SLOTS - 1 after it
 * into B->slots: false when they cannot be read. */
static __always_inline bool v8_scope_slots(const struct pk_v8_file *f, struct v8_sfi_buf *b,
					   __u64 si, __u64 at)
{
	return !bpf_probe_read_user(b->slots, sizeof(b->slots),
				    (const void *)(si - f->heap_object_tag + f->heap_object_map + 8 +
						   8 * at));
}

/* The function's name in ScopeInfo SI (tagged): the first string from
 * the end of its variables (slot first_vars + 2 * its context locals,
 * names then infos; first_vars + 1 + the count when V8 keeps the names in
 * a hash table, from V8_SCOPE_HASHED_LOCALS of them), into B->data[0];
 * as v8_string(), -1 also when no slot looked at is a string. Its start
 * position into *POS (-1: not found): the fixed slot scopeinfo_pos (V8
 * 12.8 on), else v8_scope_pos() after the name. The variables' end is
 * read apart from the fixed part: a function with many context locals
 * (node's CommonJS wrapper of a module, which holds the module's
 * top-level names) has its name past the first V8_SCOPE_SLOTS slots. */
static __always_inline long v8_scope_name(const struct pk_v8_file *f, struct v8_sfi_buf *b,
					  __u64 si, bool *trunc, long *pos)
{
	__u64 locals, from;

	*trunc = false;
	*pos = -1;
	if (!v8_scope_slots(f, b, si, 0))
		return -1;
	locals = b->slots[f->scopeinfo_ncontextlocals & (V8_SCOPE_SLOTS - 1)];
	if (!v8_is_smi(f, locals))
		return -1;
	locals = (__s64)locals >> (f->smi_shift & 63);
	if (locals > V8_SCOPE_MAX_LOCALS)
		return -1;
	if (f->scopeinfo_pos)
		*pos = v8_scope_int(f, b->slots[f->scopeinfo_pos & (V8_SCOPE_SLOTS - 1)]);
	from = f->scopeinfo_first_vars +
	       (locals >= V8_SCOPE_HASHED_LOCALS ? 1 + locals : 2 * locals);
	if (!v8_scope_slots(f, b, si, from))
		return -1;
	for (__s32 i = 0; i < V8_SCOPE_SLOTS; i++) {
		__u64 w = b->slots[i];
		__u32 t = v8_is_object(f, w) ? v8_type(f, w) : 0;

		if (t && t < f->first_nonstring_type) {
			if (!f->scopeinfo_pos)
				*pos = v8_scope_pos(f, b, i);
			return v8_string(f, b, 0, PK_V8_NAME_MAX, w, trunc);
		}
	}
	if (!f->scopeinfo_pos)
		*pos = v8_scope_pos(f, b, -1);
	return -1;
}

/* bpf_loop body counting the line terminators of a script's source as
 * V8 does (String::CalculateLineEnds: \n, \r, \r\n once), a chunk of
 * V8_SCAN_CHUNK characters a call, eight at a time in a word and without
 * a branch per character: a loop over characters with one cost 3 s of
 * verification at every load (0.5 s without it). */
struct v8_scan {
	__u64 addr;	/* the next character */
	__u32 left;	/* characters to count */
	__u32 lines;	/* terminators counted */
	__u64 cr;	/* 1: the character before addr is \r */
	__u8 failed;
};

#define V8_ONES		0x0101010101010101ull
#define V8_LOW7		0x7f7f7f7f7f7f7f7full

/* The top bit of each byte of W that equals C, exactly (no borrow from
 * one byte into the next). */
static __always_inline __u64 v8_bytes_eq(__u64 w, __u64 c)
{
	__u64 x = w ^ (c * V8_ONES);

	return ~(((x & V8_LOW7) + V8_LOW7) | x | V8_LOW7);
}

/* How many bytes a v8_bytes_eq() mask marks. */
static __always_inline __u32 v8_mask_count(__u64 m)
{
	return ((m >> 7) * V8_ONES) >> 56;
}

static long v8_scan_step(__u32 i, void *ctx)
{
	struct v8_sfi_buf *b;
	struct v8_scan *s = ctx;
	__u32 zero = 0, n = s->left;
	__u64 lf, cr;

	(void)i;
	b = bpf_map_lookup_elem(&v8_sfi_bufs, &zero);
	if (!b || !n)
		return 1;
	if (n > V8_SCAN_CHUNK)
		n = V8_SCAN_CHUNK;
	barrier_var(n);
	/* a last chunk's tail reads as NULs, which count as nothing */
	__builtin_memset(b->scan, 0, sizeof(b->scan));
	if (!n || n > V8_SCAN_CHUNK || bpf_probe_read_user(b->scan, n, (const void *)s->addr)) {
		s->failed = 1;
		return 1;
	}
	for (__u32 k = 0; k < V8_SCAN_CHUNK / 8; k++) {
		lf = v8_bytes_eq(b->scan[k], '\n');
		cr = v8_bytes_eq(b->scan[k], '\r');
		/* each \n and \r, less the \n of each \r\n (little-endian:
		 * the next character is the next byte up) */
		s->lines += v8_mask_count(lf) + v8_mask_count(cr) - v8_mask_count((cr << 8) & lf) -
			    (s->cr & (lf >> 7) & 1);
		s->cr = cr >> 63;
	}
	s->addr += n;
	s->left -= n;
	return 0;
}

/* The line (1: the first) of position POS in SCRIPT's source, or 0: a
 * source the walk does not read (not sequential one-byte), POS past it
 * or past PK_V8_SCAN_MAX. */
static __always_inline __u32 v8_line(const struct pk_v8_file *f, __u64 script, long pos)
{
	struct v8_scan s = {};
	__u64 src;
	__s32 len = 0;
	__u32 t;

	if (pos < 0 || pos > PK_V8_SCAN_MAX || !f->script_source ||
	    !v8_member(f, script, f->script_source, &src))
		return 0;
	t = v8_type(f, src);
	if (t && t < f->first_nonstring_type && (t & f->string_repr_mask) == f->thin_string_tag) {
		if (!v8_member(f, src, f->thin_actual, &src))
			return 0;
		t = v8_type(f, src);
	}
	if (!t || t >= f->first_nonstring_type ||
	    (t & f->string_repr_mask) != f->seq_string_tag ||
	    (t & f->string_encoding_mask) != f->one_byte_string_tag ||
	    bpf_probe_read_user(&len, sizeof(len),
				(const void *)(src - f->heap_object_tag + f->string_length)) ||
	    len < pos)
		return 0;
	s.addr = src - f->heap_object_tag + f->seq_one_byte_chars;
	s.left = pos;
	bpf_loop(PK_V8_SCAN_MAX / V8_SCAN_CHUNK + 1, v8_scan_step, &s, 0);
	return s.failed || s.left ? 0 : s.lines + 1;
}

/* How many times a function's report goes out without the line its
 * position should give, before it is left so (pk_report_due()). */
#define V8_LINE_TRIES	4

/*
 * Report SFI (tagged) of process TGID unless reported with the same stamp
 * (its name_or_scope_info and script pointers): its name, its script's
 * name and the line it starts at. A global function: verified once.
 */
__noinline int pk_v8_note_sfi(__u32 tgid, __u64 sfi)
{
	struct v8_sfi_key key = { .tgid = tgid, .sfi = sfi };
	const struct pk_v8_file *f;
	struct v8_sfi_buf *b;
	struct v8_proc *p;
	__u64 nos = 0, script = 0, sname = 0, stamp, kept;
	__u32 zero = 0, flags = 0, t, at, tries;
	bool trunc;
	long n, pos = -1;

	p = v8_proc_get(tgid);
	b = bpf_map_lookup_elem(&v8_sfi_bufs, &zero);
	if (!p || !b || !sfi)
		return 0;
	f = &p->f;
	v8_member(f, sfi, f->sfi_name_or_scope_info, &nos);
	v8_member(f, sfi, f->sfi_script, &script);
	stamp = (nos * 0x9e3779b97f4a7c15ull ^ script) * 0x9e3779b97f4a7c15ull;
	stamp = pk_report_stamp(stamp ^ p->mm);
	if (!pk_report_due(&v8_sfi_seen, &key, stamp, V8_LINE_TRIES, &tries))
		return 0;
	b->e.pid = tgid;
	b->e.sfi = sfi;
	t = v8_type(f, nos);
	if (t && t == f->type_scope_info)
		n = v8_scope_name(f, b, nos, &trunc, &pos);
	else
		n = v8_string(f, b, 0, PK_V8_NAME_MAX, nos, &trunc);
	if (n < 0) {
		flags |= PK_V8_NAME_UNREADABLE;
		n = 0;
	} else if (trunc) {
		flags |= PK_V8_NAME_TRUNC;
	}
	at = n & V8_AT_MASK;
	b->e.name_len = at;
	n = -1;
	if (v8_type(f, script) == f->type_script && v8_member(f, script, f->script_name, &sname))
		n = v8_string(f, b, at, PK_V8_FILE_MAX, sname, &trunc);
	if (n < 0) {
		flags |= PK_V8_FILE_UNREADABLE;
		n = 0;
	} else if (trunc) {
		flags |= PK_V8_FILE_TRUNC;
	}
	b->e.file_len = n;
	b->e.line = v8_type(f, script) == f->type_script ? v8_line(f, script, pos) : 0;
	/* a position in a Script, and yet no line: its source was not as
	 * it should be at that moment (the GC moving it, say): sent again */
	kept = stamp;
	if (!b->e.line && pos >= 0 && v8_type(f, script) == f->type_script)
		kept = stamp + 2ull * (tries + 1);
	pk_report_send(b, sizeof(b->e) + at + (n & V8_AT_MASK), sizeof(b->e) + sizeof(b->data),
		       PK_EVENT_V8_SFI, flags, &v8_sfi_seen, &key, &kept);
	return 0;
}

/* rt_note_frames() body: each JavaScript frame's function reported. */
static long v8_note_step(__u32 i, void *ctx)
{
	struct rt_note *nt = ctx;
	__u64 frame;

	if (!rt_note_frame(i, nt, &frame))
		return 1;
	if (pk_v8_is_frame(frame))
		pk_v8_note_sfi(nt->tgid, frame & PK_V8_SFI_MASK);
	return 0;
}

/* After the DWARF walk of the sample in B (user frames from BASE, N of
 * them): the process's V8 kept, when the walk went through its file and
 * it is not known yet; the functions of its JavaScript frames reported.
 * A subprogram of its own, as pk_hotspot_sample, to keep the programs'
 * frames small. */
static __noinline int pk_v8_sample(__u32 base, __u32 n)
{
	struct uw_state *uw = uw_state_get();
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *task;
	struct pk_v8_file *f;
	struct v8_proc *p;

	if (!dwarf || !uw)
		return 0;
	/* neither V8's file nor a JavaScript frame in the walk: nothing to
	 * learn or report */
	if (!uw->v8_seen && !(uw->rt_framed & UW_RT_V8))
		return 0;
	p = v8_proc_get(tgid);
	if (uw->v8_seen && !(p && p->key.dev == uw->v8_key.dev && p->key.ino == uw->v8_key.ino)) {
		f = bpf_map_lookup_elem(&v8_files, &uw->v8_key);
		if (!f)
			return 0;
		task = bpf_get_current_task_btf();
		{
			struct v8_proc np = { .key = uw->v8_key, .mm = (__u64)task->mm, .f = *f };

			bpf_map_update_elem(&v8_procs, &tgid, &np, BPF_ANY);
		}
	} else if (p) {
		rt_note_frames(base, n, tgid, v8_note_step);
	}
	return 0;
}

/* The process TGID runs another program (exec) or none (exit). */
static __always_inline void pk_v8_forget(__u32 tgid)
{
	if (dwarf)
		bpf_map_delete_elem(&v8_procs, &tgid);
}

#endif
