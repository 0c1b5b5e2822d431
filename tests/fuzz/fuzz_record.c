// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Ring-buffer records: a reader must survive records from a newer, older
 * (layouts 1 to 5) or broken producer. A sample that validates must have all its
 * frames inside the input, which reading every one of them under ASan
 * checks, and must keep the promises record.h makes about its fields.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "reading/record.h"

static void check_sample(const struct pk_record_sample *s, const uint8_t *data)
{
	__u16 frames_off;
	volatile __u64 sink = 0;
	unsigned int fp = 0;

	for (size_t i = 0; i < (size_t)s->kstack_len + s->ustack_len + s->py_len; i++)
		sink += pk_record_frame(s, i);
	if (memchr(s->comm, '\0', sizeof(s->comm)) == NULL)
		abort();
	if (s->kstack_len > PK_MAX_STACK_DEPTH || s->ustack_len > PK_MAX_USTACK_DEPTH)
		abort();
	if (!(s->flags & PK_SAMPLE_USTACK_DWARF)) {
		/* no walk: bpf_get_stack()'s depth, no walk fields */
		if (s->ustack_len > PK_MAX_STACK_DEPTH || s->ustack_end != PK_END_NONE ||
		    s->fp_frames)
			abort();
	}
	for (unsigned int i = 0; i < PK_MAX_USTACK_DEPTH; i++) {
		if (!(s->fp_mask[i / 64] >> (i % 64) & 1))
			continue;
		if (i >= s->ustack_len)
			abort();
		fp++;
	}
	if (s->fp_frames > s->ustack_len || (!(s->flags & PK_SAMPLE_USTACK_DWARF) && fp))
		abort();
	/* before layout 3 (frames at 112): event 0, weight not known */
	memcpy(&frames_off, data + offsetof(struct pk_sample, frames_off), sizeof(frames_off));
	/* Python frames: layout 5 (frames at 128) with the flag only */
	if (s->py_len > PK_MAX_PY_DEPTH ||
	    ((s->py_len || s->py_end != PK_PY_END_NONE) && !(s->flags & PK_SAMPLE_PY)) ||
	    ((s->flags & PK_SAMPLE_PY) && frames_off < offsetof(struct pk_sample, __pad7) + 4))
		abort();
	if (frames_off < offsetof(struct pk_sample, copy_off) && (s->event || s->weight))
		abort();
	/* a stack copy (layout 4) lies inside the input, after the frames,
	 * of a walk that stopped for want of a table, from its last frame */
	if (s->flags & PK_SAMPLE_USTACK_COPY) {
		if (frames_off < offsetof(struct pk_sample, py_len) || !s->stack ||
		    !(s->flags & PK_SAMPLE_USTACK_DWARF) || s->ustack_end != PK_END_NO_TABLE ||
		    !s->ustack_len || s->copy.start > s->copy.regs[7] ||
		    s->copy.regs[16] != pk_record_frame(s, (size_t)s->kstack_len + s->ustack_len - 1))
			abort();
		for (size_t i = 0; i < s->copy.len; i++)
			sink += ((const volatile uint8_t *)s->stack)[i];
	} else if (s->stack) {
		abort();
	}
	(void)sink;
}

/* A code event's strings and line table lie in the input, within their
 * limits, the strings without a NUL. */
static void check_py_code(const struct pk_py_code_desc *c, const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size;
	volatile __u64 sink = 0;

	if (c->name_len > PK_PY_NAME_MAX || c->file_len > PK_PY_FILE_MAX ||
	    c->linetable_len > PK_PY_LINETABLE_MAX || !c->code || (c->code & ~PK_PY_CODE_MASK))
		abort();
	if ((const uint8_t *)c->name < data || (const uint8_t *)c->name + c->name_len > end ||
	    (const uint8_t *)c->file + c->file_len > end || c->linetable + c->linetable_len > end)
		abort();
	if (memchr(c->name, '\0', c->name_len) || memchr(c->file, '\0', c->file_len))
		abort();
	for (size_t i = 0; i < c->linetable_len; i++)
		sink += c->linetable[i];
	(void)sink;
}

/* A JavaScript function's event: its names lie in the input, within
 * their limits, without a NUL, an unreadable one empty; the SFI fits a
 * frame. */
static void check_v8_sfi(const struct pk_v8_sfi_desc *d, const uint8_t *data, size_t size)
{
	const uint8_t *end = data + size;

	if (d->name_len > PK_V8_NAME_MAX || d->file_len > PK_V8_FILE_MAX || !d->sfi ||
	    (d->sfi & ~PK_V8_SFI_MASK))
		abort();
	if ((const uint8_t *)d->name < data || (const uint8_t *)d->name + d->name_len > end ||
	    (const uint8_t *)d->file + d->file_len > end)
		abort();
	if (memchr(d->name, '\0', d->name_len) || memchr(d->file, '\0', d->file_len))
		abort();
	if (((d->flags & PK_V8_NAME_UNREADABLE) && d->name_len) ||
	    ((d->flags & PK_V8_FILE_UNREADABLE) && d->file_len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* a copy of exactly SIZE bytes, so ASan sees any read past the end */
	uint8_t *copy = malloc(size ? size : 1);
	struct pk_record rec;

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	switch (pk_record_parse(copy, size, &rec)) {
	case PK_RECORD_SAMPLE:
		check_sample(&rec.sample, copy);
		break;
	case PK_RECORD_PY_CODE:
		check_py_code(&rec.py_code, copy, size);
		break;
	case PK_RECORD_V8_SFI:
		check_v8_sfi(&rec.v8_sfi, copy, size);
		break;
	case PK_RECORD_NO_TABLE:
		if (rec.no_table.vm_start >= rec.no_table.vm_end)
			abort();
		break;
	case PK_RECORD_MAPPING:
		if (rec.mapping.vm_start >= rec.mapping.vm_end ||
		    strnlen(rec.mapping.path, sizeof(rec.mapping.path)) == sizeof(rec.mapping.path))
			abort();
		break;
	default:
		break;
	}
	free(copy);
	return 0;
}
