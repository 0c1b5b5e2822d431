// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/lib/v8.c and v8_vm.c on synthetic ELF images built in memory (a
 * .data, a .bss, .dynsym and .dynstr, as node's libnode lays them out):
 * V8 11.3's and 13.x's names, a missing value, and what a hostile file can
 * make of them: symbols outside their section, of another size, in no
 * data section, given twice with two values, sections past the file's
 * end, a big-endian file. Real files: tests/integration/test_v8_file.c.
 */
#include <errno.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/v8.h"
#include "test_util.h"

#define DATA_ADDR	0x1000u
#define DATA_SIZE	0x800u
#define BSS_ADDR	0x2000u
#define BSS_SIZE	0x100u
#define MAX_SYMS	160

/* Section indexes of the image. */
enum { SEC_NULL, SEC_DATA, SEC_BSS, SEC_DYNSYM, SEC_DYNSTR, SEC_SHSTR, NSEC };

struct img {
	__u8 data[DATA_SIZE];		/* .data's bytes */
	char dynstr[8192];
	size_t dynstr_len;
	Elf64_Sym syms[MAX_SYMS];
	size_t nsyms;
	size_t next;			/* next free int of .data */
	__u8 *file;			/* the image built */
	size_t size;
	Elf *elf;
};

static void img_init(struct img *m)
{
	memset(m, 0, sizeof(*m));
	m->dynstr_len = 1;		/* "" first */
	m->nsyms = 1;			/* the null symbol */
}

/* Symbol v8dbg_NAME, of SIZE bytes at ADDR in section SHNDX. */
static void sym_at(struct img *m, const char *name, __u16 shndx, __u64 addr, __u64 size)
{
	Elf64_Sym *s = &m->syms[m->nsyms++];
	int n;

	ck_assert_uint_le(m->nsyms, MAX_SYMS);
	n = snprintf(m->dynstr + m->dynstr_len, sizeof(m->dynstr) - m->dynstr_len, "%s%s",
		     PK_V8_PREFIX, name);
	ck_assert_uint_lt(m->dynstr_len + n + 1, sizeof(m->dynstr));
	s->st_name = m->dynstr_len;
	s->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
	s->st_shndx = shndx;
	s->st_value = addr;
	s->st_size = size;
	m->dynstr_len += n + 1;
}

/* v8dbg_NAME = V, an int in .data. */
static void sym(struct img *m, const char *name, __s32 v)
{
	__u64 at = m->next;

	m->next += 4;
	ck_assert_uint_le(m->next, DATA_SIZE);
	memcpy(m->data + at, &v, 4);
	sym_at(m, name, SEC_DATA, DATA_ADDR + at, 4);
}

/* A symbol of another kind (a function's name, with no prefix). */
static void other_sym(struct img *m, const char *name)
{
	sym_at(m, name, SEC_DATA, DATA_ADDR, 4);
	/* undo the prefix sym_at put */
	memmove(m->dynstr + m->syms[m->nsyms - 1].st_name,
		m->dynstr + m->syms[m->nsyms - 1].st_name + strlen(PK_V8_PREFIX),
		strlen(name) + 1);
}

/* Lay the image out: header, .data, .dynsym, .dynstr, .shstrtab, section
 * headers; open it with elf_memory. DATA_OFF: .data's file offset (0: in
 * its place), to put it past the end. */
static Elf *img_build(struct img *m, unsigned char data_enc, __u64 data_off)
{
	static const char shstr[] = "\0.data\0.bss\0.dynsym\0.dynstr\0.shstrtab";
	size_t off_data = sizeof(Elf64_Ehdr), off_sym = off_data + DATA_SIZE;
	size_t off_str = off_sym + m->nsyms * sizeof(Elf64_Sym);
	size_t off_shstr = off_str + m->dynstr_len;
	size_t off_sh = (off_shstr + sizeof(shstr) + 7) & ~7ul;
	Elf64_Ehdr *eh;
	Elf64_Shdr *sh;

	m->size = off_sh + NSEC * sizeof(Elf64_Shdr);
	m->file = calloc(1, m->size);
	ck_assert_ptr_nonnull(m->file);
	eh = (Elf64_Ehdr *)m->file;
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELFCLASS64;
	eh->e_ident[EI_DATA] = data_enc;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = EM_X86_64;
	eh->e_version = EV_CURRENT;
	eh->e_ehsize = sizeof(Elf64_Ehdr);
	eh->e_shentsize = sizeof(Elf64_Shdr);
	eh->e_shnum = NSEC;
	eh->e_shstrndx = SEC_SHSTR;
	eh->e_shoff = off_sh;
	memcpy(m->file + off_data, m->data, DATA_SIZE);
	memcpy(m->file + off_sym, m->syms, m->nsyms * sizeof(Elf64_Sym));
	memcpy(m->file + off_str, m->dynstr, m->dynstr_len);
	memcpy(m->file + off_shstr, shstr, sizeof(shstr));
	sh = (Elf64_Shdr *)(m->file + off_sh);
	sh[SEC_DATA] = (Elf64_Shdr){ .sh_name = 1, .sh_type = SHT_PROGBITS,
				     .sh_flags = SHF_ALLOC | SHF_WRITE, .sh_addr = DATA_ADDR,
				     .sh_offset = data_off ? data_off : off_data,
				     .sh_size = DATA_SIZE, .sh_addralign = 8 };
	sh[SEC_BSS] = (Elf64_Shdr){ .sh_name = 7, .sh_type = SHT_NOBITS,
				    .sh_flags = SHF_ALLOC | SHF_WRITE, .sh_addr = BSS_ADDR,
				    .sh_offset = off_sym, .sh_size = BSS_SIZE, .sh_addralign = 8 };
	sh[SEC_DYNSYM] = (Elf64_Shdr){ .sh_name = 12, .sh_type = SHT_DYNSYM,
				       .sh_flags = SHF_ALLOC, .sh_offset = off_sym,
				       .sh_size = m->nsyms * sizeof(Elf64_Sym),
				       .sh_link = SEC_DYNSTR, .sh_info = 1, .sh_addralign = 8,
				       .sh_entsize = sizeof(Elf64_Sym) };
	sh[SEC_DYNSTR] = (Elf64_Shdr){ .sh_name = 20, .sh_type = SHT_STRTAB,
				       .sh_flags = SHF_ALLOC, .sh_offset = off_str,
				       .sh_size = m->dynstr_len, .sh_addralign = 1 };
	sh[SEC_SHSTR] = (Elf64_Shdr){ .sh_name = 28, .sh_type = SHT_STRTAB,
				      .sh_offset = off_shstr, .sh_size = sizeof(shstr),
				      .sh_addralign = 1 };
	elf_version(EV_CURRENT);
	m->elf = elf_memory((char *)m->file, m->size);
	ck_assert_ptr_nonnull(m->elf);
	return m->elf;
}

static void img_free(struct img *m)
{
	elf_end(m->elf);
	free(m->file);
}

/* Every value under its NAME-th name (11.3: 0, 13.x: the last it has), a
 * class member with type SUFFIX, value 1000 + its index; without SKIP
 * (a want's index; -1: none). */
static void all_wants(struct img *m, bool newest, const char *suffix, long skip)
{
	for (size_t i = 0; i < pk_v8_n_wants; i++) {
		const char *const *names = pk_v8_wants[i].names;
		unsigned int a = 0;
		char name[256];

		if ((long)i == skip)
			continue;
		while (newest && a + 1 < PK_V8_MAX_ALTS && names[a + 1])
			a++;
		snprintf(name, sizeof(name), "%s%s", names[a],
			 strlen(names[a]) > 2 && !strcmp(names[a] + strlen(names[a]) - 2, "__") ?
			 suffix : "");
		sym(m, name, 1000 + (__s32)i);
	}
}

static size_t want_index(size_t at)
{
	for (size_t i = 0; i < pk_v8_n_wants; i++)
		if (pk_v8_wants[i].at == at)
			return i;
	ck_abort_msg("no want at %zu", at);
	return 0;
}

#define W(m)	want_index(offsetof(struct pk_v8, m))

/* V8 11.3's names, with other symbols among them: every value read. */
START_TEST(test_good_113)
{
	struct img m;
	struct pk_v8 v;
	char err[PK_ERR_LEN] = "", missing[256];

	img_init(&m);
	other_sym(&m, "_ZN2v88internal4Heap2GCEv");
	all_wants(&m, false, "Object", -1);
	other_sym(&m, "v8dbg");		/* the prefix is "v8dbg_" */
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), 0);
	ck_assert_str_eq(err, "");
	ck_assert_uint_eq(v.n_syms, pk_v8_n_wants);
	for (size_t i = 0; i < pk_v8_n_wants; i++) {
		ck_assert_uint_eq(v.found[i], 1);
		ck_assert_int_eq(pk_v8_value(&v, i), 1000 + (int)i);
	}
	ck_assert_int_eq(v.off_fp_function, 1000 + (int)W(off_fp_function));
	ck_assert_int_eq(v.sfi_script, 1000 + (int)W(sfi_script));
	ck_assert_uint_eq(pk_v8_missing(&v, missing, sizeof(missing)), 0);
	ck_assert_str_eq(missing, "");
	img_free(&m);
}
END_TEST

/* V8 13.x's names (the last of each, members typed Tagged_T_), and a
 * value of 0 in .bss, and negative frame offsets. */
START_TEST(test_good_13x)
{
	struct img m;
	struct pk_v8 v;
	char err[PK_ERR_LEN];

	img_init(&m);
	all_wants(&m, true, "Tagged_HeapObject_", W(heap_object_map));
	sym_at(&m, "class_HeapObject__map__Map", SEC_BSS, BSS_ADDR + 8, 4);
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), 0);
	ck_assert_uint_eq(v.found[W(sfi_script)], 3);		/* raw_script */
	ck_assert_uint_eq(v.found[W(frametype_turbofan)], 2);	/* TurbofanJSFrame */
	ck_assert_uint_eq(v.found[W(off_fp_function)], 1);
	ck_assert_int_eq(v.sfi_script, 1000 + (int)W(sfi_script));
	ck_assert_uint_eq(v.found[W(heap_object_map)], 1);
	ck_assert_int_eq(v.heap_object_map, 0);
	img_free(&m);

	img_init(&m);
	all_wants(&m, false, "Object", W(off_fp_function));
	sym(&m, "off_fp_function", -16);
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), 0);
	ck_assert_int_eq(v.off_fp_function, -16);
	img_free(&m);
}
END_TEST

/* A member is matched by class and name whatever its type, but not a
 * longer name that starts the same. */
START_TEST(test_member_names)
{
	size_t w;
	unsigned int alt;

	ck_assert_int_eq(pk_v8_want_match("class_Script__name__Object", &w, &alt), 0);
	ck_assert_uint_eq(w, W(script_name));
	ck_assert_int_eq(pk_v8_want_match("class_Script__name__Tagged_Object_", &w, &alt), 0);
	ck_assert_uint_eq(w, W(script_name));
	ck_assert_int_eq(pk_v8_want_match("class_SharedFunctionInfo__script__Tagged_HeapObject_",
					  &w, &alt), 0);
	ck_assert_uint_eq(w, W(sfi_script));
	ck_assert_uint_eq(alt, 1);
	ck_assert_int_eq(pk_v8_want_match("class_Script__name__", &w, &alt), -ENOENT);
	ck_assert_int_eq(pk_v8_want_match("class_Script__name__x__Object", &w, &alt), -ENOENT);
	ck_assert_int_eq(pk_v8_want_match("class_Script__names__Object", &w, &alt), -ENOENT);
	ck_assert_int_eq(pk_v8_want_match("SmiTagMaskX", &w, &alt), -ENOENT);
	ck_assert_int_eq(pk_v8_want_match("SmiTagMask", &w, &alt), 0);
	ck_assert_uint_eq(w, W(smi_tag_mask));
}
END_TEST

/* A required value missing: -ENOTSUP naming it, the others read; an
 * optional one missing: 0, listed by pk_v8_missing(). No v8dbg_ symbol:
 * not a V8. */
START_TEST(test_missing)
{
	struct img m;
	struct pk_v8 v;
	char err[PK_ERR_LEN], missing[256];

	img_init(&m);
	all_wants(&m, false, "Object", W(script_line_ends));
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), -ENOTSUP);
	ck_assert_str_eq(err, "V8 describes no v8dbg_class_Script__line_ends__");
	ck_assert_int_eq(v.script_name, 1000 + (int)W(script_name));
	ck_assert_uint_eq(pk_v8_missing(&v, missing, sizeof(missing)), 1);
	ck_assert_str_eq(missing, "v8dbg_class_Script__line_ends__");
	img_free(&m);

	img_init(&m);
	all_wants(&m, false, "Object", W(first_js_function_type));
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), 0);
	ck_assert_uint_eq(pk_v8_missing(&v, missing, sizeof(missing)), 1);
	ck_assert_str_eq(missing, "v8dbg_FirstJSFunctionType");
	/* truncated to the buffer, still counted */
	ck_assert_uint_eq(pk_v8_missing(&v, missing, 8), 1);
	ck_assert_str_eq(missing, "v8dbg_F");
	img_free(&m);

	img_init(&m);
	other_sym(&m, "main");
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), -ENOENT);
	ck_assert_uint_eq(v.n_syms, 0);
	ck_assert_uint_eq(pk_v8_missing(&v, missing, sizeof(missing)), pk_v8_n_wants);
	img_free(&m);
}
END_TEST

/* One bad symbol among good ones: -EBADMSG naming it. */
static void bad_one(void (*add)(struct img *m), const char *want_err)
{
	struct img m;
	struct pk_v8 v;
	char err[PK_ERR_LEN];

	img_init(&m);
	all_wants(&m, false, "Object", W(string_length));
	add(&m);
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), -EBADMSG);
	ck_assert_str_eq(err, want_err);
	img_free(&m);
}

#define LEN	"class_String__length__int32_t"

static void past_end(struct img *m)
{
	sym_at(m, LEN, SEC_DATA, DATA_ADDR + DATA_SIZE, 4);
}

static void straddling(struct img *m)
{
	sym_at(m, LEN, SEC_DATA, DATA_ADDR + DATA_SIZE - 2, 4);
}

static void before(struct img *m)
{
	sym_at(m, LEN, SEC_DATA, DATA_ADDR - 4, 4);
}

static void wrapping(struct img *m)
{
	sym_at(m, LEN, SEC_DATA, ~0ull - 1, 4);
}

static void bss_past_end(struct img *m)
{
	sym_at(m, LEN, SEC_BSS, BSS_ADDR + BSS_SIZE - 3, 4);
}

static void eight_bytes(struct img *m)
{
	sym_at(m, LEN, SEC_DATA, DATA_ADDR, 8);
}

static void no_size(struct img *m)
{
	sym_at(m, LEN, SEC_DATA, DATA_ADDR, 0);
}

static void in_dynsym(struct img *m)
{
	sym_at(m, LEN, SEC_DYNSYM, 0, 4);
}

static void absolute(struct img *m)
{
	sym_at(m, LEN, SHN_ABS, 12, 4);
}

static void no_section(struct img *m)
{
	sym_at(m, LEN, NSEC + 3, DATA_ADDR, 4);
}

static void disagree(struct img *m)
{
	sym(m, LEN, 12);
	sym(m, "class_String__length__Tagged_Int32_", 13);
}

START_TEST(test_hostile_symbols)
{
	bad_one(past_end, "v8dbg_" LEN ": outside its section");
	bad_one(straddling, "v8dbg_" LEN ": outside its section");
	bad_one(before, "v8dbg_" LEN ": outside its section");
	bad_one(wrapping, "v8dbg_" LEN ": outside its section");
	bad_one(bss_past_end, "v8dbg_" LEN ": outside its section");
	bad_one(eight_bytes, "v8dbg_" LEN ": 8 bytes, not an int");
	bad_one(no_size, "v8dbg_" LEN ": 0 bytes, not an int");
	bad_one(in_dynsym, "v8dbg_" LEN ": in no data section");
	bad_one(absolute, "v8dbg_" LEN ": in no data section");
	bad_one(no_section, "v8dbg_" LEN ": in no data section");
	bad_one(disagree, "v8dbg_class_String__length__Tagged_Int32_: 13, and 12 under "
			  "another name");
}
END_TEST

/* Two names of one value that agree (sid's JSFunction context, typed
 * Context and Tagged_Context_): read. A symbol of another kind in .bss
 * past its end is not looked at. */
START_TEST(test_agreeing_twice)
{
	struct img m;
	struct pk_v8 v;
	char err[PK_ERR_LEN];

	img_init(&m);
	all_wants(&m, false, "Object", W(string_length));
	sym(&m, LEN, 12);
	sym(&m, "class_String__length__Tagged_Int32_", 12);
	sym(&m, "class_Unknown__field__int", 7);
	sym_at(&m, "parent_String__Name", SEC_BSS, BSS_ADDR + 4 * BSS_SIZE, 4);
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 0), &v, err), 0);
	ck_assert_int_eq(v.string_length, 12);
	ck_assert_uint_eq(v.n_syms, pk_v8_n_wants + 3);
	img_free(&m);
}
END_TEST

/* A .data whose bytes lie past the file's end; a big-endian file; a
 * file that is no ELF. */
START_TEST(test_hostile_files)
{
	struct img m;
	struct pk_v8 v;
	char err[PK_ERR_LEN];

	img_init(&m);
	all_wants(&m, false, "Object", -1);
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2LSB, 1ull << 40), &v, err), -EBADMSG);
	ck_assert_str_eq(err, "v8dbg_SmiTag: its section's bytes are not in the file");
	img_free(&m);

	img_init(&m);
	all_wants(&m, false, "Object", -1);
	ck_assert_int_eq(pk_v8_elf(img_build(&m, ELFDATA2MSB, 0), &v, err), -ENOENT);
	img_free(&m);

	ck_assert_int_eq(pk_v8_file("/etc/os-release", &v, err), -ENOENT);
	ck_assert_int_eq(pk_v8_file("/nonexistent/libnode.so", &v, err), -ENOENT);
	ck_assert_int_eq(pk_v8_file("/usr/lib/x86_64-linux-gnu/libc.so.6", &v, err), -ENOENT);
	ck_assert_str_eq(err, "no v8dbg_ symbols");
}
END_TEST

/* A V8 as node 20's: every want found, the values the walk reads set to
 * theirs (V8 11.3, no pointer compression). */
static void node20(struct pk_v8 *v)
{
	memset(v, 0, sizeof(*v));
	memset(v->found, 1, pk_v8_n_wants);
	v->found[W(first_js_function_type)] = v->found[W(last_js_function_type)] = 0;
	v->smi_tag_mask = 1;
	v->smi_shift_size = 31;
	v->heap_object_tag = 1;
	v->heap_object_tag_mask = 3;
	v->pointer_size = 8;
	v->first_nonstring_type = 128;
	v->string_repr_mask = 7;
	v->string_encoding_mask = 8;
	v->one_byte_string_tag = 8;
	v->cons_string_tag = 1;
	v->thin_string_tag = 5;
	v->off_fp_context = -8;
	v->off_fp_context_or_frame_type = -8;
	v->off_fp_function = -16;
	v->off_fp_bytecode_offset = -32;
	v->type_js_function = 2058;
	v->type_shared_function_info = 184;
	v->type_scope_info = 182;
	v->type_script = 169;
	v->map_instance_type = 12;
	v->jsfunction_shared = 24;
	v->sfi_name_or_scope_info = 16;
	v->sfi_script = 32;
	v->script_name = 16;
	v->string_length = 12;
	v->seq_one_byte_chars = 16;
	v->cons_first = 16;
	v->cons_second = 24;
	v->thin_actual = 16;
	v->scopeinfo_first_vars = 4;
	v->scopeinfo_ncontextlocals = 2;
}

/* The walk's value: V8's numbers where they fit their fields, the marker
 * slot from off_fp_context without off_fp_context_or_frame_type, the
 * JSFunction types a range in 13.x; a V8 it cannot read refused. */
START_TEST(test_bpf_value)
{
	struct pk_v8_file f;
	struct pk_v8 v;
	char err[PK_ERR_LEN];

	node20(&v);
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), 0);
	ck_assert_int_eq(f.off_fp_marker, -8);
	ck_assert_int_eq(f.off_fp_function, -16);
	ck_assert_int_eq(f.off_fp_bytecode_offset, -32);
	ck_assert_uint_eq(f.smi_shift, 32);
	ck_assert_uint_eq(f.type_js_function_first, 2058);
	ck_assert_uint_eq(f.type_js_function_last, 2058);
	ck_assert_uint_eq(f.jsfunction_shared, 24);
	ck_assert_uint_eq(f.sfi_script, 32);
	ck_assert_uint_eq(f.thin_string_tag, 5);
	ck_assert_uint_eq(f.scopeinfo_first_vars, 4);
	/* one slot between the counts and the variables: no position info */
	ck_assert_uint_eq(f.scopeinfo_pos, 0);
	ck_assert_uint_eq(f.heap_object_tag_mask, 3);
	/* 13.x: a range of function types; no context-or-frame-type slot */
	v.found[W(first_js_function_type)] = v.found[W(last_js_function_type)] = 1;
	v.first_js_function_type = 2050;
	v.last_js_function_type = 2066;
	v.found[W(off_fp_context_or_frame_type)] = 0;
	v.off_fp_context_or_frame_type = 0;
	v.off_fp_context = -24;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), 0);
	ck_assert_uint_eq(f.type_js_function_first, 2050);
	ck_assert_uint_eq(f.type_js_function_last, 2066);
	ck_assert_int_eq(f.off_fp_marker, -24);
	/* 12.8 on: the two slots before the variables hold the positions */
	v.scopeinfo_first_vars = 5;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), 0);
	ck_assert_uint_eq(f.scopeinfo_pos, 3);

	node20(&v);
	v.smi_shift_size = 0;	/* 31-bit Smis: pointer compression */
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ENOTSUP);
	ck_assert_str_eq(err, "V8's Smi shift size is 0, not 31: pointer compression?");
	node20(&v);
	v.pointer_size = 4;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ENOTSUP);
	node20(&v);
	v.off_fp_function = 16;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ENOTSUP);
	ck_assert_str_eq(err, "V8's frame slot 16 is not a word below the frame pointer");
	node20(&v);
	v.off_fp_bytecode_offset = -20;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ENOTSUP);
	node20(&v);
	v.found[W(thin_actual)] = 0;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ENOTSUP);
	/* the edges of the fields */
	node20(&v);
	v.script_name = 0xffff;
	v.scopeinfo_first_vars = 0xff;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), 0);
	ck_assert_uint_eq(f.script_name, 0xffff);
	ck_assert_uint_eq(f.scopeinfo_first_vars, 0xff);
	v.script_name = 0x10000;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ERANGE);
	ck_assert_str_eq(err, "V8's Script name is 65536");
	node20(&v);
	v.scopeinfo_first_vars = 0x100;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ERANGE);
	node20(&v);
	v.jsfunction_shared = -8;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ERANGE);
	node20(&v);
	v.found[W(first_js_function_type)] = v.found[W(last_js_function_type)] = 1;
	v.first_js_function_type = 2066;
	v.last_js_function_type = 2050;
	ck_assert_int_eq(pk_v8_bpf_file(&v, &f, err), -ERANGE);
	/* no V8 at all */
	ck_assert_int_eq(pk_v8_bpf_path("/usr/lib/x86_64-linux-gnu/libc.so.6", &f, err), -ENOENT);
}
END_TEST

Suite *suite_v8(void)
{
	Suite *s = suite_create("v8");
	TCase *good = tcase_create("good"), *bad = tcase_create("hostile");

	tcase_add_test(good, test_good_113);
	tcase_add_test(good, test_good_13x);
	tcase_add_test(good, test_member_names);
	tcase_add_test(good, test_missing);
	tcase_add_test(good, test_agreeing_twice);
	tcase_add_test(good, test_bpf_value);
	tcase_add_test(bad, test_hostile_symbols);
	tcase_add_test(bad, test_hostile_files);
	suite_add_tcase(s, good);
	suite_add_tcase(s, bad);
	return s;
}
