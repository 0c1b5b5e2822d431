/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CPython interpreters in ELF files (bpf/python_records.h): whether a
 * file is one (python3.11, libpython3.11.so), of which version and build,
 * and the struct offsets the BPF Python walk reads its memory with
 * (struct pk_py_file, the value of py_files). Shared by probe-load and
 * probe-read: whoever loads a file's unwind table adds it to py_files.
 */
#ifndef PK_PYTHON_H
#define PK_PYTHON_H

#include <libelf.h>
#include <stdbool.h>
#include <linux/types.h>

#include "bpf/probekit.h"

/* What pk_python_file() found besides the py_files value. */
struct pk_python_build {
	__u32 version;		/* Py_Version (PY_VERSION_HEX); 0: not read */
	bool debug;		/* a Py_DEBUG build (the _Py_RefTotal symbol) */
};

/*
 * Whether the ELF file at PATH holds a CPython interpreter: the symbols
 * _PyRuntime and Py_Version (read from the file), in .dynsym or .symtab.
 * 0: *OUT is its py_files value (PK_FILE_PYTHON), its offsets 3.11's table
 * or, from 3.13, its own _Py_DebugOffsets; -ENOENT: not Python (or not an
 * ELF); -ENOTSUP: a Python whose structures the walk cannot read (3.12, a
 * later layout, a free-threaded build: *BUILD says which version: the
 * caller names it, once, and the process gets native stacks); other
 * negative errno (open, a bad ELF). BUILD may be NULL.
 */
int pk_python_file(const char *path, struct pk_py_file *out, struct pk_python_build *build);

/* pk_python_file() of an ELF open already (the file's bytes are anybody's:
 * every read is bounded by its section and the image); BUILD not NULL. */
int pk_python_elf(Elf *elf, struct pk_py_file *out, struct pk_python_build *build);

/* The offsets of the table for VERSION (PY_VERSION_HEX: major and minor
 * count) in a DEBUG build or not, or NULL when there are none (3.13 on
 * describe themselves: not in the table). */
const struct pk_py_offsets *pk_python_offsets(__u32 version, bool debug);

/* "3.11.2" of a PY_VERSION_HEX, into BUF. */
void pk_python_version_str(__u32 version, char *buf, unsigned long len);

#endif
