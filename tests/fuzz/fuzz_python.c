// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load and probe-read ask of every file a profiled process maps
 * whether it is a CPython interpreter (tools/lib/python.c): files anybody
 * could have written. The input is such a file; the answer must be one of
 * the documented ones, and a supported one must carry the offsets of its
 * version's table (3.11), or from 3.13 offsets its own _Py_DebugOffsets
 * gave that hold what the BPF walk takes for granted.
 */
#include <errno.h>
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf_input.h"
#include "lib/python.h"
#include "py_offsets_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pk_python_build build;
	struct pk_py_file pf;
	char *copy;
	Elf *elf = fuzz_elf_open(data, size, &copy);

	if (elf) {
		int ret = pk_python_elf(elf, &pf, &build);
		const struct pk_py_offsets *o = pk_python_offsets(build.version, build.debug);

		if (ret != 0 && ret != -ENOENT && ret != -ENOTSUP && ret != -ENOEXEC)
			abort();
		if (ret == 0 && (pf.version != build.version || !pk_fuzz_py_offsets_ok(&pf.off)))
			abort();
		if (ret == 0 && build.version < 0x030d0000u &&
		    (!o || memcmp(&pf.off, o, sizeof(*o))))
			abort();
		if (ret == -ENOTSUP && o)
			abort();
	}
	fuzz_elf_close(elf, copy);
	return 0;
}
