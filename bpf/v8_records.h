/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The JavaScript walk's part of the contract with user space: how a
 * JavaScript frame is written in a sample, V8's numbers in v8_files and
 * the function's report (pk_v8_sfi_event).
 * Included by bpf/probekit.h, whose rules it follows; include that.
 */
#ifndef PK_V8_RECORDS_H
#define PK_V8_RECORDS_H

#include "bpf/probekit.h"	/* struct pk_event_hdr */

/*
 * V8 (Node.js). A file that exports V8's postmortem metadata (the v8dbg_
 * symbols: node, or Debian's libnode; tools/lib/v8.h) is in v8_files,
 * with the frame slots, tags and object offsets the JavaScript walk needs
 * (constants of the file: no process is read), and its unwind_files
 * entry has PK_FILE_V8. Whoever loads its table adds both
 * (tools/lib/unwind_store.c).
 *
 * V8 keeps a frame-pointer chain through its frames, which have no CFI
 * (JIT code in anonymous memory, the builtins embedded in the file's
 * text): the DWARF walk takes frame-pointer steps over them. A walk that
 * passes through a V8 file makes the process known (v8_procs); then, at
 * each frame the walk steps over by its frame pointer, the JavaScript
 * walk (bpf/v8_walk.bpf.h) looks at the frame's slots: a context (not a
 * Smi marker) and a JSFunction in the function slot make a JavaScript
 * frame, whose user frame is then not its PC but a pk_v8_frame() of the
 * function's SharedFunctionInfo. Typed frames (entry, exit, stubs,
 * builtins) keep their PC.
 */

/* A JavaScript frame in a sample's user frames:
 *   bits  0..46  the SharedFunctionInfo's address (tagged, as V8 holds it)
 *   bits 47..59  interpreted: the bytecode offset + 1 (0: unknown, or
 *                past PK_V8_INFO_MASK - 1); compiled: 0
 *   bits 60..61  enum pk_v8_frame_kind
 *   bit  62      PK_V8_FRAME (bit 63 clear: no Java frame, no kernel
 *                address; bit 62: no user address) */
#define PK_V8_FRAME		(1ull << 62)
#define PK_V8_SFI_MASK		((1ull << 47) - 1)
#define PK_V8_INFO_SHIFT	47
#define PK_V8_INFO_MASK		0x1fffull
#define PK_V8_KIND_SHIFT	60

enum pk_v8_frame_kind {
	PK_V8_INTERPRETED = 0,	/* in the interpreter (the file's builtins) */
	PK_V8_COMPILED = 1,	/* in JIT code (Sparkplug, Maglev, TurboFan) */
};

static inline __u64 pk_v8_frame(__u64 sfi, __u64 info, unsigned int kind)
{
	if (info > PK_V8_INFO_MASK)
		info = 0;
	return PK_V8_FRAME | (__u64)(kind & 3) << PK_V8_KIND_SHIFT |
	       info << PK_V8_INFO_SHIFT | (sfi & PK_V8_SFI_MASK);
}

/* Whether user frame F is a JavaScript frame. */
static inline int pk_v8_is_frame(__u64 f)
{
	return (f & (PK_V8_FRAME | (1ull << 63))) == PK_V8_FRAME;
}

/* v8_files' value: V8's own numbers (tools/lib/v8.h) for the walk. */
struct pk_v8_file {
	/* frame slots, bytes from the frame pointer */
	__s16 off_fp_marker;		/* context, or a typed frame's Smi marker */
	__s16 off_fp_function;		/* the JSFunction */
	__s16 off_fp_bytecode_offset;	/* an interpreted frame's Smi */
	/* object members, bytes from the (untagged) object */
	__u16 heap_object_map, map_instance_type;
	__u16 jsfunction_shared;
	__u16 sfi_name_or_scope_info, sfi_script;
	__u16 script_name, script_source;
	__u16 string_length, seq_one_byte_chars, cons_first, cons_second, thin_actual;
	/* instance types */
	__u16 type_js_function_first, type_js_function_last;
	__u16 type_shared_function_info, type_scope_info, type_script;
	__u16 first_nonstring_type;
	/* string instance type bits */
	__u8 string_repr_mask, string_encoding_mask, one_byte_string_tag;
	__u8 seq_string_tag, cons_string_tag, thin_string_tag;
	/* tagging */
	__u8 heap_object_tag, heap_object_tag_mask, smi_tag, smi_tag_mask;
	__u8 smi_shift;			/* a Smi's value: the word >> this */
	/* ScopeInfo: its slots start past the map; the function's name is
	 * the first string from slot first_vars + 2 * the count of context
	 * locals (slot ncontextlocals, a Smi) */
	__u8 scopeinfo_first_vars, scopeinfo_ncontextlocals;
	/* the slot of the function's start position when the ScopeInfo
	 * holds it in its fixed part (V8 12.8 on: the two slots between
	 * the count of context locals and the variables), 0: in the Smi
	 * pair after the function's name (V8 11) */
	__u8 scopeinfo_pos;
	__u8 __pad[2];
};

/*
 * A JavaScript function is named by a pk_v8_sfi_event, sent before the
 * first sample that needs it (v8_sfi_seen remembers (tgid, SFI) with a
 * stamp of its name and script pointers, so that a function freed and
 * another made at its address is sent again); a reader keeps the latest
 * event of each (pid, SFI), sent again to each new reader (pk_session
 * reader_gen). name: the function's name (its
 * name_or_scope_info's String, or the ScopeInfo's function name), empty
 * for an anonymous function; file: its Script's name; line: the line of
 * the function's start position (its ScopeInfo's) in the Script's source,
 * counted in the source's first PK_V8_SCAN_MAX characters (a sequential
 * one-byte string: other sources give 0).
 */
#define PK_V8_SCAN_MAX		(64 * 1024)
#define PK_V8_NAME_MAX		128
#define PK_V8_FILE_MAX		256

enum pk_v8_sfi_flags {
	PK_V8_NAME_TRUNC	= 1u << 0, /* the name was longer */
	PK_V8_FILE_TRUNC	= 1u << 1, /* the script's name was longer */
	PK_V8_NAME_UNREADABLE	= 1u << 2, /* a string the walk does not read
					    * (two-byte, external...): name_len 0 */
	PK_V8_FILE_UNREADABLE	= 1u << 3,
};

struct pk_v8_sfi_event {
	struct pk_event_hdr hdr;	/* flags: enum pk_v8_sfi_flags */
	__u32 pid;			/* tgid */
	__u32 __pad;
	__u64 sfi;			/* the SharedFunctionInfo (tagged) in pid */
	__u16 name_len;			/* bytes of the name at data[0] (Latin-1) */
	__u16 file_len;			/* bytes of the script's name after it */
	__u32 line;			/* the line the function starts at (1:
					 * the first), 0: not known */
	/* __u8 data[name_len + file_len] */
};

#endif /* PK_V8_RECORDS_H */
