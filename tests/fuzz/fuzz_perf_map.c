// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * /tmp/perf-PID.map is written by the process being profiled. The first
 * input byte is the size of the pieces the rest is fed in (0: whole), as
 * reads cut a file anywhere: a map fed in pieces must equal the map fed at
 * once, in its counts and at every address probed: each hex number in the
 * input, one past it, each sum of two in a row (an end), what those find
 * and the byte before. Built with a line limit of 200
 * bytes (tests/fuzz.mk) so that long lines are in reach.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "symbolization/perf_map.h"

static struct pk_perf_map *build(const char *text, size_t len, size_t piece)
{
	struct pk_perf_map *m = pk_perf_map_new();

	if (!m)
		abort();
	for (size_t off = 0; off < len; off += piece)
		if (pk_perf_map_feed(m, text + off, len - off < piece ? len - off : piece))
			abort();
	if (pk_perf_map_finish(m))
		abort();
	return m;
}

static void probe(const struct pk_perf_map *a, const struct pk_perf_map *b, __u64 addr, int depth)
{
	__u64 sa = 0, sb = 0;
	const char *na = pk_perf_map_lookup(a, addr, &sa);
	const char *nb = pk_perf_map_lookup(b, addr, &sb);

	if (!na != !nb)
		abort();
	if (!na)
		return;
	/* the same line named it; it starts at or before ADDR; never "" */
	if (strcmp(na, nb) || sa != sb || sa > addr || !*na)
		abort();
	if (depth) {
		probe(a, b, sa, 0);
		probe(a, b, sa - 1, 0);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct pk_perf_map_stats *sa, *sb;
	struct pk_perf_map *a, *b;
	const char *text;
	__u64 prev = 0;
	size_t len;

	if (size < 1)
		return 0;
	text = (const char *)data + 1;
	len = size - 1;
	a = build(text, len, len ? len : 1);
	b = build(text, len, data[0] ? data[0] : (len ? len : 1));
	sa = pk_perf_map_stats(a);
	sb = pk_perf_map_stats(b);
	if (sa->entries != sb->entries || sa->garbage != sb->garbage ||
	    sa->too_long != sb->too_long || sa->pending != sb->pending ||
	    sa->ranges != sb->ranges || sa->bytes != len || sb->bytes != len)
		abort();
	if (sa->pending > PK_PERF_MAP_LINE_MAX || sa->ranges > 2 * sa->entries)
		abort();
	probe(a, b, 0, 1);
	probe(a, b, ~0ULL, 1);
	for (size_t i = 0; i < len;) {
		__u64 v = 0;
		size_t n = 0;

		if (text[i] == '0' && i + 1 < len && (text[i + 1] == 'x' || text[i + 1] == 'X'))
			i += 2;
		for (; i < len && strchr("0123456789abcdefABCDEF", text[i]) && text[i]; i++, n++)
			v = v << 4 | (__u64)(text[i] <= '9' ? text[i] - '0' : (text[i] | 0x20) - 'a' + 10);
		if (!n) {
			i++;
			continue;
		}
		probe(a, b, v, 1);
		probe(a, b, v + 1, 1);
		probe(a, b, prev + v, 1);
		probe(a, b, prev + v - 1, 1);
		prev = v;
	}
	pk_perf_map_free(a);
	pk_perf_map_free(b);
	return 0;
}
