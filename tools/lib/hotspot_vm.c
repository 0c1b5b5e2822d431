// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The members of struct pk_hotspot_vm from a JVM's vmStructs tables
 * (tools/lib/hotspot.h). Each is looked up by the names HotSpot gives it;
 * where a JDK renamed a member or moved it to another class, the names
 * are tried in order and the one that matched is kept (found[]), so the
 * walk can tell, e.g., a code begin that is a pointer (JDK 17, 21) from one
 * that is an offset from the blob (_code_offset, JDK 25).
 *
 * Names per JDK, as Debian's builds describe themselves (checked by
 * tests/integration/test_hotspot_e2e.c against the serviceability agent):
 * - nmethod's _method, _scopes_data_begin, _deopt_handler_begin are
 *   CompiledMethod's in 17 and 21; 25 has no CompiledMethod;
 * - CodeBlob's _code_begin/_code_end are _code_offset/_data_offset in 25
 *   (ints from the blob's start), nmethod's _deopt_handler_begin
 *   _deopt_handler_offset and _scopes_data_begin _scopes_data_offset;
 * - ConstMethod's _flags (a u2 in 17) is a ConstMethodFlags in 21 and 25
 *   (_flags._flags, a u4), its line number table flag the constant
 *   ConstMethodFlags::_misc_has_linenumber_table;
 * - 25 moved nmethod's metadata into its mutable data (no
 *   _metadata_offset; CodeBlob._mutable_data and nmethod._immutable_data).
 * _deopt_handler_entry_offset is a later JDK's name for the handler
 * (the OpenTelemetry profiler's list), untested here.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "lib/hotspot.h"

#define AT(m)	offsetof(struct pk_hotspot_vm, m)
#define F(types, fields, m, req)	{ PK_HS_FIELD, types, fields, AT(m), req }
#define S(types, fields, m)		{ PK_HS_STATIC, types, fields, AT(m), true }
#define Z(types, m, req)		{ PK_HS_SIZE, types, NULL, AT(m), req }
#define I(names, m, req)		{ PK_HS_INT_CONST, names, NULL, AT(m), req }

const struct pk_hotspot_want pk_hotspot_wants[] = {
	S("CodeCache", "_heaps", codecache_heaps),
	S("CodeCache", "_low_bound", codecache_low_bound),
	S("CodeCache", "_high_bound", codecache_high_bound),
	S("AbstractInterpreter", "_code", interp_code),
	F("StubQueue", "_stub_buffer", stubqueue_stub_buffer, true),
	F("StubQueue", "_buffer_limit", stubqueue_buffer_limit, true),
	F("GrowableArrayBase", "_len", garray_len, true),
	F("GrowableArray<int>", "_data", garray_data, true),
	Z("CodeHeap", codeheap_size, false),
	F("CodeHeap", "_memory", codeheap_memory, true),
	F("CodeHeap", "_segmap", codeheap_segmap, true),
	F("CodeHeap", "_log2_segment_size", codeheap_log2_segment_size, true),
	F("VirtualSpace", "_low_boundary", vspace_low_boundary, true),
	F("VirtualSpace", "_high_boundary", vspace_high_boundary, true),
	F("VirtualSpace", "_low", vspace_low, true),
	F("VirtualSpace", "_high", vspace_high, true),
	Z("HeapBlock", heapblock_size, true),
	Z("CodeBlob", codeblob_size, false),
	F("CodeBlob", "_name", codeblob_name, true),
	F("CodeBlob", "_size", codeblob_blob_size, true),
	F("CodeBlob", "_frame_complete_offset", codeblob_frame_complete_offset, true),
	F("CodeBlob", "_frame_size", codeblob_frame_size, true),
	F("CodeBlob", "_code_begin|_code_offset", codeblob_code_begin, true),
	F("CodeBlob", "_code_end|_data_offset", codeblob_code_end, true),
	Z("nmethod", nmethod_size, false),
	F("nmethod|CompiledMethod", "_method", nmethod_method, true),
	F("nmethod", "_compile_id", nmethod_compile_id, true),
	F("nmethod", "_entry_bci", nmethod_entry_bci, false),
	F("nmethod", "_orig_pc_offset", nmethod_orig_pc_offset, false),
	F("nmethod|CompiledMethod",
	  "_deopt_handler_begin|_deopt_handler_offset|_deopt_handler_entry_offset",
	  nmethod_deopt_handler, false),
	F("nmethod", "_scopes_pcs_offset", nmethod_scopes_pcs_offset, false),
	F("nmethod|CompiledMethod", "_scopes_data_begin|_scopes_data_offset",
	  nmethod_scopes_data, false),
	F("nmethod", "_metadata_offset", nmethod_metadata_offset, false),
	F("nmethod", "_dependencies_offset", nmethod_dependencies_offset, false),
	F("nmethod", "_immutable_data", nmethod_immutable_data, false),
	F("nmethod", "_immutable_data_size", nmethod_immutable_data_size, false),
	F("CodeBlob", "_mutable_data", codeblob_mutable_data, false),
	F("CodeBlob", "_mutable_data_size", codeblob_mutable_data_size, false),
	F("CodeBlob", "_relocation_size", codeblob_relocation_size, false),
	Z("Method", method_size, false),
	F("Method", "_constMethod", method_const_method, true),
	F("Method", "_code", method_code, false),
	Z("ConstMethod", constmethod_size, true),
	F("ConstMethod", "_constants", constmethod_constants, true),
	F("ConstMethod", "_code_size", constmethod_code_size, true),
	F("ConstMethod", "_flags|_flags._flags", constmethod_flags, false),
	F("ConstMethod", "_name_index", constmethod_name_index, true),
	F("ConstMethod", "_signature_index", constmethod_signature_index, true),
	F("ConstMethod", "_method_idnum", constmethod_method_idnum, false),
	Z("ConstantPool", cpool_size, true),
	F("ConstantPool", "_pool_holder", cpool_pool_holder, true),
	F("ConstantPool", "_source_file_name_index", cpool_source_file_name_index, false),
	F("Klass", "_name", klass_name, true),
	Z("Symbol", symbol_size, false),
	F("Symbol", "_length|_length_and_refcount", symbol_length, true),
	F("Symbol", "_body", symbol_body, true),
	Z("PcDesc", pcdesc_size, false),
	F("PcDesc", "_pc_offset", pcdesc_pc_offset, false),
	F("PcDesc", "_scope_decode_offset", pcdesc_scope_decode_offset, false),
	I("frame::interpreter_frame_sender_sp_offset", frame_interp_sender_sp, true),
	I("frame::interpreter_frame_last_sp_offset", frame_interp_last_sp, true),
	I("frame::entry_frame_call_wrapper_offset", frame_entry_call_wrapper, false),
	I("oopSize", oop_size, false),
	I("ConstMethod::_has_linenumber_table|ConstMethodFlags::_misc_has_linenumber_table",
	  has_linenumber_table, false),
};
const size_t pk_hotspot_n_wants = sizeof(pk_hotspot_wants) / sizeof(pk_hotspot_wants[0]);

_Static_assert(sizeof(pk_hotspot_wants) / sizeof(pk_hotspot_wants[0]) <=
	       sizeof(((struct pk_hotspot_vm *)0)->found), "a found[] byte per want");
_Static_assert(sizeof(((struct pk_hotspot_vm *)0)->found) ==
	       sizeof(((struct pk_hotspot_vm *)0)->width), "a width per want");

/* The Nth '|'-separated name of LIST into BUF; false past the last. */
static bool nth_name(const char *list, unsigned int n, char *buf, size_t len)
{
	for (; n; n--) {
		list = strchr(list, '|');
		if (!list)
			return false;
		list++;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(list, "|"), list);
	return true;
}

/* The size of a member of C type TS (NULL: unknown), or 0 when the types
 * do not say: a pointer's is 8 (the tables list few pointer types). */
static __u8 member_width(const struct pk_hotspot_tables *t, const char *ts)
{
	size_t len = ts ? strlen(ts) : 0;
	__u64 size;

	if (len && ts[len - 1] == '*')
		return 8;
	if (len && !pk_hotspot_type_size(t, ts, &size) && size <= 0xff)
		return size;
	return 0;
}

/* W's value in T under the names TYPE and FIELD, and the size of a
 * member's C type where T's types give it (*WIDTH untouched otherwise). */
static int find_one(const struct pk_hotspot_tables *t, const struct pk_hotspot_want *w,
		    const char *type, const char *field, __u64 *v, __u8 *width)
{
	switch (w->kind) {
	case PK_HS_FIELD:
	case PK_HS_STATIC:
		for (size_t i = 0; i < t->n_structs; i++)
			if (t->structs[i].is_static == (w->kind == PK_HS_STATIC) &&
			    !strcmp(t->structs[i].type, type) && t->structs[i].field &&
			    !strcmp(t->structs[i].field, field)) {
				*v = t->structs[i].value;
				*width = member_width(t, t->structs[i].type_string);
				return 0;
			}
		return -ENOENT;
	case PK_HS_SIZE:
		return pk_hotspot_type_size(t, type, v);
	case PK_HS_INT_CONST:
		return pk_hotspot_int(t, type, v);
	}
	return -ENOENT;
}

/* The first of W's names T has: 0 and *V, *WHICH its rank among the
 * member names (1: the first), or -ENOENT. */
static int find(const struct pk_hotspot_tables *t, const struct pk_hotspot_want *w, __u64 *v,
		__u8 *which, __u8 *width)
{
	char type[PK_HS_MAX_NAME], field[PK_HS_MAX_NAME] = "";

	for (unsigned int f = 0; !w->fields || nth_name(w->fields, f, field, sizeof(field));
	     f++) {
		for (unsigned int k = 0; nth_name(w->types, k, type, sizeof(type)); k++)
			if (!find_one(t, w, type, field, v, width)) {
				/* constants: which of their names */
				*which = (w->fields ? f : k) + 1;
				return 0;
			}
		if (!w->fields)
			break;
	}
	return -ENOENT;
}

/* "Type.field" of W (its first names) into BUF. */
static void want_name(const struct pk_hotspot_want *w, char *buf, size_t len)
{
	char type[PK_HS_MAX_NAME], field[PK_HS_MAX_NAME];

	nth_name(w->types, 0, type, sizeof(type));
	if (w->fields && nth_name(w->fields, 0, field, sizeof(field)))
		snprintf(buf, len, "%s.%s", type, field);
	else if (w->kind == PK_HS_SIZE)
		snprintf(buf, len, "sizeof(%s)", type);
	else
		snprintf(buf, len, "%s", type);
}

int pk_hotspot_vm_extract(const struct pk_hotspot_tables *t, struct pk_hotspot_vm *out,
			  char err[PK_ERR_LEN])
{
	const struct pk_hotspot_want *missing = NULL;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < pk_hotspot_n_wants; i++) {
		const struct pk_hotspot_want *w = &pk_hotspot_wants[i];
		__u64 v;

		if (find(t, w, &v, &out->found[i], &out->width[i])) {
			if (w->required && !missing)
				missing = w;
			continue;
		}
		memcpy((char *)out + w->at, &v, sizeof(v));
		if (w->at == AT(codeblob_code_begin))
			out->code_is_offset = out->found[i] == 2;
	}
	if (missing) {
		char name[2 * PK_HS_MAX_NAME];

		want_name(missing, name, sizeof(name));
		return pk_err(err, -ENOTSUP, "HotSpot describes no %s", name);
	}
	return 0;
}

size_t pk_hotspot_missing(const struct pk_hotspot_vm *vm, char *buf, size_t len)
{
	size_t n = 0, at = 0;

	if (len)
		buf[0] = 0;
	for (size_t i = 0; i < pk_hotspot_n_wants; i++) {
		char name[2 * PK_HS_MAX_NAME];

		if (vm->found[i])
			continue;
		want_name(&pk_hotspot_wants[i], name, sizeof(name));
		if (at < len)
			at += snprintf(buf + at, len - at, "%s%s", n ? ", " : "", name);
		n++;
	}
	return n;
}
