// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * table_file.c: a written table reads back byte for byte; every corrupted
 * header field, every flipped payload byte, every truncation and a trailing
 * byte are detected (-EBADMSG); writing is atomic and leaves no temporary
 * file behind, even when it fails.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "eh_frame/eh_internal.h"
#include "test_util.h"
#include "unit/eh_frame/test_eh_util.h"

static char dir[64];
static char path[128];

static void setup(void)
{
	eh_tmpdir(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/t.unwind", dir);
}

static void teardown(void)
{
	eh_rmtree(dir);
}

static int entries(const char *d_path)
{
	DIR *d = opendir(d_path);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* A small table with a few rows and rules. */
static struct eh_unwind_table *small_table(void)
{
	struct cfi_blob *b = malloc(sizeof(*b));
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];
	size_t cie;

	blob_init(b, 0x200000);
	cie = eh_cie(b, "zR", 1, -8, INSNS(CIE_X86_64));
	eh_fde(b, cie, "zR", 0x1000, 0x20, INSNS(ADV(1), DEF_CFA_OFS, 16, OFS(RBP), 2,
						 ADV(4), DEF_CFA_REG, RBP));
	eh_fde(b, cie, "zR", 0x1040, 0x10, INSNS(UNDEF, RA));
	ck_assert_int_eq(eh_unwind_table_from_section(b->buf, b->n, b->vaddr, true, &t, err), 0);
	free(b);
	return t;
}

static void write_bytes(const void *buf, size_t len)
{
	FILE *f = fopen(path, "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(fwrite(buf, 1, len, f), len);
	fclose(f);
}

static int open_result(char err[PK_ERR_LEN])
{
	struct eh_unwind_table *t = NULL;
	int ret = eh_unwind_table_open(path, &t, err);

	if (!ret)
		eh_unwind_table_free(t);
	else
		ck_assert_ptr_null(t);
	return ret;
}

START_TEST(test_round_trip)
{
	struct eh_unwind_table *t = small_table(), *r = NULL;
	char err[PK_ERR_LEN];
	char *a, *b;

	ck_assert_int_eq(eh_unwind_table_write(t, path, err), 0);
	ck_assert_int_eq(eh_unwind_table_open(path, &r, err), 0);
	ck_assert_uint_eq(eh_unwind_table_size(r), eh_unwind_table_size(t));
	ck_assert_int_eq(memcmp(eh_unwind_table_header(r), eh_unwind_table_header(t),
				eh_unwind_table_size(t)), 0);
	a = eh_rows_text(t);
	b = eh_rows_text(r);
	ck_assert_str_eq(a, b);
	ck_assert_str_eq(a, ROW("1000", "rsp+8 u c-8") ROW("1001", "rsp+16 c-16 c-8")
			 ROW("1005", "rbp+16 c-16 c-8") END("1020")
			 ROW("1040", "rsp+8 u u") END("1050"));
	free(a);
	free(b);
	eh_unwind_table_free(t);
	eh_unwind_table_free(r);
}
END_TEST

START_TEST(test_dump_header_comments)
{
	struct eh_unwind_table *t = small_table();
	char *all = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&all, &len);

	ck_assert_int_eq(eh_unwind_table_dump(t, f), 0);
	fclose(f);
	ck_assert_msg(!strncmp(all, "# probekit unwind table v2 arch 62 build-id none\n"
			       "# rows 6 rules 5 bytes ", 71), "%s", all);
	free(all);
	eh_unwind_table_free(t);
}
END_TEST

/* Each byte in [FROM, TO) of the small table's file, XORed with MASK, must
 * make it corrupt: -EBADMSG and a message WANT (EXACT) or starting with it. */
static void expect_each_byte_checked(size_t from, size_t to, unsigned char mask,
				     const char *want, bool exact)
{
	struct eh_unwind_table *t = small_table();
	const unsigned char *orig = (const void *)eh_unwind_table_header(t);
	size_t size = eh_unwind_table_size(t), i;
	unsigned char *copy = malloc(size);
	char err[PK_ERR_LEN];

	ck_assert_ptr_nonnull(copy);
	if (to > size)
		to = size;
	for (i = from; i < to; i++) {
		memcpy(copy, orig, size);
		copy[i] ^= mask;
		write_bytes(copy, size);
		ck_assert_msg(open_result(err) == -EBADMSG, "byte %zu not checked", i);
		ck_assert_msg(exact ? !strcmp(err, want) :
			      !strncmp(err, want, strlen(want)),
			      "byte %zu: '%s', wanted '%s'", i, err, want);
	}
	free(copy);
	eh_unwind_table_free(t);
}

START_TEST(test_every_header_byte_checked)
{
	expect_each_byte_checked(0, sizeof(struct pk_unwind_header), 0x01,
				 "corrupt table: ", false);
}
END_TEST

START_TEST(test_every_payload_byte_checked)
{
	expect_each_byte_checked(sizeof(struct pk_unwind_header), SIZE_MAX, 0x80,
				 "corrupt table: checksum mismatch", true);
}
END_TEST

START_TEST(test_truncation_and_trailing_bytes)
{
	struct eh_unwind_table *t = small_table();
	const unsigned char *orig = (const void *)eh_unwind_table_header(t);
	size_t size = eh_unwind_table_size(t), n;
	unsigned char *bigger = calloc(1, size + 1);
	char err[PK_ERR_LEN];

	for (n = 0; n < size; n++) {
		write_bytes(orig, n);
		ck_assert_msg(open_result(err) == -EBADMSG, "truncation to %zu not detected", n);
	}
	write_bytes(orig, 10);
	open_result(err);
	ck_assert_str_eq(err, "corrupt table: truncated header");
	write_bytes(orig, size - 1);
	open_result(err);
	ck_assert_str_eq(err, "corrupt table: file size does not match the header (truncated?)");

	memcpy(bigger, orig, size);
	write_bytes(bigger, size + 1);
	ck_assert_int_eq(open_result(err), -EBADMSG);
	free(bigger);
	eh_unwind_table_free(t);
}
END_TEST

START_TEST(test_open_missing_and_directory)
{
	struct eh_unwind_table *t = NULL;
	char err[PK_ERR_LEN];

	ck_assert_int_eq(eh_unwind_table_open(path, &t, err), -ENOENT);
	ck_assert_int_eq(eh_unwind_table_open(dir, &t, err), -EBADMSG);
	ck_assert_ptr_null(t);
}
END_TEST

START_TEST(test_atomic_write_leaves_no_temp)
{
	struct eh_unwind_table *t = small_table();
	char err[PK_ERR_LEN];
	char bad[160];
	struct stat st;

	ck_assert_int_eq(eh_unwind_table_write(t, path, err), 0);
	ck_assert_int_eq(eh_unwind_table_write(t, path, err), 0);	/* replace */
	ck_assert_int_eq(entries(dir), 1);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_uint_eq(st.st_mode & 0777, 0644);

	/* rename onto a directory fails: the temporary file must go */
	snprintf(bad, sizeof(bad), "%s/sub", dir);
	ck_assert_int_eq(mkdir(bad, 0755), 0);
	ck_assert_int_lt(eh_unwind_table_write(t, bad, err), 0);
	ck_assert_int_eq(entries(dir), 2);
	rmdir(bad);

	/* a directory that does not exist: nothing is created */
	snprintf(bad, sizeof(bad), "%s/none/t.unwind", dir);
	ck_assert_int_eq(eh_unwind_table_write(t, bad, err), -ENOENT);
	ck_assert_int_eq(entries(dir), 1);
	eh_unwind_table_free(t);
}
END_TEST

START_TEST(test_checksum_properties)
{
	unsigned char a[200] = { 0 }, b[200] = { 0 };

	/* the checksum field itself does not take part */
	memset(a + offsetof(struct pk_unwind_header, checksum), 0xab, 8);
	ck_assert_uint_eq(eh_table_checksum(a, sizeof(a)), eh_table_checksum(b, sizeof(b)));
	b[199] = 1;
	ck_assert_uint_ne(eh_table_checksum(a, sizeof(a)), eh_table_checksum(b, sizeof(b)));
	/* length is mixed in: trailing zeros change the hash */
	ck_assert_uint_ne(eh_hash_final(eh_hash_update(EH_HASH_INIT, a, 8), 8),
			  eh_hash_final(eh_hash_update(EH_HASH_INIT, a, 16), 16));
}
END_TEST

Suite *suite_eh_file(void)
{
	Suite *s = suite_create("eh_file");
	TCase *tc;

	tc = tcase_create("round_trip");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_dump_header_comments);
	suite_add_tcase(s, tc);

	tc = tcase_create("corruption");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_every_header_byte_checked);
	tcase_add_test(tc, test_every_payload_byte_checked);
	tcase_add_test(tc, test_truncation_and_trailing_bytes);
	tcase_add_test(tc, test_open_missing_and_directory);
	tcase_add_test(tc, test_checksum_properties);
	suite_add_tcase(s, tc);

	tc = tcase_create("atomic_write");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_atomic_write_leaves_no_temp);
	suite_add_tcase(s, tc);
	return s;
}
