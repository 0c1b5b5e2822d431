/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Python code objects as the kernel named them (PK_EVENT_PY_CODE, see
 * bpf/python_records.h), per process and code address, and the line an
 * instruction of one is at.
 *
 * The latest event of a (pid, code) wins: a code object freed and another
 * made at its address is reported again. Entries are kept until their
 * process is forgotten (pk_py_codes_forget_pid), as the symbolizer keeps
 * the mappings of processes that exited: samples of a process still in the
 * ring buffer when it exits are named all the same. An entry replaced
 * stays allocated until then too, so that the names it lent to locations
 * stay valid.
 *
 * Lines come from the code's co_linetable, CPython 3.11's location table
 * (PEP 657; CPython's Objects/locations.md), a table of untrusted bytes:
 * pk_py_linetable_line reads any bytes without reading past them and says
 * 0 (unknown) where they make no sense, never a guess.
 */
#ifndef PK_PYTHON_CODE_H
#define PK_PYTHON_CODE_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

#include "bpf/probekit.h"

/* A code event's fields, as reading/record.c checked them: NAME_LEN bytes
 * at NAME, FILE_LEN at FILE, LINETABLE_LEN at LINETABLE (not
 * NUL-terminated, maybe unaligned). */
struct pk_py_code_desc {
	__u32 flags;		/* enum pk_py_code_flags */
	__u32 pid;
	__u32 version;		/* PY_VERSION_HEX */
	__u64 code;		/* the PyCodeObject's address (48 bits) */
	__s32 firstlineno;
	__u32 firsttraceable;
	const char *name;
	const char *file;
	const __u8 *linetable;
	__u16 name_len, file_len, linetable_len;
};

/* One code object. */
struct pk_py_code {
	__u64 serial;		/* unique in its registry, from 1: a new
				 * entry for the same (pid, code) has another */
	const char *qualname;	/* UTF-8; NULL: unreadable */
	const char *file;	/* UTF-8, "..." before a truncated one's end;
				 * NULL: unreadable */
	const __u8 *linetable;
	size_t linetable_len;
	__u32 flags;		/* enum pk_py_code_flags */
	__u32 version;
	__s32 firstlineno;
	__u32 firsttraceable;
};

/* Whether this reader reads VERSION's (PY_VERSION_HEX) line table: the
 * format of 3.11 (PEP 657's), which 3.12 to 3.14 keep. */
static inline bool pk_py_linetable_known(__u32 version)
{
	return version >> 24 == 3 && (version >> 16 & 0xff) >= 11 && (version >> 16 & 0xff) <= 14;
}

/*
 * The line of code unit INDEX (0: the first) by the location table TABLE
 * of LEN bytes of a code whose co_firstlineno is FIRSTLINENO: > 0, or 0
 * when the table says no line (code 15), ends before INDEX, or is
 * malformed there (an entry whose fields run past the next entry's first
 * byte or the end, a line out of range).
 */
__u32 pk_py_linetable_line(const __u8 *table, size_t len, __s32 firstlineno, __u32 index);

/* The line of the instruction a Python frame's INSTR_PLUS_ONE (the
 * pk_py_frame field) says CODE runs, or 0: not known (PK_PY_INSTR_UNKNOWN,
 * a line table of a version this reader does not read, past a truncated
 * table). */
__u32 pk_py_code_line(const struct pk_py_code *code, __u32 instr_plus_one);

struct pk_py_codes;

struct pk_py_codes *pk_py_codes_new(void);
void pk_py_codes_free(struct pk_py_codes *codes);

/* Record D, its strings converted to UTF-8 (Latin-1 where the flags say
 * so; control characters as '?', so that a name is one line). 1 when it
 * took the place of a different entry of its (pid, code), 0 when new or
 * the same as the entry there, -ENOMEM. */
int pk_py_codes_add(struct pk_py_codes *codes, const struct pk_py_code_desc *d);

/* The latest entry of (PID, CODE), or NULL. */
const struct pk_py_code *pk_py_codes_find(const struct pk_py_codes *codes, __u32 pid,
					  __u64 code);

/* PID's entries freed: no name of them is read again. */
void pk_py_codes_forget_pid(struct pk_py_codes *codes, __u32 pid);

/* Entries held (the latest of each (pid, code)). */
size_t pk_py_codes_count(const struct pk_py_codes *codes);

#endif
