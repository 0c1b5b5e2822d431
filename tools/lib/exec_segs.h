/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/* What an ELF's program headers say about running it: the executable
 * PT_LOAD segments (how the BPF unwinder turns a file offset into the ELF
 * vaddr its unwind table is keyed by) and the program interpreter. */
#ifndef PK_EXEC_SEGS_H
#define PK_EXEC_SEGS_H

#include <linux/types.h>
#include <stddef.h>

#include "bpf/probekit.h"
#include "eh_frame/errmsg.h"

/* Each PT_LOAD with PF_X of PATH as {p_offset, p_offset + p_filesz,
 * p_vaddr - p_offset}, in program-header order. 0, or a negative errno with
 * one line in ERR: -ENOEXEC not a (64-bit) ELF / no executable segment,
 * -E2BIG more than PK_FILE_MAX_SEGS of them, -errno of open. */
int pk_exec_segs(const char *path, struct pk_file_seg segs[PK_FILE_MAX_SEGS],
		 __u32 *nsegs, char err[PK_ERR_LEN]);

/* PATH's program interpreter (PT_INTERP, e.g. /lib64/ld-linux-x86-64.so.2)
 * into BUF. 0; -ENOENT when it has none (static, or a shared library);
 * -ENOEXEC not an ELF; -ENAMETOOLONG; -errno of open. */
int pk_elf_interp(const char *path, char *buf, size_t len);

#endif
