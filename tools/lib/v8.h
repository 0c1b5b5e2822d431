/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * V8 (Node.js) and the description it gives of itself to debuggers
 * (llnode, mdb_v8): the postmortem metadata, ints named v8dbg_* that node,
 * or Debian's libnode.so.N, exports in .dynsym. Their names carry the
 * meaning (v8dbg_class_JSFunction__shared__SharedFunctionInfo: the offset
 * of JSFunction's shared member, of that type; v8dbg_type_Script__SCRIPT_TYPE:
 * Script's instance type; v8dbg_off_fp_function: a frame slot), their
 * values the numbers. They are constants of the file: read from the bytes
 * of the section that holds each (tools/lib/v8.c), no process needed.
 * Those whose value is 0 (SmiTag, HeapObject's map offset, SeqStringTag)
 * are zero-initialized, so the compiler puts them in .bss: their value is
 * 0 and V8 never writes them (its gen-postmortem-metadata.py defines them
 * all with an initializer), so a NOBITS one reads as 0.
 *
 * The file is untrusted bytes: a symbol is taken only inside its section,
 * of the size of an int, from a 64-bit little-endian ELF, and a want whose
 * names match twice with different values is refused.
 *
 * Versions (tests/integration/test_v8_file.c): Debian 13's node 20
 * (V8 11.3, libnode.so.115, 531 v8dbg_ symbols) and sid's node 24 (V8
 * 13.6, libnode.so.137, 480). Between them:
 * - member types are spelled Tagged_T_ in 13.x (..._name_or_scope_info__
 *   Tagged_NameOrScopeInfoT_ for __Object), so a member is matched by its
 *   class and name, whatever its type;
 * - SharedFunctionInfo's script: script_or_debug_info (11.3), script or
 *   raw_script (13.x); its function_data only in 11.3 (13.x keeps it in
 *   trusted space, undescribed);
 * - Code: 13.x describes instruction_start, instruction_size and flags;
 *   11.3 only its source_position_table, deoptimization_data and
 *   bytecode_offset_table;
 * - the optimized frame type is TurbofanFrame (11.3), TurbofanJSFrame (13.x);
 * - a DeoptimizationData's function is SharedFunctionInfoIndex (11.3),
 *   WrappedSharedFunctionInfoIndex (13.x: a wrapper object around it);
 * - 13.x adds FirstJSFunctionType/LastJSFunctionType (a range of function
 *   types; 11.3 has JS_FUNCTION_TYPE alone);
 * - most numbers moved: every instance type, the frame types (one more
 *   before them in 13.x), JSFunction's shared (24, 32) and
 *   SharedFunctionInfo's members (name_or_scope_info 16, 24; script 32,
 *   40): nothing here can be written per version by hand.
 * Not described, to be checked per version by the walk's tests: where a
 * Code's instructions start in 11.3 (the header size), JSFunction's code
 * member, the ScopeInfo's layout past its variables (where its function
 * name slot is: only the first variable's index and the count of context
 * locals are given, the OpenTelemetry profiler finds it by heuristics),
 * the Script's id,
 * SharedFunctionInfo's start position (in flags2/the ScopeInfo), and the
 * layout of the source position table (V8's varint encoding).
 *
 * What the JavaScript walk (issue 34: bpf/v8_walk.bpf.h, over the value
 * tools/lib/v8_bpf.c makes) takes from here, and what it does not read
 * yet (a frame's position to its line: it gives the function's start
 * line; compiled frames' Code, inlined functions):
 * - whoever loads node's or libnode's unwind table reads this once per
 *   file (it is the file's) and hands BPF a value per file, as Python's
 *   py_files value, with the frame offsets, tags and offsets below;
 * - the BPF walk, at a frame of V8's frame-pointer chain whose PC is in
 *   no file with a table (JIT code) or in the interpreter's builtins,
 *   reads the slot at fp + off_fp_context_or_frame_type (a Smi there:
 *   (slot & smi_tag_mask) == smi_tag, its value the slot shifted right by
 *   smi_shift_size + 1, 32 in Debian's builds, which have no pointer
 *   compression; it is a frame type: a stub, entry or exit frame, left
 *   native) and the
 *   JSFunction at fp + off_fp_function; a pointer tagged heap_object_tag,
 *   whose map (at heap_object_map) has instance type (map_instance_type,
 *   a u16) type_js_function (or in first..last_js_function_type), is a
 *   JavaScript frame; its SharedFunctionInfo (jsfunction_shared) is the
 *   function's identity. An interpreted or baseline frame adds the Smi at
 *   fp + off_fp_bytecode_offset; a compiled one the PC against its Code;
 * - names are reported as Python's code objects are, while the process
 *   lives: the SharedFunctionInfo's name_or_scope_info (a String, or a
 *   ScopeInfo whose name slot is undescribed), its script (Script: name,
 *   line_ends, a FixedArray of Smis, unset unless something asked; its
 *   source, whose line terminators the walk counts), strings
 *   read by their instance type (string_* tags: sequential one- and
 *   two-byte, cons, thin, sliced), each keyed by the SharedFunctionInfo
 *   address and reported once, so a name freed and reused is reported
 *   again rather than another function's kept.
 */
#ifndef PK_V8_H
#define PK_V8_H

#include <libelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"

#define PK_V8_PREFIX	"v8dbg_"
#define PK_V8_MAX_ALTS	3	/* names of one value */

/* The values the JavaScript walk and the symbolizer need. Offsets in
 * bytes (frame offsets from the frame pointer, negative), type tags and
 * constants as V8 gives them. Each has an entry in pk_v8_wants
 * (v8_vm.c) naming it. */
struct pk_v8 {
	/* tagging */
	__s32 smi_tag, smi_tag_mask, smi_shift_size, smi_value_shift;
	__s32 heap_object_tag, heap_object_tag_mask, pointer_size;
	/* strings: instance type bits */
	__s32 first_nonstring_type, is_not_string_mask, string_tag;
	__s32 string_encoding_mask, one_byte_string_tag, two_byte_string_tag;
	__s32 string_repr_mask, seq_string_tag, cons_string_tag, thin_string_tag;
	__s32 sliced_string_tag, external_string_tag;
	/* frame slots */
	__s32 off_fp_function, off_fp_context, off_fp_context_or_frame_type;
	__s32 off_fp_bytecode_array, off_fp_bytecode_offset, off_fp_args;
	/* frame types (the Smi in a typed frame's marker slot) */
	__s32 frametype_entry, frametype_exit, frametype_stub, frametype_interpreted;
	__s32 frametype_baseline, frametype_maglev, frametype_turbofan;
	/* instance types */
	__s32 type_js_function, first_js_function_type, last_js_function_type;
	__s32 type_shared_function_info, type_script, type_code, type_bytecode_array;
	__s32 type_scope_info, type_fixed_array, type_map;
	/* class member offsets */
	__s32 heap_object_map, map_instance_type;
	__s32 jsfunction_shared, jsfunction_context;
	__s32 sfi_name_or_scope_info, sfi_script, sfi_function_data, sfi_flags;
	__s32 script_name, script_line_ends, script_source;
	__s32 string_length, seq_one_byte_chars, seq_two_byte_chars;
	__s32 cons_first, cons_second, thin_actual, sliced_parent, sliced_offset;
	__s32 fixed_array_length, fixed_array_data, bytecode_array_data;
	__s32 code_instruction_start, code_instruction_size, code_source_positions;
	/* Code's kind in its flags, and the kinds the walk tells apart */
	__s32 code_kind_mask, code_kind_shift, code_kind_baseline, code_kind_interpreted;
	/* indexes (in slots) of a ScopeInfo's and a DeoptimizationData's
	 * entries: the function's name past the ScopeInfo's variables, the
	 * functions inlined into optimized code */
	__s32 scopeinfo_first_vars, scopeinfo_ncontextlocals;
	__s32 deopt_inlined_count, deopt_literal_array, deopt_sfi, deopt_inlining_positions;

	/* Per entry of pk_v8_wants: 0 not found, else which of its names
	 * matched (1: the first). */
	__u8 found[96];
	unsigned int n_syms;	/* v8dbg_ symbols the file exports */
};

/* One member of struct pk_v8 and its names (without the v8dbg_ prefix);
 * a name ending in "__" is a class member's, any type after it. */
struct pk_v8_want {
	const char *names[PK_V8_MAX_ALTS];
	size_t at;		/* offsetof() in struct pk_v8 */
	bool required;		/* the walk cannot do without it */
};

extern const struct pk_v8_want pk_v8_wants[];
extern const size_t pk_v8_n_wants;

/* Which want (index in pk_v8_wants) and which of its names NAME (after
 * the prefix) is: 0 and *WANT, *ALT, or -ENOENT. */
int pk_v8_want_match(const char *name, size_t *want, unsigned int *alt);

/*
 * Whether ELF is a V8 and its metadata. 0: every required value found;
 * -ENOENT: no v8dbg_ symbol (not a V8, or not a 64-bit little-endian ELF);
 * -ENOTSUP: a V8 missing a required value (ERR names the first);
 * -EBADMSG: a value not readable as the int it is (outside its section,
 * another size, a section whose bytes are not there) or given twice with
 * two values (ERR names it). OUT->found says what was read either way.
 */
int pk_v8_elf(Elf *elf, struct pk_v8 *out, char err[PK_ERR_LEN]);

/* pk_v8_elf() of the file at PATH; other negative errno: open. */
int pk_v8_file(const char *path, struct pk_v8 *out, char err[PK_ERR_LEN]);

/* The first name of each value of V8 not found, ", " between them, into
 * BUF (truncated to LEN); their count. */
size_t pk_v8_missing(const struct pk_v8 *v8, char *buf, size_t len);

/* The value of want W as read (after pk_v8_elf()). */
__s32 pk_v8_value(const struct pk_v8 *v8, size_t w);

/* V8's v8_files value (bpf/v8_records.h) from what pk_v8_elf() read
 * into V: 0; -ENOTSUP: a V8 the walk cannot read (pointer compression,
 * frame slots not words below the frame pointer, values it needs not
 * described); -ERANGE: a number past its field (ERR says which). */
int pk_v8_bpf_file(const struct pk_v8 *v, struct pk_v8_file *out, char err[PK_ERR_LEN]);

/* pk_v8_file() then pk_v8_bpf_file() of the file at PATH: -ENOENT when
 * it is no V8. */
int pk_v8_bpf_path(const char *path, struct pk_v8_file *out, char err[PK_ERR_LEN]);

#endif
