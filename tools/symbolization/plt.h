/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Names for PLT stubs, which no symbol table lists: the stub that jumps
 * through the GOT slot of `puts` is puts@plt, as objdump and perf call it.
 *
 * A stub is matched to its function by the slot it jumps through, not by
 * its position: the linker orders .rela.plt and the stubs differently
 * (glibc's IRELATIVE entries come last in the relocations, first in .plt).
 * x86_64 layouts: .plt (lazy; its first entry is the resolver's), .plt.sec
 * (IBT: the stubs proper, .plt holding the lazy halves) and .plt.got
 * (functions whose address is taken, through GLOB_DAT).
 */
#ifndef PK_PLT_H
#define PK_PLT_H

#include <gelf.h>
#include <linux/types.h>

/* One stub: ADDR, SIZE bytes, jumping to SYM (the dynamic symbol's name) or,
 * for an IRELATIVE slot, to what the ifunc resolver at IFUNC picks (SYM is
 * NULL then). Returning non-zero stops the walk with that value. */
typedef int (*pk_plt_fn)(void *ctx, __u64 addr, __u64 size, const char *sym, __u64 ifunc);

/*
 * Call FN for every PLT stub of ELF (addresses are the ELF's own). 0 when
 * there are none to read (another machine, no PLT, a debug file whose
 * sections hold no bytes), -ENOMEM, or what FN returned.
 */
int pk_plt_for_each(Elf *elf, pk_plt_fn fn, void *ctx);

#endif
