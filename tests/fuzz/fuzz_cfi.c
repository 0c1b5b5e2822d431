// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * libFuzzer target over the CFI parser and interpreter:
 * eh_unwind_table_from_section() on arbitrary bytes. Input layout:
 *   byte 0      bit 0: 1 = .eh_frame syntax, 0 = .debug_frame
 *   bytes 1-4   the section's virtual address (little-endian u32)
 *   bytes 5-    the section
 * Every table built must be well formed and dump cleanly; every failure
 * must come with one line of reason (table_check.c).
 */
#include <stdint.h>
#include <string.h>

#include "eh_frame/eh_table.h"
#include "fuzz/table_check.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN] = "";
	uint32_t vaddr;
	int ret;

	if (size < 5)
		return 0;
	memcpy(&vaddr, data + 1, sizeof(vaddr));
	ret = eh_unwind_table_from_section(data + 5, size - 5, vaddr, data[0] & 1, &t, err);
	fuzz_check_result(ret, t, err);
	return 0;
}
