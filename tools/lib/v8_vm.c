// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The members of struct pk_v8 and the v8dbg_ names V8 gives them
 * (tools/lib/v8.h), per version: where 11.3 (node 20) and 13.x (node 24)
 * name a value differently, both are listed, the older first, and
 * found[] keeps which matched. A class member's name ends in "__": the
 * type after it changed spelling between versions (Object,
 * Tagged_Object_) and says nothing the walk uses.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/v8.h"

#define AT(m)	offsetof(struct pk_v8, m)
#define R(m, ...)	{ { __VA_ARGS__ }, AT(m), true }
#define O(m, ...)	{ { __VA_ARGS__ }, AT(m), false }

const struct pk_v8_want pk_v8_wants[] = {
	R(smi_tag, "SmiTag"),
	R(smi_tag_mask, "SmiTagMask"),
	R(smi_shift_size, "SmiShiftSize"),
	O(smi_value_shift, "SmiValueShift"),
	R(heap_object_tag, "HeapObjectTag"),
	R(heap_object_tag_mask, "HeapObjectTagMask"),
	O(pointer_size, "SystemPointerSize"),
	R(first_nonstring_type, "FirstNonstringType"),
	R(is_not_string_mask, "IsNotStringMask"),
	R(string_tag, "StringTag"),
	R(string_encoding_mask, "StringEncodingMask"),
	R(one_byte_string_tag, "OneByteStringTag"),
	R(two_byte_string_tag, "TwoByteStringTag"),
	R(string_repr_mask, "StringRepresentationMask"),
	R(seq_string_tag, "SeqStringTag"),
	R(cons_string_tag, "ConsStringTag"),
	O(thin_string_tag, "ThinStringTag"),
	O(sliced_string_tag, "SlicedStringTag"),
	O(external_string_tag, "ExternalStringTag"),
	R(off_fp_function, "off_fp_function"),
	R(off_fp_context, "off_fp_context"),
	O(off_fp_context_or_frame_type, "off_fp_context_or_frame_type"),
	O(off_fp_bytecode_array, "off_fp_bytecode_array"),
	O(off_fp_bytecode_offset, "off_fp_bytecode_offset"),
	O(off_fp_args, "off_fp_args"),
	O(frametype_entry, "frametype_EntryFrame"),
	O(frametype_exit, "frametype_ExitFrame"),
	O(frametype_stub, "frametype_StubFrame"),
	O(frametype_interpreted, "frametype_InterpretedFrame"),
	O(frametype_baseline, "frametype_BaselineFrame"),
	O(frametype_maglev, "frametype_MaglevFrame"),
	O(frametype_turbofan, "frametype_TurbofanFrame", "frametype_TurbofanJSFrame"),
	R(type_js_function, "type_JSFunction__JS_FUNCTION_TYPE"),
	O(first_js_function_type, "FirstJSFunctionType"),
	O(last_js_function_type, "LastJSFunctionType"),
	R(type_shared_function_info, "type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE"),
	R(type_script, "type_Script__SCRIPT_TYPE"),
	R(type_code, "type_Code__CODE_TYPE"),
	R(type_bytecode_array, "type_BytecodeArray__BYTECODE_ARRAY_TYPE"),
	O(type_scope_info, "type_ScopeInfo__SCOPE_INFO_TYPE"),
	O(type_fixed_array, "type_FixedArray__FIXED_ARRAY_TYPE"),
	O(type_map, "type_Map__MAP_TYPE"),
	R(heap_object_map, "class_HeapObject__map__"),
	R(map_instance_type, "class_Map__instance_type__"),
	R(jsfunction_shared, "class_JSFunction__shared__"),
	O(jsfunction_context, "class_JSFunction__context__"),
	R(sfi_name_or_scope_info, "class_SharedFunctionInfo__name_or_scope_info__"),
	R(sfi_script, "class_SharedFunctionInfo__script_or_debug_info__",
	  "class_SharedFunctionInfo__script__", "class_SharedFunctionInfo__raw_script__"),
	O(sfi_function_data, "class_SharedFunctionInfo__function_data__"),
	O(sfi_flags, "class_SharedFunctionInfo__flags__"),
	R(script_name, "class_Script__name__"),
	R(script_line_ends, "class_Script__line_ends__"),
	O(script_source, "class_Script__source__"),
	R(string_length, "class_String__length__"),
	R(seq_one_byte_chars, "class_SeqOneByteString__chars__"),
	R(seq_two_byte_chars, "class_SeqTwoByteString__chars__"),
	R(cons_first, "class_ConsString__first__"),
	R(cons_second, "class_ConsString__second__"),
	O(thin_actual, "class_ThinString__actual__"),
	O(sliced_parent, "class_SlicedString__parent__"),
	O(sliced_offset, "class_SlicedString__offset__"),
	R(fixed_array_length, "class_FixedArrayBase__length__"),
	R(fixed_array_data, "class_FixedArray__data__"),
	O(bytecode_array_data, "class_BytecodeArray__data__"),
	O(code_instruction_start, "class_Code__instruction_start__"),
	O(code_instruction_size, "class_Code__instruction_size__"),
	O(code_source_positions, "class_Code__source_position_table__"),
	O(code_kind_mask, "CodeKindFieldMask"),
	O(code_kind_shift, "CodeKindFieldShift"),
	O(code_kind_baseline, "CodeKindBaseline"),
	O(code_kind_interpreted, "CodeKindInterpretedFunction"),
	O(scopeinfo_first_vars, "scopeinfo_idx_first_vars"),
	O(scopeinfo_ncontextlocals, "scopeinfo_idx_ncontextlocals"),
	O(deopt_inlined_count, "DeoptimizationDataInlinedFunctionCountIndex"),
	O(deopt_literal_array, "DeoptimizationDataLiteralArrayIndex"),
	O(deopt_sfi, "DeoptimizationDataSharedFunctionInfoIndex",
	  "DeoptimizationDataWrappedSharedFunctionInfoIndex"),
	O(deopt_inlining_positions, "DeoptimizationDataInliningPositionsIndex"),
};
const size_t pk_v8_n_wants = sizeof(pk_v8_wants) / sizeof(pk_v8_wants[0]);

_Static_assert(sizeof(pk_v8_wants) / sizeof(pk_v8_wants[0]) <=
	       sizeof(((struct pk_v8 *)0)->found), "a found[] byte per want");

/* Whether NAME is PAT: exactly, or for a member's PAT ("...__") PAT then
 * a type with no "__" in it (so that class_X__a__ is not class_X__a__b__T). */
static bool name_is(const char *name, const char *pat)
{
	size_t n = strlen(pat);

	if (n < 2 || strcmp(pat + n - 2, "__"))
		return !strcmp(name, pat);
	return !strncmp(name, pat, n) && name[n] && !strstr(name + n, "__");
}

int pk_v8_want_match(const char *name, size_t *want, unsigned int *alt)
{
	for (size_t w = 0; w < pk_v8_n_wants; w++)
		for (unsigned int a = 0; a < PK_V8_MAX_ALTS && pk_v8_wants[w].names[a]; a++)
			if (name_is(name, pk_v8_wants[w].names[a])) {
				*want = w;
				*alt = a;
				return 0;
			}
	return -ENOENT;
}

__s32 pk_v8_value(const struct pk_v8 *v8, size_t w)
{
	__s32 v;

	memcpy(&v, (const char *)v8 + pk_v8_wants[w].at, sizeof(v));
	return v;
}

size_t pk_v8_missing(const struct pk_v8 *v8, char *buf, size_t len)
{
	size_t n = 0, at = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < pk_v8_n_wants; i++) {
		if (v8->found[i])
			continue;
		if (at < len)
			at += snprintf(buf + at, len - at, "%s%s%s", n ? ", " : "", PK_V8_PREFIX,
				       pk_v8_wants[i].names[0]);
		n++;
	}
	return n;
}
