// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * bpf/kernel_fields.bpf.h on the running kernel: each reader of a field
 * whose type changed between kernels loads and reads the right value, on
 * either side of the change; and a read of the newer layout with no CO-RE
 * guard (tests/bpf/core_canary.bpf.c) is refused exactly where the kernel
 * lacks the field. Which side this kernel is on comes from its own BTF,
 * the independent oracle, never from its version. make check-kernels runs
 * this on 6.1 (before FRED's pt_regs) and on 6.12 and the host (after).
 */
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <inttypes.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "test_util.h"
#include "tests/bpf/core_canary.skel.h"

#define SYSCALLS	200

/* The type of member MEMBER of the running kernel's type ID, at any depth
 * of anonymous structs and unions, as CO-RE would find it, typedefs and
 * modifiers resolved; NULL when it has none. */
static const struct btf_type *btf_member_type(const struct btf *btf, __u32 id, const char *member)
{
	const struct btf_type *t = btf__type_by_id(btf, id), *found;
	const struct btf_member *m;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t))
		return NULL;
	m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		const char *name = btf__name_by_offset(btf, m->name_off);

		if (name && !strcmp(name, member)) {
			found = btf__type_by_id(btf, m->type);
			while (found && (btf_is_mod(found) || btf_is_typedef(found)))
				found = btf__type_by_id(btf, found->type);
			return found;
		}
		if ((!name || !*name) && (found = btf_member_type(btf, m->type, member)))
			return found;
	}
	return NULL;
}

/* Whether the running kernel's struct TYPE has a member MEMBER; with
 * COMPOSITE, one that is a struct or a union. */
static bool kernel_member(const char *type, const char *member, bool composite)
{
	struct btf *btf = btf__load_vmlinux_btf();
	const struct btf_type *m;
	__s32 id;
	bool has;

	ck_assert_msg(btf, "cannot read the kernel's BTF");
	id = btf__find_by_name_kind(btf, type, BTF_KIND_STRUCT);
	ck_assert_msg(id > 0, "the kernel's BTF has no struct %s", type);
	m = btf_member_type(btf, id, member);
	has = m && (!composite || btf_is_composite(m));
	btf__free(btf);
	return has;
}

static bool kernel_has_member(const char *type, const char *member)
{
	return kernel_member(type, member, false);
}

static __attribute__((noinline)) void spin_in_user(void);

/* [*LO, *HI): the executable mapping of this program that holds
 * spin_in_user(), from /proc/self/maps. */
static void user_text(__u64 *lo, __u64 *hi)
{
	uintptr_t at = (uintptr_t)spin_in_user;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];

	ck_assert_msg(f, "cannot read /proc/self/maps");
	*lo = *hi = 0;
	while (fgets(line, sizeof(line), f)) {
		uint64_t a, b;

		if (sscanf(line, "%" SCNx64 "-%" SCNx64, &a, &b) == 2 && a <= at && at < b) {
			*lo = a;
			*hi = b;
			break;
		}
	}
	fclose(f);
	ck_assert_msg(*hi, "no mapping of /proc/self/maps holds spin_in_user()");
}

/* Open the canary with only PROG to load; the load's result, libbpf's log
 * kept. */
static struct core_canary_bpf *canary_open(const char *prog, int *err)
{
	struct core_canary_bpf *skel = core_canary_bpf__open();
	struct bpf_program *p;

	ck_assert_msg(skel, "cannot open the canary object");
	skel->rodata->target_tgid = getpid();
	user_text(&skel->rodata->user_lo, &skel->rodata->user_hi);
	bpf_object__for_each_program(p, skel->obj)
		bpf_program__set_autoload(p, !strcmp(bpf_program__name(p), prog));
	pk_test_libbpf_log_start();
	*err = core_canary_bpf__load(skel);
	pk_test_libbpf_log_stop();
	return skel;
}

static void some_syscalls(void)
{
	for (int i = 0; i < SYSCALLS; i++)
		syscall(SYS_getppid);
}

START_TEST(test_regs_user_mode)
{
	int err;
	struct core_canary_bpf *skel = canary_open("canary_guarded", &err);

	ck_assert_msg(err == 0, "pk_regs_user_mode refused (%d) on a kernel %s pt_regs.csx:\n%s",
		      err, kernel_has_member("pt_regs", "csx") ? "with" : "without",
		      pk_test_libbpf_log());
	ck_assert_int_eq(core_canary_bpf__attach(skel), 0);
	some_syscalls();
	core_canary_bpf__detach(skel);
	/* every syscall of this process, ours and the test runner's own */
	ck_assert_msg(skel->bss->guarded_user >= SYSCALLS, "%llu of %d syscalls seen in user mode",
		      (unsigned long long)skel->bss->guarded_user, SYSCALLS);
	ck_assert_uint_eq(skel->bss->guarded_kernel, 0);
	core_canary_bpf__destroy(skel);
}
END_TEST

START_TEST(test_unguarded_read_refused_where_missing)
{
	bool has_csx = kernel_has_member("pt_regs", "csx");
	int err;
	struct core_canary_bpf *skel = canary_open("canary_unguarded", &err);

	if (has_csx) {
		ck_assert_msg(err == 0, "pt_regs.csx exists here, yet the read was refused (%d):\n%s",
			      err, pk_test_libbpf_log());
		ck_assert_int_eq(core_canary_bpf__attach(skel), 0);
		some_syscalls();
		core_canary_bpf__detach(skel);
		ck_assert_uint_ge(skel->bss->unguarded_user, SYSCALLS);
		ck_assert_uint_eq(skel->bss->unguarded_kernel, 0);
	} else {
		ck_assert_msg(err != 0, "this kernel has no pt_regs.csx, yet the unguarded read loaded");
		/* refused for the relocation, not for anything else */
		ck_assert_msg(strstr(pk_test_libbpf_log(), "csx") &&
			      strstr(pk_test_libbpf_log(), "failed to resolve CO-RE relocation"),
			      "refused, but not for pt_regs.csx:\n%s", pk_test_libbpf_log());
	}
	core_canary_bpf__destroy(skel);
}
END_TEST

/* This thread's CPU time, in ms. */
static __u64 thread_cpu_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (__u64)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Arithmetic in user mode for about 20 ms of CPU: a clock read (a system
 * call for a thread's CPU clock) every few million steps only, so that
 * cpu-clock samples land here, in user mode. */
static __attribute__((noinline)) void spin_in_user(void)
{
	volatile __u64 x = 1;
	__u64 until = thread_cpu_ms() + 20;

	do {
		for (int i = 0; i < 2000000; i++)
			x = x * 6364136223846793005ull + 1442695040888963407ull;
	} while (thread_cpu_ms() < until);
}

/* pk_perf_event_regs: a cpu-clock sample of a thread spinning in user mode
 * finds user-mode registers whose PC is in that thread's code. Given
 * &ctx->regs instead, a helper reads the kernel's context struct and
 * finds no user mode at all. What is judged is the user-mode samples: how
 * many land in the kernel is the machine's (interrupts, the clock reads;
 * a TCG guest on a loaded host: 8 of 40), not the program's. */
START_TEST(test_perf_event_regs)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.freq = 1,
		.sample_freq = 999,
	};
	struct core_canary_bpf *skel;
	struct bpf_link *link;
	__u64 in, out, kernel;
	int err, fd;

	skel = canary_open("canary_perf_regs", &err);
	ck_assert_msg(err == 0, "pk_perf_event_regs refused (%d):\n%s", err,
		      pk_test_libbpf_log());
	fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	ck_assert_msg(fd >= 0, "perf_event_open(cpu-clock) failed: %m");
	link = bpf_program__attach_perf_event(skel->progs.canary_perf_regs, fd);
	ck_assert_msg(link, "cannot attach to the cpu-clock event: %m");
	/* until 40 samples in user mode, whatever the clock's pace (a TCG
	 * guest's is slow), or 10 s of CPU */
	for (__u64 stop = thread_cpu_ms() + 10000; thread_cpu_ms() < stop;) {
		spin_in_user();
		if (skel->bss->perf_user_in + skel->bss->perf_user_out >= 40)
			break;
	}
	bpf_link__destroy(link);
	close(fd);
	in = skel->bss->perf_user_in;
	out = skel->bss->perf_user_out;
	kernel = skel->bss->perf_kernel;
	core_canary_bpf__destroy(skel);
	fprintf(stderr, "core: cpu-clock samples: %llu in the loop, %llu elsewhere in user mode, "
		"%llu in the kernel\n", (unsigned long long)in, (unsigned long long)out,
		(unsigned long long)kernel);
	/* nearly all of them in the loop (90%: the clock read's own code is
	 * elsewhere; a loaded TCG guest had 31 of 32) */
	ck_assert_msg(in + out >= 40 && in >= 9 * out,
		      "%llu samples in user mode in spin_in_user's mapping, %llu elsewhere in user "
		      "mode, %llu in the kernel", (unsigned long long)in, (unsigned long long)out,
		      (unsigned long long)kernel);
}
END_TEST

/* pk_mm_vma_seq: a count where mm_lock_seq is a seqcount (6.13+), which
 * an mmap and a munmap move on by two write locks each, even at a
 * syscall's entry; none elsewhere (an int before, or no field). */
START_TEST(test_mm_vma_seq)
{
	bool seqcount = kernel_member("mm_struct", "mm_lock_seq", true);
	int err;
	struct core_canary_bpf *skel = canary_open("canary_mm_seq", &err);
	__u32 before;
	void *p;

	ck_assert_msg(err == 0, "pk_mm_vma_seq refused (%d) on a kernel %s mm_lock_seq seqcount:\n%s",
		      err, seqcount ? "with a" : "without a", pk_test_libbpf_log());
	ck_assert_int_eq(core_canary_bpf__attach(skel), 0);
	syscall(SYS_getppid);
	before = skel->bss->mm_seq;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(p, MAP_FAILED);
	ck_assert_int_eq(munmap(p, 4096), 0);
	syscall(SYS_getppid);
	core_canary_bpf__detach(skel);
	if (seqcount) {
		ck_assert_uint_eq(skel->bss->mm_seq_unknown, 0);
		ck_assert_uint_ge(skel->bss->mm_seq_known, 4);	/* getppid, mmap, munmap, getppid */
		ck_assert_uint_eq(skel->bss->mm_seq % 2, 0);
		ck_assert_uint_ge(skel->bss->mm_seq - before, 4);
	} else {
		ck_assert_uint_eq(skel->bss->mm_seq_known, 0);
		ck_assert_uint_ge(skel->bss->mm_seq_unknown, 4);
	}
	core_canary_bpf__destroy(skel);
}
END_TEST

Suite *suite_core(void)
{
	Suite *s = suite_create("core");
	TCase *tc = tcase_create("pt_regs");

	if (!pk_test_need_root(s, "loads BPF programs"))
		return s;
	tcase_add_test(tc, test_regs_user_mode);
	tcase_add_test(tc, test_unguarded_read_refused_where_missing);
	suite_add_tcase(s, tc);
	tc = tcase_create("perf_event");
	tcase_add_test(tc, test_perf_event_regs);
	suite_add_tcase(s, tc);
	tc = tcase_create("mm_struct");
	tcase_add_test(tc, test_mm_vma_seq);
	suite_add_tcase(s, tc);
	return s;
}
