// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * No frame pointers: main -> call_many -> libc functions through the PLT,
 * for SECONDS of CPU time. Usage: LD_BIND_NOT=1 lazy SECONDS
 *
 * With LD_BIND_NOT=1 the dynamic linker resolves every call again and
 * never writes the GOT: each goes through _dl_runtime_resolve_xsavec, which
 * realigns the stack and keeps its CFA in %rbx (DW_CFA_def_cfa_register
 * rbx), then _dl_fixup and the symbol lookup. The samples there have that
 * frame as a non-leaf one, whose CFA the walk finds only by carrying rbx
 * up from the leaf through the frames that save it.
 */
#include <stdlib.h>

#include "nofp.h"

NOFP_FN void call_many(void)
{
	unsigned int seed = 1;

	while (!nofp_stop) {
		nofp_sink += (unsigned long)rand_r(&seed);
		NOFP_AFTER_CALL();
		nofp_sink += (unsigned long)ldiv((long)nofp_sink, 7).rem;
		NOFP_AFTER_CALL();
		nofp_sink += strtoul("12345", NULL, 10);
		NOFP_AFTER_CALL();
	}
}

int main(int argc, char **argv)
{
	nofp_arm(argc, argv, 1, "lazy SECONDS");
	call_many();
	NOFP_AFTER_CALL();
	return 0;
}
