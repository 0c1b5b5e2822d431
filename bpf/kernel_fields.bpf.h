/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * Kernel fields whose type changed between the kernels probekit runs on
 * (6.1 to today), each variant written out and chosen by CO-RE against the
 * running kernel's BTF, never by version. A field that only moved, or went
 * into an anonymous union under the same name (vm_area_struct.vm_flags in
 * 6.3, file.f_path and dentry.d_name later), needs nothing: CO-RE finds it
 * by name. tests/unit/bpf/test_core.c loads each reader on the matrix's
 * kernels (make check-kernels), on both sides of each change.
 */
#ifndef PK_KERNEL_FIELDS_BPF_H
#define PK_KERNEL_FIELDS_BPF_H

#include "vmlinux/vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

/* The privilege level in CS: 3 in user mode (user_mode(),
 * arch/x86/include/asm/ptrace.h; SEGMENT_RPL_MASK). */
#define PK_SEGMENT_RPL_MASK	3

/* pt_regs before FRED (Linux 6.9): cs was an unsigned long. Since, it is a
 * u16 in a union with csx (u64) and fred_cs. */
struct pt_regs___pre_fred {
	unsigned long cs;
} __attribute__((preserve_access_index));

/* Whether REGS were saved in user mode. The selector is the low 16 bits in
 * both layouts; read as wide as this kernel's field is. */
static __always_inline bool pk_regs_user_mode(const struct pt_regs *regs)
{
	__u64 cs = 0;

	if (bpf_core_field_exists(regs->csx)) {
		bpf_core_read(&cs, sizeof(regs->cs), &regs->cs);
	} else {
		const struct pt_regs___pre_fred *old = (const void *)regs;

		bpf_core_read(&cs, sizeof(old->cs), &old->cs);
	}
	return cs & PK_SEGMENT_RPL_MASK;
}

#endif /* PK_KERNEL_FIELDS_BPF_H */
