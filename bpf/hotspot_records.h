/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The Java walk's part of the contract with user space: how a Java frame
 * is written in a sample, the JVM's numbers in hs_files and the reports
 * of methods and nmethods (pk_hs_method_event, pk_hs_nmethod_event).
 * Included by bpf/probekit.h, whose rules it follows; include that.
 */
#ifndef PK_HOTSPOT_RECORDS_H
#define PK_HOTSPOT_RECORDS_H

#include "bpf/probekit.h"	/* struct pk_event_hdr */

/*
 * HotSpot. A libjvm.so that exports the serviceability agent's vmStructs
 * tables (tools/lib/hotspot.h) is in hs_files, with what the Java walk
 * needs of them, and its unwind_files entry has PK_FILE_HOTSPOT. The
 * tables hold pointers, so they are read from a process that maps the
 * file (whoever loads its table: tools/lib/unwind_store.c); what they give
 * is the same in every process of that build, the statics as ELF vaddrs
 * of the file (the walk adds the load bias it found the file at).
 *
 * Offsets are bytes into a structure; PK_HS_NONE: the JVM has no such
 * member. Frame slots are words from the frame pointer, as HotSpot's
 * frame:: constants are.
 *
 * A DWARF walk that passes through such a file remembers the process's
 * JVM (hs_procs: its code cache, heaps and interpreter, read once); then,
 * at a PC in its code cache, the Java walk (bpf/hotspot_walk.bpf.h) steps
 * over the frame by HotSpot's own numbers: an interpreted frame by its
 * frame pointer (the Method* and the bytecode pointer in its slots), a
 * compiled one (an nmethod) or a stub by the frame size of the CodeBlob
 * the heap's segment map finds for the PC; the walk goes on from the
 * caller with the DWARF walk. A Java frame's user frame is then not a PC
 * but a pk_hs_frame(); a stub's stays its PC.
 */
#define PK_HS_NONE		0xffff

/* A Java frame in a sample's user frames:
 *   bits  0..46  interpreted: the Method*; compiled: the PC in the
 *                nmethod's code (a return address but for the leaf), which
 *                the nmethod's report (struct pk_hs_nmethod_event) turns
 *                into its method and the methods inlined there
 *   bits 47..60  interpreted: the bytecode index + 1 (0: unknown, or past
 *                PK_HS_INFO_MASK - 1); compiled: the nmethod's compile id,
 *                its low 14 bits (an nmethod freed and another made at its
 *                address is told apart by it)
 *   bits 61..62  enum pk_hs_frame_kind
 *   bit  63      PK_HS_FRAME: no user address has it */
#define PK_HS_FRAME		(1ull << 63)
#define PK_HS_METHOD_MASK	((1ull << 47) - 1)
#define PK_HS_INFO_SHIFT	47
#define PK_HS_INFO_MASK		0x3fffull
#define PK_HS_KIND_SHIFT	61

enum pk_hs_frame_kind {
	PK_HS_INTERPRETED = 0,
	PK_HS_COMPILED = 1,
};

static inline __u64 pk_hs_frame(__u64 method, __u64 info, unsigned int kind)
{
	return PK_HS_FRAME | (__u64)(kind & 3) << PK_HS_KIND_SHIFT |
	       (info & PK_HS_INFO_MASK) << PK_HS_INFO_SHIFT | (method & PK_HS_METHOD_MASK);
}

/* How a JVM's structures differ beyond their offsets (pk_hs_file.flags). */
enum pk_hs_flags {
	PK_HS_CODE_OFFSET	= 1u << 0, /* CodeBlob's code begin and end are
					    * ints from the blob (JDK 25's
					    * _code_offset, _data_offset), not
					    * pointers */
	PK_HS_LINES_U5		= 1u << 1, /* the line number tables' ints
					    * have no zero byte (JDK 21 on:
					    * ConstMethodFlags) */
	PK_HS_SCOPES		= 1u << 2, /* the nmethod_* offsets below are
					    * known: nmethods are reported with
					    * their scopes */
	PK_HS_IMMUTABLE		= 1u << 3, /* JDK 25's nmethod: PcDescs and
					    * scopes in its immutable data, the
					    * metadata after the relocations in
					    * its mutable data */
};

/* hs_files' value. */
struct pk_hs_file {
	/* statics, ELF vaddrs of the file */
	__u64 codecache_heaps;		/* CodeCache::_heaps (GrowableArray<CodeHeap*>*) */
	__u64 codecache_low_bound;	/* CodeCache::_low_bound (address) */
	__u64 codecache_high_bound;
	__u64 interp_code;		/* AbstractInterpreter::_code (StubQueue*) */
	__u32 flags;			/* enum pk_hs_flags */
	__u32 heapblock_size;		/* sizeof(HeapBlock): a blob follows it */
	/* GrowableArray<CodeHeap*> */
	__u16 garray_len, garray_data;
	/* CodeHeap; its _memory and _segmap are VirtualSpaces */
	__u16 codeheap_memory, codeheap_segmap, codeheap_log2_segment_size;
	__u16 vspace_low, vspace_high_boundary;
	/* StubQueue: the interpreter's codelets */
	__u16 stubqueue_buffer, stubqueue_buffer_limit;
	/* CodeBlob */
	__u16 codeblob_name, codeblob_size, codeblob_frame_complete_offset, codeblob_frame_size;
	__u16 codeblob_code_begin, codeblob_code_end;
	/* nmethod */
	__u16 nmethod_method, nmethod_compile_id;
	/* Method, ConstMethod, ConstantPool, Klass, Symbol: for the reader */
	__u16 method_const_method, constmethod_constants, constmethod_code_size;
	__u16 constmethod_name_index, constmethod_signature_index;
	__u16 constmethod_size, cpool_size, cpool_pool_holder, klass_name;
	__u16 symbol_length, symbol_body;
	/* frame:: slots of an interpreted frame, words from its frame pointer */
	__s8 frame_interp_sender_sp;	/* described: the caller's SP */
	__s8 frame_interp_last_sp;	/* described */
	__s8 frame_interp_method;	/* frame_x86.hpp, not described: the Method* */
	__s8 frame_interp_bcp;		/* frame_x86.hpp: the bytecode pointer */
	__u8 frame_complete_width;	/* bytes of CodeBlob._frame_complete_offset:
					 * 4 (an int), 2 (JDK 25's int16_t) */
	__u8 constmethod_flags_width;	/* bytes of ConstMethod's flags: 2 (JDK
					 * 17's u2), 4 (a u4); 0: none */
	__u8 __pad[2];
	/* for the line numbers (PK_HS_NONE: not described) */
	__u16 constmethod_flags;	/* ConstMethod._flags(._flags) */
	__u16 cpool_source_file_name_index;
	__u32 linetable_flag;		/* the flags' bit of a line number table */
	/* an nmethod's scopes, with PK_HS_SCOPES (bpf/hotspot_nmethod.bpf.h):
	 * JDK 17 and 21: PcDescs [_scopes_pcs_offset, _dependencies_offset),
	 * scopes [*_scopes_data_begin, _scopes_pcs_offset), metadata
	 * [_metadata_offset, *_scopes_data_begin), offsets from the nmethod;
	 * PK_HS_IMMUTABLE (25): PcDescs [_scopes_pcs_offset,
	 * _scopes_data_offset), scopes [_scopes_data_offset,
	 * _immutable_data_size) from *_immutable_data, metadata from
	 * *_mutable_data + _relocation_size to + _mutable_data_size */
	__u16 nmethod_scopes_pcs, nmethod_scopes_end;	/* _dependencies_offset;
							 * 25: _scopes_data_offset */
	__u16 nmethod_scopes_data;	/* _scopes_data_begin; 25: _immutable_data */
	__u16 nmethod_metadata;		/* _metadata_offset; 25: _mutable_data */
	__u16 nmethod_data_size;	/* 25: _immutable_data_size */
	__u16 codeblob_relocation_size, codeblob_mutable_data_size;	/* 25 */
	__u8 pcdesc_size, pcdesc_pc_offset, pcdesc_scope_decode_offset;
	__u8 __pad2;
};

/*
 * A Java method is named by a pk_hs_method_event, sent before the first
 * sample that needs it (hs_method_seen remembers (tgid, Method*) with a
 * stamp of its ConstMethod, holder and name Symbols, so that a method
 * freed and another made at its address is sent again); a reader keeps
 * the latest event of each (pid, Method*), sent again to each new reader
 * (pk_session reader_gen). A method whose structures or
 * names cannot be read yet (pages of a class-data-sharing archive not in
 * memory) is neither sent nor remembered: a later sample tries again,
 * and the reader names the frames of before it too. The names are HotSpot's
 * Symbols' bytes (modified UTF-8): the holder's "java/util/Arrays", the
 * method's "sort", its class's source file "Arrays.java" (the constant
 * pool's SourceFile entry); then the method's line number table, as
 * copied (the reader finds the line of an interpreted frame's bytecode
 * index in it), so that a JVM read after it exited has its lines.
 */
#define PK_HS_SYM_MAX		256

enum pk_hs_method_flags {
	PK_HS_KLASS_TRUNC	= 1u << 0, /* the holder's name was longer */
	PK_HS_NAME_TRUNC	= 1u << 1, /* the method's name was longer */
	PK_HS_UNREADABLE	= 1u << 2, /* its structures could not be read:
					    * every length 0 (BPF sends none such
					    * now: it tries again later) */
	PK_HS_FILE_TRUNC	= 1u << 3, /* the source file's name was longer */
	PK_HS_LINES_NO_ZERO	= 1u << 4, /* the line table's ints have no zero
					    * byte (PK_HS_LINES_U5) */
};

/* Bytes of a method's line number table a report carries at most: the
 * stream ends with a 0 byte; one cut at the bound has none, and gives the
 * lines of its first pairs only (symbolization/hotspot_lines.h). A pair
 * takes a byte where its deltas are small, so 100 to 250 lines. */
#define PK_HS_LINES_MAX		256

struct pk_hs_method_event {
	struct pk_event_hdr hdr;	/* flags: enum pk_hs_method_flags */
	__u32 pid;			/* tgid */
	__u32 __pad;
	__u64 method;			/* the Method* in pid */
	__u16 klass_len;		/* bytes of the holder's name at data[0] */
	__u16 name_len;			/* bytes of the method's name after it */
	__u16 file_len;			/* bytes of its holder's source file name
					 * ("Hot.java") after that: 0 none */
	__u16 lines_len;		/* bytes of its line number table after
					 * that (ConstMethod's compressed one,
					 * to PK_HS_LINES_MAX): 0 none */
	/* __u8 data[klass_len + name_len + file_len + lines_len] */
};

/*
 * A compiled Java method (an nmethod), sent before the first sample with
 * one of its frames, once per reader generation (hs_nmethod_seen keeps
 * (tgid, nmethod) with a stamp of its compile id), with what a reader
 * needs to name a PC of it with the methods the compiler inlined there:
 * its PcDescs (each a pc offset from code_begin and the offset of its
 * scope in the scopes data; pcdesc_* give their layout), its scopes data
 * (HotSpot's compressed stream: per scope, the sender scope's offset, the
 * method's index in the metadata table, the bytecode index + 1) and its
 * metadata table (the Method*s and Klass*s it names, index 1 at [0]), as
 * copied from the JVM; the Method*s of that table are reported with it
 * (PK_EVENT_HS_METHOD). Each part is cut at its bound (the flags say
 * which): a PC whose PcDesc or scope is past a cut is named by the
 * nmethod's own method only (symbolization/hotspot_scopes.h).
 */
#define PK_HS_PCS_MAX		8192	/* bytes of PcDescs: 512 of JDK 17's */
#define PK_HS_SCOPES_MAX	8192
#define PK_HS_META_MAX		1024	/* 128 entries */

enum pk_hs_nmethod_flags {
	PK_HS_NM_PCS_CUT	= 1u << 0, /* more PcDescs than sent */
	PK_HS_NM_SCOPES_CUT	= 1u << 1,
	PK_HS_NM_META_CUT	= 1u << 2,
	PK_HS_NM_NO_ZERO	= 1u << 3, /* the stream's ints have no zero byte
					    * (JDK 21 on, as PK_HS_LINES_NO_ZERO) */
};

struct pk_hs_nmethod_event {
	struct pk_event_hdr hdr;	/* flags: enum pk_hs_nmethod_flags */
	__u32 pid;			/* tgid */
	__u32 compile_id;
	__u64 nmethod;			/* its address in pid */
	__u64 method;			/* its Method* */
	__u64 code_begin;		/* the PcDescs' pc offsets are from it */
	__u32 code_size;		/* bytes of code from code_begin */
	__u16 pcs_len, scopes_len, metadata_len;	/* bytes of data */
	__u8 pcdesc_size, pcdesc_pc_offset, pcdesc_scope_decode_offset;
	__u8 __pad[3];
	/* __u8 data[pcs_len + scopes_len + metadata_len] */
};

#endif /* PK_HOTSPOT_RECORDS_H */
