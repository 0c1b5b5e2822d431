// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <libiberty/demangle.h>

#include "lib/util/text.h"
#include "symbolization/demangle.h"

/* Parameter lists and qualifiers, as c++filt prints them. No DMGL_VERBOSE:
 * that would print Rust's hashes and crate disambiguators, and spell out
 * std::string as std::basic_string<...> where the mangled name says "Ss". */
#define PK_DMGL (DMGL_PARAMS | DMGL_ANSI)

static const struct {
	char code[3];
	char c;
} legacy_named[] = {
	{ "SP", '@' }, { "BP", '*' }, { "RF", '&' }, { "LT", '<' },
	{ "GT", '>' }, { "LP", '(' }, { "RP", ')' }, { "C", ',' },
};

/* Code point C as UTF-8 at OUT: its length, or 0 for a surrogate, a value
 * past Unicode, or a control character (never part of an identifier). */
static size_t put_utf8(uint32_t c, char *out)
{
	if (c < 0x20 || (c >= 0x7f && c < 0xa0) || (c >= 0xd800 && c < 0xe000) ||
	    c > 0x10ffff)
		return 0;
	if (c < 0x80) {
		out[0] = (char)c;
		return 1;
	}
	if (c < 0x800) {
		out[0] = (char)(0xc0 | c >> 6);
		out[1] = (char)(0x80 | (c & 0x3f));
		return 2;
	}
	if (c < 0x10000) {
		out[0] = (char)(0xe0 | c >> 12);
		out[1] = (char)(0x80 | (c >> 6 & 0x3f));
		out[2] = (char)(0x80 | (c & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | c >> 18);
	out[1] = (char)(0x80 | (c >> 12 & 0x3f));
	out[2] = (char)(0x80 | (c >> 6 & 0x3f));
	out[3] = (char)(0x80 | (c & 0x3f));
	return 4;
}

/* The legacy escape "$S$" (S: LEN bytes) written at OUT: the bytes written,
 * never more than LEN + 2; 0 when it is no escape rustc writes. */
static size_t legacy_escape(const char *s, size_t len, char *out)
{
	uint32_t c = 0;

	for (size_t i = 0; i < sizeof(legacy_named) / sizeof(legacy_named[0]); i++)
		if (strlen(legacy_named[i].code) == len &&
		    memcmp(legacy_named[i].code, s, len) == 0) {
			*out = legacy_named[i].c;
			return 1;
		}
	/* $u<hex>$: a code point, 1 to 6 lowercase hex digits. */
	if (len < 2 || len > 7 || s[0] != 'u')
		return 0;
	for (size_t i = 1; i < len; i++) {
		if (pk_hexval_lower(s[i]) < 0)
			return 0;
		c = c << 4 | (uint32_t)pk_hexval_lower(s[i]);
	}
	return put_utf8(c, out);
}

/*
 * libiberty (20230104) decodes a legacy "$u..$" escape only when it stands
 * for ASCII; at the first other one (an identifier in another script: "häll"
 * is mangled "h$ue4$ll") it prints the rest of that identifier as it is
 * mangled. Rust identifiers never hold '$', so each one in its output starts
 * such an escape: decode them, and the ".." that stand for "::" in that rest,
 * as rustc's demangler does. S is freed; the result is S's text decoded, or
 * S unchanged when an escape is not one rustc writes.
 */
static char *legacy_unescape(char *s)
{
	char *out = malloc(strlen(s) + 1), *w = out;
	const char *r = s;

	if (!out)
		return s;
	while (*r) {
		if (*r == '$') {
			const char *close = strchr(r + 1, '$');
			size_t n = close ? legacy_escape(r + 1, close - r - 1, w) : 0;

			if (!n) {
				free(out);
				return s;
			}
			w += n;
			r = close + 1;
		} else if (r[0] == '.' && r[1] == '.') {
			*w++ = ':';
			*w++ = ':';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
	free(s);
	return out;
}

/*
 * libiberty (20230104) prints a Rust v0 const generic wider than 64 bits
 * from one character too far: "0x", its hex digits but the first, then the
 * '_' that closes them (i128::MIN as "0x0000000000000000000000000000000_").
 * Such a value is a run of more than 16 hex digits closed by '_' in the
 * mangled NAME; wherever S holds that garbled spelling, write the digits as
 * rustc's demangler does (the same length).
 */
static void v0_fix_wide_consts(const char *name, char *s)
{
	for (const char *p = name; *p;) {
		size_t n = strspn(p, "0123456789abcdef");
		char *bad, *at;

		if (n > 16 && p[n] == '_' && (bad = malloc(n + 3))) {
			memcpy(bad, "0x", 2);
			memcpy(bad + 2, p + 1, n - 1);
			memcpy(bad + n + 1, "_", 2);
			for (at = strstr(s, bad); at; at = strstr(at + n + 2, bad))
				memcpy(at + 2, p, n);
			free(bad);
		}
		p += n ? n : 1;
	}
}

static char *demangle(const char *name)
{
	char *s;

	if (name[0] != '_')
		return NULL;
	if (name[1] == 'R') {
		s = rust_demangle(name, PK_DMGL);
		if (s)
			v0_fix_wide_consts(name, s);
		return s;
	}
	/* Only mangled names: libiberty would also name "_GLOBAL__sub_I_x"
	 * ("global constructors keyed to x"), which perf leaves as it is. */
	if (name[1] != 'Z')
		return NULL;
	/* Legacy Rust names are C++ nested names ending in rustc's hash
	 * element; libiberty's Rust decoder takes only those, so it goes first
	 * (as in cplus_demangle). */
	s = rust_demangle(name, PK_DMGL);
	if (s)
		return strchr(s, '$') ? legacy_unescape(s) : s;
	return cplus_demangle_v3(name, PK_DMGL);
}

char *pk_demangle(const char *name)
{
	char *s = demangle(name);

	/* Grammars allow empty identifiers ("_RC0"): an empty result says less
	 * than the mangled name, so the caller keeps that. */
	if (s && !*s) {
		free(s);
		return NULL;
	}
	return s;
}

/* GCC's and LLVM's clone and part suffixes: those whose number is
 * optional, then those that always carry one. */
static const char *const suffix_opt_num[] = { "cold", "localalias" };
static const char *const suffix_num[] = { "constprop", "isra", "part", "lto_priv", "clone",
					  "llvm" };

static bool in_list(const char *w, size_t n, const char *const *list, size_t count)
{
	for (size_t i = 0; i < count; i++)
		if (strlen(list[i]) == n && !memcmp(w, list[i], n))
			return true;
	return false;
}

/* The length of the ".digits" at S (up to END), 0 when there is none. */
static size_t dot_number(const char *s, const char *end)
{
	size_t n = 1;

	if (s >= end || *s != '.')
		return 0;
	while (s + n < end && s[n] >= '0' && s[n] <= '9')
		n++;
	return n > 1 && (s + n == end || s[n] == '.') ? n : 0;
}

size_t pk_sym_name_len(const char *name)
{
	size_t len = strcspn(name, "@"), base;
	const char *p, *end;

	if (!len)		/* all version: nothing to name it by */
		return strlen(name);
	base = strcspn(name, ".");
	if (!base || base >= len)
		return len;
	for (p = name + base, end = name + len; p < end;) {
		const char *w = p + 1;
		size_t n = strcspn(w, ".@"), num;

		if (w + n > end)
			n = end - w;
		num = dot_number(w + n, end);
		if (in_list(w, n, suffix_num, sizeof(suffix_num) / sizeof(suffix_num[0])) ?
		    !num : !in_list(w, n, suffix_opt_num,
				    sizeof(suffix_opt_num) / sizeof(suffix_opt_num[0])))
			return len;	/* not a toolchain suffix: part of the name */
		p = w + n + num;
	}
	return base;
}
