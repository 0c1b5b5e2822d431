/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * CPython 3.13's and 3.14's struct offsets from their _Py_DebugOffsets,
 * the structure _PyRuntime starts with (tools/lib/python_debug.c).
 */
#ifndef PK_PYTHON_DEBUG_H
#define PK_PYTHON_DEBUG_H

#include <stddef.h>
#include <linux/types.h>

#include "bpf/probekit.h"

#define PK_PY_DEBUG_COOKIE	"xdebugpy"

/*
 * The offsets the BPF walk reads an interpreter of VERSION (its Py_Version)
 * with, from IMAGE: the first LEN bytes of its _PyRuntime (the file's
 * bytes: CPython initializes the structure statically), whose symbol says
 * it is RUNTIME_SIZE bytes. 0: *OUT set; -ENOTSUP: no offsets the walk can
 * read (not 3.13 or 3.14, no cookie, another version than VERSION, a
 * free-threaded build, a layout other than the one known for the version,
 * an offset past its struct or the walk's buffers). IMAGE is anybody's
 * bytes: every read is bounded by LEN.
 */
int pk_python_debug_offsets(const void *image, size_t len, __u32 version, __u64 runtime_size,
			    struct pk_py_offsets *out);

#endif
