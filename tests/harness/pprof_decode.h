/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A pprof file decoded by the generic protobuf-c unpacker (every field,
 * exactly): for the fields `go tool pprof -raw` prints rounded or not at
 * all.
 */
#ifndef PK_TEST_PPROF_DECODE_H
#define PK_TEST_PPROF_DECODE_H

#include <stddef.h>

#include "gen/profile.pb-c.h"

/* Gunzip BUF (a gzip stream, checked) and unpack the message; a failed
 * check fails the test. Free with
 * perftools__profiles__profile__free_unpacked(). */
Perftools__Profiles__Profile *pk_test_pprof_decode(const unsigned char *buf, size_t len);

/* pk_test_pprof_decode() of the file at PATH (there, or the test fails). */
Perftools__Profiles__Profile *pk_test_pprof_load(const char *path);

/* String I of P's table; one out of it fails the test. */
const char *pk_test_pprof_str(const Perftools__Profiles__Profile *p, int64_t i);

/* The function of id ID in P; none fails the test. */
const Perftools__Profiles__Function *pk_test_pprof_function(const Perftools__Profiles__Profile *p,
							    uint64_t id);

/* The location of id ID in P; none fails the test. */
const Perftools__Profiles__Location *pk_test_pprof_location(const Perftools__Profiles__Profile *p,
							    uint64_t id);

#endif
