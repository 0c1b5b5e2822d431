/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * The project's one way to open an ELF file with libelf, for the eh_frame
 * library and every program above it.
 */
#ifndef EH_ELF_FILE_H
#define EH_ELF_FILE_H

#include <libelf.h>

/* elf_begin(FD, ELF_C_READ_MMAP, NULL), after elf_version(EV_CURRENT): that
 * sets a libelf global, so it is called once for all threads (pthread_once)
 * and never again. NULL on failure (elf_errmsg(-1) says why); elf_end()
 * frees it, FD stays the caller's. */
Elf *eh_elf_begin(int fd);

#endif /* EH_ELF_FILE_H */
