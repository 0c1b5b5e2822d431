/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* The fuzz targets whose input is a whole ELF file, opened from memory. */
#ifndef FUZZ_ELF_INPUT_H
#define FUZZ_ELF_INPUT_H

#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* DATA opened with elf_memory() over a copy of its own (libelf may write
 * to its image; libFuzzer's is read-only), or NULL when libelf refuses
 * it; fuzz_elf_close() it either way. */
Elf *fuzz_elf_open(const uint8_t *data, size_t size, char **copy);
void fuzz_elf_close(Elf *elf, char *copy);

#endif
