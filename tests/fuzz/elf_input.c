// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdlib.h>
#include <string.h>

#include "elf_input.h"

Elf *fuzz_elf_open(const uint8_t *data, size_t size, char **copy)
{
	*copy = malloc(size ? size : 1);
	if (!*copy)
		abort();
	memcpy(*copy, data, size);
	elf_version(EV_CURRENT);
	return elf_memory(*copy, size);
}

void fuzz_elf_close(Elf *elf, char *copy)
{
	elf_end(elf);
	free(copy);
}
