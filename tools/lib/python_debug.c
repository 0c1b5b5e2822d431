// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The struct offsets of CPython 3.13 and 3.14 from the interpreter's own
 * description of itself: from 3.13 on, _PyRuntime starts with a
 * _Py_DebugOffsets (Include/internal/pycore_debug_offsets.h in 3.14,
 * pycore_runtime.h in 3.13), which CPython fills in statically for
 * out-of-process debuggers: the cookie "xdebugpy", PY_VERSION_HEX, whether
 * the build is free-threaded, then one group of 64-bit offsets per struct
 * (the runtime, the interpreter, the thread state, the frame, the code
 * object, ...), each group led by its struct's size.
 *
 * The groups the walk needs keep their members in the same order in 3.13
 * and 3.14; what moved between the two is where each group starts (3.14's
 * interpreter, frame and code groups grew, a set group came before the
 * bytes group). Those starts are the one table per version here; every
 * offset read is then checked against its group's size and the walk's
 * read widths, and the runtime group's size against _PyRuntime's own
 * symbol size, so that a layout other than the one expected is refused
 * rather than read wrong.
 *
 * Two offsets the structure does not give, checked against the DWARF of
 * Debian's 3.13 and 3.14 builds (tests/unit/lib/test_python.c):
 * _co_firsttraceable, an int 16 bytes before co_code_adaptive (co_extra,
 * a pointer, between them), and sizeof(PyCompactUnicodeObject), 16 bytes
 * past sizeof(PyASCIIObject) (utf8_length and utf8: no wstr since 3.12).
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "lib/python_debug.h"

/* The members read, as indexes of 64-bit words in their group (word 0
 * is the group's size). */
enum {
	RT_INTERP_HEAD = 2,			/* runtime_state.interpreters_head */
	IS_THREADS_HEAD = 3,			/* interpreter_state.threads_head */
	TS_NEXT = 2, TS_FRAME = 4, TS_THREAD_ID = 5,	/* thread_state */
	FR_PREVIOUS = 1, FR_EXEC = 2, FR_INSTR = 3, FR_OWNER = 5,
	CO_FILENAME = 1, CO_NAME = 2, CO_QUALNAME = 3, CO_LINETABLE = 4,
	CO_FIRSTLINENO = 5, CO_ADAPTIVE = 9,
	BY_SIZE = 1, BY_SVAL = 2,		/* bytes_object: ob_size, ob_sval */
	UN_STATE = 1, UN_LENGTH = 2, UN_ASCII_SIZE = 3,	/* unicode_object */
};

/* Where each group starts in _Py_DebugOffsets (bytes), per minor version. */
struct dbg_layout {
	__u8 minor;
	__u8 flags;		/* pk_py_offsets.flags */
	__u8 owner_entry;	/* the entry frame's owner (enum _frameowner) */
	__u16 runtime, interp, tstate, frame, code, bytes, unicode;
};

static const struct dbg_layout layouts[] = {
	/* FRAME_OWNED_BY_CSTACK is 3 */
	{ 13, PK_PY_TSTATE_FRAME, 3, 24, 48, 152, 224, 272, 512, 536 },
	/* FRAME_OWNED_BY_INTERPRETER is 3, then _CSTACK 4; f_executable a
	 * _PyStackRef */
	{ 14, PK_PY_TSTATE_FRAME | PK_PY_EXEC_TAGGED, 3, 24, 48, 176, 248, 312, 592, 616 },
};

/* The BPF walk reads a frame header and a code object's fixed part into
 * buffers of this size (bpf/python_walk.bpf.h PY_BUF). */
#define WALK_BUF	256

struct reader {
	const __u8 *image;
	size_t len;
	bool bad;
};

static __u64 word(struct reader *r, size_t at)
{
	__u64 v;

	if (at > r->len || r->len - at < sizeof(v)) {
		r->bad = true;
		return 0;
	}
	memcpy(&v, r->image + at, sizeof(v));
	return v;
}

/* Member IDX of the group at GROUP, WIDTH bytes wide: its offset, within
 * the group's struct and its end below 64 KiB (a __u16); else R->bad. */
static __u16 member(struct reader *r, __u16 group, unsigned int idx, unsigned int width)
{
	__u64 size = word(r, group), off = word(r, group + 8 * (size_t)idx);

	if (off > size || size - off < width || off + width > 0xffff)
		r->bad = true;
	return r->bad ? 0 : (__u16)off;
}

static __u16 max16(__u16 a, __u16 b)
{
	return a > b ? a : b;
}

int pk_python_debug_offsets(const void *image, size_t len, __u32 version, __u64 runtime_size,
			    struct pk_py_offsets *out)
{
	struct reader r = { image, len, false };
	const struct dbg_layout *l = NULL;
	struct pk_py_offsets o = { 0 };
	__u16 ascii_size, frame_end;

	for (size_t i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (version >> 24 == 3 && (version >> 16 & 0xff) == layouts[i].minor)
			l = &layouts[i];
	/* the cookie, the version the file's Py_Version says, a build with
	 * the usual object header */
	if (!l || len < 24 || memcmp(image, PK_PY_DEBUG_COOKIE, 8) ||
	    word(&r, 8) != version || word(&r, 16) != 0)
		return -ENOTSUP;
	if (word(&r, l->runtime) != runtime_size)
		return -ENOTSUP;

	o.runtime_interp_head = member(&r, l->runtime, RT_INTERP_HEAD, 8);
	o.interp_threads_head = member(&r, l->interp, IS_THREADS_HEAD, 8);
	o.tstate_next = member(&r, l->tstate, TS_NEXT, 8);
	o.tstate_cframe = member(&r, l->tstate, TS_FRAME, 8);
	o.tstate_thread_id = member(&r, l->tstate, TS_THREAD_ID, 8);
	o.frame_previous = member(&r, l->frame, FR_PREVIOUS, 8);
	o.frame_code = member(&r, l->frame, FR_EXEC, 8);
	o.frame_prev_instr = member(&r, l->frame, FR_INSTR, 8);
	o.frame_owner = member(&r, l->frame, FR_OWNER, 1);
	o.code_filename = member(&r, l->code, CO_FILENAME, 8);
	o.code_name = member(&r, l->code, CO_NAME, 8);
	o.code_qualname = member(&r, l->code, CO_QUALNAME, 8);
	o.code_linetable = member(&r, l->code, CO_LINETABLE, 8);
	o.code_firstlineno = member(&r, l->code, CO_FIRSTLINENO, 4);
	o.code_adaptive = member(&r, l->code, CO_ADAPTIVE, 2);
	o.bytes_size = member(&r, l->bytes, BY_SIZE, 8);
	o.bytes_data = member(&r, l->bytes, BY_SVAL, 1);
	o.unicode_state = member(&r, l->unicode, UN_STATE, 4);
	o.unicode_length = member(&r, l->unicode, UN_LENGTH, 8);
	ascii_size = member(&r, l->unicode, UN_ASCII_SIZE, 0);
	if (r.bad)
		return -ENOTSUP;

	/* the frame's header up to its last field read, in 8-byte words */
	frame_end = max16(max16(o.frame_previous, o.frame_code), o.frame_prev_instr) + 8;
	frame_end = max16(frame_end, o.frame_owner + 1);
	o.frame_size = (frame_end + 7) & ~7u;
	/* the code object's fixed part: every field read is before the code
	 * units, _co_firsttraceable too */
	if (o.code_adaptive < 16)
		return -ENOTSUP;
	o.code_firsttraceable = o.code_adaptive - 16;
	o.code_size = o.code_adaptive;
	if (o.frame_size > WALK_BUF || o.code_size > WALK_BUF ||
	    max16(max16(max16(o.code_filename, o.code_name), o.code_qualname),
		  o.code_linetable) + 8 > o.code_size ||
	    o.code_firstlineno + 4 > o.code_size)
		return -ENOTSUP;
	/* a string's or bytes' characters follow its header */
	if (o.unicode_state + 4 > ascii_size || o.unicode_length + 8 > ascii_size ||
	    ascii_size > 0xffff - 16 || o.bytes_size + 8 > o.bytes_data)
		return -ENOTSUP;
	o.unicode_ascii_data = ascii_size;
	o.unicode_compact_data = ascii_size + 16;
	o.flags = l->flags;
	o.owner_entry = l->owner_entry;
	*out = o;
	return 0;
}
