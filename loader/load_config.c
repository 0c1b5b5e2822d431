// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * probe-load's options checked against this system, and the BPF object
 * configured from them (loader/load.h).
 */
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "lib/cgroup.h"
#include "lib/proc_maps.h"
#include "loader/kernel_btf.h"
#include "loader/load.h"
#include "loader/system.h"

int pk_load_check_limits(const struct pk_load_opts *o, char err[PK_ERR_LEN])
{
	struct pk_load_limits lim = { .page_size = sysconf(_SC_PAGESIZE) };
	int ret;

	ret = pk_read_uint("/proc/sys/kernel/perf_event_max_sample_rate", &lim.max_sample_rate);
	if (ret)
		return pk_err(err, ret, "cannot read /proc/sys/kernel/perf_event_max_sample_rate: %s",
			      strerror(-ret));
	return pk_load_opts_check(o, &lim, err);
}

int pk_load_preflight(struct pk_load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct utsname uts;
	int ret;

	ret = pk_check_caps(pk_effective_caps(), l->err);
	if (ret)
		return ret;
	uname(&uts);
	snprintf(l->release, sizeof(l->release), "%s", uts.release);
	ret = pk_check_kernel_release(uts.release, l->opts->dwarf, l->err);
	if (ret)
		return ret;
	ret = pk_check_btf(PK_BTF_VMLINUX, l->err);
	if (ret)
		return ret;
	ret = pk_online_cpus(l->online, PK_MAX_CPUS, l->online_list, sizeof(l->online_list));
	if (ret < 0)
		return pk_err(l->err, ret, "cannot read the online CPUs: %s", strerror(-ret));
	if (o->cpu >= 0) {
		if (o->cpu >= PK_MAX_CPUS || !l->online[o->cpu]) {
			l->refused = true;	/* a bad value, as the parser's */
			return pk_err(l->err, -EINVAL, "-C %d: no such CPU (online: %s)",
				      o->cpu, l->online_list);
		}
		memset(l->online, 0, sizeof(l->online));
		l->online[o->cpu] = true;
	}
	l->tgids = calloc(o->npids + 1, sizeof(*l->tgids));	/* + the command */
	if (!l->tgids)
		return pk_err(l->err, -ENOMEM, "out of memory");
	for (size_t i = 0; i < o->npids; i++) {
		pid_t tgid;
		int j;

		ret = pk_resolve_tgid(o->pids[i], &tgid, l->err);
		if (ret)
			return ret;
		for (j = 0; j < l->ntgids && l->tgids[j] != tgid; j++)
			;
		if (j == l->ntgids)
			l->tgids[l->ntgids++] = tgid;
	}
	if (l->ntgids + (o->cmd != NULL) > PK_MAX_TARGETS)
		return pk_err(l->err, -E2BIG, "too many processes: at most %d can be profiled",
			      PK_MAX_TARGETS);
	return 0;
}

struct pk_unwind_alloc pk_load_unwind_caps(const struct pk_load_opts *o)
{
	return (struct pk_unwind_alloc){
		.max_tables = PK_UNWIND_TABLES_MAX, .max_rows = o->table_rows,
		.max_bytes = o->table_memory,
	};
}

/* The unwind maps are declared with one entry, so that --unwind fp costs
 * nothing; with dwarf they get their real sizes. */
static int size_unwind_maps(struct pk_load *l)
{
	struct profile_bpf *skel = l->skel;
	struct pk_unwind_alloc caps = pk_load_unwind_caps(l->opts);
	const struct { struct bpf_map *map; __u32 n; } sizes[] = {
		{ skel->maps.unwind_files, PK_UNWIND_FILES_MAX },
		{ skel->maps.unwind_tables, caps.max_tables },
		{ skel->maps.unwind_rows, caps.max_tables },
		{ skel->maps.unwind_seen, PK_UNWIND_SEEN_MAX },
		{ skel->maps.py_files, PK_PY_FILES_MAX },
		{ skel->maps.py_procs, PK_PY_PROCS_MAX },
		{ skel->maps.py_threads, PK_PY_THREADS_MAX },
		{ skel->maps.py_code_seen, PK_PY_CODE_SEEN_MAX },
		{ skel->maps.hs_files, PK_HS_FILES_MAX },
		{ skel->maps.hs_procs, PK_HS_PROCS_MAX },
		{ skel->maps.hs_method_seen, PK_HS_METHOD_SEEN_MAX },
		{ skel->maps.hs_nmethod_seen, PK_HS_NMETHOD_SEEN_MAX },
		{ skel->maps.v8_files, PK_V8_FILES_MAX },
		{ skel->maps.v8_procs, PK_V8_PROCS_MAX },
		{ skel->maps.v8_sfi_seen, PK_V8_SFI_SEEN_MAX },
	};
	int ret;

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		ret = bpf_map__set_max_entries(sizes[i].map, sizes[i].n);
		if (ret)
			return pk_err(l->err, ret, "unwind map %s: %s", bpf_map__name(sizes[i].map),
				      strerror(-ret));
	}
	return 0;
}

int pk_load_configure(struct pk_load *l)
{
	const struct pk_load_opts *o = l->opts;
	struct profile_bpf *skel = l->skel;
	bool follow = l->ntgids > 0;
	unsigned int max_stack = PK_MAX_STACK_DEPTH;
	int ret;

	skel->rodata->filter_pids = follow;
	skel->rodata->skip_idle = o->skip_idle;
	skel->rodata->target_cpu = o->cpu;
	for (size_t i = 0; i < o->ncgroups; i++) {
		struct pk_cgroup cg;

		ret = pk_cgroup_resolve(o->cgroups[i], NULL, &cg, l->err);
		if (ret)
			return ret;
		skel->rodata->cgroup_ids[i] = cg.id;
		skel->rodata->cgroup_levels[i] = cg.level;
	}
	skel->rodata->ncgroups = o->ncgroups;
	skel->rodata->dwarf = o->dwarf;
	skel->rodata->stack_copy = o->stack_copy;
	/* -- CMD: probe-load loads what the command maps while it waits
	 * (loader/missing_watch.h); else the ring takes one page */
	skel->rodata->missing_ring = o->dwarf && o->cmd;
	if (!skel->rodata->missing_ring) {
		ret = bpf_map__set_max_entries(skel->maps.missing, sysconf(_SC_PAGESIZE));
		if (ret)
			return pk_err(l->err, ret, "missing ring: %s", strerror(-ret));
	}
	/* Python frames need the DWARF walk, which finds the interpreter */
	skel->rodata->python = o->dwarf && !o->no_python;
	/* A quarter full: the reader, polling every 100 ms, still has three
	 * quarters of room to catch up at any rate. */
	skel->rodata->wakeup_bytes = o->ringbuf_bytes / 4;
	if (pk_read_uint("/proc/sys/kernel/perf_event_max_stack", &max_stack) == 0 &&
	    max_stack < PK_MAX_STACK_DEPTH)
		skel->rodata->stack_depth = max_stack;
	ret = bpf_map__set_max_entries(skel->maps.events, o->ringbuf_bytes);
	if (ret)
		return pk_err(l->err, ret, "ring buffer size: %s", strerror(-ret));
	if (o->dwarf && (ret = size_unwind_maps(l)))
		return ret;
	/* The stack copies of walks that stop for want of a table: one
	 * buffer per CPU. */
	if (o->dwarf) {
		ret = libbpf_num_possible_cpus();
		if (ret > 0)
			ret = bpf_map__set_max_entries(skel->maps.uw_copy_bufs, ret);
		if (ret < 0)
			return pk_err(l->err, ret, "uw_copy_bufs: %s", strerror(-ret));
	}
	/* Mapping reports name the frames of processes gone before they are
	 * read: the DWARF walk sends them; with fp, the same VMA lookup does
	 * where the kernel has it (the maple tree, 6.1): mm_struct's, which
	 * the kernel types kept for the object have where the kernel does. */
	skel->rodata->fp_mappings = !o->dwarf &&
		pk_kernel_has_struct(l->kernel_btf[0] ? l->kernel_btf : NULL, "maple_tree");
	if (o->dwarf || skel->rodata->fp_mappings) {
		ret = bpf_map__set_max_entries(skel->maps.mappings_seen, PK_MAPPINGS_SEEN_MAX);
		if (ret)
			return pk_err(l->err, ret, "mappings_seen: %s", strerror(-ret));
	}
	/* --aggregate: both counts maps sized, the first one in the slot. */
	skel->rodata->aggregate = o->aggregate;
	if (o->aggregate) {
		ret = bpf_map__set_max_entries(skel->maps.agg_counts0, o->agg_entries);
		if (!ret)
			ret = bpf_map__set_max_entries(skel->maps.agg_counts1, o->agg_entries);
		if (ret)
			return pk_err(l->err, ret, "counts maps: %s", strerror(-ret));
	}
	/* Without targets there is nothing for the fork/exit programs to do. */
	bpf_program__set_autoload(skel->progs.pk_follow_fork, follow);
	bpf_program__set_autoload(skel->progs.pk_forget_exit, follow);
	bpf_program__set_autoload(skel->progs.pk_command_exec, o->cmd != NULL);
	/* Code mapped by exec and mmap reported as it is mapped: tables
	 * before the first samples need them (the DWARF walk only). */
	bpf_program__set_autoload(skel->progs.pk_code_report, o->dwarf);
	return 0;
}
