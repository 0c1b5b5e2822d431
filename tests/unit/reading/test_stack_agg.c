// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <string.h>

#include "reading/stack_agg.h"
#include "test_util.h"

static struct pk_stack *add(struct pk_stack_agg *agg, __u32 pid, const char *comm,
			    const __u64 *frames, __u16 klen, __u16 ulen, bool *is_new)
{
	struct pk_stack *s = pk_stack_agg_add(agg, pid, comm, 0, frames, klen, ulen, 0, 1, is_new);

	ck_assert_ptr_nonnull(s);
	return s;
}

/* A task moved to another cgroup samples other stacks (--per-cgroup),
 * however alike their frames. */
START_TEST(test_cgroup_apart)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	const __u64 f[] = { 0x401000, 0x402000 };
	struct pk_stack *a, *b, *c;
	bool is_new;

	a = pk_stack_agg_add(agg, 7, "app", 100, f, 0, 2, 0, 1, &is_new);
	ck_assert(is_new);
	b = pk_stack_agg_add(agg, 7, "app", 200, f, 0, 2, 0, 1, &is_new);
	ck_assert(is_new);
	c = pk_stack_agg_add(agg, 7, "app", 100, f, 0, 2, 0, 3, &is_new);
	ck_assert(!is_new);
	ck_assert_ptr_ne(a, b);
	ck_assert_ptr_eq(a, c);
	ck_assert_uint_eq(a->cgroup_id, 100);
	ck_assert_uint_eq(b->cgroup_id, 200);
	ck_assert_uint_eq(a->count, 4);
	ck_assert_uint_eq(b->count, 1);
	pk_stack_agg_free(agg);
}
END_TEST

START_TEST(test_identical_counted_once)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	const __u64 f[] = { 0xffffffff81000010, 0x401000, 0x402000 };
	struct pk_stack *s1, *s2;
	size_t n;
	bool is_new;

	s1 = add(agg, 7, "app", f, 1, 2, &is_new);
	ck_assert(is_new);
	s2 = add(agg, 7, "app", f, 1, 2, &is_new);
	ck_assert(!is_new);
	ck_assert_ptr_eq(s1, s2);
	ck_assert_uint_eq(s1->count, 2);
	ck_assert_uint_eq(s1->klen, 1);
	ck_assert_uint_eq(s1->ulen, 2);
	ck_assert_uint_eq(s1->frames[2], 0x402000);
	ck_assert_str_eq(s1->comm, "app");
	pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 1);
	pk_stack_agg_free(agg);
}
END_TEST

/* After a pid's mappings changed, its stacks start over (new entries, to be
 * named anew); other pids' stacks go on counting. */
START_TEST(test_seal_pid)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	const __u64 f[] = { 0x7f0000001000, 0x401000 };
	struct pk_stack *a7, *a8, *b7, *c7, *b8;
	size_t n;
	bool is_new;

	a7 = add(agg, 7, "app", f, 0, 2, &is_new);
	a8 = add(agg, 8, "app", f, 0, 2, &is_new);
	pk_stack_agg_seal_pid(agg, 7);
	b7 = add(agg, 7, "app", f, 0, 2, &is_new);
	ck_assert(is_new);
	ck_assert_ptr_ne(a7, b7);
	c7 = add(agg, 7, "app", f, 0, 2, &is_new);
	ck_assert(!is_new);
	ck_assert_ptr_eq(b7, c7);
	b8 = add(agg, 8, "app", f, 0, 2, &is_new);
	ck_assert(!is_new);
	ck_assert_ptr_eq(a8, b8);
	ck_assert_uint_eq(a7->count, 1);
	ck_assert_uint_eq(b7->count, 2);
	ck_assert_uint_eq(a8->count, 2);
	pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 3);
	pk_stack_agg_free(agg);
}
END_TEST

START_TEST(test_distinct_keys)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	const __u64 f[] = { 1, 2, 3 };
	const __u64 g[] = { 1, 2, 4 };
	struct pk_stack *const *list;
	size_t n;
	bool is_new;

	add(agg, 7, "app", f, 1, 2, &is_new);
	/* Each differs from the first in one part of the key. */
	add(agg, 8, "app", f, 1, 2, &is_new);
	ck_assert(is_new);
	add(agg, 7, "app2", f, 1, 2, &is_new);
	ck_assert(is_new);
	add(agg, 7, "app", g, 1, 2, &is_new);
	ck_assert(is_new);
	/* Same addresses, split differently between kernel and user. */
	add(agg, 7, "app", f, 2, 1, &is_new);
	ck_assert(is_new);
	add(agg, 7, "app", f, 1, 1, &is_new);
	ck_assert(is_new);
	add(agg, 7, "app", f, 0, 0, &is_new);
	ck_assert(is_new);
	list = pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 7);
	/* First-seen order. */
	ck_assert_uint_eq(list[0]->pid, 7);
	ck_assert_uint_eq(list[1]->pid, 8);
	ck_assert_str_eq(list[2]->comm, "app2");
	pk_stack_agg_free(agg);
}
END_TEST

/* The comm is compared up to its NUL: bytes after it (stale data from the
 * kernel's buffer) do not split a stack. */
START_TEST(test_comm_after_nul)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	char a[PK_TASK_COMM_LEN] = "sh\0garbage", b[PK_TASK_COMM_LEN] = "sh\0other";
	const __u64 f[] = { 1 };
	bool is_new;

	add(agg, 1, a, f, 0, 1, &is_new);
	add(agg, 1, b, f, 0, 1, &is_new);
	ck_assert(!is_new);
	pk_stack_agg_free(agg);
}
END_TEST

/* The Python frames are part of a stack: one native stack of the eval loop
 * runs many Python functions, and where the native part ends matters. */
START_TEST(test_python_frames)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	const __u64 a[] = { 0x401000, 0x402000, 0x7f0000001000 | 5ULL << 48,
			    0x7f0000002000 | 9ULL << 48 | PK_PY_FRAME_ENTRY };
	const __u64 b[] = { 0x401000, 0x402000, 0x7f0000003000 | 5ULL << 48,
			    0x7f0000002000 | 9ULL << 48 | PK_PY_FRAME_ENTRY };
	struct pk_stack *s1, *s2, *s3, *s4;
	bool is_new;

	ck_assert_ptr_nonnull(agg);
	s1 = pk_stack_agg_add(agg, 7, "py", 0, a, 0, 2, 2, 1, &is_new);
	ck_assert(is_new);
	ck_assert_uint_eq(s1->plen, 2);
	ck_assert_uint_eq(s1->frames[3], a[3]);
	/* another Python leaf under the same native frames */
	s2 = pk_stack_agg_add(agg, 7, "py", 0, b, 0, 2, 2, 1, &is_new);
	ck_assert(is_new);
	ck_assert_ptr_ne(s1, s2);
	/* the same words, split otherwise between native and Python */
	s3 = pk_stack_agg_add(agg, 7, "py", 0, a, 0, 3, 1, 1, &is_new);
	ck_assert(is_new);
	ck_assert_ptr_ne(s3, s1);
	s4 = pk_stack_agg_add(agg, 7, "py", 0, a, 0, 2, 2, 1, &is_new);
	ck_assert(!is_new);
	ck_assert_ptr_eq(s4, s1);
	ck_assert_uint_eq(s1->count, 2);
	ck_assert_uint_eq(s2->count, 1);
	ck_assert_uint_eq(s3->count, 1);
	pk_stack_agg_free(agg);
}
END_TEST

/* Frames come straight from a ring-buffer record: any alignment. */
START_TEST(test_unaligned_frames)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	unsigned char buf[8 * 3 + 1];
	const __u64 f[] = { 0x1111, 0x2222, 0x3333 };
	struct pk_stack *s;
	bool is_new;

	memcpy(buf + 1, f, sizeof(f));
	s = pk_stack_agg_add(agg, 1, "x", 0, buf + 1, 1, 2, 0, 1, &is_new);
	ck_assert_ptr_nonnull(s);
	ck_assert_uint_eq(s->frames[0], 0x1111);
	ck_assert_uint_eq(s->frames[2], 0x3333);
	add(agg, 1, "x", f, 1, 2, &is_new);
	ck_assert(!is_new);
	pk_stack_agg_free(agg);
}
END_TEST

/* Many stacks: the table grows and every count stays with its stack. */
START_TEST(test_growth)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	struct pk_stack *const *list;
	size_t n;
	bool is_new;

	for (int round = 0; round < 3; round++)
		for (__u64 i = 0; i < 5000; i++) {
			__u64 f[2] = { i, i * 7 };

			add(agg, (__u32)(i % 13), "w", f, 0, 2, &is_new);
			ck_assert(is_new == (round == 0));
		}
	list = pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 5000);
	for (size_t i = 0; i < n; i++) {
		ck_assert_uint_eq(list[i]->count, 3);
		ck_assert_uint_eq(list[i]->frames[0], i);
	}
	pk_stack_agg_free(agg);
}
END_TEST

static bool keep_all(void *ctx, struct pk_stack *s)
{
	return true;
}

static bool keep_even_pid(void *ctx, struct pk_stack *s)
{
	return s->pid % 2 == 0;
}

static void count_drop(void *ctx, struct pk_stack *s)
{
	++*(int *)ctx;
}

/* Retained entries keep their order and go on counting; dropped ones are
 * handed over once and, added again, are new. 3000 entries, so that the
 * table shrinks. */
START_TEST(test_retain)
{
	struct pk_stack_agg *agg = pk_stack_agg_new();
	struct pk_stack *const *e;
	struct pk_stack *kept[3000 / 2];
	int dropped = 0;
	size_t n;
	bool is_new;

	for (__u32 pid = 0; pid < 3000; pid++) {
		const __u64 f[] = { 0x401000 + pid };
		struct pk_stack *s = add(agg, pid, "app", f, 0, 1, &is_new);

		if (pid % 2 == 0)
			kept[pid / 2] = s;
	}
	ck_assert_int_eq(pk_stack_agg_retain(agg, keep_even_pid, count_drop, &dropped), 0);
	ck_assert_int_eq(dropped, 1500);
	e = pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 1500);
	for (size_t i = 0; i < n; i++)
		ck_assert_ptr_eq(e[i], kept[i]);
	for (__u32 pid = 0; pid < 3000; pid++) {
		const __u64 f[] = { 0x401000 + pid };
		struct pk_stack *s = add(agg, pid, "app", f, 0, 1, &is_new);

		ck_assert(is_new == (pid % 2 == 1));
		if (pid % 2 == 0) {
			ck_assert_ptr_eq(s, kept[pid / 2]);
			ck_assert_uint_eq(s->count, 2);
		}
	}
	pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 3000);
	/* all kept: nothing dropped */
	ck_assert_int_eq(pk_stack_agg_retain(agg, keep_all, count_drop, &dropped), 0);
	ck_assert_int_eq(dropped, 1500);
	pk_stack_agg_entries(agg, &n);
	ck_assert_uint_eq(n, 3000);
	pk_stack_agg_free(agg);
}
END_TEST

Suite *suite_stack_agg(void)
{
	Suite *s = suite_create("stack_agg");
	TCase *tc = tcase_create("aggregate");

	tcase_add_test(tc, test_identical_counted_once);
	tcase_add_test(tc, test_cgroup_apart);
	tcase_add_test(tc, test_distinct_keys);
	tcase_add_test(tc, test_seal_pid);
	tcase_add_test(tc, test_comm_after_nul);
	tcase_add_test(tc, test_unaligned_frames);
	tcase_add_test(tc, test_python_frames);
	tcase_add_test(tc, test_growth);
	tcase_add_test(tc, test_retain);
	suite_add_tcase(s, tc);
	return s;
}
