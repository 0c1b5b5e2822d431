// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite reader, its Python (reader_run.h): the Python frames a sample
 * carries merged into the eval loop's native frames, and the code
 * reports that name them.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bpf/probekit.h"
#include "harness/elf_fixture.h"
#include "reading/reader.h"
#include "reading/summary.h"
#include "test_util.h"
#include "unit/reading/reader_run.h"

/* Native functions named as CPython's: the eval loop, a C function that
 * calls back into Python, the interpreter's main. */
static const char py_src[] =
	"volatile int sink;\n"
	"__attribute__((noinline)) void _PyEval_EvalFrameDefault(void)\n"
	"{ for (int i = 0; i < 100; i++) sink += i * sink; }\n"
	"__attribute__((noinline)) void method_call(void) { _PyEval_EvalFrameDefault(); }\n"
	"__attribute__((noinline)) void Py_RunMain(void) { method_call(); _PyEval_EvalFrameDefault(); }\n"
	"int main(void) { Py_RunMain(); return 0; }\n";

#define CODE_RUN	0x7f0000001000ULL
#define CODE_MOD	0x7f0000002000ULL
#define CODE_CAFE	0x7f0000003000ULL

/* A sample with a Python walk: K, U, then NP Python frames PY. */
static size_t py_record(unsigned char *buf, __u32 pid, const __u64 *u, __u16 nu,
			const __u64 *py, __u16 np)
{
	__u64 frames[64];
	size_t size;
	__u32 flags = PK_SAMPLE_PY;

	if (nu)
		memcpy(frames, u, 8 * nu);
	memcpy(frames + nu, py, 8 * np);
	size = pk_rd_record(buf, pid, "py", NULL, 0, frames, nu + np);
	memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
	memcpy(buf + offsetof(struct pk_sample, ustack_len), &nu, sizeof(nu));
	memcpy(buf + offsetof(struct pk_sample, py_len), &np, sizeof(np));
	buf[offsetof(struct pk_sample, py_end)] = PK_PY_END_COMPLETE;
	return size;
}

/* A code report of PID. */
static size_t code_record(unsigned char *buf, __u32 pid, __u64 code, __u32 flags,
			  const char *name, const char *file, __s32 first, const __u8 *lt,
			  __u16 lt_len)
{
	struct pk_py_code_event e = {
		.hdr = { .type = PK_EVENT_PY_CODE, .flags = flags },
		.pid = pid, .version = 0x030b02f0, .code = code, .firstlineno = first,
		.name_len = strlen(name), .file_len = strlen(file), .linetable_len = lt_len,
	};

	e.hdr.size = sizeof(e) + e.name_len + e.file_len + lt_len;
	memcpy(buf, &e, sizeof(e));
	memcpy(buf + sizeof(e), name, e.name_len);
	memcpy(buf + sizeof(e) + e.name_len, file, e.file_len);
	memcpy(buf + sizeof(e) + e.name_len + e.file_len, lt, lt_len);
	return e.hdr.size;
}

/* The three codes of the tests: Job.run (units 0-1 at line 12, 2-5 at
 * 15), <module> (line 1), and a Latin-1 name whose truncated table has
 * 2 units. */
static void py_codes(struct pk_reader *r, __u32 pid)
{
	static const __u8 lt_run[] = { 0x81, 0x00, 0x80 | 13 << 3 | 3, 0x06 };
	static const __u8 lt_mod[] = { 0x87, 0x00 }, lt_cafe[] = { 0x81, 0x00 };
	unsigned char buf[1024];

	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, pid, CODE_RUN, 0, "Job.run",
							      "/srv/app/job.py", 12, lt_run,
							      sizeof(lt_run))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, pid, CODE_MOD, 0, "<module>",
							      "/srv/app/main.py", 1, lt_mod,
							      sizeof(lt_mod))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, pid, CODE_CAFE,
							      PK_PY_NAME_LATIN1 | PK_PY_LINES_TRUNC,
							      "caf\xe9", "/srv/app/util.py", 30,
							      lt_cafe, sizeof(lt_cafe))), 0);
}

/* A reader of the py fixture's process, its codes reported, and U: the
 * native stack eval, method_call, eval, Py_RunMain, main (leaf first). */
static struct pk_reader *py_reader(__u64 u[5])
{
	const char *prog = pk_fx_build("py", py_src, false, "-pie");
	const char *const names[] = { "_PyEval_EvalFrameDefault", "method_call",
				      "_PyEval_EvalFrameDefault", "Py_RunMain", "main" };
	const unsigned int off[] = { 1, 2, 3, 2, 2 };
	char maps[4096] = "";
	__u64 addr, size, bias;
	struct pk_reader *r;

	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	for (int i = 0; i < 5; i++) {
		pk_fx_symbol(prog, names[i], &addr, &size);
		u[i] = bias + addr + off[i];
	}
	r = pk_rd_new_reader();
	py_codes(r, PK_FX_PID);
	return r;
}

/* Each native frame of the eval loop, leaf first, takes the Python frames
 * up to the next that entered it; what is left of either is counted. */
START_TEST(test_python_merge)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 u[5];
	char *out;
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r;

	r = py_reader(u);
	{
		/* Python: café (index 4), Job.run (index 3) entered the leaf
		 * eval call; <module> (index 1) the outer one */
		const __u64 py[] = { pk_py_frame(CODE_CAFE, 5, 0), pk_py_frame(CODE_RUN, 4, 1),
				     pk_py_frame(CODE_MOD, 2, 1) };
		const __u64 unknown[] = { pk_py_frame(0x7f0000009000, 1, 1) };

		/* the whole of both */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 5, py, 3)), 0);
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 5, py, 3)), 0);
		/* the native walk cut after the leaf eval call: <module>
		 * outermost */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 1, py, 3)), 0);
		/* the Python walk cut: the outer eval frame stays native */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u, 5, py, 2)), 0);
		/* no Python walk: native as ever, no mismatch */
		ck_assert_int_eq(pk_reader_handle(r, buf, pk_rd_record(buf, PK_FX_PID, "py", NULL,
								       0, u, 3)),
				 0);
		/* a code no report named */
		ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, u + 2, 3, unknown,
								    1)), 0);
	}
	pk_reader_take(r, 0, 0, &p);
	pk_rd_assert_dense_ids(&p);
	out = pk_rd_folded(&p);
	ck_assert_str_eq(out,
			 "py;<module> (main.py:1);Job.run (job.py:15);caf\xc3\xa9 (util.py) 1\n"
			 "py;_PyEval_EvalFrameDefault;method_call;_PyEval_EvalFrameDefault 1\n"
			 "py;main;Py_RunMain;<module> (main.py:1);method_call;Job.run (job.py:15);"
			 "caf\xc3\xa9 (util.py) 2\n"
			 "py;main;Py_RunMain;[py:0x7f0000009000] 1\n"
			 "py;main;Py_RunMain;_PyEval_EvalFrameDefault;method_call;Job.run (job.py:15);"
			 "caf\xc3\xa9 (util.py) 1\n");
	free(out);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.py_codes, 3);
	ck_assert_uint_eq(st.py_samples, 5);
	ck_assert_uint_eq(st.py_ends[PK_PY_END_COMPLETE], 5);
	ck_assert_uint_eq(st.py_frames, 3 + 3 + 3 + 2 + 1);
	ck_assert_uint_eq(st.py_named, 3 + 3 + 3 + 2);
	ck_assert_uint_eq(st.py_lines, 2 + 2 + 2 + 1);	/* café's line is past its table */
	ck_assert_uint_eq(st.py_left, 1);
	ck_assert_uint_eq(st.eval_left, 1);
	/* native frames: those not replaced */
	ck_assert_uint_eq(st.user_frames, 3 + 3 + 0 + 4 + 3 + 2);
	{
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);

		pk_summary_python(f, &st);
		fclose(f);
		ck_assert_str_eq(text, "python: 12 frames in 5 samples with a Python walk, 91.7% named, "
				       "58.3% with a line; 1 past the native frames (put outermost); "
				       "1 eval frames without Python frames (kept native); "
				       "100.0% complete\n");
		free(text);
	}
	pk_reader_free(r);
}
END_TEST

/* Both walks whole, one eval frame more than groups: the call of the eval
 * loop at the leaf has not started its frame (the walk skips it), so the
 * pairs are counted from the root, and the leaf eval frame stays native;
 * from the leaf, every Python frame would sit one eval frame too deep. */
START_TEST(test_python_merge_from_root)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 u[5];
	char *out;
	struct pk_reader_stats st;
	struct pk_profile p = { 0 };
	struct pk_reader *r;
	__u32 flags = PK_SAMPLE_PY | PK_SAMPLE_USTACK_DWARF;

	r = py_reader(u);
	{
		/* one group: <module> called Job.run within the outer call */
		const __u64 py[] = { pk_py_frame(CODE_RUN, 4, 0), pk_py_frame(CODE_MOD, 2, 1) };

		py_record(buf, PK_FX_PID, u, 5, py, 2);
		memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
		buf[offsetof(struct pk_sample, ustack_end)] = PK_END_COMPLETE;
		ck_assert_int_eq(pk_reader_handle(r, buf, ((struct pk_event_hdr *)buf)->size), 0);
		/* the same frames, the native walk cut (a depth limit): from
		 * the leaf, as ever */
		py_record(buf, PK_FX_PID, u, 4, py, 2);
		memcpy(buf + offsetof(struct pk_event_hdr, flags), &flags, sizeof(flags));
		buf[offsetof(struct pk_sample, ustack_end)] = PK_END_DEPTH;
		ck_assert_int_eq(pk_reader_handle(r, buf, ((struct pk_event_hdr *)buf)->size), 0);
	}
	pk_reader_take(r, 0, 0, &p);
	out = pk_rd_folded(&p);
	ck_assert_str_eq(out,
			 "py;Py_RunMain;_PyEval_EvalFrameDefault;method_call;<module> (main.py:1);"
			 "Job.run (job.py:15) 1\n"
			 "py;main;Py_RunMain;<module> (main.py:1);Job.run (job.py:15);method_call;"
			 "_PyEval_EvalFrameDefault 1\n");
	free(out);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.eval_left, 2);
	ck_assert_uint_eq(st.py_left, 0);
	pk_reader_free(r);
}
END_TEST

/* The latest report of a code wins: a code object freed and another made
 * at its address names the frames from then on, those before keep their
 * names. Names outlive the process, as its mappings do. */
START_TEST(test_python_codes_replaced)
{
	static const __u8 lt[] = { 0x87, 0x00 };
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 py[] = { pk_py_frame(CODE_RUN, 1, 1) };
	struct pk_profile p = { 0 };
	struct pk_reader *r = pk_rd_new_reader();
	char *out;

	pk_fx_set_maps(PK_FX_PID, "");
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, PK_FX_PID, CODE_RUN, 0, "old",
							      "/a.py", 5, lt, sizeof(lt))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	/* the same report again: the same stack */
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, PK_FX_PID, CODE_RUN, 0, "old",
							      "/a.py", 5, lt, sizeof(lt))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, code_record(buf, PK_FX_PID, CODE_RUN, 0, "new",
							      "/b.py", 7, lt, sizeof(lt))), 0);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	/* the process exits; its samples still in the buffer keep names */
	pk_rd_fake_exit(PK_FX_PID);
	ck_assert_int_eq(pk_reader_handle(r, buf, py_record(buf, PK_FX_PID, NULL, 0, py, 1)), 0);
	pk_reader_take(r, 0, 0, &p);
	pk_rd_assert_dense_ids(&p);
	out = pk_rd_folded(&p);
	ck_assert_str_eq(out, "py;new (b.py:7) 2\npy;old (a.py:5) 2\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

void pk_rd_python_tests(TCase *tc)
{
	tcase_add_test(tc, test_python_merge);
	tcase_add_test(tc, test_python_merge_from_root);
	tcase_add_test(tc, test_python_codes_replaced);
}
