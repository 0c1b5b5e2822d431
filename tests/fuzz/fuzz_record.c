// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ring-buffer records: a reader must survive records from a newer (or
 * broken) producer. A sample that validates must have all its frames inside
 * the input, which reading every one of them under ASan checks.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly SIZE bytes, so ASan sees any read past the end */
	uint8_t *copy = malloc(size ? size : 1);
	struct pk_record_sample s;
	volatile __u64 sink = 0;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (pk_record_parse(copy, size, &s) == PK_RECORD_SAMPLE) {
		for (size_t i = 0; i < (size_t)s.kstack_len + s.ustack_len; i++)
			sink += pk_record_frame(&s, i);
		if (memchr(s.comm, '\0', sizeof(s.comm)) == NULL)
			abort();
	}
	(void)sink;
	free(copy);
	return 0;
}
