// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite srcline, what eu-addr2line cannot tell (srcline_run.h): where the
 * debug info is (.gnu_debuglink, its places, under a root), that no
 * debuginfod is asked, corrupt debug info, and the API's edges.
 */
#include <dirent.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/addr2line_oracle.h"
#include "harness/elf_fixture.h"
#include "symbolization/debuginfo.h"
#include "symbolization/demangle.h"
#include "symbolization/srcline.h"
#include "test_util.h"
#include "unit/symbolization/srcline_run.h"

/* --- where debug info is ----------------------------------------------- */

static void frames_eq(const struct pk_srcline_frame *a, int na, const struct pk_srcline_frame *b,
		      int nb, __u64 addr)
{
	ck_assert_msg(na == nb, "0x%llx: %d frames, then %d", (unsigned long long)addr, na, nb);
	for (int i = 0; i < na; i++) {
		ck_assert_msg((!a[i].name && !b[i].name) ||
				      (a[i].name && b[i].name && !strcmp(a[i].name, b[i].name)),
			      "0x%llx frame %d: name", (unsigned long long)addr, i);
		ck_assert_msg((!a[i].file && !b[i].file) ||
				      (a[i].file && b[i].file && !strcmp(a[i].file, b[i].file)),
			      "0x%llx frame %d: file", (unsigned long long)addr, i);
		ck_assert_uint_eq(a[i].line, b[i].line);
	}
}

/* Frames STRIPPED, a copy of PATH without its DWARF, finds at the
 * instructions A of PATH, compared with PATH's own: at every one when
 * WHOLE (its debug file found, the same frames everywhere), else where it
 * finds any. Returns at how many it found frames. */
static size_t frames_through(const char *path, const char *stripped, const struct addrs *a,
			     bool whole)
{
	struct mod m = pk_sl_mod_open(path), s = pk_sl_mod_open(stripped);
	struct pk_srcline *sm, *ss;
	size_t found = 0;

	ck_assert(m.dm && s.dm);
	sm = pk_srcline_new(m.dm);
	ss = pk_srcline_new(s.dm);
	for (size_t i = 0; i < a->n; i++) {
		struct pk_srcline_frame f[MAX_FRAMES], g[MAX_FRAMES];
		int k = pk_sl_lookup(ss, a->v[i], g);

		if (k || whole)
			frames_eq(f, pk_sl_lookup(sm, a->v[i], f), g, k, a->v[i]);
		found += k > 0;
	}
	pk_srcline_free(sm);
	pk_srcline_free(ss);
	pk_sl_mod_close(&m);
	pk_sl_mod_close(&s);
	return found;
}

/* The DWARF of a stripped copy, through its .gnu_debuglink to a debug file
 * beside it: the same frames as the unstripped file. Without the link
 * (and no build-id file under /usr/lib/debug), none. */
START_TEST(test_debuglink)
{
	char path[4096], dbg[512], stripped[512], bare[512], link[600];
	struct addrs a = {};

	pk_sl_fixture("inline-gcc", path, sizeof(path));
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", pk_fx_dir());
	snprintf(stripped, sizeof(stripped), "%s/inline-stripped", pk_fx_dir());
	snprintf(bare, sizeof(bare), "%s/inline-bare", pk_fx_dir());
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", path, dbg, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", link, path, stripped, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", path, bare, NULL }, NULL);
	ck_assert(!pk_sl_has_section(stripped, ".debug_info"));
	ck_assert(pk_sl_has_section(stripped, ".gnu_debuglink"));

	pk_sl_insn_addrs(path, 0, 0, &a);
	ck_assert_uint_ge(frames_through(path, stripped, &a, true), a.n / 2);
	ck_assert_uint_eq(frames_through(path, bare, &a, false), 0);
	free(a.v);
}
END_TEST

/*
 * Where a .gnu_debuglink is followed (debuginfo.h): beside the file, in its
 * .debug/ directory, and beside the target of a link the file was opened
 * through (as /proc/PID/map_files/...); a file of that name from another
 * build (another build-id) is not taken.
 */
START_TEST(test_debuglink_places)
{
	char path[4096], other[4096], dir[512], sub[600], stripped[600], dbg[700], link[800];
	char via[600], otherdbg[700];
	struct addrs a = {};

	pk_sl_fixture("inline-gcc", path, sizeof(path));
	pk_sl_fixture("inline-clang", other, sizeof(other));
	snprintf(dir, sizeof(dir), "%s/dl", pk_fx_dir());
	snprintf(sub, sizeof(sub), "%s/.debug", dir);
	ck_assert_int_eq(mkdir(dir, 0755), 0);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	snprintf(stripped, sizeof(stripped), "%s/inline", dir);
	snprintf(dbg, sizeof(dbg), "%s/inline.debug", sub);
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", path, dbg, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", link, path, stripped, NULL }, NULL);
	pk_sl_insn_addrs(path, 0, 0, &a);

	/* in .debug/ */
	ck_assert_uint_ge(frames_through(path, stripped, &a, true), a.n / 2);
	/* through a link from elsewhere to the stripped file */
	snprintf(via, sizeof(via), "%s/via", pk_fx_dir());
	ck_assert_int_eq(symlink(stripped, via), 0);
	ck_assert_uint_ge(frames_through(path, via, &a, true), a.n / 2);
	/* another build's debug file under the name the link holds, beside
	 * the file (searched first) and in .debug/: neither is taken */
	snprintf(otherdbg, sizeof(otherdbg), "%s/inline.debug", dir);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", other, otherdbg, NULL }, NULL);
	ck_assert_int_eq(unlink(dbg), 0);
	ck_assert_int_eq(rename(otherdbg, dbg), 0);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", other, otherdbg, NULL }, NULL);
	ck_assert_uint_eq(frames_through(path, stripped, &a, false), 0);
	free(a.v);
}
END_TEST

/* mkdir -p of DIR's components below pk_fx_dir(). */
static void fx_mkdirs(const char *rel)
{
	char path[4096], *p;
	size_t base = strlen(pk_fx_dir()) + 1;

	snprintf(path, sizeof(path), "%s/%s", pk_fx_dir(), rel);
	for (p = path + base; (p = strchr(p, '/')); p++) {
		*p = '\0';
		ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
		*p = '/';
	}
	ck_assert_msg(!mkdir(path, 0755) || errno == EEXIST, "mkdir %s", path);
}

/*
 * A file named through a process's root (PROC/PID/root/usr/bin/inline, as
 * the symbolizer opens a container's files) has its .gnu_debuglink file
 * under that root's /usr/lib/debug (ROOT/usr/lib/debug/usr/bin/), where a
 * root's -dbg package puts it: found there, with the same frames as the
 * unstripped file. Searched under the host's /usr/lib/debug with the
 * whole rooted path appended, it was not.
 */
START_TEST(test_debuglink_rooted)
{
	char path[4096], root[600], proc_link[600], stripped[700], dbg[700], link[800];
	char via_root[700];
	struct addrs a = {};

	pk_sl_fixture("inline-gcc", path, sizeof(path));
	fx_mkdirs("r/usr/bin");
	fx_mkdirs("r/usr/lib/debug/usr/bin");
	fx_mkdirs("proc/77");
	snprintf(root, sizeof(root), "%s/r", pk_fx_dir());
	snprintf(proc_link, sizeof(proc_link), "%s/proc/77/root", pk_fx_dir());
	ck_assert_int_eq(symlink(root, proc_link), 0);
	snprintf(stripped, sizeof(stripped), "%s/usr/bin/inline", root);
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/usr/bin/inline.debug", root);
	snprintf(link, sizeof(link), "--add-gnu-debuglink=%s", dbg);
	pk_fx_run_ok((char *[]){ "objcopy", "--only-keep-debug", path, dbg, NULL }, NULL);
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", link, path, stripped, NULL }, NULL);
	pk_sl_insn_addrs(path, 0, 0, &a);
	ck_assert_uint_gt(a.n, 0);

	snprintf(via_root, sizeof(via_root), "%s/usr/bin/inline", proc_link);
	ck_assert_uint_ge(frames_through(path, via_root, &a, true), a.n / 2);
	/* the same file at its own path is no process's: the root's
	 * /usr/lib/debug is not where its debug file is looked for */
	ck_assert_uint_eq(frames_through(path, stripped, &a, false), 0);
	free(a.v);
}
END_TEST

/* Open descriptors of this process that are sockets. */
static int socket_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	char target[64];
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		ssize_t len = readlinkat(dirfd(d), e->d_name, target, sizeof(target) - 1);

		if (len > 0) {
			target[len] = '\0';
			n += !strncmp(target, "socket:", 7);
		}
	}
	closedir(d);
	return n;
}

/* A file with no debug information anywhere is looked for on this machine
 * only: libdw's standard search would end in a debuginfod client, whose
 * socket pair its Dwfl keeps as long as the file is kept. */
START_TEST(test_no_debuginfod)
{
	char path[4096], bare[512];
	struct pk_srcline_frame f[MAX_FRAMES];
	struct addrs a = {};
	struct mod b;
	struct pk_srcline *sb;
	int before = socket_fds();

	pk_sl_fixture("inline-gcc", path, sizeof(path));
	snprintf(bare, sizeof(bare), "%s/inline-bare", pk_fx_dir());
	pk_fx_run_ok((char *[]){ "objcopy", "--strip-debug", path, bare, NULL }, NULL);
	pk_sl_insn_addrs(path, 0, 0, &a);
	ck_assert_uint_gt(a.n, 0);
	b = pk_sl_mod_open(bare);
	ck_assert_ptr_nonnull(b.dm);
	sb = pk_srcline_new(b.dm);
	ck_assert_int_eq(pk_sl_lookup(sb, a.v[0], f), 0);
	ck_assert_int_eq(socket_fds(), before);
	pk_srcline_free(sb);
	pk_sl_mod_close(&b);
	free(a.v);
}
END_TEST

/* --- corrupt debug info ------------------------------------------------ */

struct section {
	__u64 offset, size;
	size_t index;
};

static bool find_section(const char *path, const char *want, struct section *out)
{
	int fd = open(path, O_RDONLY);
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	ck_assert_ptr_nonnull(elf);
	ck_assert_int_eq(elf_getshdrstrndx(elf, &shstrndx), 0);
	while (!found && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(elf, shstrndx, sh.sh_name)) ||
		    strcmp(name, want))
			continue;
		*out = (struct section){ sh.sh_offset, sh.sh_size, elf_ndxscn(scn) };
		found = true;
	}
	elf_end(elf);
	close(fd);
	return found;
}

static void copy_file(const char *from, const char *to)
{
	size_t len;
	char *data = pk_test_read_file(from, &len);
	int fd = open(to, O_WRONLY | O_CREAT | O_TRUNC, 0755);

	ck_assert(data && fd >= 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
	free(data);
}

/* Every lookup over A in PATH returns a count or -errno, and its strings
 * can be read (ASan checks that); a file libdwfl refuses has no lookups. */
static size_t lookups_survive(const char *path, const struct addrs *a)
{
	struct mod m = pk_sl_mod_open(path);
	struct pk_srcline *sl;
	size_t frames = 0;

	if (!m.dm) {
		pk_sl_mod_close(&m);
		return 0;
	}
	sl = pk_srcline_new(m.dm);
	ck_assert_ptr_nonnull(sl);
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < a->n; i++) {
			struct pk_srcline_frame f[MAX_FRAMES];
			int n = pk_sl_lookup(sl, a->v[i], f);

			for (int k = 0; k < n; k++) {
				frames += strlen(f[k].name ? f[k].name : "") +
					  strlen(f[k].file ? f[k].file : "") > 0;
			}
		}
	}
	pk_srcline_free(sl);
	pk_sl_mod_close(&m);
	return frames;
}

/* A 64-bit LCG: the same garbage on every run. */
static __u64 next_rand(__u64 *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return *s >> 33;
}

/* Write over 1 byte in EVERY of SECTION in PATH, with SEED. */
static void garble(const char *path, const struct section *sec, unsigned every, __u64 seed)
{
	int fd = open(path, O_RDWR);

	ck_assert_int_ge(fd, 0);
	for (__u64 off = next_rand(&seed) % every; off < sec->size; off += every) {
		unsigned char c = next_rand(&seed);

		ck_assert_int_eq(pwrite(fd, &c, 1, sec->offset + off), 1);
	}
	close(fd);
}

/* Set the sh_size of section INDEX (ELF64) in PATH. */
static void set_section_size(const char *path, size_t index, __u64 size)
{
	int fd = open(path, O_RDWR);
	Elf64_Ehdr eh;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pread(fd, &eh, sizeof(eh), 0), sizeof(eh));
	ck_assert_int_eq(pwrite(fd, &size, sizeof(size),
				eh.e_shoff + index * eh.e_shentsize + offsetof(Elf64_Shdr, sh_size)),
			 sizeof(size));
	close(fd);
}

/*
 * Corrupt copies of the fixtures: DWARF sections garbled (a byte in 7, in
 * 61, in 997: headers, forms, offsets and lengths all hit), zeroed, cut short
 * (sh_size halved: units run past the end), the file truncated inside
 * .debug_info. Nothing may crash, hang, or read out of bounds.
 */
START_TEST(test_corrupt)
{
	static const char *const fixtures[] = { "inline-gcc", "inline-cpp-gcc", "inline-clang",
						"inline-gcc-dwarf4" };
	static const char *const sections[] = { ".debug_info", ".debug_abbrev", ".debug_line",
						".debug_rnglists", ".debug_ranges", ".debug_str",
						".debug_aranges", ".debug_addr" };
	static const unsigned every[] = { 7, 61, 997 };
	char path[4096], copy[512];
	size_t runs = 0;

	elf_version(EV_CURRENT);
	snprintf(copy, sizeof(copy), "%s/corrupt", pk_fx_dir());
	for (size_t fx = 0; fx < sizeof(fixtures) / sizeof(fixtures[0]); fx++) {
		struct addrs a = {};

		pk_sl_fixture(fixtures[fx], path, sizeof(path));
		pk_sl_insn_addrs(path, 0, 0, &a);
		ck_assert_uint_gt(lookups_survive(path, &a), 0);	/* the intact file */
		for (size_t s = 0; s < sizeof(sections) / sizeof(sections[0]); s++) {
			struct section sec;

			if (!find_section(path, sections[s], &sec) || !sec.size)
				continue;
			for (size_t e = 0; e < sizeof(every) / sizeof(every[0]); e++) {
				for (__u64 seed = 1; seed <= 3; seed++) {
					copy_file(path, copy);
					garble(copy, &sec, every[e], seed * 7919 + e);
					lookups_survive(copy, &a);
					runs++;
				}
			}
			copy_file(path, copy);
			garble(copy, &sec, 1, 0);	/* all of it */
			lookups_survive(copy, &a);
			copy_file(path, copy);
			set_section_size(copy, sec.index, sec.size / 2);
			lookups_survive(copy, &a);
			runs += 2;
		}
		{
			struct section info;

			ck_assert(find_section(path, ".debug_info", &info));
			copy_file(path, copy);
			ck_assert_int_eq(truncate(copy, info.offset + info.size / 2), 0);
			lookups_survive(copy, &a);
			runs++;
		}
		free(a.v);
	}
	fprintf(stderr, "srcline: %zu corrupt copies read\n", runs);
}
END_TEST

/* --- the API ----------------------------------------------------------- */

START_TEST(test_api)
{
	char path[4096], *keep_name, *keep_file;
	struct pk_srcline_frame f[MAX_FRAMES], g[MAX_FRAMES];
	struct addrs a = {};
	struct mod m;
	struct pk_srcline *sl;
	const char *name0;
	__u64 deep = 0;
	int n = 0;

	pk_sl_fixture("inline-gcc", path, sizeof(path));
	pk_sl_insn_addrs(path, 0, 0, &a);
	m = pk_sl_mod_open(path);
	sl = pk_srcline_new(m.dm);
	ck_assert_ptr_nonnull(sl);
	ck_assert_ptr_null(pk_srcline_new(NULL));
	ck_assert_int_eq(pk_srcline_lookup(sl, a.v[0], f, 0), -EINVAL);
	ck_assert_int_eq(pk_srcline_lookup(sl, a.v[0], NULL, 4), -EINVAL);
	ck_assert_int_eq(pk_srcline_lookup(NULL, a.v[0], f, 4), -EINVAL);
	/* Nowhere near the file. */
	ck_assert_int_eq(pk_srcline_lookup(sl, ~0ULL, f, MAX_FRAMES), 0);
	ck_assert_int_eq(pk_srcline_lookup(sl, 0x7fff00000000ULL, f, MAX_FRAMES), 0);

	/* The deepest chain, then cut to 1, 2, 3 frames: the innermost ones
	 * and the function. */
	for (size_t i = 0; i < a.n; i++) {
		int k = pk_sl_lookup(sl, a.v[i], g);

		if (k > n) {
			n = k;
			deep = a.v[i];
		}
	}
	ck_assert_int_ge(n, 4);
	ck_assert_int_eq(pk_sl_lookup(sl, deep, f), n);
	for (int max = 1; max <= 3; max++) {
		ck_assert_int_eq(pk_srcline_lookup(sl, deep, g, max), max);
		frames_eq(f, max - 1, g, max - 1, deep);
		frames_eq(&f[n - 1], 1, &g[max - 1], 1, deep);
	}
	ck_assert_int_eq(pk_srcline_lookup(sl, deep, g, n), n);
	frames_eq(f, n, g, n, deep);
	/* Outer frames of an inlined chain name the function each call sits
	 * in; the last is the concrete function, named by the symbol table
	 * too. */
	name0 = dwfl_module_addrname(m.dm, deep);
	ck_assert_ptr_nonnull(name0);
	ck_assert_str_eq(f[n - 1].name, name0);

	/* Strings outlive later lookups. */
	keep_name = strdup(f[0].name);
	keep_file = strdup(f[0].file);
	for (size_t i = 0; i < a.n; i++)
		pk_sl_lookup(sl, a.v[i], g);
	ck_assert_str_eq(f[0].name, keep_name);
	ck_assert_str_eq(f[0].file, keep_file);
	free(keep_name);
	free(keep_file);
	pk_srcline_free(sl);
	pk_srcline_free(NULL);
	pk_sl_mod_close(&m);
	free(a.v);
}
END_TEST

void pk_sl_files_tcase(Suite *s)
{
	TCase *tc = tcase_create("files");

	tcase_add_checked_fixture(tc, pk_fx_setup, pk_fx_teardown);
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_debuglink);
	tcase_add_test(tc, test_debuglink_places);
	tcase_add_test(tc, test_debuglink_rooted);
	tcase_add_test(tc, test_no_debuginfod);
	tcase_add_test(tc, test_corrupt);
	tcase_add_test(tc, test_api);
	suite_add_tcase(s, tc);
}
