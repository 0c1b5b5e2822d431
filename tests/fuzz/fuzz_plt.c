// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-read names the PLT stubs of every file a profiled process maps:
 * files anybody could have written. The input is such a file; every stub
 * must lie in a section of it, and every name must be a string.
 */
#include <gelf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "elf_input.h"
#include "symbolization/plt.h"

static int check_stub(void *ctx, __u64 addr, __u64 size, const char *sym, __u64 ifunc)
{
	size_t *n = ctx;

	(void)addr;
	(void)ifunc;
	if (!size || (sym && strlen(sym) > (size_t)1 << 30))
		abort();
	++*n;
	return *n > 1000000;	/* stops the walk: more stubs than bytes */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	size_t n = 0;
	char *copy;
	Elf *elf = fuzz_elf_open(data, size, &copy);

	if (elf) {
		int ret = pk_plt_for_each(elf, check_stub, &n);

		if (ret < 0 && ret != -12 /* ENOMEM */)
			abort();
	}
	fuzz_elf_close(elf, copy);
	return 0;
}
