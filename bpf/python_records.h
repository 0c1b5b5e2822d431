/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The Python walk's part of the contract with user space: how a Python
 * frame is written in a sample, how the walk ends, the interpreter's
 * offsets in py_files and the code object's report (pk_py_code_event).
 * Included by bpf/probekit.h, whose rules it follows; include that.
 */
#ifndef PK_PYTHON_RECORDS_H
#define PK_PYTHON_RECORDS_H

#include "bpf/probekit.h"	/* struct pk_event_hdr */

/*
 * Python. A file that holds a CPython interpreter of a supported version
 * (python3.11, 3.13 or 3.14, or its libpython3.X.so: the symbols _PyRuntime
 * and Py_Version)
 * is in py_files, with the interpreter's struct offsets, and its
 * unwind_files entry has PK_FILE_PYTHON. Whoever loads the file's unwind
 * table (tools/lib/unwind_store.c, in probe-load and probe-read) adds both.
 *
 * A DWARF walk that passes through such a file remembers its load bias;
 * then (and on later samples of the process, which BPF remembers by tgid)
 * the Python walk finds the sampled thread's PyThreadState in the
 * interpreter's thread list (by thread_id: pthread_self(), its FS base,
 * which no PID namespace renames), follows its frame chain
 * from the current frame, leaf first, and appends one pk_py_frame per
 * Python frame after the native user frames, up to PK_MAX_PY_DEPTH
 * (PK_PY_END_DEPTH past it). Frames not started yet (an incomplete frame,
 * before its first traceable instruction) are skipped, as CPython's own
 * traceback does.
 *
 * A reader merges them in: each native frame in _PyEval_EvalFrameDefault,
 * leaf first, is replaced by the Python frames that call of the eval loop
 * runs, from the next one up to and including the next PK_PY_FRAME_ENTRY
 * frame (py-spy's and OTel's mixed mode).
 *
 * A code object is named by a pk_py_code_event, sent before the first
 * sample that needs it (py_code_seen remembers (tgid, code) with a stamp of
 * its name, file, line table and first line pointers, so a code object
 * freed and another made at its address is sent again); a reader keeps the
 * latest event of each (pid, code). Sent again to each new reader
 * (pk_session reader_gen).
 */

/* A Python frame in a sample's frames:
 *   bits  0..47  the PyCodeObject's address
 *   bits 48..62  the index of the instruction running (in code units from
 *                the code's first, i.e. prev_instr - co_code_adaptive) plus
 *                one; PK_PY_INSTR_UNKNOWN when it does not fit
 *   bit  63      PK_PY_FRAME_ENTRY: the first frame a call of the eval loop
 *                ran (3.11's is_entry; from 3.13 the frame before the
 *                loop's entry frame): the eval frame's last Python frame */
#define PK_PY_CODE_MASK		((1ull << 48) - 1)
#define PK_PY_INSTR_SHIFT	48
#define PK_PY_INSTR_MASK	0x7fffull
#define PK_PY_INSTR_UNKNOWN	0x7fffull
#define PK_PY_FRAME_ENTRY	(1ull << 63)

static inline __u64 pk_py_frame(__u64 code, __u64 instr_plus_one, int entry)
{
	if (instr_plus_one > PK_PY_INSTR_UNKNOWN)
		instr_plus_one = PK_PY_INSTR_UNKNOWN;
	return (code & PK_PY_CODE_MASK) | instr_plus_one << PK_PY_INSTR_SHIFT |
	       (entry ? PK_PY_FRAME_ENTRY : 0);
}

/* How the Python walk of a sample ended (pk_sample.py_end). */
enum pk_py_end {
	PK_PY_END_NONE = 0,	/* no walk: not a Python process (or --no-python) */
	PK_PY_END_COMPLETE,	/* the frame chain ended (or the thread runs no
				 * Python now: py_len 0) */
	PK_PY_END_DEPTH,	/* PK_MAX_PY_DEPTH frames and more: cut */
	PK_PY_END_NO_THREAD,	/* no PyThreadState is the sampled thread's (a
				 * thread Python did not start, or past the
				 * threads the walk looks at) */
	PK_PY_END_READ_FAULT,	/* the interpreter's memory could not be read */
	PK_PY_END__MAX,
};

/* How an interpreter's structures differ beyond their offsets
 * (pk_py_offsets.flags). */
enum pk_py_layout_flags {
	PK_PY_TSTATE_FRAME	= 1u << 0, /* tstate_cframe is PyThreadState's
					    * current_frame itself (3.13 on:
					    * there is no _PyCFrame) */
	PK_PY_EXEC_TAGGED	= 1u << 1, /* frame_code is a _PyStackRef
					    * (3.14): its low 3 bits are tags,
					    * free in an object's alignment */
};

/* Struct offsets of one interpreter version, in bytes: 3.11's from a table
 * checked against its debug info, 3.13's and 3.14's from the interpreter's
 * own _Py_DebugOffsets (tools/lib/python.c). */
struct pk_py_offsets {
	__u16 runtime_interp_head;	/* _PyRuntimeState.interpreters.head */
	__u16 interp_threads_head;	/* PyInterpreterState.threads.head */
	__u16 tstate_next;		/* PyThreadState.next */
	__u16 tstate_thread_id;		/* PyThreadState.thread_id: pthread_self() */
	__u16 tstate_cframe;		/* PyThreadState.cframe (.current_frame
					 * with PK_PY_TSTATE_FRAME) */
	__u16 cframe_current_frame;	/* _PyCFrame.current_frame */
	__u16 frame_code;		/* _PyInterpreterFrame.f_code (f_executable) */
	__u16 frame_previous;		/* .previous */
	__u16 frame_prev_instr;		/* .prev_instr (instr_ptr): both the
					 * instruction running */
	__u16 frame_is_entry;		/* .is_entry (a bool; not with owner_entry) */
	__u16 frame_owner;		/* .owner (a char: 1 the generator) */
	__u16 frame_size;		/* bytes read of a frame: past all of the above */
	__u16 code_filename;		/* PyCodeObject.co_filename */
	__u16 code_name;		/* .co_name */
	__u16 code_qualname;		/* .co_qualname */
	__u16 code_linetable;		/* .co_linetable (bytes) */
	__u16 code_firstlineno;		/* .co_firstlineno (int) */
	__u16 code_firsttraceable;	/* ._co_firsttraceable (int) */
	__u16 code_adaptive;		/* .co_code_adaptive: the first code unit */
	__u16 code_size;		/* bytes read of a code object: past all of the above */
	__u16 bytes_size;		/* PyVarObject.ob_size of a bytes object */
	__u16 bytes_data;		/* PyBytesObject.ob_sval */
	__u16 unicode_length;		/* PyASCIIObject.length */
	__u16 unicode_state;		/* PyASCIIObject.state (the bit field's word) */
	__u16 unicode_ascii_data;	/* sizeof(PyASCIIObject): a compact ASCII string's bytes */
	__u16 unicode_compact_data;	/* sizeof(PyCompactUnicodeObject): others' */
	__u8 flags;			/* enum pk_py_layout_flags */
	__u8 owner_entry;		/* 3.13 on: the .owner of the frame a call
					 * of the eval loop pushes before the
					 * first frame it runs (FRAME_OWNED_BY_
					 * CSTACK, 3.14's _INTERPRETER); frames
					 * of an owner this or above are no
					 * Python function's. 0: none (3.11's
					 * is_entry says it) */
	__u16 __pad;
};

/* py_files' value. */
struct pk_py_file {
	__u32 version;		/* PY_VERSION_HEX of the interpreter (Py_Version) */
	__u32 __pad;
	__u64 runtime;		/* ELF vaddr of _PyRuntime in the file */
	struct pk_py_offsets off;
};

/* What a pk_py_code_event's strings are. */
enum pk_py_code_flags {
	PK_PY_NAME_TRUNC	= 1u << 0, /* the qualname was longer */
	PK_PY_FILE_TRUNC	= 1u << 1, /* the file name was longer (its end kept) */
	PK_PY_LINES_TRUNC	= 1u << 2, /* the line table was longer: instructions
					    * past what it has get no line */
	PK_PY_NAME_LATIN1	= 1u << 3, /* qualname's bytes are Latin-1, not ASCII */
	PK_PY_FILE_LATIN1	= 1u << 4, /* filename's bytes are Latin-1 */
	PK_PY_NAME_UNREADABLE	= 1u << 5, /* a string of 2- or 4-byte characters,
					    * or unreadable: name_len 0 */
	PK_PY_FILE_UNREADABLE	= 1u << 6,
};

#define PK_PY_NAME_MAX		128
#define PK_PY_FILE_MAX		256
#define PK_PY_LINETABLE_MAX	4096

struct pk_py_code_event {
	struct pk_event_hdr hdr;	/* flags: enum pk_py_code_flags */
	__u32 pid;			/* tgid */
	__u32 version;			/* PY_VERSION_HEX: how to read the line table */
	__u64 code;			/* the PyCodeObject's address in pid */
	__s32 firstlineno;		/* co_firstlineno */
	__u32 firsttraceable;		/* _co_firsttraceable */
	__u16 name_len;			/* bytes of co_qualname at data[0] */
	__u16 file_len;			/* bytes of co_filename after it */
	__u16 linetable_len;		/* bytes of co_linetable after that */
	__u16 __pad[3];
	/* __u8 data[name_len + file_len + linetable_len]: no NULs */
};

#endif /* PK_PYTHON_RECORDS_H */
