// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The _Py_DebugOffsets parser (tools/lib/python_debug.c) reads the first
 * bytes of _PyRuntime from any file that has the symbol. The input is those
 * bytes; the version and _PyRuntime's size are taken from them (the
 * version field, the runtime group's size word, 3.13's or 3.14's) so that
 * the fuzzer gets past the first checks. The answer must be 0 or -ENOTSUP,
 * and offsets given must hold what the BPF walk takes for granted.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/python_debug.h"
#include "py_offsets_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_py_offsets o;
	__u64 version = 0, runtime_size = 0;
	int ret;

	if (size >= 16)
		memcpy(&version, data + 8, 4);
	if (size >= 32)
		memcpy(&runtime_size, data + 24, 8);
	/* a copy of its own size: reads past it are ASan's to find */
	{
		uint8_t *copy = malloc(size ? size : 1);

		if (!copy)
			abort();
		memcpy(copy, data, size);
		ret = pk_python_debug_offsets(copy, size, (__u32)version, runtime_size, &o);
		free(copy);
	}
	if (ret != 0 && ret != -ENOTSUP)
		abort();
	if (ret == 0 && (!pk_fuzz_py_offsets_ok(&o) || !o.owner_entry ||
			 !(o.flags & PK_PY_TSTATE_FRAME)))
		abort();
	return 0;
}
