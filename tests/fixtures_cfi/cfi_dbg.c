// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * cfi_c.c again, built by tests/oracle.mk without unwind tables: its CFI
 * goes to .debug_frame only, next to the .eh_frame of the C runtime's
 * start files, so the oracle test sees both sections in one binary.
 */
#include "cfi_c.c"
