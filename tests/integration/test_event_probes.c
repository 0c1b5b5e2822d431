// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Suite event_sources (test_event_sources.c), the probes: tracepoint hits
 * counted exactly, one and by pattern; kprobes and kretprobes (fentry and
 * fexit by default), by pattern too, and against bpftrace's counts; uprobe
 * and USDT hits; page faults, minor and major; block requests. Each on the
 * fixtures' four builds, with whole stacks where no frame pointer helps.
 */
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <glob.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/bpf/syscall_stack.skel.h"
#include "integration/event_run.h"
#include "integration/ftrace_count.h"
#include "test_util.h"

/* --- probes ------------------------------------------------------------- */

/* Count EVENT's samples in ev_calls' CHAIN, attached with -p to the
 * waiting fixture. */
static struct sum count_with_pid(const char *event, int variant, const char *chain,
				 const char *const *kframes)
{
	char path[4096], pid[16];
	struct pk_e2e_waiting w = pk_e2e_start_waiting(pk_ev_fixture("ev_calls", variant, path, sizeof(path)));
	const char *load[] = { "-p", pid, "-e", event, NULL };
	const char *read[] = { NULL };
	struct pk_folded f = { 0 };
	struct sum s;
	char *err = NULL;

	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_e2e_release(&w);
	pk_ev_read_folded(read, &f, &err);
	s = pk_ev_sum_chain(&f, chain, kframes);
	if (s.broken)
		pk_ev_show(&f, NULL);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
	return s;
}

/* The running kernel's own answer: whether a BPF program at
 * syscalls:sys_enter_write gets a kernel stack (tests/bpf/syscall_stack.bpf.c;
 * not on 6.1, which runs it on the user registers). */
static bool kernel_stack_at_sys_enter(void)
{
	struct syscall_stack_bpf *skel = syscall_stack_bpf__open();
	int fd = open("/dev/null", O_WRONLY);
	bool kernel;

	ck_assert_ptr_nonnull(skel);
	ck_assert_int_ge(fd, 0);
	skel->rodata->target_tgid = getpid();
	ck_assert_int_eq(syscall_stack_bpf__load(skel), 0);
	ck_assert_int_eq(syscall_stack_bpf__attach(skel), 0);
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(write(fd, "x", 1), 1);
	syscall_stack_bpf__detach(skel);
	close(fd);
	ck_assert_uint_ge(skel->bss->hits, 10);
	/* all or none: the answer is the kernel's, not the moment's */
	ck_assert(skel->bss->with_kernel_stack == 0 ||
		  skel->bss->with_kernel_stack == skel->bss->hits);
	kernel = skel->bss->with_kernel_stack > 0;
	syscall_stack_bpf__destroy(skel);
	return kernel;
}

/* Exactly the fixture's 1000 writes, in main;writer, through the syscall's
 * kernel entry where the kernel gives the tracepoint a kernel stack (and
 * with no kernel frame where it gives none); nothing else of it writes. */
START_TEST(test_tracepoint_write)
{
	const char *const kframes[] = { "entry_SYSCALL_64", NULL };
	bool kernel = kernel_stack_at_sys_enter();
	struct sum s = count_with_pid("tracepoint:syscalls:sys_enter_write", _i, ";main;writer;",
				      kernel ? kframes : NULL);

	fprintf(stderr, "tracepoint:syscalls:sys_enter_write %s: %llu in main;writer, %llu "
		"elsewhere (want %d, 0), %llu with kernel frames (the kernel gives %s)\n",
		pk_ev_variants[_i], s.chain, s.other, EV_WRITES, s.kernel,
		kernel ? "a kernel stack" : "none");
	ck_assert_msg(s.chain == EV_WRITES && s.other == 0,
		      "%s: %llu writes in main;writer (and %llu elsewhere), want %d",
		      pk_ev_variants[_i], s.chain, s.other, EV_WRITES);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_uint_eq(s.kernel, kernel ? EV_WRITES : 0);
}
END_TEST

/* The links of the session's event 0 pinned now. */
static int event0_links(void)
{
	char path[4200];
	struct dirent *de;
	DIR *d;
	int n = 0;

	snprintf(path, sizeof(path), "%s/links", pk_e2e_pin_dir());
	d = opendir(path);
	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		n += !strcmp(de->d_name, "e0") || !strncmp(de->d_name, "e0-", 3);
	closedir(d);
	return n;
}

/* A pattern: a link for each match (tracefs's directories, the oracle),
 * one event named as given, and exactly the fixture's writes, through
 * sys_enter_write, among its hits. */
START_TEST(test_tracepoint_pattern)
{
	const char *const kframes[] = { "entry_SYSCALL_64", NULL };
	const char *event = "tracepoint:syscalls:sys_enter_writ*";
	char path[4096], pid[16];
	struct pk_e2e_waiting w =
		pk_e2e_start_waiting(pk_ev_fixture("ev_calls", 0, path, sizeof(path)));
	const char *load[] = { "-p", pid, "-e", event, NULL };
	const char *read[] = { "--event", event, NULL };
	bool kernel = kernel_stack_at_sys_enter();
	struct pk_folded f = { 0 };
	char *err = NULL;
	struct sum s;
	glob_t g;

	ck_assert_int_eq(glob("/sys/kernel/tracing/events/syscalls/sys_enter_writ*/id", 0, NULL,
			      &g), 0);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(event0_links(), (int)g.gl_pathc);
	ck_assert_int_ge(g.gl_pathc, 2);	/* write and writev */
	globfree(&g);
	pk_e2e_release(&w);
	pk_ev_read_folded(read, &f, &err);
	s = pk_ev_sum_chain(&f, ";main;writer;", kernel ? kframes : NULL);
	fprintf(stderr, "%s: %llu in main;writer, %llu elsewhere (want %d, 0)\n", event, s.chain,
		s.other, EV_WRITES);
	ck_assert_msg(s.chain == EV_WRITES && s.other == 0, "%llu writes (and %llu elsewhere)",
		      s.chain, s.other);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

/* --- kprobes and kretprobes -------------------------------------------- */

/* The running kernel's own answer, asked as probe-load does not: whether
 * it loads the smallest fentry (FEXIT: fexit) program on vfs_write from its
 * BTF (0, or negative errno). */
static int kernel_trampoline(bool fexit)
{
	struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	struct btf *btf = btf__load_vmlinux_btf();
	int id = btf ? btf__find_by_name_kind(btf, "vfs_write", BTF_KIND_FUNC) : -ENOENT;
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = fexit ? BPF_TRACE_FEXIT : BPF_TRACE_FENTRY,
		    .attach_btf_id = id > 0 ? id : 0);
	int fd;

	btf__free(btf);
	if (id <= 0)
		return -ENOENT;
	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "t", "GPL", insns, 2, &opts);
	if (fd < 0)
		return fd;
	close(fd);
	return 0;
}

/* How the kernel says the session's event I is attached, from its pinned
 * link: BPF_TRACE_FENTRY or BPF_TRACE_FEXIT (a tracing link), -1 for a perf
 * event link (a kprobe or kretprobe), -2 for anything else. */
static int link_attach(unsigned int i)
{
	struct bpf_link_info info;
	__u32 len = sizeof(info);
	char path[4200];
	int fd, ret = -2;

	snprintf(path, sizeof(path), "%s/links/e%u", pk_e2e_pin_dir(), i);
	fd = bpf_obj_get(path);
	ck_assert_msg(fd >= 0, "%s: %s", path, strerror(errno));
	memset(&info, 0, sizeof(info));
	ck_assert_int_eq(bpf_obj_get_info_by_fd(fd, &info, &len), 0);
	if (info.type == BPF_LINK_TYPE_TRACING)
		ret = info.tracing.attach_type;
	else if (info.type == BPF_LINK_TYPE_PERF_EVENT)
		ret = -1;
	close(fd);
	return ret;
}

/* The lines of F holding CHAIN, each "STACK COUNT", sorted; LEAF (may be
 * NULL) must end each stack and is cut off. */
static char **chain_lines(const struct pk_folded *f, const char *chain, const char *leaf,
			  size_t *n)
{
	char **v = calloc(f->n + 1, sizeof(*v));
	size_t llen = leaf ? strlen(leaf) : 0;

	ck_assert_ptr_nonnull(v);
	*n = 0;
	for (size_t i = 0; i < f->n; i++) {
		const char *st = f->lines[i].stack;
		size_t len = strlen(st);

		if (!strstr(st, chain))
			continue;
		ck_assert_msg(len > llen && !strcmp(st + len - llen, leaf ? leaf : ""),
			      "%s is not the leaf: %s", leaf, st);
		ck_assert_int_gt(asprintf(&v[(*n)++], "%.*s %lu", (int)(len - llen), st,
					  f->lines[i].count), 0);
	}
	qsort(v, *n, sizeof(*v), pk_ev_cmp_str);
	return v;
}

/*
 * kprobe:vfs_write and kretprobe:vfs_write in one session, with -c 1: by
 * fentry and fexit where the kernel allows them (iterations 0, 1), by a
 * kprobe and a kretprobe with --no-fentry (2, 3); the fixture started by
 * probe-load (-- CMD: even iterations) or followed (-p: odd). Each event
 * has exactly the fixture's 1000 writes, whole stacks in main;writer and
 * nothing else; at entry the kernel part ends in vfs_write; at the return
 * it is the same stack without vfs_write, the one vfs_write returns to.
 * The kernel's own link says which way each is attached.
 *
 * Where the kernel cannot attach them (no kprobes, fentry refused: the
 * host's 6.18), probe-load must say so in one line, exit 2 and leave
 * nothing pinned -- and the kernel must really be unable.
 */
START_TEST(test_kprobe_kretprobe)
{
	static const char *const events[] = { "kprobe:vfs_write", "kretprobe:vfs_write" };
	const bool no_fentry = _i >= 2, by_pid = _i & 1;
	const int variant = _i % NVARIANTS;
	const int fentry = kernel_trampoline(false), fexit = kernel_trampoline(true);
	const bool kprobes = pk_ev_kernel_has_kprobes();
	const bool can = kprobes || (!no_fentry && !fentry && !fexit);
	char path[4096], loader[4096], pid[16], dir[] = "/tmp/pk-ev-XXXXXX", pattern[64];
	char *argv[16] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "-c", "1", "-e",
			   (char *)events[0], "-e", (char *)events[1] };
	const char *read[] = { "-o", pattern, NULL };
	struct pk_folded f[2] = { { 0 } };
	const char *const kframes[] = { "entry_SYSCALL_64", NULL };
	struct pk_e2e_waiting w = { .pid = -1 };
	char **lines[2], *err = NULL, *out = NULL;
	size_t nlines[2];
	int status, n = 9, links = pk_e2e_perf_links();

	pk_ev_fixture("ev_calls", variant, path, sizeof(path));
	pk_test_build_path("probe-load", loader, sizeof(loader));
	if (no_fentry)
		argv[n++] = "--no-fentry";
	if (by_pid) {
		w = pk_e2e_start_waiting(path);
		snprintf(pid, sizeof(pid), "%d", (int)w.pid);
		argv[n++] = "-p";
		argv[n++] = pid;
	} else {
		argv[n++] = "--";
		argv[n++] = path;
	}
	status = pk_test_run(argv, NULL, &err);
	ck_assert(WIFEXITED(status));
	if (!can) {
		/* the first event that cannot attach, and the kernel's reason */
		const char *refused = no_fentry || fentry ? events[0] : events[1];
		const char *why = no_fentry ? "--no-fentry, and this kernel has no kprobes" :
					      strerror(-(fentry ? fentry : fexit));
		char head[64];

		if (by_pid) {
			close(w.release_fd);
			kill(w.pid, SIGKILL);
			waitpid(w.pid, NULL, 0);
		}
		snprintf(head, sizeof(head), "probe-load: %s: ", refused);
		ck_assert_msg(WEXITSTATUS(status) == 2, "exit %d: %s", WEXITSTATUS(status), err);
		ck_assert_msg(pk_e2e_one_line(err) && !strncmp(err, head, strlen(head)),
			      "not one line naming %s: %s", refused, err);
		ck_assert_msg(strstr(err, why), "the reason is not '%s': %s", why, err);
		pk_ev_assert_unpinned();
		ck_assert_int_eq(pk_e2e_perf_links(), links);
		fprintf(stderr, "%s%s: this kernel cannot attach it (kprobes %d, fentry %d, fexit %d); "
			"refusal checked instead\n", no_fentry ? "--no-fentry " : "", refused,
			kprobes, fentry, fexit);
		free(err);
		return;
	}
	/* a refused load prints the verifier's log: its end says why */
	ck_assert_msg(WEXITSTATUS(status) == 0, "%s%s: exit %d on a kernel that can (kprobes %d, "
		      "fentry %d, fexit %d): ...%s", no_fentry ? "--no-fentry " : "", events[0],
		      WEXITSTATUS(status), kprobes, fentry, fexit,
		      err + (strlen(err) > 300 ? strlen(err) - 300 : 0));
	/* fentry and fexit where the kernel loads them, else kprobes: asked
	 * of the links while the -p target waits (with -- CMD, probe-load
	 * returned when the command had exited, and the session unpinned its
	 * links then); the attachment does not depend on how targets come */
	if (by_pid) {
		ck_assert_int_eq(link_attach(0), no_fentry || fentry ? -1 : BPF_TRACE_FENTRY);
		ck_assert_int_eq(link_attach(1), no_fentry || fexit ? -1 : BPF_TRACE_FEXIT);
	}
	free(err);
	if (by_pid)
		pk_e2e_release(&w);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pattern, sizeof(pattern), "%s/{event}.folded", dir);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	for (int e = 0; e < 2; e++) {
		char file[128];
		struct sum s;

		snprintf(file, sizeof(file), "%s/%s.folded", dir, events[e]);
		pk_ev_read_folded_file(file, &f[e]);
		unlink(file);
		s = pk_ev_sum_chain(&f[e], ";main;writer;", kframes);
		fprintf(stderr, "%s%s %s %s: %llu in main;writer, %llu elsewhere (want %d, 0)\n",
			no_fentry ? "--no-fentry " : "", events[e], by_pid ? "-p" : "--",
			pk_ev_variants[variant], s.chain, s.other, EV_WRITES);
		if (s.chain != EV_WRITES || s.other || s.broken)
			pk_ev_show(&f[e], NULL);
		ck_assert_msg(s.chain == EV_WRITES && s.other == 0,
			      "%s: %llu in main;writer (and %llu elsewhere), want %d", events[e],
			      s.chain, s.other, EV_WRITES);
		ck_assert_uint_eq(s.broken, 0);
		/* entry: vfs_write the leaf; return: the same stacks without it */
		lines[e] = chain_lines(&f[e], ";main;writer;", e ? NULL : ";vfs_write_[k]",
				       &nlines[e]);
	}
	ck_assert_int_eq(rmdir(dir), 0);
	ck_assert_uint_eq(nlines[0], nlines[1]);
	for (size_t i = 0; i < nlines[0]; i++)
		ck_assert_msg(!strcmp(lines[0][i], lines[1][i]),
			      "kretprobe: not the stack vfs_write returns to:\n  %s\n  want %s",
			      lines[1][i], lines[0][i]);
	for (int e = 0; e < 2; e++) {
		for (size_t i = 0; i < nlines[e]; i++)
			free(lines[e][i]);
		free(lines[e]);
		pk_folded_free(&f[e]);
	}
	free(out);
	free(err);
}
END_TEST

/*
 * bpftrace, where installed, agrees: it counts the same 1000 writes of the
 * fixture by a kretprobe on vfs_write where probe-load --no-fentry attaches
 * one, and cannot attach it where probe-load refuses. No time limit but the
 * case's: bpftrace ends when the fixture does, and its start-up takes a
 * minute in an emulated guest.
 */
START_TEST(test_kprobe_bpftrace_agrees)
{
	char loader[4096], path[4096];
	char *ours[] = { loader, "--pin-dir", (char *)pk_e2e_pin_dir(), "--no-fentry", "-e",
			 "kretprobe:vfs_write", NULL };
	char *theirs[] = { "bpftrace", "-e", "kretprobe:vfs_write /pid == cpid/ { @writes = count(); }",
			   "-c", path, NULL };
	char *which[] = { "sh", "-c", "command -v bpftrace", NULL };
	char *out = NULL, *err = NULL;
	int st_ours, st_theirs;

	if (pk_test_run(which, NULL, NULL) != 0) {
		ck_assert_msg(!pk_ev_ci(), "bpftrace is missing (CI=true)");
		return;
	}
	pk_ev_fixture("ev_calls", 0, path, sizeof(path));
	pk_test_build_path("probe-load", loader, sizeof(loader));
	st_ours = pk_test_run(ours, NULL, NULL);
	if (WIFEXITED(st_ours) && WEXITSTATUS(st_ours) == 0)
		ck_assert_int_eq(pk_e2e_unload(), 0);
	st_theirs = pk_test_run(theirs, &out, &err);
	fprintf(stderr, "bpftrace kretprobe:vfs_write: exit %d, %s", WEXITSTATUS(st_theirs),
		strstr(out, "@writes") ? strstr(out, "@writes") : "no count\n");
	ck_assert_msg(WIFEXITED(st_ours) && WIFEXITED(st_theirs) &&
		      (WEXITSTATUS(st_ours) == 0) == (WEXITSTATUS(st_theirs) == 0),
		      "probe-load exited %d, bpftrace %d: %s", WEXITSTATUS(st_ours),
		      WEXITSTATUS(st_theirs), err);
	if (WEXITSTATUS(st_theirs) == 0)
		ck_assert_msg(strstr(out, "@writes: 1000\n"), "bpftrace counted: %s", out);
	free(out);
	free(err);
}
END_TEST

/* The file {event} named in DIR for EVENT holds exactly WANT samples, all
 * whole stacks in CHAIN (LEAF: CHAIN ends each). */
static void check_event_file(const char *dir, const char *event, const char *chain, bool leaf,
			     unsigned long long want, int variant)
{
	const char *const none[] = { NULL };
	struct pk_folded f = { 0 };
	char file[4400];
	struct sum s;

	/* {event}: the event's name, '/' made '_' */
	snprintf(file, sizeof(file), "%s/%s.folded", dir, event);
	for (char *c = file + strlen(dir) + 1; *c; c++)
		*c = *c == '/' ? '_' : *c;
	pk_ev_read_folded_file(file, &f);
	s = pk_ev_sum_chain(&f, chain, none);
	fprintf(stderr, "%s %s: %llu hits in %s, %llu elsewhere (want %llu, 0)\n", event,
		pk_ev_variants[variant], s.chain, chain, s.other, want);
	if (s.chain != want || s.other)
		pk_ev_show(&f, NULL);
	ck_assert_msg(s.chain == want && s.other == 0,
		      "%s %s: %llu hits in %s (and %llu elsewhere), want %llu",
		      pk_ev_variants[variant], event, s.chain, chain, s.other, want);
	ck_assert_uint_eq(s.broken, 0);
	for (size_t i = 0; i < f.n && leaf; i++) {
		const char *st = f.lines[i].stack;
		size_t len = strlen(st), clen = strlen(chain);

		ck_assert_msg(len > clen && !strcmp(st + len - clen, chain),
			      "%s: %s does not end the stack: %s", event, chain, st);
	}
	pk_folded_free(&f);
	unlink(file);
}

/*
 * uprobe, uretprobe and USDT (with its semaphore: ev_calls reaches the
 * probe only while a tracer has set it), exactly the known number of hits
 * each, read in one pass into a file per event: hot_fn's calls in
 * main;caller;hot_fn, its returns in main;caller, the stack it returns to.
 * Then -c 7 samples exactly one call in seven.
 */
START_TEST(test_uprobe_usdt)
{
	char path[4096], up[4200], uret[4200], usdt[4200], dir[] = "/tmp/pk-ev-XXXXXX",
	     pattern[64], every[16];
	const char *read[] = { "-o", pattern, NULL };
	const char *const none[] = { NULL };
	struct pk_folded f = { 0 };
	struct sum s;
	char *out = NULL, *err = NULL;

	pk_ev_fixture("ev_calls", _i, path, sizeof(path));
	snprintf(up, sizeof(up), "uprobe:%s:hot_fn", path);
	snprintf(uret, sizeof(uret), "uretprobe:%s:hot_fn", path);
	snprintf(usdt, sizeof(usdt), "usdt:%s:probekit:tick", path);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pattern, sizeof(pattern), "%s/{event}.folded", dir);
	{
		const char *load[] = { "-e", up, "-e", uret, "-e", usdt, "--", path, NULL };

		ck_assert_int_eq(pk_e2e_load(load), 0);
	}
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);

	check_event_file(dir, up, ";main;caller;hot_fn", true, EV_CALLS, _i);
	check_event_file(dir, uret, ";main;caller", true, EV_CALLS, _i);
	check_event_file(dir, usdt, ";main;ticker", false, EV_TICKS, _i);
	ck_assert_int_eq(rmdir(dir), 0);
	free(out);
	free(err);

	/* one call in seven: 777 / 7, exactly, the hits counted across CPUs */
	snprintf(every, sizeof(every), "%d", 7);
	{
		const char *load[] = { "-e", up, "-c", every, "--", path, NULL };
		const char *read1[] = { NULL };

		ck_assert_int_eq(pk_e2e_load(load), 0);
		pk_ev_read_folded(read1, &f, &err);
	}
	s = pk_ev_sum_chain(&f, ";main;caller;hot_fn", none);
	fprintf(stderr, "-c 7 %s: %llu samples of hot_fn (want %d)\n", pk_ev_variants[_i], s.chain,
		EV_CALLS / 7);
	ck_assert_msg(s.chain == EV_CALLS / 7, "%s -c 7: %llu samples, want %d", pk_ev_variants[_i],
		      s.chain, EV_CALLS / 7);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

/* uprobe:NAME:SYMBOL with a bare file name: found in PATH, as bpftrace
 * finds it, and named by its absolute path (the file's name in {event}). */
START_TEST(test_uprobe_found_in_path)
{
	char path[4096], bare[4200], named[4200], env[4400], dir[] = "/tmp/pk-ev-XXXXXX",
	     pattern[64], *real, *slash;
	const char *read[] = { "-o", pattern, NULL };
	const char *old = getenv("PATH");
	char *saved = old ? strdup(old) : NULL, *out = NULL, *err = NULL;

	pk_ev_fixture("ev_calls", 0, path, sizeof(path));
	real = realpath(path, NULL);
	ck_assert_ptr_nonnull(real);
	slash = strrchr(path, '/');
	snprintf(bare, sizeof(bare), "uprobe:%s:hot_fn", slash + 1);
	snprintf(named, sizeof(named), "uprobe:%s:hot_fn", real);
	snprintf(env, sizeof(env), "%.*s:%s", (int)(slash - path), path, saved ? saved : "/bin");
	setenv("PATH", env, 1);	/* probe-load's, inherited */
	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(pattern, sizeof(pattern), "%s/{event}.folded", dir);
	{
		const char *load[] = { "-e", bare, "--", path, NULL };

		ck_assert_int_eq(pk_e2e_load(load), 0);
	}
	if (saved)
		setenv("PATH", saved, 1);
	ck_assert_int_eq(pk_e2e_read(read, &out, &err), 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	check_event_file(dir, named, ";main;caller;hot_fn", true, EV_CALLS, 0);
	ck_assert_int_eq(rmdir(dir), 0);
	free(real);
	free(saved);
	free(out);
	free(err);
}
END_TEST

/*
 * page-faults: toucher writes once to each of 2000 new anonymous pages
 * (huge pages off): a fault each. A fault the kernel retries (after waiting
 * for a lock) is counted again, hence up to 1% more.
 */
START_TEST(test_page_faults)
{
	char path[4096];
	const char *load[] = { "-e", "page-faults", "--", pk_ev_fixture("ev_calls", _i, path, sizeof(path)),
			       NULL };
	const char *read[] = { NULL };
	const char *const none[] = { NULL };
	struct pk_folded f = { 0 };
	struct sum s;
	char *err = NULL;

	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_ev_read_folded(read, &f, &err);
	s = pk_ev_sum_chain(&f, ";main;toucher", none);
	fprintf(stderr, "page-faults %s: %llu in main;toucher (want %d, +1%%)\n",
		pk_ev_variants[_i], s.chain, EV_PAGES);
	ck_assert_msg(s.chain >= EV_PAGES && s.chain <= EV_PAGES + EV_PAGES / 100,
		      "%s: %llu faults in main;toucher, want %d (+1%%)", pk_ev_variants[_i],
		      s.chain, EV_PAGES);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

/*
 * major-faults: major_reader maps a file of 2048 pages, just written and
 * synced, after dropping it from the page cache, and reads each page once
 * without read-ahead: a major fault each, all in main;major_reader. A page
 * the kernel keeps or brings in with a neighbour is a fault fewer (at most
 * 5% here); never more.
 */
#define EV_MAJOR_PAGES	2048

START_TEST(test_major_faults)
{
	char path[4096], file[4096], page[4096];
	const char *load[] = { "-e", "major-faults", "--", pk_ev_fixture("ev_calls", _i, path, sizeof(path)),
			       "--major", file, NULL };
	const char *read[] = { NULL };
	const char *const none[] = { NULL };
	struct pk_folded f = { 0 };
	struct sum s;
	char *err = NULL;
	FILE *out;

	/* on a disk's filesystem: tmpfs pages fault minor */
	snprintf(page, sizeof(page), "fixture-major-%d", (int)getpid());
	pk_test_disk_path(page, file, sizeof(file));
	memset(page, 'm', sizeof(page));
	out = fopen(file, "w");
	ck_assert_ptr_nonnull(out);
	for (int i = 0; i < EV_MAJOR_PAGES; i++)
		ck_assert_uint_eq(fwrite(page, sizeof(page), 1, out), 1);
	ck_assert_int_eq(fflush(out), 0);
	ck_assert_int_eq(fsync(fileno(out)), 0);
	ck_assert_int_eq(fclose(out), 0);

	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_ev_read_folded(read, &f, &err);
	unlink(file);
	s = pk_ev_sum_chain(&f, ";main;major_reader", none);
	fprintf(stderr, "major-faults %s: %llu in main;major_reader (want %d, -5%%)\n",
		pk_ev_variants[_i], s.chain, EV_MAJOR_PAGES);
	if (s.chain < EV_MAJOR_PAGES * 95 / 100 || s.chain > EV_MAJOR_PAGES)
		pk_ev_show(&f, NULL);
	ck_assert_msg(s.chain >= EV_MAJOR_PAGES * 95 / 100 && s.chain <= EV_MAJOR_PAGES,
		      "%s: %llu major faults in main;major_reader, want %d (-5%%)",
		      pk_ev_variants[_i], s.chain, EV_MAJOR_PAGES);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

/*
 * block:block_rq_issue while the fixture makes EV_DIRECT writes of 1 MiB
 * with O_DIRECT to a file on a disk's filesystem (pk_test_disk_path;
 * O_DIRECT bypasses the page cache). The block layer issues a request from
 * the writer's own system call, or, when the disk's queue is busy (another
 * writer), from a kworker later: how many are the writer's is the kernel's
 * to say, and the kernel's own tracer counts them (ftrace, the same
 * tracepoint filtered by the writer's pid, attached before it starts).
 * Every one of those is a sample under main;direct_writer, with the block
 * layer's kernel frames; none elsewhere in the fixture. A quiet disk issues
 * one at least per write (under another make check: 11 of 64 once).
 */
START_TEST(test_block_rq_issue)
{
	char path[4096], dir[4096], pid[16];
	const char *odirect[] = { "--odirect", pk_test_disk_path("", dir, sizeof(dir)), NULL };
	const char *load[] = { "-p", pid, "-e", "tracepoint:block:block_rq_issue", "-c", "1",
			       NULL };
	const char *read[] = { NULL };
	const char *const kframes[] = { "blk_", NULL };
	struct pk_ftrace_count ft;
	struct pk_e2e_waiting w;
	struct pk_folded f = { 0 };
	unsigned long kernel;
	struct sum s;
	char *err = NULL;

	w = pk_e2e_start_waiting_with(pk_ev_fixture("ev_calls", _i, path, sizeof(path)), odirect);
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	pk_ftrace_count_start(&ft, "block/block_rq_issue", w.pid);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	pk_e2e_release(&w);
	kernel = pk_ftrace_count_stop(&ft);
	pk_ev_read_folded(read, &f, &err);
	s = pk_ev_sum_chain(&f, ";main;direct_writer;", kframes);
	fprintf(stderr, "block:block_rq_issue %s: %llu requests under main;direct_writer, %llu "
		"elsewhere; ftrace: %lu issued by the writer (of its %d writes)\n",
		pk_ev_variants[_i], s.chain, s.other, kernel, EV_DIRECT);
	if (s.chain != kernel || s.other || s.broken)
		pk_ev_show(&f, NULL);
	ck_assert_msg(kernel > 0, "ftrace: no request issued by the writer");
	ck_assert_msg(s.chain == kernel && s.other == 0, "%s: %llu block requests under "
		      "main;direct_writer (%llu elsewhere), ftrace %lu", pk_ev_variants[_i],
		      s.chain, s.other, kernel);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST


/* The kernel functions available_filter_functions lists (the oracle of
 * what a kprobe attaches to) that PATTERN matches, each once. */
static int filter_functions_matching(const char *pattern)
{
	char *text = pk_test_read_file("/sys/kernel/tracing/available_filter_functions", NULL);
	char *save = NULL, *line, last[256] = "";
	int n = 0;

	ck_assert_ptr_nonnull(text);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		line[strcspn(line, " \t")] = '\0';
		if (!fnmatch(pattern, line, 0) && strcmp(line, last)) {
			snprintf(last, sizeof(last), "%s", line);
			n++;
		}
	}
	free(text);
	return n;
}

/* A kprobe pattern: a link for each match, and exactly the fixture's 1000
 * writes through vfs_write, under the syscall's kernel entry, where the
 * kernel has kprobes (6.1 and 6.12 of the matrix); elsewhere the pattern is
 * refused in one line (test_pattern_refusals). */
START_TEST(test_kprobe_pattern)
{
	const char *const kframes[] = { "entry_SYSCALL_64", NULL };
	const char *event = "kprobe:vfs_writ[e]";
	char path[4096], pid[16];
	struct pk_e2e_waiting w;
	const char *load[] = { "-p", pid, "-e", event, "-c", "1", NULL };
	const char *read[] = { "--event", event, NULL };
	struct pk_folded f = { 0 };
	char *err = NULL;
	struct sum s;
	int matches;

	if (!pk_ev_kernel_has_kprobes()) {
		fprintf(stderr, "%s: this kernel has no kprobes: refused (test_pattern_refusals)\n",
			event);
		return;
	}
	matches = filter_functions_matching("vfs_writ[e]");
	ck_assert_int_eq(matches, 1);
	w = pk_e2e_start_waiting(pk_ev_fixture("ev_calls", 0, path, sizeof(path)));
	snprintf(pid, sizeof(pid), "%d", (int)w.pid);
	ck_assert_int_eq(pk_e2e_load(load), 0);
	ck_assert_int_eq(event0_links(), matches);
	pk_e2e_release(&w);
	pk_ev_read_folded(read, &f, &err);
	s = pk_ev_sum_chain(&f, ";main;writer;", kframes);
	fprintf(stderr, "%s: %llu in main;writer, %llu elsewhere (want %d, 0), %llu with kernel "
		"frames\n", event, s.chain, s.other, EV_WRITES, s.kernel);
	ck_assert_msg(s.chain == EV_WRITES && s.other == 0, "%llu writes (and %llu elsewhere)",
		      s.chain, s.other);
	ck_assert_uint_eq(s.broken, 0);
	ck_assert_uint_eq(s.kernel, EV_WRITES);
	ck_assert_int_eq(pk_e2e_unload(), 0);
	pk_folded_free(&f);
	free(err);
}
END_TEST

void pk_ev_probes_tcases(Suite *s)
{
	TCase *tc;

	tc = pk_e2e_tcase(s, "probes", 120);
	tcase_add_loop_test(tc, test_tracepoint_write, 0, NVARIANTS);
	tcase_add_test(tc, test_tracepoint_pattern);
	tcase_add_test(tc, test_kprobe_pattern);
	tcase_add_loop_test(tc, test_kprobe_kretprobe, 0, 4);
	tcase_add_loop_test(tc, test_uprobe_usdt, 0, NVARIANTS);
	tcase_add_test(tc, test_uprobe_found_in_path);
	tcase_add_loop_test(tc, test_page_faults, 0, NVARIANTS);
	tcase_add_loop_test(tc, test_major_faults, 0, NVARIANTS);
	tcase_add_loop_test(tc, test_block_rq_issue, 0, NVARIANTS);
	tc = pk_e2e_tcase(s, "bpftrace", 600);
	tcase_add_test(tc, test_kprobe_bpftrace_agrees);
}
