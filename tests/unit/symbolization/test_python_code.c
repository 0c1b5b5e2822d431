// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Python code objects and their lines. The line table decoder is checked
 * against CPython 3.11 itself: for every code object of a few real modules
 * and of a source written to reach every kind of entry, the line
 * co_positions() and co_lines() give each code unit is the line
 * pk_py_linetable_line gives.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "lib/util/text.h"
#include "symbolization/python_code.h"
#include "test_util.h"

#define PY311 "/usr/bin/python3.11"
#define V311 0x030b02f0

/* Prints, per code object: "C FIRSTLINENO HEX_LINETABLE UNITS", then "P"
 * and the line of each code unit by co_positions(), then "L" and co_lines()'s
 * (start, end, line) triples; a line None as 0. */
static const char oracle_py[] =
	"import sys, types, argparse, json.decoder, textwrap, dataclasses\n"
	"SRC = '''\n"
	"import os\n"
	"\n\n\n\n\n\n\n\n\n\n"
	"def far(a, b):\n"
	"    x = [a,\n"
	"         b,\n"
	"\n\n\n"
	"         a + b]\n"
	"    for i in range(3):\n"
	"        try:\n"
	"            x.append(i / (i - 1))\n"
	"        except ZeroDivisionError as e:\n"
	"            x.append(None)\n"
	"        finally:\n"
	"            pass\n"
	"    with open(os.devnull) as f:\n"
	"        y = f.read()\n"
	"    " "z" " = " "'" "%s" "'" " + a\n"
	"    return (lambda q: q * 2)(x)\n"
	"class K:\n"
	"    def m(self, *args, **kw):\n"
	"        async def inner():\n"
	"            await self.m()\n"
	"        return [i for i in args if i] + list({k: v for k, v in kw.items()})\n"
	"    @property\n"
	"    def p(self):\n"
	"        yield from range(3)\n"
	"'''\n"
	"SRC = SRC.replace('%s', 'w' * 300)\n"
	"SRC = SRC.replace('\\nclass K', '\\n' * 700 + 'class K')\n"
	"def walk(co):\n"
	"    yield co\n"
	"    for c in co.co_consts:\n"
	"        if isinstance(c, types.CodeType):\n"
	"            yield from walk(c)\n"
	"tops = [compile(SRC, '/tmp/oracle.py', 'exec')]\n"
	"for m in (argparse, json.decoder, textwrap, dataclasses):\n"
	"    tops.append(compile(open(m.__file__).read(), m.__file__, 'exec'))\n"
	"for top in tops:\n"
	"    for co in walk(top):\n"
	"        n = len(co.co_code) // 2\n"
	"        print('C', co.co_firstlineno, co.co_linetable.hex() or '-', n)\n"
	"        print('P', *[p[0] or 0 for p in co.co_positions()])\n"
	"        print('L', *[v or 0 for t in co.co_lines() for v in t])\n";

static size_t unhex(const char *hex, __u8 *out)
{
	size_t n = 0;

	if (strcmp(hex, "-") == 0)
		return 0;
	for (; hex[0] && hex[1]; hex += 2)
		out[n++] = (__u8)(pk_hexval(hex[0]) << 4 | pk_hexval(hex[1]));
	return n;
}

/* Every line of every code unit of the oracle's code objects, by
 * co_positions() and by co_lines(); and every cut of every table (what a
 * PK_PY_LINES_TRUNC table is) gives each unit its line or 0, never
 * another. */
START_TEST(test_oracle)
{
	char *argv[] = { PY311, "-c", (char *)oracle_py, NULL };
	char *out = NULL, *err = NULL, *save = NULL, *line;
	size_t codes = 0, units = 0, nones = 0;
	__u8 *table = NULL;
	size_t tlen = 0;
	long first = 0, nunits = 0;
	int status = pk_test_run(argv, &out, &err);

	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "python3.11: %s", err);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *tok, *s2 = NULL;

		if (line[0] == 'C') {
			char hex[1 << 17];

			ck_assert_int_eq(sscanf(line, "C %ld %131071s %ld", &first, hex, &nunits), 3);
			free(table);
			table = malloc(strlen(hex) / 2 + 1);
			ck_assert_ptr_nonnull(table);
			tlen = unhex(hex, table);
			codes++;
		} else if (line[0] == 'P') {
			long i = 0;

			strtok_r(line, " ", &s2);
			while ((tok = strtok_r(NULL, " ", &s2))) {
				__u32 want = (__u32)strtoul(tok, NULL, 10);

				ck_assert_msg(pk_py_linetable_line(table, tlen, (__s32)first, (__u32)i) ==
					      want, "code %zu unit %ld: %u, CPython %u", codes, i,
					      pk_py_linetable_line(table, tlen, (__s32)first, (__u32)i),
					      want);
				nones += want == 0;
				/* a cut table says that line or none */
				for (size_t cut = 0; i < 32 && cut < tlen && cut < 64; cut++) {
					__u32 got = pk_py_linetable_line(table, cut, (__s32)first,
									 (__u32)i);

					ck_assert(got == 0 || got == want);
				}
				i++;
				units++;
			}
			ck_assert_int_eq(i, nunits);
			/* past the last unit: none */
			ck_assert_uint_eq(pk_py_linetable_line(table, tlen, (__s32)first,
							       (__u32)nunits), 0);
		} else if (line[0] == 'L') {
			strtok_r(line, " ", &s2);
			while ((tok = strtok_r(NULL, " ", &s2))) {
				unsigned long start = strtoul(tok, NULL, 10);
				unsigned long end = strtoul(strtok_r(NULL, " ", &s2), NULL, 10);
				__u32 want = (__u32)strtoul(strtok_r(NULL, " ", &s2), NULL, 10);

				for (unsigned long b = start; b < end; b += 2)
					ck_assert_uint_eq(pk_py_linetable_line(table, tlen,
									       (__s32)first,
									       (__u32)(b / 2)),
							  want);
			}
		}
	}
	/* the oracle reached what it is for: many code objects (322 here),
	 * some units without a line */
	ck_assert_uint_ge(codes, 300);
	ck_assert_uint_ge(units, 20000);
	ck_assert_uint_gt(nones, 0);
	free(table);
	free(out);
	free(err);
}
END_TEST

/* Entries written by hand, one of each kind (Objects/locations.md). */
START_TEST(test_entry_kinds)
{
	const __u8 t[] = {
		0x80 | 0 << 3 | 1, 0x00,		/* short form, 2 units: line 10 */
		0x80 | 11 << 3 | 0, 4, 9,		/* one line form, +1: 11 */
		0x80 | 13 << 3 | 0, 0x03,		/* no columns, svarint -1: 10 */
		0x80 | 15 << 3 | 2,			/* no location, 3 units */
		0x80 | 14 << 3 | 0, 0x48, 0x03, 0x00, 0x01, 0x02, /* long, +100: 110 */
		0x80 | 12 << 3 | 0, 1, 2,		/* one line form, +2: 112 */
	};

	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 0), 10);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 1), 10);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 2), 11);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 3), 10);
	for (__u32 i = 4; i < 7; i++)
		ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, i), 0);
	/* the delta after an entry without a location counts from the last
	 * line: 10 + 100 */
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 7), 110);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 8), 112);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 10, 9), 0);
	/* an entry cut short says nothing: the long form without its end
	 * column, the one line form without its second column */
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t) - 3 - 1, 10, 7), 0);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t) - 1, 10, 8), 0);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t) - 1, 10, 7), 110);
	/* the table does not start with an entry */
	ck_assert_uint_eq(pk_py_linetable_line(t + 1, sizeof(t) - 1, 10, 0), 0);
	/* lines at or below 0 are none */
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), 0, 0), 0);
	ck_assert_uint_eq(pk_py_linetable_line(t, sizeof(t), -5, 7), 95);
	ck_assert_uint_eq(pk_py_linetable_line(NULL, 0, 10, 0), 0);
}
END_TEST

/* Varints that do not fit 32 bits, or run to the end, are malformed. */
START_TEST(test_bad_varints)
{
	const __u8 wide[] = { 0x80 | 13 << 3, 0x7f, 0x7f, 0x7f, 0x7f, 0x7f, 0x3f };
	const __u8 open[] = { 0x80 | 13 << 3, 0x7f, 0x7f };
	const __u8 ok[] = { 0x80 | 13 << 3, 0x42, 0x01, 0x80 | 0, 0 };	/* +33 */

	ck_assert_uint_eq(pk_py_linetable_line(wide, sizeof(wide), 1, 0), 0);
	ck_assert_uint_eq(pk_py_linetable_line(open, sizeof(open), 1, 0), 0);
	ck_assert_uint_eq(pk_py_linetable_line(ok, sizeof(ok), 1, 0), 34);
	ck_assert_uint_eq(pk_py_linetable_line(ok, sizeof(ok), 1, 1), 34);
	/* lines that leave every file's range */
	{
		__u8 big[80];
		size_t n = 0;

		for (int i = 0; i < 10; i++) {
			/* +2^30 each: svarint 2^31, 6 chunks */
			big[n++] = 0x80 | 13 << 3;
			big[n++] = 0x40;
			big[n++] = 0x40;
			big[n++] = 0x40;
			big[n++] = 0x40;
			big[n++] = 0x40;
			big[n++] = 0x02;
		}
		ck_assert_uint_eq(pk_py_linetable_line(big, n, 1, 0), (1u << 30) + 1);
		ck_assert_uint_eq(pk_py_linetable_line(big, n, 1, 1), 0);
		ck_assert_uint_eq(pk_py_linetable_line(big, n, 1, 9), 0);
	}
}
END_TEST

static struct pk_py_code_desc desc(__u32 pid, __u64 code, const char *name, const char *file)
{
	static const __u8 lt[] = { 0x80 | 0 << 3 | 1, 0x00, 0x80 | 12 << 3, 1, 2 };

	return (struct pk_py_code_desc){
		.pid = pid, .version = V311, .code = code, .firstlineno = 20,
		.firsttraceable = 1, .name = name, .name_len = strlen(name), .file = file,
		.file_len = strlen(file), .linetable = lt, .linetable_len = sizeof(lt),
	};
}

START_TEST(test_registry)
{
	struct pk_py_codes *codes = pk_py_codes_new();
	struct pk_py_code_desc d = desc(42, 0x7f0000001000, "Job.run", "/srv/app/job.py");
	const struct pk_py_code *c, *c2;

	ck_assert_ptr_nonnull(codes);
	ck_assert_ptr_null(pk_py_codes_find(codes, 42, 0x7f0000001000));
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	c = pk_py_codes_find(codes, 42, 0x7f0000001000);
	ck_assert_ptr_nonnull(c);
	ck_assert_str_eq(c->qualname, "Job.run");
	ck_assert_str_eq(c->file, "/srv/app/job.py");
	ck_assert_int_eq(c->firstlineno, 20);
	ck_assert_uint_eq(pk_py_code_line(c, 1), 20);
	ck_assert_uint_eq(pk_py_code_line(c, 2), 20);
	ck_assert_uint_eq(pk_py_code_line(c, 3), 22);
	ck_assert_uint_eq(pk_py_code_line(c, 4), 0);
	/* before the first instruction: the first line, as CPython says */
	ck_assert_uint_eq(pk_py_code_line(c, 0), 20);
	ck_assert_uint_eq(pk_py_code_line(c, PK_PY_INSTR_UNKNOWN), 0);
	/* the same report again changes nothing */
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	ck_assert_ptr_eq(pk_py_codes_find(codes, 42, 0x7f0000001000), c);
	/* another process's code at the same address is its own */
	d = desc(43, 0x7f0000001000, "other", "/srv/other.py");
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	ck_assert_str_eq(pk_py_codes_find(codes, 43, 0x7f0000001000)->qualname, "other");
	ck_assert_uint_eq(pk_py_codes_count(codes), 2);
	/* a new code at a freed one's address: the latest wins, the old
	 * entry's names stay valid for what holds them */
	d = desc(42, 0x7f0000001000, "Job.stop", "/srv/app/job.py");
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 1);
	c2 = pk_py_codes_find(codes, 42, 0x7f0000001000);
	ck_assert_str_eq(c2->qualname, "Job.stop");
	ck_assert_uint_ne(c2->serial, c->serial);
	ck_assert_str_eq(c->qualname, "Job.run");
	ck_assert_uint_eq(pk_py_codes_count(codes), 2);
	/* a version whose table this reader does not read: no line */
	d = desc(42, 0x7f0000002000, "f", "a.py");
	d.version = 0x030a08f0;
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	ck_assert_uint_eq(pk_py_code_line(pk_py_codes_find(codes, 42, 0x7f0000002000), 1), 0);
	ck_assert(!pk_py_linetable_known(0x030a08f0));
	ck_assert(pk_py_linetable_known(0x030b00a1));
	ck_assert(pk_py_linetable_known(0x030d05f0));
	ck_assert(pk_py_linetable_known(0x030e0af0));
	ck_assert(!pk_py_linetable_known(0x030f00a1));
	ck_assert(!pk_py_linetable_known(0x040b0000));
	/* forgotten with its process, the other kept */
	pk_py_codes_forget_pid(codes, 42);
	ck_assert_ptr_null(pk_py_codes_find(codes, 42, 0x7f0000001000));
	ck_assert_ptr_nonnull(pk_py_codes_find(codes, 43, 0x7f0000001000));
	ck_assert_uint_eq(pk_py_codes_count(codes), 1);
	pk_py_codes_forget_pid(codes, 42);
	pk_py_codes_free(codes);
	pk_py_codes_free(NULL);
}
END_TEST

START_TEST(test_strings)
{
	struct pk_py_codes *codes = pk_py_codes_new();
	struct pk_py_code_desc d = desc(1, 0x1000, "caf\xe9.\xfc" "ber", "/srv/\xe9t\xe9/x.py");
	const struct pk_py_code *c;

	/* Latin-1 to UTF-8 */
	d.flags = PK_PY_NAME_LATIN1 | PK_PY_FILE_LATIN1;
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	c = pk_py_codes_find(codes, 1, 0x1000);
	ck_assert_str_eq(c->qualname, "caf\xc3\xa9.\xc3\xbc" "ber");
	ck_assert_str_eq(c->file, "/srv/\xc3\xa9t\xc3\xa9/x.py");
	/* a control character would end a line of folded or perf text */
	d = desc(1, 0x2000, "a\nb\x7f", "f\tg.py");
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	c = pk_py_codes_find(codes, 1, 0x2000);
	ck_assert_str_eq(c->qualname, "a?b?");
	ck_assert_str_eq(c->file, "f?g.py");
	/* unreadable strings: none */
	d = desc(1, 0x3000, "", "");
	d.flags = PK_PY_NAME_UNREADABLE | PK_PY_FILE_UNREADABLE;
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	c = pk_py_codes_find(codes, 1, 0x3000);
	ck_assert_ptr_null(c->qualname);
	ck_assert_ptr_null(c->file);
	/* a truncated file name kept its end: said so */
	d = desc(1, 0x4000, "f", "lib/python3.11/site-packages/x.py");
	d.flags = PK_PY_FILE_TRUNC | PK_PY_NAME_TRUNC;
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	c = pk_py_codes_find(codes, 1, 0x4000);
	ck_assert_str_eq(c->file, "...lib/python3.11/site-packages/x.py");
	ck_assert_str_eq(c->qualname, "f");
	/* a truncated line table: what it has, then none */
	d = desc(1, 0x5000, "f", "x.py");
	d.linetable_len = 2;
	d.flags = PK_PY_LINES_TRUNC;
	ck_assert_int_eq(pk_py_codes_add(codes, &d), 0);
	c = pk_py_codes_find(codes, 1, 0x5000);
	ck_assert_uint_eq(pk_py_code_line(c, 2), 20);
	ck_assert_uint_eq(pk_py_code_line(c, 3), 0);
	pk_py_codes_free(codes);
}
END_TEST

Suite *suite_python_code(void)
{
	Suite *s = suite_create("python_code");
	TCase *tc = tcase_create("lines");

	tcase_add_test(tc, test_entry_kinds);
	tcase_add_test(tc, test_bad_varints);
	suite_add_tcase(s, tc);
	tc = tcase_create("oracle");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_oracle);
	suite_add_tcase(s, tc);
	tc = tcase_create("registry");
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_strings);
	suite_add_tcase(s, tc);
	return s;
}
