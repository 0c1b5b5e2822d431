// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite record, the runtimes' records (record_run.h): Python frames in a
 * sample, Python code objects, HotSpot methods and their line tables, V8
 * SharedFunctionInfos; well formed and broken.
 */
#include <linux/types.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "reading/record.h"
#include "test_util.h"
#include "unit/reading/record_run.h"

/* Layout 5: K kernel, U user (DWARF walk, complete) and P Python frames
 * (PK_SAMPLE_PY, PK_PY_END_DEPTH), numbered 1.. in that order. */
static size_t make_py(unsigned char *buf, __u16 k, __u16 u, __u16 p)
{
	size_t size = pk_rc_make_sample_at(buf, k, (__u16)(u + p), V5_FRAMES_OFF,
					   PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_PY);

	set16(buf, offsetof(struct pk_sample, ustack_len), u);
	set16(buf, offsetof(struct pk_sample, py_len), p);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_COMPLETE;
	buf[offsetof(struct pk_sample, py_end)] = PK_PY_END_DEPTH;
	return size;
}

START_TEST(test_py_frames)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	struct pk_record_sample *r = &rec.sample;
	size_t size = make_py(buf, 2, 3, 4), off;

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(r->flags & PK_SAMPLE_PY);
	ck_assert_uint_eq(r->kstack_len, 2);
	ck_assert_uint_eq(r->ustack_len, 3);
	ck_assert_uint_eq(r->py_len, 4);
	ck_assert_uint_eq(r->py_end, PK_PY_END_DEPTH);
	for (size_t i = 0; i < 9; i++)
		ck_assert_uint_eq(pk_record_frame(r, i), i + 1);
	/* the deepest of every part: a layout 5 writer's largest sample */
	size = make_py(buf, PK_MAX_STACK_DEPTH, PK_MAX_USTACK_DEPTH, PK_MAX_PY_DEPTH);
	ck_assert_uint_eq(size, V5_MAX_SIZE);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, PK_MAX_PY_DEPTH);
	ck_assert_uint_eq(pk_record_frame(r, V5_MAX_SIZE / 8 - V5_FRAMES_OFF / 8 - 1),
			  V5_MAX_SIZE / 8 - V5_FRAMES_OFF / 8);
	/* a Python walk that found nothing (the thread ran no Python) */
	size = make_py(buf, 1, 1, 0);
	buf[offsetof(struct pk_sample, py_end)] = PK_PY_END_COMPLETE;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, 0);
	ck_assert_uint_eq(r->py_end, PK_PY_END_COMPLETE);
	/* without the flag the fields say nothing, whatever they hold */
	size = make_py(buf, 1, 3, 2);
	set16(buf, offsetof(struct pk_event_hdr, flags), PK_SAMPLE_USTACK_DWARF);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, 0);
	ck_assert_uint_eq(r->py_end, PK_PY_END_NONE);
	/* layout 4 had no such flag: no Python frames, whatever the bit says */
	size = pk_rc_make_sample_at(buf, 1, 2, V4_FRAMES_OFF, PK_SAMPLE_PY);
	set16(buf, offsetof(struct pk_sample, py_len), 7);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert(!(r->flags & PK_SAMPLE_PY));
	ck_assert_uint_eq(r->py_len, 0);
	/* a stack copy comes after the Python frames */
	size = make_py(buf, 2, 3, 4);
	off = size;
	{
		struct pk_ustack_copy c = { .regs_valid = 0x1ffff, .len = 16 };

		c.regs[7] = 1007;
		c.start = 1007 - PK_USTACK_COPY_BELOW;
		c.regs[16] = 5;	/* the last user frame */
		memcpy(buf + off, &c, sizeof(c));
		memset(buf + off + sizeof(c), 0xab, 16);
	}
	set16(buf, offsetof(struct pk_event_hdr, flags),
	      PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY | PK_SAMPLE_PY);
	buf[offsetof(struct pk_sample, ustack_end)] = PK_END_NO_TABLE;
	set16(buf, offsetof(struct pk_sample, copy_off), off);
	set16(buf, offsetof(struct pk_event_hdr, size), off + sizeof(struct pk_ustack_copy) + 16);
	size = off + sizeof(struct pk_ustack_copy) + 16;
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_SAMPLE);
	ck_assert_uint_eq(r->py_len, 4);
	ck_assert_uint_eq(r->copy.len, 16);
	ck_assert_ptr_eq(r->stack, buf + off + sizeof(struct pk_ustack_copy));
	pk_rc_check_cuts(buf, size);
	/* ... never over them */
	set16(buf, offsetof(struct pk_sample, copy_off), off - 8);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_py_frames_bad)
{
	static unsigned char buf[PK_SAMPLE_COPY_MAX_SIZE];
	struct pk_record rec;
	size_t size;

	/* deeper than any writer goes */
	size = make_py(buf, 0, 0, PK_MAX_PY_DEPTH + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* Python frames past the record */
	size = make_py(buf, 2, 3, 4);
	set16(buf, offsetof(struct pk_sample, py_len), 5);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	ck_assert_int_eq(pk_record_parse(buf, sizeof(buf), &rec), PK_RECORD_BAD);
	pk_rc_check_cuts(buf, make_py(buf, 2, 3, 4));
}
END_TEST

/* A code event of NAME, FILE and a line table of LT_LEN bytes 0x80.. */
static size_t make_code(unsigned char *buf, __u32 flags, const char *name, const char *file,
			__u16 lt_len)
{
	struct pk_py_code_event e = {
		.hdr = { .type = PK_EVENT_PY_CODE, .flags = flags },
		.pid = 42, .version = 0x030b02f0, .code = 0x7f0012345678, .firstlineno = 10,
		.firsttraceable = 3, .name_len = strlen(name), .file_len = strlen(file),
		.linetable_len = lt_len,
	};
	size_t size = sizeof(e) + e.name_len + e.file_len + lt_len;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), name, e.name_len);
	memcpy(buf + sizeof(e) + e.name_len, file, e.file_len);
	for (__u16 i = 0; i < lt_len; i++)
		buf[sizeof(e) + e.name_len + e.file_len + i] = 0x80 + (i & 0x7f);
	return size;
}

START_TEST(test_py_code)
{
	static unsigned char buf[1 << 16];
	struct pk_record rec;
	struct pk_py_code_desc *c = &rec.py_code;
	size_t size = make_code(buf, PK_PY_NAME_LATIN1, "Caf\xe9.run", "/srv/app.py", 6);

	ck_assert_uint_eq(size, 48 + 8 + 11 + 6);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
	ck_assert_uint_eq(c->flags, PK_PY_NAME_LATIN1);
	ck_assert_uint_eq(c->pid, 42);
	ck_assert_uint_eq(c->version, 0x030b02f0);
	ck_assert_uint_eq(c->code, 0x7f0012345678);
	ck_assert_int_eq(c->firstlineno, 10);
	ck_assert_uint_eq(c->firsttraceable, 3);
	ck_assert_uint_eq(c->name_len, 8);
	ck_assert(memcmp(c->name, "Caf\xe9.run", 8) == 0);
	ck_assert_uint_eq(c->file_len, 11);
	ck_assert(memcmp(c->file, "/srv/app.py", 11) == 0);
	ck_assert_uint_eq(c->linetable_len, 6);
	ck_assert_ptr_eq(c->linetable, buf + 48 + 19);
	ck_assert_uint_eq(c->linetable[5], 0x85);
	pk_rc_check_cuts(buf, size);
	/* a record delivered larger, and one with bytes to spare */
	ck_assert_int_eq(pk_record_parse(buf, size + 40, &rec), PK_RECORD_PY_CODE);
	set16(buf, offsetof(struct pk_event_hdr, size), size + 8);
	ck_assert_int_eq(pk_record_parse(buf, size + 8, &rec), PK_RECORD_PY_CODE);
	/* unreadable strings are empty */
	size = make_code(buf, PK_PY_NAME_UNREADABLE | PK_PY_FILE_UNREADABLE, "", "", 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
	ck_assert_uint_eq(c->name_len + c->file_len + c->linetable_len, 0);
	/* the longest of each */
	{
		char name[PK_PY_NAME_MAX + 2], file[PK_PY_FILE_MAX + 2];

		memset(name, 'n', sizeof(name));
		memset(file, 'f', sizeof(file));
		name[PK_PY_NAME_MAX] = file[PK_PY_FILE_MAX] = '\0';
		size = make_code(buf, 0, name, file, PK_PY_LINETABLE_MAX);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
		name[PK_PY_NAME_MAX] = 'n';
		name[PK_PY_NAME_MAX + 1] = '\0';
		size = make_code(buf, 0, name, "f", 0);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
		file[PK_PY_FILE_MAX] = 'f';
		file[PK_PY_FILE_MAX + 1] = '\0';
		size = make_code(buf, 0, "n", file, 0);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
		size = make_code(buf, 0, "n", "f", PK_PY_LINETABLE_MAX + 1);
		ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	}
}
END_TEST

/* A method event of KLASS and NAME. */
static size_t make_method(unsigned char *buf, __u32 flags, const char *klass, const char *name)
{
	struct pk_hs_method_event e = {
		.hdr = { .type = PK_EVENT_HS_METHOD, .flags = flags },
		.pid = 42, .method = 0x7f0012345678, .klass_len = strlen(klass),
		.name_len = strlen(name),
	};
	size_t size = sizeof(e) + e.klass_len + e.name_len;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), klass, e.klass_len);
	memcpy(buf + sizeof(e) + e.klass_len, name, e.name_len);
	return size;
}

/* A method event of Hot.leaf from Hot.java with line table LINES (N
 * bytes, NULs in it allowed). */
static size_t make_method_lines(unsigned char *buf, const __u8 *lines, size_t n)
{
	size_t size = make_method(buf, 0, "Hot", "leaf");

	set16(buf, offsetof(struct pk_hs_method_event, file_len), 8);
	set16(buf, offsetof(struct pk_hs_method_event, lines_len), n);
	memcpy(buf + size, "Hot.java", 8);
	memcpy(buf + size + 8, lines, n);
	size += 8 + n;
	set16(buf, offsetof(struct pk_event_hdr, size), size);
	return size;
}

/* A Java method's source file and line table follow its names: the file
 * without a NUL, the table of PK_HS_LINES_MAX bytes at most, NULs and all;
 * a record cut anywhere is refused. */
START_TEST(test_hs_method_lines)
{
	static unsigned char buf[1 << 12];
	static const __u8 lines[] = { 0xff, 0x00, 0x3c, 0x21, 0x00 };
	__u8 big[PK_HS_LINES_MAX + 1] = { 0 };
	struct pk_record rec;
	struct pk_hs_method_desc *m = &rec.hs_method;
	size_t size = make_method_lines(buf, lines, sizeof(lines));

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->name_len, 4);
	ck_assert(memcmp(m->name, "leaf", 4) == 0);
	ck_assert_uint_eq(m->file_len, 8);
	ck_assert(memcmp(m->file, "Hot.java", 8) == 0);
	ck_assert_uint_eq(m->lines_len, sizeof(lines));
	ck_assert(memcmp(m->lines, lines, sizeof(lines)) == 0);
	pk_rc_check_cuts(buf, size);
	/* a NUL in the file's name */
	buf[32 + 3 + 4 + 2] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* the table at its bound, and past it */
	size = make_method_lines(buf, big, PK_HS_LINES_MAX);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->lines_len, PK_HS_LINES_MAX);
	size = make_method_lines(buf, big, PK_HS_LINES_MAX + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* unreadable: no file, no table, or it is bad */
	size = make_method_lines(buf, lines, 0);
	set16(buf, offsetof(struct pk_event_hdr, flags), PK_HS_UNREADABLE);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* A Java method's names lie in the record, within PK_HS_SYM_MAX each,
 * without a NUL; an unreadable one has none; the Method* fits a frame. */
START_TEST(test_hs_method)
{
	static unsigned char buf[1 << 12];
	char klass[PK_HS_SYM_MAX + 2];
	struct pk_record rec;
	struct pk_hs_method_desc *m = &rec.hs_method;
	size_t size = make_method(buf, 0, "java/util/Arrays", "sort");

	ck_assert_uint_eq(size, 32 + 16 + 4);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->pid, 42);
	ck_assert_uint_eq(m->flags, 0);
	ck_assert_uint_eq(m->method, 0x7f0012345678);
	ck_assert_uint_eq(m->klass_len, 16);
	ck_assert(memcmp(m->klass, "java/util/Arrays", 16) == 0);
	ck_assert_uint_eq(m->name_len, 4);
	ck_assert(memcmp(m->name, "sort", 4) == 0);
	pk_rc_check_cuts(buf, size);
	/* lengths past hdr.size */
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a NUL in a name */
	size = make_method(buf, 0, "Hot", "main");
	buf[32 + 3] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* unreadable: no names, or it is bad */
	size = make_method(buf, PK_HS_UNREADABLE, "", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	ck_assert_uint_eq(m->klass_len + m->name_len, 0);
	size = make_method(buf, PK_HS_UNREADABLE, "Hot", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a Method* no frame can hold */
	size = make_method(buf, 0, "Hot", "main");
	set64(buf, offsetof(struct pk_hs_method_event, method), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_hs_method_event, method), PK_HS_METHOD_MASK + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* the longest name, and one past it */
	memset(klass, 'k', sizeof(klass));
	klass[PK_HS_SYM_MAX] = '\0';
	size = make_method(buf, 0, klass, "m");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_METHOD);
	klass[PK_HS_SYM_MAX] = 'k';
	klass[PK_HS_SYM_MAX + 1] = '\0';
	size = make_method(buf, 0, klass, "m");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* A compiled Java method's report with parts of PCS, SCOPES and META
 * bytes (0, 1, 2... on). */
static size_t make_nmethod(unsigned char *buf, size_t pcs, size_t scopes, size_t meta)
{
	struct pk_hs_nmethod_event e = {
		.hdr = { .type = PK_EVENT_HS_NMETHOD, .flags = PK_HS_NM_NO_ZERO }, .pid = 42,
		.compile_id = 77, .nmethod = 0x7f1000000000, .method = 0x7f0012345678,
		.code_begin = 0x7f1000000100, .code_size = 0x100, .pcs_len = pcs,
		.scopes_len = scopes, .metadata_len = meta, .pcdesc_size = 16,
		.pcdesc_scope_decode_offset = 4,
	};
	size_t size = sizeof(e) + pcs + scopes + meta;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	for (size_t i = 0; i < pcs + scopes + meta; i++)
		buf[sizeof(e) + i] = i;
	return size;
}

/* Its parts lie in the record, each within its bound; its nmethod is not
 * 0, its Method* not 0 and within a frame's bits. */
START_TEST(test_hs_nmethod)
{
	static unsigned char buf[1 << 16];
	const size_t at = sizeof(struct pk_hs_nmethod_event);
	struct pk_record rec;
	struct pk_hs_nmethod_desc *d = &rec.hs_nmethod;
	size_t size = make_nmethod(buf, 32, 5, 16);

	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_NMETHOD);
	ck_assert_uint_eq(d->pid, 42);
	ck_assert_uint_eq(d->flags, PK_HS_NM_NO_ZERO);
	ck_assert_uint_eq(d->compile_id, 77);
	ck_assert_uint_eq(d->nmethod, 0x7f1000000000);
	ck_assert_uint_eq(d->method, 0x7f0012345678);
	ck_assert_uint_eq(d->code_begin, 0x7f1000000100);
	ck_assert_uint_eq(d->code_size, 0x100);
	ck_assert_ptr_eq(d->pcs, buf + at);
	ck_assert_uint_eq(d->pcs_len, 32);
	ck_assert_ptr_eq(d->scopes, buf + at + 32);
	ck_assert_uint_eq(d->scopes_len, 5);
	ck_assert_ptr_eq(d->metadata, buf + at + 37);
	ck_assert_uint_eq(d->metadata_len, 16);
	ck_assert_uint_eq(d->pcdesc_size, 16);
	ck_assert_uint_eq(d->pcdesc_pc_offset, 0);
	ck_assert_uint_eq(d->pcdesc_scope_decode_offset, 4);
	pk_rc_check_cuts(buf, size);
	/* lengths past hdr.size */
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* every part at its bound, and each past it */
	size = make_nmethod(buf, PK_HS_PCS_MAX, PK_HS_SCOPES_MAX, PK_HS_META_MAX);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_NMETHOD);
	ck_assert_uint_eq(d->metadata_len, PK_HS_META_MAX);
	size = make_nmethod(buf, PK_HS_PCS_MAX + 1, 0, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_nmethod(buf, 0, PK_HS_SCOPES_MAX + 1, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_nmethod(buf, 0, 0, PK_HS_META_MAX + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* none: the nmethod's method names it alone */
	size = make_nmethod(buf, 0, 0, 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_HS_NMETHOD);
	/* no nmethod; a Method* no frame can hold */
	set64(buf, offsetof(struct pk_hs_nmethod_event, nmethod), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_nmethod(buf, 0, 0, 0);
	set64(buf, offsetof(struct pk_hs_nmethod_event, method), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_hs_nmethod_event, method), PK_HS_METHOD_MASK + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

START_TEST(test_py_code_bad)
{
	static unsigned char buf[1 << 16];
	struct pk_record rec;
	size_t size;

	/* lengths past hdr.size */
	size = make_code(buf, 0, "f", "a.py", 4);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set16(buf, offsetof(struct pk_event_hdr, size), size);
	set16(buf, offsetof(struct pk_py_code_event, linetable_len), 5);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a NUL in a string */
	size = make_code(buf, 0, "f", "a.py", 4);
	buf[48] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_code(buf, 0, "f", "a.py", 4);
	buf[48 + 1 + 3] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* (the line table may hold any byte) */
	size = make_code(buf, 0, "f", "a.py", 4);
	buf[48 + 5] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_PY_CODE);
	/* an unreadable string with bytes */
	size = make_code(buf, PK_PY_NAME_UNREADABLE, "f", "a.py", 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_code(buf, PK_PY_FILE_UNREADABLE, "f", "a.py", 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a code no frame can name */
	size = make_code(buf, 0, "f", "a.py", 0);
	set64(buf, offsetof(struct pk_py_code_event, code), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_py_code_event, code), 1ULL << 48);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST

/* A JavaScript function's event: NAME and FILE. */
static size_t make_sfi(unsigned char *buf, __u32 flags, const char *name, const char *file)
{
	struct pk_v8_sfi_event e = {
		.hdr = { .type = PK_EVENT_V8_SFI, .flags = flags },
		.pid = 42, .sfi = 0x3f0012345679, .name_len = strlen(name),
		.file_len = strlen(file), .line = 19,
	};
	size_t size = sizeof(e) + e.name_len + e.file_len;

	e.hdr.size = size;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), name, e.name_len);
	memcpy(buf + sizeof(e) + e.name_len, file, e.file_len);
	return size;
}

/* A JavaScript function's names and line lie in the record, within PK_V8_NAME_MAX
 * and PK_V8_FILE_MAX, without a NUL; an unreadable one is empty; the SFI
 * fits a frame. */
START_TEST(test_v8_sfi)
{
	static unsigned char buf[1 << 12];
	char name[PK_V8_NAME_MAX + 2], file[PK_V8_FILE_MAX + 2];
	struct pk_record rec;
	struct pk_v8_sfi_desc *d = &rec.v8_sfi;
	size_t size = make_sfi(buf, 0, "leaf", "/mnt/hot.js");

	ck_assert_uint_eq(size, 32 + 4 + 11);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	ck_assert_uint_eq(d->pid, 42);
	ck_assert_uint_eq(d->flags, 0);
	ck_assert_uint_eq(d->sfi, 0x3f0012345679);
	ck_assert_uint_eq(d->name_len, 4);
	ck_assert(memcmp(d->name, "leaf", 4) == 0);
	ck_assert_uint_eq(d->file_len, 11);
	ck_assert(memcmp(d->file, "/mnt/hot.js", 11) == 0);
	ck_assert_uint_eq(d->line, 19);
	pk_rc_check_cuts(buf, size);
	set16(buf, offsetof(struct pk_event_hdr, size), size - 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* a NUL in the file */
	size = make_sfi(buf, 0, "top", "hot.js");
	buf[32 + 3 + 2] = '\0';
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* anonymous: an empty name that is no error */
	size = make_sfi(buf, 0, "", "hot.js");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	ck_assert_uint_eq(d->name_len, 0);
	/* unreadable: empty, or it is bad */
	size = make_sfi(buf, PK_V8_NAME_UNREADABLE | PK_V8_FILE_UNREADABLE, "", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	size = make_sfi(buf, PK_V8_NAME_UNREADABLE, "top", "");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	size = make_sfi(buf, PK_V8_FILE_UNREADABLE, "top", "hot.js");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* an SFI no frame can hold */
	size = make_sfi(buf, 0, "top", "hot.js");
	set64(buf, offsetof(struct pk_v8_sfi_event, sfi), 0);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	set64(buf, offsetof(struct pk_v8_sfi_event, sfi), PK_V8_SFI_MASK + 1);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	/* the longest names, and one past each */
	memset(name, 'n', sizeof(name));
	memset(file, 'f', sizeof(file));
	name[PK_V8_NAME_MAX] = file[PK_V8_FILE_MAX] = '\0';
	size = make_sfi(buf, 0, name, file);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_V8_SFI);
	ck_assert_uint_eq(d->name_len + d->file_len, PK_V8_NAME_MAX + PK_V8_FILE_MAX);
	name[PK_V8_NAME_MAX] = 'n';
	name[PK_V8_NAME_MAX + 1] = '\0';
	size = make_sfi(buf, 0, name, "f");
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
	file[PK_V8_FILE_MAX] = 'f';
	file[PK_V8_FILE_MAX + 1] = '\0';
	size = make_sfi(buf, 0, "n", file);
	ck_assert_int_eq(pk_record_parse(buf, size, &rec), PK_RECORD_BAD);
}
END_TEST


void pk_rc_runtime_valid_tests(TCase *tc)
{
	tcase_add_test(tc, test_py_frames);
	tcase_add_test(tc, test_py_code);
}

void pk_rc_runtime_invalid_tests(TCase *tc)
{
	tcase_add_test(tc, test_py_frames_bad);
	tcase_add_test(tc, test_py_code_bad);
	tcase_add_test(tc, test_hs_method);
	tcase_add_test(tc, test_v8_sfi);
	tcase_add_test(tc, test_hs_method_lines);
	tcase_add_test(tc, test_hs_nmethod);
}
