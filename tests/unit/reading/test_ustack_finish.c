// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The user-space end of a walk, without BPF: this test's own stack, its
 * registers and a copy of it taken the way the kernel takes one, walked on
 * by the finisher with the tables of this binary and libc (built into a
 * cache of the test's own), against glibc's backtrace() (libgcc's
 * unwinder) called from the same frame.
 */
#include <execinfo.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/proc_maps.h"
#include "output/folded.h"
#include "reading/reader.h"
#include "reading/ustack_finish.h"
#include "test_util.h"

struct snap {
	struct pk_ustack_copy copy;
	unsigned char stack[PK_USTACK_COPY_MAX];
	__u64 pc;
	void *bt[64];
	int nbt;
};

/* The registers of this frame, its stack from the red zone up (at most
 * PK_USTACK_COPY_MAX bytes, never past the stack's mapping) and, from the
 * same frame, backtrace(). */
static __attribute__((noinline)) void snap_here(struct snap *s)
{
	__u64 rip, rsp, rbp, rbx, r12, r13, r14, r15;
	const struct pk_mapping *m;
	struct pk_maps maps;
	int fd;

	__asm__ __volatile__("lea 0(%%rip), %%rax\n\t"
			     "mov %%rax, %0\n\t"
			     "mov %%rsp, %1\n\t"
			     "mov %%rbp, %2\n\t"
			     "mov %%rbx, %3\n\t"
			     "mov %%r12, %4\n\t"
			     "mov %%r13, %5\n\t"
			     "mov %%r14, %6\n\t"
			     "mov %%r15, %7"
			     : "=m"(rip), "=m"(rsp), "=m"(rbp), "=m"(rbx), "=m"(r12), "=m"(r13),
			       "=m"(r14), "=m"(r15) : : "rax");
	memset(&s->copy, 0, sizeof(s->copy));
	s->copy.regs[16] = s->pc = rip;
	s->copy.regs[7] = rsp;
	s->copy.regs[6] = rbp;
	s->copy.regs[3] = rbx;
	s->copy.regs[12] = r12;
	s->copy.regs[13] = r13;
	s->copy.regs[14] = r14;
	s->copy.regs[15] = r15;
	s->copy.regs_valid = 1u << 16 | 1u << 7 | 1u << 6 | 1u << 3 | 0xfu << 12;
	s->copy.flags = PK_COPY_EXACT_PC;
	s->copy.start = rsp - PK_USTACK_COPY_BELOW;
	ck_assert_int_eq(pk_maps_read(NULL, getpid(), false, &maps), 0);
	m = pk_maps_find(&maps, rsp);
	ck_assert_ptr_nonnull(m);
	s->copy.len = m->end - s->copy.start < sizeof(s->stack) ? m->end - s->copy.start
								 : sizeof(s->stack);
	pk_maps_free(&maps);
	/* what is above RSP: this frame's and its callers' (the red zone
	 * below is the calls' since; the walk reads no word of it here),
	 * read by the kernel as the BPF program's copy is, past the
	 * sanitizer's poisoned redzones */
	fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, s->stack, s->copy.len, (off_t)s->copy.start),
			 (ssize_t)s->copy.len);
	close(fd);
	s->nbt = backtrace(s->bt, 64);
}

START_TEST(test_own_stack)
{
	char cache[] = "/tmp/pk-finish-XXXXXX";
	char *rm[] = { "rm", "-rf", cache, NULL };
	struct snap *s = calloc(1, sizeof(*s));
	struct pk_ustack_finisher *f;
	struct pk_finish_result res;
	struct pk_record_sample rec;
	__u64 out[PK_MAX_USTACK_DEPTH];
	size_t cmp;
	int top;

	ck_assert_ptr_nonnull(s);
	ck_assert_ptr_nonnull(mkdtemp(cache));
	snap_here(s);
	ck_assert_int_ge(s->nbt, 3);
	rec = (struct pk_record_sample){
		.flags = PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY,
		.pid = getpid(), .tid = getpid(), .ustack_len = 1, .ustack_end = PK_END_NO_TABLE,
		.frames = &s->pc, .copy = s->copy, .stack = s->stack,
	};
	f = pk_ustack_finisher_new(&(struct pk_ustack_finisher_opts){ .cache_dir = cache });
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(pk_ustack_finisher_walk(f, &rec, out, PK_MAX_USTACK_DEPTH, &res), 0);
	/* backtrace()'s frames start in backtrace itself (the sanitizer's
	 * interceptor) or in snap_here (its call of backtrace): the next is
	 * snap_here's caller, the finisher's first frame */
	ck_assert_uint_ge(res.n, 1);
	for (top = 1; top < 3 && top < s->nbt; top++)
		if (out[0] == (__u64)(uintptr_t)s->bt[top])
			break;
	cmp = (size_t)(s->nbt - top) < res.n ? (size_t)(s->nbt - top) : res.n;
	ck_assert_msg(cmp >= 3, "%zu frames walked (end %u), %d by backtrace()", res.n, res.end,
		      s->nbt);
	for (size_t i = 0; i < cmp; i++)
		ck_assert_msg(out[i] == (__u64)(uintptr_t)s->bt[top + i],
			      "frame %zu: %#llx, backtrace() %p", i, (unsigned long long)out[i],
			      s->bt[top + i]);
	ck_assert_uint_eq(res.fp_frames, 0);

	/* the same copy cut after a few words: the walk stops where the copy
	 * does, as a read fault, with the frames it had found */
	rec.copy.len = 256;
	ck_assert_int_eq(pk_ustack_finisher_walk(f, &rec, out, PK_MAX_USTACK_DEPTH, &res), 0);
	ck_assert_uint_eq(res.end, PK_END_READ_FAULT);
	ck_assert_uint_lt(res.n, cmp);
	for (size_t i = 0; i < res.n; i++)
		ck_assert(out[i] == (__u64)(uintptr_t)s->bt[top + i]);

	/* and with every page a hole: nothing can be read */
	rec.copy.len = s->copy.len;
	rec.copy.holes = ~0u;
	ck_assert_int_eq(pk_ustack_finisher_walk(f, &rec, out, PK_MAX_USTACK_DEPTH, &res), 0);
	ck_assert_uint_eq(res.n, 0);
	ck_assert_uint_eq(res.end, PK_END_READ_FAULT);

	/* at most MAX frames, then the depth limit */
	rec.copy.holes = 0;
	ck_assert_int_eq(pk_ustack_finisher_walk(f, &rec, out, 2, &res), 0);
	ck_assert_uint_eq(res.n, 2);
	ck_assert_uint_eq(res.end, PK_END_DEPTH);

	/* a process gone is forgotten at the second sweep that finds it
	 * unused (pid_max is no pid), a live one never */
	{
		char *pm = pk_test_read_file("/proc/sys/kernel/pid_max", NULL);
		struct pk_finish_mapping m = { .start = 0x1000, .end = 0x2000, .path = "/x" };

		ck_assert_ptr_nonnull(pm);
		m.pid = (__u32)strtoul(pm, NULL, 10);
		free(pm);
		ck_assert_int_eq(pk_ustack_finisher_add_mapping(f, &m), 0);
		ck_assert_uint_eq(pk_ustack_finisher_sweep(f), 0);
		ck_assert_uint_eq(pk_ustack_finisher_sweep(f), 1);
		ck_assert_uint_eq(pk_ustack_finisher_sweep(f), 0);
	}
	pk_ustack_finisher_free(f);
	pk_ustack_finisher_free(NULL);
	ck_assert_int_eq(pk_test_run(rm, NULL, NULL), 0);
	free(s);
}
END_TEST

/* A walk the reader finishes from a copy of the stack keeps the sample's
 * Python frames after the user frames it found: here no frame of the eval
 * loop takes them, so they are the outermost. */
START_TEST(test_reader_keeps_python)
{
	char cache[] = "/tmp/pk-finish-XXXXXX";
	char *rm[] = { "rm", "-rf", cache, NULL };
	struct snap *s = calloc(1, sizeof(*s));
	const __u64 py[] = { pk_py_frame(0x7f0000001000, 3, 0), pk_py_frame(0x7f0000002000, 1, 1) };
	size_t frames_off = sizeof(struct pk_sample), copy_off = frames_off + 3 * 8, size;
	struct pk_sample h = {
		.hdr = { .type = PK_EVENT_SAMPLE,
			 .flags = PK_SAMPLE_USTACK_DWARF | PK_SAMPLE_USTACK_COPY | PK_SAMPLE_PY },
		.pid = getpid(), .tid = getpid(), .ustack_len = 1, .frames_off = frames_off,
		.ustack_end = PK_END_NO_TABLE, .copy_off = copy_off, .py_len = 2,
		.py_end = PK_PY_END_COMPLETE,
	};
	unsigned char *buf = malloc(65536);
	struct pk_profile p = { 0 };
	struct pk_reader_stats st;
	struct pk_reader *r;
	char *out = NULL, *want;
	size_t len = 0;
	FILE *f;

	ck_assert(s && buf);
	ck_assert_ptr_nonnull(mkdtemp(cache));
	snap_here(s);
	memcpy(h.comm, "finish", 7);
	size = copy_off + sizeof(s->copy) + s->copy.len;
	ck_assert_uint_le(size, 65535);
	h.hdr.size = (__u16)size;
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + frames_off, &s->pc, 8);
	memcpy(buf + frames_off + 8, py, sizeof(py));
	memcpy(buf + copy_off, &s->copy, sizeof(s->copy));
	memcpy(buf + copy_off + sizeof(s->copy), s->stack, s->copy.len);
	r = pk_reader_new(&(struct pk_reader_opts){ .cache_dir = cache, .no_dwarf = true });
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.finished, 1);
	ck_assert_uint_ge(st.finished_frames, 3);
	ck_assert_uint_eq(st.py_frames, 2);
	ck_assert_uint_eq(st.py_left, 2);
	ck_assert_uint_eq(st.user_frames, 1 + st.finished_frames);
	pk_reader_take(r, 0, 0, &p);
	f = open_memstream(&out, &len);
	ck_assert_int_eq(pk_folded_write(f, &p), 0);
	fclose(f);
	want = "finish;[py:0x7f0000002000];[py:0x7f0000001000];";
	ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
	ck_assert_uint_eq(p.samples[0].stack->nuser, 1 + st.finished_frames + 2);
	free(out);
	pk_reader_free(r);
	ck_assert_int_eq(pk_test_run(rm, NULL, NULL), 0);
	free(buf);
	free(s);
}
END_TEST

Suite *suite_ustack_finish(void)
{
	Suite *s = suite_create("ustack_finish");
	TCase *tc = tcase_create("own_stack");

	/* builds the tables of this (sanitized) binary */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_own_stack);
	tcase_add_test(tc, test_reader_keeps_python);
	suite_add_tcase(s, tc);
	return s;
}
