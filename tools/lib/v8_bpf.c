// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * A V8's v8_files value (bpf/v8_records.h): its postmortem metadata
 * (tools/lib/v8.c) reduced to what the JavaScript walk reads, each number
 * checked to fit the field it goes in. Constants of the file: no process
 * is read.
 */
#include <errno.h>
#include <string.h>

#include "lib/v8.h"

#define AT(m)	offsetof(struct pk_v8, m)

/* Whether want AT of V was found. */
static bool has(const struct pk_v8 *v, size_t at)
{
	for (size_t i = 0; i < pk_v8_n_wants; i++)
		if (pk_v8_wants[i].at == at)
			return v->found[i];
	return false;
}

int pk_v8_bpf_file(const struct pk_v8 *v, struct pk_v8_file *out, char err[PK_ERR_LEN])
{
	const struct { __s32 v; __u16 *to; const char *name; } u16s[] = {
		{ v->heap_object_map, &out->heap_object_map, "HeapObject map" },
		{ v->map_instance_type, &out->map_instance_type, "Map instance_type" },
		{ v->jsfunction_shared, &out->jsfunction_shared, "JSFunction shared" },
		{ v->sfi_name_or_scope_info, &out->sfi_name_or_scope_info,
		  "SharedFunctionInfo name_or_scope_info" },
		{ v->sfi_script, &out->sfi_script, "SharedFunctionInfo script" },
		{ v->script_name, &out->script_name, "Script name" },
		{ has(v, AT(script_source)) ? v->script_source : 0, &out->script_source,
		  "Script source" },
		{ v->string_length, &out->string_length, "String length" },
		{ v->seq_one_byte_chars, &out->seq_one_byte_chars, "SeqOneByteString chars" },
		{ v->cons_first, &out->cons_first, "ConsString first" },
		{ v->cons_second, &out->cons_second, "ConsString second" },
		{ v->thin_actual, &out->thin_actual, "ThinString actual" },
		{ v->type_shared_function_info, &out->type_shared_function_info,
		  "SHARED_FUNCTION_INFO_TYPE" },
		{ v->type_scope_info, &out->type_scope_info, "SCOPE_INFO_TYPE" },
		{ v->type_script, &out->type_script, "SCRIPT_TYPE" },
		{ v->first_nonstring_type, &out->first_nonstring_type, "FirstNonstringType" },
	};
	const struct { __s32 v; __u8 *to; const char *name; } u8s[] = {
		{ v->string_repr_mask, &out->string_repr_mask, "StringRepresentationMask" },
		{ v->string_encoding_mask, &out->string_encoding_mask, "StringEncodingMask" },
		{ v->one_byte_string_tag, &out->one_byte_string_tag, "OneByteStringTag" },
		{ v->seq_string_tag, &out->seq_string_tag, "SeqStringTag" },
		{ v->cons_string_tag, &out->cons_string_tag, "ConsStringTag" },
		{ v->thin_string_tag, &out->thin_string_tag, "ThinStringTag" },
		{ v->heap_object_tag, &out->heap_object_tag, "HeapObjectTag" },
		{ v->heap_object_tag_mask, &out->heap_object_tag_mask, "HeapObjectTagMask" },
		{ v->smi_tag, &out->smi_tag, "SmiTag" },
		{ v->smi_tag_mask, &out->smi_tag_mask, "SmiTagMask" },
		{ v->scopeinfo_first_vars, &out->scopeinfo_first_vars, "scopeinfo_idx_first_vars" },
		{ v->scopeinfo_ncontextlocals, &out->scopeinfo_ncontextlocals,
		  "scopeinfo_idx_ncontextlocals" },
	};
	__s32 marker = has(v, AT(off_fp_context_or_frame_type)) ?
		       v->off_fp_context_or_frame_type : v->off_fp_context;
	__s32 first = v->type_js_function, last = v->type_js_function;

	memset(out, 0, sizeof(*out));
	/* the walk reads words: a Smi is the word's upper half (no pointer
	 * compression), a frame slot a word below the frame pointer */
	if (has(v, AT(pointer_size)) && v->pointer_size != 8)
		return pk_err(err, -ENOTSUP, "V8's pointers are %d bytes", v->pointer_size);
	if (v->smi_shift_size + 1 != 32)
		return pk_err(err, -ENOTSUP, "V8's Smi shift size is %d, not 31: pointer compression?",
			      v->smi_shift_size);
	for (size_t i = 0; i < 3; i++) {
		__s32 off = i == 0 ? marker : i == 1 ? v->off_fp_function : v->off_fp_bytecode_offset;

		if (off >= 0 || off < -256 || (off & 7))
			return pk_err(err, -ENOTSUP, "V8's frame slot %d is not a word below the frame pointer",
				      off);
	}
	if (!has(v, AT(off_fp_bytecode_offset)) || !has(v, AT(thin_actual)) ||
	    !has(v, AT(thin_string_tag)) || !has(v, AT(type_scope_info)) ||
	    !has(v, AT(scopeinfo_first_vars)) || !has(v, AT(scopeinfo_ncontextlocals)))
		return pk_err(err, -ENOTSUP, "V8 does not describe %s",
			      "its frames' bytecode offset, thin strings or ScopeInfo");
	if (has(v, AT(first_js_function_type)) && has(v, AT(last_js_function_type))) {
		first = v->first_js_function_type;
		last = v->last_js_function_type;
	}
	for (size_t i = 0; i < sizeof(u16s) / sizeof(u16s[0]); i++) {
		if (u16s[i].v < 0 || u16s[i].v > 0xffff)
			return pk_err(err, -ERANGE, "V8's %s is %d", u16s[i].name, u16s[i].v);
		*u16s[i].to = u16s[i].v;
	}
	for (size_t i = 0; i < sizeof(u8s) / sizeof(u8s[0]); i++) {
		if (u8s[i].v < 0 || u8s[i].v > 0xff)
			return pk_err(err, -ERANGE, "V8's %s is %d", u8s[i].name, u8s[i].v);
		*u8s[i].to = u8s[i].v;
	}
	if (first < 0 || last > 0xffff || first > last)
		return pk_err(err, -ERANGE, "V8's JSFunction types are %d to %d", first, last);
	out->type_js_function_first = first;
	out->type_js_function_last = last;
	out->off_fp_marker = marker;
	out->off_fp_function = v->off_fp_function;
	out->off_fp_bytecode_offset = v->off_fp_bytecode_offset;
	out->smi_shift = v->smi_shift_size + 1;
	/* V8 12.8 moved a function's position info into the ScopeInfo's
	 * fixed part, the two slots between the count of context locals and
	 * the variables (undescribed: checked per version by v8_walk) */
	if (v->scopeinfo_first_vars == v->scopeinfo_ncontextlocals + 3)
		out->scopeinfo_pos = v->scopeinfo_first_vars - 2;
	return 0;
}

int pk_v8_bpf_path(const char *path, struct pk_v8_file *out, char err[PK_ERR_LEN])
{
	struct pk_v8 v;
	int ret = pk_v8_file(path, &v, err);

	return ret ? ret : pk_v8_bpf_file(&v, out, err);
}
