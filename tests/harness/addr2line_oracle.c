// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/* eu-addr2line as the oracle of inlined frames and lines (addr2line_oracle.h). */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "harness/addr2line_oracle.h"
#include "symbolization/demangle.h"
#include "test_util.h"

/*
 * eu-addr2line -a -f -i -C, per address (-a: the line "0x%016x" that starts
 * each record):
 *   FUNC                          or "NAME inlined at LOC in FUNC"
 *   LOC                           the line-table row: FILE:LINE[:COL], ??:0
 *   (CALLER, LOC) per inlined call, innermost first: the call's site
 */
struct eu_rec {
	__u64 addr;
	const char *first, *loc;	/* as printed */
	char *name;		/* FUNC, or NAME of "NAME inlined ..." (owned) */
	const char *site;	/* that line's LOC ("at") or FILE ("from"); NULL: none */
	bool inlined, from;
	char **more;		/* CALLER, LOC, CALLER, LOC, ... */
	size_t nmore;		/* entries, twice the frames */
};

/* A name of the symbol table, demangled. */
struct sym {
	__u64 addr;
	char *name;
};

struct pk_a2l {
	Dwfl *dwfl;
	Dwfl_Module *dm;
	char *text;		/* eu's output, the records point into it */
	struct eu_rec *recs;	/* sorted by address */
	size_t n;
	struct sym *syms;	/* every named symbol, by address; read on first need */
	size_t nsyms;
	bool syms_read;
};

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
};

static bool addr_line(const char *line, __u64 *addr)
{
	char *end;

	if (strncmp(line, "0x", 2) || strlen(line) != 18)
		return false;
	*addr = strtoull(line + 2, &end, 16);
	return *end == '\0';
}

/* The line "NAME inlined at LOC in FUNC" of R: NAME ends at " inlined ",
 * the site is LOC ("at"), FILE ("from": line 0) or none (no call file). A
 * plain FUNC is not inlined. */
static void split_inlined(struct eu_rec *r)
{
	char *s;

	r->name = strdup(r->first);
	ck_assert_ptr_nonnull(r->name);
	s = strstr(r->name, " inlined ");
	if (!s)
		return;
	r->inlined = true;
	*s = '\0';
	s += strlen(" inlined ");
	if (!strncmp(s, "at ", 3) || !strncmp(s, "from ", 5)) {
		char *in;

		r->from = s[0] == 'f';
		s += r->from ? 5 : 3;
		in = strstr(s, " in ");
		ck_assert_msg(in, "eu-addr2line: no \" in \" after \"%s\"", s);
		*in = '\0';
		r->site = s;
	}
}

static int cmp_rec(const void *a, const void *b)
{
	const struct eu_rec *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Runs eu-addr2line on PATH over ADDRS; its records, one per address, in
 * order, into O. */
static void eu_addr2line(struct pk_a2l *o, const char *path, const __u64 *addrs, size_t n)
{
	char **argv = calloc(n + 8, sizeof(*argv)), *p, *line, *err = NULL;
	size_t argc = 0, k = 0;
	int status;

	o->recs = calloc(n + 1, sizeof(*o->recs));
	ck_assert(argv && o->recs);
	argv[argc++] = "eu-addr2line";
	argv[argc++] = "-a";
	argv[argc++] = "-f";
	argv[argc++] = "-i";
	argv[argc++] = "-C";
	argv[argc++] = "-e";
	argv[argc++] = (char *)path;
	for (size_t i = 0; i < n; i++) {
		argv[argc] = malloc(24);
		ck_assert_ptr_nonnull(argv[argc]);
		snprintf(argv[argc++], 24, "0x%llx", (unsigned long long)addrs[i]);
	}
	/* It exits 1 when some address is in no unit (.init, .plt): every
	 * record is still printed, as the count below checks. */
	status = pk_test_run(argv, &o->text, &err);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) <= 1 && o->text,
		      "eu-addr2line -e %s failed (status %d): %s", path, status, err ? err : "");
	free(err);
	for (size_t i = 7; i < argc; i++)
		free(argv[i]);
	free(argv);
	for (p = o->text; (line = strsep(&p, "\n"));) {
		__u64 addr;
		struct eu_rec *r = k ? &o->recs[k - 1] : NULL;

		if (!*line && !p)
			break;
		if (addr_line(line, &addr)) {
			ck_assert_msg(k < n, "eu-addr2line printed more records than addresses");
			o->recs[k++].addr = addr;
		} else if (!r) {
			ck_abort_msg("eu-addr2line: no address before \"%s\"", line);
		} else if (!r->first) {
			r->first = line;
		} else if (!r->loc) {
			r->loc = line;
		} else {
			r->more = pk_test_grow(r->more, r->nmore, sizeof(*r->more));
			ck_assert_ptr_nonnull(r->more);
			r->more[r->nmore++] = line;
		}
	}
	ck_assert_uint_eq(k, n);
	for (size_t i = 0; i < n; i++) {
		ck_assert_msg(o->recs[i].addr == addrs[i] && o->recs[i].loc &&
				      o->recs[i].nmore % 2 == 0,
			      "eu-addr2line record %zu (0x%llx) malformed", i,
			      (unsigned long long)addrs[i]);
		split_inlined(&o->recs[i]);
	}
	o->n = n;
	qsort(o->recs, n, sizeof(*o->recs), cmp_rec);
}

struct pk_a2l *pk_a2l_run(const char *path, const __u64 *addrs, size_t n)
{
	struct pk_a2l *o = calloc(1, sizeof(*o));

	ck_assert_ptr_nonnull(o);
	/* PATH as the only module of a Dwfl, at bias 0, as eu -e reads it */
	o->dwfl = dwfl_begin(&callbacks);
	ck_assert_ptr_nonnull(o->dwfl);
	dwfl_report_begin(o->dwfl);
	o->dm = dwfl_report_elf(o->dwfl, "oracle", path, -1, 0, true);
	dwfl_report_end(o->dwfl, NULL, NULL);
	ck_assert_msg(o->dm, "%s: libdwfl cannot read it: %s", path, dwfl_errmsg(-1));
	eu_addr2line(o, path, addrs, n);
	return o;
}

void pk_a2l_free(struct pk_a2l *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++) {
		free(o->recs[i].name);
		free(o->recs[i].more);
	}
	free(o->recs);
	free(o->text);
	for (size_t i = 0; i < o->nsyms; i++)
		free(o->syms[i].name);
	free(o->syms);
	dwfl_end(o->dwfl);
	free(o);
}

static const struct eu_rec *find_rec(const struct pk_a2l *o, __u64 addr)
{
	struct eu_rec key = { .addr = addr };

	return bsearch(&key, o->recs, o->n, sizeof(*o->recs), cmp_rec);
}

/* --- what a record says ---------------------------------------------------- */

/* eu prints FILE:LINE, FILE:LINE:COLUMN, or ??:0 when the file is unknown. */
bool pk_a2l_loc_eq(const char *eu, const char *file, __u32 line)
{
	size_t len;
	char *end;
	unsigned long l;

	if (!file)
		return !strcmp(eu, "??:0");
	len = strlen(file);
	if (strncmp(eu, file, len) || eu[len] != ':')
		return false;
	l = strtoul(eu + len + 1, &end, 10);
	if (end == eu + len + 1 || l != line)
		return false;
	if (*end == ':') {
		const char *col = end + 1;

		strtoul(col, &end, 10);
		if (end == col)
			return false;
	}
	return *end == '\0';
}

/* Our NULL name is eu's "??" (DWARF names no function), or -- for the
 * innermost frame, when DWARF has no function there -- the symbol-table
 * name eu falls back to (SYMNAME). */
static bool name_eq(const char *eu, const char *ours, const char *symname)
{
	if (ours)
		return !strcmp(eu, ours);
	return !strcmp(eu, "??") || (symname && !strcmp(eu, symname));
}

static bool site_eq(const struct eu_rec *r, const struct pk_srcline_frame *f)
{
	if (!r->site || !strncmp(r->site, "???", 3))
		return !f->file;	/* no call file, or not in the table */
	if (r->from)
		return f->file && !strcmp(r->site, f->file) && f->line == 0;
	return pk_a2l_loc_eq(r->site, f->file, f->line);
}

char *pk_a2l_symname(Dwfl_Module *dm, __u64 addr)
{
	const char *raw = dwfl_module_addrname(dm, addr);
	char *d;

	if (!raw)
		return NULL;
	d = pk_demangle(raw);
	return d ? d : strdup(raw);
}

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Every defined, named symbol of O's module (its function's name,
 * pk_sym_name_len), sorted by address. */
static void syms_read(struct pk_a2l *o)
{
	int n = dwfl_module_getsymtab(o->dm);

	o->syms_read = true;
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr value;
		const char *name = dwfl_module_getsym_info(o->dm, i, &sym, &value, NULL, NULL,
							   NULL);
		char *base, *d;

		if (!name || !*name || sym.st_shndx == SHN_UNDEF)
			continue;
		o->syms = pk_test_grow(o->syms, o->nsyms, sizeof(*o->syms));
		ck_assert_ptr_nonnull(o->syms);
		/* as the symbolizer names it: no version, no clone suffix */
		base = strndup(name, pk_sym_name_len(name));
		ck_assert_ptr_nonnull(base);
		d = pk_demangle(base);
		o->syms[o->nsyms].addr = value;
		o->syms[o->nsyms++].name = d ? d : base;
		if (d)
			free(base);
	}
	if (o->nsyms)
		qsort(o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
}

/* Whether a symbol at exactly ADDR is called NAME. */
static bool addr_has(struct pk_a2l *o, __u64 addr, const char *name)
{
	struct sym key = { .addr = addr }, *hit;

	if (!o->syms_read)
		syms_read(o);
	hit = bsearch(&key, o->syms, o->nsyms, sizeof(*o->syms), cmp_sym);
	if (!hit)
		return false;
	while (hit > o->syms && hit[-1].addr == key.addr)
		hit--;
	for (; hit < o->syms + o->nsyms && hit->addr == key.addr; hit++)
		if (!strcmp(hit->name, name))
			return true;
	return false;
}

/* Whether NAME is a name of the symbol libdwfl finds at ADDR: its own, or
 * an alias at its address (memcpy's and memmove's one code, say). */
static bool sym_alias(struct pk_a2l *o, __u64 addr, const char *name)
{
	GElf_Off off;
	GElf_Sym s;

	if (!dwfl_module_addrinfo(o->dm, addr, &off, &s, NULL, NULL, NULL))
		return false;
	return addr_has(o, addr - off, name);
}

/* Whether EU and OURS are two symbols of one address: DWARF's linkage
 * name of a glibc function (__GI___clock_nanosleep) and the name the
 * symbolizer gives its address (clock_nanosleep). */
static bool names_alias(struct pk_a2l *o, const char *eu, const char *ours)
{
	if (!o->syms_read)
		syms_read(o);
	for (size_t i = 0; i < o->nsyms; i++)
		if (!strcmp(o->syms[i].name, eu) && addr_has(o, o->syms[i].addr, ours))
			return true;
	return false;
}

/* The address of the line-table row holding ADDR (ADDR when none). */
static __u64 row_start(Dwfl_Module *dm, __u64 addr)
{
	Dwfl_Line *line = dwfl_module_getsrc(dm, addr);
	Dwarf_Addr a = addr;

	if (line && dwfl_lineinfo(line, &a, NULL, NULL, NULL, NULL))
		return a;
	return addr;
}

/* The DIEs of the inlined calls and the function libdw's dwarf_getscopes
 * finds at ADDR (what eu-addr2line walks for -i), innermost first, into
 * OUT; their number, -1 when no unit holds ADDR. */
static int scope_chain(Dwfl_Module *dm, __u64 addr, Dwarf_Off *out, int max)
{
	Dwarf_Addr bias;
	Dwarf_Die *cu = dwfl_module_addrdie(dm, addr, &bias), *scopes = NULL;
	int n, k = 0;

	if (!cu)
		return -1;
	n = dwarf_getscopes(cu, addr - bias, &scopes);
	for (int i = 0; i < n && k < max; i++) {
		int tag = dwarf_tag(&scopes[i]);

		if (tag == DW_TAG_inlined_subroutine || tag == DW_TAG_subprogram)
			out[k++] = dwarf_dieoffset(&scopes[i]);
	}
	free(scopes);
	return k;
}

/* Whether eu's -i frames at ROW are those of ADDR: the same calls. */
static bool same_scopes(Dwfl_Module *dm, __u64 addr, __u64 row)
{
	Dwarf_Off a[PK_A2L_MAX_FRAMES], b[PK_A2L_MAX_FRAMES];
	int n = scope_chain(dm, addr, a, PK_A2L_MAX_FRAMES);
	int m = scope_chain(dm, row, b, PK_A2L_MAX_FRAMES);

	return n == m && (n <= 0 || !memcmp(a, b, n * sizeof(*a)));
}

/* --- the comparison -------------------------------------------------------- */

void pk_a2l_report_frames(FILE *f, const struct pk_srcline_frame *fr, int n)
{
	for (int i = 0; i < n; i++)
		fprintf(f, "    ours: %s | %s:%u\n", fr[i].name ? fr[i].name : "(null)",
			fr[i].file ? fr[i].file : "??", fr[i].line);
}

static void report_eu(FILE *f, const struct eu_rec *r)
{
	fprintf(f, "    eu:   %s | %s\n", r->first, r->loc);
	for (size_t k = 0; k < r->nmore; k += 2)
		fprintf(f, "    eu:   %s | %s\n", r->more[k], r->more[k + 1]);
}

/* Frame K of N (at ADDR) named as eu says (EU), or -- with
 * PK_A2L_LAST_SYMNAME -- by the symbol table: the last one by a name of
 * the symbol at ADDR, any one by a name of the symbol eu's name is (an
 * alias); *BY_SYM then. */
static bool frame_name_eq(struct pk_a2l *o, __u64 addr, const char *eu,
			  const struct pk_srcline_frame *fr, int k, int n, const char *sym,
			  unsigned flags, bool *by_sym)
{
	if (name_eq(eu, fr[k].name, k == 0 ? sym : NULL))
		return true;
	if ((flags & PK_A2L_LAST_SYMNAME) && fr[k].name &&
	    ((k == n - 1 && sym_alias(o, addr, fr[k].name)) || names_alias(o, eu, fr[k].name))) {
		*by_sym = true;
		return true;
	}
	return false;
}

bool pk_a2l_compare(struct pk_a2l *o, __u64 addr, const struct pk_srcline_frame *f, int n,
		    pk_a2l_frames_fn at_row, void *ctx, unsigned flags, const char *what,
		    struct pk_a2l_stats *st)
{
	struct pk_srcline_frame g[PK_A2L_MAX_FRAMES], none = { NULL, NULL, 0 };
	const struct eu_rec *r = find_rec(o, addr);
	const struct pk_srcline_frame *f0 = n ? &f[0] : &none, *h = f;
	__u64 row = row_start(o->dm, addr);
	char *sym = pk_a2l_symname(o->dm, addr);
	bool ok, name_ok, by_sym = false, more = true;
	int m = n;

	ck_assert_msg(r, "%s: eu-addr2line was not run at 0x%llx", what,
		      (unsigned long long)addr);
	ck_assert_msg(n >= 0 && n <= PK_A2L_MAX_FRAMES, "%s 0x%llx: %d frames", what,
		      (unsigned long long)addr, n);
	st->addrs++;
	st->named += n && f[0].name;
	st->files += n && f[0].file;
	st->inlined += n > 1;
	if ((size_t)n > st->depth)
		st->depth = n;
	ok = pk_a2l_loc_eq(r->loc, f0->file, f0->line);
	name_ok = n ? frame_name_eq(o, addr, r->name, f, 0, n, sym, flags, &by_sym)
		    : name_eq(r->name, NULL, sym);
	/* A function eu does not see: only the symbol table's name, where we
	 * name it by DWARF. */
	if (ok && !name_ok && !r->inlined && !r->nmore && f0->name && sym &&
	    !strcmp(r->name, sym)) {
		st->eu_blind++;
		free(sym);
		return true;
	}
	ok = ok && name_ok;
	/* The call site eu's first line names, at the address. */
	ok = ok && (r->inlined ? n > 1 && site_eq(r, &f[1]) : n <= 1);
	if (row != addr) {
		st->row_quirk++;
		if (at_row) {
			m = at_row(ctx, row, g, PK_A2L_MAX_FRAMES);
			ck_assert_msg(m >= 0 && m <= PK_A2L_MAX_FRAMES, "%s 0x%llx: %d frames",
				      what, (unsigned long long)row, m);
			h = g;
		} else if (!same_scopes(o->dm, addr, row)) {
			st->row_unchecked++;
			more = false;
		}
	}
	if (more) {
		ok = ok && r->nmore == 2 * (size_t)(m > 1 ? m - 1 : 0);
		for (size_t k = 0; ok && k < r->nmore; k += 2) {
			int i = k / 2 + 1;

			ok = frame_name_eq(o, h == f ? addr : row, r->more[k], h, i, m, NULL,
					   flags, &by_sym) &&
			     pk_a2l_loc_eq(r->more[k + 1], h[i].file, h[i].line);
		}
	}
	st->symname += ok && by_sym;
	if (!ok && st->bad++ < 10) {
		fprintf(stderr, "addr2line: %s 0x%llx (row 0x%llx) differs:\n", what,
			(unsigned long long)addr, (unsigned long long)row);
		pk_a2l_report_frames(stderr, f, n);
		if (h == g) {
			fprintf(stderr, "    at the row:\n");
			pk_a2l_report_frames(stderr, g, m);
		}
		report_eu(stderr, r);
	}
	free(sym);
	return ok;
}

void pk_a2l_print_stats(const char *what, const struct pk_a2l_stats *st)
{
	fprintf(stderr, "%s: %zu addresses, %zu named by DWARF, %zu with a file, %zu inlined "
		"(up to %zu frames), %zu where eu's -i frames are its row's (%zu of them other "
		"calls: not compared), %zu in functions eu does not see, %zu named by the "
		"symbol table; %zu differ from eu-addr2line\n",
		what, st->addrs, st->named, st->files, st->inlined, st->depth, st->row_quirk,
		st->row_unchecked, st->eu_blind, st->symname, st->bad);
}
