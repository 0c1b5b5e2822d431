// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, the inline frames and source lines probe-read writes for a
 * real profile against eu-addr2line -f -i -C (tests/harness/addr2line_oracle.h)
 * on every sampled address: the -O2 -g fixture with inlined helpers
 * (tests/fixtures_dbg/inline.c, gcc's build and clang's with
 * .debug_aranges, which eu needs) profiled for 2 s, its pprof read back by
 * go tool pprof -raw (tests/harness/pprof_raw.h). Each location of the fixture's
 * and libc's mappings (libc's DWARF is libc6-dbg's) is taken to its ELF
 * address, minus one where the sample uses it as a return address (what
 * the symbolizer looks up there), and its lines must be eu's record there,
 * frame by frame, innermost first. The folded output of the same read with
 * --lines must show the same frames and counts.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/addr2line_oracle.h"
#include "harness/pprof_raw.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define FREQ_STR	"199"

static bool ci(void)
{
	const char *v = getenv("CI");

	return v && !strcmp(v, "true");
}

/* --- the ELF file behind a mapping ----------------------------------------- */

struct eh_elf_file {
	const char *path;
	struct {
		__u64 offset, filesz, vaddr;
	} load[16];		/* PT_LOAD headers */
	size_t nload;
	struct {
		__u64 addr, size;
	} plt[8];		/* .plt, .plt.got, .plt.sec: the linker's stubs */
	size_t nplt;
	char build_id[128];	/* lowercase hex; "" when none */
};

static void hex(const unsigned char *p, size_t n, char *out, size_t len)
{
	out[0] = '\0';
	for (size_t i = 0; i < n && 2 * i + 2 < len; i++)
		snprintf(out + 2 * i, 3, "%02x", p[i]);
}

/* PATH's PT_LOAD headers, PLT sections and NT_GNU_BUILD_ID, through
 * libelf. */
static void elf_file_read(struct eh_elf_file *e, const char *path)
{
	int fd = open(path, O_RDONLY);
	Elf *elf;
	Elf_Scn *scn = NULL;
	size_t nph, shstrndx;

	memset(e, 0, sizeof(*e));
	e->path = path;
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	ck_assert_msg(elf && elf_getphdrnum(elf, &nph) == 0, "%s: %s", path, elf_errmsg(-1));
	for (size_t i = 0; i < nph; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		ck_assert_ptr_nonnull(gelf_getphdr(elf, i, &ph));
		if (ph.p_type == PT_LOAD) {
			ck_assert_uint_lt(e->nload, sizeof(e->load) / sizeof(e->load[0]));
			e->load[e->nload].offset = ph.p_offset;
			e->load[e->nload].filesz = ph.p_filesz;
			e->load[e->nload++].vaddr = ph.p_vaddr;
			continue;
		}
		if (ph.p_type != PT_NOTE ||
		    !(d = elf_getdata_rawchunk(elf, ph.p_offset, ph.p_filesz, ELF_T_NHDR)))
			continue;
		while ((off = gelf_getnote(d, off, &nh, &name_off, &desc_off)) > 0) {
			if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
			    !memcmp((char *)d->d_buf + name_off, "GNU", 4))
				hex((unsigned char *)d->d_buf + desc_off, nh.n_descsz, e->build_id,
				    sizeof(e->build_id));
		}
	}
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) :
							   NULL;

		if (!name || strncmp(name, ".plt", 4))
			continue;
		ck_assert_uint_lt(e->nplt, sizeof(e->plt) / sizeof(e->plt[0]));
		e->plt[e->nplt].addr = sh.sh_addr;
		e->plt[e->nplt++].size = sh.sh_size;
	}
	elf_end(elf);
	close(fd);
	ck_assert_uint_gt(e->nload, 0);
}

/* Whether ELF address A is in a PLT stub: code the linker made, of no
 * source file. */
static bool in_plt(const struct eh_elf_file *e, __u64 a)
{
	for (size_t i = 0; i < e->nplt; i++)
		if (a >= e->plt[i].addr && a - e->plt[i].addr < e->plt[i].size)
			return true;
	return false;
}

/* The ELF address of file offset OFF: the PT_LOAD holding it (a handful,
 * in file order). */
static __u64 elf_vaddr(const struct eh_elf_file *e, __u64 off)
{
	for (size_t i = 0; i < e->nload; i++) {
		if (off >= e->load[i].offset && off - e->load[i].offset < e->load[i].filesz)
			return off - e->load[i].offset + e->load[i].vaddr;
	}
	ck_abort_msg("%s: file offset 0x%llx is in no PT_LOAD", e->path, (unsigned long long)off);
	return 0;
}

/* --- where a location is used ---------------------------------------------- */

/* Mappings of the kernel and its modules: "[kernel.kallsyms]", "[MODULE]";
 * the vDSO is user code. */
static bool kernel_mapping(const struct ppr_mapping *m)
{
	return m && m->file[0] == '[' && strcmp(m->file, "[vdso]") != 0;
}

enum { USE_LEAF = 1, USE_RET = 2 };

/*
 * How each location (indexed as in P->locs) is used, USE_*: in a sample,
 * the kernel's locations come first, then the user stack, leaf first; its
 * leaf is where the CPU was, every later location a return address.
 */
static unsigned char *location_uses(const struct ppr_profile *p, unsigned long long *samples)
{
	unsigned char *use = calloc(p->nlocs + 1, 1);

	ck_assert_ptr_nonnull(use);
	*samples = 0;
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct ppr_sample *s = &p->samples[i];
		bool user = false;

		*samples += s->values[0];
		for (size_t k = 0; k < s->nlocs; k++) {
			const struct ppr_location *l = s->locs[k];

			if (kernel_mapping(l->mapping)) {
				ck_assert_msg(!user, "sample %zu: kernel after user locations", i);
				continue;
			}
			use[l - p->locs] |= user ? USE_RET : USE_LEAF;
			user = true;
		}
	}
	return use;
}

/* --- one file's locations against eu-addr2line ----------------------------- */

struct item {
	const struct ppr_location *loc;
	__u64 lookup;		/* the ELF address looked up */
};

struct file_result {
	struct pk_a2l_stats st;
	size_t inlined_addrs;	/* distinct addresses with inline frames */
	size_t with_lines;	/* items whose innermost frame has file:line */
	size_t plt;		/* items in PLT stubs */
	size_t locations;	/* locations of the file's mappings */
	bool msort;		/* a frame named msort_with_tmp* */
};

static int cmp_u64(const void *a, const void *b)
{
	__u64 x = *(const __u64 *)a, y = *(const __u64 *)b;

	return x < y ? -1 : x > y;
}

/* The symbolizer's names for what DWARF does not name, back to NULL (eu's
 * "??"): "[unknown]" for an unnamed inlined call, "[FILE+0xADDR]" for an
 * address no symbol covers, "FUNC@plt" for a PLT stub (eu-addr2line makes
 * up no names for them; test_plt.c holds ours to objdump's). */
static const char *our_name(const char *name, const struct eh_elf_file *e, __u64 lookup)
{
	const char *base = strrchr(e->path, '/');
	char anon[PATH_MAX + 32];
	size_t len = strlen(name);

	snprintf(anon, sizeof(anon), "[%s+0x%llx]", base ? base + 1 : e->path,
		 (unsigned long long)lookup);
	if (in_plt(e, lookup) && len > 4 && !strcmp(name + len - 4, "@plt"))
		return NULL;
	return !strcmp(name, "[unknown]") || !strcmp(name, anon) ? NULL : name;
}

/* ITEMS (N) against eu-addr2line's records EU, frame by frame; counted in
 * RES. ADDRS (NADDRS): their distinct addresses, sorted. */
static void compare_items(struct pk_a2l *eu, const struct item *items, size_t n,
			  const __u64 *addrs, size_t naddrs, const struct eh_elf_file *e,
			  const char *what, struct file_result *res)
{
	bool *inl = calloc(naddrs + 1, sizeof(*inl));

	ck_assert_ptr_nonnull(inl);
	for (size_t i = 0; i < n; i++) {
		const struct ppr_location *l = items[i].loc;
		const __u64 *at = bsearch(&items[i].lookup, addrs, naddrs, sizeof(*addrs), cmp_u64);
		struct pk_srcline_frame f[PK_A2L_MAX_FRAMES];

		ck_assert_uint_le(l->nlines, PK_A2L_MAX_FRAMES);
		for (size_t k = 0; k < l->nlines; k++) {
			f[k] = (struct pk_srcline_frame){
				our_name(l->lines[k].name, e, items[i].lookup),
				l->lines[k].file[0] ? l->lines[k].file : NULL,
				(__u32)l->lines[k].line,
			};
			res->msort |= !strncmp(l->lines[k].name, "msort_with_tmp", 14);
		}
		pk_a2l_compare(eu, items[i].lookup, f, l->nlines, NULL, NULL, PK_A2L_LAST_SYMNAME,
			       what, &res->st);
		res->with_lines += f[0].file && f[0].line;
		res->plt += in_plt(e, items[i].lookup);
		inl[at - addrs] |= l->nlines > 1;
	}
	for (size_t i = 0; i < naddrs; i++)
		res->inlined_addrs += inl[i];
	free(inl);
}

/*
 * Every location of P in a mapping of file E (the same build-id), as each
 * sample uses it (USE), against one eu-addr2line run over all their
 * addresses.
 */
static void check_file(const struct ppr_profile *p, const unsigned char *use,
		       const struct eh_elf_file *e, const char *what, struct file_result *res)
{
	struct item *items = NULL;
	__u64 *addrs = NULL;
	size_t n = 0, naddrs = 0;
	struct pk_a2l *eu;

	memset(res, 0, sizeof(*res));
	ck_assert_msg(e->build_id[0], "%s: no build-id", e->path);
	for (size_t i = 0; i < p->nlocs; i++) {
		const struct ppr_location *l = &p->locs[i];
		const struct ppr_mapping *m = l->mapping;
		__u64 vaddr;

		if (!m || strcmp(m->build_id, e->build_id) || !use[i])
			continue;
		ck_assert_msg(l->address >= m->start && l->address < m->limit,
			      "%s: location 0x%llx outside its mapping", what, l->address);
		ck_assert_uint_gt(l->nlines, 0);
		res->locations++;
		vaddr = elf_vaddr(e, l->address - m->start + m->offset);
		for (unsigned u = USE_LEAF; u <= USE_RET; u <<= 1) {
			if (!(use[i] & u))
				continue;
			items = pk_test_grow(items, n, sizeof(*items));
			addrs = pk_test_grow(addrs, n, sizeof(*addrs));
			ck_assert(items && addrs);
			/* a return address: the call before it */
			items[n] = (struct item){ l, vaddr - (u == USE_RET) };
			addrs[n++] = vaddr - (u == USE_RET);
		}
	}
	if (n) {
		/* one eu-addr2line over the distinct addresses */
		qsort(addrs, n, sizeof(*addrs), cmp_u64);
		for (size_t i = 0; i < n; i++)
			if (!naddrs || addrs[naddrs - 1] != addrs[i])
				addrs[naddrs++] = addrs[i];
		eu = pk_a2l_run(e->path, addrs, naddrs);
		compare_items(eu, items, n, addrs, naddrs, e, what, res);
		pk_a2l_print_stats(what, &res->st);
		pk_a2l_free(eu);
	}
	free(items);
	free(addrs);
}

/* --- folded --lines against the pprof -------------------------------------- */

struct stack {
	char *text;
	unsigned long long count;
};

static int cmp_stack(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->text, ((const struct stack *)b)->text);
}

/* Sort S and add up the counts of equal stacks; the new count. */
static size_t stacks_merge(struct stack *s, size_t n)
{
	size_t k = 0;

	if (n)
		qsort(s, n, sizeof(*s), cmp_stack);
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(s[k - 1].text, s[i].text)) {
			s[k - 1].count += s[i].count;
			free(s[i].text);
		} else {
			s[k++] = s[i];
		}
	}
	return k;
}

/* P's samples folded as probe-read --lines folds: comm, then the frames
 * root first (a location's inline frames outermost first), each
 * "NAME (BASENAME:LINE)" where it has a file and a line, kernel frames
 * suffixed "_[k]". */
static size_t fold_pprof(const struct ppr_profile *p, struct stack **out)
{
	struct stack *s = calloc(p->nsamples + 1, sizeof(*s));

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < p->nsamples; i++) {
		const struct ppr_sample *smp = &p->samples[i];
		const char *comm = ppr_label(smp, "comm");
		size_t len = 0;
		FILE *m = open_memstream(&s[i].text, &len);

		ck_assert_msg(comm && m, "sample %zu: no comm label", i);
		fputs(comm, m);
		for (size_t l = smp->nlocs; l-- > 0;) {
			const struct ppr_location *loc = smp->locs[l];

			for (size_t k = loc->nlines; k-- > 0;) {
				const struct ppr_line *ln = &loc->lines[k];
				const char *base = strrchr(ln->file, '/');

				fprintf(m, ";%s", ln->name);
				if (ln->file[0] && ln->line)
					fprintf(m, " (%s:%lld)", base ? base + 1 : ln->file,
						ln->line);
				if (kernel_mapping(loc->mapping))
					fputs("_[k]", m);
			}
		}
		fclose(m);
		s[i].count = smp->values[0];
	}
	*out = s;
	return stacks_merge(s, p->nsamples);
}

static size_t fold_file(const char *path, struct stack **out)
{
	char *text = pk_test_read_file(path, NULL);
	struct pk_folded f = { 0 };
	const char *bad = NULL;
	struct stack *s;
	size_t n;

	ck_assert_msg(text, "%s: %s", path, strerror(errno));
	ck_assert_msg(pk_folded_parse(text, &f, &bad), "%s: not folded: '%s'", path, bad);
	s = calloc(f.n + 1, sizeof(*s));
	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < f.n; i++) {
		s[i].text = strdup(f.lines[i].stack);
		ck_assert_ptr_nonnull(s[i].text);
		s[i].count = f.lines[i].count;
	}
	n = f.n;
	pk_folded_free(&f);
	free(text);
	*out = s;
	return stacks_merge(s, n);
}

/* The folded file at PATH holds exactly P's stacks and counts, with lines;
 * the number of stacks. */
static size_t check_folded(const struct ppr_profile *p, const char *path)
{
	struct stack *a, *b;
	size_t na = fold_pprof(p, &a), nb = fold_file(path, &b), i = 0, j = 0, shown = 0;
	bool lines = false;

	while (i < na || j < nb) {
		int c = i == na ? 1 : j == nb ? -1 : strcmp(a[i].text, b[j].text);

		if (c == 0 && a[i].count == b[j].count) {
			lines |= strstr(a[i].text, ".c:") != NULL;
			i++, j++;
			continue;
		}
		if (shown++ < 10)
			fprintf(stderr, "folded --lines: pprof %llu, folded %llu: %s\n",
				c <= 0 ? a[i].count : 0, c >= 0 ? b[j].count : 0,
				c <= 0 ? a[i].text : b[j].text);
		i += c <= 0;
		j += c >= 0;
	}
	ck_assert_msg(!shown, "folded --lines and pprof differ in %zu stacks (above)", shown);
	ck_assert_msg(lines, "folded --lines: no frame with a source line");
	for (size_t k = 0; k < na; k++)
		free(a[k].text);
	for (size_t k = 0; k < nb; k++)
		free(b[k].text);
	free(a);
	free(b);
	return na;
}

/* --- the test -------------------------------------------------------------- */

static bool is_libc(const struct ppr_mapping *m)
{
	const char *base = strrchr(m->file, '/');

	return base && !strcmp(base + 1, "libc.so.6");
}

/* Whether libc6-dbg holds the DWARF of the libc with BUILD_ID. */
static bool libc_debug_info(const char *build_id)
{
	char path[300];

	if (strlen(build_id) < 3)
		return false;
	snprintf(path, sizeof(path), "/usr/lib/debug/.build-id/%.2s/%s.debug", build_id,
		 build_id + 2);
	return access(path, R_OK) == 0;
}

static void check_inline(const char *name)
{
	char dir[] = "/tmp/pk-inline-XXXXXX", rel[256], path[4096], pb[4200], folded[4200];
	char err[256], *text = NULL, *out = NULL, *rerr = NULL, what[300];
	const char *load[] = { "-F", FREQ_STR, "--", path, "100000", "2", NULL };
	const char *read[] = { "-d", "60", "--lines", "-f", "pprof", "-o", pb, "-f", "folded",
			       "-o", folded, NULL };
	const struct ppr_mapping *libc_map = NULL;
	struct ppr_profile p = { 0 };
	struct file_result fx, lc = { 0 };
	struct eh_elf_file exe, libc;
	unsigned long long samples;
	unsigned char *use;
	size_t stacks;

	if (!ppr_go_available()) {
		ck_assert_msg(!ci(), "go tool pprof is missing (CI=true)");
		fprintf(stderr, "SKIP: go is not installed: no pprof reader\n");
		return;
	}
	snprintf(rel, sizeof(rel), "fixtures_dbg/%s", name);
	pk_test_build_path(rel, path, sizeof(path));
	ck_assert_msg(access(path, X_OK) == 0, "%s: %s (make test-programs builds it)", path,
		      strerror(errno));
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pb, sizeof(pb), "%s/cpu.pb.gz", dir);
	snprintf(folded, sizeof(folded), "%s/cpu.folded", dir);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_msg(pk_e2e_read(read, &out, &rerr) == 0, "probe-read: %s", rerr);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_str_eq(out, "");

	ck_assert_msg(ppr_run(pb, &text, err, sizeof(err)) == 0, "go tool pprof: %s", err);
	ck_assert_msg(ppr_parse(text, &p, err, sizeof(err)) == 0, "pprof -raw: %s", err);
	use = location_uses(&p, &samples);
	ck_assert_uint_ge(samples, 300);	/* 2 s at 199 Hz: about 400 */

	elf_file_read(&exe, path);
	snprintf(what, sizeof(what), "inline_e2e: %s", name);
	check_file(&p, use, &exe, what, &fx);
	ck_assert_msg(fx.st.bad == 0, "%s: %zu of %zu addresses differ from eu-addr2line", name,
		      fx.st.bad, fx.st.addrs);
	ck_assert_uint_eq(fx.st.eu_blind, 0);	/* C: eu sees every function */
	/* The fixture's hot code is inlined helpers: a test that compares
	 * only plain frames proves nothing about inline frames. */
	ck_assert_uint_ge(fx.st.addrs, 20);
	ck_assert_uint_ge(fx.inlined_addrs, 10);
	ck_assert_uint_ge(fx.st.depth, 3);

	for (size_t i = 0; i < p.nmappings && !libc_map; i++)
		if (is_libc(&p.mappings[i]))
			libc_map = &p.mappings[i];
	ck_assert_msg(libc_map, "%s: no libc mapping in the profile", name);
	if (!libc_debug_info(libc_map->build_id)) {
		ck_assert_msg(!ci(), "%s: no debug info (CI=true): install libc6-dbg",
			      libc_map->file);
		fprintf(stderr, "SKIP: %s: no debug info (libc6-dbg): libc not compared\n",
			libc_map->file);
	} else {
		elf_file_read(&libc, libc_map->file);
		snprintf(what, sizeof(what), "inline_e2e: %s: libc", name);
		check_file(&p, use, &libc, what, &lc);
		ck_assert_msg(lc.st.bad == 0, "%s: %zu of %zu libc addresses differ from "
			      "eu-addr2line", name, lc.st.bad, lc.st.addrs);
		ck_assert_uint_eq(lc.st.eu_blind, 0);
		/* qsort calls the fixture's comparator from its merge sort */
		ck_assert_msg(lc.msort, "%s: no msort_with_tmp frame in libc", name);
		/* every one but the PLT's stubs (msort calls memcpy through
		 * one), which eu-addr2line, compared above, finds no line
		 * for either */
		ck_assert_msg(lc.with_lines + lc.plt == lc.st.addrs,
			      "%s: %zu of %zu libc addresses without file:line (%zu in the PLT)",
			      name, lc.st.addrs - lc.with_lines, lc.st.addrs, lc.plt);
	}

	stacks = check_folded(&p, folded);
	fprintf(stderr, "inline_e2e: %s: %llu samples; fixture: %zu addresses compared with "
		"eu-addr2line (%zu locations), %zu distinct with inline frames (up to %zu "
		"frames); libc: %zu addresses compared, %zu with inline frames, %zu with "
		"file:line, %zu in the PLT, %zu named by the symbol table; folded --lines: %zu "
		"stacks agree\n",
		name, samples, fx.st.addrs, fx.locations, fx.inlined_addrs, fx.st.depth,
		lc.st.addrs, lc.inlined_addrs, lc.with_lines, lc.plt, lc.st.symname, stacks);

	unlink(pb);
	unlink(folded);
	ck_assert_int_eq(rmdir(dir), 0);
	free(use);
	ppr_free(&p);
	free(text);
	free(out);
	free(rerr);
}

START_TEST(test_inline_gcc)
{
	check_inline("inline-gcc");
}
END_TEST

/* eu-addr2line 0.188 finds no unit without .debug_aranges: the clang
 * build that has them. */
START_TEST(test_inline_clang)
{
	check_inline("inline-clang-aranges");
}
END_TEST

Suite *suite_inline_e2e(void)
{
	Suite *s = suite_create("inline_e2e");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "eu_addr2line", 120);
	tcase_add_test(tc, test_inline_gcc);
	tcase_add_test(tc, test_inline_clang);
	return s;
}
