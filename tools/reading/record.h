/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Validation of ring-buffer records (struct pk_event_hdr + body) before any
 * field is used: a record whose declared sizes do not fit the bytes received
 * is rejected, never read past. Takes arbitrary bytes (fuzzable).
 *
 * Samples come in three layouts: layout 1 (frames_off 56, from objects
 * built before the DWARF unwinder), layout 2 (frames_off 96: ustack_end,
 * fp_frames, fp_mask) and layout 3 (frames_off 112: weight, event). All
 * parse into the same struct, the fields an older layout lacks left as "no
 * DWARF walk" and "event 0, weight unknown" (before events, every sample
 * was one cpu-clock sample at the session's frequency). Layout 4
 * (frames_off 120) adds copy_off: with PK_SAMPLE_USTACK_COPY, the registers
 * and the user stack a walk stopped for want of a table left after the
 * frames. Layout 5 (frames_off 128) adds py_len and py_end: with
 * PK_SAMPLE_PY, py_len Python frames (pk_py_frame) after the user frames,
 * and the stack copy after all of them. Layout 6 (frames_off 136) adds
 * agg_hash: with PK_SAMPLE_AGG_DEF (never with a stack copy), the key of
 * the aggregated stack the sample defines (bpf/probekit.h "Aggregation").
 * Layout 7 (frames_off 144) adds cgroup_id, in every sample: the task's
 * cgroup v2 id (0 in older layouts: not known).
 *
 * PK_EVENT_PY_CODE names a Python code object: its strings and line table
 * are checked to lie inside the record and to fit their limits;
 * PK_EVENT_HS_METHOD a Java method, its names likewise; PK_EVENT_HS_NMETHOD
 * a compiled one, its scopes' bytes likewise; PK_EVENT_V8_SFI a
 * JavaScript function, its name and script's name likewise.
 */
#ifndef PK_RECORD_H
#define PK_RECORD_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/probekit.h"
#include "symbolization/hotspot_method.h"
#include "symbolization/hotspot_scopes.h"
#include "symbolization/python_code.h"
#include "symbolization/v8_function.h"

/* A layout 1 sample: struct pk_sample up to comm. */
#define PK_SAMPLE_V1_SIZE	offsetof(struct pk_sample, ustack_end)
/* A layout 2 sample: up to fp_mask. */
#define PK_SAMPLE_V2_SIZE	offsetof(struct pk_sample, weight)

enum pk_record_kind {
	PK_RECORD_SAMPLE,	/* rec->sample filled */
	PK_RECORD_NO_TABLE,	/* rec->no_table filled */
	PK_RECORD_MAPPING,	/* rec->mapping filled */
	PK_RECORD_PY_CODE,	/* rec->py_code filled */
	PK_RECORD_HS_METHOD,	/* rec->hs_method filled */
	PK_RECORD_V8_SFI,	/* rec->v8_sfi filled */
	PK_RECORD_HS_NMETHOD,	/* rec->hs_nmethod filled */
	PK_RECORD_SKIP,		/* well-formed record of a type this reader does not know */
	PK_RECORD_BAD,		/* malformed: sizes do not fit */
};

/* A validated sample: fields copied out (the input may be unaligned). */
struct pk_record_sample {
	__u32 flags;		/* enum pk_sample_flags; USTACK_DWARF only in
				 * layout 2 (where its fields are) */
	__u32 pid, tid, cpu;
	__u64 time_ns;
	__u16 kstack_len;	/* <= PK_MAX_STACK_DEPTH */
	__u16 ustack_len;	/* <= PK_MAX_USTACK_DEPTH with a DWARF walk,
				 * PK_MAX_STACK_DEPTH without */
	/* With a DWARF walk (flags & PK_SAMPLE_USTACK_DWARF in layout 2); else
	 * PK_END_NONE and zeros. */
	__u8 ustack_end;	/* enum pk_ustack_end; a newer writer's value may
				 * be >= PK_END__MAX */
	__u16 fp_frames;
	__u64 fp_mask[PK_MAX_USTACK_DEPTH / 64];	/* no bit at or past ustack_len */
	char comm[PK_TASK_COMM_LEN];	/* always NUL-terminated */
	/* Layout 3; before it, 0 and 0. The event is not checked against the
	 * session's events here: the reader knows them. */
	__u64 weight;		/* in the event's unit; 0: not known */
	__u16 event;		/* index into the session's event_list */
	/* Layout 5 with PK_SAMPLE_PY (else 0, PK_PY_END_NONE and the flag
	 * cleared): Python frames after the user frames. */
	__u16 py_len;		/* <= PK_MAX_PY_DEPTH */
	__u8 py_end;		/* enum pk_py_end; a newer writer's value may
				 * be >= PK_PY_END__MAX */
	/* Layout 6 with PK_SAMPLE_AGG_DEF (else 0, the flag cleared). */
	__u64 agg_hash;
	/* Layout 7 (else 0): the task's cgroup v2 id (lib/cgroup_path.h). */
	__u64 cgroup_id;
	const void *frames;	/* kstack_len, ustack_len then py_len __u64,
				 * maybe unaligned */
	/* With PK_SAMPLE_USTACK_COPY in flags (layout 4, a DWARF walk that
	 * ended PK_END_NO_TABLE): the registers of the last user frame
	 * (regs[PK_DWARF_RIP] is it) and copy.len bytes of its stack from
	 * regs[PK_DWARF_RSP] up at stack, maybe unaligned. Else zeros. */
	struct pk_ustack_copy copy;
	const void *stack;
};

/* A validated struct pk_no_table: vm_start < vm_end. */
struct pk_record_no_table {
	__u64 dev, ino;
	__u64 vm_start, vm_end, vm_pgoff;
	__u32 pid;
};

/* A validated struct pk_mapping_event: vm_start < vm_end, path a string of
 * path_len bytes without a NUL inside. */
struct pk_record_mapping {
	__u32 flags;		/* enum pk_mapping_flags */
	__u32 pid;
	__u32 table;		/* PK_TABLE_NONE: none at the time */
	__u64 vm_start, vm_end, vm_pgoff;
	__u64 dev, ino;		/* the kernel's dev_t */
	char path[PK_MAPPING_PATH_MAX];
	__u32 build_id_len;	/* 0: none read (or a writer before it) */
	__u8 build_id[PK_MAPPING_BUILD_ID_MAX];
};

struct pk_record {
	union {
		struct pk_record_sample sample;
		struct pk_record_no_table no_table;
		struct pk_record_mapping mapping;
		/* a validated struct pk_py_code_event: its strings and
		 * line table lie in the record within PK_PY_NAME_MAX,
		 * PK_PY_FILE_MAX and PK_PY_LINETABLE_MAX, the strings
		 * without a NUL, an UNREADABLE one empty; code is not 0 and
		 * fits a pk_py_frame's 48 bits */
		struct pk_py_code_desc py_code;
		/* a validated struct pk_hs_method_event: its names lie in
		 * the record within PK_HS_SYM_MAX, without a NUL, none with
		 * PK_HS_UNREADABLE; method is not 0 and fits a pk_hs_frame's
		 * 47 bits */
		struct pk_hs_method_desc hs_method;
		/* a validated struct pk_v8_sfi_event: its names lie in the
		 * record within PK_V8_NAME_MAX and PK_V8_FILE_MAX, without a
		 * NUL, an UNREADABLE one empty; sfi is not 0 and fits a
		 * pk_v8_frame's 47 bits */
		struct pk_v8_sfi_desc v8_sfi;
		/* a validated struct pk_hs_nmethod_event: its parts lie in
		 * the record within their bounds (PK_HS_PCS_MAX...); nmethod
		 * and method are not 0, method fits a pk_hs_frame's 47 bits */
		struct pk_hs_nmethod_desc hs_nmethod;
	};
};

enum pk_record_kind pk_record_parse(const void *data, size_t size, struct pk_record *rec);

/* Frame I of a validated sample (0 <= i < kstack_len + ustack_len +
 * py_len). */
__u64 pk_record_frame(const struct pk_record_sample *sample, size_t i);

#endif
