// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * CPython interpreters in ELF files. An interpreter exports _PyRuntime (the
 * walk's way in: runtime -> interpreters -> threads -> frames) and
 * Py_Version (PY_VERSION_HEX, a constant in .rodata since 3.11): both are in
 * .dynsym of python3.X, whose libpython is linked in statically, and of
 * libpython3.X.so. A Py_DEBUG build also exports _Py_RefTotal, the reference
 * count total only debug builds keep.
 *
 * The struct offsets the walk reads: 3.11's from a table here, 3.13's and
 * 3.14's from the _Py_DebugOffsets their _PyRuntime starts with, read from
 * the file (tools/lib/python_debug.c). 3.12 has neither: not supported.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "eh_frame/elf_file.h"
#include "lib/python.h"
#include "lib/python_debug.h"

/*
 * Offsets per (major, minor, debug). Checked against the DWARF of Debian
 * 12's 3.11.2 builds (tests/unit/lib/test_python.c reads them from the
 * debug info of python3.11, libpython3.11.so.1.0 and python3.11d): within
 * 3.11 these structs kept their layout, and Debian's Py_DEBUG build has no
 * Py_TRACE_REFS, so its objects have the release build's layout.
 */
struct py_layout {
	__u32 version;		/* PY_VERSION_HEX with micro, level, serial 0 */
	bool debug;
	struct pk_py_offsets off;
};

#define PY_311_OFFSETS {						\
	.runtime_interp_head = 40,					\
	.interp_threads_head = 16,					\
	.tstate_next = 8,						\
	.tstate_thread_id = 152,					\
	.tstate_cframe = 56,						\
	.cframe_current_frame = 8,					\
	.frame_code = 32,						\
	.frame_previous = 48,						\
	.frame_prev_instr = 56,						\
	.frame_is_entry = 68,						\
	.frame_owner = 69,						\
	.frame_size = 72,						\
	.code_filename = 112,						\
	.code_name = 120,						\
	.code_qualname = 128,						\
	.code_linetable = 136,						\
	.code_firstlineno = 72,						\
	.code_firsttraceable = 168,					\
	.code_adaptive = 184,						\
	.code_size = 184,						\
	.bytes_size = 16,						\
	.bytes_data = 32,						\
	.unicode_length = 16,						\
	.unicode_state = 32,						\
	.unicode_ascii_data = 48,					\
	.unicode_compact_data = 72,					\
}

static const struct py_layout layouts[] = {
	{ 0x030b0000, false, PY_311_OFFSETS },
	{ 0x030b0000, true, PY_311_OFFSETS },
};

const struct pk_py_offsets *pk_python_offsets(__u32 version, bool debug)
{
	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].version == (version & 0xffff0000u) && layouts[i].debug == debug)
			return &layouts[i].off;
	return NULL;
}

void pk_python_version_str(__u32 version, char *buf, unsigned long len)
{
	snprintf(buf, len, "%u.%u.%u", version >> 24, (version >> 16) & 0xff,
		 (version >> 8) & 0xff);
}

/* What the symbol tables say. */
struct py_syms {
	bool runtime, version, reftotal;
	GElf_Sym runtime_sym, version_sym;
};

static void scan_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, struct py_syms *s)
{
	Elf_Data *data = elf_getdata(scn, NULL);
	size_t n;

	if (!data || !sh->sh_entsize)
		return;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(data, i, &sym) || sym.st_shndx == SHN_UNDEF)
			continue;
		name = elf_strptr(elf, sh->sh_link, sym.st_name);
		if (!name || (name[0] != '_' && name[0] != 'P'))
			continue;
		if (!strcmp(name, "_PyRuntime") && !s->runtime) {
			s->runtime = true;
			s->runtime_sym = sym;
		} else if (!strcmp(name, "Py_Version") && !s->version) {
			s->version = true;
			s->version_sym = sym;
		} else if (!strcmp(name, "_Py_RefTotal")) {
			s->reftotal = true;
		}
	}
}

/* Up to LEN bytes at SYM's vaddr from the file image (SYM's section, at
 * its vaddr's offset in it), within the section: their number, or
 * -ENOEXEC when SYM is not in a section with bytes in the file. */
static long read_sym(Elf *elf, const GElf_Sym *sym, void *out, size_t len)
{
	Elf_Scn *scn = elf_getscn(elf, sym->st_shndx);
	size_t size;
	const char *image = elf_rawfile(elf, &size);
	GElf_Shdr sh;
	__u64 off, in_scn;

	if (!scn || !gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || !image)
		return -ENOEXEC;
	if (sym->st_value < sh.sh_addr || sym->st_value - sh.sh_addr > sh.sh_size)
		return -ENOEXEC;
	in_scn = sh.sh_size - (sym->st_value - sh.sh_addr);
	off = sh.sh_offset + (sym->st_value - sh.sh_addr);
	if (off > size)
		return -ENOEXEC;
	if (len > in_scn)
		len = in_scn;
	if (len > size - off)
		len = size - off;
	memcpy(out, image + off, len);
	return len;
}

/* The 4 bytes of Py_Version (an unsigned long: its low half, little-endian). */
static int read_version(Elf *elf, const GElf_Sym *sym, __u32 *out)
{
	long n = read_sym(elf, sym, out, sizeof(*out));

	return n < 0 ? (int)n : n < (long)sizeof(*out) ? -ENOEXEC : 0;
}

/* Bytes of _PyRuntime read for its _Py_DebugOffsets: 3.14's is 760. */
#define PY_DEBUG_READ	1024

/* The offsets of an interpreter of 3.13 on from its _PyRuntime. */
static int debug_offsets(Elf *elf, const struct py_syms *s, __u32 version,
			 struct pk_py_offsets *out)
{
	__u8 buf[PY_DEBUG_READ];
	long n = read_sym(elf, &s->runtime_sym, buf, sizeof(buf));

	if (n < 0)
		return -ENOTSUP;	/* in .bss: not the static structure */
	return pk_python_debug_offsets(buf, n, version, s->runtime_sym.st_size, out);
}

int pk_python_elf(Elf *elf, struct pk_py_file *out, struct pk_python_build *build)
{
	struct py_syms s = { 0 };
	const struct pk_py_offsets *off;
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;
	int ret;

	memset(build, 0, sizeof(*build));

	if (elf_kind(elf) != ELF_K_ELF || gelf_getclass(elf) != ELFCLASS64)
		return -ENOENT;
	while ((scn = elf_nextscn(elf, scn))) {
		if (!gelf_getshdr(scn, &sh))
			return -ENOEXEC;
		if (sh.sh_type == SHT_DYNSYM || sh.sh_type == SHT_SYMTAB)
			scan_symtab(elf, scn, &sh, &s);
	}
	if (!s.runtime || !s.version)
		return -ENOENT;
	ret = read_version(elf, &s.version_sym, &build->version);
	if (ret)
		return ret;
	build->debug = s.reftotal;
	memset(out, 0, sizeof(*out));
	if (build->version >= 0x030d0000u) {
		ret = debug_offsets(elf, &s, build->version, &out->off);
		if (ret)
			return ret;
	} else {
		off = pk_python_offsets(build->version, build->debug);
		if (!off)
			return -ENOTSUP;
		out->off = *off;
	}
	out->version = build->version;
	out->runtime = s.runtime_sym.st_value;
	return 0;
}

int pk_python_file(const char *path, struct pk_py_file *out, struct pk_python_build *build)
{
	struct pk_python_build local;
	Elf *elf;
	int fd, ret;

	if (!build)
		build = &local;
	memset(build, 0, sizeof(*build));
	/* not blocking: a FIFO named by mistake must not hang the loader */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	elf = eh_elf_begin(fd);
	ret = elf ? pk_python_elf(elf, out, build) : -ENOENT;
	elf_end(elf);
	close(fd);
	return ret;
}
