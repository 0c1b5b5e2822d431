// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * tools/lib/python.c: which files are CPython interpreters, and the struct
 * offsets it gives the BPF walk, each checked against the interpreter's own
 * DWARF (the .debug file under /usr/lib/debug/.build-id, or the file itself
 * when it carries its debug info, as Debian's python3.11d does): the
 * member's offset, its size where the walk reads a fixed width, and the
 * bits of PyASCIIObject.state the walk tests. Versions come from the
 * interpreter itself (sys.hexversion), symbol addresses from readelf.
 * 3.13 and 3.14 (and their -dbg builds) are those of the Debian 13 and
 * sid roots (tests/roots/README.md): their offsets come from their own
 * _Py_DebugOffsets, checked here against their DWARF as 3.11's table is.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "lib/python.h"
#include "lib/python_debug.h"
#include "lib/unwind_store.h"
#include "test_util.h"

#define LIBDIR	"/usr/lib/x86_64-linux-gnu/"

struct interp {
	const char *root;	/* a test root's name, or NULL: the host */
	const char *path;	/* in the root */
	const char *python;	/* the program to ask for sys.hexversion */
	bool debug;
};

static const struct interp interps[] = {
	{ NULL, "/usr/bin/python3.11", "/usr/bin/python3.11", false },
	{ NULL, LIBDIR "libpython3.11.so.1.0", "/usr/bin/python3.11", false },
	{ NULL, "/usr/bin/python3.11d", "/usr/bin/python3.11d", true },
	{ "trixie", "/usr/bin/python3.13", "/usr/bin/python3.13", false },
	{ "trixie", "/usr/bin/python3.13d", "/usr/bin/python3.13d", true },
	{ "trixie", LIBDIR "libpython3.13d.so.1.0", "/usr/bin/python3.13d", true },
	{ "sid", "/usr/bin/python3.14", "/usr/bin/python3.14", false },
	{ "sid", "/usr/bin/python3.14d", "/usr/bin/python3.14d", true },
	{ "sid", LIBDIR "libpython3.14d.so.1.0", "/usr/bin/python3.14d", true },
};
#define NINTERPS	(sizeof(interps) / sizeof(interps[0]))

/* IN's file as the host sees it, into BUF. */
static const char *host_path(const struct interp *in, const char *path, char *buf, size_t len)
{
	char rel[4096];

	if (!in->root) {
		snprintf(buf, len, "%s", path);
		return buf;
	}
	snprintf(rel, sizeof(rel), "%s%s", in->root, path);
	return pk_test_roots_path(rel, buf, len);
}

/* --- the DWARF side ----------------------------------------------------- */

static bool is_type_named(Dwarf_Die *die, const char *name)
{
	int tag = dwarf_tag(die);
	const char *n;

	if (tag != DW_TAG_structure_type && tag != DW_TAG_typedef)
		return false;
	n = dwarf_diename(die);
	if (!n || strcmp(n, name))
		return false;
	return tag == DW_TAG_typedef || !dwarf_hasattr(die, DW_AT_declaration);
}

/* The struct NAME (a struct tag, or a typedef of one) among the children
 * of UNIT, following imported (dwz partial) units; into *OUT. */
static bool find_in_unit(Dwarf_Die *unit, const char *name, Dwarf_Die *out, int depth)
{
	Dwarf_Die child, imported;
	Dwarf_Attribute at;

	if (depth > 4 || dwarf_child(unit, &child) != 0)
		return false;
	do {
		if (is_type_named(&child, name)) {
			*out = child;
			return true;
		}
		if (dwarf_tag(&child) == DW_TAG_imported_unit &&
		    dwarf_attr(&child, DW_AT_import, &at) &&
		    dwarf_formref_die(&at, &imported) &&
		    find_in_unit(&imported, name, out, depth + 1))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

/* Strip typedefs and qualifiers. */
static void real_type(Dwarf_Die *die)
{
	Dwarf_Attribute at;
	int tag;

	while ((tag = dwarf_tag(die)) == DW_TAG_typedef || tag == DW_TAG_const_type ||
	       tag == DW_TAG_volatile_type) {
		ck_assert_ptr_nonnull(dwarf_attr_integrate(die, DW_AT_type, &at));
		ck_assert_ptr_nonnull(dwarf_formref_die(&at, die));
	}
}

static bool find_struct(Dwarf *dw, const char *name, Dwarf_Die *out)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf_Die cu;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && find_in_unit(&cu, name, out, 0)) {
			real_type(out);
			if (dwarf_tag(out) == DW_TAG_structure_type &&
			    !dwarf_hasattr(out, DW_AT_declaration))
				return true;
		}
		off = next;
	}
	return false;
}

struct member {
	Dwarf_Word offset;	/* bytes from the outer struct's start */
	Dwarf_Word size;	/* of the member's type */
	Dwarf_Word bit;		/* DW_AT_data_bit_offset of a bit field, from the
				 * start of the struct holding it */
};

/* The member PATH ("interpreters.head") of struct S. */
static struct member member_at(Dwarf_Die s, const char *path)
{
	struct member m = { 0 };
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *part = strtok_r(buf, ".", &save); part; part = strtok_r(NULL, ".", &save)) {
		Dwarf_Die child, type;
		Dwarf_Attribute at;
		Dwarf_Word loc = 0;
		bool found = false;

		real_type(&s);
		ck_assert_int_eq(dwarf_child(&s, &child), 0);
		do {
			const char *n = dwarf_diename(&child);

			if (dwarf_tag(&child) != DW_TAG_member || !n || strcmp(n, part))
				continue;
			found = true;
			break;
		} while (dwarf_siblingof(&child, &child) == 0);
		ck_assert_msg(found, "no member %s (of %s)", part, path);
		if (dwarf_attr(&child, DW_AT_data_member_location, &at))
			ck_assert_int_eq(dwarf_formudata(&at, &loc), 0);
		m.offset += loc;
		if (dwarf_attr(&child, DW_AT_data_bit_offset, &at))
			ck_assert_int_eq(dwarf_formudata(&at, &m.bit), 0);
		ck_assert_ptr_nonnull(dwarf_attr_integrate(&child, DW_AT_type, &at));
		ck_assert_ptr_nonnull(dwarf_formref_die(&at, &type));
		real_type(&type);
		{
			Dwarf_Word size = 0;

			if (dwarf_tag(&type) != DW_TAG_array_type)
				ck_assert_int_ge(dwarf_aggregate_size(&type, &size), 0);
			m.size = size;
		}
		s = type;
	}
	return m;
}

static Dwarf_Word struct_size(Dwarf_Die *s)
{
	Dwarf_Word size;

	ck_assert_int_eq(dwarf_aggregate_size(s, &size), 0);
	return size;
}

/* The file with IN's DWARF: its .debug file by build-id (in its root),
 * else itself (FILE, as the host sees it). */
static void debug_file_of(const struct interp *in, const char *file, char *path, size_t len)
{
	char hex[128], rel[256];

	pk_test_readelf_build_id(file, hex, sizeof(hex));
	snprintf(rel, sizeof(rel), "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2);
	host_path(in, rel, path, len);
	if (access(path, R_OK))
		snprintf(path, len, "%s", file);
}

/* Member PATH of struct S at OFF, SIZE bytes wide (0: any). */
#define CHECK_MEMBER(dw, sname, mpath, off, size) \
	check_member(dw, sname, mpath, off, size, #off)

static struct member check_member(Dwarf *dw, const char *sname, const char *path,
				  unsigned int off, unsigned int size, const char *field)
{
	Dwarf_Die s;
	struct member m;

	ck_assert_msg(find_struct(dw, sname, &s), "no struct %s in the DWARF", sname);
	m = member_at(s, path);
	ck_assert_msg(m.offset == off, "%s: %s.%s is at %llu in the DWARF", field, sname, path,
		      (unsigned long long)m.offset);
	if (size)
		ck_assert_msg(m.size == size, "%s.%s: %llu bytes, the walk reads %u", sname,
			      path, (unsigned long long)m.size, size);
	return m;
}

/* sys.hexversion of PYTHON (in ROOT, a path on the host, or NULL): the
 * version from the interpreter itself. */
static __u32 hexversion_in(const char *root, const char *python)
{
	char *argv[] = { "chroot", (char *)root, (char *)python, "-c",
			 "import sys; print(sys.hexversion)", NULL };
	char *out = NULL;
	__u32 v;

	ck_assert_int_eq(pk_test_run(root ? argv : argv + 2, &out, NULL), 0);
	ck_assert_ptr_nonnull(out);
	v = strtoul(out, NULL, 10);
	free(out);
	return v;
}

static __u32 hexversion(const char *python)
{
	return hexversion_in(NULL, python);
}

/* readelf's value of dynamic symbol NAME in FILE (0: none), its size in
 * *SIZE (may be NULL). */
static unsigned long long dynsym_sized(const char *file, const char *name,
				       unsigned long long *size)
{
	char *argv[] = { "readelf", "-W", "--dyn-syms", (char *)file, NULL };
	char *out = NULL, *line, *save = NULL;
	unsigned long long v = 0;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long val, sz;
		char sym[256];

		if (sscanf(line, " %*u: %llx %lli %*s %*s %*s %*s %255s", &val, &sz, sym) == 3 &&
		    !strcmp(sym, name)) {
			v = val;
			if (size)
				*size = sz;
		}
	}
	free(out);
	return v;
}

static unsigned long long dynsym(const char *file, const char *name)
{
	return dynsym_sized(file, name, NULL);
}

/* The value of enumerator NAME of an enum in DW (the first found). */
static bool enum_value_in(Dwarf_Die *die, const char *name, Dwarf_Sword *v, int depth)
{
	Dwarf_Die child, imported;
	Dwarf_Attribute at;

	if (depth > 5 || dwarf_child(die, &child) != 0)
		return false;
	do {
		int tag = dwarf_tag(&child);
		const char *n = dwarf_diename(&child);

		if (tag == DW_TAG_enumerator && n && !strcmp(n, name) &&
		    dwarf_attr(&child, DW_AT_const_value, &at))
			return dwarf_formsdata(&at, v) == 0;
		if ((tag == DW_TAG_enumeration_type && enum_value_in(&child, name, v, depth + 1)) ||
		    (tag == DW_TAG_imported_unit && dwarf_attr(&child, DW_AT_import, &at) &&
		     dwarf_formref_die(&at, &imported) &&
		     enum_value_in(&imported, name, v, depth + 1)))
			return true;
	} while (dwarf_siblingof(&child, &child) == 0);
	return false;
}

static Dwarf_Sword enum_value(Dwarf *dw, const char *name)
{
	Dwarf_Off off = 0, next;
	Dwarf_Sword v;
	size_t hsize;
	Dwarf_Die cu;

	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		if (dwarf_offdie(dw, off + hsize, &cu) && enum_value_in(&cu, name, &v, 0))
			return v;
		off = next;
	}
	ck_abort_msg("no enumerator %s in the DWARF", name);
	return -1;
}

START_TEST(test_offsets_match_dwarf)
{
	const struct interp *in = &interps[_i];
	bool v313 = in->root != NULL;	/* 3.13 on: their own offsets */
	char path[4096], root[4096], dbg[4096];
	struct pk_python_build build;
	struct pk_py_file pf;
	const struct pk_py_offsets *o = &pf.off;
	struct member end;
	Dwarf_Die s;
	Dwarf *dw;
	int fd;

	host_path(in, in->path, path, sizeof(path));
	if (in->root)
		pk_test_roots_path(in->root, root, sizeof(root));
	ck_assert_int_eq(pk_python_file(path, &pf, &build), 0);
	ck_assert_uint_eq(build.version, hexversion_in(in->root ? root : NULL, in->python));
	ck_assert_uint_eq(pf.version, build.version);
	ck_assert_int_eq(build.debug, in->debug);
	ck_assert_uint_eq(pf.runtime, dynsym(path, "_PyRuntime"));
	if (v313) {
		ck_assert_uint_ge(build.version, 0x030d0000);
		ck_assert_ptr_null(pk_python_offsets(build.version, build.debug));
	} else {
		ck_assert_ptr_nonnull(pk_python_offsets(build.version, build.debug));
		ck_assert_mem_eq(&pf.off, pk_python_offsets(build.version, build.debug),
				 sizeof(pf.off));
	}

	debug_file_of(in, path, dbg, sizeof(dbg));
	fd = open(dbg, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	dw = dwarf_begin(fd, DWARF_C_READ);
	ck_assert_msg(dw, "%s: no DWARF: %s", dbg, dwarf_errmsg(-1));

	CHECK_MEMBER(dw, "_PyRuntimeState", "interpreters.head", o->runtime_interp_head, 8);
	CHECK_MEMBER(dw, "PyInterpreterState", "threads.head", o->interp_threads_head, 8);
	CHECK_MEMBER(dw, "PyThreadState", "next", o->tstate_next, 8);
	CHECK_MEMBER(dw, "PyThreadState", "thread_id", o->tstate_thread_id, 8);
	CHECK_MEMBER(dw, "_PyInterpreterFrame", "previous", o->frame_previous, 8);
	end = CHECK_MEMBER(dw, "_PyInterpreterFrame", "owner", o->frame_owner, 1);
	if (v313) {
		/* no _PyCFrame: the thread state has the current frame */
		ck_assert_uint_eq(o->flags & PK_PY_TSTATE_FRAME, PK_PY_TSTATE_FRAME);
		CHECK_MEMBER(dw, "PyThreadState", "current_frame", o->tstate_cframe, 8);
		CHECK_MEMBER(dw, "_PyInterpreterFrame", "f_executable", o->frame_code, 8);
		CHECK_MEMBER(dw, "_PyInterpreterFrame", "instr_ptr", o->frame_prev_instr, 8);
		/* the eval loop's entry frames: 3.13's CSTACK, 3.14's INTERPRETER;
		 * 3.14's f_executable a tagged _PyStackRef */
		ck_assert_int_eq(o->owner_entry,
				 enum_value(dw, build.version >= 0x030e0000 ?
					    "FRAME_OWNED_BY_INTERPRETER" : "FRAME_OWNED_BY_CSTACK"));
		ck_assert_int_eq(enum_value(dw, "FRAME_OWNED_BY_GENERATOR"), 1);
		ck_assert_int_eq(!!(o->flags & PK_PY_EXEC_TAGGED), build.version >= 0x030e0000);
	} else {
		ck_assert_uint_eq(o->flags, 0);
		ck_assert_uint_eq(o->owner_entry, 0);
		CHECK_MEMBER(dw, "PyThreadState", "cframe", o->tstate_cframe, 8);
		CHECK_MEMBER(dw, "_PyCFrame", "current_frame", o->cframe_current_frame, 8);
		CHECK_MEMBER(dw, "_PyInterpreterFrame", "f_code", o->frame_code, 8);
		CHECK_MEMBER(dw, "_PyInterpreterFrame", "prev_instr", o->frame_prev_instr, 8);
		CHECK_MEMBER(dw, "_PyInterpreterFrame", "is_entry", o->frame_is_entry, 1);
	}
	/* frame_size: past every field read, within the struct */
	ck_assert_uint_ge(o->frame_size, end.offset + end.size);
	ck_assert_uint_ge(o->frame_size, o->frame_prev_instr + 8);
	ck_assert_uint_ge(o->frame_size, o->frame_code + 8);
	ck_assert(find_struct(dw, "_PyInterpreterFrame", &s));
	ck_assert_uint_le(o->frame_size, struct_size(&s));

	CHECK_MEMBER(dw, "PyCodeObject", "co_filename", o->code_filename, 8);
	CHECK_MEMBER(dw, "PyCodeObject", "co_name", o->code_name, 8);
	CHECK_MEMBER(dw, "PyCodeObject", "co_qualname", o->code_qualname, 8);
	CHECK_MEMBER(dw, "PyCodeObject", "co_linetable", o->code_linetable, 8);
	CHECK_MEMBER(dw, "PyCodeObject", "co_firstlineno", o->code_firstlineno, 4);
	end = CHECK_MEMBER(dw, "PyCodeObject", "_co_firsttraceable", o->code_firsttraceable, 4);
	CHECK_MEMBER(dw, "PyCodeObject", "co_code_adaptive", o->code_adaptive, 0);
	ck_assert_uint_ge(o->code_size, end.offset + end.size);
	ck_assert_uint_ge(o->code_size, o->code_linetable + 8);
	ck_assert_uint_ge(o->code_size, o->code_qualname + 8);
	ck_assert_uint_le(o->code_size, o->code_adaptive);

	CHECK_MEMBER(dw, "PyVarObject", "ob_size", o->bytes_size, 8);
	CHECK_MEMBER(dw, "PyBytesObject", "ob_sval", o->bytes_data, 0);
	CHECK_MEMBER(dw, "PyASCIIObject", "length", o->unicode_length, 8);
	CHECK_MEMBER(dw, "PyASCIIObject", "state", o->unicode_state, 4);
	/* the bits bpf/python_walk.bpf.h tests: kind 2..4, compact 5, ascii 6 */
	ck_assert(find_struct(dw, "PyASCIIObject", &s));
	ck_assert_uint_eq(o->unicode_ascii_data, struct_size(&s));
	ck_assert_uint_eq(member_at(s, "state.kind").bit, 2);
	ck_assert_uint_eq(member_at(s, "state.kind").size, 4);
	ck_assert_uint_eq(member_at(s, "state.compact").bit, 5);
	ck_assert_uint_eq(member_at(s, "state.ascii").bit, 6);
	ck_assert(find_struct(dw, "PyCompactUnicodeObject", &s));
	ck_assert_uint_eq(o->unicode_compact_data, struct_size(&s));

	dwarf_end(dw);
	close(fd);
}
END_TEST

/* The file offset of vaddr ADDR in FILE, by readelf's section headers. */
static long file_offset(const char *file, unsigned long long addr)
{
	char *argv[] = { "readelf", "-W", "-S", (char *)file, NULL };
	char *out = NULL, *line, *save = NULL;
	long off = -1;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		unsigned long long sa, so, ss;
		char name[64], type[32];
		const char *p = strchr(line, ']');

		if (!strstr(line, "[") || !p)
			continue;
		if (sscanf(p + 1, " %63s %31s %llx %llx %llx", name, type, &sa, &so, &ss) == 5 &&
		    strcmp(type, "NOBITS") && sa && addr >= sa && addr < sa + ss)
			off = so + (addr - sa);
	}
	free(out);
	return off;
}

#define V312	0x030c0000u

/* LEN bytes at OFF in SYM (a dynamic symbol) of FILE: read into OLD (may
 * be NULL), then NEW (may be NULL: FILE only read) written. */
static void patch_sym(const char *file, const char *sym, long off, void *old, const void *new,
		      size_t len)
{
	long at = file_offset(file, dynsym(file, sym));
	int fd;

	ck_assert_int_gt(at, 0);
	fd = open(file, new ? O_RDWR : O_RDONLY);
	ck_assert_int_ge(fd, 0);
	if (old)
		ck_assert_int_eq(pread(fd, old, len, at + off), (ssize_t)len);
	if (new)
		ck_assert_int_eq(pwrite(fd, new, len, at + off), (ssize_t)len);
	close(fd);
}

/* A copy of SRC in DIR (made) as COPY. */
static void copy_in(const char *src, char *dir, char *copy, size_t len)
{
	const char *base = strrchr(src, '/');

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(copy, len, "%s/%s", dir, base ? base + 1 : src);
	pk_test_copy_file(src, copy, 0755);
}

/* A copy of python3.11 in DIR (made) whose Py_Version says 3.12, into COPY. */
static void python_312(char *dir, char *copy, size_t len)
{
	const char *py = "/usr/bin/python3.11";
	__u32 v311 = hexversion(py), v, v312 = V312;

	copy_in(py, dir, copy, len);
	patch_sym(copy, "Py_Version", 0, &v, &v312, sizeof(v));
	ck_assert_uint_eq(v, v311);	/* the oracle found the right bytes */
}

/* A python3.11 whose Py_Version says 3.12: found, refused as unknown. */
START_TEST(test_unknown_version_not_supported)
{
	char dir[] = "/tmp/pk-python-XXXXXX", copy[4096];
	__u32 v312 = V312;
	struct pk_python_build build;
	struct pk_py_file pf;

	python_312(dir, copy, sizeof(copy));
	ck_assert_int_eq(pk_python_file(copy, &pf, &build), -ENOTSUP);
	ck_assert_uint_eq(build.version, v312);
	ck_assert(!build.debug);
	ck_assert_ptr_null(pk_python_offsets(v312, false));
	unlink(copy);
	rmdir(dir);
}
END_TEST

/* The root's python3.13, as the host sees it, into BUF. */
static const char *python313(char *buf, size_t len)
{
	return pk_test_roots_path("trixie/usr/bin/python3.13", buf, len);
}

/* A copy of python3.13 in DIR whose _PyRuntime says LAYOUT_VERSION in its
 * _Py_DebugOffsets and Py_Version FILE_VERSION (0: as they are). */
static void python_313_as(char *dir, char *copy, size_t len, __u32 layout_version,
			  __u32 file_version)
{
	char py[4096];
	__u64 v, lv = layout_version;
	__u32 fv;

	copy_in(python313(py, sizeof(py)), dir, copy, len);
	patch_sym(copy, "_PyRuntime", 8, &v, layout_version ? &lv : NULL, sizeof(v));
	patch_sym(copy, "Py_Version", 0, &fv, file_version ? &file_version : NULL, sizeof(fv));
	ck_assert_uint_eq(v, fv);	/* the oracle found the right bytes */
	ck_assert_uint_eq(fv >> 16, 0x030d);
}

/*
 * 3.13 on, the offsets are the interpreter's own: a file whose structure
 * the walk cannot read gets -ENOTSUP and its version: a later Python (its
 * layout unknown), a _Py_DebugOffsets of another version than Py_Version.
 */
START_TEST(test_debug_offsets_refused)
{
	static const struct { __u32 layout, file; } cases[] = {
		{ 0x030f00f0, 0x030f00f0 },	/* 3.15: not a layout known here */
		{ 0x030e00f0, 0 },		/* says 3.14, the file 3.13 */
		{ 0, 0x030d06f0 },		/* 3.13.5's structure, 3.13.6 */
	};
	char dir[] = "/tmp/pk-python-XXXXXX", copy[4096];
	struct pk_python_build build;
	struct pk_py_file pf;
	__u32 fv;

	python_313_as(dir, copy, sizeof(copy), cases[_i].layout, cases[_i].file);
	patch_sym(copy, "Py_Version", 0, &fv, NULL, sizeof(fv));
	ck_assert_int_eq(pk_python_file(copy, &pf, &build), -ENOTSUP);
	ck_assert_uint_eq(build.version, fv);
	unlink(copy);
	rmdir(dir);
}
END_TEST

/* The parser itself, on the first bytes of the real python3.13's and
 * python3.14's _PyRuntime, each changed where one of its checks looks. */
static void runtime_head(const char *root_file, __u8 *buf, size_t len, __u32 *version,
			 __u64 *size)
{
	char path[4096];
	struct pk_py_file pf;
	unsigned long long sz = 0;

	pk_test_roots_path(root_file, path, sizeof(path));
	ck_assert_int_eq(pk_python_file(path, &pf, NULL), 0);
	patch_sym(path, "_PyRuntime", 0, buf, NULL, len);
	*version = pf.version;
	ck_assert_uint_ne(dynsym_sized(path, "_PyRuntime", &sz), 0);
	*size = sz;
}

START_TEST(test_debug_offsets_checks)
{
	static const char *const files[] = { "trixie/usr/bin/python3.13",
					     "sid/usr/bin/python3.14" };
	/* where 3.13's and 3.14's groups start: runtime, frame, code */
	static const unsigned int rt[] = { 24, 24 }, fr[] = { 224, 248 }, co[] = { 272, 312 };
	__u8 head[1024], buf[1024];
	struct pk_py_offsets o, o2;
	__u32 version;
	__u64 size, big = 400, far = 300, one = 1;

	runtime_head(files[_i], head, sizeof(head), &version, &size);
	ck_assert_int_eq(pk_python_debug_offsets(head, sizeof(head), version, size, &o), 0);
	ck_assert_int_eq(memcmp(head, PK_PY_DEBUG_COOKIE, 8), 0);
	/* the same from the first bytes only: past the unicode group */
	ck_assert_int_eq(pk_python_debug_offsets(head, 664, version, size, &o2), 0);
	ck_assert_mem_eq(&o, &o2, sizeof(o));
	ck_assert_int_eq(pk_python_debug_offsets(head, 560, version, size, &o2), -ENOTSUP);
	ck_assert_int_eq(pk_python_debug_offsets(head, 0, version, size, &o2), -ENOTSUP);
	/* _PyRuntime's symbol another size than the runtime group says */
	ck_assert_int_eq(pk_python_debug_offsets(head, sizeof(head), version, size + 8, &o2),
			 -ENOTSUP);
	ck_assert_int_eq(pk_python_debug_offsets(head, sizeof(head), version + 0x100, size, &o2),
			 -ENOTSUP);
	/* another cookie */
	memcpy(buf, head, sizeof(buf));
	buf[0] = 'y';
	ck_assert_int_eq(pk_python_debug_offsets(buf, sizeof(buf), version, size, &o2), -ENOTSUP);
	/* free-threaded */
	memcpy(buf, head, sizeof(buf));
	memcpy(buf + 16, &one, 8);
	ck_assert_int_eq(pk_python_debug_offsets(buf, sizeof(buf), version, size, &o2), -ENOTSUP);
	/* the frame's owner past the frame (its group's size) */
	memcpy(buf, head, sizeof(buf));
	memcpy(buf + fr[_i] + 5 * 8, buf + fr[_i], 8);
	ck_assert_int_eq(pk_python_debug_offsets(buf, sizeof(buf), version, size, &o2), -ENOTSUP);
	/* a frame larger than the walk reads, the owner far in it */
	memcpy(buf, head, sizeof(buf));
	memcpy(buf + fr[_i], &big, 8);
	memcpy(buf + fr[_i] + 5 * 8, &far, 8);
	ck_assert_int_eq(pk_python_debug_offsets(buf, sizeof(buf), version, size, &o2), -ENOTSUP);
	/* the code units before the fields read */
	memcpy(buf, head, sizeof(buf));
	memcpy(buf + co[_i] + 9 * 8, &one, 8);
	ck_assert_int_eq(pk_python_debug_offsets(buf, sizeof(buf), version, size, &o2), -ENOTSUP);
	/* the runtime group's size word is what the symbol's size is checked by */
	memcpy(buf, head, sizeof(buf));
	memcpy(buf + rt[_i], &one, 8);
	ck_assert_int_eq(pk_python_debug_offsets(buf, sizeof(buf), version, 1, &o2), -ENOTSUP);
}
END_TEST

static struct pk_unwind_file file_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(stat(path, &st), 0);
	return (struct pk_unwind_file){
		.path = path,
		.key = { pk_kernel_dev(major(st.st_dev), minor(st.st_dev)), st.st_ino },
	};
}

/*
 * Whoever loads a file's table puts an interpreter in py_files, with the
 * offsets pk_python_file gives and PK_FILE_PYTHON in its unwind_files
 * entry; a file that is not one gets neither, and a Python of a version
 * with no offsets one line and native frames only.
 */
START_TEST(test_store_adds_interpreters)
{
	struct pk_unwind_alloc caps = { .max_bytes = 64 << 20, .max_tables = 16 };
	char dir[] = "/tmp/pk-python-XXXXXX", copy[4096], err[PK_ERR_LEN], line[4400];
	char pins[] = "/tmp/pk-pins-XXXXXX", cache[] = "/tmp/pk-cache-XXXXXX";
	struct pk_unwind_file files[3];
	struct pk_unwind_store_opts opts;
	struct pk_unwind_store *s;
	struct pk_unwind_fds fds;
	struct pk_py_file want, got;
	struct pk_file_info fi;
	char *log_buf = NULL;
	size_t log_len = 0;
	FILE *log = open_memstream(&log_buf, &log_len);
	char *argv[] = { "rm", "-rf", cache, NULL };

	python_312(dir, copy, sizeof(copy));
	ck_assert_ptr_nonnull(mkdtemp(pins));
	ck_assert_ptr_nonnull(mkdtemp(cache));
	opts = (struct pk_unwind_store_opts){ .cache_dir = cache, .jobs = 2, .log = log,
					      .prog = "test" };
	ck_assert_int_eq(pk_unwind_maps_create(&caps, 64, &fds), 0);
	ck_assert_int_eq(pk_unwind_store_create(&fds, &caps, pins, &opts, &s, err), 0);
	files[0] = file_of("/usr/bin/python3.11");
	files[1] = file_of("/bin/true");
	files[2] = file_of(copy);
	ck_assert_msg(pk_unwind_store_add(s, files, 3, NULL, err) == 0, "%s", err);

	ck_assert_int_eq(pk_python_file("/usr/bin/python3.11", &want, NULL), 0);
	ck_assert_int_eq(bpf_map_lookup_elem(fds.py, &files[0].key, &got), 0);
	ck_assert_mem_eq(&got, &want, sizeof(got));
	ck_assert_int_eq(bpf_map_lookup_elem(fds.files, &files[0].key, &fi), 0);
	ck_assert_uint_eq(fi.flags, PK_FILE_PYTHON);
	ck_assert_uint_ne(fi.table, PK_TABLE_NONE);
	for (int i = 1; i < 3; i++) {
		ck_assert_int_eq(bpf_map_lookup_elem(fds.py, &files[i].key, &got), -ENOENT);
		ck_assert_int_eq(bpf_map_lookup_elem(fds.files, &files[i].key, &fi), 0);
		ck_assert_uint_eq(fi.flags, 0);
		ck_assert_uint_ne(fi.table, PK_TABLE_NONE);
	}
	fflush(log);
	snprintf(line, sizeof(line),
		 "test: %s: Python 3.12.0 (0x030c0000) is not supported: native frames only\n",
		 copy);
	ck_assert_str_eq(log_buf, line);

	pk_unwind_store_free(s);
	pk_unwind_fds_close(&fds);
	fclose(log);
	free(log_buf);
	unlink(copy);
	rmdir(dir);
	rmdir(pins);
	ck_assert_int_eq(pk_test_run(argv, NULL, NULL), 0);
}
END_TEST

START_TEST(test_not_python)
{
	struct pk_python_build build;
	struct pk_py_file pf;

	ck_assert_int_eq(pk_python_file("/bin/true", &pf, &build), -ENOENT);
	ck_assert_uint_eq(build.version, 0);
	/* not an ELF */
	ck_assert_int_eq(pk_python_file("/etc/passwd", &pf, NULL), -ENOENT);
	ck_assert_int_eq(pk_python_file("/nonexistent/python3.11", &pf, NULL), -ENOENT);
	/* the versions of the table only: 3.11, either build */
	ck_assert_ptr_nonnull(pk_python_offsets(0x030b02f0, false));
	ck_assert_ptr_nonnull(pk_python_offsets(0x030b07f0, true));
	ck_assert_ptr_null(pk_python_offsets(0x030a0cf0, false));
	ck_assert_ptr_null(pk_python_offsets(0x030c00f0, false));
}
END_TEST

Suite *suite_python(void)
{
	Suite *s = suite_create("python");
	TCase *tc = tcase_create("offsets");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, test_offsets_match_dwarf, 0, NINTERPS);
	suite_add_tcase(s, tc);
	tc = tcase_create("detect");
	tcase_add_test(tc, test_unknown_version_not_supported);
	tcase_add_loop_test(tc, test_debug_offsets_refused, 0, 3);
	tcase_add_loop_test(tc, test_debug_offsets_checks, 0, 2);
	tcase_add_test(tc, test_not_python);
	suite_add_tcase(s, tc);
	if (pk_test_need_root(s, "the unwind maps are BPF maps")) {
		tc = tcase_create("store");
		tcase_set_timeout(tc, 120);
		tcase_add_test(tc, test_store_adds_interpreters);
		suite_add_tcase(s, tc);
	}
	return s;
}
