// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "reading/record.h"
#include "eh_frame/unwind_table.h"

/* Where each layout's fields end: a sample whose frames start there or
 * later has them. */
#define PK_SAMPLE_V2_END \
	(offsetof(struct pk_sample, fp_mask) + sizeof(((struct pk_sample *)0)->fp_mask))
#define PK_SAMPLE_V3_END \
	(offsetof(struct pk_sample, __pad4) + sizeof(((struct pk_sample *)0)->__pad4))

_Static_assert(PK_SAMPLE_V1_SIZE == 56, "layout 1 samples have their frames at 56");
_Static_assert(PK_SAMPLE_V2_END == 96 && PK_SAMPLE_V2_SIZE == 96,
	       "layout 2 samples have their frames at 96");
#define PK_SAMPLE_V4_END \
	(offsetof(struct pk_sample, __pad5) + sizeof(((struct pk_sample *)0)->__pad5))

_Static_assert(PK_SAMPLE_V3_END == 112, "layout 3 samples have their frames at 112");
_Static_assert(PK_SAMPLE_V4_END == 120, "layout 4 samples have their frames at 120");
#define PK_SAMPLE_V5_END \
	(offsetof(struct pk_sample, __pad7) + sizeof(((struct pk_sample *)0)->__pad7))
_Static_assert(PK_SAMPLE_V5_END == 128, "layout 5 samples have their frames at 128");
#define PK_SAMPLE_V6_END \
	(offsetof(struct pk_sample, agg_hash) + sizeof(((struct pk_sample *)0)->agg_hash))
_Static_assert(PK_SAMPLE_V6_END == 136, "layout 6 samples have their frames at 136");
#define PK_SAMPLE_V7_END \
	(offsetof(struct pk_sample, cgroup_id) + sizeof(((struct pk_sample *)0)->cgroup_id))
_Static_assert(PK_SAMPLE_V7_END == 144, "layout 7 samples have their frames at 144");
_Static_assert(PK_SAMPLE_V7_END == sizeof(struct pk_sample), "layout 7 ends the sample");
_Static_assert(sizeof(struct pk_ustack_copy) == 168, "the stack copy's header is 168 bytes");
/* The strings of a code event start at its struct's (padded) size. */
_Static_assert(sizeof(struct pk_py_code_event) == 48, "a code event's data starts at 48");

/* Layout 2's fields, when the record has them and the walk was DWARF.
 * False when they contradict the frames (more frame-pointer frames than
 * user frames, mask bits past ustack_len). */
static bool parse_walk(const struct pk_event_hdr *hdr, const void *data, __u16 frames_off,
		       struct pk_record_sample *out)
{
	struct pk_sample s;
	__u16 n = out->ustack_len;

	out->ustack_end = PK_END_NONE;
	out->fp_frames = 0;
	memset(out->fp_mask, 0, sizeof(out->fp_mask));
	if (frames_off < PK_SAMPLE_V2_END) {
		/* layout 1 had no such flag: whatever the bit says, no walk */
		out->flags &= ~PK_SAMPLE_USTACK_DWARF;
		return true;
	}
	if (!(hdr->flags & PK_SAMPLE_USTACK_DWARF))
		return true;
	/* only what the record has: a layout 2 sample ends at fp_mask */
	memcpy(&s, data, PK_SAMPLE_V2_END);
	for (size_t w = 0; w < PK_MAX_USTACK_DEPTH / 64; w++) {
		__u64 beyond = n >= 64 * (w + 1) ? 0 :
			       n <= 64 * w ? ~0ULL : ~0ULL << (n - 64 * w);

		if (s.fp_mask[w] & beyond)
			return false;
	}
	if (s.fp_frames > n)
		return false;
	out->ustack_end = s.ustack_end;
	out->fp_frames = s.fp_frames;
	memcpy(out->fp_mask, s.fp_mask, sizeof(out->fp_mask));
	return true;
}

/* Whether FLAG of a layout ending at LAYOUT_END is set: a sample of an
 * older layout has no such flag, whatever its bit says (cleared). */
static bool layout_flag(const struct pk_event_hdr *hdr, __u16 frames_off, size_t layout_end,
			__u32 flag, struct pk_record_sample *out)
{
	if (frames_off < layout_end) {
		out->flags &= ~flag;
		return false;
	}
	return hdr->flags & flag;
}

/* Layout 4's stack copy, when the flag says there is one: after the frames,
 * within the record, and of the walk's last frame. False when it
 * contradicts the rest. */
static bool parse_copy(const struct pk_event_hdr *hdr, const void *data, __u16 frames_off,
		       size_t frames_end, struct pk_record_sample *out)
{
	__u16 copy_off;

	memset(&out->copy, 0, sizeof(out->copy));
	out->stack = NULL;
	if (!layout_flag(hdr, frames_off, PK_SAMPLE_V4_END, PK_SAMPLE_USTACK_COPY, out))
		return true;
	if (!(out->flags & PK_SAMPLE_USTACK_DWARF) || out->ustack_end != PK_END_NO_TABLE ||
	    !out->ustack_len)
		return false;
	memcpy(&copy_off, (const char *)data + offsetof(struct pk_sample, copy_off),
	       sizeof(copy_off));
	if (copy_off < frames_end || copy_off > hdr->size ||
	    (size_t)(hdr->size - copy_off) < sizeof(out->copy))
		return false;
	memcpy(&out->copy, (const char *)data + copy_off, sizeof(out->copy));
	if (out->copy.len > (size_t)(hdr->size - copy_off) - sizeof(out->copy) ||
	    out->copy.start > out->copy.regs[PK_DWARF_RSP] ||
	    out->copy.regs[PK_DWARF_RIP] !=
	    pk_record_frame(out, (size_t)out->kstack_len + out->ustack_len - 1))
		return false;
	out->stack = (const char *)data + copy_off + sizeof(out->copy);
	return true;
}

/* Layout 5's Python fields, when the flag says a Python walk ran. */
static bool parse_py(const struct pk_event_hdr *hdr, const void *data, __u16 frames_off,
		     struct pk_record_sample *out)
{
	out->py_len = 0;
	out->py_end = PK_PY_END_NONE;
	if (!layout_flag(hdr, frames_off, PK_SAMPLE_V5_END, PK_SAMPLE_PY, out))
		return true;
	memcpy(&out->py_len, (const char *)data + offsetof(struct pk_sample, py_len),
	       sizeof(out->py_len));
	memcpy(&out->py_end, (const char *)data + offsetof(struct pk_sample, py_end),
	       sizeof(out->py_end));
	return out->py_len <= PK_MAX_PY_DEPTH;
}

static enum pk_record_kind parse_sample(const struct pk_event_hdr *hdr, const void *data,
					struct pk_record_sample *out)
{
	struct pk_sample s;
	size_t frames_bytes;
	__u16 umax;

	/* Newer writers only append fields, so a sample is at least layout 1. */
	if (hdr->size < PK_SAMPLE_V1_SIZE)
		return PK_RECORD_BAD;
	memcpy(&s, data, PK_SAMPLE_V1_SIZE);
	/* Only the DWARF walk goes deeper than bpf_get_stack(), and only a
	 * layout that has its fields can say so. */
	umax = s.frames_off >= PK_SAMPLE_V2_END && (hdr->flags & PK_SAMPLE_USTACK_DWARF) ?
	       PK_MAX_USTACK_DEPTH : PK_MAX_STACK_DEPTH;
	if (s.kstack_len > PK_MAX_STACK_DEPTH || s.ustack_len > umax ||
	    s.frames_off < PK_SAMPLE_V1_SIZE || s.frames_off > hdr->size)
		return PK_RECORD_BAD;
	out->flags = hdr->flags;
	if (!parse_py(hdr, data, s.frames_off, out))
		return PK_RECORD_BAD;
	frames_bytes = sizeof(__u64) * ((size_t)s.kstack_len + s.ustack_len + out->py_len);
	if (frames_bytes > (size_t)hdr->size - s.frames_off)
		return PK_RECORD_BAD;

	out->pid = s.pid;
	out->tid = s.tid;
	out->cpu = s.cpu;
	out->time_ns = s.time_ns;
	out->kstack_len = s.kstack_len;
	out->ustack_len = s.ustack_len;
	if (!parse_walk(hdr, data, s.frames_off, out))
		return PK_RECORD_BAD;
	memcpy(out->comm, s.comm, sizeof(out->comm));
	out->comm[sizeof(out->comm) - 1] = '\0';
	/* Before layout 3: one sample of event 0, its weight not known. */
	out->weight = 0;
	out->event = 0;
	if (s.frames_off >= PK_SAMPLE_V3_END) {
		memcpy(&out->weight, (const char *)data + offsetof(struct pk_sample, weight),
		       sizeof(out->weight));
		memcpy(&out->event, (const char *)data + offsetof(struct pk_sample, event),
		       sizeof(out->event));
	}
	/* Layout 6: the definition of an aggregated stack. A stack copy
	 * is never aggregated (the reader finishes its walk). */
	out->agg_hash = 0;
	if (layout_flag(hdr, s.frames_off, PK_SAMPLE_V6_END, PK_SAMPLE_AGG_DEF, out)) {
		if (hdr->flags & PK_SAMPLE_USTACK_COPY)
			return PK_RECORD_BAD;
		memcpy(&out->agg_hash, (const char *)data + offsetof(struct pk_sample, agg_hash),
		       sizeof(out->agg_hash));
	}
	/* Layout 7: the task's cgroup; before it, none known. */
	out->cgroup_id = 0;
	if (s.frames_off >= PK_SAMPLE_V7_END)
		memcpy(&out->cgroup_id, (const char *)data + offsetof(struct pk_sample, cgroup_id),
		       sizeof(out->cgroup_id));
	out->frames = (const char *)data + s.frames_off;
	if (!parse_copy(hdr, data, s.frames_off, s.frames_off + frames_bytes, out))
		return PK_RECORD_BAD;
	return PK_RECORD_SAMPLE;
}

static enum pk_record_kind parse_py_code(const struct pk_event_hdr *hdr, const void *data,
					 struct pk_py_code_desc *out)
{
	struct pk_py_code_event e;
	const char *d = (const char *)data + sizeof(e);

	if (hdr->size < sizeof(e))
		return PK_RECORD_BAD;
	memcpy(&e, data, sizeof(e));
	if (e.name_len > PK_PY_NAME_MAX || e.file_len > PK_PY_FILE_MAX ||
	    e.linetable_len > PK_PY_LINETABLE_MAX ||
	    (size_t)e.name_len + e.file_len + e.linetable_len > hdr->size - sizeof(e))
		return PK_RECORD_BAD;
	/* frames carry 48 bits of the code's address: a wider one names none */
	if (!e.code || (e.code & ~PK_PY_CODE_MASK))
		return PK_RECORD_BAD;
	if (memchr(d, '\0', e.name_len) || memchr(d + e.name_len, '\0', e.file_len))
		return PK_RECORD_BAD;
	if (((hdr->flags & PK_PY_NAME_UNREADABLE) && e.name_len) ||
	    ((hdr->flags & PK_PY_FILE_UNREADABLE) && e.file_len))
		return PK_RECORD_BAD;
	out->flags = hdr->flags;
	out->pid = e.pid;
	out->version = e.version;
	out->code = e.code;
	out->firstlineno = e.firstlineno;
	out->firsttraceable = e.firsttraceable;
	out->name = d;
	out->name_len = e.name_len;
	out->file = d + e.name_len;
	out->file_len = e.file_len;
	out->linetable = (const __u8 *)d + e.name_len + e.file_len;
	out->linetable_len = e.linetable_len;
	return PK_RECORD_PY_CODE;
}

static enum pk_record_kind parse_hs_nmethod(const struct pk_event_hdr *hdr, const void *data,
					    struct pk_hs_nmethod_desc *out)
{
	struct pk_hs_nmethod_event e;
	const __u8 *d = (const __u8 *)data + sizeof(e);

	if (hdr->size < sizeof(e))
		return PK_RECORD_BAD;
	memcpy(&e, data, sizeof(e));
	if (e.pcs_len > PK_HS_PCS_MAX || e.scopes_len > PK_HS_SCOPES_MAX ||
	    e.metadata_len > PK_HS_META_MAX ||
	    (size_t)e.pcs_len + e.scopes_len + e.metadata_len > hdr->size - sizeof(e))
		return PK_RECORD_BAD;
	if (!e.nmethod || !e.method || (e.method & ~PK_HS_METHOD_MASK))
		return PK_RECORD_BAD;
	*out = (struct pk_hs_nmethod_desc){
		.pid = e.pid, .flags = hdr->flags, .compile_id = e.compile_id,
		.code_size = e.code_size, .nmethod = e.nmethod, .method = e.method,
		.code_begin = e.code_begin,
		.pcs = d, .pcs_len = e.pcs_len,
		.scopes = d + e.pcs_len, .scopes_len = e.scopes_len,
		.metadata = d + e.pcs_len + e.scopes_len, .metadata_len = e.metadata_len,
		.pcdesc_size = e.pcdesc_size, .pcdesc_pc_offset = e.pcdesc_pc_offset,
		.pcdesc_scope_decode_offset = e.pcdesc_scope_decode_offset,
	};
	return PK_RECORD_HS_NMETHOD;
}

static enum pk_record_kind parse_hs_method(const struct pk_event_hdr *hdr, const void *data,
					   struct pk_hs_method_desc *out)
{
	struct pk_hs_method_event e;
	const char *d = (const char *)data + sizeof(e);
	size_t names;

	if (hdr->size < sizeof(e))
		return PK_RECORD_BAD;
	memcpy(&e, data, sizeof(e));
	names = (size_t)e.klass_len + e.name_len + e.file_len;
	if (e.klass_len > PK_HS_SYM_MAX || e.name_len > PK_HS_SYM_MAX ||
	    e.file_len > PK_HS_SYM_MAX || e.lines_len > PK_HS_LINES_MAX ||
	    names + e.lines_len > hdr->size - sizeof(e))
		return PK_RECORD_BAD;
	if (!e.method || (e.method & ~PK_HS_METHOD_MASK))
		return PK_RECORD_BAD;
	if ((hdr->flags & PK_HS_UNREADABLE) && (names || e.lines_len))
		return PK_RECORD_BAD;
	/* a Symbol's modified UTF-8 has no NUL */
	if (memchr(d, '\0', names))
		return PK_RECORD_BAD;
	*out = (struct pk_hs_method_desc){
		.pid = e.pid, .flags = hdr->flags, .method = e.method,
		.klass = d, .klass_len = e.klass_len,
		.name = d + e.klass_len, .name_len = e.name_len,
		.file = d + e.klass_len + e.name_len, .file_len = e.file_len,
		.lines = (const __u8 *)d + names, .lines_len = e.lines_len,
	};
	return PK_RECORD_HS_METHOD;
}

static enum pk_record_kind parse_v8_sfi(const struct pk_event_hdr *hdr, const void *data,
					struct pk_v8_sfi_desc *out)
{
	struct pk_v8_sfi_event e;
	const char *d = (const char *)data + sizeof(e);

	if (hdr->size < sizeof(e))
		return PK_RECORD_BAD;
	memcpy(&e, data, sizeof(e));
	if (e.name_len > PK_V8_NAME_MAX || e.file_len > PK_V8_FILE_MAX ||
	    (size_t)e.name_len + e.file_len > hdr->size - sizeof(e))
		return PK_RECORD_BAD;
	if (!e.sfi || (e.sfi & ~PK_V8_SFI_MASK))
		return PK_RECORD_BAD;
	if (((hdr->flags & PK_V8_NAME_UNREADABLE) && e.name_len) ||
	    ((hdr->flags & PK_V8_FILE_UNREADABLE) && e.file_len))
		return PK_RECORD_BAD;
	if (memchr(d, '\0', (size_t)e.name_len + e.file_len))
		return PK_RECORD_BAD;
	*out = (struct pk_v8_sfi_desc){
		.pid = e.pid, .flags = hdr->flags, .sfi = e.sfi, .line = e.line,
		.name = d, .name_len = e.name_len,
		.file = d + e.name_len, .file_len = e.file_len,
	};
	return PK_RECORD_V8_SFI;
}

static enum pk_record_kind parse_no_table(const struct pk_event_hdr *hdr, const void *data,
					  struct pk_record_no_table *out)
{
	struct pk_no_table e;

	if (hdr->size < sizeof(e))
		return PK_RECORD_BAD;
	memcpy(&e, data, sizeof(e));
	/* The file is named by its mapping's range: an empty one names none. */
	if (e.vm_start >= e.vm_end)
		return PK_RECORD_BAD;
	out->dev = e.dev;
	out->ino = e.ino;
	out->vm_start = e.vm_start;
	out->vm_end = e.vm_end;
	out->vm_pgoff = e.vm_pgoff;
	out->pid = e.pid;
	return PK_RECORD_NO_TABLE;
}

static enum pk_record_kind parse_mapping(const struct pk_event_hdr *hdr, const void *data,
					 struct pk_record_mapping *out)
{
	struct pk_mapping_event e;
	/* before the build-id: the event up to its path */
	size_t v1 = offsetof(struct pk_mapping_event, build_id_len);

	if (hdr->size < v1)
		return PK_RECORD_BAD;
	memset(&e, 0, sizeof(e));
	memcpy(&e, data, hdr->size < sizeof(e) ? v1 : sizeof(e));
	if (e.build_id_len > sizeof(e.build_id))
		return PK_RECORD_BAD;
	if (e.vm_start >= e.vm_end || e.path_len >= sizeof(e.path) ||
	    e.path[e.path_len] != '\0' || memchr(e.path, '\0', e.path_len))
		return PK_RECORD_BAD;
	out->flags = hdr->flags;
	out->pid = e.pid;
	out->table = e.table;
	out->vm_start = e.vm_start;
	out->vm_end = e.vm_end;
	out->vm_pgoff = e.vm_pgoff;
	out->dev = e.dev;
	out->ino = e.ino;
	memcpy(out->path, e.path, e.path_len + 1);
	out->build_id_len = e.build_id_len;
	memcpy(out->build_id, e.build_id, sizeof(out->build_id));
	return PK_RECORD_MAPPING;
}

enum pk_record_kind pk_record_parse(const void *data, size_t size, struct pk_record *rec)
{
	struct pk_event_hdr hdr;

	if (size < sizeof(hdr))
		return PK_RECORD_BAD;
	memcpy(&hdr, data, sizeof(hdr));
	/* hdr.size may be less than what the ring buffer delivered (a
	 * record reserved at its largest size), never more. */
	if (hdr.size < sizeof(hdr) || hdr.size > size)
		return PK_RECORD_BAD;
	switch (hdr.type) {
	case PK_EVENT_SAMPLE:
		return parse_sample(&hdr, data, &rec->sample);
	case PK_EVENT_NO_TABLE:
		return parse_no_table(&hdr, data, &rec->no_table);
	case PK_EVENT_MAPPING:
		return parse_mapping(&hdr, data, &rec->mapping);
	case PK_EVENT_PY_CODE:
		return parse_py_code(&hdr, data, &rec->py_code);
	case PK_EVENT_HS_METHOD:
		return parse_hs_method(&hdr, data, &rec->hs_method);
	case PK_EVENT_V8_SFI:
		return parse_v8_sfi(&hdr, data, &rec->v8_sfi);
	case PK_EVENT_HS_NMETHOD:
		return parse_hs_nmethod(&hdr, data, &rec->hs_nmethod);
	default:
		return PK_RECORD_SKIP;
	}
}

__u64 pk_record_frame(const struct pk_record_sample *sample, size_t i)
{
	__u64 v;

	memcpy(&v, (const char *)sample->frames + i * sizeof(v), sizeof(v));
	return v;
}
