// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "demangle.h"
#include "strbuf.h"

/* From libstdc++ (the programs link -lstdc++); declared here so that this
 * file stays C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* --- output buffer --------------------------------------------------------- */

struct out {
	struct pk_strbuf buf;
	int skip;	/* > 0: parse without printing */
};

static void put_n(struct out *o, const char *s, size_t n)
{
	if (!o->skip)
		pk_strbuf_putn(&o->buf, s, n);
}

static void put(struct out *o, const char *s)
{
	put_n(o, s, strlen(s));
}

static void put_u64(struct out *o, uint64_t v)
{
	char buf[24], *p = buf + sizeof(buf);

	*--p = '\0';
	do
		*--p = '0' + v % 10;
	while (v /= 10);
	put(o, p);
}

static char *out_finish(struct out *o)
{
	return pk_strbuf_finish(&o->buf);
}

static void out_discard(struct out *o)
{
	free(pk_strbuf_finish(&o->buf));
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* --- Rust legacy ----------------------------------------------------------- */

/* "17h" + 16 lowercase hex digits: the hash element rustc appends. */
static bool is_rust_hash(const char *s, size_t len)
{
	if (len != 17 || s[0] != 'h')
		return false;
	for (size_t i = 1; i < len; i++)
		if (hexval(s[i]) < 0)
			return false;
	return true;
}

static const struct { const char *code, *text; } legacy_escapes[] = {
	{ "SP", "@" }, { "BP", "*" }, { "RF", "&" }, { "LT", "<" }, { "GT", ">" },
	{ "LP", "(" }, { "RP", ")" }, { "C", "," },
};

/* One "$...$" escape at S (LEN bytes up to and excluding the closing '$'). */
static bool legacy_escape(struct out *o, const char *s, size_t len)
{
	for (size_t i = 0; i < sizeof(legacy_escapes) / sizeof(legacy_escapes[0]); i++)
		if (strlen(legacy_escapes[i].code) == len &&
		    memcmp(legacy_escapes[i].code, s, len) == 0) {
			put(o, legacy_escapes[i].text);
			return true;
		}
	/* $uXX$: a character by code point; only ASCII punctuation is used. */
	if (len >= 2 && s[0] == 'u') {
		unsigned int c = 0;

		for (size_t i = 1; i < len; i++) {
			if (hexval(s[i]) < 0 || c > 0x10ffff)
				return false;
			c = c * 16 + hexval(s[i]);
		}
		if (c < 0x20 || c >= 0x7f)
			return false;
		char ch = (char)c;
		put_n(o, &ch, 1);
		return true;
	}
	return false;
}

static bool legacy_ident(struct out *o, const char *s, size_t len)
{
	const char *end = s + len;

	if (len >= 2 && s[0] == '_' && s[1] == '$')
		s++;
	while (s < end) {
		if (*s == '.') {
			if (s + 1 < end && s[1] == '.') {
				put(o, "::");
				s += 2;
			} else {
				put(o, ".");
				s++;
			}
		} else if (*s == '$') {
			const char *close = memchr(s + 1, '$', end - s - 1);

			if (!close || !legacy_escape(o, s + 1, close - s - 1))
				return false;
			s = close + 1;
		} else {
			size_t n = strcspn(s, "$.");

			if (n > (size_t)(end - s))
				n = end - s;
			put_n(o, s, n);
			s += n;
		}
	}
	return true;
}

/* HASHED: only accept a name that ends with rustc's hash element (a name
 * without one is just as well C++). */
static char *rust_legacy(const char *name, bool hashed)
{
	struct out o = { 0 };
	const char *p = name;
	int elements = 0;
	bool hash = false;

	if (strncmp(p, "_ZN", 3) != 0)
		return NULL;
	p += 3;
	while (*p != 'E') {
		size_t len = 0;

		if (*p < '0' || *p > '9')
			goto fail;
		while (*p >= '0' && *p <= '9') {
			len = len * 10 + (*p++ - '0');
			if (len > 4096)
				goto fail;
		}
		if (strnlen(p, len) < len)
			goto fail;
		/* The hash is the last element: leave it out. */
		if (p[len] == 'E' && is_rust_hash(p, len)) {
			hash = true;
		} else {
			if (elements++)
				put(&o, "::");
			if (!legacy_ident(&o, p, len))
				goto fail;
		}
		p += len;
	}
	/* Anything after the 'E' must be a compiler suffix (".llvm.NNN"). */
	if (p[1] != '\0' && p[1] != '.')
		goto fail;
	if (elements == 0 || (hashed && !hash))
		goto fail;
	return out_finish(&o);
fail:
	out_discard(&o);
	return NULL;
}

char *pk_demangle_rust_legacy(const char *name)
{
	return rust_legacy(name, false);
}

/* --- Rust v0 --------------------------------------------------------------- */

#define V0_MAX_DEPTH 256

struct v0 {
	const char *s;
	size_t pos, len;
	struct out *o;
	int depth;
	uint64_t bound_lifetimes;	/* lifetimes bound by enclosing binders */
	bool ok;
};

static bool v0_eat(struct v0 *p, char c)
{
	if (p->pos < p->len && p->s[p->pos] == c) {
		p->pos++;
		return true;
	}
	return false;
}

static char v0_next(struct v0 *p)
{
	if (p->pos >= p->len) {
		p->ok = false;
		return 0;
	}
	return p->s[p->pos++];
}

/* base-62-number: "_" is 0; digits then "_" are value + 1. */
static uint64_t v0_base62(struct v0 *p)
{
	uint64_t v = 0;

	if (v0_eat(p, '_'))
		return 0;
	while (p->ok) {
		char c = v0_next(p);
		int d;

		if (c == '_')
			return v + 1 < v ? (p->ok = false, 0) : v + 1;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if (c >= 'a' && c <= 'z')
			d = c - 'a' + 10;
		else if (c >= 'A' && c <= 'Z')
			d = c - 'A' + 36;
		else
			break;
		if (v > (UINT64_MAX - d) / 62)
			break;
		v = v * 62 + d;
	}
	p->ok = false;
	return 0;
}

/* [TAG base-62-number]: absent is 0, present is value + 1. */
static uint64_t v0_opt_base62(struct v0 *p, char tag)
{
	if (!v0_eat(p, tag))
		return 0;
	return v0_base62(p) + 1;
}

static uint64_t v0_decimal(struct v0 *p)
{
	uint64_t v = 0;
	char c = p->pos < p->len ? p->s[p->pos] : 0;

	if (c < '0' || c > '9') {
		p->ok = false;
		return 0;
	}
	if (c == '0') {
		p->pos++;
		return 0;
	}
	while (p->pos < p->len && p->s[p->pos] >= '0' && p->s[p->pos] <= '9') {
		v = v * 10 + (p->s[p->pos++] - '0');
		if (v > p->len) {
			p->ok = false;
			return 0;
		}
	}
	return v;
}

struct v0_ident {
	const char *name;
	size_t len;
	uint64_t dis;
};

static struct v0_ident v0_ident(struct v0 *p)
{
	struct v0_ident id = { 0 };

	id.dis = v0_opt_base62(p, 's');
	if (v0_eat(p, 'u')) {
		/* Punycode (non-ASCII identifiers) is not decoded. */
		p->ok = false;
		return id;
	}
	id.len = v0_decimal(p);
	v0_eat(p, '_');
	if (!p->ok || id.len > p->len - p->pos) {
		p->ok = false;
		id.len = 0;
		return id;
	}
	id.name = p->s + p->pos;
	p->pos += id.len;
	return id;
}

static void v0_path(struct v0 *p, bool in_value);
static void v0_type(struct v0 *p);
static void v0_const(struct v0 *p);

/* Jump to the target of a back-reference (its "B" just read); the caller
 * parses there and then returns to *SAVED. */
static bool v0_backref(struct v0 *p, size_t *saved)
{
	size_t at = p->pos - 1;
	uint64_t target = v0_base62(p) + 2;	/* offsets count from after "_R" */

	if (!p->ok || target >= at) {
		p->ok = false;
		return false;
	}
	*saved = p->pos;
	p->pos = target;
	return true;
}

/* The name of a bound lifetime: 'a, 'b, ... then '_26, '_27, ... */
static void put_lifetime_name(struct out *o, uint64_t depth)
{
	put(o, "'");
	if (depth < 26) {
		char c = 'a' + depth;

		put_n(o, &c, 1);
	} else {
		put(o, "_");
		put_u64(o, depth);
	}
}

static void v0_lifetime(struct v0 *p)
{
	uint64_t i = v0_base62(p);

	if (!p->ok)
		return;
	if (i == 0)
		put(p->o, "'_");
	else if (i <= p->bound_lifetimes)
		put_lifetime_name(p->o, p->bound_lifetimes - i);
	else
		p->ok = false;
}

/* [binder]: "G" base-62-number introduces that many + 1 lifetimes. */
static uint64_t v0_binder(struct v0 *p)
{
	uint64_t n = v0_opt_base62(p, 'G');

	if (!p->ok || n == 0)
		return 0;
	if (n > 64) {
		p->ok = false;
		return 0;
	}
	put(p->o, "for<");
	for (uint64_t i = 0; i < n; i++) {
		if (i)
			put(p->o, ", ");
		put_lifetime_name(p->o, p->bound_lifetimes + i);
	}
	put(p->o, "> ");
	p->bound_lifetimes += n;
	return n;
}

static void v0_generic_arg(struct v0 *p)
{
	if (v0_eat(p, 'L'))
		v0_lifetime(p);
	else if (v0_eat(p, 'K'))
		v0_const(p);
	else
		v0_type(p);
}

/* Items up to "E", printed between OPEN and CLOSE, separated by SEP;
 * returns how many. */
static int v0_list(struct v0 *p, void (*item)(struct v0 *), const char *sep)
{
	int n = 0;

	while (p->ok && !v0_eat(p, 'E')) {
		if (n++)
			put(p->o, sep);
		item(p);
		if (p->pos >= p->len)
			p->ok = false;
	}
	return n;
}

static bool v0_enter(struct v0 *p)
{
	if (++p->depth > V0_MAX_DEPTH)
		p->ok = false;
	return p->ok;
}

static void v0_path(struct v0 *p, bool in_value)
{
	char tag;

	if (!v0_enter(p))
		goto out;
	tag = v0_next(p);
	switch (tag) {
	case 'C': {
		struct v0_ident id = v0_ident(p);

		put_n(p->o, id.name, id.len);
		break;
	}
	case 'N': {
		char ns = v0_next(p);
		struct v0_ident id;

		v0_path(p, in_value);
		id = v0_ident(p);
		if (!p->ok)
			break;
		if (ns >= 'A' && ns <= 'Z') {
			/* A special namespace: closures and shims. */
			put(p->o, "::{");
			if (ns == 'C')
				put(p->o, "closure");
			else if (ns == 'S')
				put(p->o, "shim");
			else
				put_n(p->o, &ns, 1);
			if (id.len) {
				put(p->o, ":");
				put_n(p->o, id.name, id.len);
			}
			put(p->o, "#");
			put_u64(p->o, id.dis);
			put(p->o, "}");
		} else if (ns >= 'a' && ns <= 'z') {
			if (id.len) {
				put(p->o, "::");
				put_n(p->o, id.name, id.len);
			}
		} else {
			p->ok = false;
		}
		break;
	}
	case 'M':
	case 'X':
	case 'Y':
		if (tag != 'Y') {
			/* The impl's own path only disambiguates: not shown. */
			v0_opt_base62(p, 's');
			p->o->skip++;
			v0_path(p, false);
			p->o->skip--;
		}
		put(p->o, "<");
		v0_type(p);
		if (tag != 'M') {
			put(p->o, " as ");
			v0_path(p, false);
		}
		put(p->o, ">");
		break;
	case 'I':
		v0_path(p, in_value);
		if (in_value)
			put(p->o, "::");
		put(p->o, "<");
		v0_list(p, v0_generic_arg, ", ");
		put(p->o, ">");
		break;
	case 'B': {
		size_t saved;

		if (v0_backref(p, &saved)) {
			v0_path(p, in_value);
			p->pos = saved;
		}
		break;
	}
	default:
		p->ok = false;
	}
out:
	p->depth--;
}

static const char *v0_basic_type(char tag)
{
	switch (tag) {
	case 'a': return "i8";
	case 'b': return "bool";
	case 'c': return "char";
	case 'd': return "f64";
	case 'e': return "str";
	case 'f': return "f32";
	case 'h': return "u8";
	case 'i': return "isize";
	case 'j': return "usize";
	case 'l': return "i32";
	case 'm': return "u32";
	case 'n': return "i128";
	case 'o': return "u128";
	case 's': return "i16";
	case 't': return "u16";
	case 'u': return "()";
	case 'v': return "...";
	case 'x': return "i64";
	case 'y': return "u64";
	case 'z': return "!";
	case 'p': return "_";
	}
	return NULL;
}

/* A trait path whose generic argument list stays open, so that associated
 * type bindings can join it: returns whether a "<" is open. */
static bool v0_path_open_generics(struct v0 *p)
{
	size_t saved;
	bool open;

	if (v0_eat(p, 'B')) {
		if (!v0_enter(p) || !v0_backref(p, &saved)) {
			p->depth--;
			return false;
		}
		open = v0_path_open_generics(p);
		p->pos = saved;
		p->depth--;
		return open;
	}
	if (v0_eat(p, 'I')) {
		v0_path(p, false);
		put(p->o, "<");
		v0_list(p, v0_generic_arg, ", ");
		return true;
	}
	v0_path(p, false);
	return false;
}

static void v0_dyn_trait(struct v0 *p)
{
	bool open = v0_path_open_generics(p);

	while (p->ok && v0_eat(p, 'p')) {
		struct v0_ident id;

		put(p->o, open ? ", " : "<");
		open = true;
		id = v0_ident(p);
		put_n(p->o, id.name, id.len);
		put(p->o, " = ");
		v0_type(p);
	}
	if (open)
		put(p->o, ">");
}

static void v0_fn_arg(struct v0 *p)
{
	v0_type(p);
}

static void v0_type(struct v0 *p)
{
	const char *basic;
	uint64_t saved_bound = p->bound_lifetimes;
	char tag;

	if (!v0_enter(p))
		goto out;
	tag = v0_next(p);
	basic = v0_basic_type(tag);
	if (basic) {
		put(p->o, basic);
		goto out;
	}
	switch (tag) {
	case 'R':
	case 'Q':
		put(p->o, "&");
		if (v0_eat(p, 'L')) {
			struct pk_strbuf *b = &p->o->buf;
			size_t before = b->len;

			v0_lifetime(p);
			/* An erased lifetime ('_) is not shown. */
			if (b->len == before + 2 && !b->failed &&
			    memcmp(b->s + before, "'_", 2) == 0) {
				b->len = before;
				b->s[before] = '\0';
			} else {
				put(p->o, " ");
			}
		}
		if (tag == 'Q')
			put(p->o, "mut ");
		v0_type(p);
		break;
	case 'P':
		put(p->o, "*const ");
		v0_type(p);
		break;
	case 'O':
		put(p->o, "*mut ");
		v0_type(p);
		break;
	case 'A':
		put(p->o, "[");
		v0_type(p);
		put(p->o, "; ");
		v0_const(p);
		put(p->o, "]");
		break;
	case 'S':
		put(p->o, "[");
		v0_type(p);
		put(p->o, "]");
		break;
	case 'T':
		put(p->o, "(");
		if (v0_list(p, v0_fn_arg, ", ") == 1)
			put(p->o, ",");
		put(p->o, ")");
		break;
	case 'F': {
		v0_binder(p);
		if (v0_eat(p, 'U'))
			put(p->o, "unsafe ");
		if (v0_eat(p, 'K')) {
			put(p->o, "extern \"");
			if (v0_eat(p, 'C')) {
				put(p->o, "C");
			} else {
				struct v0_ident id = v0_ident(p);

				for (size_t i = 0; i < id.len; i++)
					put_n(p->o, id.name[i] == '_' ? "-" : &id.name[i], 1);
			}
			put(p->o, "\" ");
		}
		put(p->o, "fn(");
		v0_list(p, v0_fn_arg, ", ");
		put(p->o, ")");
		if (p->pos < p->len && p->s[p->pos] == 'u') {
			p->pos++;	/* returns (): not shown */
		} else {
			put(p->o, " -> ");
			v0_type(p);
		}
		break;
	}
	case 'D': {
		put(p->o, "dyn ");
		v0_binder(p);
		v0_list(p, v0_dyn_trait, " + ");
		if (!v0_eat(p, 'L')) {
			p->ok = false;
			break;
		}
		/* The object lifetime bound, shown only when not erased. */
		p->o->skip++;
		v0_lifetime(p);
		p->o->skip--;
		break;
	}
	case 'B': {
		size_t saved;

		if (v0_backref(p, &saved)) {
			v0_type(p);
			p->pos = saved;
		}
		break;
	}
	default:
		p->pos--;
		v0_path(p, false);
	}
out:
	p->bound_lifetimes = saved_bound;
	p->depth--;
}

static void v0_const(struct v0 *p)
{
	char tag;

	if (!v0_enter(p))
		goto out;
	if (v0_eat(p, 'B')) {
		size_t saved;

		if (v0_backref(p, &saved)) {
			v0_const(p);
			p->pos = saved;
		}
		goto out;
	}
	if (v0_eat(p, 'p')) {
		put(p->o, "_");
		goto out;
	}
	tag = v0_next(p);
	switch (tag) {
	case 'a': case 's': case 'l': case 'x': case 'n': case 'i':
	case 'h': case 't': case 'm': case 'y': case 'o': case 'j':
	case 'b': case 'c': {
		bool neg = v0_eat(p, 'n');
		uint64_t v = 0;
		int digits = 0;
		char c;

		while (p->ok && (c = v0_next(p)) != '_') {
			if (hexval(c) < 0 || ++digits > 16) {
				p->ok = false;
				break;
			}
			v = v * 16 + hexval(c);
		}
		if (!p->ok)
			break;
		if (tag == 'b') {
			put(p->o, v == 0 ? "false" : v == 1 ? "true" : "?");
			if (v > 1)
				p->ok = false;
		} else if (tag == 'c') {
			char ch = (char)v;

			if (v < 0x20 || v >= 0x7f || ch == '\'' || ch == '\\') {
				p->ok = false;
				break;
			}
			put(p->o, "'");
			put_n(p->o, &ch, 1);
			put(p->o, "'");
		} else {
			if (neg)
				put(p->o, "-");
			put_u64(p->o, v);
		}
		break;
	}
	default:
		p->ok = false;
	}
out:
	p->depth--;
}

char *pk_demangle_rust_v0(const char *name)
{
	struct out o = { 0 };
	struct v0 p = { .o = &o, .ok = true };

	if (strncmp(name, "_R", 2) != 0)
		return NULL;
	/* Offsets in back-references count from after "_R"; a compiler
	 * suffix (".llvm.NNN") is not part of the grammar. */
	p.s = name;
	p.len = strcspn(name, ".");
	p.pos = 2;
	/* An encoding version number would come first: only the unversioned
	 * form exists. */
	if (p.pos < p.len && p.s[p.pos] >= '0' && p.s[p.pos] <= '9')
		return NULL;
	v0_path(&p, true);
	/* What follows (an instantiating crate, a vendor suffix) is not
	 * shown, but must still be well-formed enough to be a path. */
	if (p.ok && p.pos < p.len && p.s[p.pos] >= 'A' && p.s[p.pos] <= 'Z') {
		o.skip++;
		v0_path(&p, false);
		o.skip--;
	}
	if (!p.ok) {
		out_discard(&o);
		return NULL;
	}
	return out_finish(&o);
}

/* --- dispatch -------------------------------------------------------------- */

static char *demangle_cxx(const char *name)
{
	int status = 0;
	char *s = __cxa_demangle(name, NULL, NULL, &status);

	if (status != 0) {
		free(s);
		return NULL;
	}
	return s;
}

static char *demangle_any(const char *name)
{
	char *s;

	if (strncmp(name, "_R", 2) == 0)
		return pk_demangle_rust_v0(name);
	if (strncmp(name, "_Z", 2) != 0)
		return NULL;
	s = rust_legacy(name, true);
	if (s)
		return s;
	s = demangle_cxx(name);
	if (s)
		return s;
	/* A Rust legacy name without the hash: C++ rejects its "$" escapes. */
	return pk_demangle_rust_legacy(name);
}

char *pk_demangle(const char *name)
{
	char *s = demangle_any(name);

	/* Grammars allow empty identifiers ("_RC0"): an empty result says less
	 * than the mangled name, so the caller keeps that. */
	if (s && !*s) {
		free(s);
		return NULL;
	}
	return s;
}
