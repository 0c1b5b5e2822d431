// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/lib/hotspot.c and hotspot_vm.c on synthetic processes: tables laid
 * out in a fake address space as HotSpot lays them out (the entry layouts
 * Debian's OpenJDK 17 gives: a struct entry of 48 bytes, a type's of 40,
 * a constant's of 16), read through the memory callback. Good tables,
 * JDK 25's names, and what a hostile process can make of them: truncated,
 * endless, absurd strides and offsets, names that do not end, addresses
 * that wrap. Detection on real files: Debian's libjvm and libc. The fake
 * process is hotspot_fake.h's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "lib/hotspot.h"
#include "test_util.h"
#include "unit/lib/hotspot_fake.h"

/* An endless table from ENDLESS on: the entry at 0x8000 in the region,
 * over and over. */
#define ENDLESS	(HF_BASE + 0x10000000ull)

static long repeat_read(void *ctx, __u64 addr, void *buf, size_t len)
{
	struct pk_hf_fake *f = ctx;

	if (addr < ENDLESS)
		return pk_hf_read(ctx, addr, buf, len);
	for (size_t i = 0; i < len; i++)
		((__u8 *)buf)[i] = f->mem[0x8000 + (addr + i - ENDLESS) % 48];
	return len;
}

/* A JDK 17 subset with every member struct pk_hotspot_vm requires. */
static const struct pk_hf_field fields17[] = {
	{ "CodeCache", "_heaps", "GrowableArray<CodeHeap*>*", true, 0x7f1000000000 },
	{ "CodeCache", "_low_bound", "address", true, 0x7f1000000020 },
	{ "CodeCache", "_high_bound", "address", true, 0x7f1000000018 },
	{ "AbstractInterpreter", "_code", "StubQueue*", true, 0x7f1000000040 },
	{ "StubQueue", "_stub_buffer", "address", false, 8 },
	{ "StubQueue", "_buffer_limit", "int", false, 20 },
	{ "GrowableArrayBase", "_len", "int", false, 0 },
	{ "GrowableArray<int>", "_data", "int*", false, 8 },
	{ "CodeHeap", "_memory", "VirtualSpace", false, 8 },
	{ "CodeHeap", "_segmap", "VirtualSpace", false, 120 },
	{ "CodeHeap", "_log2_segment_size", "int", false, 256 },
	{ "VirtualSpace", "_low_boundary", "char*", false, 0 },
	{ "VirtualSpace", "_high_boundary", "char*", false, 8 },
	{ "VirtualSpace", "_low", "char*", false, 16 },
	{ "VirtualSpace", "_high", "char*", false, 24 },
	{ "CodeBlob", "_name", "char*", false, 96 },
	{ "CodeBlob", "_size", "int", false, 12 },
	{ "CodeBlob", "_frame_complete_offset", "int", false, 20 },
	{ "CodeBlob", "_frame_size", "int", false, 28 },
	{ "CodeBlob", "_code_begin", "address", false, 32 },
	{ "CodeBlob", "_code_end", "address", false, 40 },
	{ "CompiledMethod", "_method", "Method*", false, 112 },
	{ "nmethod", "_compile_id", "int", false, 304 },
	{ "Method", "_constMethod", "ConstMethod*", false, 8 },
	{ "ConstMethod", "_constants", "ConstantPool*", false, 8 },
	{ "ConstMethod", "_code_size", "u2", false, 32 },
	{ "ConstMethod", "_name_index", "u2", false, 34 },
	{ "ConstMethod", "_signature_index", "u2", false, 36 },
	{ "ConstantPool", "_pool_holder", "InstanceKlass*", false, 24 },
	{ "Klass", "_name", "Symbol*", false, 24 },
	{ "Symbol", "_length", "u2", false, 4 },
	{ "Symbol", "_body", NULL, false, 6 },	/* no type string */
};

static const struct pk_hf_named types17[] = {
	{ "int", 4 }, { "u2", 2 }, { "address", 8 }, { "CodeHeap", 344 }, { "HeapBlock", 16 },
	{ "CodeBlob", 104 }, { "nmethod", 352 }, { "ConstMethod", 48 }, { "ConstantPool", 72 },
};

static const struct pk_hf_named ints17[] = {
	{ "frame::interpreter_frame_sender_sp_offset", -1 },
	{ "frame::interpreter_frame_last_sp_offset", -2 },
	{ "oopSize", 8 },
};

static const struct pk_hf_named longs17[] = { { "markWord::age_mask", 15 } };

#define N(a)	(sizeof(a) / sizeof((a)[0]))

/* The other tables, and the symbols of all four. */
static void finish(struct pk_hf_jvm *b)
{
	b->types = pk_hf_build_named(&b->f, types17, N(types17), HF_T_STRIDE, 32, false);
	b->ints = pk_hf_build_named(&b->f, ints17, N(ints17), HF_C_STRIDE, 8, true);
	b->longs = pk_hf_build_named(&b->f, longs17, N(longs17), HF_C_STRIDE, 8, false);
	pk_hf_sym(b, PK_HS_STRUCTS, b->structs);
	pk_hf_sym(b, PK_HS_STRUCT_STRIDE, HF_S_STRIDE);
	pk_hf_sym(b, PK_HS_STRUCT_TYPE_NAME, 0);
	pk_hf_sym(b, PK_HS_STRUCT_FIELD_NAME, 8);
	pk_hf_sym(b, PK_HS_STRUCT_TYPE_STRING, 16);
	pk_hf_sym(b, PK_HS_STRUCT_IS_STATIC, 24);
	pk_hf_sym(b, PK_HS_STRUCT_OFFSET, 32);
	pk_hf_sym(b, PK_HS_STRUCT_ADDRESS, 40);
	pk_hf_sym(b, PK_HS_TYPES, b->types);
	pk_hf_sym(b, PK_HS_TYPE_STRIDE, HF_T_STRIDE);
	pk_hf_sym(b, PK_HS_TYPE_TYPE_NAME, 0);
	pk_hf_sym(b, PK_HS_TYPE_SIZE, 32);
	pk_hf_sym(b, PK_HS_INTS, b->ints);
	pk_hf_sym(b, PK_HS_INT_STRIDE, HF_C_STRIDE);
	pk_hf_sym(b, PK_HS_INT_NAME, 0);
	pk_hf_sym(b, PK_HS_INT_VALUE, 8);
	pk_hf_sym(b, PK_HS_LONGS, b->longs);
	pk_hf_sym(b, PK_HS_LONG_STRIDE, HF_C_STRIDE);
	pk_hf_sym(b, PK_HS_LONG_NAME, 0);
	pk_hf_sym(b, PK_HS_LONG_VALUE, 8);
	ck_assert_uint_eq(b->syms.found, (1u << PK_HS_NSYMS) - 1);
}

static void build(struct pk_hf_jvm *b, const struct pk_hf_field *fields, size_t nfields)
{
	pk_hf_region(b, HF_SIZE);
	b->structs = pk_hf_build_structs(&b->f, fields, nfields);
	finish(b);
}

START_TEST(test_good_tables)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	char err[PK_ERR_LEN];
	__u64 v;

	build(&b, fields17, N(fields17));
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_uint_eq(t.n_structs, N(fields17));
	ck_assert_uint_eq(t.n_types, N(types17));
	ck_assert_uint_eq(t.n_ints, N(ints17));
	ck_assert_uint_eq(t.n_longs, N(longs17));
	/* every entry as laid out */
	for (size_t i = 0; i < N(fields17); i++) {
		ck_assert_str_eq(t.structs[i].type, fields17[i].type);
		ck_assert_str_eq(t.structs[i].field, fields17[i].field);
		if (fields17[i].ts)
			ck_assert_str_eq(t.structs[i].type_string, fields17[i].ts);
		else
			ck_assert_ptr_null(t.structs[i].type_string);
		ck_assert_int_eq(t.structs[i].is_static, fields17[i].is_static);
		ck_assert_uint_eq(t.structs[i].value, fields17[i].value);
	}
	/* equal names are one string (one read, one copy) */
	ck_assert_ptr_eq(t.structs[0].type, t.structs[1].type);
	ck_assert_int_eq(pk_hotspot_field(&t, "CodeHeap", "_segmap", &v), 0);
	ck_assert_uint_eq(v, 120);
	ck_assert_int_eq(pk_hotspot_field(&t, "CodeHeap", "_nothing", &v), -ENOENT);
	ck_assert_int_eq(pk_hotspot_type_size(&t, "CodeBlob", &v), 0);
	ck_assert_uint_eq(v, 104);
	ck_assert_int_eq(pk_hotspot_int(&t, "frame::interpreter_frame_last_sp_offset", &v), 0);
	ck_assert_int_eq((__s64)v, -2);		/* an int, sign-extended */
	ck_assert_int_eq(pk_hotspot_long(&t, "markWord::age_mask", &v), 0);
	ck_assert_uint_eq(v, 15);
	ck_assert_int_eq(pk_hotspot_long(&t, "oopSize", &v), -ENOENT);
	/* a few page reads, not one per name */
	ck_assert_uint_le(t.reads, 64);
	ck_assert_uint_eq(t.reads, b.f.calls);
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);
}
END_TEST

START_TEST(test_extract_jdk17)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm;
	char err[PK_ERR_LEN], missing[4096];
	size_t n;

	build(&b, fields17, N(fields17));
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_int_eq(pk_hotspot_vm_extract(&t, &vm, err), 0);
	ck_assert_uint_eq(vm.codecache_heaps, 0x7f1000000000);
	ck_assert_uint_eq(vm.codecache_high_bound, 0x7f1000000018);
	ck_assert_uint_eq(vm.codeheap_segmap, 120);
	ck_assert_uint_eq(vm.codeheap_size, 344);
	ck_assert_uint_eq(vm.heapblock_size, 16);
	ck_assert_uint_eq(vm.codeblob_frame_size, 28);
	ck_assert_uint_eq(vm.codeblob_code_begin, 32);
	ck_assert(!vm.code_is_offset);
	ck_assert_uint_eq(vm.nmethod_method, 112);	/* CompiledMethod's */
	ck_assert_uint_eq(vm.nmethod_compile_id, 304);
	ck_assert_uint_eq(vm.constmethod_signature_index, 36);
	ck_assert_uint_eq(vm.klass_name, 24);
	ck_assert_uint_eq(vm.symbol_body, 6);
	ck_assert_int_eq(vm.frame_interp_sender_sp, -1);
	ck_assert_uint_eq(vm.oop_size, 8);
	/* widths from the type strings: a u2, an int, a pointer, none */
	for (size_t i = 0; i < pk_hotspot_n_wants; i++) {
		const struct pk_hotspot_want *w = &pk_hotspot_wants[i];
		unsigned int want = 0;

		if (w->at == offsetof(struct pk_hotspot_vm, constmethod_name_index))
			want = 2;
		else if (w->at == offsetof(struct pk_hotspot_vm, codeblob_frame_size))
			want = 4;
		else if (w->at == offsetof(struct pk_hotspot_vm, klass_name))
			want = 8;
		else if (w->at != offsetof(struct pk_hotspot_vm, symbol_body))
			continue;
		ck_assert_uint_eq(vm.found[i], 1);
		ck_assert_uint_eq(vm.width[i], want);
	}
	/* what this subset lacks is named, the optional members */
	n = pk_hotspot_missing(&vm, missing, sizeof(missing));
	ck_assert_ptr_nonnull(strstr(missing, "nmethod._scopes_pcs_offset"));
	ck_assert_ptr_nonnull(strstr(missing, "sizeof(Method)"));
	ck_assert_ptr_nonnull(strstr(missing, "ConstMethod._flags, "));
	ck_assert_ptr_null(strstr(missing, "CodeBlob._frame_size"));
	ck_assert_uint_gt(n, 10);
	/* a short buffer: the count all the same, the text cut */
	ck_assert_uint_eq(pk_hotspot_missing(&vm, missing, 8), n);
	ck_assert_uint_eq(strlen(missing), 7);
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);
}
END_TEST

/* JDK 25's names: a code begin that is an offset, nmethod's own _method. */
START_TEST(test_extract_jdk25_names)
{
	struct pk_hf_field v[N(fields17)];
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm;
	char err[PK_ERR_LEN];

	memcpy(v, fields17, sizeof(v));
	for (size_t i = 0; i < N(v); i++) {
		if (!strcmp(v[i].field, "_code_begin"))
			v[i] = (struct pk_hf_field){ "CodeBlob", "_code_offset", "int", false, 36 };
		else if (!strcmp(v[i].field, "_code_end"))
			v[i] = (struct pk_hf_field){ "CodeBlob", "_data_offset", "int", false, 40 };
		else if (!strcmp(v[i].field, "_method"))
			v[i] = (struct pk_hf_field){ "nmethod", "_method", "Method*", false, 80 };
	}
	build(&b, v, N(v));
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_int_eq(pk_hotspot_vm_extract(&t, &vm, err), 0);
	ck_assert(vm.code_is_offset);
	ck_assert_uint_eq(vm.codeblob_code_begin, 36);
	ck_assert_uint_eq(vm.codeblob_code_end, 40);
	ck_assert_uint_eq(vm.nmethod_method, 80);
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);
}
END_TEST

/*
 * The hs_files value of a JVM: the statics as the file's vaddrs (less the
 * bias), the offsets as they are, the interpreter frame's slots of
 * frame_x86.hpp; an offset past a u16, or another interpreter frame,
 * refused by name.
 */
START_TEST(test_hs_file)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm, bad;
	struct pk_hs_file hs;
	char err[PK_ERR_LEN];

	build(&b, fields17, N(fields17));
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_int_eq(pk_hotspot_vm_extract(&t, &vm, err), 0);
	ck_assert_int_eq(pk_hotspot_hs_file(&vm, 0x7f0000000000, &hs, err), 0);
	ck_assert_uint_eq(hs.codecache_heaps, 0x1000000000);
	ck_assert_uint_eq(hs.codecache_low_bound, 0x1000000020);
	ck_assert_uint_eq(hs.codecache_high_bound, 0x1000000018);
	ck_assert_uint_eq(hs.interp_code, 0x1000000040);
	ck_assert_uint_eq(hs.stubqueue_buffer, 8);
	ck_assert_uint_eq(hs.stubqueue_buffer_limit, 20);
	ck_assert_uint_eq(hs.codeheap_segmap, 120);
	ck_assert_uint_eq(hs.vspace_low, 16);
	ck_assert_uint_eq(hs.vspace_high_boundary, 8);
	ck_assert_uint_eq(hs.heapblock_size, 16);
	ck_assert_uint_eq(hs.codeblob_name, 96);
	ck_assert_uint_eq(hs.codeblob_frame_size, 28);
	ck_assert_uint_eq(hs.codeblob_code_begin, 32);
	ck_assert_uint_eq(hs.nmethod_method, 112);
	ck_assert_uint_eq(hs.nmethod_compile_id, 304);
	ck_assert_uint_eq(hs.symbol_body, 6);
	ck_assert_uint_eq(hs.flags, 0);
	ck_assert_int_eq(hs.frame_interp_sender_sp, -1);
	ck_assert_int_eq(hs.frame_interp_last_sp, -2);
	ck_assert_int_eq(hs.frame_interp_method, -3);
	ck_assert_int_eq(hs.frame_interp_bcp, -8);
	ck_assert_uint_eq(hs.frame_complete_width, 4);

	bad = vm;
	bad.codeblob_frame_size = PK_HS_NONE;
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), -ERANGE);
	ck_assert_str_eq(err, "HotSpot's CodeBlob._frame_size is 65535: past what the walk reads");
	bad.codeblob_frame_size = PK_HS_NONE - 1;
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.codeblob_frame_size, PK_HS_NONE - 1);
	bad = vm;
	bad.frame_interp_last_sp = (__u64)-3;
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), -ENOTSUP);
	ck_assert_str_eq(err, "HotSpot's interpreter frame is not frame_x86.hpp's (sender sp -1, last sp -3)");
	/* JDK 25's int16_t, and a width the walk does not read */
	for (size_t i = 0; i < pk_hotspot_n_wants; i++)
		if (pk_hotspot_wants[i].at ==
		    offsetof(struct pk_hotspot_vm, codeblob_frame_complete_offset)) {
			bad = vm;
			bad.width[i] = 2;
			ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
			ck_assert_uint_eq(hs.frame_complete_width, 2);
			bad.width[i] = 8;
			ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), -ENOTSUP);
			ck_assert_str_eq(err, "HotSpot's CodeBlob._frame_complete_offset is 8 bytes");
		}
	bad = vm;
	bad.code_is_offset = true;
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags, PK_HS_CODE_OFFSET);
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);
}
END_TEST

/* VM's member at offset AT set to V, as found under its name FOUND with
 * WIDTH bytes (0: not found). */
static void vm_set(struct pk_hotspot_vm *vm, size_t at, __u64 v, __u8 found, __u8 width)
{
	for (size_t i = 0; i < pk_hotspot_n_wants; i++)
		if (pk_hotspot_wants[i].at == at) {
			memcpy((char *)vm + at, &v, sizeof(v));
			vm->found[i] = found;
			vm->width[i] = width;
			return;
		}
	ck_abort_msg("no want at %zu", at);
}

#define VM_AT(m)	offsetof(struct pk_hotspot_vm, m)

/*
 * What BPF sends an nmethod's scopes with: JDK 17's and 21's offsets from
 * the nmethod (PK_HS_SCOPES), JDK 25's immutable and mutable data
 * (PK_HS_IMMUTABLE too), as Debian's JDKs describe them; none of it where
 * a member is missing, is not an int, or a PcDesc's member is past its
 * size (the walk's frames are the same either way).
 */
START_TEST(test_hs_file_scopes)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm, v25, bad;
	struct pk_hs_file hs;
	char err[PK_ERR_LEN];

	build(&b, fields17, N(fields17));
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_int_eq(pk_hotspot_vm_extract(&t, &vm, err), 0);
	ck_assert_int_eq(pk_hotspot_hs_file(&vm, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & (PK_HS_SCOPES | PK_HS_IMMUTABLE), 0);
	/* JDK 17 */
	vm_set(&vm, VM_AT(pcdesc_size), 16, 1, 0);
	vm_set(&vm, VM_AT(pcdesc_pc_offset), 0, 1, 4);
	vm_set(&vm, VM_AT(pcdesc_scope_decode_offset), 4, 1, 4);
	vm_set(&vm, VM_AT(nmethod_scopes_pcs_offset), 268, 1, 4);
	vm_set(&vm, VM_AT(nmethod_scopes_data), 120, 1, 0);	/* address: no width */
	vm_set(&vm, VM_AT(nmethod_dependencies_offset), 272, 1, 4);
	vm_set(&vm, VM_AT(nmethod_metadata_offset), 260, 1, 4);
	ck_assert_int_eq(pk_hotspot_hs_file(&vm, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & (PK_HS_SCOPES | PK_HS_IMMUTABLE), PK_HS_SCOPES);
	ck_assert_uint_eq(hs.nmethod_scopes_pcs, 268);
	ck_assert_uint_eq(hs.nmethod_scopes_end, 272);
	ck_assert_uint_eq(hs.nmethod_scopes_data, 120);
	ck_assert_uint_eq(hs.nmethod_metadata, 260);
	ck_assert_uint_eq(hs.pcdesc_size, 16);
	ck_assert_uint_eq(hs.pcdesc_pc_offset, 0);
	ck_assert_uint_eq(hs.pcdesc_scope_decode_offset, 4);
	/* JDK 25 */
	v25 = vm;
	vm_set(&v25, VM_AT(nmethod_scopes_pcs_offset), 196, 1, 4);
	vm_set(&v25, VM_AT(nmethod_scopes_data), 200, 2, 4);	/* _scopes_data_offset */
	vm_set(&v25, VM_AT(nmethod_dependencies_offset), 0, 0, 0);
	vm_set(&v25, VM_AT(nmethod_metadata_offset), 0, 0, 0);
	vm_set(&v25, VM_AT(nmethod_immutable_data), 96, 1, 8);
	vm_set(&v25, VM_AT(nmethod_immutable_data_size), 160, 1, 4);
	vm_set(&v25, VM_AT(codeblob_mutable_data), 16, 1, 8);
	vm_set(&v25, VM_AT(codeblob_mutable_data_size), 48, 1, 4);
	vm_set(&v25, VM_AT(codeblob_relocation_size), 28, 1, 4);
	ck_assert_int_eq(pk_hotspot_hs_file(&v25, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & (PK_HS_SCOPES | PK_HS_IMMUTABLE),
			  PK_HS_SCOPES | PK_HS_IMMUTABLE);
	ck_assert_uint_eq(hs.nmethod_scopes_pcs, 196);
	ck_assert_uint_eq(hs.nmethod_scopes_end, 200);
	ck_assert_uint_eq(hs.nmethod_scopes_data, 96);
	ck_assert_uint_eq(hs.nmethod_data_size, 160);
	ck_assert_uint_eq(hs.nmethod_metadata, 16);
	ck_assert_uint_eq(hs.codeblob_mutable_data_size, 48);
	ck_assert_uint_eq(hs.codeblob_relocation_size, 28);
	/* what does not hold: no scopes, the walk's members as before */
	bad = vm;
	vm_set(&bad, VM_AT(nmethod_metadata_offset), 0, 0, 0);
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & PK_HS_SCOPES, 0);
	ck_assert_uint_eq(hs.codeblob_frame_size, 28);
	bad = vm;
	vm_set(&bad, VM_AT(nmethod_scopes_pcs_offset), 268, 1, 2);
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & PK_HS_SCOPES, 0);
	bad = vm;
	vm_set(&bad, VM_AT(pcdesc_scope_decode_offset), 13, 1, 4);
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & PK_HS_SCOPES, 0);
	bad = vm;
	vm_set(&bad, VM_AT(nmethod_scopes_data), 200, 2, 4);	/* an int, no immutable data */
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & PK_HS_SCOPES, 0);
	bad = v25;
	vm_set(&bad, VM_AT(codeblob_relocation_size), 0, 0, 0);
	ck_assert_int_eq(pk_hotspot_hs_file(&bad, 0, &hs, err), 0);
	ck_assert_uint_eq(hs.flags & (PK_HS_SCOPES | PK_HS_IMMUTABLE), 0);
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);
}
END_TEST

/* A required member missing: -ENOTSUP naming it, the rest still set. */
START_TEST(test_extract_missing_required)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	struct pk_hotspot_vm vm;
	char err[PK_ERR_LEN], missing[4096];

	/* all but the last: Symbol._body */
	build(&b, fields17, N(fields17) - 1);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_int_eq(pk_hotspot_vm_extract(&t, &vm, err), -ENOTSUP);
	ck_assert_str_eq(err, "HotSpot describes no Symbol._body");
	ck_assert_uint_eq(vm.klass_name, 24);
	pk_hotspot_missing(&vm, missing, sizeof(missing));
	ck_assert_ptr_nonnull(strstr(missing, "Symbol._body"));
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);
}
END_TEST

/* The memory ends inside the struct table: -EIO, nothing kept. */
/* A JVM that has not run its initializers: every byte reads 0 for its
 * first f->unsettled reads (counted down), then as laid out. */
struct unsettled {
	struct pk_hf_fake *f;
	unsigned long zero_reads;
};

static long unsettled_read(void *ctx, __u64 addr, void *buf, size_t len)
{
	struct unsettled *u = ctx;

	if (u->zero_reads) {
		u->zero_reads--;
		memset(buf, 0, len);
		return len;
	}
	return pk_hf_read(u->f, addr, buf, len);
}

/* Tables that read 0 at first (no table yet: -EBADMSG) are read again until
 * they hold; that stays -EBADMSG after the wait; a read that fails (-EIO)
 * is not waited for. */
START_TEST(test_settled)
{
	struct pk_hf_jvm b;
	struct unsettled u = { .zero_reads = 7 };
	struct pk_hotspot_tables t;
	char err[PK_ERR_LEN] = "";
	struct timespec t0, t1;
	double ms;

	build(&b, fields17, N(fields17));
	u.f = &b.f;
	ck_assert_int_eq(pk_hotspot_tables_read(&b.syms, HF_BIAS, unsettled_read, &u, &t, err),
			 -EBADMSG);
	ck_assert_int_eq(pk_hotspot_tables_read_settled(&b.syms, HF_BIAS, unsettled_read, &u, 1000,
							&t, err), 0);
	ck_assert_uint_eq(u.zero_reads, 0);
	ck_assert_uint_eq(t.n_structs, N(fields17));
	pk_hotspot_tables_free(&t);

	u.zero_reads = ~0ul;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(pk_hotspot_tables_read_settled(&b.syms, HF_BIAS, unsettled_read, &u, 50,
							&t, err), -EBADMSG);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	ck_assert_msg(ms >= 50, "waited %.1f ms", ms);
	ck_assert_msg(strstr(err, "gHotSpotVMStructs"), "%s", err);

	b.f.size = 0;	/* nothing readable: -EIO at once */
	b.f.calls = 0;
	ck_assert_int_eq(pk_hotspot_tables_read_settled(&b.syms, HF_BIAS, pk_hf_read, &b.f, 1000,
							&t, err), -EIO);
	ck_assert_uint_le(b.f.calls, 2);
	pk_hf_done(&b);
}
END_TEST

START_TEST(test_truncated)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	char err[PK_ERR_LEN], want[PK_ERR_LEN];

	build(&b, fields17, N(fields17));
	/* its names before it: cut inside the third entry */
	b.f.size = b.structs - HF_BASE + 2 * HF_S_STRIDE + 20;
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EIO);
	snprintf(want, sizeof(want), "gHotSpotVMStructs: entry 2 at 0x%llx cannot be read",
		 (unsigned long long)(b.structs + 2 * HF_S_STRIDE));
	ck_assert_str_eq(err, want);
	ck_assert_ptr_null(t.structs);
	ck_assert_uint_eq(t.n_structs, 0);
	pk_hf_done(&b);
}
END_TEST

/* A table without its end: refused at PK_HS_MAX_ENTRIES. */
START_TEST(test_endless)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	char err[PK_ERR_LEN];

	build(&b, fields17, N(fields17));
	/* the entry repeated is the first (names and all) */
	memcpy(b.f.mem + 0x8000, b.f.mem + (b.structs - HF_BASE), HF_S_STRIDE);
	pk_hf_put64(&b.f, pk_hf_sym_at(&b, PK_HS_STRUCTS), ENDLESS);
	ck_assert_int_eq(pk_hotspot_tables_read(&b.syms, HF_BIAS, repeat_read, &b.f, &t, err),
			 -EBADMSG);
	ck_assert_str_eq(err, "gHotSpotVMStructs: no end within 16384 entries");
	pk_hf_done(&b);
}
END_TEST

/* Strides and member offsets a process made up. */
START_TEST(test_absurd_layouts)
{
	static const struct {
		enum pk_hotspot_sym sym;
		__u64 value;
	} bad[] = {
		{ PK_HS_STRUCT_STRIDE, 0 },	/* not filled in yet */
		{ PK_HS_STRUCT_STRIDE, 7 },
		{ PK_HS_STRUCT_STRIDE, PK_HS_MAX_STRIDE + 8 },
		{ PK_HS_STRUCT_STRIDE, ~0ull },
		{ PK_HS_STRUCT_FIELD_NAME, 41 },	/* past the stride */
		{ PK_HS_STRUCT_ADDRESS, ~0ull - 3 },	/* wraps */
		{ PK_HS_STRUCT_IS_STATIC, 45 },
		{ PK_HS_TYPE_SIZE, 33 },
		{ PK_HS_INT_VALUE, 13 },
		{ PK_HS_LONG_VALUE, 9 },
	};

	for (size_t i = 0; i < N(bad); i++) {
		struct pk_hf_jvm b;
		struct pk_hotspot_tables t;
		char err[PK_ERR_LEN];

		build(&b, fields17, N(fields17));
		pk_hf_put64(&b.f, pk_hf_sym_at(&b, bad[i].sym), bad[i].value);
		ck_assert_msg(pk_hf_read_tables(&b, &t, err) == -EBADMSG, "%s = %llu",
			      pk_hotspot_sym_name(bad[i].sym), (unsigned long long)bad[i].value);
		ck_assert_ptr_nonnull(strstr(err, "an entry layout out of bounds"));
		pk_hf_done(&b);
	}
}
END_TEST

/* Pointers a process made up: a null table, a table or a name nowhere,
 * a name with no NUL within its bound, a table at the top of memory. */
START_TEST(test_bad_pointers)
{
	struct pk_hf_jvm b;
	struct pk_hotspot_tables t;
	char err[PK_ERR_LEN];
	__u64 name;

	build(&b, fields17, N(fields17));
	pk_hf_put64(&b.f, pk_hf_sym_at(&b, PK_HS_TYPES), 0);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EBADMSG);
	ck_assert_str_eq(err, "gHotSpotVMTypes: no table (a null pointer)");
	pk_hf_done(&b);

	build(&b, fields17, N(fields17));
	pk_hf_put64(&b.f, pk_hf_sym_at(&b, PK_HS_INTS), 0x1000);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EIO);
	ck_assert_str_eq(err, "gHotSpotVMIntConstants: entry 0 at 0x1000 cannot be read");
	pk_hf_done(&b);

	build(&b, fields17, N(fields17));
	pk_hf_put64(&b.f, pk_hf_sym_at(&b, PK_HS_LONGS), ~0ull - 7);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EIO);
	pk_hf_done(&b);

	/* the first field name: PK_HS_MAX_NAME bytes and no NUL */
	build(&b, fields17, N(fields17));
	name = pk_hf_alloc(&b.f, PK_HS_MAX_NAME + 8);
	memset(b.f.mem + (name - HF_BASE), 'A', PK_HS_MAX_NAME + 8);
	pk_hf_put64(&b.f, b.structs + 8, name);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(err, "longer than its bound"));
	pk_hf_done(&b);

	/* a name that runs into unmapped memory */
	build(&b, fields17, N(fields17));
	memset(b.f.mem + HF_SIZE - 8, 'A', 8);
	pk_hf_put64(&b.f, b.structs + 8, HF_BASE + HF_SIZE - 8);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EIO);
	ck_assert_ptr_nonnull(strstr(err, "cannot be read"));
	pk_hf_done(&b);

	/* a name one byte short of its bound is read */
	build(&b, fields17, N(fields17));
	name = pk_hf_alloc(&b.f, PK_HS_MAX_NAME);
	memset(b.f.mem + (name - HF_BASE), 'B', PK_HS_MAX_NAME - 1);
	pk_hf_put64(&b.f, b.structs + 8, name);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
	ck_assert_uint_eq(strlen(t.structs[0].field), PK_HS_MAX_NAME - 1);
	pk_hotspot_tables_free(&t);
	pk_hf_done(&b);

	/* a symbol the process has not mapped */
	build(&b, fields17, N(fields17));
	b.syms.addr[PK_HS_LONG_VALUE] = 0;
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EIO);
	ck_assert_str_eq(err, "gHotSpotVMLongConstantEntryValueOffset at 0x7e0000000000 "
			      "cannot be read");
	pk_hf_done(&b);

	/* symbols missing: refused before any read */
	build(&b, fields17, N(fields17));
	b.syms.found &= ~(1u << PK_HS_TYPE_SIZE);
	ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), -EINVAL);
	ck_assert_uint_eq(b.f.calls, 0);
	pk_hf_done(&b);
}
END_TEST

/* A table of many entries, past the first growth of the array and up to
 * its bound: every entry kept, the last one too. */
START_TEST(test_big_table)
{
	static const size_t counts[] = { 255, 256, 257, 1024, PK_HS_MAX_ENTRIES - 1 };

	for (size_t c = 0; c < N(counts); c++) {
		struct pk_hf_jvm b;
		struct pk_hotspot_tables t;
		char err[PK_ERR_LEN];
		__u64 names[3];

		pk_hf_region(&b, counts[c] * HF_S_STRIDE + HF_SIZE);
		names[0] = pk_hf_str(&b.f, "T");
		names[1] = pk_hf_str(&b.f, "_a");
		names[2] = pk_hf_str(&b.f, "_b");
		b.structs = pk_hf_alloc(&b.f, (counts[c] + 1) * HF_S_STRIDE);
		for (size_t i = 0; i < counts[c]; i++) {
			__u64 e = b.structs + i * HF_S_STRIDE;

			pk_hf_put64(&b.f, e, names[0]);
			pk_hf_put64(&b.f, e + 8, names[i % 2 ? 1 : 2]);
			pk_hf_put64(&b.f, e + 32, i);
		}
		finish(&b);
		ck_assert_int_eq(pk_hf_read_tables(&b, &t, err), 0);
		ck_assert_uint_eq(t.n_structs, counts[c]);
		ck_assert_uint_eq(t.structs[counts[c] - 1].value, counts[c] - 1);
		ck_assert_str_eq(t.structs[counts[c] - 1].field, (counts[c] - 1) % 2 ? "_a" : "_b");
		pk_hotspot_tables_free(&t);
		pk_hf_done(&b);
	}
}
END_TEST

#define JVM17	"/usr/lib/jvm/java-17-openjdk-amd64/lib/server/libjvm.so"

/* Debian's libjvm is a HotSpot, with every symbol at the vaddr readelf
 * gives; libc and a text file are not. */
START_TEST(test_detect_files)
{
	struct pk_hotspot_syms s;
	char *out = NULL, line[256];
	int st;

	ck_assert_int_eq(pk_hotspot_file(JVM17, &s), 0);
	ck_assert_uint_eq(s.found, (1u << PK_HS_NSYMS) - 1);
	st = pk_test_run((char *[]){ "readelf", "-W", "--dyn-syms", JVM17, NULL }, &out, NULL);
	ck_assert_int_eq(st, 0);
	for (int i = 0; i < PK_HS_NSYMS; i++) {
		unsigned long long addr;
		char *p;

		snprintf(line, sizeof(line), " %s@", pk_hotspot_sym_name(i));
		p = strstr(out, line);
		ck_assert_msg(p, "readelf: no %s", pk_hotspot_sym_name(i));
		/* "  NUM: VALUE HF_SIZE TYPE ... NAME": the line's value */
		while (p > out && p[-1] != '\n')
			p--;
		ck_assert_int_eq(sscanf(strchr(p, ':') + 1, "%llx", &addr), 1);
		ck_assert_uint_eq(s.addr[i], addr);
	}
	free(out);
	ck_assert_int_eq(pk_hotspot_file("/usr/lib/x86_64-linux-gnu/libc.so.6", &s), -ENOENT);
	ck_assert_uint_eq(s.found, 0);
	ck_assert_int_eq(pk_hotspot_file("/etc/os-release", &s), -ENOENT);
	ck_assert_int_eq(pk_hotspot_file("/nonexistent/libjvm.so", &s), -ENOENT);
	ck_assert_str_eq(pk_hotspot_sym_name(PK_HS_STRUCTS), "gHotSpotVMStructs");
	ck_assert_str_eq(pk_hotspot_sym_name(PK_HS_NSYMS), "?");
}
END_TEST

Suite *suite_hotspot(void)
{
	Suite *s = suite_create("hotspot");
	TCase *tables = tcase_create("tables"), *vm = tcase_create("vm"),
	      *hostile = tcase_create("hostile"), *detect = tcase_create("detect");

	tcase_add_test(tables, test_good_tables);
	tcase_add_test(tables, test_big_table);
	tcase_add_test(tables, test_settled);
	tcase_add_test(vm, test_extract_jdk17);
	tcase_add_test(vm, test_hs_file);
	tcase_add_test(vm, test_hs_file_scopes);
	tcase_add_test(vm, test_extract_jdk25_names);
	tcase_add_test(vm, test_extract_missing_required);
	tcase_add_test(hostile, test_truncated);
	tcase_add_test(hostile, test_endless);
	tcase_add_test(hostile, test_absurd_layouts);
	tcase_add_test(hostile, test_bad_pointers);
	tcase_add_test(detect, test_detect_files);
	suite_add_tcase(s, tables);
	suite_add_tcase(s, vm);
	suite_add_tcase(s, hostile);
	suite_add_tcase(s, detect);
	return s;
}
