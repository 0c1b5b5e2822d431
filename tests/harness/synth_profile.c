// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
#include "harness/synth_profile.h"
#include "test_util.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum { M_APP, M_LIBC, M_WEIRD, M_KERNEL, M_NFCT, NMODULES };

static const struct pk_module modules[NMODULES] = {
	[M_APP]    = { M_APP, "/usr/bin/app", "0123456789abcdef" },
	[M_LIBC]   = { M_LIBC, "/usr/lib/x86_64-linux-gnu/libc.so.6", NULL },
	[M_WEIRD]  = { M_WEIRD, "/opt/my;lib/libweird.so", NULL },
	[M_KERNEL] = { M_KERNEL, "[kernel.kallsyms]", NULL },
	[M_NFCT]   = { M_NFCT, "[nf_conntrack]", NULL },
};

static const struct pk_map maps[NMODULES] = {
	[M_APP]    = { M_APP, 0x555555554000, 0x555555600000, 0, &modules[M_APP] },
	[M_LIBC]   = { M_LIBC, 0x7ffff7800000, 0x7ffff7990000, 0x28000, &modules[M_LIBC] },
	[M_WEIRD]  = { M_WEIRD, 0x7ffff7a00000, 0x7ffff7a10000, 0, &modules[M_WEIRD] },
	[M_KERNEL] = { M_KERNEL, 0xffffffff81000000, 0xffffffff83000000, 0, &modules[M_KERNEL] },
	[M_NFCT]   = { M_NFCT, 0xffffffffc0a00000, 0xffffffffc0a20000, 0, &modules[M_NFCT] },
};

static const struct pk_frame
	f_main[] = { { "main", "/src/app/main.c", 42 } },
	f_main2[] = { { "main", "/src/app/main.c", 44 } },
	f_work[] = { { "do work(int, char const*)", "/src/app/work.c", 7 } },
	/* helper() inlined into compute(), innermost first */
	f_inl[] = { { "helper", "/src/app/helper.h", 12 }, { "compute", "/src/app/work.c", 30 } },
	f_start[] = { { "__libc_start_call_main", NULL, 0 } },
	f_quote[] = { { "say \"hi\" \\ 'there'", "/src/app/q.c", 3 } },
	f_uni[] = { { "gr\xc3\xbc\xc3\x9f" "e_\xce\xbb_\xf0\x9f\x98\x80", "/src/app/\xc3\xbc.c", 9 } },
	f_ctrl[] = { { "bad\nname\t1", "/src/app/main.c", 50 } },
	f_semi[] = { { "ns::a;b", "/src/app/main.c", 60 } },
	f_nosym[] = { { "[libweird.so+0x10]", NULL, 0 } },
	f_nomap[] = { { "jit stub", NULL, 0 } },
	f_entry[] = { { "entry_SYSCALL_64_after_hwframe", NULL, 0 } },
	f_sys[] = { { "do_syscall_64", "arch/x86/entry/common.c", 80 } },
	f_nfct[] = { { "nf_conntrack_in", NULL, 0 } },
	f_kfunc[] = { { "kfunc", NULL, 0 } };

enum {
	L_MAIN, L_MAIN2, L_WORK, L_INL, L_START, L_QUOTE, L_UNI, L_CTRL, L_SEMI, L_NOSYM, L_NOMAP,
	K_ENTRY, K_SYS, K_NFCT, K_NOMAP, NLOCS
};

#define LOC(i, k, fr, a, m, maddr, off) \
	[i] = { i, k, ARRAY_SIZE(fr), a, m, maddr, off, fr }

static const struct pk_loc locs[NLOCS] = {
	LOC(L_MAIN, false, f_main, 0x555555555200, &maps[M_APP], 0x1200, 0x20),
	LOC(L_MAIN2, false, f_main2, 0x555555555230, &maps[M_APP], 0x1230, 0x30),
	LOC(L_WORK, false, f_work, 0x555555555310, &maps[M_APP], 0x1310, 0x10),
	LOC(L_INL, false, f_inl, 0x555555555444, &maps[M_APP], 0x1444, 0x44),
	LOC(L_START, false, f_start, 0x7ffff7829d90, &maps[M_LIBC], 0x29d90, 0x80),
	LOC(L_QUOTE, false, f_quote, 0x555555555500, &maps[M_APP], 0x1500, 0x0),
	LOC(L_UNI, false, f_uni, 0x555555555601, &maps[M_APP], 0x1601, 0x1),
	LOC(L_CTRL, false, f_ctrl, 0x555555555700, &maps[M_APP], 0x1700, 0x8),
	LOC(L_SEMI, false, f_semi, 0x555555555800, &maps[M_APP], 0x1800, 0xc),
	LOC(L_NOSYM, false, f_nosym, 0x7ffff7a00010, &maps[M_WEIRD], 0x10, PK_LOC_NO_SYM),
	LOC(L_NOMAP, false, f_nomap, 0x7f0000001234, NULL, 0, PK_LOC_NO_SYM),
	LOC(K_ENTRY, true, f_entry, 0xffffffff82000130, &maps[M_KERNEL], 0xffffffff82000130, 0x30),
	LOC(K_SYS, true, f_sys, 0xffffffff81e00065, &maps[M_KERNEL], 0xffffffff81e00065, 0x65),
	LOC(K_NFCT, true, f_nfct, 0xffffffffc0a01020, &maps[M_NFCT], 0x1020, 0x120),
	LOC(K_NOMAP, true, f_kfunc, 0xffffffff81100005, NULL, 0, 0x5),
};

/* Each stack: its kernel part, then its user part, each leaf first. */
static const struct pk_loc *const s_plain[] = {
	&locs[L_WORK], &locs[L_MAIN], &locs[L_START],
};
static const struct pk_loc *const s_syscall[] = {
	&locs[K_SYS], &locs[K_ENTRY],
	&locs[L_INL], &locs[L_WORK], &locs[L_MAIN], &locs[L_START],
};
static const struct pk_loc *const s_names[] = {
	&locs[L_QUOTE], &locs[L_UNI], &locs[L_SEMI], &locs[L_MAIN2],
};
static const struct pk_loc *const s_odd[] = {
	&locs[K_NFCT], &locs[K_NOMAP], &locs[L_NOSYM], &locs[L_NOMAP], &locs[L_CTRL],
};
static const struct pk_loc *const s_kthread[] = { &locs[K_SYS] };

enum { S_PLAIN, S_SYSCALL, S_NAMES, S_ODD, S_EMPTY, S_KTHREAD, NSTACKS };

static const struct pk_stack_view stacks[NSTACKS] = {
	[S_PLAIN]   = { S_PLAIN, 100, "my app", 0, 3, s_plain },
	[S_SYSCALL] = { S_SYSCALL, 100, "my app", 2, 4, s_syscall },
	[S_NAMES]   = { S_NAMES, 100, "worker;1 \"q\"", 0, 4, s_names },
	[S_ODD]     = { S_ODD, 200, "gr\xc3\xbc\xc3\x9f" "e", 2, 3, s_odd },
	[S_EMPTY]   = { S_EMPTY, 200, "gr\xc3\xbc\xc3\x9f" "e", 0, 0, NULL },
	[S_KTHREAD] = { S_KTHREAD, 300, "kworker/0:1", 1, 0, s_kthread },
};

#define T0 1000000000000ULL	/* 1000 s after boot */

/* In time order. Thread 102 of process 100 is named "worker;1 "q"";
 * process 200's first sample is from thread 201, not its main thread. */
static const struct pk_sample_view samples[] = {
	{ T0 + 1000, 201, 1, 1, &stacks[S_ODD] },
	{ T0 + 1001, 100, 0, 1, &stacks[S_PLAIN] },
	{ T0 + 10000000, 100, 0, 1, &stacks[S_SYSCALL] },
	{ T0 + 10000999, 102, 1, 1, &stacks[S_NAMES] },
	{ T0 + 20000000, 200, 0, 1, &stacks[S_ODD] },
	{ T0 + 20000001, 201, 1, 4, &stacks[S_EMPTY] },
	{ T0 + 30000000, 300, 0, 1, &stacks[S_KTHREAD] },
	{ T0 + 40000000, 100, 1, 1, &stacks[S_PLAIN] },
	{ T0 + 1234567890123ULL, 102, 0, 1, &stacks[S_SYSCALL] },
};

struct pk_profile pk_synth_profile(enum pk_group group, bool lines)
{
	return (struct pk_profile){
		.freq_hz = 99,
		.period_ns = 10101010,
		.start_ns = T0,
		.end_ns = T0 + 1234567890124ULL,
		.boot_to_real_ns = 1700000000000000000LL,
		.group = group,
		.lines = lines,
		.nsamples = ARRAY_SIZE(samples),
		.samples = samples,
		.nstacks = NSTACKS,
		.nlocs = NLOCS,
		.nmaps = NMODULES,
		.nmodules = NMODULES,
	};
}

static const struct pk_event_desc events[PK_SYNTH_NEVENTS] = {
	[PK_SYNTH_CPU] = { .name = "cpu-clock", .kind = PK_EVK_PERF, .unit = PK_UNIT_NS,
			   .flags = PK_EVF_FREQ, .freq_hz = 99 },
	[PK_SYNTH_OFFCPU] = { .name = "off-cpu", .kind = PK_EVK_OFFCPU, .unit = PK_UNIT_NS,
			      .sample_every = 1, .min_block_ns = 1000 },
	[PK_SYNTH_TP] = { .name = "tracepoint:syscalls:sys_enter_write",
			  .kind = PK_EVK_TRACEPOINT, .unit = PK_UNIT_COUNT, .sample_every = 10 },
};

#define EV(t, tid, cpu, n, st, w, e) { T0 + (t), tid, cpu, n, &stacks[st], w, e }

/* In time order. off-cpu on S_PLAIN: 700 + 700 ns (1 us merged, 2 us
 * rounded one by one) and 1499 ns on CPU 1 (1 us); on S_SYSCALL 2500 ns
 * and 100 ms. */
static const struct pk_sample_view ev_samples[] = {
	EV(10, 100, 0, 1, S_PLAIN, 700, PK_SYNTH_OFFCPU),
	EV(20, 100, 0, 1, S_PLAIN, 10101010, PK_SYNTH_CPU),
	EV(30, 100, 0, 1, S_PLAIN, 700, PK_SYNTH_OFFCPU),
	EV(40, 100, 1, 1, S_PLAIN, 1499, PK_SYNTH_OFFCPU),
	EV(1000, 201, 1, 1, S_ODD, 10101010, PK_SYNTH_CPU),
	EV(2000, 100, 0, 1, S_SYSCALL, 10, PK_SYNTH_TP),
	EV(2001, 102, 0, 1, S_SYSCALL, 10, PK_SYNTH_TP),
	EV(3000, 100, 0, 1, S_SYSCALL, 2500, PK_SYNTH_OFFCPU),
	EV(4000, 102, 1, 1, S_NAMES, 0, PK_SYNTH_CPU),	/* weight not known */
	EV(5000, 100, 0, 3, S_SYSCALL, 30, PK_SYNTH_TP),
	EV(6000, 300, 0, 1, S_KTHREAD, 10101010, PK_SYNTH_CPU),
	EV(7000, 100, 0, 1, S_SYSCALL, 100000000, PK_SYNTH_OFFCPU),
	EV(8000, 201, 0, 2, S_EMPTY, 20202020, PK_SYNTH_CPU),
};

struct pk_profile pk_synth_profile_events(enum pk_group group, bool lines)
{
	struct pk_profile p = pk_synth_profile(group, lines);

	p.samples = ev_samples;
	p.nsamples = ARRAY_SIZE(ev_samples);
	p.end_ns = T0 + 10000;
	p.events = events;
	p.nevents = PK_SYNTH_NEVENTS;
	return p;
}

/* --- a Python process ------------------------------------------------------ */

enum { PM_PY, PM_KERNEL, NPMODULES };

static const struct pk_module py_modules[NPMODULES] = {
	[PM_PY]     = { PM_PY, "/usr/bin/python3.11", "fedcba9876543210" },
	[PM_KERNEL] = { PM_KERNEL, "[kernel.kallsyms]", NULL },
};

static const struct pk_map py_maps[NPMODULES] = {
	[PM_PY]     = { PM_PY, 0x555555554000, 0x555555a00000, 0, &py_modules[PM_PY] },
	[PM_KERNEL] = { PM_KERNEL, 0xffffffff81000000, 0xffffffff83000000, 0,
			&py_modules[PM_KERNEL] },
};

static const struct pk_frame
	pf_run[] = { { "Job.run", "/srv/app/job.py", 12 } },
	pf_mod[] = { { "<module>", "/srv/app/main.py", 3 } },
	pf_noline[] = { { "caf\xc3\xa9.\xc3\xbc" "ber", "/srv/app/util.py", 0 } },
	pf_unknown[] = { { "[py:0x7f1200004000]", NULL, 0 } },
	pf_other[] = { { "<module>", "/srv/app/other.py", 1 } },
	pf_call[] = { { "method_vectorcall_NOARGS", "Objects/descrobject.c", 1187 } },
	pf_eval[] = { { "_PyEval_EvalFrameDefault", "Python/ceval.c", 4760 } },
	pf_main[] = { { "Py_RunMain", "Modules/main.c", 680 } },
	pf_sys[] = { { "do_syscall_64", "arch/x86/entry/common.c", 80 } };

enum { PL_RUN, PL_MOD, PL_NOLINE, PL_UNKNOWN, PL_OTHER, PL_CALL, PL_EVAL, PL_MAIN, PK_SYS,
       NPLOCS };

#define PYLOC(i, fr, a) \
	[i] = { i, false, ARRAY_SIZE(fr), a, NULL, 0, PK_LOC_NO_SYM, fr, true }

static const struct pk_loc py_locs[NPLOCS] = {
	PYLOC(PL_RUN, pf_run, 0x7f1200001000),
	PYLOC(PL_MOD, pf_mod, 0x7f1200002000),
	PYLOC(PL_NOLINE, pf_noline, 0x7f1200003000),
	PYLOC(PL_UNKNOWN, pf_unknown, 0x7f1200004000),
	PYLOC(PL_OTHER, pf_other, 0x7f1200005000),
	LOC(PL_CALL, false, pf_call, 0x555555600010, &py_maps[PM_PY], 0xac010, 0x40),
	LOC(PL_EVAL, false, pf_eval, 0x555555610020, &py_maps[PM_PY], 0xbc020, 0x1234),
	LOC(PL_MAIN, false, pf_main, 0x555555620030, &py_maps[PM_PY], 0xcc030, 0x50),
	LOC(PK_SYS, true, pf_sys, 0xffffffff81e00065, &py_maps[PM_KERNEL], 0xffffffff81e00065,
	    0x65),
};

/* Kernel part, then user part, each leaf first. */
static const struct pk_loc *const ps_call[] = {
	&py_locs[PL_RUN], &py_locs[PL_CALL], &py_locs[PL_MOD], &py_locs[PL_MAIN],
};
static const struct pk_loc *const ps_sys[] = {
	&py_locs[PK_SYS],
	&py_locs[PL_NOLINE], &py_locs[PL_RUN], &py_locs[PL_MOD], &py_locs[PL_MAIN],
};
static const struct pk_loc *const ps_odd[] = {
	&py_locs[PL_UNKNOWN], &py_locs[PL_EVAL], &py_locs[PL_OTHER], &py_locs[PL_MAIN],
};

enum { PS_CALL, PS_SYS, PS_ODD, NPSTACKS };

static const struct pk_stack_view py_stacks[NPSTACKS] = {
	[PS_CALL] = { PS_CALL, 400, "python3", 0, 4, ps_call },
	[PS_SYS]  = { PS_SYS, 400, "python3", 1, 4, ps_sys },
	[PS_ODD]  = { PS_ODD, 400, "python3", 0, 4, ps_odd },
};

static const struct pk_sample_view py_samples[] = {
	{ T0 + 1000, 400, 0, 2, &py_stacks[PS_CALL] },
	{ T0 + 2000, 401, 1, 1, &py_stacks[PS_SYS] },
	{ T0 + 3000, 400, 1, 1, &py_stacks[PS_ODD] },
	{ T0 + 4000, 400, 0, 1, &py_stacks[PS_CALL] },
};

struct pk_profile pk_synth_python_profile(enum pk_group group, bool lines)
{
	return (struct pk_profile){
		.freq_hz = 99,
		.period_ns = 10101010,
		.start_ns = T0,
		.end_ns = T0 + 4000,
		.boot_to_real_ns = 1700000000000000000LL,
		.group = group,
		.lines = lines,
		.nsamples = ARRAY_SIZE(py_samples),
		.samples = py_samples,
		.nstacks = NPSTACKS,
		.nlocs = NPLOCS,
		.nmaps = NPMODULES,
		.nmodules = NPMODULES,
	};
}

/* Process 500 sampled in four cgroups: a docker container's, a plain
 * one, one removed before it was named, and one not looked up. */
#define CG_DOCKER "/system.slice/docker-" PK_SYNTH_CONTAINER_ID ".scope"
static const struct pk_stack_view cg_stacks[] = {
	{ 0, 500, "svc", 0, 3, s_plain, 10, CG_DOCKER },
	{ 1, 500, "svc", 0, 3, s_plain, 20, "/user.slice" },
	{ 2, 500, "svc", 0, 3, s_plain, 30, "cgroup:30" },
	{ 3, 500, "svc", 0, 3, s_plain, 0, NULL },
};

static const struct pk_sample_view cg_samples[] = {
	{ T0 + 1000, 500, 0, 2, &cg_stacks[0] },
	{ T0 + 2000, 501, 1, 1, &cg_stacks[1] },
	{ T0 + 3000, 500, 0, 1, &cg_stacks[2] },
	{ T0 + 4000, 500, 1, 1, &cg_stacks[3] },
};

struct pk_profile pk_synth_cgroup_profile(enum pk_group group, bool per_cgroup)
{
	return (struct pk_profile){
		.freq_hz = 99,
		.period_ns = 10101010,
		.start_ns = T0,
		.end_ns = T0 + 4000,
		.group = group,
		.per_cgroup = per_cgroup,
		.nsamples = ARRAY_SIZE(cg_samples),
		.samples = cg_samples,
		.nstacks = ARRAY_SIZE(cg_stacks),
		.nlocs = NLOCS,
		.nmaps = NMODULES,
		.nmodules = NMODULES,
	};
}

char *pk_synth_write(int (*write)(FILE *f, const struct pk_profile *p),
		     const struct pk_profile *p, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	*ret = write(f, p);
	fclose(f);
	return buf;
}
