// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * V8's postmortem metadata (tools/lib/v8.c) read from Debian's libnode:
 * node 20 (V8 11.3) in the Debian 13 test root, node 24 (V8 13.6) in
 * sid's (tests/roots/README.md). The oracle is gdb, printing each symbol
 * from the file as an int (gdb -batch -ex 'print (int)v8dbg_X' FILE):
 * several dozen values per version, under the full names that version
 * gives them, equal to what the reader found under the want's name it
 * reports. And, live: node run in its root maps that very file (the
 * same inode), and calls itself the V8 version its names are of. Debian
 * 12's node 18 cannot be installed on this host (no bookworm root), so
 * it is not here.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/v8.h"
#include "test_util.h"

#define AT(m)	offsetof(struct pk_v8, m)

/* A value, and the full symbol name this version gives it. */
struct named {
	size_t at;
	const char *sym;
};

struct node_version {
	const char *root, *lib;		/* the root, libnode's path in it */
	const char *v8;			/* process.versions.v8's start */
	unsigned int n_syms;		/* v8dbg_ symbols in .dynsym (readelf) */
	const char *missing;		/* pk_v8_missing() */
	struct named vals[64];
};

/* Names both versions share. */
#define COMMON \
	{ AT(smi_tag), "v8dbg_SmiTag" },	/* in .bss */ \
	{ AT(smi_tag_mask), "v8dbg_SmiTagMask" }, \
	{ AT(smi_shift_size), "v8dbg_SmiShiftSize" }, \
	{ AT(heap_object_tag), "v8dbg_HeapObjectTag" }, \
	{ AT(heap_object_tag_mask), "v8dbg_HeapObjectTagMask" }, \
	{ AT(pointer_size), "v8dbg_SystemPointerSize" }, \
	{ AT(first_nonstring_type), "v8dbg_FirstNonstringType" }, \
	{ AT(is_not_string_mask), "v8dbg_IsNotStringMask" }, \
	{ AT(string_encoding_mask), "v8dbg_StringEncodingMask" }, \
	{ AT(one_byte_string_tag), "v8dbg_OneByteStringTag" }, \
	{ AT(seq_string_tag), "v8dbg_SeqStringTag" },	/* in .bss */ \
	{ AT(cons_string_tag), "v8dbg_ConsStringTag" }, \
	{ AT(thin_string_tag), "v8dbg_ThinStringTag" }, \
	{ AT(off_fp_function), "v8dbg_off_fp_function" }, \
	{ AT(off_fp_context), "v8dbg_off_fp_context" }, \
	{ AT(off_fp_bytecode_array), "v8dbg_off_fp_bytecode_array" }, \
	{ AT(off_fp_bytecode_offset), "v8dbg_off_fp_bytecode_offset" }, \
	{ AT(off_fp_args), "v8dbg_off_fp_args" }, \
	{ AT(frametype_entry), "v8dbg_frametype_EntryFrame" }, \
	{ AT(frametype_interpreted), "v8dbg_frametype_InterpretedFrame" }, \
	{ AT(frametype_baseline), "v8dbg_frametype_BaselineFrame" }, \
	{ AT(frametype_maglev), "v8dbg_frametype_MaglevFrame" }, \
	{ AT(type_js_function), "v8dbg_type_JSFunction__JS_FUNCTION_TYPE" }, \
	{ AT(type_shared_function_info), \
	  "v8dbg_type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE" }, \
	{ AT(type_script), "v8dbg_type_Script__SCRIPT_TYPE" }, \
	{ AT(type_code), "v8dbg_type_Code__CODE_TYPE" }, \
	{ AT(type_bytecode_array), "v8dbg_type_BytecodeArray__BYTECODE_ARRAY_TYPE" }, \
	{ AT(type_scope_info), "v8dbg_type_ScopeInfo__SCOPE_INFO_TYPE" }, \
	{ AT(heap_object_map), "v8dbg_class_HeapObject__map__Map" },	/* in .bss */ \
	{ AT(map_instance_type), "v8dbg_class_Map__instance_type__uint16_t" }, \
	{ AT(jsfunction_shared), "v8dbg_class_JSFunction__shared__SharedFunctionInfo" }, \
	{ AT(script_name), "v8dbg_class_Script__name__Object" }, \
	{ AT(script_line_ends), "v8dbg_class_Script__line_ends__Object" }, \
	{ AT(script_source), "v8dbg_class_Script__source__Object" }, \
	{ AT(string_length), "v8dbg_class_String__length__int32_t" }, \
	{ AT(seq_one_byte_chars), "v8dbg_class_SeqOneByteString__chars__char" }, \
	{ AT(cons_first), "v8dbg_class_ConsString__first__String" }, \
	{ AT(fixed_array_length), "v8dbg_class_FixedArrayBase__length__SMI" }, \
	{ AT(fixed_array_data), "v8dbg_class_FixedArray__data__uintptr_t" }, \
	{ AT(bytecode_array_data), "v8dbg_class_BytecodeArray__data__uintptr_t" }, \
	{ AT(code_kind_mask), "v8dbg_CodeKindFieldMask" }, \
	{ AT(code_kind_shift), "v8dbg_CodeKindFieldShift" }, \
	{ AT(code_kind_baseline), "v8dbg_CodeKindBaseline" }, \
	{ AT(scopeinfo_first_vars), "v8dbg_scopeinfo_idx_first_vars" }, \
	{ AT(scopeinfo_ncontextlocals), "v8dbg_scopeinfo_idx_ncontextlocals" }, \
	{ AT(deopt_inlined_count), "v8dbg_DeoptimizationDataInlinedFunctionCountIndex" }, \
	{ AT(deopt_inlining_positions), "v8dbg_DeoptimizationDataInliningPositionsIndex" }

static const struct node_version versions[] = {
	{ "trixie", "/usr/lib/x86_64-linux-gnu/libnode.so.115", "11.3.", 531,
	  "v8dbg_FirstJSFunctionType, v8dbg_LastJSFunctionType, "
	  "v8dbg_class_Code__instruction_start__, v8dbg_class_Code__instruction_size__",
	  { COMMON,
	    { AT(frametype_turbofan), "v8dbg_frametype_TurbofanFrame" },
	    { AT(sfi_name_or_scope_info),
	      "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Object" },
	    { AT(sfi_script), "v8dbg_class_SharedFunctionInfo__script_or_debug_info__HeapObject" },
	    { AT(sfi_function_data), "v8dbg_class_SharedFunctionInfo__function_data__Object" },
	    { AT(jsfunction_context), "v8dbg_class_JSFunction__context__Context" },
	    { AT(code_source_positions),
	      "v8dbg_class_Code__source_position_table__ByteArray" },
	    { AT(deopt_sfi), "v8dbg_DeoptimizationDataSharedFunctionInfoIndex" } } },
	{ "sid", "/usr/lib/x86_64-linux-gnu/libnode.so.137", "13.6.", 480,
	  "v8dbg_class_SharedFunctionInfo__function_data__, "
	  "v8dbg_class_Code__source_position_table__",
	  { COMMON,
	    { AT(frametype_turbofan), "v8dbg_frametype_TurbofanJSFrame" },
	    { AT(first_js_function_type), "v8dbg_FirstJSFunctionType" },
	    { AT(last_js_function_type), "v8dbg_LastJSFunctionType" },
	    { AT(sfi_name_or_scope_info),
	      "v8dbg_class_SharedFunctionInfo__name_or_scope_info__Tagged_NameOrScopeInfoT_" },
	    { AT(sfi_script), "v8dbg_class_SharedFunctionInfo__script__Tagged_HeapObject_" },
	    { AT(sfi_script), "v8dbg_class_SharedFunctionInfo__raw_script__Tagged_Object_" },
	    { AT(jsfunction_context), "v8dbg_class_JSFunction__context__Tagged_Context_" },
	    { AT(jsfunction_context), "v8dbg_class_JSFunction__context__Context" },
	    { AT(code_instruction_start), "v8dbg_class_Code__instruction_start__Address" },
	    { AT(code_instruction_size), "v8dbg_class_Code__instruction_size__int" },
	    { AT(deopt_sfi), "v8dbg_DeoptimizationDataWrappedSharedFunctionInfoIndex" } } },
};
#define NVERSIONS	(sizeof(versions) / sizeof(versions[0]))

static size_t n_vals(const struct node_version *nv)
{
	size_t n = 0;

	while (n < sizeof(nv->vals) / sizeof(nv->vals[0]) && nv->vals[n].sym)
		n++;
	return n;
}

static __s32 member(const struct pk_v8 *v, size_t at)
{
	__s32 x;

	memcpy(&x, (const char *)v + at, sizeof(x));
	return x;
}

static bool found(const struct pk_v8 *v, size_t at)
{
	for (size_t i = 0; i < pk_v8_n_wants; i++)
		if (pk_v8_wants[i].at == at)
			return v->found[i];
	return false;
}

/* gdb's value of each of NV's symbols in FILE, in order, into OUT. */
static void gdb_values(const struct node_version *nv, const char *file, long *out, size_t n)
{
	char *argv[2 * 64 + 6], ex[64][256], *text = NULL, *p;
	size_t k = 0;

	argv[k++] = "gdb";
	argv[k++] = "-batch";
	argv[k++] = "-nx";
	for (size_t i = 0; i < n; i++) {
		snprintf(ex[i], sizeof(ex[i]), "print (int)%s", nv->vals[i].sym);
		argv[k++] = "-ex";
		argv[k++] = ex[i];
	}
	argv[k++] = (char *)file;
	argv[k] = NULL;
	ck_assert_int_eq(pk_test_run(argv, &text, NULL), 0);
	/* "$1 = -16" ... one line per print, in order */
	p = text;
	for (size_t i = 0; i < n; i++) {
		char want[16];
		int len;

		len = snprintf(want, sizeof(want), "$%zu = ", i + 1);
		p = strstr(p, want);
		ck_assert_msg(p, "gdb printed no %s: %s", nv->vals[i].sym, text);
		p += len;
		out[i] = strtol(p, &p, 10);
	}
	free(text);
}

/* Every value of the version against gdb, under this version's name. */
START_TEST(test_values_vs_gdb)
{
	const struct node_version *nv = &versions[_i];
	char path[4096], err[PK_ERR_LEN] = "", missing[1024];
	size_t n = n_vals(nv);
	long gdb[64];
	struct pk_v8 v;

	pk_test_roots_path(nv->root, path, sizeof(path));
	strncat(path, nv->lib, sizeof(path) - strlen(path) - 1);
	ck_assert_msg(access(path, R_OK) == 0, "%s missing (make test-deps)", path);
	ck_assert_msg(pk_v8_file(path, &v, err) == 0, "%s: %s", path, err);
	ck_assert_uint_eq(v.n_syms, nv->n_syms);
	pk_v8_missing(&v, missing, sizeof(missing));
	ck_assert_str_eq(missing, nv->missing);
	gdb_values(nv, path, gdb, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(found(&v, nv->vals[i].at), "%s: not found", nv->vals[i].sym);
		ck_assert_msg(member(&v, nv->vals[i].at) == gdb[i], "%s: read %d, gdb %ld",
			      nv->vals[i].sym, member(&v, nv->vals[i].at), gdb[i]);
	}
	/* the walk's value (tools/lib/v8_bpf.c): the numbers just checked,
	 * in its fields */
	{
		struct pk_v8_file f;

		ck_assert_msg(pk_v8_bpf_path(path, &f, err) == 0, "%s: %s", path, err);
		ck_assert_int_eq(f.off_fp_function, v.off_fp_function);
		ck_assert_int_eq(f.off_fp_marker, v.off_fp_context);
		ck_assert_int_eq(f.off_fp_bytecode_offset, v.off_fp_bytecode_offset);
		ck_assert_uint_eq(f.smi_shift, v.smi_shift_size + 1);
		ck_assert_uint_eq(f.heap_object_map, v.heap_object_map);
		ck_assert_uint_eq(f.map_instance_type, v.map_instance_type);
		ck_assert_uint_eq(f.jsfunction_shared, v.jsfunction_shared);
		ck_assert_uint_eq(f.sfi_name_or_scope_info, v.sfi_name_or_scope_info);
		ck_assert_uint_eq(f.sfi_script, v.sfi_script);
		ck_assert_uint_eq(f.script_name, v.script_name);
		ck_assert_uint_eq(f.script_source, v.script_source);
		/* 13.6 holds a function's position info in its ScopeInfo's
		 * fixed slots 3 and 4 (v8_walk checks the lines it gives) */
		ck_assert_uint_eq(f.scopeinfo_pos, strncmp(nv->v8, "11.", 3) ? 3 : 0);
		ck_assert_uint_eq(f.seq_one_byte_chars, v.seq_one_byte_chars);
		ck_assert_uint_eq(f.type_shared_function_info, v.type_shared_function_info);
		ck_assert_uint_eq(f.type_script, v.type_script);
		ck_assert_uint_eq(f.type_js_function_first,
				  v.first_js_function_type ? v.first_js_function_type :
							     v.type_js_function);
	}
	/* node itself is a launcher linking libnode: no metadata */
	pk_test_roots_path(nv->root, path, sizeof(path));
	strncat(path, "/usr/bin/node", sizeof(path) - strlen(path) - 1);
	ck_assert_int_eq(pk_v8_file(path, &v, err), -ENOENT);
}
END_TEST

/* node in its root maps the libnode read above (same inode) and runs the
 * V8 version whose names the list above gives. */
START_TEST(test_node_maps_it)
{
	const struct node_version *nv = &versions[_i];
	char in_root[4096], root[4096], lib[4096], *out = NULL, *line, want[64];
	struct stat st;
	bool mapped = false;
	char *argv[] = { in_root, root, "/usr/bin/node", "-e",
			 "process.stdout.write('v8 ' + process.versions.v8 + '\\n' + "
			 "require('fs').readFileSync('/proc/self/maps', 'utf8'))", NULL };

	pk_test_src_path("tests/roots/in_root.sh", in_root, sizeof(in_root));
	pk_test_roots_path(nv->root, root, sizeof(root));
	snprintf(lib, sizeof(lib), "%s%s", root, nv->lib);
	ck_assert_int_eq(stat(lib, &st), 0);
	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	snprintf(want, sizeof(want), "v8 %s", nv->v8);
	ck_assert_msg(!strncmp(out, want, strlen(want)), "node says %.40s", out);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long ino;
		char path[4096];

		/* start-end perms offset dev inode path */
		if (sscanf(line, "%*s %*s %*s %*s %llu %4095s", &ino, path) != 2)
			continue;
		if (!strcmp(path, nv->lib)) {
			ck_assert_uint_eq(ino, st.st_ino);
			mapped = true;
		}
	}
	ck_assert_msg(mapped, "node in %s does not map %s", nv->root, nv->lib);
	free(out);
}
END_TEST

Suite *suite_v8_file(void)
{
	Suite *s = suite_create("v8_file");
	TCase *gdb = tcase_create("gdb"), *live = tcase_create("live");

	tcase_set_timeout(gdb, 300);
	tcase_add_loop_test(gdb, test_values_vs_gdb, 0, NVERSIONS);
	suite_add_tcase(s, gdb);
	if (!pk_test_need_root(s, "node runs in its root (mount namespaces)"))
		return s;
	tcase_set_timeout(live, 120);
	tcase_add_loop_test(live, test_node_maps_it, 0, NVERSIONS);
	suite_add_tcase(s, live);
	return s;
}
