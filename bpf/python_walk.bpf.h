/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The Python walk (bpf/python_records.h): after the DWARF walk of a
 * sample, the Python frames of the sampled thread, from the interpreter's
 * own structures, appended after the native user frames; and a
 * pk_py_code_event for each code object a process's samples meet first.
 *
 * The interpreter is found by the DWARF walk (a frame in a file with
 * PK_FILE_PYTHON: bpf/cfi_lookup.bpf.h notes its file and load bias), or for
 * a sample whose walk did not reach it (cut short, an off-cpu stack in a
 * library without a table yet) by py_procs, which remembers the process's
 * from an earlier sample.
 *
 * Cost: with a thread's PyThreadState cached (py_threads), two reads to
 * reach its current frame (one from 3.13), then two per frame (the frame's
 * header, the code object's fixed part), one map lookup per frame for
 * py_code_seen; from 3.13 one read more per call of the eval loop (its
 * entry frame, in the chain).
 *
 * The versions differ by data only (struct pk_py_offsets: offsets, flags,
 * the entry frames' owner), not by walks of their own.
 */
#ifndef PK_PYTHON_WALK_BPF_H
#define PK_PYTHON_WALK_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include "bpf/probekit.h"
#include "bpf/profile_sizes.h"
#include "bpf/sample.bpf.h"
#include "bpf/cfi_walk.bpf.h"
#include "bpf/runtime_report.bpf.h"

/* Set by probe-load: walk Python frames (not --no-python). With `dwarf`
 * only: the interpreter is found by the DWARF walk. */
const volatile bool python = false;

/* Interpreter files (user space writes them with their tables). Sizes are
 * probe-load's; 1 here so that --unwind fp costs nothing. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, struct pk_file_key);
	__type(value, struct pk_py_file);
} py_files SEC(".maps");

/* The interpreter a process runs, as a walk found it. mm: the process's
 * address space then; an exec (or a tgid used again) has another, so the
 * entry is not trusted past it even where no exit or exec removed it. */
struct py_proc {
	struct pk_file_key key;
	__s64 bias;
	__u64 mm;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);	/* tgid */
	__type(value, struct py_proc);
} py_procs SEC(".maps");

/* A thread's PyThreadState, found once by the thread list and checked at
 * each use by its thread_id (py_find_tstate). Key: tgid << 32 | tid. */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, __u64);
} py_threads SEC(".maps");

/* Code objects reported per process, with the stamp they had (in the
 * reader generation they went to: pk_report_stamp()). */
struct py_code_key {
	__u32 tgid;
	__u32 __pad;
	__u64 code;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1);
	__type(key, struct py_code_key);
	__type(value, __u64);
} py_code_seen SEC(".maps");

/* Bytes of a frame's header or a code object's fixed part read at most
 * (pk_py_offsets frame_size, code_size); a field's offset is masked to it. */
#define PY_BUF		256

/* The walk's state, per CPU (as the sample: under busy_cpu). */
struct py_state {
	struct pk_py_offsets off;
	struct py_proc proc;	/* the interpreter of the walk */
	__u32 version;
	__u32 tgid;
	__u32 base;		/* Python frames start at frames[base] */
	__u32 n;		/* Python frames written */
	__u64 frame;		/* the next frame to read; 0: the chain ended */
	__u8 end;		/* enum pk_py_end once stopped */
	__u8 walked;		/* an interpreter was found: end says how */
	__u8 wrote;		/* the frame before st->frame was written as
				 * frames[base + n - 1] (not skipped) */
	__u8 __pad[5];
	__u64 find_ts, find_self;	/* py_find_tstate's search */
	__u32 find_found;
	__u32 __pad2;
	__u8 hdr[PY_BUF + 8];	/* the frame's header */
	__u8 code[PY_BUF + 8];	/* its code object's fixed part */
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_state);
} py_states SEC(".maps");

/* A pk_py_code_event under assembly: its strings go at data[] in a row,
 * each within its maximum, at offsets masked to PY_AT_MASK for the
 * verifier (name and file end by PK_PY_NAME_MAX + PK_PY_FILE_MAX). */
#define PY_AT_MASK	511
#define PY_DATA_MAX	(PY_AT_MASK + 1 + PK_PY_LINETABLE_MAX)

struct py_code_buf {
	struct pk_py_code_event e;
	__u8 data[PY_DATA_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct py_code_buf);
} py_code_bufs SEC(".maps");

static __always_inline struct py_state *py_state_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&py_states, &zero);
}

/* A field of a struct copied into BUF (py_state.hdr, .code), at OFF. */
#define PY_U64(buf, off)	(*(__u64 *)&(buf)[(off) & (PY_BUF - 1)])
#define PY_S32(buf, off)	(*(__s32 *)&(buf)[(off) & (PY_BUF - 1)])
#define PY_U8(buf, off)		((buf)[(off) & (PY_BUF - 1)])

/* The pointer at user address ADDR, or 0. */
static __always_inline __u64 py_read_ptr(__u64 addr)
{
	__u64 v;

	if (bpf_probe_read_user(&v, sizeof(v), (const void *)addr))
		return 0;
	return v;
}

/* PyASCIIObject.state's bits (Include/cpython/unicodeobject.h, 3.11 to
 * 3.14). */
#define PY_STATE_KIND(s)	(((s) >> 2) & 7)
#define PY_STATE_COMPACT	(1u << 5)
#define PY_STATE_ASCII		(1u << 6)
#define PY_KIND_1BYTE		1

/*
 * The str object OBJ's characters into DST (room for MAX), the last MAX of
 * them when KEEP_END, else the first: their number, *TRUNC when there were
 * more, *LATIN1 when they are Latin-1 rather than ASCII; -1 when they are
 * not one byte each (or cannot be read).
 */
static __always_inline long py_read_str(const struct py_state *st, __u8 *dst, __u32 max,
					__u64 obj, bool keep_end, bool *trunc, bool *latin1)
{
	__u64 len, data;
	__u32 state;

	*trunc = *latin1 = false;
	if (!obj || bpf_probe_read_user(&len, sizeof(len), (const void *)(obj + st->off.unicode_length)) ||
	    bpf_probe_read_user(&state, sizeof(state), (const void *)(obj + st->off.unicode_state)))
		return -1;
	if (!(state & PY_STATE_COMPACT))
		return -1;
	if (state & PY_STATE_ASCII) {
		data = obj + st->off.unicode_ascii_data;
	} else if (PY_STATE_KIND(state) == PY_KIND_1BYTE) {
		data = obj + st->off.unicode_compact_data;
		*latin1 = true;
	} else {
		return -1;
	}
	if (len > max) {
		*trunc = true;
		if (keep_end)
			data += len - max;
		len = max;
	}
	barrier_var(len);
	if (len > PK_PY_FILE_MAX)
		return -1;
	if (len && bpf_probe_read_user(dst, len, (const void *)data))
		return -1;
	return len;
}

/* What names code object CODE (its fixed part in st->code) as it is now,
 * in this address space (a tgid used again by another program has another
 * mm: its code objects are reported anew). */
static __always_inline __u64 py_code_stamp(const struct py_state *st)
{
	const struct pk_py_offsets *o = &st->off;
	__u64 h = PY_U64(st->code, o->code_qualname) ^ st->proc.mm;

	h = h * 0x9e3779b97f4a7c15ull ^ PY_U64(st->code, o->code_name);
	h = h * 0x9e3779b97f4a7c15ull ^ PY_U64(st->code, o->code_filename);
	h = h * 0x9e3779b97f4a7c15ull ^ PY_U64(st->code, o->code_linetable);
	h = h * 0x9e3779b97f4a7c15ull ^ (__u32)PY_S32(st->code, o->code_firstlineno);
	return h | 1;	/* never 0 */
}

/* Send the pk_py_code_event of CODE (its fixed part in st->code), and
 * keep KEY with STAMP in py_code_seen once it went into the ring buffer. */
static __always_inline void py_send_code(const struct py_state *st, __u64 code,
					 const struct py_code_key *key, const __u64 *stamp)
{
	const struct pk_py_offsets *o = &st->off;
	struct py_code_buf *cb;
	enum pk_report_sent sent;
	__u32 zero = 0, at, flags = 0;
	__u64 lt, lt_len;
	bool trunc, latin1;
	long n;

	cb = bpf_map_lookup_elem(&py_code_bufs, &zero);
	if (!cb)
		return;
	cb->e.pid = st->tgid;
	cb->e.version = st->version;
	cb->e.code = code;
	cb->e.firstlineno = PY_S32(st->code, o->code_firstlineno);
	cb->e.firsttraceable = PY_S32(st->code, o->code_firsttraceable);

	n = py_read_str(st, cb->data, PK_PY_NAME_MAX, PY_U64(st->code, o->code_qualname), false,
			&trunc, &latin1);
	if (n < 0) {
		flags |= PK_PY_NAME_UNREADABLE;
		n = 0;
	}
	flags |= (trunc ? PK_PY_NAME_TRUNC : 0) | (latin1 ? PK_PY_NAME_LATIN1 : 0);
	cb->e.name_len = n;
	at = n & PY_AT_MASK;

	n = py_read_str(st, &cb->data[at], PK_PY_FILE_MAX, PY_U64(st->code, o->code_filename),
			true, &trunc, &latin1);
	if (n < 0) {
		flags |= PK_PY_FILE_UNREADABLE;
		n = 0;
	}
	flags |= (trunc ? PK_PY_FILE_TRUNC : 0) | (latin1 ? PK_PY_FILE_LATIN1 : 0);
	cb->e.file_len = n;
	at = (at + n) & PY_AT_MASK;

	/* the line table, a bytes object */
	lt_len = 0;
	lt = PY_U64(st->code, o->code_linetable);
	if (lt && !bpf_probe_read_user(&lt_len, sizeof(lt_len), (const void *)(lt + o->bytes_size))) {
		if (lt_len > PK_PY_LINETABLE_MAX) {
			lt_len = PK_PY_LINETABLE_MAX;
			flags |= PK_PY_LINES_TRUNC;
		}
		barrier_var(lt_len);
		if (lt_len > PK_PY_LINETABLE_MAX)
			lt_len = 0;
		if (lt_len && bpf_probe_read_user(&cb->data[at], lt_len,
						  (const void *)(lt + o->bytes_data)))
			lt_len = 0;
	} else {
		lt_len = 0;
	}
	cb->e.linetable_len = lt_len;
	sent = pk_report_send(cb, sizeof(cb->e) + at + lt_len, sizeof(*cb), PK_EVENT_PY_CODE,
			      flags, &py_code_seen, key, stamp);
	if (sent == PK_REPORT_LOST)
		count(PK_CNT_PY_CODE_LOST);
	else if (sent == PK_REPORT_SENT)
		count(PK_CNT_PY_CODE_EVENTS);
}

/* CODE (its fixed part in st->code) is reported for this process before
 * the sample that needs it: now unless its report is known with this
 * stamp. Not remembered when the ring buffer had no room: sent again. */
static __always_inline void py_note_code(const struct py_state *st, __u64 code)
{
	struct py_code_key key = { .tgid = st->tgid, .code = code };
	__u64 stamp = pk_report_stamp(py_code_stamp(st));

	if (!pk_report_seen(&py_code_seen, &key, stamp))
		py_send_code(st, code, &key, &stamp);
}

/* bpf_loop body: frame st->frame as Python frame n, then its caller. */
static long py_step(__u32 i, void *ctx)
{
	struct pk_sample_buf *b = sample_buf_get();
	struct py_state *st = py_state_get();
	const struct pk_py_offsets *o;
	__u64 code, prev_instr, first, instr, size;
	__u32 idx, last;
	__u8 owner, wrote;
	bool entry;

	(void)i;
	(void)ctx;
	if (!st || !b)
		return 1;
	o = &st->off;
	if (!st->frame) {
		st->end = PK_PY_END_COMPLETE;
		return 1;
	}
	/* 64 bits wide, after a barrier: the bound checked must be the
	 * helper's own register (as send_sample's) */
	size = o->frame_size;
	barrier_var(size);
	if (size > PY_BUF ||
	    bpf_probe_read_user(st->hdr, size, (const void *)st->frame)) {
		st->end = PK_PY_END_READ_FAULT;
		return 1;
	}
	st->frame = PY_U64(st->hdr, o->frame_previous);
	owner = PY_U8(st->hdr, o->frame_owner);
	wrote = st->wrote;
	st->wrote = 0;
	/* 3.13 on: a call of the eval loop pushes a frame of its own before
	 * the first frame it runs, which is no Python function's (its
	 * f_executable None): that first frame, the one before it in the
	 * chain, is the entry */
	if (o->owner_entry && owner >= o->owner_entry) {
		last = st->base + st->n - 1;
		barrier_var(last);
		if (owner == o->owner_entry && wrote &&
		    last < PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH)
			b->frames[last] |= PK_PY_FRAME_ENTRY;
		return 0;
	}
	code = PY_U64(st->hdr, o->frame_code);
	if (o->flags & PK_PY_EXEC_TAGGED)
		code &= ~7ull;
	prev_instr = PY_U64(st->hdr, o->frame_prev_instr);
	entry = !o->owner_entry && PY_U8(st->hdr, o->frame_is_entry);
	size = o->code_size;
	barrier_var(size);
	if (!code || size > PY_BUF || bpf_probe_read_user(st->code, size, (const void *)code)) {
		st->end = PK_PY_END_READ_FAULT;
		return 1;
	}
	first = code + o->code_adaptive;
	/* Not started yet (_PyFrame_IsIncomplete): CPython's tracebacks skip it. */
	if (owner != 1 &&
	    prev_instr < first + 2 * (__u64)(__u32)PY_S32(st->code, o->code_firsttraceable))
		return 0;
	if (st->n >= PK_MAX_PY_DEPTH) {
		st->end = PK_PY_END_DEPTH;
		return 1;
	}
	/* prev_instr is the instruction running (a code unit is 2 bytes) */
	instr = prev_instr >= first ? (prev_instr - first) / 2 + 1 : PK_PY_INSTR_UNKNOWN;
	instr = pk_py_frame(code, instr, entry);
	py_note_code(st, code);
	/* bounded where it is used: the calls above spill it */
	idx = st->base + st->n;
	barrier_var(idx);
	if (idx >= PK_MAX_STACK_DEPTH + PK_MAX_USTACK_DEPTH + PK_MAX_PY_DEPTH)
		return 1;
	b->frames[idx] = instr;
	st->n++;
	st->wrote = 1;
	return 0;
}

/* The Python thread list of the interpreter at RUNTIME: the PyThreadState
 * of the current thread, or 0. The main interpreter's first threads only.
 * A thread state names its thread by pthread_self() (thread_id), which on
 * x86-64 is the thread's FS base: the kernel keeps it in the task, and
 * unlike native_thread_id it is the same in every PID namespace (a
 * process in a container has tids its own). */
#define PY_MAX_THREADS	64

/* bpf_loop body of py_find_tstate: is find_ts the thread's state? 1 once
 * it is (find_found), or once the list ends (find_ts 0). A loop the
 * verifier checks once: unrolled, it followed each thread's way out on its
 * own. */
static long py_thread_step(__u32 i, void *ctx)
{
	struct py_state *st = py_state_get();

	(void)i;
	(void)ctx;
	if (!st || !st->find_ts)
		return 1;
	if (py_read_ptr(st->find_ts + st->off.tstate_thread_id) == st->find_self) {
		st->find_found = 1;
		return 1;
	}
	st->find_ts = py_read_ptr(st->find_ts + st->off.tstate_next);
	return 0;
}

static __always_inline __u64 py_find_tstate(struct py_state *st, __u64 runtime, __u32 tid)
{
	const struct pk_py_offsets *o = &st->off;
	__u64 key = (__u64)st->tgid << 32 | tid, *cached, ts, interp, self;

	self = BPF_CORE_READ(bpf_get_current_task_btf(), thread.fsbase);
	if (!self)
		return 0;
	cached = bpf_map_lookup_elem(&py_threads, &key);
	if (cached && *cached && py_read_ptr(*cached + o->tstate_thread_id) == self)
		return *cached;
	interp = py_read_ptr(runtime + o->runtime_interp_head);
	if (!interp)
		return 0;
	st->find_ts = py_read_ptr(interp + o->interp_threads_head);
	st->find_self = self;
	st->find_found = 0;
	bpf_loop(PY_MAX_THREADS, py_thread_step, NULL, 0);
	if (!st->find_found)
		return 0;	/* not in the list, or past its first threads */
	ts = st->find_ts;
	bpf_map_update_elem(&py_threads, &key, &ts, BPF_ANY);
	return ts;
}

/* The interpreter the current process runs: the one the DWARF walk just
 * went through (remembered for the process's next samples), else the one
 * an earlier walk found, while the process runs the same program; into
 * st->proc. */
static __always_inline bool py_find_interp(struct py_state *st, __u32 tgid)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct uw_state *uw = uw_state_get();
	struct py_proc *known;

	if (!uw)
		return false;
	st->proc.mm = (__u64)task->mm;
	known = bpf_map_lookup_elem(&py_procs, &tgid);
	if (uw->py_seen) {
		st->proc.key = uw->py_key;
		st->proc.bias = uw->py_bias;
		if (!known || known->mm != st->proc.mm || known->bias != st->proc.bias ||
		    known->key.dev != st->proc.key.dev || known->key.ino != st->proc.key.ino)
			bpf_map_update_elem(&py_procs, &tgid, &st->proc, BPF_ANY);
		return true;
	}
	if (!known || known->mm != st->proc.mm)
		return false;
	st->proc = *known;
	return true;
}

/*
 * The Python walk of the current thread, after its DWARF walk, into the
 * sample scratch's frames[BASE...]; its result in py_states (walked 0: no
 * interpreter, no walk). A global function, as pk_walk_user and for the
 * same reasons: verified once, on its own, whatever program calls it; and
 * its state (here and in py_states) is not on the stack of the programs,
 * whose deepest chain (through pk_walk_user) has little left of 512 bytes
 * on Linux 6.1. Always 0.
 */
__noinline int pk_walk_python(__u32 base)
{
	struct py_state *st = py_state_get();
	__u64 pid_tgid = bpf_get_current_pid_tgid(), ts, at;
	struct pk_py_file *pf;

	if (!python || !dwarf || !st)
		return 0;
	st->walked = 0;
	st->n = 0;
	st->end = PK_PY_END_NONE;
	st->frame = 0;
	st->tgid = pid_tgid >> 32;
	if (!py_find_interp(st, st->tgid))
		return 0;
	pf = bpf_map_lookup_elem(&py_files, &st->proc.key);
	if (!pf)
		return 0;	/* its table (and entry) given back since */
	st->off = pf->off;
	st->version = pf->version;
	st->base = base;
	st->walked = 1;
	ts = py_find_tstate(st, pf->runtime + st->proc.bias, (__u32)pid_tgid);
	if (!ts) {
		st->end = PK_PY_END_NO_THREAD;
		return 0;
	}
	/* the current frame: in the thread state from 3.13, else in its
	 * _PyCFrame */
	at = ts + st->off.tstate_cframe;
	if (!(st->off.flags & PK_PY_TSTATE_FRAME)) {
		at = py_read_ptr(at);
		if (!at) {
			st->end = PK_PY_END_READ_FAULT;
			return 0;
		}
		at += st->off.cframe_current_frame;
	}
	/* 0: the thread runs no Python now (py_step: complete, no frames) */
	if (bpf_probe_read_user(&st->frame, sizeof(st->frame), (const void *)at)) {
		st->end = PK_PY_END_READ_FAULT;
		return 0;
	}
	st->wrote = 0;
	/* a frame skipped costs an iteration: room for a few */
	bpf_loop(PK_MAX_PY_DEPTH + 16, py_step, NULL, 0);
	if (st->end == PK_PY_END_NONE)	/* skipped frames ate the loop */
		st->end = PK_PY_END_DEPTH;
	return 0;
}

/*
 * After the DWARF walk of the sample in B (BASE frames so far): its Python
 * frames, when the walk went through an interpreter, or stopped short of
 * the stack's entry in a process that ran one at an earlier sample. Sets
 * py_len, py_end and PK_SAMPLE_PY; returns the Python frames written. The
 * code events they need went out first.
 */
static __always_inline __u32 pk_python_sample(struct pk_sample_buf *b, __u32 base)
{
	struct uw_state *uw = uw_state_get();
	struct py_state *st;
	__u32 n;

	if (!python || !dwarf || !uw)
		return 0;
	/* A walk that reached the stack's entry without passing through an
	 * interpreter shows a thread that runs no Python now: a thread in
	 * Python has the interpreter's frames under its own. Not looking
	 * py_procs up for it spares every native sample that cold lookup. */
	if (!uw->py_seen && uw->end == PK_END_COMPLETE)
		return 0;
	pk_walk_python(base);
	st = py_state_get();
	if (!st || !st->walked)
		return 0;
	n = st->n < PK_MAX_PY_DEPTH ? st->n : PK_MAX_PY_DEPTH;
	b->s.py_len = n;
	b->s.py_end = st->end;
	b->s.hdr.flags |= PK_SAMPLE_PY;
	return n;
}

/* The process TGID runs another program (exec) or none (exit). */
static __always_inline void pk_python_forget(__u32 tgid)
{
	if (python && dwarf)
		bpf_map_delete_elem(&py_procs, &tgid);
}

#endif /* PK_PYTHON_WALK_BPF_H */
