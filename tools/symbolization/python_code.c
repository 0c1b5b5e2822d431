// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/util/strpool.h"
#include "lib/util/u64map.h"
#include "symbolization/python_code.h"

/* --- the location table ---------------------------------------------------- */

/* The kinds of entry (CPython's _PyCodeLocationInfoKind): 0-9 short forms,
 * 10-12 one line forms. */
#define LOC_ONE_LINE0	10
#define LOC_NO_COLUMNS	13
#define LOC_LONG	14
#define LOC_NONE	15

/* Lines past this are no line a file has: a table that gets there is
 * malformed. */
#define LINE_MAX_SANE	((__s64)1 << 31)

/* An unsigned varint (6-bit chunks, least significant first, bit 6: more
 * follow) from *P, within the entry ending at END. False when it runs past
 * END or does not fit 32 bits. */
static bool read_varint(const __u8 **p, const __u8 *end, __u32 *v)
{
	__u64 val = 0;

	for (unsigned int shift = 0; shift <= 30; shift += 6) {
		__u8 b;

		if (*p >= end)
			return false;
		b = *(*p)++;
		val |= (__u64)(b & 63) << shift;
		if (!(b & 64)) {
			if (val > UINT32_MAX)
				return false;
			*v = (__u32)val;
			return true;
		}
	}
	return false;
}

static bool read_svarint(const __u8 **p, const __u8 *end, __s64 *v)
{
	__u32 u;

	if (!read_varint(p, end, &u))
		return false;
	*v = u & 1 ? -(__s64)(u >> 1) : (__s64)(u >> 1);
	return true;
}

/* The line delta of the entry whose first byte was FIRST and whose other
 * bytes are [*P, END): its columns are read too, so that an entry cut
 * short (a truncated table) is found out. False when malformed; *HAS_LINE
 * false for an entry without a location. */
static bool entry_delta(__u8 first, const __u8 *p, const __u8 *end, __s64 *delta,
			bool *has_line)
{
	unsigned int code = first >> 3 & 15;
	__u32 skip;

	*delta = 0;
	*has_line = true;
	switch (code) {
	case LOC_NONE:
		*has_line = false;
		return true;
	case LOC_LONG:
		return read_svarint(&p, end, delta) && read_varint(&p, end, &skip) &&
		       read_varint(&p, end, &skip) && read_varint(&p, end, &skip);
	case LOC_NO_COLUMNS:
		return read_svarint(&p, end, delta);
	default:
		/* one line forms: the delta in the code, two column bytes;
		 * short forms: one byte of columns */
		if (code >= LOC_ONE_LINE0)
			*delta = code - LOC_ONE_LINE0;
		return end - p >= (code >= LOC_ONE_LINE0 ? 2 : 1);
	}
}

__u32 pk_py_linetable_line(const __u8 *table, size_t len, __s32 firstlineno, __u32 index)
{
	const __u8 *p = table, *end = table + len;
	__s64 line = firstlineno;
	__u64 unit = 0;

	while (p < end) {
		__u8 first = *p++;
		const __u8 *next = p;
		unsigned int n = (first & 7) + 1;	/* code units covered */
		bool has_line;
		__s64 delta;

		/* an entry starts with bit 7 set, its other bytes have it clear */
		if (!(first & 0x80))
			return 0;
		while (next < end && !(*next & 0x80))
			next++;
		if (!entry_delta(first, p, next, &delta, &has_line))
			return 0;
		/* an entry without a location leaves the line as it was:
		 * the next delta counts from the last start line */
		line += delta;
		if (line <= -LINE_MAX_SANE || line >= LINE_MAX_SANE)
			return 0;
		if (index < unit + n)
			return has_line && line > 0 ? (__u32)line : 0;
		unit += n;
		p = next;
	}
	return 0;
}

__u32 pk_py_code_line(const struct pk_py_code *code, __u32 instr_plus_one)
{
	if (instr_plus_one == PK_PY_INSTR_UNKNOWN || !pk_py_linetable_known(code->version))
		return 0;
	/* before the first instruction, CPython's PyCode_Addr2Line says the
	 * first line */
	if (instr_plus_one == 0)
		return code->firstlineno > 0 ? (__u32)code->firstlineno : 0;
	return pk_py_linetable_line(code->linetable, code->linetable_len, code->firstlineno,
				    instr_plus_one - 1);
}

/* --- the registry ---------------------------------------------------------- */

/* One process's code objects. */
struct pyproc {
	struct pk_u64map codes;		/* code address -> struct pk_py_code */
	struct pk_strpool pool;		/* the entries, their strings, also
					 * those replaced */
};

struct pk_py_codes {
	struct pk_u64map procs;		/* pid -> struct pyproc */
	__u64 serial;
	size_t n;
};

struct pk_py_codes *pk_py_codes_new(void)
{
	return calloc(1, sizeof(struct pk_py_codes));
}

static void free_proc(struct pyproc *pp)
{
	pk_u64map_free(&pp->codes);
	pk_strpool_free(&pp->pool);
	free(pp);
}

void pk_py_codes_free(struct pk_py_codes *codes)
{
	if (!codes)
		return;
	pk_u64map_for_each(&codes->procs, it)
		free_proc(it.val);
	pk_u64map_free(&codes->procs);
	free(codes);
}

/* S[0..LEN) as UTF-8 into OUT (2 * LEN + 1 bytes), NUL-terminated:
 * CPython keeps a string whose characters all fit a byte as Latin-1 (ASCII
 * a subset), so every byte is a character of its own; a control character
 * would end a folded line or a perf text line, and becomes '?'. */
static void latin1_to_utf8(const char *s, size_t len, char *out)
{
	for (size_t i = 0; i < len; i++) {
		__u8 c = (__u8)s[i];

		if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
			*out++ = '?';
		} else if (c < 0x80) {
			*out++ = (char)c;
		} else {
			*out++ = (char)(0xc0 | c >> 6);
			*out++ = (char)(0x80 | (c & 0x3f));
		}
	}
	*out = '\0';
}

static bool same_str(const char *a, const char *b)
{
	return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

static bool same_code(const struct pk_py_code *c, const struct pk_py_code *d)
{
	return c->flags == d->flags && c->version == d->version &&
	       c->firstlineno == d->firstlineno && c->firsttraceable == d->firsttraceable &&
	       same_str(c->qualname, d->qualname) && same_str(c->file, d->file) &&
	       c->linetable_len == d->linetable_len &&
	       (!c->linetable_len || memcmp(c->linetable, d->linetable, c->linetable_len) == 0);
}

int pk_py_codes_add(struct pk_py_codes *codes, const struct pk_py_code_desc *d)
{
	struct pyproc *pp = pk_u64map_get(&codes->procs, d->pid);
	struct pk_py_code *old, *c, tmp = {
		.linetable = d->linetable, .linetable_len = d->linetable_len,
		.flags = d->flags, .version = d->version, .firstlineno = d->firstlineno,
		.firsttraceable = d->firsttraceable,
	};
	/* "..." before a truncated file name's end */
	size_t pre = d->flags & PK_PY_FILE_TRUNC ? 3 : 0;
	char *name = malloc(2 * (size_t)d->name_len + 1);
	char *file = malloc(pre + 2 * (size_t)d->file_len + 1);
	int ret = -ENOMEM;

	if (!name || !file)
		goto out;
	latin1_to_utf8(d->name, d->name_len, name);
	memcpy(file, "...", pre);
	latin1_to_utf8(d->file, d->file_len, file + pre);
	if (!(d->flags & PK_PY_NAME_UNREADABLE) && d->name_len)
		tmp.qualname = name;
	if (!(d->flags & PK_PY_FILE_UNREADABLE) && d->file_len)
		tmp.file = file;
	if (!pp) {
		pp = calloc(1, sizeof(*pp));
		if (!pp)
			goto out;
		if (pk_u64map_put(&codes->procs, d->pid, pp)) {
			free(pp);
			goto out;
		}
	}
	old = pk_u64map_get(&pp->codes, d->code);
	if (old && same_code(old, &tmp)) {
		ret = 0;
		goto out;
	}
	c = pk_strpool_zalloc(&pp->pool, sizeof(*c));
	if (!c)
		goto out;
	*c = tmp;
	c->serial = ++codes->serial;
	if ((tmp.qualname && !(c->qualname = pk_strpool_add(&pp->pool, name))) ||
	    (tmp.file && !(c->file = pk_strpool_add(&pp->pool, file))) ||
	    !(c->linetable = (const __u8 *)pk_strpool_addn(&pp->pool, (const char *)d->linetable,
							   d->linetable_len)) ||
	    pk_u64map_put(&pp->codes, d->code, c))
		goto out;
	codes->n += !old;
	ret = old ? 1 : 0;
out:
	free(name);
	free(file);
	return ret;
}

const struct pk_py_code *pk_py_codes_find(const struct pk_py_codes *codes, __u32 pid,
					  __u64 code)
{
	const struct pyproc *pp = pk_u64map_get(&codes->procs, pid);

	return pp ? pk_u64map_get(&pp->codes, code) : NULL;
}

void pk_py_codes_forget_pid(struct pk_py_codes *codes, __u32 pid)
{
	struct pyproc *pp = pk_u64map_del(&codes->procs, pid);

	if (!pp)
		return;
	codes->n -= pp->codes.n;
	free_proc(pp);
	pk_u64map_shrink(&codes->procs);	/* out of memory: as large as it was */
}

size_t pk_py_codes_count(const struct pk_py_codes *codes)
{
	return codes->n;
}
