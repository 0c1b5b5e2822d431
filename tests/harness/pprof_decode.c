// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <check.h>
#include <stdlib.h>
#include <zlib.h>

#include "harness/pprof_decode.h"
#include "test_util.h"

Perftools__Profiles__Profile *pk_test_pprof_decode(const unsigned char *buf, size_t len)
{
	Perftools__Profiles__Profile *msg;
	z_stream z = { 0 };
	size_t cap = 1 << 16, n = 0;
	unsigned char *out = malloc(cap);
	int ret;

	/* gzip: magic 1f 8b, method 8 (deflate) */
	ck_assert_uint_gt(len, 18);
	ck_assert_uint_eq(buf[0], 0x1f);
	ck_assert_uint_eq(buf[1], 0x8b);
	ck_assert_uint_eq(buf[2], 8);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(inflateInit2(&z, 16 + 15), Z_OK);	/* gzip only */
	z.next_in = (Bytef *)buf;
	z.avail_in = len;
	do {
		if (n == cap)
			ck_assert_ptr_nonnull(out = realloc(out, cap *= 2));
		z.next_out = out + n;
		z.avail_out = cap - n;
		ret = inflate(&z, Z_NO_FLUSH);
		ck_assert_msg(ret == Z_OK || ret == Z_STREAM_END, "inflate: %d", ret);
		n = cap - z.avail_out;
	} while (ret != Z_STREAM_END);
	ck_assert_uint_eq(z.avail_in, 0);	/* nothing after the stream */
	inflateEnd(&z);
	msg = perftools__profiles__profile__unpack(NULL, n, out);
	ck_assert_msg(msg, "protobuf-c could not unpack the profile");
	free(out);
	return msg;
}

const Perftools__Profiles__Function *pk_test_pprof_function(const Perftools__Profiles__Profile *p,
							    uint64_t id)
{
	for (size_t i = 0; i < p->n_function; i++)
		if (p->function[i]->id == id)
			return p->function[i];
	ck_abort_msg("no function %llu", (unsigned long long)id);
	return NULL;
}

Perftools__Profiles__Profile *pk_test_pprof_load(const char *path)
{
	Perftools__Profiles__Profile *p;
	unsigned char *buf;
	size_t len;

	buf = (unsigned char *)pk_test_read_file(path, &len);
	ck_assert_msg(buf, "%s: no pprof", path);
	/* the unpacked message holds copies of its strings */
	p = pk_test_pprof_decode(buf, len);
	free(buf);
	return p;
}

const Perftools__Profiles__Location *pk_test_pprof_location(const Perftools__Profiles__Profile *p,
							    uint64_t id)
{
	for (size_t i = 0; i < p->n_location; i++)
		if (p->location[i]->id == id)
			return p->location[i];
	ck_abort_msg("no location %llu", (unsigned long long)id);
	return NULL;
}

const char *pk_test_pprof_str(const Perftools__Profiles__Profile *p, int64_t i)
{
	ck_assert_int_ge(i, 0);
	ck_assert_uint_lt((size_t)i, p->n_string_table);
	return p->string_table[i];
}
