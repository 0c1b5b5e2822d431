// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* Records in, folded stacks out: probe-read without the ring buffer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elf_fixture.h"
#include "probekit.h"
#include "reader.h"
#include "test_util.h"

static const char KALLSYMS[] =
	"ffffffff81000000 T k_outer\n"
	"ffffffff81000100 T k_middle\n"
	"ffffffff81000200 T k_leaf\n"
	"ffffffff82000000 D k_data\n";

/* A sample record: kernel then user addresses, each leaf first. */
static size_t record(unsigned char *buf, __u32 pid, const char *comm, const __u64 *k, __u16 nk,
		     const __u64 *u, __u16 nu)
{
	struct pk_sample s = {
		.hdr = { .type = PK_EVENT_SAMPLE },
		.pid = pid, .tid = pid, .kstack_len = nk, .ustack_len = nu,
		.frames_off = sizeof(s),
	};

	s.hdr.size = sizeof(s) + 8 * (nk + nu);
	strncpy(s.comm, comm, sizeof(s.comm) - 1);
	memcpy(buf, &s, sizeof(s));
	if (nk)
		memcpy(buf + sizeof(s), k, 8 * nk);
	if (nu)
		memcpy(buf + sizeof(s) + 8 * nk, u, 8 * nu);
	return s.hdr.size;
}

static struct pk_reader *new_reader(void)
{
	char kallsyms[256];
	struct pk_reader_opts o = { .sz = sizeof(o), .proc_root = pk_fx_proc_root(),
				    .kallsyms_path = kallsyms };

	snprintf(kallsyms, sizeof(kallsyms), "%s/kallsyms", pk_fx_dir());
	pk_fx_write_file(kallsyms, KALLSYMS);
	return pk_reader_new(&o);
}

static char *output(struct pk_reader *r)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_int_eq(pk_reader_write(r, f), 0);
	fclose(f);
	return buf;
}

/* The interrupted address is looked up as is, every return address minus
 * one: a call that ends its function (here to a noreturn function) belongs
 * to the caller, not to whatever follows. */
START_TEST(test_return_addresses)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 die, die_size, caller, caller_size, main_addr, main_size, bias;
	char maps[4096] = "", *out;
	struct pk_reader *r;
	size_t size;

	pk_fx_symbol(prog, "die", &die, &die_size);
	pk_fx_symbol(prog, "tail_caller", &caller, &caller_size);
	pk_fx_symbol(prog, "main", &main_addr, &main_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	{
		/* Leaf at the very start of die; return address one past the
		 * end of tail_caller; then somewhere in main. Kernel: the
		 * leaf at k_leaf's first byte, a return address at the start
		 * of k_middle (the call ended k_outer). */
		const __u64 u[] = { bias + die, bias + caller + caller_size,
				    bias + main_addr + main_size / 2 };
		const __u64 k[] = { 0xffffffff81000200, 0xffffffff81000100 };

		r = new_reader();
		size = record(buf, PK_FX_PID, "prog", k, 2, u, 3);
		ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
		ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	}
	out = output(r);
	ck_assert_str_eq(out, "prog;main;tail_caller;die;k_outer_[k];k_leaf_[k] 2\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

/* Different raw stacks with the same names are one line; lines sorted. */
START_TEST(test_merge_and_sort)
{
	const char *prog = pk_fx_build("prog", pk_fx_c_src, false, "-pie");
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	__u64 fn, fn_size, bias;
	char maps[4096] = "", *out;
	struct pk_reader *r;
	struct pk_reader_stats st;

	pk_fx_symbol(prog, "after_tail", &fn, &fn_size);
	bias = pk_fx_fake_maps(prog, PK_FX_PIE_BASE, maps, sizeof(maps));
	pk_fx_set_maps(PK_FX_PID, maps);
	pk_fx_set_maps(PK_FX_PID + 1, maps);
	r = new_reader();
	for (__u64 off = 0; off < 3; off++) {
		const __u64 u[] = { bias + fn + off };

		pk_reader_handle(r, buf, record(buf, PK_FX_PID, "zeta", NULL, 0, u, 1));
	}
	{
		const __u64 u[] = { bias + fn };
		const __u64 k[] = { 0xffffffff81000150 };

		pk_reader_handle(r, buf, record(buf, PK_FX_PID + 1, "alpha;x", NULL, 0, u, 1));
		/* A kernel thread: no user frames. */
		pk_reader_handle(r, buf, record(buf, 2, "kthreadd", k, 1, NULL, 0));
		/* An address outside any mapping, and a dead process. */
		const __u64 bad[] = { 0x1234 };

		pk_reader_handle(r, buf, record(buf, PK_FX_PID, "zeta", NULL, 0, bad, 1));
		pk_reader_handle(r, buf, record(buf, 999999, "gone", NULL, 0, u, 1));
	}
	out = output(r);
	ck_assert_str_eq(out,
			 "alpha:x;after_tail 1\n"
			 "gone;[unknown] 1\n"
			 "kthreadd;k_middle_[k] 1\n"
			 "zeta;[unknown] 1\n"
			 "zeta;after_tail 3\n");
	free(out);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 7);
	ck_assert_uint_eq(st.stacks, 7);
	ck_assert_uint_eq(st.bad, 0);
	pk_reader_free(r);
}
END_TEST

START_TEST(test_bad_records)
{
	unsigned char buf[PK_SAMPLE_MAX_SIZE];
	const __u64 k[] = { 0xffffffff81000150 };
	struct pk_event_hdr other = { .type = 7, .size = sizeof(other) };
	struct pk_reader_stats st;
	struct pk_reader *r = new_reader();
	size_t size = record(buf, 2, "kthreadd", k, 1, NULL, 0);
	char *out;

	ck_assert_int_eq(pk_reader_handle(r, buf, size - 1), 0);	/* truncated */
	ck_assert_int_eq(pk_reader_handle(r, buf, 3), 0);
	ck_assert_int_eq(pk_reader_handle(r, &other, sizeof(other)), 0);	/* unknown type */
	ck_assert_int_eq(pk_reader_handle(r, buf, size), 0);
	pk_reader_stats(r, &st);
	ck_assert_uint_eq(st.samples, 1);
	ck_assert_uint_eq(st.bad, 2);
	ck_assert_uint_eq(st.skipped, 1);
	out = output(r);
	ck_assert_str_eq(out, "kthreadd;k_middle_[k] 1\n");
	free(out);
	pk_reader_free(r);
}
END_TEST

Suite *suite_reader(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("records");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_return_addresses);
	tcase_add_test(tc, test_merge_and_sort);
	tcase_add_test(tc, test_bad_records);
	suite_add_tcase(s, tc);
	return s;
}
