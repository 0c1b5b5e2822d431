/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * What the BPF walk (bpf/python_walk.bpf.h) takes for granted of the
 * offsets tools/lib/python.c hands it, whatever file they came from: every
 * field it reads of a frame header or a code object's fixed part within
 * the bytes it reads (frame_size, code_size), those within its 256-byte
 * buffers, a string's header before its characters.
 */
#ifndef PK_FUZZ_PY_OFFSETS_CHECK_H
#define PK_FUZZ_PY_OFFSETS_CHECK_H

#include <stdbool.h>

#include "bpf/probekit.h"

static inline bool pk_fuzz_py_offsets_ok(const struct pk_py_offsets *o)
{
	bool frame_ok = o->frame_size <= 256 && o->frame_code + 8 <= o->frame_size &&
			o->frame_previous + 8 <= o->frame_size &&
			o->frame_prev_instr + 8 <= o->frame_size &&
			o->frame_owner + 1 <= o->frame_size &&
			(o->owner_entry || o->frame_is_entry + 1 <= o->frame_size);
	bool code_ok = o->code_size <= 256 && o->code_filename + 8 <= o->code_size &&
		       o->code_name + 8 <= o->code_size && o->code_qualname + 8 <= o->code_size &&
		       o->code_linetable + 8 <= o->code_size &&
		       o->code_firstlineno + 4 <= o->code_size &&
		       o->code_firsttraceable + 4 <= o->code_size &&
		       o->code_size <= o->code_adaptive;
	bool str_ok = o->unicode_length + 8 <= o->unicode_ascii_data &&
		      o->unicode_state + 4 <= o->unicode_ascii_data &&
		      o->unicode_ascii_data <= o->unicode_compact_data &&
		      o->bytes_size + 8 <= o->bytes_data;

	return frame_ok && code_ok && str_ok &&
	       !(o->flags & ~(PK_PY_TSTATE_FRAME | PK_PY_EXEC_TAGGED));
}

#endif
