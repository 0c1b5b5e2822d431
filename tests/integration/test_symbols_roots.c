// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * End to end, the files of processes in other roots and namespaces, read
 * after they exited (issue 32, "Processes in other roots"): a root's
 * libc never taken for the host's at the same path, and a JIT's perf map
 * read where perf reads it after the exit, with the real tools.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness/pprof_decode.h"
#include "integration/profile_session.h"
#include "test_util.h"

#define FREQ_STR	"199"
#define ROOT_LIBC	"/usr/lib/x86_64-linux-gnu/libc.so.6"

/* A function symbol of a file's .dynsym: [start, start + size). */
struct dynsym {
	unsigned long long start, size;
	char name[128];
};

/* The sized function symbols of FILE's .dynsym (nm -D -S, the oracle),
 * names without their version; their number into *N. */
static struct dynsym *dynsyms(const char *file, size_t *n)
{
	char *argv[] = { "nm", "-D", "-S", "--defined-only", (char *)file, NULL };
	char *out = NULL, *line, *save = NULL;
	struct dynsym *v = NULL;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	*n = 0;
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct dynsym d;
		char type, *at;

		if (sscanf(line, "%llx %llx %c %127s", &d.start, &d.size, &type, d.name) != 4 ||
		    !strchr("TtWi", type))
			continue;
		at = strchr(d.name, '@');
		if (at)
			*at = '\0';
		v = pk_test_grow(v, *n, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[(*n)++] = d;
	}
	free(out);
	return v;
}

/* FILE's PLT stubs as objdump labels them ("NAME@plt", or "NAME+0xN@plt"
 * for a JUMP_SLOT with an addend; IRELATIVE ones, "*ABS*", left out), as
 * the symbolizer names them: "NAME@plt", 16 bytes each, appended to V (*N
 * of them). */
static struct dynsym *plt_stubs(const char *file, struct dynsym *v, size_t *n)
{
	char *argv[] = { "objdump", "-d", "-j", ".plt", "-j", ".plt.sec", (char *)file, NULL };
	char *out = NULL, *line, *save = NULL;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (line = strtok_r(out, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct dynsym d = { .size = 16 };
		char label[128];
		size_t len;

		if (sscanf(line, "%llx <%127[^>]>:", &d.start, label) != 2 || label[0] == '*')
			continue;
		len = strlen(label);
		if (len < 4 || strcmp(label + len - 4, "@plt"))
			continue;
		label[strcspn(label, "+@")] = '\0';
		snprintf(d.name, sizeof(d.name), "%s@plt", label);
		v = pk_test_grow(v, *n, sizeof(*v));
		ck_assert_ptr_nonnull(v);
		v[(*n)++] = d;
	}
	free(out);
	return v;
}

/* Whether a symbol named NAME (or, NAME NULL, any) of V holds ADDR. */
static bool dynsym_holds(const struct dynsym *v, size_t n, const char *name,
			 unsigned long long addr)
{
	for (size_t i = 0; i < n; i++)
		if (addr >= v[i].start && addr - v[i].start < v[i].size &&
		    (!name || !strcmp(v[i].name, name)))
			return true;
	return false;
}

/*
 * A root's file and a host file at the same path are never taken for
 * each other (issue 32): python3.13 in the Debian 13 root copies memory
 * in its libc (glibc 2.41, no libc6-dbg in the root), read once it has
 * exited. The host's libc (2.36) is at the same path in the root's terms,
 * and the host's libc6-dbg names every address of it
 * (__memmove_avx_unaligned_erms, which no .dynsym has). Two containers:
 * in_root.sh's chroot (the kernel reports the root's files at paths of
 * the host, under the root), and a pivot_root into a bind mount of the
 * root (the kernel reports them at the root's own paths, the root's libc
 * at the host's libc's path; /proc/PID/root reads "/": the root is found
 * through the mounts, lib/root_records.h; the umount it runs in the root
 * lives a millisecond, often too short for anyone to keep its root, and
 * is named through python3.13's, which holds the very same libc). In the
 * pprof: every mapping of the root's libc has its build-id and the path
 * the kernel reported, the host's libc its own; every frame of the root's
 * libc is named as its own .dynsym names the address (nm -D, the oracle; a PLT
 * stub as objdump labels it, NAME@plt),
 * or [libc.so.6+0xADDR] where no symbol of it holds the address, and some
 * by a symbol (the file was found, in its root, after the exit); no frame
 * of python3.13 is unnamed (its -dbg debug file, in the root's
 * /usr/lib/debug, was found).
 */
START_TEST(test_root_file_not_host_file)
{
	/* 4 s of CPU: probe-load keeps the root when it takes the exec's
	 * report, after loading the tables of the files reported before it
	 * (sh's, unshare's, cold in the test's cache), which took longer
	 * than 2 s on a busy machine: the root was lost (README.md,
	 * "Processes in other roots") */
	static const char code[] =
		"import time\n"
		"b = bytearray(1 << 20); c = bytes(1 << 20)\n"
		"t = time.process_time()\n"
		"while time.process_time() - t < 4: b[:] = c\n";
	static const char pivot[] =
		"r=$1; shift; mount --bind \"$r\" \"$r\" && mount -t proc proc \"$r/proc\" && "
		"cd \"$r\" && pivot_root . mnt && umount -l /mnt && exec \"$@\"";
	char tool[4096], root[4096], root_libc[4096], pb[4096], rel[256];
	char root_id[128], host_id[128], host_libc[4096], reported[4096];
	const char *chroot_load[] = { "-F", FREQ_STR, "--", tool, root, "python3.13", "-c", code,
				      NULL };
	const char *pivot_load[] = { "-F", FREQ_STR, "--", "unshare", "--mount", "--pid",
				     "--fork", "--propagation", "private", "--", "/bin/sh", "-c",
				     pivot, "pivot", root, "python3.13", "-c", code, NULL };
	const char **load = _i ? pivot_load : chroot_load;
	unsigned long long py_unnamed = 0;
	const char *read[] = { "-d", "1", "-f", "pprof", "-o", pb, NULL };
	Perftools__Profiles__Profile *p;
	unsigned long long in_root = 0, named = 0, unnamed = 0, host = 0;
	struct dynsym *syms;
	char *out = NULL, *err = NULL, *real;
	unsigned char *buf;
	size_t nsyms, len;

	pk_test_src_path("tests/roots/in_root.sh", tool, sizeof(tool));
	pk_test_roots_path("trixie", root, sizeof(root));
	snprintf(rel, sizeof(rel), "trixie%s", ROOT_LIBC);
	pk_test_roots_path(rel, root_libc, sizeof(root_libc));
	real = realpath(root_libc, NULL);	/* the path the kernel reports */
	ck_assert_msg(real, "%s: %m", root_libc);
	snprintf(root_libc, sizeof(root_libc), "%s", real);
	free(real);
	real = realpath(ROOT_LIBC, NULL);
	ck_assert_ptr_nonnull(real);
	snprintf(host_libc, sizeof(host_libc), "%s", real);
	free(real);
	pk_test_readelf_build_id(root_libc, root_id, sizeof(root_id));
	pk_test_readelf_build_id(host_libc, host_id, sizeof(host_id));
	ck_assert_str_ne(root_id, host_id);
	/* the root's libc as the kernel reports it */
	snprintf(reported, sizeof(reported), "%s", _i ? ROOT_LIBC : root_libc);
	syms = dynsyms(root_libc, &nsyms);
	ck_assert_uint_gt(nsyms, 1000);
	/* a sample in a PLT stub is named as perf names it, NAME@plt */
	syms = plt_stubs(root_libc, syms, &nsyms);
	pk_test_build_path("root-libc.pb.gz", pb, sizeof(pb));

	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(120), 0);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	buf = (unsigned char *)pk_test_read_file(pb, &len);
	ck_assert_msg(buf, "%s: no pprof: %s", pb, err);
	p = pk_test_pprof_decode(buf, len);

	for (size_t m = 0; m < p->n_mapping; m++) {
		const Perftools__Profiles__Mapping *mp = p->mapping[m];
		const char *file = pk_test_pprof_str(p, mp->filename), *id = pk_test_pprof_str(p, mp->build_id);

		if (!strcmp(id, root_id))
			ck_assert_str_eq(file, reported);
		/* pivot_root: the shell that runs it maps the host's libc
		 * from the old root, which it put at /mnt until umount -l:
		 * sampled in that window (a busy machine's), the kernel
		 * reports it there */
		if (!strcmp(id, host_id))
			ck_assert_msg(!strcmp(file, host_libc) ||
				      (_i && !strncmp(file, "/mnt/", 5) &&
				       !strcmp(file + 4, host_libc)),
				      "the host's libc at %s, not %s", file, host_libc);
		/* chroot: the root's path is the root's libc's alone (with
		 * pivot_root it is the host's libc's path too: the build-id
		 * tells them apart, above) */
		if (!_i && !strcmp(file, reported))
			ck_assert_str_eq(id, root_id);
	}
	for (size_t i = 0; i < p->n_location; i++) {
		const Perftools__Profiles__Location *loc = p->location[i];
		const Perftools__Profiles__Mapping *mp = NULL;
		unsigned long long elf;
		const char *name;
		char want[64];

		for (size_t m = 0; m < p->n_mapping && !mp; m++)
			if (p->mapping[m]->id == loc->mapping_id)
				mp = p->mapping[m];
		for (size_t l = 0; l < loc->n_line; l++)
			py_unnamed += !strncmp(pk_test_pprof_str(p, pk_test_pprof_function(
					p, loc->line[l]->function_id)->name), "[python3.13+0x", 14);
		if (!mp)
			continue;
		host += !strcmp(pk_test_pprof_str(p, mp->build_id), host_id);
		if (strcmp(pk_test_pprof_str(p, mp->build_id), root_id))
			continue;
		in_root++;
		/* libc's segments have their file offsets as addresses */
		elf = loc->address - mp->memory_start + mp->file_offset;
		ck_assert_uint_eq(loc->n_line, 1);	/* no DWARF of it anywhere */
		name = pk_test_pprof_str(p, pk_test_pprof_function(p, loc->line[0]->function_id)->name);
		if (name[0] == '[') {
			/* the address, or the one before (a return address) */
			unsigned long long at;

			ck_assert_msg(sscanf(name, "[libc.so.6+0x%llx]", &at) == 1, "%s", name);
			ck_assert_msg(at == elf || at + 1 == elf, "%s at 0x%llx", name, elf);
			ck_assert_msg(!dynsym_holds(syms, nsyms, NULL, at), "%s: a symbol holds it",
				      name);
			unnamed++;
			continue;
		}
		snprintf(want, sizeof(want), "%s", name);
		ck_assert_msg(dynsym_holds(syms, nsyms, want, elf) ||
			      dynsym_holds(syms, nsyms, want, elf - 1),
			      "0x%llx of the root's libc named %s: no symbol of it", elf, name);
		named++;
	}
	fprintf(stderr, "root's libc (%s): %llu locations (%llu named by its .dynsym, %llu "
		"[libc.so.6+0x...]), %llu locations of the host's libc; %llu of python3.13 "
		"unnamed\n", _i ? "pivot_root" : "chroot", in_root, named, unnamed, host,
		py_unnamed);
	ck_assert_uint_ge(in_root, 3);
	ck_assert_uint_gt(unnamed, 0);	/* the copy loop, which no .dynsym names */
	ck_assert_uint_gt(named, 0);	/* the file read: __libc_start_main */
	ck_assert_uint_eq(py_unnamed, 0);
	perftools__profiles__profile__free_unpacked(p, NULL);
	free(buf);
	free(syms);
	free(out);
	free(err);
	unlink(pb);
}
END_TEST

/*
 * A JIT's perf map read after the process exited, as perf reads it then:
 * the jit fixture spins 1 s of CPU in code it announced in
 * /tmp/perf-PID.map, lingers 2 s and exits, leaving the map as node and
 * the JVM's agents do ("keep"). probe-read runs only after the exit (no
 * /proc/PID left): on the host, the map is /tmp/perf-PID.map; in the
 * Debian 13 root as in_root.sh runs it (a chroot, a new pid namespace
 * where the fixture is PID 1), it is the root's /tmp/perf-1.map, found
 * through the root and the pid the session kept of it while it lived
 * (lib/root_records.h). At least 90% of the fixture's samples end in
 * jit_spin_loop, as while it lives (symbols_e2e test_jit_perf_map). The
 * test removes the map after.
 */
START_TEST(test_jit_map_after_exit)
{
	char fix[4096], dir[4096], tool[4096], root[4096], map[4096 + 64], pidfile[4096];
	char script[2 * 4096 + 64];
	const char *host[] = { "-F", FREQ_STR, "--", "/bin/sh", "-c", script, NULL };
	const char *rooted[] = { "-F", FREQ_STR, "--", tool, "-o", dir, root, "/mnt/out/jit",
				 "1", "2", "keep", NULL };
	const char *read[] = { "-d", "1", NULL };
	unsigned long total = 0, named = 0;
	struct pk_folded f = { 0 };
	char *out = NULL, *err = NULL, *pid = NULL;
	const char *bad = NULL;
	struct stat st;

	snprintf(fix, sizeof(fix), "%s", pk_e2e_fixture("jit"));
	snprintf(dir, sizeof(dir), "%s", fix);
	*strrchr(dir, '/') = '\0';
	pk_test_src_path("tests/roots/in_root.sh", tool, sizeof(tool));
	pk_test_roots_path("trixie", root, sizeof(root));
	pk_test_build_path("jit-after-exit.pid", pidfile, sizeof(pidfile));
	/* the shell's pid is the fixture's after its exec */
	snprintf(script, sizeof(script), "echo $$ > %s && exec %s 1 2 keep", pidfile, fix);
	if (_i) {
		pk_test_roots_hold();	/* perf-1.map: another make check's too */
		snprintf(map, sizeof(map), "%s/tmp/perf-1.map", root);
		ck_assert_msg(stat(map, &st) && errno == ENOENT, "%s is there before the test",
			      map);
	}
	ck_assert_int_eq(pk_e2e_load(_i ? rooted : host), 0);
	ck_assert_int_eq(pk_e2e_wait_targets_exit(60), 0);
	if (!_i) {
		pid = pk_test_read_file(pidfile, NULL);
		ck_assert_ptr_nonnull(pid);
		snprintf(map, sizeof(map), "/tmp/perf-%d.map", atoi(pid));
		free(pid);
		unlink(pidfile);
	}
	ck_assert_msg(!stat(map, &st), "%s: the fixture left no map", map);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	ck_assert_int_eq(unlink(map), 0);
	ck_assert_msg(pk_folded_parse(out, &f, &bad), "not folded: %s", bad);
	for (size_t i = 0; i < f.n; i++) {
		const char *s = f.lines[i].stack;

		if (strncmp(s, "jit;", 4))
			continue;
		total += f.lines[i].count;
		if (strstr(s, ";jit_spin_loop"))
			named += f.lines[i].count;
	}
	fprintf(stderr, "jit map after exit (%s): %lu samples, %lu in jit_spin_loop\n",
		_i ? "in the Debian 13 root" : "host", total, named);
	ck_assert_uint_ge(total, 100);
	ck_assert_uint_ge(named, total * 9 / 10);
	pk_folded_free(&f);
	free(out);
	free(err);
}
END_TEST

Suite *suite_symbols_roots(void)
{
	Suite *s = suite_create("symbols_roots");
	TCase *tc;

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tc = pk_e2e_tcase(s, "libc", 180);
	tcase_add_loop_test(tc, test_root_file_not_host_file, 0, 2);
	tc = pk_e2e_tcase(s, "jit", 60);
	tcase_add_loop_test(tc, test_jit_map_after_exit, 0, 2);
	return s;
}
