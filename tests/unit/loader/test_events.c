// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load's events before the kernel: -e's syntax (the options that go
 * with it are test_load_options'), "did you mean" names, and where uprobes and USDT probes go in
 * a file -- checked against readelf's notes, symbols and segments.
 */
#include <errno.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loader/events/elf_probe_sites.h"
#include "loader/events/event_spec.h"
#include "loader/events/suggest.h"
#include "test_util.h"

static char err[PK_ERR_LEN];

START_TEST(test_spec_forms)
{
	struct pk_event_spec sp;

	ck_assert_int_eq(pk_event_spec_parse("cpu-clock", &sp, err), 0);
	ck_assert(sp.kind == PK_EVK_PERF && sp.perf_type == PERF_TYPE_SOFTWARE &&
		  sp.perf_config == PERF_COUNT_SW_CPU_CLOCK && !sp.hardware);
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("cache-misses", &sp, err), 0);
	ck_assert(sp.perf_type == PERF_TYPE_HARDWARE &&
		  sp.perf_config == PERF_COUNT_HW_CACHE_MISSES && sp.hardware);
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("major-faults", &sp, err), 0);
	ck_assert(sp.perf_config == PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("off-cpu", &sp, err), 0);
	ck_assert_int_eq(sp.kind, PK_EVK_OFFCPU);
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("kprobe:vfs_write", &sp, err), 0);
	ck_assert(sp.kind == PK_EVK_KPROBE && !strcmp(sp.part[0], "vfs_write") && !sp.ret &&
		  !strcmp(sp.prefix, "kprobe"));
	pk_event_spec_free(&sp);
	/* the return probes: the same kinds, at the return */
	ck_assert_int_eq(pk_event_spec_parse("kretprobe:vfs_write", &sp, err), 0);
	ck_assert(sp.kind == PK_EVK_KPROBE && !strcmp(sp.part[0], "vfs_write") && sp.ret &&
		  !strcmp(sp.prefix, "kretprobe"));
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("uretprobe:/opt/a:b/bin:main", &sp, err), 0);
	ck_assert(sp.kind == PK_EVK_UPROBE && !strcmp(sp.part[0], "/opt/a:b/bin") &&
		  !strcmp(sp.part[1], "main") && sp.ret && !strcmp(sp.prefix, "uretprobe"));
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("tracepoint:block:block_rq_issue", &sp, err), 0);
	ck_assert_str_eq(sp.part[0], "block");
	ck_assert_str_eq(sp.part[1], "block_rq_issue");
	pk_event_spec_free(&sp);
	/* a path may hold colons; the symbol after the last one is the name */
	ck_assert_int_eq(pk_event_spec_parse("uprobe:/opt/a:b/bin:main", &sp, err), 0);
	ck_assert(sp.kind == PK_EVK_UPROBE && !strcmp(sp.part[0], "/opt/a:b/bin") &&
		  !strcmp(sp.part[1], "main") && !sp.part[2]);
	pk_event_spec_free(&sp);
	ck_assert_int_eq(pk_event_spec_parse("usdt:./x:python:gc__start", &sp, err), 0);
	ck_assert(sp.kind == PK_EVK_USDT && !strcmp(sp.part[0], "./x") &&
		  !strcmp(sp.part[1], "python") && !strcmp(sp.part[2], "gc__start"));
	pk_event_spec_free(&sp);
}
END_TEST

START_TEST(test_spec_refused)
{
	static const struct { const char *arg, *msg; } bad[] = {
		{ "cpuclock", "-e cpuclock: not an event (cpu-clock, cycles, instructions, cache-misses, page-faults, major-faults, off-cpu, kprobe:FUNC, kretprobe:FUNC, tracepoint:CATEGORY:NAME, uprobe:PATH:SYMBOL, uretprobe:PATH:SYMBOL, usdt:PATH:PROVIDER:NAME)" },
		{ "kprobe:", "-e kprobe:: not of the form kprobe:FUNC" },
		{ "kprobe:a:b", "-e kprobe:a:b: not of the form kprobe:FUNC" },
		{ "kretprobe:a:b", "-e kretprobe:a:b: not of the form kretprobe:FUNC" },
		{ "uretprobe:/bin/ls", "-e uretprobe:/bin/ls: not of the form uretprobe:PATH:SYMBOL" },
		{ "tracepoint:sched", "-e tracepoint:sched: not of the form tracepoint:CATEGORY:NAME" },
		{ "tracepoint:a:b:c", "-e tracepoint:a:b:c: not of the form tracepoint:CATEGORY:NAME" },
		{ "uprobe:/bin/ls", "-e uprobe:/bin/ls: not of the form uprobe:PATH:SYMBOL" },
		{ "uprobe::main", "-e uprobe::main: not of the form uprobe:PATH:SYMBOL" },
		{ "usdt:/bin/x:prov", "-e usdt:/bin/x:prov: not of the form usdt:PATH:PROVIDER:NAME" },
		{ "usdt:/bin/x:prov:", "-e usdt:/bin/x:prov:: not of the form usdt:PATH:PROVIDER:NAME" },
		{ "kfunc:vfs_write", "-e kfunc:vfs_write: unknown kind 'kfunc' (kprobe, kretprobe, tracepoint, uprobe, uretprobe or usdt)" },
	};
	struct pk_event_spec sp;
	char longname[PK_EVENT_NAME_MAX + 8];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_int_eq(pk_event_spec_parse(bad[i].arg, &sp, err), -EINVAL);
		ck_assert_str_eq(err, bad[i].msg);
		ck_assert_ptr_null(sp.arg);
	}
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	memcpy(longname, "kprobe:", 7);
	ck_assert_int_eq(pk_event_spec_parse(longname, &sp, err), -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "longer than 255 bytes"));
}
END_TEST

static const char *suggest(const char *want, const char *const *names)
{
	static char buf[256];
	struct pk_suggest s;

	pk_suggest_init(&s, want);
	for (; *names; names++)
		pk_suggest_offer(&s, *names, strlen(*names));
	pk_suggest_str(&s, buf, sizeof(buf));
	pk_suggest_free(&s);
	return buf;
}

START_TEST(test_suggest)
{
	const char *const fns[] = { "vfs_read", "vfs_write", "vfs_writev", "vfs_write",
				    "do_sys_open", "ksys_write", "x", NULL };

	/* vfs_read is 4 edits away: more than a third of the name */
	ck_assert_str_eq(suggest("vfs_wrte", fns), " (did you mean vfs_write, vfs_writev?)");
	/* a part of longer names, after every misspelling */
	ck_assert_str_eq(suggest("sys_open", fns), " (did you mean do_sys_open?)");
	ck_assert_str_eq(suggest("zzzzzzzz", fns), "");
	ck_assert_str_eq(suggest("", fns), "");
}
END_TEST

/* readelf's view of a file: its PT_LOADs, USDT notes and symbols. */
struct load_seg { uint64_t off, vaddr, filesz; };

static int read_segments(const char *path, struct load_seg *v, int max)
{
	char *argv[] = { "readelf", "-lW", (char *)path, NULL }, *out = NULL, *line;
	int n = 0;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long off, va, pa, fsz;

		if (sscanf(line, " LOAD 0x%llx 0x%llx 0x%llx 0x%llx", &off, &va, &pa, &fsz) == 4 &&
		    n < max)
			v[n++] = (struct load_seg){ off, va, fsz };
	}
	free(out);
	return n;
}

static uint64_t file_offset(const struct load_seg *v, int n, uint64_t addr)
{
	for (int i = 0; i < n; i++)
		if (addr >= v[i].vaddr && addr - v[i].vaddr < v[i].filesz)
			return addr - v[i].vaddr + v[i].off;
	ck_abort_msg("0x%" PRIx64 " in no segment", addr);
	return 0;
}

static const char *const python = "/usr/bin/python3.11";

START_TEST(test_usdt_against_readelf)
{
	char *argv[] = { "readelf", "-nW", (char *)python, NULL }, *out = NULL, *p;
	struct load_seg segs[8];
	int nseg = read_segments(python, segs, 8), notes = 0, with_sema = 0;

	ck_assert_int_gt(nseg, 1);
	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (p = strstr(out, "Provider: "); p; p = strstr(p + 1, "Provider: ")) {
		char prov[64], name[64];
		unsigned long long loc, base, sema;
		struct pk_probe_site *sites;
		size_t n;
		const char *q = strstr(p, "Name: "), *r = strstr(p, "Location: ");

		ck_assert(q && r);
		ck_assert_int_eq(sscanf(p, "Provider: %63s", prov), 1);
		ck_assert_int_eq(sscanf(q, "Name: %63s", name), 1);
		ck_assert_int_eq(sscanf(r, "Location: 0x%llx, Base: 0x%llx, Semaphore: 0x%llx",
					&loc, &base, &sema), 3);
		ck_assert_int_eq(pk_elf_usdt_sites(python, prov, name, &sites, &n, err), 0);
		/* a note may be placed more than once: this one among them */
		bool found = false;

		for (size_t i = 0; i < n; i++)
			found |= sites[i].offset == file_offset(segs, nseg, loc) &&
				 sites[i].ref_ctr_offset == (sema ? file_offset(segs, nseg, sema) : 0);
		ck_assert_msg(found, "%s:%s at 0x%llx (semaphore 0x%llx) not found", prov, name,
			      loc, sema);
		free(sites);
		notes++;
		with_sema += sema != 0;
	}
	free(out);
	ck_assert_int_ge(notes, 8);	/* python's audit, gc, function and import probes */
	ck_assert_int_eq(with_sema, notes);

	ck_assert_int_eq(pk_elf_usdt_sites(python, "python", "gc_start", &(struct pk_probe_site *){ 0 },
					   &(size_t){ 0 }, err), -ENOENT);
	ck_assert_str_eq(err, "no USDT note python:gc_start in /usr/bin/python3.11 (did you mean python:gc__start, python:gc__done?)");
	ck_assert_int_eq(pk_elf_usdt_sites("/bin/true", "a", "b", &(struct pk_probe_site *){ 0 },
					   &(size_t){ 0 }, err), -ENOENT);
	ck_assert_str_eq(err, "no USDT note a:b in /bin/true (it has no .note.stapsdt section)");
}
END_TEST

START_TEST(test_func_against_readelf)
{
	char *argv[] = { "readelf", "-sW", "--dyn-syms", (char *)python, NULL }, *out = NULL, *line;
	struct load_seg segs[8];
	int nseg = read_segments(python, segs, 8), checked = 0;

	ck_assert_int_eq(pk_test_run(argv, &out, NULL), 0);
	for (line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned long long value;
		char type[16], bind[16], vis[16], ndx[16], name[256];
		struct pk_probe_site site;

		if (sscanf(line, " %*d: %llx %*s %15s %15s %15s %15s %255s", &value, type, bind, vis,
			   ndx, name) != 6 || strcmp(type, "FUNC") || !strcmp(ndx, "UND") || !value ||
		    strchr(name, '@') || checked % 97 != 0) {
			checked += !strcmp(type, "FUNC") && value;
			continue;
		}
		checked++;
		ck_assert_int_eq(pk_elf_func_site(python, name, &site, err), 0);
		ck_assert_uint_eq(site.offset, file_offset(segs, nseg, value));
		ck_assert_uint_eq(site.ref_ctr_offset, 0);
	}
	free(out);
	ck_assert_int_gt(checked, 1000);
	ck_assert_int_eq(pk_elf_func_site(python, "Py_Initialise", &(struct pk_probe_site){ 0 }, err),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "no function Py_Initialise in /usr/bin/python3.11 (did you mean Py_Initialize"));
	ck_assert_int_eq(pk_elf_func_site("/etc/passwd", "x", &(struct pk_probe_site){ 0 }, err),
			 -ENOEXEC);
	ck_assert_str_eq(err, "/etc/passwd: not a 64-bit ELF file");
	ck_assert_int_eq(pk_elf_func_site("/nonexistent", "x", &(struct pk_probe_site){ 0 }, err),
			 -ENOENT);
	ck_assert_str_eq(err, "/nonexistent: No such file or directory");
}
END_TEST

/* A uprobe's file given by its bare name is looked for in PATH, as execvp
 * and bpftrace look: the first executable there, made absolute (realpath,
 * the oracle); a name with a '/' is the path it says. */
START_TEST(test_probe_file_in_path)
{
	char dir[] = "/tmp/pk-path-XXXXXX", exe[64], plain[64], env[128], *path, *want;
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(exe, sizeof(exe), "%s/pk-probed", dir);
	snprintf(plain, sizeof(plain), "%s/pk-plain", dir);
	pk_test_copy_file("/bin/true", exe, 0755);
	pk_test_copy_file("/bin/true", plain, 0644);	/* not executable: skipped */
	want = realpath(exe, NULL);
	ck_assert_ptr_nonnull(want);

	snprintf(env, sizeof(env), "/nonexistent::%s", dir);
	setenv("PATH", env, 1);
	ck_assert_int_eq(pk_probe_file("pk-probed", &path, err), 0);
	ck_assert_str_eq(path, want);
	free(path);
	ck_assert_int_eq(pk_probe_file("pk-plain", &path, err), -ENOENT);
	ck_assert_ptr_null(path);
	snprintf(env, sizeof(env), "pk-plain: not found in PATH (/nonexistent::%s)", dir);
	ck_assert_str_eq(err, env);
	/* with a '/': the path itself, PATH or not */
	ck_assert_int_eq(pk_probe_file(plain, &path, err), 0);
	{
		char *real = realpath(plain, NULL);

		ck_assert_str_eq(path, real);
		free(real);
	}
	free(path);
	ck_assert_int_eq(pk_probe_file("./pk-none/x", &path, err), -ENOENT);
	ck_assert_str_eq(err, "./pk-none/x: No such file or directory");

	if (saved)
		setenv("PATH", saved, 1);
	free(saved);
	free(want);
	unlink(exe);
	unlink(plain);
	rmdir(dir);
}
END_TEST

Suite *suite_events(void)
{
	Suite *s = suite_create("events");
	TCase *tc;

	tc = tcase_create("spec");
	tcase_add_test(tc, test_spec_forms);
	tcase_add_test(tc, test_spec_refused);
	tcase_add_test(tc, test_suggest);
	suite_add_tcase(s, tc);

	tc = tcase_create("probe_sites");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_usdt_against_readelf);
	tcase_add_test(tc, test_func_against_readelf);
	tcase_add_test(tc, test_probe_file_in_path);
	suite_add_tcase(s, tc);
	return s;
}
